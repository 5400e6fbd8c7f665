/* frame_entry.c - what the caller of a probe's frame passed, for a print
 * (see fv_caller_value() in frame_values.h).
 *
 * A parameter whose location at the probe is only "what register N held
 * on entry" (DW_OP_entry_value) has the value its caller's call site
 * describes.  The probe finds it itself when the call site is one its
 * own module names and the return address matches; a caller in another
 * module (main's in libc, a library's in the program) or an indirect
 * call is known only by the return address at the hit.  So the probe
 * captured frame 0's registers and the stack around its CFA (wire.h:
 * WR_ITEM_CALLER), which is what `bt args` reads frame 0 and its callers
 * from; here they are made into a backtrace of frame 0 and the callers
 * the copy reaches, read the same way, so that print and bt args never
 * disagree.
 */
#include "tracer/frame_values_priv.h"
#include "tracer/target.h"
#include "protocol/decode.h"

#include <string.h>

/* Frames made of the capture: frame 0, its caller, and the callers'
 * callers a call site that passes on its own entry values needs. */
#define CALLER_FRAMES 4

/* Frame 0's registers, in DWARF order in the capture's first
 * arguments, as the kernel saved them. */
static void regs_from(const struct ev_arg *cap, struct wr_stack_regs *out)
{
	uint64_t v[WR_CALLER_REGS];

	for (unsigned k = 0; k < WR_CALLER_REGS; k++)
		v[k] = cap[k].value;
	memset(out, 0, sizeof(*out));
#define REG_FIELD(n, name, field) out->field = v[n];
	X86_DWARF_REGS(REG_FIELD)
#undef REG_FIELD
}

/* The captured stack into @buf: the dumps that were read, contiguous from
 * the first, whose address is *@base.  Returns how many bytes. */
static size_t stack_from(const struct ev_arg *cap, uint8_t *buf, uint64_t *base)
{
	const struct ev_arg *d = cap + WR_CALLER_REGS;
	size_t len = 0;

	*base = d[0].value;
	for (unsigned k = 0; k < WR_CALLER_DUMPS; k++) {
		if (d[k].kind != WR_ARG_DUMP || d[k].status != WR_ARG_OK || d[k].value != *base + len ||
		    d[k].len > WR_DUMP_MAX)
			break;
		memcpy(buf + len, d[k].data, d[k].len);
		len += d[k].len;
		if (d[k].len < WR_DUMP_MAX)
			break;
	}
	return len;
}

bool fv_caller_value(struct target *t, uint32_t pid, const struct ev_arg *cap, size_t n, int reg,
		     uint64_t *value)
{
	uint8_t data[WR_CALLER_DUMPS * WR_DUMP_MAX];
	struct wr_stack_regs regs;
	struct wr_stack_header sh = { .flags = WR_STACK_F_REGS };
	struct wr_bt_frame frames[CALLER_FRAMES];
	struct ev_backtrace bt = { .requested_depth = CALLER_FRAMES, .frame_count = 1, .frames = frames, .stack = &sh,
				   .stack_data = data, .regs = &regs };
	struct fv_walk *w;
	uint64_t ra, base;
	bool ok = false;

	if (n < WR_CALLER_REGS + WR_CALLER_DUMPS)
		return false;
	for (unsigned k = 0; k < WR_CALLER_REGS; k++)
		if (cap[k].kind != WR_ARG_U64)
			return false; /* cut short: the event had no room */
	regs_from(cap, &regs);
	sh.len = (uint32_t)stack_from(cap, data, &base);
	sh.base = base;
	sh.ip = regs.ip;
	sh.sp = regs.sp;
	sh.bp = regs.bp;
	if (!target_frame_at(t, (pid_t)pid, regs.ip, true, &frames[0]))
		return false;
	w = fv_new();
	/* the caller is the frame frame 0's CFI returns to, and so on as
	 * far as the copy of the stack goes */
	while (bt.frame_count < CALLER_FRAMES && fv_return_address(w, t, &bt, bt.frame_count - 1, &ra) &&
	       target_frame_at(t, (pid_t)pid, ra, false, &frames[bt.frame_count]))
		bt.frame_count++;
	ok = bt.frame_count > 1 && fv_entry_value(w, t, pid, &bt, reg, value);
	fv_free(w);
	return ok;
}

size_t fv_caller_string(struct target *t, uint32_t pid, const struct ev_arg *cap, size_t n, uint64_t p,
			uint8_t *buf, size_t max)
{
	uint8_t data[WR_CALLER_DUMPS * WR_DUMP_MAX];
	uint64_t base;
	size_t len, k;
	long got;

	if (n < WR_CALLER_REGS + WR_CALLER_DUMPS || !p || !max)
		return 0;
	len = stack_from(cap, data, &base);
	if (p >= base && p - base < len) {
		for (k = 0; p - base + k < len && k < max; k++) {
			buf[k] = data[p - base + k];
			if (!buf[k])
				return k + 1;
		}
		return 0; /* it runs on past the copy */
	}
	got = target_read_const(t, (pid_t)pid, p, buf, max);
	for (k = 0; got > 0 && k < (size_t)got; k++)
		if (!buf[k])
			return k + 1;
	return got > 0 && (size_t)got == max ? max : 0;
}
