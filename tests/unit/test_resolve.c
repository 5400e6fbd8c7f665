/* test_resolve.c - function, file:line and address resolution against gdb.
 *
 * gdb is the oracle: for each fixture binary (chain-* and inline-* from
 * $WRAITH_FIXTURES, in the O0, O2 and O2-nopie builds) one batch run of
 * gdb sets a breakpoint per query and lists its locations; our sites must
 * land on exactly the same addresses.  Line numbers come from marker
 * comments in the fixture sources ($WRAITH_SRCDIR), never from constants.
 * Also: C++ name matching on a program compiled here, the ELF symbol
 * fallback on stripped copies, vaddr->offset against readelf, listings and
 * "did you mean" suggestions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/module.h"
#include "dwarf/module_priv.h"
#include "dwarf/resolve.h"
#include "dwarf/resolve_priv.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_QUERIES 32
#define MAX_LOCS 8

/* ---- environment ---- */

static const char *need_env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		fail_msg("%s is not set: run through `make check` or set it by hand", name);
	return v;
}

static char *fixture(const char *name)
{
	char *path = xasprintf("%s/%s", need_env("WRAITH_FIXTURES"), name);

	if (access(path, R_OK) != 0)
		fail_msg("fixture %s is missing: build it with `make check`", path);
	return path;
}

static char *fixture_source(const char *name)
{
	return xasprintf("%s/tests/fixtures/%s", need_env("WRAITH_SRCDIR"), name);
}

/* Line (1-based) of the first line of @file holding @needle followed by a
 * character in @after (any character when @after is NULL). */
static unsigned find_line(const char *file, const char *needle, const char *after)
{
	FILE *f = fopen(file, "r");
	char buf[512];
	unsigned line = 0;

	if (!f)
		fail_msg("cannot open %s", file);
	while (fgets(buf, sizeof(buf), f)) {
		const char *hit = strstr(buf, needle);

		line++;
		if (hit && (!after || strchr(after, hit[strlen(needle)]))) {
			fclose(f);
			return line;
		}
	}
	fclose(f);
	fail_msg("%s: no line holds \"%s\"", file, needle);
	return 0;
}

static unsigned line_of(const char *file, const char *text)
{
	return find_line(file, text, NULL);
}

/* Markers are "LINE:<name>" followed by a space or a colon. */
static unsigned marker(const char *file, const char *name)
{
	char *needle = xasprintf("LINE:%s", name);
	unsigned line = find_line(file, needle, " :");

	free(needle);
	return line;
}

static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	if (!p)
		fail_msg("cannot run %s", cmd);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&sb, buf, n);
	if (pclose(p) != 0)
		fail_msg("command failed: %s\n%s", cmd, sb.buf);
	return strbuf_detach(&sb);
}

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/wr-test-resolve-XXXXXX";

	if (!mkdtemp(tmpl))
		fail_msg("mkdtemp: %s", strerror(errno));
	return xstrdup(tmpl);
}

static void remove_tmpdir(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	free(run(cmd));
	free(cmd);
	free(dir);
}

static uint64_t nm_value(const char *bin, const char *sym)
{
	char *cmd = xasprintf("nm '%s' | awk '$3 == \"%s\" { print $1 }'", bin, sym);
	char *out = run(cmd);
	uint64_t v = strtoull(out, NULL, 16);

	if (!*out)
		fail_msg("nm: no symbol %s in %s", sym, bin);
	free(out);
	free(cmd);
	return v;
}

static struct dw_module *open_module(const char *path)
{
	struct dw_module *m = NULL;
	int err = dw_module_open(path, &m);

	if (err)
		fail_msg("dw_module_open(%s): %s", path, wr_strerror(err));
	return m;
}

/* ---- the gdb oracle ---- */

struct gdb_loc {
	uint64_t addr;
	unsigned line;
	char function[128];
};

struct gdb_answer {
	struct gdb_loc locs[MAX_LOCS];
	size_t n;
};

/* One location line of `info breakpoints`:
 * "1.2   y   0x00000000000012e9 in twice at /x/inline.c:42". */
static void parse_location(const char *line, struct gdb_answer *a)
{
	const char *hex = strstr(line, " 0x");
	const char *in, *colon;
	struct gdb_loc *l;

	if (!hex || strncmp(line, "Breakpoint ", 11) == 0 || a->n == MAX_LOCS)
		return;
	l = &a->locs[a->n++];
	memset(l, 0, sizeof(*l));
	l->addr = strtoull(hex + 1, NULL, 16);
	in = strstr(hex, " in ");
	if (in)
		sscanf(in + 4, "%127s", l->function);
	colon = strrchr(line, ':');
	if (colon)
		l->line = (unsigned)atoi(colon + 1);
}

/* Runs gdb once on @binary with a breakpoint per query ("leaf",
 * "inline.c:42") and returns each query's locations. */
static void ask_gdb(const char *binary, const char *const *queries, size_t n,
		    struct gdb_answer *answers)
{
	struct strbuf cmd = STRBUF_INIT;
	char *out, *line, *save = NULL;
	long cur = -1;

	strbuf_addstr(&cmd, "gdb -batch -nx -ex 'set confirm off' -ex 'set breakpoint pending off'");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&cmd, " -ex 'echo @@@ %zu\\n' -ex 'break %s' -ex 'info breakpoints' -ex delete",
			    i, queries[i]);
	strbuf_addf(&cmd, " '%s' 2>&1", binary);
	out = run(cmd.buf);
	memset(answers, 0, n * sizeof(*answers));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "@@@ ", 4) == 0)
			cur = atol(line + 4);
		else if (cur >= 0 && (size_t)cur < n)
			parse_location(line, &answers[cur]);
	}
	free(out);
	strbuf_release(&cmd);
}

