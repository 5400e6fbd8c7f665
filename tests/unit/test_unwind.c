/* test_unwind.c - the unwinder's step in userspace (unwind/walk.c), on
 * canned rules and a canned copy of a stack: a chain of frames to the end
 * of the stack, a signal frame, rbp-based frames, the depth limit, a frame
 * in no module, and every check that keeps a bad caller out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "unwind/walk.h"

#define BASE 0x7ffd0000ull /* where the stack copy was */
#define BIAS 0x555555554000ull
#define LIB 0x7f0000000000ull

/* Code: the module spans [BIAS + 0x1000, BIAS + 0x9000); functions at
 * 0x1000 (cfa rsp+8), 0x2000 (rsp+16, rbp at cfa-16), 0x3000 (rbp+16, rbp
 * at cfa-16), 0x4000 (signal trampoline), 0x5000 (outermost: ra
 * undefined), 0x6000 (unsupported), each 0x1000 long. */
static const struct wr_cfi_rule rules[] = {
	{ .cfa_reg = WR_DWARF_RSP, .cfa_off = 8, .ra_rule = WR_RULE_AT_CFA, .ra_off = -8,
	  .rbp_rule = WR_RULE_SAME_VALUE },
	{ .cfa_reg = WR_DWARF_RSP, .cfa_off = 16, .ra_rule = WR_RULE_AT_CFA, .ra_off = -8,
	  .rbp_rule = WR_RULE_AT_CFA, .rbp_off = -16 },
	{ .cfa_reg = WR_DWARF_RBP, .cfa_off = 16, .ra_rule = WR_RULE_AT_CFA, .ra_off = -8,
	  .rbp_rule = WR_RULE_AT_CFA, .rbp_off = -16 },
	{ .kind = WR_ROW_SIGNAL },
	{ .cfa_reg = WR_DWARF_RSP, .cfa_off = 8, .ra_rule = WR_RULE_UNDEFINED },
	{ .kind = WR_ROW_UNSUPPORTED },
};

static uint8_t stack[4096];

static int lookup(void *ctx, uint64_t ip, bool exact, struct uw_where *w)
{
	uint64_t pc = (exact ? ip : ip - 1) - BIAS;

	(void)ctx;
	if (ip >= LIB) {
		w->status = WR_BT_OFFSETS_UNAVAILABLE;
		return 0;
	}
	w->cookie = 3;
	w->bias = BIAS;
	if (pc < 0x1000 || pc >= 0x7000) {
		w->status = WR_BT_NO_ROWS_FOR_PC;
		return 0;
	}
	w->rule = &rules[pc / 0x1000 - 1];
	return 0;
}

static void put(uint64_t addr, uint64_t v)
{
	memcpy(stack + (addr - BASE), &v, sizeof(v));
}

static struct uw_memory mem(void)
{
	return (struct uw_memory){ BASE, stack, sizeof(stack) };
}

static uint8_t walk(struct uw_regs *r, struct wr_bt_frame *f, size_t *n, size_t depth,
		    uint16_t *error)
{
	struct uw_memory m = mem();

	*n = 0;
	return uw_walk(lookup, NULL, r, &m, f, n, depth, error);
}

/* leaf (0x1010, rsp) -> 0x2020 (rsp, saves rbp) -> 0x3030 (rbp) -> 0x5050. */
static void build_chain(struct uw_regs *r)
{
	memset(stack, 0, sizeof(stack));
	*r = (struct uw_regs){ BIAS + 0x1010, BASE + 0x100, 0x1111, WR_SLOT_F_EXACT | WR_SLOT_F_BP_VALID };
	put(BASE + 0x100, BIAS + 0x2021);       /* leaf's return address; cfa 0x108 */
	put(BASE + 0x108, BASE + 0x200);        /* 0x2020: cfa 0x118, saved rbp at cfa-16 */
	put(BASE + 0x110, BIAS + 0x3031);       /* its return address at cfa-8 */
	put(BASE + 0x200 + 8, BIAS + 0x5051);   /* 0x3030: cfa = rbp+16 = 0x210, ra at 0x208 */
	put(BASE + 0x200, BASE + 0x300);        /* its saved rbp at cfa-16 */
}

static void test_chain_to_the_end(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_COMPLETE);
	assert_int_equal(error, WR_BTE_NONE);
	assert_int_equal(n, 4);
	assert_int_equal(f[0].pc, 0x1010);
	assert_int_equal(f[0].flags, WR_FRAME_F_EXACT_IP);
	assert_int_equal(f[1].pc, 0x2021);
	assert_int_equal(f[1].flags, 0);
	assert_int_equal(f[2].pc, 0x3031);
	assert_int_equal(f[3].pc, 0x5051);
	assert_int_equal(f[3].cookie, 3);
	assert_int_equal(f[3].ip, BIAS + 0x5051);
}

