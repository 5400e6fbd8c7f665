/* test_fnstack.c - dwarf/fnstack.c against the call frame information as
 * the oracle.
 *
 * For every function of a binary, at every instruction the data flow
 * reaches, the depth counted from the code must equal the CFA the CFI
 * gives there: CFA - rsp where the CFI's CFA is rsp-based, CFA - rbp
 * where it is rbp-based.  A count may be refused (unknown), never differ.
 * The binaries: every build but the position-dependent ones of the
 * fixtures checked() names (gcc and clang, -O0, -O2, -O2 with frame
 * pointers; Rust at each opt-level), the system's libc with its
 * separate debug file (libc6-dbg), and python3.11d when installed.
 * Besides, hand-written code for the forms a compiler rarely emits.
 *
 * `make check` leaves out the large fixtures (C++ with its library,
 * Rust's std, manysites: about 2.5 minutes of CPU, three times that
 * under ASan, against a second for the rest): FNSTACK_ALL=1 checks them
 * too.  FNSTACK_STRIDE=N checks every Nth function only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/debugfile.h"
#include "dwarf/fnstack.h"
#include "dwarf/module.h"
#include "dwarf/vars.h"
#include "unwind/cfi.h"
#include "util/x86insn.h"
#include "util/x86stack.h"
#include "util/xalloc.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON_DEBUG "/usr/bin/python3.11d"
#define MAX_REPORTED 10

struct tally {
	size_t functions, insns;
	size_t rsp_agree, rbp_agree;     /* counted and equal to the CFI */
	size_t rsp_refused, rbp_refused; /* the CFI says, the count does not */
	size_t counted_under_rbp;        /* rsp counted where the CFA is rbp-based */
	size_t cfi_flat;                 /* functions with one CFI row, rsp + 8, that push */
	size_t cfi_lags;                 /* the CFI missed an `add $n,%rsp` */
	size_t differ;
};

/* Whether the instruction at @at is `add $imm,%rsp`. */
static bool is_add_rsp(struct dw_module *m, uint64_t at)
{
	uint8_t code[X86_MAX_INSN];
	long got = dw_module_read_const(m, at, code, sizeof(code));
	struct x86insn in;

	return got > 0 && x86insn_decode(code, (size_t)got, &in) == 0 && in.enc == X86_LEGACY &&
	       in.map == X86_MAP_ONE && (in.opcode == 0x83 || in.opcode == 0x81) && in.modrm == 0xc4 &&
	       (in.rex & 0x0d) == 0x08;
}

/* Whether the CFI row @row lags the code at instruction @i of @s: the
 * count agreed with it where the row starts, and each change of the
 * count since is an `add $imm,%rsp` (LLVM moves an epilogue's release
 * of the frame before its last test and writes its row only at the
 * pops: Rust's std).  Then the count is right and the CFI is not. */
static bool cfi_lags(struct dw_module *m, const struct fn_stack *s, const struct cfi_table *t, long row, size_t i,
		     const struct wr_cfi_rule *r)
{
	struct fn_stack_depth d, next;
	size_t k = i;

	while (k > 0 && fn_stack_nth(s, k - 1, &d) >= t->rows[row].pc)
		k--;
	fn_stack_nth(s, k, &d);
	if (r->cfa_reg != WR_DWARF_RSP || !d.rsp_known || d.cfa_rsp != r->cfa_off)
		return false;
	for (size_t j = k; j < i; j++) {
		uint64_t at = fn_stack_nth(s, j, &d);

		fn_stack_nth(s, j + 1, &next);
		if (!next.rsp_known || (next.cfa_rsp != d.cfa_rsp && !is_add_rsp(m, at)))
			return false;
	}
	return true;
}