/* gdb's line for each address ("info line *ADDR"), 0 when it has none. */
static void ask_gdb_lines(const char *binary, const uint64_t *addrs, size_t n, unsigned *lines)
{
	struct strbuf cmd = STRBUF_INIT;
	char *out, *line, *save = NULL;
	long cur = -1;

	strbuf_addstr(&cmd, "gdb -batch -nx");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&cmd, " -ex 'echo @@@ %zu\\n' -ex 'info line *0x%" PRIx64 "'", i, addrs[i]);
	strbuf_addf(&cmd, " '%s' 2>&1", binary);
	out = run(cmd.buf);
	memset(lines, 0, n * sizeof(*lines));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "@@@ ", 4) == 0)
			cur = atol(line + 4);
		else if (cur >= 0 && (size_t)cur < n && strncmp(line, "Line ", 5) == 0)
			lines[cur] = (unsigned)atoi(line + 5);
	}
	free(out);
	strbuf_release(&cmd);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Our sites and gdb's locations must be the same set of addresses. */
static void compare_addresses(const char *what, const struct dw_sites *s, const struct gdb_answer *a)
{
	uint64_t want[MAX_LOCS];
	size_t nw = 0;

	if (a->n == 0)
		fail_msg("%s: gdb found no location", what);
	for (size_t i = 0; i < a->n; i++)
		want[i] = a->locs[i].addr;
	qsort(want, a->n, sizeof(want[0]), cmp_u64);
	for (size_t i = 0; i < a->n; i++)
		if (i == 0 || want[i] != want[i - 1])
			want[nw++] = want[i];
	if (s->n != nw)
		fail_msg("%s: %zu sites, gdb has %zu locations (first gdb 0x%" PRIx64 ")", what, s->n,
			 nw, want[0]);
	for (size_t i = 0; i < nw; i++)
		if (s->v[i].vaddr != want[i])
			fail_msg("%s: site %zu at 0x%" PRIx64 ", gdb says 0x%" PRIx64, what, i,
				 s->v[i].vaddr, want[i]);
}

static const struct gdb_loc *gdb_loc_at(const struct gdb_answer *a, uint64_t addr)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->locs[i].addr == addr)
			return &a->locs[i];
	return NULL;
}

static void check_sorted(const char *what, const struct dw_sites *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i - 1].vaddr >= s->v[i].vaddr)
			fail_msg("%s: sites not sorted or not unique at %zu", what, i);
}

/* ---- functions and lines against gdb ---- */

struct line_query {
	const char *marker;  /* marker name, or NULL for @text */
	const char *text;    /* a line holding this text */
	bool compare_lines;  /* also compare the reported line and function */
};

static const char *const inline_functions[] = {
	"leaf", "outer", "multiline", "inlined_helper", "twice", "main",
};

static const struct line_query inline_lines[] = {
	{ "leaf-body", NULL, true },     { "helper-body", NULL, true },
	{ "twice-body", NULL, true },    { "outer-call", NULL, true },
	{ "multi-first", NULL, true },   { "multi-comment", NULL, true },
	{ "multi-odd", NULL, true },     { "multi-last", NULL, true },
	/* The opening line of a function: the site moves past the prologue,
	 * where gdb names the line of the code it lands on. */
	{ NULL, "int multiline(int a, int b)", false },
	{ NULL, "int leaf(int x)", false },
};

static const char *const chain_functions[] = { "leaf", "middle", "outer", "main" };

static const struct line_query chain_lines[] = {
	{ NULL, "sink += x;", true },
	{ NULL, "int r = leaf(x * 2);", true },
	{ NULL, "int r = middle(x + 1);", true },
	{ NULL, "outer((int)(i & 7));", true },
	{ NULL, "printf(\"ready", true },
};

static void check_functions(const char *bin, struct dw_module *m, const char *const *names, size_t n)
{
	struct gdb_answer answers[MAX_QUERIES];

	ask_gdb(bin, names, n, answers);
	for (size_t i = 0; i < n; i++) {
		struct dw_sites s = { 0 };
		char *what = xasprintf("%s: function %s", bin, names[i]);

		assert_int_equal(dw_resolve_function(m, names[i], &s), 0);
		check_sorted(what, &s);
		compare_addresses(what, &s, &answers[i]);
		for (size_t j = 0; j < s.n; j++) {
			assert_string_equal(s.v[j].function, names[i]);
			assert_non_null(s.v[j].file);
			assert_true(s.v[j].line > 0);
		}
		free(what);
		dw_sites_release(&s);
	}
}

static void check_lines(const char *bin, const char *src, struct dw_module *m,
			const struct line_query *q, size_t n)
{
	struct gdb_answer answers[MAX_QUERIES];
	char *specs[MAX_QUERIES] = { NULL };
	const char *base = strrchr(src, '/') + 1;
	unsigned lines[MAX_QUERIES];

	for (size_t i = 0; i < n; i++) {
		lines[i] = q[i].marker ? marker(src, q[i].marker) : line_of(src, q[i].text);
		specs[i] = xasprintf("%s:%u", base, lines[i]);
	}
	ask_gdb(bin, (const char *const *)specs, n, answers);
	for (size_t i = 0; i < n; i++) {
		struct dw_sites s = { 0 };
		char *what = xasprintf("%s: line %s", bin, specs[i]);

		assert_int_equal(dw_resolve_line(m, base, lines[i], &s), 0);
		check_sorted(what, &s);
		compare_addresses(what, &s, &answers[i]);
		for (size_t j = 0; j < s.n && q[i].compare_lines; j++) {
			const struct gdb_loc *g = gdb_loc_at(&answers[i], s.v[j].vaddr);

			if (s.v[j].line != g->line || strcmp(s.v[j].function, g->function) != 0)
				fail_msg("%s: site 0x%" PRIx64 " is %s:%u, gdb says %s:%u", what,
					 s.v[j].vaddr, s.v[j].function, s.v[j].line, g->function,
					 g->line);
			assert_non_null(strstr(s.v[j].file, base));
		}
		free(what);
		free(specs[i]);
		dw_sites_release(&s);
	}
}

