/* walk.c - finishing in userspace a walk the kernel handed over (see
 * walk.h).
 *
 * The step is the kernel's own (unwind/step.h): the canonical frame
 * address, the return address at a CFA offset, rbp by its rule, the signal
 * trampoline's ucontext, the same checks before a caller is believed, and
 * the same frame record.  Memory comes only from the copy of the stack
 * taken when the probe fired; a read beyond it ends the walk with
 * read-error.  What differs is only how memory is read and that no
 * uretprobe trampoline is undone (userspace does not know where it is).
 */
#include "unwind/walk.h"

#include <string.h>

/* The step's reads: the copy of the stack, 8 bytes at a time. */
static inline int uw_read(const struct uw_memory *mem, __u64 *dst, __u64 addr)
{
	if (addr < mem->base || addr - mem->base > mem->len || mem->len - (addr - mem->base) < 8) {
		*dst = 0;
		return -1;
	}
	memcpy(dst, mem->data + (addr - mem->base), sizeof(*dst));
	return 0;
}

static inline __u64 uw_return_address(const struct uw_memory *mem, __u64 at, __u64 ra)
{
	(void)mem;
	(void)at;
	return ra;
}

#define UW_STEP_REGS struct uw_regs
#define UW_STEP_MEM const struct uw_memory
#include "unwind/step.h"

/* The record of the frame at r->ip, as the kernel writes it. */
static void emit_frame(const struct uw_regs *r, const struct uw_where *w, struct wr_bt_frame *f)
{
	__u64 hash_in, word = uw_frame_word(r->ip, r->flags & WR_SLOT_F_EXACT, w->cookie, w->bias,
					    &hash_in);

	memset(f, 0, sizeof(*f));
	f->ip = r->ip;
	f->pc = (uint32_t)word;
	f->cookie = (uint16_t)(word >> 32);
	f->flags = (uint8_t)(word >> 48);
}

uint8_t uw_walk(uw_lookup_fn lookup, void *ctx, struct uw_regs *regs, const struct uw_memory *mem,
		struct wr_bt_frame *frames, size_t *n, size_t depth, uint16_t *error)
{
	*error = WR_BTE_NONE;
	while (*n < depth) {
		struct uw_where w = { 0 };
		__u32 status, err = WR_BTE_NONE;

		lookup(ctx, regs->ip, (regs->flags & WR_SLOT_F_EXACT) != 0, &w);
		emit_frame(regs, &w, &frames[(*n)++]);
		if (!w.rule)
			return w.status;
		status = uw_step(mem, regs, w.rule, &err);
		if (status != UW_MOVED) {
			*error = (uint16_t)err;
			return (uint8_t)status;
		}
	}
	return WR_BT_TRUNCATED;
}
