/* test_frame.c - unwind/frame.c: a frame's caller's registers by the CFI
 * rules of a real module, tests/unit/data/frame/frame.s, linked here into a
 * shared object.  Each row's rules are evaluated against chosen registers
 * and a canned memory, and the caller's registers compared with what the
 * rules say by hand: offsets from the CFA, the row of pc - 1 for a return
 * address, the CFA from rbp and from an expression with a dereference,
 * register and value rules, each operation of a value expression, the
 * registers it must leave unknown (an undefined rule, an operation it does
 * not evaluate, a deep expression, memory that cannot be read), a signal
 * frame and a pc without CFI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dwarf/module.h"
#include "unwind/frame.h"
#include "util/xalloc.h"

#define RAX 0
#define RBX 3
#define R12 12
#define R13 13
#define R14 14
#define R15 15
#define BIT(r) (1u << (r))

static char tmpdir[64];
static struct dw_module *mod;

/* The fr_* labels of the module and their addresses. */
static struct {
	char name[32];
	uint64_t addr;
} syms[16];
static size_t n_syms;

static uint64_t sym(const char *name)
{
	for (size_t i = 0; i < n_syms; i++)
		if (strcmp(syms[i].name, name) == 0)
			return syms[i].addr;
	fail_msg("no symbol %s in the fixture", name);
	return 0;
}

/* ---- a canned memory ---- */

struct mem {
	uint64_t addr[8];
	uint64_t val[8];
	size_t n;
	unsigned reads;
};

static void mem_put(struct mem *m, uint64_t addr, uint64_t val)
{
	assert_true(m->n < 8);
	m->addr[m->n] = addr;
	m->val[m->n++] = val;
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;

	m->reads++;
	if (len != 8)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		if (m->addr[i] == addr) {
			memcpy(buf, &m->val[i], 8);
			return 0;
		}
	}
	return -1;
}

/* ---- one step ---- */

struct step {
	int err;
	uint64_t cfa;
	struct uw_frame_regs caller;
	bool exact;
};

static struct uw_frame_regs regs(uint64_t rsp, uint64_t rbp, uint32_t known)
{
	struct uw_frame_regs r;

	memset(&r, 0, sizeof(r));
	r.v[WR_DWARF_RSP] = rsp;
	r.v[WR_DWARF_RBP] = rbp;
	r.known = known | BIT(WR_DWARF_RSP);
	return r;
}

static struct step step(uint64_t pc, bool exact, const struct uw_frame_regs *r, struct mem *m)
{
	struct step s;

	memset(&s, 0xaa, sizeof(s));
	s.err = uw_frame_step(mod, pc, exact, r, mem_read, m, &s.cfa, &s.caller, &s.exact);
	return s;
}

/* Register @reg of the caller is known and holds @v. */
static void assert_reg(const struct step *s, unsigned reg, uint64_t v)
{
	if (!(s->caller.known & BIT(reg)))
		fail_msg("register %u unknown, expected 0x%" PRIx64, reg, v);
	if (s->caller.v[reg] != v)
		fail_msg("register %u is 0x%" PRIx64 ", expected 0x%" PRIx64, reg, s->caller.v[reg], v);
}

static void assert_unknown(const struct step *s, unsigned reg)
{
	if (s->caller.known & BIT(reg))
		fail_msg("register %u known (0x%" PRIx64 "), expected unknown", reg, s->caller.v[reg]);
}

/* ======================================================================
 * Tests
 * ====================================================================== */

/* A function's first instruction: CFA rsp+8, the return address below it,
 * rbp kept (the ABI's rule where the FDE says nothing) and a register that
 * was not known stays unknown. */
static void test_entry_row(void **state)
{
	struct uw_frame_regs r = regs(0x7000, 0x9990, BIT(WR_DWARF_RBP));
	struct mem m = { 0 };
	struct step s;

	(void)state;
	mem_put(&m, 0x7000, 0x5555);
	s = step(sym("fr_basic"), true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.cfa, 0x7008);
	assert_false(s.exact);
	assert_reg(&s, WR_DWARF_RIP, 0x5555);
	assert_reg(&s, WR_DWARF_RSP, 0x7008);
	assert_reg(&s, WR_DWARF_RBP, 0x9990);
	assert_unknown(&s, R12);
}