/* dw_resolve_address on every site of @name: the function (or the inlined
 * function the site enters) and gdb's line for that address. */
static void check_addresses(const char *bin, struct dw_module *m, const char *name,
			    const char *innermost, bool inlined)
{
	struct dw_sites s = { 0 };
	uint64_t addrs[MAX_LOCS];
	unsigned lines[MAX_LOCS];

	assert_int_equal(dw_resolve_function(m, name, &s), 0);
	assert_true(s.n > 0 && s.n <= MAX_LOCS);
	for (size_t i = 0; i < s.n; i++)
		addrs[i] = s.v[i].vaddr;
	ask_gdb_lines(bin, addrs, s.n, lines);
	for (size_t i = 0; i < s.n; i++) {
		struct dw_sites a = { 0 };

		assert_int_equal(dw_resolve_address(m, addrs[i], &a), 0);
		assert_int_equal(a.n, 1);
		assert_int_equal(a.v[0].vaddr, addrs[i]);
		assert_string_equal(a.v[0].function, innermost);
		assert_int_equal(a.v[0].inlined, inlined);
		assert_int_equal(a.v[0].line, lines[i]);
		assert_int_equal(a.v[0].line, s.v[i].line);
		assert_string_equal(a.v[0].file, s.v[i].file);
		dw_sites_release(&a);
	}
	dw_sites_release(&s);
}

static void check_inline_variant(const char *variant)
{
	char *name = xasprintf("inline-%s", variant);
	char *bin = fixture(name);
	char *src = fixture_source("inline.c");
	struct dw_module *m = open_module(bin);

	assert_true(dw_module_has_dwarf(m));
	check_functions(bin, m, inline_functions, sizeof(inline_functions) / sizeof(inline_functions[0]));
	check_lines(bin, src, m, inline_lines, sizeof(inline_lines) / sizeof(inline_lines[0]));
	check_addresses(bin, m, "leaf", "leaf", false);
	check_addresses(bin, m, "twice", "twice", true);
	check_addresses(bin, m, "inlined_helper", "inlined_helper", true);
	dw_module_free(m);
	free(src);
	free(bin);
	free(name);
}

static void check_chain_variant(const char *variant)
{
	char *name = xasprintf("chain-%s", variant);
	char *bin = fixture(name);
	char *src = fixture_source("chain.c");
	struct dw_module *m = open_module(bin);

	check_functions(bin, m, chain_functions, sizeof(chain_functions) / sizeof(chain_functions[0]));
	check_lines(bin, src, m, chain_lines, sizeof(chain_lines) / sizeof(chain_lines[0]));
	for (size_t i = 0; i < 3; i++)
		check_addresses(bin, m, chain_functions[i], chain_functions[i], false);
	dw_module_free(m);
	free(src);
	free(bin);
	free(name);
}

static void test_inline_O0(void **state)
{
	(void)state;
	check_inline_variant("O0");
}

static void test_inline_O2(void **state)
{
	(void)state;
	check_inline_variant("O2");
}

static void test_inline_O2_nopie(void **state)
{
	(void)state;
	check_inline_variant("O2-nopie");
}

static void test_chain_O0(void **state)
{
	(void)state;
	check_chain_variant("O0");
}

static void test_chain_O2(void **state)
{
	(void)state;
	check_chain_variant("O2");
}

static void test_chain_O2_nopie(void **state)
{
	(void)state;
	check_chain_variant("O2-nopie");
}

/* clang marks the end of each prologue in the line table, lays out
 * inlined code differently and writes DWARF 5's indexed forms without
 * .debug_aranges; the same queries must still agree with gdb.  On the
 * clang builds of the inline fixture. */
static void check_clang(const char *variant)
{
	char *name = xasprintf("inline-clang-%s", variant);
	char *bin = fixture(name);
	char *src = fixture_source("inline.c");
	struct dw_module *m = open_module(bin);

	check_functions(bin, m, inline_functions, sizeof(inline_functions) / sizeof(inline_functions[0]));
	check_lines(bin, src, m, inline_lines, sizeof(inline_lines) / sizeof(inline_lines[0]));
	check_addresses(bin, m, "leaf", "leaf", false);
	dw_module_free(m);
	free(bin);
	free(src);
	free(name);
}

static void test_inline_clang(void **state)
{
	(void)state;
	check_clang("O0");
	check_clang("O2");
	check_clang("O2-nopie");
}

/* busy() keeps its arguments in callee-saved registers: at -O1 GCC gives
 * the pushes the opening line and the body's first row comes after them.
 * gdb trusts the location lists of optimized GCC code and breaks at the
 * entry; at -O0 it skips the prologue. */
static const char optimized_source[] =
	"__attribute__((noinline)) long ext(long v)\n"
	"{\n"
	"\t__asm__ volatile(\"\" : \"+r\"(v));\n"
	"\treturn v * 3;\n"
	"}\n"
	"__attribute__((noinline)) long busy(long a, long b, long c)\n"
	"{\n"
	"\tlong x = ext(a);\n"
	"\tlong y = ext(b) + x;\n"
	"\treturn ext(c) + y + a + b;\n"
	"}\n"
	"int main(void) { return (int)busy(1, 2, 3); }\n";

static void check_optimized(const char *dir, const char *opt)
{
	static const char *const names[] = { "busy", "ext", "main" };
	char *src = xasprintf("%s/opt.c", dir), *bin = xasprintf("%s/opt%s", dir, opt);
	char *cmd = xasprintf("gcc -g %s -o '%s' '%s' 2>&1", opt, bin, src);
	struct dw_module *m;
	struct dw_sites s = { 0 };

	free(run(cmd));
	m = open_module(bin);
	check_functions(bin, m, names, 3);
	assert_int_equal(dw_resolve_function(m, "busy", &s), 0);
	assert_int_equal(s.n, 1);
	if (strcmp(opt, "-O0") == 0)
		assert_true(s.v[0].vaddr > nm_value(bin, "busy"));
	else
		assert_int_equal(s.v[0].vaddr, nm_value(bin, "busy"));
	dw_sites_release(&s);
	dw_module_free(m);
	free(cmd);
	free(bin);
	free(src);
}

