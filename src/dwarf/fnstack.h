/* fnstack.h - where a function's CFA lies from rsp, and from rbp, at each
 * of its instructions, as its code says: followed from its entry (CFA =
 * rsp + 8) along every path its direct jumps and branches take, each
 * instruction's effect on rsp and rbp given by util/x86stack.h.
 *
 * For a frame whose call frame information puts the CFA at rbp + 16 (a
 * frame pointer: -O0, -fno-omit-frame-pointer), the CFI does not say
 * where rsp is; outer frames' recipes written before any event
 * (tracer/session_recipes.c) need it.  An answer is given only when it
 * is the same on every path that reaches the instruction: where two
 * paths disagree, or an instruction writes rsp in a way not understood
 * (alloca, stack realignment, `enter`), or only a jump table or an
 * exception reaches it, there is none.  A jump into the middle of an
 * instruction leaves the function without answers.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 */
#ifndef WRAITH_DWARF_FNSTACK_H
#define WRAITH_DWARF_FNSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

/* At one instruction, before it runs. */
struct fn_stack_depth {
	bool rsp_known;  /* cfa_rsp holds */
	bool rbp_known;  /* cfa_rbp holds: rbp was set from rsp and kept */
	int64_t cfa_rsp; /* CFA - rsp */
	int64_t cfa_rbp; /* CFA - rbp */
};

struct fn_stack;

/* Follow the code of the function of @m (module addresses) whose entry
 * is @entry, every range of it (dwarf/fnrange.h).  0 and *@out (caller
 * frees with fn_stack_free()), -ENOENT when no DWARF function starts at
 * @entry or it has too many ranges, -EIO when its code cannot be read or
 * decoded, -ENOMEM. */
int fn_stack_new(struct dw_module *m, uint64_t entry, struct fn_stack **out);
void fn_stack_free(struct fn_stack *s);

/* Whether @pc lies in @s's function's ranges. */
bool fn_stack_covers(const struct fn_stack *s, uint64_t pc);
/* The function's entry. */
uint64_t fn_stack_entry(const struct fn_stack *s);

/* The depth at the instruction that starts at @pc: false when none
 * starts there (or the code jumps into an instruction); then *@out is
 * unknown.  An instruction no path reached has neither known. */
bool fn_stack_at(const struct fn_stack *s, uint64_t pc, struct fn_stack_depth *out);

/* The instructions, in address order: how many, and the @i-th's address
 * and depth (for checks against the CFI). */
size_t fn_stack_count(const struct fn_stack *s);
uint64_t fn_stack_nth(const struct fn_stack *s, size_t i, struct fn_stack_depth *out);

#endif
