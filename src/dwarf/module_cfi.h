/* module_cfi.h - a module's call frame information as elfutils gives it,
 * for unwind/: the bytes of its CFI sections (from which unwind/cfi.c
 * builds the unwinder's rows), libdw's view of its CFI and libdw's rule
 * for one register (which unwind/frame.c evaluates for frame values).
 *
 * Layer rule: included by dwarf/ and unwind/ only, the two folders that
 * include elfutils headers; the rest of wraith sees modules through
 * dwarf/module.h.
 */
#ifndef WRAITH_DWARF_MODULE_CFI_H
#define WRAITH_DWARF_MODULE_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#include "dwarf/module.h"

/* One section of a module's file, open for reading its bytes. */
struct dw_section {
	const char *name;           /* static: the name it was opened by */
	Elf_Data *data;             /* borrowed, valid until dw_section_close() */
	const uint8_t *buf;         /* data->d_buf */
	uint64_t vaddr;             /* sh_addr: where its bytes sit in the address space */
	const unsigned char *ident; /* the file's e_ident */
	int fd;                     /* owned: the separate debug file opened for it, or -1 */
	Elf *elf;                   /* owned: that file's ELF, or NULL */
};

/* Open the section @name of @m's main file.  Returns false when it is
 * absent or empty (@out then holds nothing to close). */
bool dw_module_section(struct dw_module *m, const char *name, struct dw_section *out);
/* Open @m's .debug_frame: the main file's, else the separate debug file's.
 * That file is opened here for its section headers only when its DWARF is
 * not loaded yet: loading it decompresses every debug section (tens of
 * milliseconds on libc), which CFI does not need.  Returns false when
 * there is none. */
bool dw_module_debug_frame(struct dw_module *m, struct dw_section *out);
/* Close what dw_module_section() or dw_module_debug_frame() opened for
 * @s.  A section that was not opened, or was closed, is a no-op. */
void dw_section_close(struct dw_section *s);

/* The ELF of @m's main file, which holds the symbol tables.  Borrowed:
 * valid until dw_module_free(). */
Elf *dw_module_elf(struct dw_module *m);

/* libdw's CFI of @m: .eh_frame's, else .debug_frame's; NULL when it has
 * none.  Borrowed, like the module's DWARF. */
Dwarf_CFI *dw_module_cfi(struct dw_module *m);

/* dwarf_frame_register() with the x86-64 psABI's defaults put right:
 * libdw's built-in rules for registers no CFI mentions call DWARF
 * register 0 (rax) callee-saved and leave 3 (rbx) undefined, so a
 * caller's rbx would be lost and its rax taken for the callee's.  An
 * unspecified rbx is the same value, an unspecified rax undefined (the
 * two cannot be told from an explicit rule, which no compiler writes for
 * them in a function's body). */
int dw_cfi_register(Dwarf_Frame *frame, int reg, Dwarf_Op mem[3], Dwarf_Op **ops, size_t *n);

#endif