static void test_optimized_entry(void **state)
{
	char *dir = make_tmpdir();
	char *src = xasprintf("%s/opt.c", dir);
	FILE *f = fopen(src, "w");

	(void)state;
	assert_non_null(f);
	fputs(optimized_source, f);
	fclose(f);
	check_optimized(dir, "-O0");
	check_optimized(dir, "-O1");
	check_optimized(dir, "-Og");
	free(src);
	remove_tmpdir(dir);
}

/* Lines that hold no code: the next line with code stands in (and is
 * reported), within a function and between two. */
static void test_line_without_code(void **state)
{
	char *bin = fixture("inline-O0");
	char *src = fixture_source("inline.c");
	struct dw_module *m = open_module(bin);
	unsigned comment = marker(src, "multi-comment");
	unsigned decl = line_of(src, "int multiline(int a, int b)");
	struct dw_sites s = { 0 };

	(void)state;
	assert_int_equal(dw_resolve_line(m, "inline.c", comment, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].line, comment + 1);
	assert_string_equal(s.v[0].function, "multiline");
	dw_sites_release(&s);
	/* The blank line before multiline() belongs to no function: the next
	 * line with code stands in, multiline's own, past its prologue, where
	 * a probe on multiline goes (gdb's break does the same). */
	assert_int_equal(dw_resolve_line(m, "inline.c", decl - 1, &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].function, "multiline");
	assert_int_equal(dw_resolve_function(m, "multiline", &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].vaddr, s.v[1].vaddr);
	assert_int_equal(s.v[0].line, s.v[1].line);
	dw_sites_release(&s);
	assert_int_equal(dw_resolve_line(m, "inline.c", 100000, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(dw_resolve_line(m, "nosuch.c", comment, &s), 0);
	assert_int_equal(s.n, 0);
	/* File names: full path, suffix at '/', basename; not a partial name. */
	assert_int_equal(dw_resolve_line(m, "inline.c", comment, &s), 0);
	assert_int_equal(dw_resolve_line(m, src, comment, &s), 0);
	assert_int_equal(dw_resolve_line(m, "fixtures/inline.c", comment, &s), 0);
	assert_int_equal(dw_resolve_line(m, "./inline.c", comment, &s), 0);
	assert_int_equal(s.n, 4);
	for (size_t i = 1; i < s.n; i++)
		assert_int_equal(s.v[i].vaddr, s.v[0].vaddr);
	dw_sites_release(&s);
	assert_int_equal(dw_resolve_line(m, "line.c", comment, &s), 0);
	assert_int_equal(dw_resolve_line(m, "xfixtures/inline.c", comment, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(dw_resolve_line(m, "inline.c", 0, &s), -EINVAL);
	dw_module_free(m);
	free(src);
	free(bin);
}

static void test_unknown_and_suggestions(void **state)
{
	static const struct {
		const char *typed, *first;
	} cases[] = {
		{ "leef", "leaf" },
		{ "multilin", "multiline" },
		{ "inline_helper", "inlined_helper" },
		{ "outr", "outer" },
		{ "multi", "multiline" },     /* prefix */
		{ "lined_help", "inlined_helper" }, /* substring */
	};
	char *bin = fixture("inline-O2");
	struct dw_module *m = open_module(bin);
	struct dw_sites s = { 0 };
	char **sugg = NULL;
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(dw_resolve_function(m, cases[i].typed, &s), 0);
		assert_int_equal(s.n, 0);
		dw_suggest_functions(m, cases[i].typed, 3, &sugg, &n);
		if (n == 0 || strcmp(sugg[0], cases[i].first) != 0)
			fail_msg("\"%s\": suggested \"%s\", want \"%s\"", cases[i].typed,
				 n ? sugg[0] : "(nothing)", cases[i].first);
		assert_true(n <= 3);
		for (size_t j = 0; j < n; j++)
			free(sugg[j]);
		n = 0;
	}
	dw_suggest_functions(m, "qqqqqqqqzz", 3, &sugg, &n);
	assert_int_equal(n, 0);
	/* Appends to what is there. */
	dw_suggest_functions(m, "leef", 1, &sugg, &n);
	dw_suggest_functions(m, "twic", 1, &sugg, &n);
	assert_int_equal(n, 2);
	assert_string_equal(sugg[0], "leaf");
	assert_string_equal(sugg[1], "twice");
	free(sugg[0]);
	free(sugg[1]);
	free(sugg);
	assert_int_equal(dw_resolve_function(m, "", &s), -EINVAL);
	dw_module_free(m);
	free(bin);
}

/* ---- listings ---- */

struct name_list {
	char *names[256];
	uint64_t vaddrs[256];
	size_t n;
	size_t stop_after;
};

static int collect_name(const char *name, uint64_t vaddr, void *ctx)
{
	struct name_list *l = ctx;

	if (l->n == 256)
		fail_msg("too many names");
	l->vaddrs[l->n] = vaddr;
	l->names[l->n++] = xstrdup(name);
	return l->stop_after && l->n == l->stop_after ? 42 : 0;
}

static int collect_source(const char *path, void *ctx)
{
	return collect_name(path, 0, ctx);
}

static long find_name(const struct name_list *l, const char *name)
{
	long at = -1;

	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->names[i], name) != 0)
			continue;
		if (at >= 0)
			fail_msg("%s listed twice", name);
		at = (long)i;
	}
	return at;
}

static void free_names(struct name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	l->n = 0;
}


