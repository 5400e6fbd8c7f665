/* fuzz_cfi.c - libFuzzer harness for the CFI program reader: the input is
 * the bytes of an .eh_frame (first byte odd) or .debug_frame section.  The
 * reader scans its CIEs and FDEs with libdw and runs their DW_CFA_*
 * programs into compact rows, as it does for every module wraith opens.
 * The module around the section is the harness itself (its code range
 * decides which FDEs are kept). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dw_module *self;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_extract x;
	struct cfi_rules rules;
	struct cfi_table t;
	Elf_Data ed;
	uint8_t *buf;

	if (!self && dw_module_open("/proc/self/exe", &self) != 0)
		abort();
	if (size < 1)
		return 0;
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	memset(&ed, 0, sizeof(ed));
	ed.d_buf = buf;
	ed.d_size = size - 1;
	ed.d_type = ELF_T_BYTE;
	cfi_rules_init(&rules);
	cfi_table_init(&t);
	memset(&x, 0, sizeof(x));
	x.m = self;
	x.rules = &rules;
	x.sec.eh = data[0] & 1;
	x.sec.name = x.sec.eh ? ".eh_frame" : ".debug_frame";
	x.sec.data = &ed;
	x.sec.buf = buf;
	x.sec.vaddr = data[0] & 2 ? 0x1000 : 0;
	x.sec.ident = (const unsigned char *)elf_getident(dw_module_elf(self), NULL);
	cfi_program_scan(&x);
	cfi_program_run(&x, NULL, &t);
	free(x.cies);
	free(x.fdes);
	cfi_table_release(&t);
	cfi_rules_release(&rules);
	free(buf);
	return 0;
}
