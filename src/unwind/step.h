/* step.h - the unwinder's step: from one frame's registers to its
 * caller's under the frame's compact CFI rule (struct wr_cfi_rule), with
 * the checks a caller must pass before it is believed, and the record a
 * frame leaves in a backtrace.
 *
 * Layer rule: like protocol/wire.h, this header is compiled by clang
 * -target bpf (into the templates, bpf-templates/unwind.bpf.h) and by the
 * host compiler (unwind/walk.c, which finishes the walks the kernel hands
 * over), and depends on wire.h only: it is the one definition of the step,
 * so a frame finished in userspace is the frame the kernel would have
 * found.  Restricted C: every function static and always inlined, no
 * loops, no libc, no function pointers.  The row pc and the frame record
 * need nothing more; for the step the includer defines, before including
 * this header:
 *   UW_STEP_REGS  the type of a frame being unwound: its fields ip, sp,
 *                 bp (__u64) and flags (WR_SLOT_F_BP_VALID, _EXACT,
 *                 _BP_READ_FAILED) are the frame's registers, and become
 *                 the caller's when a step moves;
 *   UW_STEP_MEM   the type memory is read through;
 *   int uw_read(UW_STEP_MEM *mem, __u64 *dst, __u64 addr)
 *                 the 8 bytes at @addr into *@dst: 0, or non-zero (*@dst
 *                 then 0) when they cannot be read;
 *   __u64 uw_return_address(UW_STEP_MEM *mem, __u64 at, __u64 ra)
 *                 the caller's address, for the return address @ra read
 *                 at @at (the kernel side undoes another tool's uretprobe
 *                 there).
 *
 * A step costs at most three reads (the CFA's word for a realigned frame,
 * the return address, the saved rbp) and no search: the rule comes from
 * the caller, which found it by the frame's pc (uw_row_pc()).
 */
#ifndef WRAITH_UNWIND_STEP_H
#define WRAITH_UNWIND_STEP_H

#include "protocol/wire.h"

#define UW_INLINE static inline __attribute__((always_inline))

/* The module address whose row applies to a frame at module address @pc:
 * a return address points after its call, so a caller's row is the one of
 * pc - 1 (also when a noreturn call ends the function); frame 0 and a
 * frame a signal interrupted (@exact) hold the address itself. */
UW_INLINE __u64 uw_row_pc(__u64 pc, __u32 exact)
{
	return exact ? pc : pc - 1;
}

/* The second word of the record of a frame at @ip (struct wr_bt_frame:
 * pc, cookie and flags) in the module of @cookie loaded at @bias (@cookie
 * 0: unknown module; so is a pc beyond the record's 32 bits), and in
 * *@hash_in what the frame adds to a stack's identity for `count bt`:
 * module and pc where the module is known (the same in every process),
 * the raw ip where it is not. */
UW_INLINE __u64 uw_frame_word(__u64 ip, __u32 exact, __u64 cookie, __u64 bias, __u64 *hash_in)
{
	__u64 pc = ip - bias;

	if (pc > 0xffffffffull)
		cookie = 0;
	*hash_in = cookie ? cookie << 32 | pc : ip;
	return (cookie ? pc : 0) | (cookie & 0xffff) << 32 |
	       (__u64)(exact ? WR_FRAME_F_EXACT_IP : 0) << 48;
}

#ifdef UW_STEP_REGS /* the step, for an includer that defines the above */
#ifndef UW_STEP_MEM
#error "define UW_STEP_MEM, uw_read() and uw_return_address() too"
#endif

/* A step's result that is not a wire status: the frame moved to its
 * caller.  Every other result is a wr_bt_status that ends the walk. */
#define UW_MOVED 0xffu

/* A signal trampoline's row: the interrupted context is the ucontext the
 * kernel pushed at the trampoline's rsp, and its ip is exact.  Returns
 * UW_MOVED or a stop status with *@error set. */
UW_INLINE __u32 uw_step_signal(UW_STEP_MEM *mem, UW_STEP_REGS *f, __u32 *error)
{
	__u64 ip, sp, bp;

	if (uw_read(mem, &ip, f->sp + WR_UCTX_RIP) || uw_read(mem, &sp, f->sp + WR_UCTX_RSP)) {
		*error = WR_BTE_RETURN_ADDRESS_READ;
		return WR_BT_READ_ERROR;
	}
	if (ip < 0x1000) {
		*error = WR_BTE_NEXT_IP_BELOW_USER;
		return WR_BT_INVALID_FRAME;
	}
	if (uw_read(mem, &bp, f->sp + WR_UCTX_RBP))
		f->flags &= ~WR_SLOT_F_BP_VALID;
	else
		f->flags |= WR_SLOT_F_BP_VALID;
	f->ip = ip;
	f->sp = sp;
	f->bp = bp;
	f->flags |= WR_SLOT_F_EXACT;
	return UW_MOVED;
}

/* The caller's rbp under @r, whose CFA is @cfa: BP_VALID says whether it
 * is known, BP_READ_FAILED whether it is not because a read failed. */
