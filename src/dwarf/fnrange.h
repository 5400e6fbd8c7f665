/* fnrange.h - the code of the function holding a pc: every range of it,
 * so a caller can look through all of it (a function split into a hot
 * and a .cold part has two).
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 */
#ifndef WRAITH_DWARF_FNRANGE_H
#define WRAITH_DWARF_FNRANGE_H

#include <stddef.h>
#include <stdint.h>

struct dw_module;

struct dw_range {
	uint64_t lo, hi; /* [lo, hi) */
};

/* The address ranges of the out-of-line function (DW_TAG_subprogram)
 * whose code holds @pc - the innermost one when functions nest - into
 * @out, at most @max.  Returns how many there are (possibly more than
 * @max), 0 when no DWARF function holds @pc. */
size_t dw_function_ranges(struct dw_module *m, uint64_t pc, struct dw_range *out, size_t max);

#endif