/* After `push %rbp` the row says CFA rsp+16 with rbp saved at CFA-16; a
 * return address there (not exact) takes the row of pc - 1, the entry
 * row, as a caller frame must. */
static void test_row_of_pc_minus_one(void **state)
{
	struct uw_frame_regs r = regs(0x7000, 0x9990, BIT(WR_DWARF_RBP));
	struct mem m = { 0 };
	struct step s;

	(void)state;
	mem_put(&m, 0x7000, 0x8880);
	mem_put(&m, 0x7008, 0x6666);
	s = step(sym("fr_basic_pushed"), true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.cfa, 0x7010);
	assert_reg(&s, WR_DWARF_RIP, 0x6666);
	assert_reg(&s, WR_DWARF_RSP, 0x7010);
	assert_reg(&s, WR_DWARF_RBP, 0x8880);

	s = step(sym("fr_basic_pushed"), false, &r, &m);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.cfa, 0x7008);
	assert_reg(&s, WR_DWARF_RIP, 0x8880);
	assert_reg(&s, WR_DWARF_RBP, 0x9990);
}

/* CFA rbp+16 with rbp and rbx saved below it; without a known rbp the CFA
 * and so nothing of the caller is known. */
static void test_rbp_based(void **state)
{
	struct uw_frame_regs r = regs(0x7ff0, 0x8000, BIT(WR_DWARF_RBP));
	struct mem m = { 0 };
	struct step s;

	(void)state;
	mem_put(&m, 0x8008, 0x4444);
	mem_put(&m, 0x8000, 0x8880);
	mem_put(&m, 0x7ff8, 0x77);
	s = step(sym("fr_basic_saved"), true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.cfa, 0x8010);
	assert_reg(&s, WR_DWARF_RIP, 0x4444);
	assert_reg(&s, WR_DWARF_RSP, 0x8010);
	assert_reg(&s, WR_DWARF_RBP, 0x8880);
	assert_reg(&s, RBX, 0x77);

	r.known &= ~BIT(WR_DWARF_RBP);
	s = step(sym("fr_basic_framed"), true, &r, &m);
	assert_int_equal(s.err, -ENOTSUP);
	assert_int_equal(s.caller.known, 0);
}

/* Memory the copy does not hold: the return address read fails and rip
 * is unknown, while what needs no memory still is known. */