/* Compare one function's counts with the CFI. */
static void check_function(struct dw_module *m, const char *path, const struct fn_stack *s, const struct cfi_table *t,
			   const struct cfi_rules *rules, struct tally *y)
{
	for (size_t i = 0; i < fn_stack_count(s); i++) {
		struct fn_stack_depth d;
		uint64_t pc = fn_stack_nth(s, i, &d);
		long row = cfi_table_lookup(t, pc);
		const struct wr_cfi_rule *r;
		bool rsp;
		int64_t counted;

		if (row < 0 || t->rows[row].rule >= rules->n)
			continue;
		r = &rules->v[t->rows[row].rule];
		if (r->kind != WR_ROW_NORMAL || r->cfa_kind != WR_CFA_REG_OFF)
			continue;
		y->insns++;
		rsp = r->cfa_reg == WR_DWARF_RSP;
		if (!(rsp ? d.rsp_known : d.rbp_known)) {
			*(rsp ? &y->rsp_refused : &y->rbp_refused) += 1;
			if (getenv("FNSTACK_VERBOSE") && strstr(getenv("FNSTACK_VERBOSE"), "refused"))
				print_message("%s: refused at 0x%" PRIx64 "\n", path, pc);
			continue;
		}
		counted = rsp ? d.cfa_rsp : d.cfa_rbp;
		if (!rsp && d.rsp_known)
			y->counted_under_rbp++;
		if (counted == r->cfa_off) {
			*(rsp ? &y->rsp_agree : &y->rbp_agree) += 1;
			continue;
		}
		if (cfi_lags(m, s, t, row, i, r)) {
			y->cfi_lags++;
			continue;
		}
		if (y->differ++ < MAX_REPORTED)
			print_message("%s: at 0x%" PRIx64 " (function at 0x%" PRIx64 ") the code says CFA = %s%+" PRId64
				      ", the CFI %s%+d\n", path, pc, fn_stack_entry(s), rsp ? "rsp" : "rbp", counted,
				      rsp ? "rsp" : "rbp", r->cfa_off);
	}
}

/* Whether the CFI gives @s's function one rule, CFA = rsp + 8, from its
 * first instruction to its last, while its code moves rsp: hand-written
 * assembly without CFI directives (glibc's mpn functions), whose CFI is
 * wrong wherever the count is not 8. */
static bool cfi_flat(const struct fn_stack *s, const struct cfi_table *t, const struct cfi_rules *rules)
{
	struct fn_stack_depth d;
	long first = cfi_table_lookup(t, fn_stack_nth(s, 0, &d));
	bool moves = false;

	for (size_t i = 0; i < fn_stack_count(s); i++) {
		long row = cfi_table_lookup(t, fn_stack_nth(s, i, &d));

		if (row < 0 || first < 0 || t->rows[row].rule != t->rows[first].rule)
			return false;
		moves |= d.rsp_known && d.cfa_rsp != 8;
	}
	return moves && t->rows[first].rule < rules->n && rules->v[t->rows[first].rule].cfa_reg == WR_DWARF_RSP &&
	       rules->v[t->rows[first].rule].cfa_off == 8;
}

/* Every function of @path whose code the CFI covers. */
/* Every how many functions one is checked (FNSTACK_STRIDE, default 1). */
static size_t stride(void)
{
	const char *e = getenv("FNSTACK_STRIDE");
	long n = e ? strtol(e, NULL, 10) : 1;

	return n > 0 ? (size_t)n : 1;
}

static void check_binary(const char *path, struct tally *y)
{
	size_t every = stride(), seen = 0;
	struct dw_module *m;
	struct cfi_rules rules;
	struct cfi_table t;
	struct fn_stack *s = NULL;

	if (dw_module_open(path, &m) != 0)
		fail_msg("cannot open %s", path);
	assert_true(dw_module_has_dwarf(m));
	cfi_rules_init(&rules);
	cfi_table_init(&t);
	assert_int_equal(cfi_table_extract(m, &rules, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		uint64_t pc = t.rows[i].pc, entry;
		const char *key;

		if (s && fn_stack_covers(s, pc))
			continue;
		if (!dw_function_at(m, pc, &key, &entry) || (s && fn_stack_entry(s) == entry))
			continue;
		fn_stack_free(s);
		s = NULL;
		if (fn_stack_new(m, entry, &s) != 0 || seen++ % every)
			continue;
		y->functions++;
		if (cfi_flat(s, &t, &rules))
			y->cfi_flat++;
		else
			check_function(m, path, s, &t, &rules, y);
	}
	fn_stack_free(s);
	cfi_table_release(&t);
	cfi_rules_release(&rules);
	dw_module_free(m);
}

static void report(const char *what, const struct tally *y)
{
	print_message("%-28s %5zu functions, %7zu pcs: rsp %zu equal, %zu refused; rbp %zu equal, %zu refused; "
		      "rsp counted at %zu rbp-based pcs; %zu where the CFI lags, %zu functions it leaves flat; %zu differ\n",
		      what, y->functions, y->insns, y->rsp_agree, y->rsp_refused, y->rbp_agree, y->rbp_refused,
		      y->counted_under_rbp, y->cfi_lags, y->cfi_flat, y->differ);
}

static bool is_elf(const char *path)
{
	FILE *f = fopen(path, "rb");
	char magic[4] = { 0 };
	bool elf;

	if (!f)
		return false;
	elf = fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4) == 0;
	fclose(f);
	return elf;
}

