/* fnrange.c - see fnrange.h. */
#include "dwarf/fnrange.h"
#include "dwarf/module_priv.h"
#include "util/x86insn.h"

#include <dwarf.h>
#include <errno.h>

#define MAX_NESTING 64

size_t dw_function_ranges(struct dw_module *m, uint64_t pc, struct dw_range *out, size_t max)
{
	Dwarf_Die cu, scopes[MAX_NESTING], *fn = NULL;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t n = 0;
	int depth;

	if (!dw_unit_at(m, pc, &cu))
		return 0;
	depth = dw_pc_scopes(&cu, pc, scopes, MAX_NESTING);
	for (int i = 0; i < depth; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			fn = &scopes[i];
	while (fn && (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		if (n < max)
			out[n] = (struct dw_range){ .lo = lo, .hi = hi };
		n++;
	}
	return n;
}

int dw_function_each_insn(struct dw_module *m, uint64_t pc,
			  int (*fn)(const struct x86insn *in, uint64_t at, void *ctx), void *ctx)
{
	struct dw_range r[DW_FUNCTION_MAX_RANGES];
	size_t n = dw_function_ranges(m, pc, r, DW_FUNCTION_MAX_RANGES);

	if (n == 0 || n > DW_FUNCTION_MAX_RANGES)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		for (uint64_t at = r[i].lo; at < r[i].hi;) {
			uint8_t code[X86_MAX_INSN];
			long got = dw_module_read_const(m, at, code, sizeof(code));
			struct x86insn in;
			int stop;

			if (got <= 0 || x86insn_decode(code, (size_t)got, &in) != 0)
				return -EIO;
			if ((stop = fn(&in, at, ctx)))
				return stop;
			at += in.len;
		}
	}
	return 0;
}