static void test_foreach(void **state)
{
	static const char *const dwarf_names[] = {
		"inlined_helper", "leaf", "main", "multiline", "outer", "twice",
	};
	char *bin = fixture("inline-O2");
	struct dw_module *m = open_module(bin);
	struct name_list l = { .n = 0 };
	const char *tail = "/tests/fixtures/inline.c";
	long start, prev = -1;

	(void)state;
	assert_int_equal(dw_module_foreach_function(m, collect_name, &l), 0);
	for (size_t i = 0; i < sizeof(dwarf_names) / sizeof(dwarf_names[0]); i++) {
		long at = find_name(&l, dwarf_names[i]);

		if (at < 0)
			fail_msg("%s not listed", dwarf_names[i]);
		assert_true(at > prev);
		prev = at;
	}
	assert_int_equal(l.vaddrs[find_name(&l, "leaf")], nm_value(bin, "leaf"));
	/* ELF-only names come after every DWARF name. */
	start = find_name(&l, "_start");
	assert_true(start > prev);
	assert_int_equal(l.vaddrs[start], nm_value(bin, "_start"));
	free_names(&l);
	l.stop_after = 2;
	assert_int_equal(dw_module_foreach_function(m, collect_name, &l), 42);
	assert_int_equal(l.n, 2);
	free_names(&l);

	l.stop_after = 0;
	assert_int_equal(dw_module_foreach_source(m, collect_source, &l), 0);
	start = -1;
	for (size_t i = 0; i < l.n; i++) {
		size_t len = strlen(l.names[i]);

		find_name(&l, l.names[i]);
		if (len >= strlen(tail) && strcmp(l.names[i] + len - strlen(tail), tail) == 0)
			start = (long)i;
		assert_int_equal(l.names[i][0], '/');
	}
	assert_true(start >= 0);
	free_names(&l);
	dw_module_free(m);
	free(bin);
}

/* ---- C++ names ---- */

static const char cxx_source[] =
	"namespace ns {\n"
	"struct Klass { int method(int x); int method(double x); static int other(); };\n"
	"int Klass::method(int x) { return x + 1; }\n"
	"int Klass::method(double x) { return (int)x; }\n"
	"int Klass::other() { return 3; }\n"
	"template <typename T> T twice(T x) { return x * 2; }\n"
	"int method(int x) { return x; }\n"
	"}\n"
	"namespace other { struct Klass { int method(int x); };\n"
	"int Klass::method(int x) { return x - 2; } }\n"
	"int method(int x) { return x - 1; }\n"
	"namespace ns { template <typename T> struct Box { T v; T get() const { return v; } }; }\n"
	"int main() { ns::Klass k; other::Klass o; ns::Box<int> bi{1}; ns::Box<double> bd{2.0};\n"
	"  return k.method(1) + k.method(2.0) + ns::Klass::other() + ns::twice(3) +\n"
	"         (int)ns::twice(2.5) + ns::method(1) + method(2) + o.method(3) +\n"
	"         bi.get() + (int)bd.get(); }\n";

/* @query must give @n sites, one of them in function @name. */
static void expect_cxx(struct dw_module *m, const char *query, size_t n, const char *name)
{
	struct dw_sites s = { 0 };
	bool seen = false;

	assert_int_equal(dw_resolve_function(m, query, &s), 0);
	if (s.n != n)
		fail_msg("\"%s\": %zu sites, want %zu", query, s.n, n);
	for (size_t i = 0; i < s.n; i++)
		seen |= strcmp(s.v[i].function, name) == 0;
	if (n && !seen)
		fail_msg("\"%s\": no site in %s (first: %s)", query, name, s.v[0].function);
	dw_sites_release(&s);
}

static void test_cxx_names(void **state)
{
	static const char *const qualified[] = { "ns::Klass::method", "ns::twice", "ns::method",
						 "other::Klass::method", "ns::Box<int>::get" };
	struct gdb_answer answers[5];
	char *dir = make_tmpdir();
	char *src = xasprintf("%s/names.cc", dir), *bin = xasprintf("%s/names", dir);
	char *cmd = xasprintf("g++ -g -O0 -o '%s' '%s' 2>&1", bin, src);
	FILE *f = fopen(src, "w");
	struct dw_module *m;

	(void)state;
	assert_non_null(f);
	fputs(cxx_source, f);
	fclose(f);
	free(run(cmd));
	m = open_module(bin);
	ask_gdb(bin, qualified, 5, answers);
	for (size_t i = 0; i < 5; i++) {
		struct dw_sites s = { 0 };

		assert_int_equal(dw_resolve_function(m, qualified[i], &s), 0);
		compare_addresses(qualified[i], &s, &answers[i]);
		dw_sites_release(&s);
	}
	expect_cxx(m, "ns::Klass::method", 2, "ns::Klass::method");
	expect_cxx(m, "Klass::method", 3, "ns::Klass::method"); /* both classes */
	expect_cxx(m, "Klass::method", 3, "other::Klass::method");
	expect_cxx(m, "method", 1, "method");                   /* the exact ::method only */
	expect_cxx(m, "other", 1, "ns::Klass::other");          /* no exact: suffix */
	expect_cxx(m, "ns::twice", 2, "ns::twice<int>");        /* every instantiation */
	expect_cxx(m, "ns::twice", 2, "ns::twice<double>");
	expect_cxx(m, "twice<double>", 1, "ns::twice<double>");
	expect_cxx(m, "ns::Box::get", 2, "ns::Box<int>::get");  /* template class */
	expect_cxx(m, "Box<double>::get", 1, "ns::Box<double>::get");
	expect_cxx(m, "Klass", 0, "");
	expect_cxx(m, "s::method", 0, "");                      /* only at "::" */
	dw_module_free(m);
	free(cmd);
	free(src);
	free(bin);
	remove_tmpdir(dir);
}

/* ---- without DWARF ---- */

