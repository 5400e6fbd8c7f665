/* fnrange.c - see fnrange.h. */
#include "dwarf/fnrange.h"
#include "dwarf/module_priv.h"

#include <dwarf.h>

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
