/* unwind.c - the unwinder's step in userspace (see unwind.h).
 *
 * Each function here mirrors the one of the same name in
 * bpf-templates/wraith.bpf.c, so a frame finished here is the frame the
 * kernel would have found with the same rows: the canonical frame address,
 * the return address at a CFA offset, rbp by its rule, the signal
 * trampoline's ucontext, and the same checks before a caller is believed.
 * Memory comes only from the copy of the stack taken when the probe fired;
 * a read beyond it ends the walk with read-error.
 */
#include "tracer/unwind.h"

#include <string.h>

/* Internal: the frame moved to its caller. */
#define UW_MOVED 0xff

static int read_u64(const struct uw_memory *mem, uint64_t addr, uint64_t *out)
{
	if (addr < mem->base || addr - mem->base > mem->len || mem->len - (addr - mem->base) < 8)
		return -1;
	memcpy(out, mem->data + (addr - mem->base), sizeof(*out));
	return 0;
}

static void emit_frame(struct uw_regs *r, const struct uw_where *w, struct wr_bt_frame *f)
{
	uint64_t pc = r->ip - w->bias, cookie = w->cookie;

	if (pc > 0xffffffffull)
		cookie = 0;
	memset(f, 0, sizeof(*f));
	f->ip = r->ip;
	f->pc = cookie ? (uint32_t)pc : 0;
	f->cookie = (uint16_t)cookie;
	f->flags = (r->flags & WR_SLOT_F_EXACT) ? WR_FRAME_F_EXACT_IP : 0;
}

static uint8_t unwind_signal(struct uw_regs *r, const struct uw_memory *mem, uint16_t *error)
{
	uint64_t ip, sp, bp = 0;

	if (read_u64(mem, r->sp + WR_UCTX_RIP, &ip) || read_u64(mem, r->sp + WR_UCTX_RSP, &sp)) {
		*error = WR_BTE_RETURN_ADDRESS_READ;
		return WR_BT_READ_ERROR;
	}
	if (ip < 0x1000) {
		*error = WR_BTE_NEXT_IP_BELOW_USER;
		return WR_BT_INVALID_FRAME;
	}
	if (read_u64(mem, r->sp + WR_UCTX_RBP, &bp))
		r->flags &= (uint8_t)~WR_SLOT_F_BP_VALID;
	else
		r->flags |= WR_SLOT_F_BP_VALID;
	r->ip = ip;
	r->sp = sp;
	r->bp = bp;
	r->flags |= WR_SLOT_F_EXACT;
	return UW_MOVED;
}

static void recover_bp(struct uw_regs *r, const struct wr_cfi_rule *rule, const struct uw_memory *mem,
		       uint64_t cfa)
{
	uint64_t bp = r->bp;

	if (rule->rbp_rule == WR_RULE_AT_CFA || rule->rbp_rule == WR_RULE_AT_RBP) {
		uint64_t at = rule->rbp_rule == WR_RULE_AT_CFA ? cfa : r->bp;

		if (rule->rbp_rule == WR_RULE_AT_RBP && !(r->flags & WR_SLOT_F_BP_VALID)) {
			r->flags &= (uint8_t)~WR_SLOT_F_BP_READ_FAILED;
		} else if (read_u64(mem, at + (uint64_t)(int64_t)rule->rbp_off, &bp)) {
			r->flags &= (uint8_t)~WR_SLOT_F_BP_VALID;
			r->flags |= WR_SLOT_F_BP_READ_FAILED;
		} else {
			r->flags |= WR_SLOT_F_BP_VALID;
			r->flags &= (uint8_t)~WR_SLOT_F_BP_READ_FAILED;
		}
	} else if (rule->rbp_rule == WR_RULE_VAL_CFA) {
		bp = cfa + (uint64_t)(int64_t)rule->rbp_off;
		r->flags |= WR_SLOT_F_BP_VALID;
	} else if (rule->rbp_rule == WR_RULE_REGISTER && rule->rbp_off == WR_DWARF_RSP) {
		bp = r->sp;
		r->flags |= WR_SLOT_F_BP_VALID;
	} else if (rule->rbp_rule != WR_RULE_SAME_VALUE) {
		r->flags &= (uint8_t)~(WR_SLOT_F_BP_VALID | WR_SLOT_F_BP_READ_FAILED);
	}
	r->bp = bp;
}

/* The caller's registers, or why there is no caller. */
static uint8_t check_caller(uint64_t ra, uint64_t cfa, uint64_t sp, uint16_t *error)
{
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
	if (cfa <= sp) {
		*error = WR_BTE_NEXT_CFA_NOT_ADVANCING;
		return WR_BT_INVALID_FRAME;
	}
	return UW_MOVED;
}

static uint8_t unwind_normal(struct uw_regs *r, const struct wr_cfi_rule *rule,
			     const struct uw_memory *mem, uint16_t *error)
{
	uint64_t cfa, ra;
	uint8_t status;

	if (rule->cfa_reg == WR_DWARF_RBP && !(r->flags & WR_SLOT_F_BP_VALID)) {
		if (!(r->flags & WR_SLOT_F_BP_READ_FAILED))
			return WR_BT_UNSUPPORTED_CFI;
		*error = WR_BTE_FRAME_POINTER_READ;
		return WR_BT_READ_ERROR;
	}
	cfa = (rule->cfa_reg == WR_DWARF_RBP ? r->bp : r->sp) + (uint64_t)(int64_t)rule->cfa_off;
	if (rule->cfa_kind == WR_CFA_DEREF && read_u64(mem, cfa, &cfa)) {
		*error = WR_BTE_FRAME_POINTER_READ;
		return WR_BT_READ_ERROR;
	}
	if (rule->ra_rule == WR_RULE_UNDEFINED)
		return WR_BT_COMPLETE;
	if (rule->ra_rule != WR_RULE_AT_CFA)
		return WR_BT_UNSUPPORTED_CFI;
	if (read_u64(mem, cfa + (uint64_t)(int64_t)rule->ra_off, &ra)) {
		*error = WR_BTE_RETURN_ADDRESS_READ;
		return WR_BT_READ_ERROR;
	}
	status = check_caller(ra, cfa, r->sp, error);
	if (status != UW_MOVED)
		return status;
	recover_bp(r, rule, mem, cfa);
	r->ip = ra;
	r->sp = cfa;
	r->flags &= (uint8_t)~WR_SLOT_F_EXACT;
	return UW_MOVED;
}

static uint8_t apply_rule(struct uw_regs *r, const struct wr_cfi_rule *rule,
			  const struct uw_memory *mem, uint16_t *error)
{
	if (rule->kind == WR_ROW_SIGNAL)
		return unwind_signal(r, mem, error);
	if (rule->kind == WR_ROW_NORMAL)
		return unwind_normal(r, rule, mem, error);
	return WR_BT_UNSUPPORTED_CFI;
}

uint8_t uw_walk(uw_lookup_fn lookup, void *ctx, struct uw_regs *regs, const struct uw_memory *mem,
		struct wr_bt_frame *frames, size_t *n, size_t depth, uint16_t *error)
{
	*error = WR_BTE_NONE;
	while (*n < depth) {
		struct uw_where w = { 0 };
		uint8_t status;

		lookup(ctx, regs->ip, (regs->flags & WR_SLOT_F_EXACT) != 0, &w);
		emit_frame(regs, &w, &frames[(*n)++]);
		if (!w.rule)
			return w.status;
		status = apply_rule(regs, w.rule, mem, error);
		if (status != UW_MOVED)
			return status;
	}
	return WR_BT_TRUNCATED;
}