static void test_stripped(void **state)
{
	char *orig = fixture("inline-O2");
	char *dir = make_tmpdir();
	char *bin = xasprintf("%s/inline-stripped", dir);
	char *cmd = xasprintf("strip -g -o '%s' '%s' 2>&1", bin, orig);
	struct dw_module *m;
	struct dw_sites s = { 0 };
	uint64_t leaf = nm_value(orig, "leaf");

	(void)state;
	free(run(cmd));
	m = open_module(bin);
	assert_false(dw_module_has_dwarf(m));
	assert_int_equal(dw_resolve_function(m, "leaf", &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].vaddr, leaf);
	assert_string_equal(s.v[0].function, "leaf");
	assert_null(s.v[0].file);
	assert_int_equal(s.v[0].line, 0);
	assert_false(s.v[0].inlined);
	dw_sites_release(&s);
	/* Inlined-only functions have no symbol. */
	assert_int_equal(dw_resolve_function(m, "twice", &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(dw_resolve_line(m, "inline.c", 30, &s), -WR_ENODWARF);
	assert_int_equal(dw_resolve_address(m, leaf + 3, &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].function, "leaf");
	assert_null(s.v[0].file);
	dw_sites_release(&s);
	dw_module_free(m);
	free(cmd);
	free(bin);
	free(orig);
	remove_tmpdir(dir);
}

/* A shared library stripped of .symtab still exports through .dynsym. */
static void test_dynsym_only(void **state)
{
	char *dir = make_tmpdir();
	char *src = xasprintf("%s/lib.c", dir), *lib = xasprintf("%s/libx.so", dir);
	char *build = xasprintf("gcc -shared -fPIC -O2 -o '%s' '%s' && strip --strip-all '%s' 2>&1",
				lib, src, lib);
	char *nm = xasprintf("nm -D '%s' | awk '$3 == \"exported\" { print $1 }'", lib);
	FILE *f = fopen(src, "w");
	struct dw_module *m;
	struct dw_sites s = { 0 };
	char *want;

	(void)state;
	assert_non_null(f);
	fputs("static int hidden(int x) { return x * 3; }\n"
	      "int exported(int x) { return hidden(x) + 1; }\n"
	      "int (*volatile keep)(int) = hidden;\n",
	      f);
	fclose(f);
	free(run(build));
	want = run(nm);
	m = open_module(lib);
	assert_false(dw_module_has_dwarf(m));
	assert_int_equal(dw_resolve_function(m, "exported", &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].vaddr, strtoull(want, NULL, 16));
	dw_sites_release(&s);
	assert_int_equal(dw_resolve_function(m, "hidden", &s), 0);
	assert_int_equal(s.n, 0);
	dw_module_free(m);
	free(want);
	free(nm);
	free(build);
	free(src);
	free(lib);
	remove_tmpdir(dir);
}

/* ---- file offsets ---- */

struct load {
	uint64_t offset, vaddr, filesz;
};

static size_t readelf_loads(const char *bin, struct load *v, size_t max)
{
	char *cmd = xasprintf("readelf -lW '%s'", bin);
	char *out = run(cmd), *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(out, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long off, va, pa, fs;

		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &fs) == 4)
			v[n++] = (struct load){ off, va, fs };
	}
	free(out);
	free(cmd);
	return n;
}

static void check_offsets(const char *variant)
{
	char *name = xasprintf("inline-%s", variant);
	char *bin = fixture(name);
	struct dw_module *m = open_module(bin);
	struct load loads[16];
	size_t n = readelf_loads(bin, loads, 16);
	uint64_t probes[3] = { nm_value(bin, "leaf"), nm_value(bin, "_IO_stdin_used"),
				nm_value(bin, "__data_start") };
	uint64_t off, last_end = 0;

	assert_true(n >= 2);
	for (size_t p = 0; p < 3; p++) {
		bool found = false;

		for (size_t i = 0; i < n; i++) {
			if (probes[p] < loads[i].vaddr || probes[p] >= loads[i].vaddr + loads[i].filesz)
				continue;
			assert_int_equal(dw_module_vaddr_to_offset(m, probes[p], &off), 0);
			assert_int_equal(off, probes[p] - loads[i].vaddr + loads[i].offset);
			found = true;
		}
		assert_true(found);
	}
	for (size_t i = 0; i < n; i++)
		if (loads[i].vaddr + loads[i].filesz > last_end)
			last_end = loads[i].vaddr + loads[i].filesz;
	assert_int_equal(dw_module_vaddr_to_offset(m, last_end + 0x100000, &off), -ERANGE);
	dw_module_free(m);
	free(bin);
	free(name);
}

static void test_offsets(void **state)
{
	char *bin = fixture("inline-O2");
	struct dw_module *m = open_module(bin);
	struct dw_sites s = { 0 };

	(void)state;
	check_offsets("O2");
	check_offsets("O2-nopie");
	/* Data is not code. */
	assert_int_equal(dw_resolve_address(m, nm_value(bin, "sink"), &s), -ERANGE);
	assert_int_equal(s.n, 0);
	dw_module_free(m);
	free(bin);
}

/* The check that spares opening a library's DWARF for a file:line probe
 * must never say no to a file a line table names: every file of every
 * unit, asked of a fresh module (DWARF not open), in the debug formats of
 * the fixtures (embedded, split, compressed, separate); a file no table
 * names is refused. */