static void test_depth_truncates(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	assert_int_equal(walk(&r, f, &n, 2, &error), WR_BT_TRUNCATED);
	assert_int_equal(n, 2);
	assert_int_equal(error, WR_BTE_NONE);
}

static void test_frames_already_there(void **state)
{
	struct wr_bt_frame f[16] = { { .ip = 1 }, { .ip = 2 } };
	struct uw_memory m = mem();
	struct uw_regs r;
	uint16_t error;
	size_t n = 2;

	(void)state;
	build_chain(&r);
	assert_int_equal(uw_walk(lookup, NULL, &r, &m, f, &n, 16, &error), WR_BT_COMPLETE);
	assert_int_equal(n, 6);
	assert_int_equal(f[1].ip, 2);
	assert_int_equal(f[2].pc, 0x1010);
}

/* A handler (0x1010) returning into the trampoline (0x4000), which holds
 * the interrupted context: 0x2020 with its own sp and rbp. */
static void test_signal_frame(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint64_t uc = BASE + 0x108;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	put(BASE + 0x100, BIAS + 0x4001);
	put(uc + WR_UCTX_RIP, BIAS + 0x2020);
	put(uc + WR_UCTX_RSP, BASE + 0x108);
	put(uc + WR_UCTX_RBP, BASE + 0x200);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_COMPLETE);
	assert_int_equal(n, 5);
	assert_int_equal(f[1].pc, 0x4001);
	/* the interrupted frame's ip is exact: looked up as is */
	assert_int_equal(f[2].pc, 0x2020);
	assert_int_equal(f[2].flags, WR_FRAME_F_EXACT_IP);
	assert_int_equal(f[3].pc, 0x3031);
}

static void test_unknown_module(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	put(BASE + 0x110, LIB + 0x123);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_OFFSETS_UNAVAILABLE);
	assert_int_equal(n, 3);
	assert_int_equal(f[2].ip, LIB + 0x123);
	assert_int_equal(f[2].cookie, 0);
	assert_int_equal(f[2].pc, 0);
}

static void test_reads_beyond_the_copy(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	r.sp = BASE + sizeof(stack) - 4; /* the return address would straddle the end */
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_READ_ERROR);
	assert_int_equal(error, WR_BTE_RETURN_ADDRESS_READ);
	assert_int_equal(n, 1);
	r = (struct uw_regs){ BIAS + 0x1010, BASE - 8, 0, WR_SLOT_F_EXACT };
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_READ_ERROR);
}

static void test_bad_callers(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	put(BASE + 0x100, 0x800);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_INVALID_FRAME);
	assert_int_equal(error, WR_BTE_NEXT_IP_BELOW_USER);
	put(BASE + 0x100, 0xff00000000001000ull);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_INVALID_FRAME);
	assert_int_equal(error, WR_BTE_NEXT_IP_KERNEL_LIKE);
	put(BASE + 0x100, 0);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_COMPLETE);
	assert_int_equal(n, 1);
	/* a frame that would not move up the stack */
	build_chain(&r);
	put(BASE + 0x100, BIAS + 0x3031); /* an rbp-based caller whose rbp points below */
	r.bp = BASE + 0x0e0;
	put(BASE + 0x0e8, BIAS + 0x5051);
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_INVALID_FRAME);
	assert_int_equal(error, WR_BTE_NEXT_CFA_NOT_ADVANCING);
}

static void test_rbp_unknown(void **state)
{
	struct wr_bt_frame f[16];
	struct uw_regs r;
	uint16_t error;
	size_t n;

	(void)state;
	build_chain(&r);
	r.ip = BIAS + 0x3030;
	r.flags = WR_SLOT_F_EXACT; /* rbp not valid: no compact rule gave it */
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_UNSUPPORTED_CFI);
	assert_int_equal(error, WR_BTE_NONE);
	r.ip = BIAS + 0x3030;
	r.flags = WR_SLOT_F_EXACT | WR_SLOT_F_BP_READ_FAILED;
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_READ_ERROR);
	assert_int_equal(error, WR_BTE_FRAME_POINTER_READ);
	r.ip = BIAS + 0x6000;
	r.flags = WR_SLOT_F_EXACT | WR_SLOT_F_BP_VALID;
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_UNSUPPORTED_CFI);
	r.ip = BIAS + 0x8000;
	assert_int_equal(walk(&r, f, &n, 16, &error), WR_BT_NO_ROWS_FOR_PC);
	assert_int_equal(f[0].cookie, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_to_the_end),
		cmocka_unit_test(test_depth_truncates),
		cmocka_unit_test(test_frames_already_there),
		cmocka_unit_test(test_signal_frame),
		cmocka_unit_test(test_unknown_module),
		cmocka_unit_test(test_reads_beyond_the_copy),
		cmocka_unit_test(test_bad_callers),
		cmocka_unit_test(test_rbp_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