/* The fixtures checked, each in every build: C, C++ and Rust programs
 * with frame pointers, alloca, realignment, recursion, tail calls,
 * signals, threads, C++ exceptions and Rust's std. */
static bool checked(const char *name)
{
	static const char *const fixtures[] = {
		"outer", "chain", "cfi_frames", "cfi_realign", "vla", "realign", "recurse", "tails", "values",
		"locals", "signal", "threads", "optvals",
		/* the large ones (about 2 minutes of CPU): FNSTACK_ALL=1 */
		"cxx", "containers", "rstd", "rentry", "manysites", NULL,
	};
	size_t n_fixtures = getenv("FNSTACK_ALL") ? sizeof(fixtures) / sizeof(fixtures[0]) - 1 : 13;

	for (size_t i = 0; i < n_fixtures; i++) {
		size_t n = strlen(fixtures[i]);

		if (strncmp(name, fixtures[i], n) == 0 && (name[n] == '-' || name[n] == '_') && !strstr(name, "nopie"))
			return true;
	}
	return false;
}

static void test_fixtures(void **state)
{
	const char *dir = getenv("WRAITH_FIXTURES");
	struct tally all = { 0 }, o0 = { 0 };
	struct dirent *de;
	DIR *d;

	(void)state;
	if (!dir || !*dir)
		fail_msg("WRAITH_FIXTURES is not set: run this test through `make check`");
	if (!(d = opendir(dir)))
		fail_msg("cannot open %s", dir);
	while ((de = readdir(d))) {
		char *path = xasprintf("%s/%s", dir, de->d_name);
		struct tally one = { 0 };
		struct dw_module *m;
		bool dwarf = false;

		if (de->d_name[0] != '.' && checked(de->d_name) && is_elf(path) && dw_module_open(path, &m) == 0) {
			dwarf = dw_module_has_dwarf(m);
			dw_module_free(m);
		}
		if (dwarf && !strstr(de->d_name, "_nodebug") && checked(de->d_name)) {
			check_binary(path, &one);
			if (one.differ)
				report(de->d_name, &one);
			all.functions += one.functions, all.insns += one.insns;
			all.rsp_agree += one.rsp_agree, all.rsp_refused += one.rsp_refused;
			all.rbp_agree += one.rbp_agree, all.rbp_refused += one.rbp_refused;
			all.counted_under_rbp += one.counted_under_rbp, all.differ += one.differ;
			all.cfi_lags += one.cfi_lags, all.cfi_flat += one.cfi_flat;
			if (getenv("FNSTACK_VERBOSE"))
				report(de->d_name, &one);
			if (strstr(de->d_name, "-O0") || strstr(de->d_name, "-clang-O0"))
				o0.counted_under_rbp += one.counted_under_rbp, o0.rbp_refused += one.rbp_refused;
		}
		free(path);
	}
	closedir(d);
	report("fixtures", &all);
	assert_int_equal(all.differ, 0);
	assert_true(all.functions * stride() > (getenv("FNSTACK_ALL") ? 1000 : 400));
	/* -O0 frames: rsp known at most rbp-based pcs (not after an alloca
	 * or a realignment) */
	assert_true(o0.counted_under_rbp * stride() > (getenv("FNSTACK_ALL") ? 10000 : 1000));
	/* (the C ones alone are mostly VLAs and realignments, refused) */
	assert_true(!getenv("FNSTACK_ALL") || o0.rbp_refused * 5 < o0.counted_under_rbp);
}

static void test_libc(void **state)
{
	struct tally y = { 0 };

	(void)state;
	check_binary(LIBC, &y);
	report("libc.so.6", &y);
	assert_int_equal(y.differ, 0);
	assert_true(y.functions * stride() > 1000);
	assert_true(y.rsp_agree * stride() > 100000);
}

static void test_python_debug(void **state)
{
	struct tally y = { 0 };

	(void)state;
	if (access(PYTHON_DEBUG, R_OK) != 0) {
		print_message("%s not installed: not checked\n", PYTHON_DEBUG);
		return;
	}
	check_binary(PYTHON_DEBUG, &y);
	report("python3.11d", &y);
	assert_int_equal(y.differ, 0);
	assert_true(y.functions * stride() > 1000);
}

static int setup(void **state)
{
	(void)state;
	dw_debug_configure(&(struct dw_debug_config){ 0 }); /* /usr/lib/debug */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dw_debug_config_release();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_python_debug),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