static void check_names_files(const char *name)
{
	char *bin = fixture(name);
	struct dw_module *m = open_module(bin), *fresh = open_module(bin);
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t type;
	size_t checked = 0;

	assert_non_null(dw);
	assert_false(dw_module_may_name_file(fresh, "no_such_file_q7.c"));
	while (dwarf_get_units(dw, cu, &cu, &version, &type, &cudie, NULL) == 0) {
		Dwarf_Files *files;
		size_t n;

		if (dwarf_getsrcfiles(&cudie, &files, &n) != 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *f = dwarf_filesrc(files, i, NULL, NULL);

			if (!f || !*f || f[strlen(f) - 1] == '/')
				continue;
			if (!dw_module_may_name_file(fresh, f))
				fail_msg("%s: line tables name %s, the check says no", name, f);
			checked++;
		}
	}
	assert_true(checked > 0);
	assert_true(dw_module_may_name_file(fresh, "vars.c") || strncmp(name, "vars", 4) != 0);
	/* Once the DWARF is open the check costs more than it saves. */
	assert_non_null(dw_module_dwarf(fresh));
	assert_true(dw_module_may_name_file(fresh, "no_such_file_q7.c"));
	dw_module_free(fresh);
	dw_module_free(m);
	free(bin);
}

static void test_may_name_file(void **state)
{
	static const char *const names[] = {
		"inline-O0", "inline-clang-O2", "vars_split-O2", "vars_split-clang-O2",
		"vars_gz-O2", "vars_gz-clang-O2", "vars_debuglink-O2",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_names_files(names[i]);
}

/* ---- the raw line table bound (resolve_files.c) ---- */

/* The least line >= @line of @cudie's statement rows (and of any row at
 * @line itself) in files whose base name is @base, by libdw: what
 * rs_unit_scan must find without it. */
static unsigned libdw_least(Dwarf_Die *cudie, const char *base, unsigned line)
{
	Dwarf_Lines *lines;
	size_t n;
	unsigned least = UINT_MAX;

	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return UINT_MAX;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		const char *f = dwarf_linesrc(row, NULL, NULL), *slash;
		bool stmt = false, end = false;
		int l = 0;

		dwarf_lineno(row, &l);
		dwarf_linebeginstatement(row, &stmt);
		dwarf_lineendsequence(row, &end);
		slash = f ? strrchr(f, '/') : NULL;
		if (f && (stmt || l == (int)line) && !end && l >= (int)line && (unsigned)l < least &&
		    strcmp(slash ? slash + 1 : f, base) == 0)
			least = (unsigned)l;
	}
	return least;
}

/* Every unit of @bin, for every file its rows name and a spread of lines
 * around theirs: the raw bound equals libdw's answer, a unit refused
 * (RS_SCAN_NONE) has no such file, and "maybe" is left to libdw.  Returns
 * how many bounds were compared. */
static size_t check_unit_bounds(const char *bin)
{
	struct dw_module *m = open_module(bin);
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t compared = 0;

	assert_non_null(dw);
	while (dw_next_unit(dw, &cu, &cudie, false)) {
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_getsrclines(&cudie, &lines, &n) != 0)
			continue;
		for (size_t i = 0; i < n; i += n / 16 + 1) {
			Dwarf_Line *row = dwarf_onesrcline(lines, i);
			const char *f = dwarf_linesrc(row, NULL, NULL), *slash, *base;
			int l = 0;

			dwarf_lineno(row, &l);
			if (!f || l <= 0)
				continue;
			slash = strrchr(f, '/');
			base = slash ? slash + 1 : f;
			for (unsigned line = l > 3 ? (unsigned)l - 3 : 1; line <= (unsigned)l + 3; line++) {
				unsigned least, want = libdw_least(&cudie, base, line);
				enum rs_scan r = rs_unit_scan(&cudie, base, line, &least);

				if (r == RS_SCAN_MAYBE)
					continue;
				if (r == RS_SCAN_NONE)
					fail_msg("%s: unit refused for %s, which its rows name", bin, base);
				if (least != want)
					fail_msg("%s: %s:%u: raw bound %u, libdw %u", bin, base, line, least, want);
				compared++;
			}
			if (rs_unit_scan(&cudie, "no_such_file_q7.c", 1, &(unsigned){ 0 }) == RS_SCAN_LEAST)
				fail_msg("%s: a unit may name no_such_file_q7.c", bin);
		}
	}
	dw_module_free(m);
	return compared;
}

/* Builds @src with @cc and @flags into a temporary directory; the path of
 * the program (caller frees and removes it). */
static char *build_program(const char *cc, const char *src, const char *flags, const char *dir)
{
	char *out = xasprintf("%s/prog", dir);
	char *cmd = xasprintf("%s %s -w -o %s %s", cc, flags, out, src);

	if (system(cmd) != 0)
		fail_msg("cannot build: %s", cmd);
	free(cmd);
	return out;
}

static void test_unit_bounds(void **state)
{
	static const char *const names[] = {
		"inline-O0", "inline-O2", "inline-clang-O2", "chain-O2", "vars_gz-O2",
		"vars_gz-clang-O2", "vars_debuglink-O2",
	};
	/* DWARF 4 and LTO are not among the fixtures' builds. */
	static const char *const flags[] = { "-g -O2 -gdwarf-4", "-g -O0 -gdwarf-4",
					     "-g -O2 -flto -gdwarf-5" };
	char dir[] = "/tmp/wraith-bounds-XXXXXX";
	char *src = fixture_source("inline.c");

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *bin = fixture(names[i]);

		if (check_unit_bounds(bin) == 0)
			fail_msg("%s: no bound compared", names[i]);
		free(bin);
	}
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		char *bin = build_program("gcc", src, flags[i], dir);

		if (check_unit_bounds(bin) == 0)
			fail_msg("gcc %s: no bound compared", flags[i]);
		unlink(bin);
		free(bin);
	}
	rmdir(dir);
	free(src);
}

/* ---- line tables read raw ---- */

/* Rows @i - 4 .. @i + 3 of libdw's table and of linerows.c's, to see how
 * they differ. */