UW_INLINE void uw_recover_bp(UW_STEP_MEM *mem, UW_STEP_REGS *f, const struct wr_cfi_rule *r,
			     __u64 cfa)
{
	__u64 bp = f->bp;

	if (r->rbp_rule == WR_RULE_AT_CFA || r->rbp_rule == WR_RULE_AT_RBP) {
		__u64 at = r->rbp_rule == WR_RULE_AT_CFA ? cfa : f->bp;

		if (r->rbp_rule == WR_RULE_AT_RBP && !(f->flags & WR_SLOT_F_BP_VALID)) {
			f->flags &= ~WR_SLOT_F_BP_READ_FAILED;
		} else if (uw_read(mem, &bp, at + r->rbp_off)) {
			f->flags &= ~WR_SLOT_F_BP_VALID;
			f->flags |= WR_SLOT_F_BP_READ_FAILED;
		} else {
			f->flags |= WR_SLOT_F_BP_VALID;
			f->flags &= ~WR_SLOT_F_BP_READ_FAILED;
		}
	} else if (r->rbp_rule == WR_RULE_VAL_CFA) {
		bp = cfa + r->rbp_off;
		f->flags |= WR_SLOT_F_BP_VALID;
	} else if (r->rbp_rule == WR_RULE_REGISTER && r->rbp_off == WR_DWARF_RSP) {
		bp = f->sp; /* the caller's rbp is this frame's rsp */
		f->flags |= WR_SLOT_F_BP_VALID;
	} else if (r->rbp_rule != WR_RULE_SAME_VALUE) {
		f->flags &= ~(WR_SLOT_F_BP_VALID | WR_SLOT_F_BP_READ_FAILED);
	}
	f->bp = bp;
}

/* A normal row: the CFA from rsp or rbp, the return address at the CFA,
 * rbp by its rule.  Returns UW_MOVED, WR_BT_COMPLETE when the stack ends
 * here, or a stop status with *@error set. */
UW_INLINE __u32 uw_step_normal(UW_STEP_MEM *mem, UW_STEP_REGS *f, const struct wr_cfi_rule *r,
			       __u32 *error)
{
	__u64 cfa, ra;

	/* The CFA needs rbp, which is unknown: because reading it failed, or
	 * because an earlier frame's rule for it had no compact form. */
	if (r->cfa_reg == WR_DWARF_RBP && !(f->flags & WR_SLOT_F_BP_VALID)) {
		if (!(f->flags & WR_SLOT_F_BP_READ_FAILED)) {
			*error = 0;
			return WR_BT_UNSUPPORTED_CFI;
		}
		*error = WR_BTE_FRAME_POINTER_READ;
		return WR_BT_READ_ERROR;
	}
	cfa = (r->cfa_reg == WR_DWARF_RBP ? f->bp : f->sp) + (__s64)r->cfa_off;
	if (r->cfa_kind == WR_CFA_DEREF && uw_read(mem, &cfa, cfa)) {
		*error = WR_BTE_FRAME_POINTER_READ;
		return WR_BT_READ_ERROR;
	}
	if (r->ra_rule == WR_RULE_UNDEFINED)
		return WR_BT_COMPLETE; /* the outermost frame: _start, clone */
	if (r->ra_rule != WR_RULE_AT_CFA)
		return WR_BT_UNSUPPORTED_CFI;
	if (uw_read(mem, &ra, cfa + r->ra_off)) {
		*error = WR_BTE_RETURN_ADDRESS_READ;
		return WR_BT_READ_ERROR;
	}
	ra = uw_return_address(mem, cfa + r->ra_off, ra);
	/* A caller to believe: a user address, above this frame. */
	if (ra == 0)
		return WR_BT_COMPLETE;
	if (ra < 0x1000) {
		*error = WR_BTE_NEXT_IP_BELOW_USER;
		return WR_BT_INVALID_FRAME;
	}
	if (ra >> 56) {
		*error = WR_BTE_NEXT_IP_KERNEL_LIKE;
		return WR_BT_INVALID_FRAME;
	}
	if (cfa == 0) {
		*error = WR_BTE_NEXT_CFA_ZERO;
		return WR_BT_INVALID_FRAME;
	}
	if (cfa <= f->sp) {
		*error = WR_BTE_NEXT_CFA_NOT_ADVANCING;
		return WR_BT_INVALID_FRAME;
	}
	uw_recover_bp(mem, f, r, cfa);
	f->ip = ra;
	f->sp = cfa;
	f->flags &= ~WR_SLOT_F_EXACT;
	return UW_MOVED;
}

/* Move frame @f to its caller under its rule @r.  Returns UW_MOVED,
 * WR_BT_COMPLETE when the stack ends at @f, or another wr_bt_status that
 * stops the walk there, with *@error set to a wr_bt_error where one
 * applies (the caller clears it first). */
UW_INLINE __u32 uw_step(UW_STEP_MEM *mem, UW_STEP_REGS *f, const struct wr_cfi_rule *r,
			__u32 *error)
{
	if (r->kind == WR_ROW_SIGNAL)
		return uw_step_signal(mem, f, error);
	if (r->kind == WR_ROW_NORMAL)
		return uw_step_normal(mem, f, r, error);
	return WR_BT_UNSUPPORTED_CFI;
}
#endif /* UW_STEP_REGS */

#endif