static void test_unreadable_memory(void **state)
{
	struct uw_frame_regs r = regs(0x7000, 0x9990, BIT(WR_DWARF_RBP));
	struct mem m = { 0 };
	struct step s;

	(void)state;
	s = step(sym("fr_basic"), true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_true(m.reads > 0);
	assert_int_equal(s.cfa, 0x7008);
	assert_unknown(&s, WR_DWARF_RIP);
	assert_reg(&s, WR_DWARF_RSP, 0x7008);
	assert_reg(&s, WR_DWARF_RBP, 0x9990);
}

/* Stack realignment: CFA = *(rbp - 8), rbp saved at the address rbp (an
 * expression rule); the CFA's word missing makes the step unsupported. */
static void test_cfa_expression(void **state)
{
	struct uw_frame_regs r = regs(0x7000, 0x8000, BIT(WR_DWARF_RBP));
	uint64_t pc = sym("fr_realign") + 1;
	struct mem m = { 0 };
	struct step s;

	(void)state;
	mem_put(&m, 0x7ff8, 0x9000);
	mem_put(&m, 0x8ff8, 0x7777);
	mem_put(&m, 0x8000, 0x8880);
	s = step(pc, true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.cfa, 0x9000);
	assert_reg(&s, WR_DWARF_RIP, 0x7777);
	assert_reg(&s, WR_DWARF_RSP, 0x9000);
	assert_reg(&s, WR_DWARF_RBP, 0x8880);

	m.n = 0;
	s = step(pc, true, &r, &m);
	assert_int_equal(s.err, -ENOTSUP);
}

/* Register and value rules, and every operation a value expression may
 * use; an undefined return address, an operation outside the evaluated
 * set and an expression deeper than the evaluator's stack leave their
 * registers unknown instead of guessed. */
static void test_value_rules(void **state)
{
	struct uw_frame_regs r = regs(0x7040, 0, BIT(RBX));
	struct mem m = { 0 };
	struct step s;

	(void)state;
	r.v[RBX] = 0x1234;
	mem_put(&m, 0x7048 + 24, 0xabc);
	s = step(sym("fr_values") + 1, true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.cfa, 0x7048);
	assert_unknown(&s, WR_DWARF_RIP);          /* .cfi_undefined %rip */
	assert_reg(&s, WR_DWARF_RSP, 0x7048);
	assert_reg(&s, WR_DWARF_RBP, 0x1234);      /* .cfi_register %rbp, %rbx */
	assert_reg(&s, RBX, ((0x7040 + 16 - 3) & 0xf0) + 4);
	assert_reg(&s, R12, 0x7048 + 8);           /* call_frame_cfa, lit8, plus */
	assert_reg(&s, R13, 0x1235);               /* bregx rbx 1 */
	assert_unknown(&s, R14);                   /* mul */
	assert_unknown(&s, R15);                   /* nine pushes */
	assert_reg(&s, RAX, 0xabc);                /* offset rule c+24 */

	/* Without rbx, what is computed from it is unknown, not a value left
	 * over on the evaluator's stack. */
	r.known &= ~BIT(RBX);
	s = step(sym("fr_values") + 1, true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_unknown(&s, WR_DWARF_RBP);
	assert_unknown(&s, R13);
	assert_reg(&s, RBX, ((0x7040 + 16 - 3) & 0xf0) + 4);
}

/* The frame below a signal trampoline was interrupted: its pc is exact. */
static void test_signal_frame(void **state)
{
	struct uw_frame_regs r = regs(0x7000, 0, 0);
	struct mem m = { 0 };
	struct step s;

	(void)state;
	mem_put(&m, 0x7000, 0x5000);
	s = step(sym("fr_signal"), true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_true(s.exact);
	assert_reg(&s, WR_DWARF_RIP, 0x5000);
	s = step(sym("fr_basic"), true, &r, &m);
	assert_int_equal(s.err, 0);
	assert_false(s.exact);
}

/* No row: code without CFI, and an address beyond the module. */
static void test_no_row(void **state)
{
	struct uw_frame_regs r = regs(0x7000, 0, 0);
	struct mem m = { 0 };
	struct step s;

	(void)state;
	s = step(sym("fr_nocfi"), true, &r, &m);
	assert_int_equal(s.err, -ENOENT);
	assert_int_equal(s.caller.known, 0);
	s = step(0x100000, false, &r, &m);
	assert_int_equal(s.err, -ENOENT);
	assert_int_equal(m.reads, 0);
}

/* ======================================================================
 * Fixture
 * ====================================================================== */

static int read_syms(const char *so)
{
	char *cmd = xasprintf("nm '%s'", so), line[256], name[64], type;
	unsigned long long addr;
	FILE *p = popen(cmd, "r");

	free(cmd);
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %63s", &addr, &type, name) == 3 &&
		    strncmp(name, "fr_", 3) == 0 && n_syms < 16 && strlen(name) < 32) {
			strcpy(syms[n_syms].name, name);
			syms[n_syms++].addr = addr;
		}
	return pclose(p) == 0 && n_syms > 0 ? 0 : -1;
}

static int setup(void **state)
{
	const char *src = getenv("WRAITH_SRCDIR");
	char *so, *cmd;
	int st;

	(void)state;
	if (!src || !*src) {
		fprintf(stderr, "WRAITH_SRCDIR is not set: run this test through `make check`\n");
		return -1;
	}
	strcpy(tmpdir, "/tmp/test_frame.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	so = xasprintf("%s/libframe.so", tmpdir);
	cmd = xasprintf("gcc -shared -nostdlib -o '%s' '%s/tests/unit/data/frame/frame.s'", so, src);
	st = system(cmd);
	free(cmd);
	if (st != 0 || read_syms(so) != 0 || dw_module_open(so, &mod) != 0) {
		fprintf(stderr, "cannot build or open %s\n", so);
		free(so);
		return -1;
	}
	free(so);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);

	(void)state;
	dw_module_free(mod);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_row),
		cmocka_unit_test(test_row_of_pc_minus_one),
		cmocka_unit_test(test_rbp_based),
		cmocka_unit_test(test_unreadable_memory),
		cmocka_unit_test(test_cfa_expression),
		cmocka_unit_test(test_value_rules),
		cmocka_unit_test(test_signal_frame),
		cmocka_unit_test(test_no_row),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
