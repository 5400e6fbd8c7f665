/* frame_values.h - the variables of a backtrace's frames, as gdb's `bt`
 * and `bt full` show them (bt args, bt full).
 *
 * Layer rule: tracer/ joins dwarf/ (variables, their locations and the
 * CFI of each module) with what the probe sent: frame 0's registers and a
 * copy of the stack from frame 0's stack pointer up (struct
 * wr_stack_header with WR_STACK_F_REGS).  Nothing is read from the live
 * process: every value is what the stack held when the probe fired.
 *
 * Frame 0's variables come from its registers; each caller's registers
 * are its callee's restored by the callee's CFI (callee-saved registers
 * by their rules, the stack pointer from the CFA, caller-saved ones
 * unknown), so a caller's parameter that lived in a caller-saved register
 * is <optimized out>, as gdb shows it; except frame 1 of a frame 0 at its
 * function's first instruction, entered by a direct call from frame 1:
 * nothing ran since the call, and it has them all.  A frame whose unwound return
 * address is not the one the kernel's walk found gets no values: a value
 * is shown only when it is known to be right.
 */
#ifndef WRAITH_TRACER_FRAME_VALUES_H
#define WRAITH_TRACER_FRAME_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/decode.h"

struct target;
struct fv_walk;
struct dw_type;
struct render_value_ctx;

struct fv_var {
	const char *name;   /* borrowed until the next fv_frame() */
	const char *value;  /* text: "3", "0x7ffd1234", "<optimized out>" */
	bool param;
	bool entry;         /* the value is also the one the caller passed
			       (gdb's `x=x@entry=5`) */
};

/* An outer frame's value that points outside the stack copy (a caller's
 * std::string's characters, a reference's referent) or lies in writable
 * static storage (a caller's static), of @type (borrowed
 * from the module's debug info): what the recipe of frame @frame copies
 * at the later events whose frames 0 to @frame are the same (wire.h:
 * struct wr_outer_recipe). */
#define FV_MAX_WANTS 64 /* noted; a frame's recipe holds WR_OUTER_ROOTS of them */
enum fv_want_at {
	FV_AT_VALUE,  /* the value is at @at, in the stack copy */
	FV_AT_DEREF,  /* its address is the word at @at, in the stack copy */
	FV_AT_REG,    /* its address is frame 0's register at byte @at of
		       * struct wr_stack_regs (no callee saved it) */
	FV_AT_STATIC, /* the value is at @at, in static storage (writable
		       * data: a function's static) */
};
struct fv_want {
	uint64_t at;
	enum fv_want_at kind;
	const struct dw_type *type;
	bool string;  /* a char pointer's string: its address is @at's */
	/* FV_AT_DEREF, FV_AT_REG: a fat pointer's data (a Rust &str in
	 * registers): as many bytes as its printer shows at the address
	 * found, its length being elsewhere (WR_OUTER_F_SPAN) */
	bool span;
	/* FV_AT_DEREF, FV_AT_REG: added to the address found there (a
	 * pointer the code computed from the one kept: `el = cont - 1`) */
	int32_t addend;
	unsigned frame; /* the physical frame whose value it is (1 and up) */
	/* a local gdb's bt full shows whole (FV_AT_VALUE): its whole walk,
	 * as print's, a container's elements too (WR_OUTER_F_WALK) */
	bool whole;
};

struct fv_walk *fv_new(void);
void fv_free(struct fv_walk *w); /* NULL is a no-op */
/* Forget the backtrace @w walked last (its memory is going away): the
 * next call walks from frame 0 again.  NULL is a no-op. */
void fv_forget(struct fv_walk *w);

/* The variables of function level @level (as the frame's dw_sym orders its
 * inline chain, 0 = innermost) of physical frame @i of @bt: its parameters,
 * then with @locals its locals, values as render_value() shows them inside
 * a value (@vc: symbols of addresses, may be NULL; a char pointer's
 * string when it is in the stack copy or in a read-only segment of one of
 * process @pid's modules, a string literal); at most @max into
 * @out.  Returns how many, or -1 with *@why saying why (static text)
 * when @bt carries no frame values or frame @i cannot be reached.
 * Walks frames in order and keeps the last one, so rendering a backtrace
 * frame by frame costs one CFI step per frame. */
long fv_frame(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
	      unsigned i, unsigned level, bool locals, const struct render_value_ctx *vc,
	      struct fv_var *out, size_t max, const char **why);

/* The outer frames' values of the backtrace the last fv_frame() read
 * that point outside its stack copy, found in the frames it read since
 * frame 0 (at most FV_MAX_WANTS), in *@out, borrowed until the next
 * fv_ call.  Returns how many. */
size_t fv_wants(const struct fv_walk *w, const struct fv_want **out);

/* Whether frame @i's recipe was taken out of the full table of recipes
 * (WR_OUTER_RECIPES) to make room for another's: its values then say
 * so, not that the frames up to it are new.  Frame 0 forgets every
 * frame's. */
void fv_recipes_full(struct fv_walk *w, unsigned i, bool full);
/* Whether frame @i's recipe was written at attach and no event of its
 * frames has been read yet: a value it does not copy then says the
 * chain is new, not `<unavailable>`.  Frame 0 forgets every frame's. */
void fv_recipes_pre(struct fv_walk *w, unsigned i, bool pre);

/* The same for a function that left the stack by a tail call between
 * physical frame @i of @bt and its caller: the one whose jump is at
 * @tail_pc of the module whose cookie is @tail_module (frame @i's, its
 * caller's or another one the process maps), innermost inline level
 * there.  Its registers are those frame @i had at its entry (all of them
 * when frame @i is frame 0 at its entry, else the ones its caller gets
 * back), its entry values what the jump that entered it passed (the
 * next one out in the chain), or for the first of the chain frame
 * @i + 1's call site, as gdb reads them through its tailcall frames. */
long fv_tail_frame(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
		   unsigned i, uint64_t tail_module, uint64_t tail_pc, bool locals,
		   const struct render_value_ctx *vc, struct fv_var *out, size_t max, const char **why);

/* What the caller of frame 0 of @bt passed in DWARF register @reg, read
 * as bt args reads a parameter's entry value: the call site the return
 * address names (in whatever module holds it), if it calls frame 0's
 * function, or the jumps of the tail calls between them; its value in
 * the caller's frame.  False when none says or the value is not known. */
bool fv_entry_value(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
		    int reg, uint64_t *value);

/* The same from what a print captured at the hit (wire.h:
 * WR_ITEM_CALLER, its @n arguments @cap): frame 0's registers and the
 * stack around its CFA, made into a backtrace of frame 0 and its
 * caller. */
bool fv_caller_value(struct target *t, uint32_t pid, const struct ev_arg *cap, size_t n, int reg,
		     uint64_t *value);
/* The string char pointer @p (a value fv_caller_value() found) points
 * to, as bt args reads it: from the stack the capture @cap (@n
 * arguments) holds, or from the file of the module whose read-only data
 * holds it (a literal); into @buf, at most @max bytes, up to its NUL.
 * Returns how many bytes, 0 when it is elsewhere (the heap, writable
 * data: it may have changed since the hit). */
size_t fv_caller_string(struct target *t, uint32_t pid, const struct ev_arg *cap, size_t n, uint64_t p,
			uint8_t *buf, size_t max);

#endif
