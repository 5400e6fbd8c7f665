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

struct x86insn;

/* Each instruction of the function whose code holds @pc, in every range
 * (as dw_function_ranges(), at most DW_FUNCTION_MAX_RANGES), read from
 * @m's file and decoded, given with its address to @fn until @fn
 * returns non-zero.  Returns that value, 0 when @fn saw them all,
 * -ENOENT when no DWARF function holds @pc or it has more ranges, -EIO
 * when its code cannot be read or decoded. */
#define DW_FUNCTION_MAX_RANGES 8
int dw_function_each_insn(struct dw_module *m, uint64_t pc,
			  int (*fn)(const struct x86insn *in, uint64_t at, void *ctx), void *ctx);

#endif