static void dump_rows(Dwarf_Lines *lines, const struct dw_line_rows *r, size_t i)
{
	for (size_t k = i > 4 ? i - 4 : 0; k < i + 4 && k < r->n; k++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, k);
		Dwarf_Addr a = 0;
		int line = 0;
		bool end = false;

		dwarf_lineaddr(l, &a);
		dwarf_lineno(l, &line);
		dwarf_lineendsequence(l, &end);
		print_message("%zu: libdw %#jx line %d end %d; read %#jx line %d flags %#x\n", k,
			      (uintmax_t)a, line, end, (uintmax_t)r->v[k].addr, r->v[k].line, r->v[k].flags);
	}
}

/* linerows.c's file list of unit @cudie is libdw's (DW_AT_call_file
 * indexes it). */
static void check_files(const char *path, Dwarf_Die *cudie, const struct dw_line_rows *r)
{
	Dwarf_Files *files;
	size_t n = 0;

	if (dwarf_getsrcfiles(cudie, &files, &n) != 0)
		fail_msg("%s unit %#jx: libdw has no file list", path, (uintmax_t)dwarf_dieoffset(cudie));
	assert_int_equal(r->n_files, n);
	for (size_t i = 0; i < n; i++) {
		const char *lib = dwarf_filesrc(files, i, NULL, NULL);

		if (!lib != !r->files[i] || (lib && strcmp(lib, r->files[i])))
			fail_msg("%s unit %#jx file %zu: libdw %s, read %s", path,
				 (uintmax_t)dwarf_dieoffset(cudie), i, lib ? lib : "-",
				 r->files[i] ? r->files[i] : "-");
	}
}

/* Every row linerows.c reads of every unit of @path is libdw's row at the
 * same index: address, file name, line, column, discriminator, flags, and dropped as
 * dw_line_dropped() says.  Returns how many units it read itself. */
static size_t check_line_rows(const char *path, size_t *units)
{
	struct dw_module *m = open_module(path);
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t own = 0;

	*units = 0;
	while (dw && dw_next_unit(dw, &cu, &cudie, false)) {
		const struct dw_line_rows *r = dw_unit_line_rows(m, &cudie);
		Dwarf_Lines *lines;
		size_t n = 0;

		if (dwarf_getsrclines(&cudie, &lines, &n) != 0)
			n = 0;
		(*units)++;
		if (!r)
			continue;
		own++;
		check_files(path, &cudie, r);
		if (r->n != n)
			fail_msg("%s unit %#jx: %zu rows read, libdw %zu", path,
				 (uintmax_t)dwarf_dieoffset(&cudie), r->n, n);
		for (size_t i = 0; i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const struct dw_line_row *o = &r->v[i];
			const char *file = dwarf_linesrc(l, NULL, NULL);
			const char *mine = o->file < r->n_files ? r->files[o->file] : NULL;
			Dwarf_Addr addr = 0;
			int line = 0, col = 0;
			unsigned disc = 0;
			bool stmt = false, end = false, pe = false;

			dwarf_lineaddr(l, &addr);
			dwarf_lineno(l, &line);
			dwarf_linecol(l, &col);
			dwarf_linebeginstatement(l, &stmt);
			dwarf_lineendsequence(l, &end);
			dwarf_lineprologueend(l, &pe);
			dwarf_linediscriminator(l, &disc);
			if (addr != o->addr || line != o->line || col != o->col || disc != o->disc ||
			    stmt != !!(o->flags & DW_ROW_STMT) || end != !!(o->flags & DW_ROW_END) ||
			    pe != !!(o->flags & DW_ROW_PROLOGUE_END) ||
			    dw_line_dropped(m, &cudie, l) != !!(o->flags & DW_ROW_DROPPED) ||
			    (!file != !mine) || (file && strcmp(file, mine))) {
				dump_rows(lines, r, i);
				fail_msg("%s unit %#jx row %zu: libdw %#jx %s:%d:%d %d%d%d, read %#jx %s:%d:%d %#x",
					 path, (uintmax_t)dwarf_dieoffset(&cudie), i, (uintmax_t)addr,
					 file ? file : "-", line, col, stmt, end, pe, (uintmax_t)o->addr,
					 mine ? mine : "-", o->line, o->col, o->flags);
			}
		}
	}
	dw_module_free(m);
	return own;
}

static void test_line_rows(void **state)
{
	/* gcc and clang, -O0 to -flto, C++ (COMDAT copies the linker dropped)
	 * and Rust */
	static const char *const fixtures[] = {
		"inline-O0", "inline-O2", "chain-O2-nopie", "inline-clang-O2", "forms_lto",
		"forms_clang-lto", "containers-O2", "containers-libcxx-O2", "rstd-O1",
	};
	const char *extra = getenv("WRAITH_TEST_LINE_ROWS");
	size_t units, own;

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char *path = fixture(fixtures[i]);

		own = check_line_rows(path, &units);
		assert_true(units > 0);
		assert_int_equal(own, units);
		free(path);
	}
	/* this test's own program: gcc -O2, many units of libraries */
	own = check_line_rows("/proc/self/exe", &units);
	assert_true(own > units / 2);
	/* more programs by hand: WRAITH_TEST_LINE_ROWS="prog1 prog2" */
	if (extra) {
		char *list = xstrdup(extra), *save = NULL;

		for (char *p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
			own = check_line_rows(p, &units);
			print_message("%s: %zu of %zu units read raw\n", p, own, units);
		}
		free(list);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_O0),
		cmocka_unit_test(test_inline_O2),
		cmocka_unit_test(test_inline_O2_nopie),
		cmocka_unit_test(test_chain_O0),
		cmocka_unit_test(test_chain_O2),
		cmocka_unit_test(test_chain_O2_nopie),
		cmocka_unit_test(test_inline_clang),
		cmocka_unit_test(test_optimized_entry),
		cmocka_unit_test(test_line_without_code),
		cmocka_unit_test(test_may_name_file),
		cmocka_unit_test(test_unit_bounds),
		cmocka_unit_test(test_unknown_and_suggestions),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_cxx_names),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_dynsym_only),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_line_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
