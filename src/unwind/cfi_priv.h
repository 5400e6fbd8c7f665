/* cfi_priv.h - what cfi.c and cfi_program.c share: cfi.c builds the
 * tables from the sections dwarf/ opens, cfi_program.c decodes a section's
 * CIEs and FDEs and runs their DW_CFA_* programs into a table.
 *
 * Layer rule: private to unwind/cfi*.c (and the CFI fuzzer); it names the
 * elfutils types of dwarf/module_cfi.h.
 *
 * Shared here: one opened section (struct cfi_section, filled by cfi.c),
 * the state of one section's extraction (struct cfi_extract, with the FDEs
 * the scan queued), the two steps of the interpreter, and the one way rows
 * enter a table (cfi_table_push_row, in cfi.c).
 */
#ifndef WRAITH_UNWIND_CFI_PRIV_H
#define WRAITH_UNWIND_CFI_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/module_cfi.h"
#include "unwind/cfi.h"

/* One CFI section's bytes and where they sit in the address space. */
struct cfi_section {
	const char *name;
	Elf_Data *data;
	const uint8_t *buf;
	uint64_t vaddr;            /* sh_addr, the base of DW_EH_PE_pcrel */
	bool eh;
	const unsigned char *ident;
};

/* A decoded CIE; only cfi_program.c looks inside. */
struct cfi_cie;

/* Kept small: libLLVM has over 100,000 of these. */
struct cfi_fde {
	uint32_t start;           /* pcs fit 32 bits, see add_fde() in cfi_program.c */
	uint32_t end;
	const uint8_t *ins;
	uint32_t ins_len;
	uint32_t cie;             /* index into cfi_extract.cies */
};

/* The state of one section's extraction. */
struct cfi_extract {
	struct dw_module *m;
	struct cfi_rules *rules;
	struct cfi_section sec;
	struct cfi_cie *cies;
	size_t n_cies, cap_cies;
	bool cies_sorted;
	size_t last_cie;
	struct cfi_fde *fdes;
	size_t n_fdes, cap_fdes;
	int err;
};

/* Append a row in pc order (see the top of cfi.c); every call counts in
 * rows_raw.  A row at the pc of the last one replaces it, a row repeating
 * the last rule is dropped, a row below the last pc is ignored. */
void cfi_table_push_row(struct cfi_table *t, uint32_t pc, uint32_t rule);

/* Decode the CIEs of x->sec and queue its FDEs in x->fdes, in section
 * order; FDEs that cannot be placed are dropped.  x->cies and x->fdes are
 * grown with xgrow and freed by the caller.  Returns 0 or -WR_EDWARF
 * (entries before the damage are kept; x->err says the same). */
int cfi_program_scan(struct cfi_extract *x);

/* Run the programs of x's queued FDEs into @t, in @order (the low 32 bits
 * of each element index x->fdes; NULL: section order).  An FDE entirely
 * inside what earlier ones cover is skipped, one that overlaps them
 * contributes from their end on, and each ends with a gap row.  Rules are
 * interned into x->rules. */
void cfi_program_run(struct cfi_extract *x, const uint64_t *order, struct cfi_table *t);

#endif
