/* test_symbolize.c - dw_symbolize() against gdb.
 *
 * gdb is the oracle throughout; no expected name or line is written here.
 * Four checks per fixture build (chain-*, inline-*, cxx-* in
 * $WRAITH_FIXTURES):
 *   - a static sweep: every pc covered by the fixture's own line table,
 *     compared with gdb's block chain (function and inlined callers, each
 *     with its parameters), gdb's line for that pc and the function's
 *     entry (for sym_offset); the same for a C program built here for
 *     the C spellings of types;
 *   - columns, which gdb does not show: every frame's line:column against
 *     llvm-symbolizer --inlining;
 *   - a live backtrace: the fixture runs under gdb to a breakpoint at leaf
 *     and every frame of `bt` (names, inline frames, file:line, parameter
 *     types and names) is compared with dw_symbolize of that frame's pc
 *     (minus one for callers, as gdb does);
 *   - stripped copies: `strip -g` (names and offsets from the symbol
 *     table, compared with gdb's `info symbol`) and `strip --strip-all`
 *     (nothing known).
 * Plus dw_demangle against c++filt, the cache's sharing of results, and
 * gdb's names of plain symbols (dw_symbol_decoded_name) against gdb.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dwarf/module.h"
#include "dwarf/symbolize.h"
#include "dwarf/symtab.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every build of the fixtures, by gcc and by clang-19 (fixtures.mk). */
static const char *const variants[] = { "O0",		"O2",		"O2fp",
					"O0-nopie",	"O2-nopie",	"clang-O0",
					"clang-O2",	"clang-O2fp",	"clang-O0-nopie",
					"clang-O2-nopie" };
#define N_VARIANTS (sizeof(variants) / sizeof(variants[0]))

/* Reported in full only up to this many per check, then counted. */
#define MAX_REPORTED 8
/* Deepest inline chain a test line may carry. */
#define MAX_FRAMES 24

static char tmpdir[64];

/* Shared by the gdb scripts: a function's parameters as gdb sees them,
 * "types\tnames": the function type's non-artificial parameter types
 * ("..." for varargs) and the names of the block's argument symbols
 * (artificial ones included; gdb cannot tell which they are).  In clang
 * builds (named "-clang-") the types are read from the printed function
 * type instead, whose artificial `this` comes first: gdb 13 garbles the
 * fields of some clang declarations (libstdc++'s char_traits<char>::copy)
 * and crashes when asked for them. */
static const char params_py[] =
	"import gdb, os\n"
	"def split_params(s):\n"
	"    # the parameter list: the first '(' outside template arguments that\n"
	"    # does not open a declarator group ('(*', '(&': a returned pointer)\n"
	"    angle, i = 0, 0\n"
	"    while i < len(s):\n"
	"        angle += {'<': 1, '>': -1}.get(s[i], 0)\n"
	"        if s[i] == '(' and angle == 0 and s[i + 1:].lstrip()[:1] not in ('*', '&'):\n"
	"            break\n"
	"        i += 1\n"
	"    out, cur, depth = [], '', 0\n"
	"    for ch in s[i + 1:]:\n"
	"        if depth == 0 and ch == ')':\n"
	"            break\n"
	"        depth += {'(': 1, '<': 1, ')': -1, '>': -1}.get(ch, 0)\n"
	"        if ch == ',' and depth == 0:\n"
	"            out.append(cur.strip())\n"
	"            cur = ''\n"
	"        else:\n"
	"            cur += ch\n"
	"    out.append(cur.strip())\n"
	"    return [t for t in out if t] if out != ['void'] else []\n"
	"CLANG = '-clang-' in os.path.basename(gdb.current_progspace().filename or '')\n"
	"def params(fn, blk):\n"
	"    names = [s.name for s in blk if s.is_argument] if blk is not None else []\n"
	"    if not CLANG:\n"
	"        types = [str(x.type) for x in fn.type.fields() if not x.artificial]\n"
	"        if str(fn.type).endswith('...)'):\n"
	"            types.append('...')\n"
	"    else:\n"
	"        types = split_params(str(fn.type))\n"
	"        if types and 'this' in names:\n"
	"            types = types[1:]\n"
	"    return '%s\\t%s' % (';'.join(types), ';'.join(names))\n";

/* Every pc of the main source file's line table: gdb's innermost line,
 * the entry pc of the physical function, and the chain of functions,
 * innermost first, each with its parameters
 * ("P\tpc\tfile\tline\tentry\tname\ttypes\tnames..."), and the range swept
 * ("R\tlo\thi").  Python cannot ask gdb whether a block is inlined; a
 * function block lying outside the next one up is a nested function (a
 * local class's method, a lambda), which ends the chain. */
static const char sweep_py[] =
	"lt = gdb.decode_line('main')[1][0].symtab.linetable()\n"
	"pcs = [e.pc for e in lt]\n"
	"lo, hi = min(pcs), max(pcs)\n"
	"print('R\\t%x\\t%x' % (lo, hi))\n"
	"for pc in range(lo, hi):\n"
	"    s = gdb.find_pc_line(pc)\n"
	"    b = gdb.block_for_pc(pc)\n"
	"    fns = []\n"
	"    while b is not None and not b.is_static and not b.is_global:\n"
	"        if b.function is not None:\n"
	"            fns.append(b)\n"
	"        b = b.superblock\n"
	"    chain = []\n"
	"    for i, fb in enumerate(fns):\n"
	"        chain.append('%s\\t%s' % (fb.function.print_name, params(fb.function, fb)))\n"
	"        up = fns[i + 1] if i + 1 < len(fns) else None\n"
	"        if up is not None and not (up.start <= fb.start and fb.end <= up.end):\n"
	"            break\n"
	"    f = os.path.basename(s.symtab.filename) if s.symtab else '-'\n"
	"    entry = int(fns[len(chain) - 1].function.value().address) if chain else 0\n"
	"    print('P\\t%x\\t%s\\t%d\\t%x\\t%s' % (pc, f, s.line, entry, '\\t'.join(chain)))\n";

/* Each frame of the live stack: Inline/Normal, pc, name, file, line and
 * parameters ("F\tI|N\tpc\tname\tfile\tline\ttypes\tnames"). */
static const char bt_py[] =
	"f = gdb.newest_frame()\n"
	"while f is not None:\n"
	"    sal = f.find_sal()\n"
	"    fn = f.function()\n"
	"    b = f.block() if fn is not None else None\n"
	"    while b is not None and b.function is None:\n"
	"        b = b.superblock\n"
	"    args = params(fn, b) if fn is not None else '\\t'\n"
	"    file = os.path.basename(sal.symtab.filename) if sal.symtab else '-'\n"
	"    kind = 'I' if f.type() == gdb.INLINE_FRAME else 'N'\n"
	"    print('F\\t%s\\t%x\\t%s\\t%s\\t%d\\t%s' % (kind, f.pc(), f.name(), file, sal.line, args))\n"
	"    f = f.older()\n";

/* gdb's `info symbol` for every pc in [lo, hi) (set by the caller). */
static const char syms_py[] =
	"import gdb\n"
	"for pc in range(lo, hi):\n"
	"    out = gdb.execute('info symbol 0x%x' % pc, to_string=True).strip()\n"
	"    print('S\\t%x\\t%s' % (pc, out))\n";

/* C spellings of types, compiled by the test (no fixture is C-only in
 * the ways that matter here) and swept like the fixtures.  Not run. */
static const char ctypes_c[] =
	"#include <emmintrin.h>\n"
	"struct point { int x, y; };\n"
	"union num { int i; double d; };\n"
	"enum color { RED, GREEN };\n"
	"typedef struct point point_t;\n"
	"typedef int (*binop_t)(int, int);\n"
	"typedef struct { int a; } anon_t;\n"
	"volatile int sink;\n"
	"static int add(int a, int b) { return a + b; }\n"
	"static int twice(int a) { return 2 * a; }\n"
	"static int (*pick(void))(int) { return twice; }\n"
	"static void nop(void) { sink++; }\n"
	"__attribute__((noinline)) int scalars(char c, unsigned short us, long long ll,\n"
	"    unsigned long ul, double d, float f, _Bool b, signed char sc)\n"
	"{ return c + us + (int)ll + (int)ul + (int)d + (int)f + b + sc; }\n"
	"__attribute__((noinline)) int pointers(const char *s, char *const *argv,\n"
	"    const volatile int *cv, void *p, const void *cp, char **restrict r, _Atomic int *at)\n"
	"{ return s[0] + argv[0][0] + *cv + (p == cp) + r[0][0] + *at; }\n"
	"__attribute__((noinline)) int aggregates(struct point pt, struct point *pp, union num *u,\n"
	"    enum color col, point_t *td, anon_t *an, const struct point *const cpp)\n"
	"{ return pt.x + pp->y + u->i + col + td->x + an->a + cpp->y; }\n"
	"__attribute__((noinline)) int arrays(int (*grid)[4], int m[2][3], char (*names)[8][16])\n"
	"{ return grid[0][1] + m[1][2] + names[0][1][2]; }\n"
	"__attribute__((noinline)) int functions(binop_t op, int (*raw)(int, int),\n"
	"    void (*cb)(void), int (*(*getter)(void))(int))\n"
	"{ cb(); return op(1, 2) + raw(3, 4) + getter()(5); }\n"
	"__attribute__((noinline)) int varargs(int n, ...) { return n; }\n"
	"__attribute__((noinline)) int vectors(__m128i a, __m128d b, long l, short s,\n"
	"    unsigned long long ull, long double ld)\n"
	"{ return _mm_cvtsi128_si32(a) + (int)_mm_cvtsd_f64(b) + (int)l + s + (int)ull + (int)ld; }\n"
	"__attribute__((noinline)) int knr(a, p) int a; char *p; { return a + *p; }\n"
	"int main(void)\n"
	"{\n"
	"    char *argv[] = { \"x\" }; char *r[] = { \"y\" }; _Atomic int at = 1;\n"
	"    struct point pt = { 1, 2 }; union num u = { 3 }; anon_t an = { 4 };\n"
	"    int grid[2][4] = { 0 }, m[2][3] = { 0 }; char names[1][8][16] = { 0 };\n"
	"    return scalars('a', 1, 2, 3, 4.0, 5.0f, 1, -1)\n"
	"        + pointers(\"s\", argv, &sink, &pt, &pt, r, &at)\n"
	"        + aggregates(pt, &pt, &u, GREEN, &pt, &an, &pt)\n"
	"        + arrays(grid, m, names) + functions(add, add, nop, pick)\n"
	"        + varargs(1, 2, 3) + knr(1, \"z\")\n"
	"        + vectors(_mm_set1_epi32(1), _mm_set1_pd(2.0), 3, 4, 5, 6.0L);\n"
	"}\n";

/* ---- helpers ---- */

static const char *fixtures_dir(void)
{
	const char *dir = getenv("WRAITH_FIXTURES");

	if (!dir || !*dir)
		fail_msg("WRAITH_FIXTURES is not set: run through `make check`, or set it to the "
			 "fixture directory (tests/fixtures/bin of the build tree)");
	return dir;
}

static char *fixture_path(const char *name, const char *variant)
{
	char *path = xasprintf("%s/%s-%s", fixtures_dir(), name, variant);

	if (access(path, R_OK) != 0)
		fail_msg("fixture %s is missing (build it with `make tests/fixtures/bin/.stamp`)", path);
	return path;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void write_script(const char *path, const char *prelude, const char *body)
{
	char *text = xasprintf("%s%s", prelude, body);

	write_file(path, text);
	free(text);
}

/* Run a shell command; its stdout and stderr land in @out. */
static void run(const char *cmd, struct strbuf *out)
{
	char buf[4096];
	size_t n;
	FILE *p = popen(cmd, "r");

	if (!p)
		fail_msg("cannot run %s: %s", cmd, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(out, buf, n);
	if (pclose(p) != 0)
		fail_msg("command failed: %s\n%s", cmd, out->buf);
}

/* Split @text into lines in place; returns the count. */
static size_t split(char *text, char sep, char **out, size_t max)
{
	size_t n = 0;

	while (text && n < max) {
		char *next = strchr(text, sep);

		if (next)
			*next++ = '\0';
		out[n++] = text;
		text = next;
	}
	return n;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static bool str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* gdb prints some C++ frames with their parameter list, some without;
 * wraith never includes it.  "ns::f(int) const" -> "ns::f", while
 * "X::operator()" stays and a clone suffix is kept:
 * "f(int) [clone .isra.0]" -> "f [clone .isra.0]". */
static char *strip_params(const char *name)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &" };
	const char *clone = strstr(name, " [clone ");
	size_t len = clone ? (size_t)(clone - name) : strlen(name);
	char *s = xstrndup(name, len), *r;
	int depth = 0;

	for (size_t i = 0; i < 4; i++) {
		size_t q = strlen(quals[i]);

		if (len > q && strcmp(s + len - q, quals[i]) == 0 && s[len - q - 1] == ')') {
			len -= q;
			s[len] = '\0';
			i = (size_t)-1;
		}
	}
	for (size_t i = len; len && s[len - 1] == ')' && i-- > 0;) {
		depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
		if (depth == 0) {
			if (!(i >= 8 && strncmp(s + i - 8, "operator", 8) == 0))
				s[i] = '\0';
			break;
		}
	}
	r = xasprintf("%s%s", s, clone ? clone : "");
	free(s);
	return r;
}

/* gdb names a template function's minimal symbol with its return type,
 * "int ns::apply<F>(F&&)"; its DWARF frames and wraith do not.  The last
 * space outside brackets before the first parenthesis ends a return type. */
static const char *strip_return_type(const char *name)
{
	static const char *const thunks[] = { "virtual thunk to ", "non-virtual thunk to ",
					      "covariant return thunk to " };
	const char *start = name;
	int depth = 0;

	/* a thunk's name is its words and its target's: no return type */
	for (size_t i = 0; i < sizeof(thunks) / sizeof(thunks[0]); i++)
		if (!strncmp(name, thunks[i], strlen(thunks[i])))
			return name;
	for (const char *p = name; *p && !(depth == 0 && *p == '('); p++) {
		depth += strchr("<([{", *p) ? 1 : strchr(">)]}", *p) ? -1 : 0;
		if (depth == 0 && *p == ' ' && !(p - name >= 8 && strncmp(p - 8, "operator", 8) == 0))
			start = p + 1;
	}
	return start;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '#';
}

/* The last place @name stands alone as an identifier in @text. */
static const char *find_ident(const char *text, const char *name)
{
	const char *found = NULL;
	size_t n = strlen(name);

	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
		if ((p == text || !ident_char(p[-1])) && !ident_char(p[n]))
			found = p;
	return found;
}

/* "int (*op)(int)" less the parameter name, as gdb prints the type:
 * "int (*)(int)". */
static char *drop_name(const char *piece, char **names, size_t n_names)
{
	struct strbuf sb = STRBUF_INIT;
	const char *at = NULL;
	size_t len = 0;

	for (size_t i = 0; i < n_names; i++) {
		const char *p = find_ident(piece, names[i]);

		if (p && strlen(names[i]) > len) {
			at = p;
			len = strlen(names[i]);
		}
	}
	if (!at)
		return xstrdup(piece);
	strbuf_add(&sb, piece, (size_t)(at - piece));
	strbuf_addstr(&sb, at + len);
	while (sb.len && sb.buf[sb.len - 1] == ' ')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb);
}

/* Split a parameter list at its top-level commas. */
static size_t split_params(char *params, char **out, size_t max)
{
	size_t n = 0;
	int depth = 0;
	char *start = params;

	if (!*params)
		return 0;
	for (char *p = params; *p && n < max; p++) {
		depth += strchr("(<[", *p) ? 1 : strchr(")>]", *p) ? -1 : 0;
		if (depth == 0 && p[0] == ',' && p[1] == ' ') {
			*p = '\0';
			out[n++] = start;
			start = p + 2;
		}
	}
	if (n < max)
		out[n++] = start;
	return n;
}

/* The gdb argument names that must appear in our parameter list: all
 * but the artificial ones GCC names (gdb cannot tell us which). */
static bool artificial_name(const char *name)
{
	/* gcc's, and clang's VTT parameter of a constructor of a class with
	 * a virtual base (artificial in the DWARF, not to gdb's python) */
	static const char *const gcc_names[] = { "this", "__closure", "__in_chrg", "__vtt_parm", "vtt" };

	for (size_t i = 0; i < sizeof(gcc_names) / sizeof(gcc_names[0]); i++)
		if (strcmp(name, gcc_names[i]) == 0)
			return true;
	return false;
}

/* Whether one of @types (not yet @used) equals @type; marks it used. */
static bool take_type(char **types, bool *used, size_t n, const char *type)
{
	for (size_t i = 0; i < n; i++) {
		if (!used[i] && strcmp(types[i], type) == 0) {
			used[i] = true;
			return true;
		}
	}
	return false;
}

/* Our "type name, ..." against gdb's parameter types and the names of its
 * argument symbols.  Two gdb habits are allowed for:
 *  - an optimized function's parameters come in the order of its concrete
 *    DWARF instance, which GCC may shuffle; we keep the source order, so
 *    unless @ordered any order matches;
 *  - reading a function's own DIE, gdb leaves out the members of a
 *    template parameter pack, which we list (unnamed, as DWARF has them);
 *    so we may have extra unnamed parameters;
 *  - gdb 13 builds the type of some clang-inlined functions without the
 *    parameters that follow the first (its block still has them all):
 *    when gdb has fewer types than named arguments, a parameter gdb names
 *    is checked by its name alone.
 * The disagreement, if any, goes to @why. */
static void check_params(const char *params, char *gdb_types, char *gdb_names, bool ordered,
			 struct strbuf *why)
{
	char *mine = xstrdup(params ? params : "");
	char *gdb_names_all = xstrdup(gdb_names);
	char *pieces[32], *types[32], *names[32];
	bool used[32] = { false };
	size_t n = split_params(mine, pieces, 32);
	size_t nt = *gdb_types ? split(gdb_types, ';', types, 32) : 0;
	size_t nn = *gdb_names ? split(gdb_names, ';', names, 32) : 0;
	size_t real_names = 0;

	for (size_t i = 0; i < nn; i++)
		real_names += !artificial_name(names[i]);
	if (!params)
		strbuf_addstr(why, "params unknown; ");
	for (size_t i = 0; params && i < n; i++) {
		char *type = drop_name(pieces[i], names, nn);
		bool named = strcmp(type, pieces[i]) != 0;

		bool matched;

		if (ordered)
			matched = i < nt && strcmp(types[i], type) == 0 && (used[i] = true);
		else
			matched = take_type(types, used, nt, type);
		if (!matched && named && nt < real_names)
			matched = true; /* gdb's type lost it */
		if (!matched && (named || (ordered && i < nt)))
			strbuf_addf(why, "param '%s' (type '%s') not among gdb's; ", pieces[i], type);
		free(type);
	}
	for (size_t i = 0; params && i < nt; i++)
		if (!used[i] && !(strcmp(types[i], "void **") == 0 && find_ident(gdb_names_all, "vtt")))
			strbuf_addf(why, "gdb's param type '%s' missing; ", types[i]);
	for (size_t i = 0; params && i < nn; i++)
		if (!artificial_name(names[i]) && !find_ident(params, names[i]))
			strbuf_addf(why, "no parameter '%s'; ", names[i]);
	free(mine);
	free(gdb_names_all);
}

static void report(size_t *bad, const char *what, const char *path, uint64_t pc,
		   const char *why)
{
	if (++*bad <= MAX_REPORTED)
		print_message("%s: %s pc %#" PRIx64 ": %s\n", what, path, pc, why);
}

/* ---- setup ---- */

static int setup(void **state)
{
	char path[128];

	strcpy(tmpdir, "/tmp/test_symbolize.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/sweep.py", tmpdir);
	write_script(path, params_py, sweep_py);
	snprintf(path, sizeof(path), "%s/bt.py", tmpdir);
	write_script(path, params_py, bt_py);
	snprintf(path, sizeof(path), "%s/syms.py", tmpdir);
	write_file(path, syms_py);
	return 0;
}

static int teardown(void **state)
{
	struct strbuf out = STRBUF_INIT;
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);

	run(cmd, &out);
	free(cmd);
	strbuf_release(&out);
	return 0;
}

static struct dw_module *open_module(const char *path)
{
	struct dw_module *m = NULL;

	assert_int_equal(dw_module_open(path, &m), 0);
	return m;
}

static struct dw_sym symbolize(struct dw_module *m, uint64_t pc)
{
	struct dw_sym s = { 0 };

	assert_int_equal(dw_symbolize(m, pc, &s), 0);
	assert_true(s.n >= 1);
	assert_non_null(s.frames);
	return s;
}

/* ---- static sweep ---- */

/* One "P" line of sweep.py against dw_symbolize; the disagreement, if
 * any, goes to @why.  @ordered: gdb lists parameters in source order. */
static void check_sweep_line(struct dw_module *m, char *line, bool ordered, uint64_t *pc,
			     struct strbuf *why)
{
	char *f[3 * MAX_FRAMES + 6];
	size_t n = split(line, '\t', f, 3 * MAX_FRAMES + 6);
	size_t chain = n > 5 && *f[5] ? (n - 5) / 3 : 0;
	uint64_t entry;
	struct dw_sym s;

	assert_true(n >= 5);
	*pc = strtoull(f[1], NULL, 16);
	entry = strtoull(f[4], NULL, 16);
	s = symbolize(m, *pc);
	if (chain == 0) {
		if (s.n != 1 || s.frames[0].inlined)
			strbuf_addf(why, "gdb knows no function, we give %zu frames", s.n);
		return;
	}
	if (s.n != chain) {
		strbuf_addf(why, "%zu frames ('%s' innermost), gdb %zu ('%s')", s.n,
			    s.frames[0].function, chain, f[5]);
		return;
	}
	for (size_t i = 0; i < chain; i++) {
		char *want = strip_params(f[5 + 3 * i]);

		if (!str_eq(s.frames[i].function, want))
			strbuf_addf(why, "frame %zu '%s', gdb '%s'; ", i, s.frames[i].function, want);
		if (s.frames[i].inlined != (i + 1 < chain))
			strbuf_addf(why, "frame %zu inlined=%d; ", i, s.frames[i].inlined);
		/* every frame carries the physical function's offset; a .cold
		 * part below the entry counts from its own start */
		if (*pc >= entry && s.frames[i].sym_offset != *pc - entry)
			strbuf_addf(why, "frame %zu offset %#" PRIx64 ", gdb entry %#" PRIx64 "; ", i,
				    s.frames[i].sym_offset, entry);
		check_params(s.frames[i].params, f[6 + 3 * i], f[7 + 3 * i], ordered, why);
		free(want);
	}
	if (strcmp(f[2], "-") != 0 && (!str_eq(base_name(s.frames[0].file), f[2]) ||
				       s.frames[0].line != strtoul(f[3], NULL, 10)))
		strbuf_addf(why, "at %s:%u, gdb %s:%s", base_name(s.frames[0].file),
			    s.frames[0].line, f[2], f[3]);
}

/* Runs sweep.py on @path; gdb's output lands in @out. */
static void gdb_sweep(const char *path, struct strbuf *out)
{
	char *cmd = xasprintf("gdb -batch -nx -ex 'source %s/sweep.py' '%s' 2>&1 </dev/null",
			      tmpdir, path);

	run(cmd, out);
	free(cmd);
}

/* The pc range swept for @path (its main source file's line table). */
static void sweep_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	struct strbuf out = STRBUF_INIT;
	const char *r;
	unsigned long long a, b;

	gdb_sweep(path, &out);
	r = strstr(out.buf, "R\t");
	if (!r || sscanf(r, "R\t%llx\t%llx", &a, &b) != 2)
		fail_msg("no pc range from gdb for %s:\n%s", path, out.buf);
	*lo = a;
	*hi = b;
	strbuf_release(&out);
}

/* Every pc gdb sweeps in @path against dw_symbolize; adds to @bad. */
static void sweep_path(const char *path, size_t *bad)
{
	struct dw_module *m = open_module(path);
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	bool ordered = strstr(base_name(path), "-O0") != NULL;
	size_t checked = 0;

	gdb_sweep(path, &out);
	for (char *line = out.buf, *next; line; line = next) {
		uint64_t pc;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "P\t", 2) != 0)
			continue;
		strbuf_reset(&why);
		check_sweep_line(m, line, ordered, &pc, &why);
		checked++;
		if (why.len)
			report(bad, "sweep", path, pc, why.buf);
	}
	if (checked < 50)
		fail_msg("gdb swept only %zu pcs of %s:\n%s", checked, path, out.buf);
	strbuf_release(&why);
	strbuf_release(&out);
	dw_module_free(m);
}

static void sweep_fixture(const char *name)
{
	size_t bad = 0;

	for (size_t v = 0; v < N_VARIANTS; v++) {
		char *path = fixture_path(name, variants[v]);

		sweep_path(path, &bad);
		free(path);
	}
	assert_int_equal(bad, 0);
}

static void test_sweep_chain(void **state)
{
	sweep_fixture("chain");
}

static void test_sweep_inline(void **state)
{
	sweep_fixture("inline");
}

static void test_sweep_cxx(void **state)
{
	sweep_fixture("cxx");
}

/* ---- live backtrace ---- */

struct gdb_frame {
	bool inlined;
	uint64_t pc;
	char *name, *file, *types, *names;
	unsigned line;
};

struct gdb_bt {
	struct gdb_frame frames[64];
	size_t n;
	uint64_t map_start, map_offset; /* first mapping of the fixture */
	bool mapped;
	bool ordered; /* an -O0 build: gdb lists parameters in source order */
};

static void parse_bt_line(struct gdb_bt *bt, char *line, const char *path)
{
	char *f[9];
	char map_path[4096];
	unsigned long long start, end, size, offset;

	if (strncmp(line, "F\t", 2) == 0 && bt->n < 64) {
		struct gdb_frame *g = &bt->frames[bt->n++];

		assert_int_equal(split(line, '\t', f, 9), 8);
		*g = (struct gdb_frame){ .inlined = f[1][0] == 'I', .pc = strtoull(f[2], NULL, 16),
					 .name = f[3], .file = f[4],
					 .line = (unsigned)strtoul(f[5], NULL, 10),
					 .types = f[6], .names = f[7] };
		return;
	}
	if (!bt->mapped && sscanf(line, " 0x%llx 0x%llx 0x%llx 0x%llx %*s %4095s", &start, &end,
				  &size, &offset, map_path) == 5 &&
	    strcmp(base_name(map_path), base_name(path)) == 0) {
		bt->map_start = start;
		bt->map_offset = offset;
		bt->mapped = true;
	}
}

/* Frames @first..@last of gdb (inline frames then their physical frame)
 * against dw_symbolize of the group's pc. */
static void check_bt_group(struct dw_module *m, struct gdb_bt *bt, size_t first, size_t last,
			   uint64_t pc, struct strbuf *why)
{
	struct dw_sym s = symbolize(m, pc);

	if (s.n != last - first + 1) {
		strbuf_addf(why, "%zu frames ('%s'), gdb %zu ('%s')", s.n, s.frames[0].function,
			    last - first + 1, bt->frames[first].name);
		return;
	}
	for (size_t k = 0; k < s.n; k++) {
		struct gdb_frame *g = &bt->frames[first + k];
		const struct dw_sym_frame *f = &s.frames[k];
		char *want = strip_params(g->name);

		if (!str_eq(f->function, want))
			strbuf_addf(why, "frame %zu '%s', gdb '%s'; ", first + k, f->function, want);
		if (f->inlined != g->inlined)
			strbuf_addf(why, "frame %zu inlined=%d; ", first + k, f->inlined);
		if (!str_eq(base_name(f->file), g->file) || f->line != g->line)
			strbuf_addf(why, "frame %zu at %s:%u, gdb %s:%u; ", first + k,
				    base_name(f->file), f->line, g->file, g->line);
		check_params(f->params, g->types, g->names, bt->ordered, why);
		free(want);
	}
}

static void run_bt(const char *path, struct strbuf *out, struct gdb_bt *bt)
{
	char *cmd = xasprintf("gdb -batch -nx -ex 'break leaf' -ex 'run 1 5' -ex 'source %s/bt.py' "
			      "-ex 'info proc mappings' -ex kill '%s' 2>&1 </dev/null",
			      tmpdir, path);

	run(cmd, out);
	free(cmd);
	for (char *line = out->buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		parse_bt_line(bt, line, path);
	}
}

/* Returns the number of inline frames gdb showed. */
static size_t bt_variant(const char *path, size_t *bad)
{
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	struct gdb_bt *bt = xcalloc(1, sizeof(*bt));
	struct dw_module *m = open_module(path);
	uint64_t vaddr, bias;
	size_t inlined = 0;

	bt->ordered = strstr(base_name(path), "-O0") != NULL;
	run_bt(path, &out, bt);
	if (bt->n < 4 || !bt->mapped)
		fail_msg("no backtrace or mapping from gdb for %s", path);
	assert_int_equal(dw_module_offset_to_vaddr(m, bt->map_offset, &vaddr), 0);
	bias = bt->map_start - vaddr;
	for (size_t first = 0, last; first < bt->n; first = last + 1) {
		/* callers are looked up at return address - 1, like gdb */
		uint64_t pc;

		for (last = first; last + 1 < bt->n && bt->frames[last].inlined; last++)
			inlined++;
		pc = bt->frames[last].pc - bias - (first > 0);
		strbuf_reset(&why);
		check_bt_group(m, bt, first, last, pc, &why);
		if (why.len)
			report(bad, "backtrace", path, pc, why.buf);
	}
	dw_module_free(m);
	free(bt);
	strbuf_release(&why);
	strbuf_release(&out);
	return inlined;
}

static size_t bt_fixture(const char *name)
{
	size_t bad = 0, inlined = 0;

	for (size_t v = 0; v < N_VARIANTS; v++) {
		char *path = fixture_path(name, variants[v]);

		inlined += bt_variant(path, &bad);
		free(path);
	}
	assert_int_equal(bad, 0);
	return inlined;
}

static void test_backtrace_chain(void **state)
{
	bt_fixture("chain");
}

static void test_backtrace_inline(void **state)
{
	/* the point of this fixture: gdb shows inline frames, and so do we */
	assert_true(bt_fixture("inline") > 0);
}

static void test_backtrace_cxx(void **state)
{
	bt_fixture("cxx");
}

/* ---- C types, from a program built here ---- */

static void test_sweep_c_types(void **state)
{
	static const char *const opts[] = { "O0", "O2" };
	char *src = xasprintf("%s/ctypes.c", tmpdir);
	size_t bad = 0;

	write_file(src, ctypes_c);
	for (size_t i = 0; i < 2; i++) {
		struct strbuf out = STRBUF_INIT;
		char *bin = xasprintf("%s/ctypes-%s", tmpdir, opts[i]);
		char *cmd = xasprintf("cc -g -%s -w -o '%s' '%s' 2>&1", opts[i], bin, src);

		run(cmd, &out);
		sweep_path(bin, &bad);
		strbuf_release(&out);
		free(cmd);
		free(bin);
	}
	assert_int_equal(bad, 0);
	free(src);
}

/* ---- columns, from llvm-symbolizer ---- */

/* One address of llvm-symbolizer --inlining output (pairs of "function"
 * and "file:line:col" lines, innermost first, up to a blank line) against
 * dw_symbolize.  gdb shows no columns; llvm-symbolizer picks the same rows
 * as gdb except where several rows share an address and the last is not
 * a statement, so the innermost row is compared only when @innermost, and
 * except for line-0 rows, which gdb skips. */
static char *check_llvm_pc(struct dw_module *m, uint64_t pc, char *text, bool innermost,
			   struct strbuf *why)
{
	struct dw_sym s = symbolize(m, pc);
	size_t k = 0;

	while (text && *text && *text != '\n') {
		char *pos = strchr(text, '\n'), *end, *c1, *c2;

		assert_non_null(pos);
		end = strchr(++pos, '\n');
		assert_non_null(end);
		*end = '\0';
		c2 = strrchr(pos, ':');
		*c2 = '\0';
		c1 = strrchr(pos, ':');
		assert_non_null(c1);
		/* clang's line-0 rows: gdb (and so we) ignore them */
		if (k < s.n && (innermost || k > 0) && strcmp(pos, "??") != 0 &&
		    strtoul(c1 + 1, NULL, 10) != 0 &&
		    (s.frames[k].line != strtoul(c1 + 1, NULL, 10) ||
		     s.frames[k].col != strtoul(c2 + 1, NULL, 10)))
			strbuf_addf(why, "frame %zu at %u:%u, llvm %s:%s; ", k, s.frames[k].line,
				    s.frames[k].col, c1 + 1, c2 + 1);
		k++;
		text = end + 1;
	}
	if (k != s.n)
		strbuf_addf(why, "%zu frames, llvm %zu", s.n, k);
	return text && *text == '\n' ? text + 1 : text;
}

static void columns_variant(const char *path, size_t *bad)
{
	struct strbuf addrs = STRBUF_INIT, out = STRBUF_INIT, why = STRBUF_INIT;
	char *list = xasprintf("%s/addresses", tmpdir), *cmd, *text;
	struct dw_module *m = open_module(path);
	bool innermost = strstr(base_name(path), "-O0") != NULL;
	uint64_t lo, hi;

	sweep_range(path, &lo, &hi);
	for (uint64_t pc = lo; pc < hi; pc++)
		strbuf_addf(&addrs, "%#" PRIx64 "\n", pc);
	write_file(list, addrs.buf);
	cmd = xasprintf("s=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer) || "
			"{ echo 'no llvm-symbolizer'; exit 1; }; "
			"\"$s\" --inlining --obj='%s' < '%s'", path, list);
	run(cmd, &out);
	text = out.buf;
	for (uint64_t pc = lo; pc < hi; pc++) {
		if (!text || !*text)
			fail_msg("llvm-symbolizer stopped before %#" PRIx64 " of %s", pc, path);
		strbuf_reset(&why);
		text = check_llvm_pc(m, pc, text, innermost, &why);
		if (why.len)
			report(bad, "columns", path, pc, why.buf);
	}
	dw_module_free(m);
	strbuf_release(&addrs);
	strbuf_release(&out);
	strbuf_release(&why);
	free(cmd);
	free(list);
}

static void test_columns(void **state)
{
	static const char *const fixtures[] = { "chain", "inline", "cxx" };
	size_t bad = 0;

	for (size_t i = 0; i < 3; i++) {
		for (size_t v = 0; v < N_VARIANTS; v++) {
			char *path = fixture_path(fixtures[i], variants[v]);

			columns_variant(path, &bad);
			free(path);
		}
	}
	assert_int_equal(bad, 0);
}

/* ---- stripped copies ---- */

/* gdb's demangled minimal symbol name as wraith spells it: no return
 * type, no parameters.  A function returning a function pointer or
 * reference reads "int (* const&ns::f<T>(T&))(int)": the name sits inside
 * the declarator. */
static char *symbol_name(const char *gdb_name)
{
	char *name = strip_params(strip_return_type(gdb_name));
	size_t len = strlen(name);

	while (len > 3 && name[0] == '(' && strspn(name + 1, "*&") > 0 && name[len - 1] == ')') {
		size_t ptr = 1;
		char *inner;

		for (size_t skip = 1; skip;) {
			skip = strspn(name + ptr, "*& ");
			skip += strncmp(name + ptr + skip, "const", 5) == 0 ? 5 : 0;
			skip += strncmp(name + ptr + skip, "volatile", 8) == 0 ? 8 : 0;
			ptr += skip;
		}
		inner = xstrndup(name + ptr, len - ptr - 1);

		free(name);
		name = strip_params(inner);
		free(inner);
		len = strlen(name);
	}
	return name;
}

/* "NAME + OFF in section S" / "NAME in section S" / "No symbol matches". */
static void check_symbol_line(struct dw_module *m, char *line, uint64_t *pc, struct strbuf *why)
{
	char *f[3], *cut, *name = NULL;
	uint64_t off = 0;
	struct dw_sym s;

	assert_int_equal(split(line, '\t', f, 3), 3);
	*pc = strtoull(f[1], NULL, 16);
	s = symbolize(m, *pc);
	cut = strstr(f[2], " in section ");
	if (cut) {
		char *plus = NULL;

		*cut = '\0';
		for (char *p = strstr(f[2], " + "); p; p = strstr(p + 1, " + "))
			plus = p;
		if (plus) {
			*plus = '\0';
			off = strtoull(plus + 3, NULL, 10);
		}
		name = symbol_name(f[2]);
	}
	if (s.n != 1 || s.frames[0].inlined || s.frames[0].file || s.frames[0].line ||
	    s.frames[0].col || s.frames[0].params)
		strbuf_addf(why, "%zu frames, file %s, line %u, params %s", s.n, s.frames[0].file,
			    s.frames[0].line, s.frames[0].params);
	if (name ? !str_eq(s.frames[0].function, name) : s.frames[0].function != NULL)
		strbuf_addf(why, "'%s', gdb '%s'; ", s.frames[0].function, name);
	if (s.frames[0].sym_offset != off)
		strbuf_addf(why, "offset %" PRIu64 ", gdb %" PRIu64, s.frames[0].sym_offset, off);
	free(name);
}

/* Strip @name-@variant with @how ("-g", "--strip-all") and compare every
 * pc of its code with gdb's `info symbol` on the copy.  Returns how many
 * pcs gdb named. */
static size_t stripped_variant(const char *name, const char *variant, const char *how)
{
	char *path = fixture_path(name, variant);
	char *copy = xasprintf("%s/%s-%s%s", tmpdir, name, variant, how);
	char *cmd = xasprintf("strip %s -o '%s' '%s' 2>&1", how, copy, path);
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	struct dw_module *m;
	size_t bad = 0, named = 0, checked = 0;
	uint64_t lo, hi;

	run(cmd, &out);
	free(cmd);
	sweep_range(path, &lo, &hi);
	cmd = xasprintf("gdb -batch -nx -ex 'python lo=%#" PRIx64 "; hi=%#" PRIx64 "' "
			"-ex 'source %s/syms.py' '%s' 2>&1 </dev/null", lo, hi, tmpdir, copy);
	strbuf_reset(&out);
	run(cmd, &out);
	m = open_module(copy);
	assert_false(dw_module_has_dwarf(m));
	for (char *line = out.buf, *next; line; line = next) {
		uint64_t pc;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "S\t", 2) != 0)
			continue;
		named += strstr(line, " in section ") != NULL;
		checked++;
		strbuf_reset(&why);
		check_symbol_line(m, line, &pc, &why);
		if (why.len)
			report(&bad, how, copy, pc, why.buf);
	}
	assert_true(checked > 50);
	assert_int_equal(bad, 0);
	dw_module_free(m);
	strbuf_release(&why);
	strbuf_release(&out);
	free(cmd);
	free(copy);
	free(path);
	return named;
}

static void test_symbol_fallback(void **state)
{
	static const char *const fixtures[] = { "chain", "inline", "cxx" };

	for (size_t i = 0; i < 3; i++) {
		assert_true(stripped_variant(fixtures[i], "O2", "-g") > 50);
		assert_true(stripped_variant(fixtures[i], "O0-nopie", "-g") > 50);
	}
}

static void test_nothing_known(void **state)
{
	assert_int_equal(stripped_variant("chain", "O0", "--strip-all"), 0);
	assert_int_equal(stripped_variant("cxx", "O2-nopie", "--strip-all"), 0);
}

/* ---- demangling ---- */

static void test_demangle(void **state)
{
	char *path = fixture_path("cxx", "O0");
	char *cmd = xasprintf("nm --defined-only '%s' | awk '$3 ~ /^_Z/ { print $3 }'", path);
	struct strbuf names = STRBUF_INIT, want = STRBUF_INIT;
	char *list = xasprintf("%s/mangled", tmpdir), *a[256], *b[256], *d;
	size_t n;

	run(cmd, &names);
	free(cmd);
	write_file(list, names.buf);
	cmd = xasprintf("c++filt < '%s'", list);
	run(cmd, &want);
	n = split(names.buf, '\n', a, 256);
	assert_int_equal(split(want.buf, '\n', b, 256), n);
	assert_true(n > 20);
	for (size_t i = 0; i < n; i++) {
		d = dw_demangle(a[i], true);
		if (*a[i]) {
			assert_non_null(d);
			assert_string_equal(d, b[i]);
		}
		free(d);
	}
	assert_null(dw_demangle("leaf", true));
	d = dw_demangle("_ZN2ns5Klass6methodEi", false);
	assert_string_equal(d, "ns::Klass::method");
	free(d);
	d = dw_demangle("_ZN2ns5Klass6methodEi", true);
	assert_string_equal(d, "ns::Klass::method(int)");
	free(d);
	assert_null(dw_demangle("main", false));
	assert_null(dw_demangle("", true));
	strbuf_release(&names);
	strbuf_release(&want);
	free(cmd);
	free(list);
	free(path);
}

/* ---- the cache ---- */

static void test_cache_shares_results(void **state)
{
	char *path = fixture_path("inline", "O0");
	struct dw_module *m = open_module(path);
	struct dw_sym first, again, other;
	uint64_t lo, hi, pc = 0;

	sweep_range(path, &lo, &hi);
	/* a pc whose function also holds the next pc */
	for (uint64_t p = lo; p + 1 < hi && !pc; p++) {
		struct dw_sym a = symbolize(m, p), b = symbolize(m, p + 1);

		if (a.frames[a.n - 1].function && b.frames[b.n - 1].function &&
		    strcmp(a.frames[a.n - 1].function, b.frames[b.n - 1].function) == 0)
			pc = p;
	}
	assert_int_not_equal(pc, 0);
	first = symbolize(m, pc);
	other = symbolize(m, pc + 1);
	/* interned: one string per name */
	assert_ptr_equal(first.frames[first.n - 1].function, other.frames[other.n - 1].function);
	/* growing the cache moves no result */
	for (uint64_t p = 0; p < 20000; p++)
		symbolize(m, lo + p % (hi - lo) + (p / (hi - lo)) * 0x100000);
	again = symbolize(m, pc);
	assert_ptr_equal(again.frames, first.frames);
	assert_int_equal(again.n, first.n);
	dw_module_free(m);
	free(path);
}

/* gdb's names of plain (not C++-mangled) symbols: a program defines a
 * variable under each name below, gdb prints a pointer to each from the
 * built file, and dw_symbol_decoded_name() (or the name as it is, when
 * it declines) must give the name gdb shows between < and >. */
static void test_decoded_names(void **state)
{
	static const char *const names[] = {
		"o.1", "counted.0", "counter.lto_priv.0", "a.b", "a.b.c", "foo.cold", "a.b.0", "a.12",
		"a.b_c", "a.bC", "A.b", "worker_loop.o", "a.b.1.c", "a.1b", "x.yz9", "Foo_bar.baz",
		"countB", "statsTB", "stateTKB", "x__y", "a$5", "x___y", "x___Xab", "x__B_12__y",
		"q.b.TB", "abc_N__d", "xy_E12s", "x_E12sy", "a__5", "a_5", "countN", "countP",
		"count1N", "q__5x", "xTK__y", "k__B_1x", "ab9__", "__x", "a.b__c", "x..c", "plain",
		"foo.part.0", "_private.1",
	};
	size_t n = sizeof(names) / sizeof(names[0]);
	struct strbuf src = STRBUF_INIT, out = STRBUF_INIT, got = STRBUF_INIT;
	char *c = xasprintf("%s/decoded.c", tmpdir), *bin = xasprintf("%s/decoded", tmpdir), *cmd, *lines[64];

	(void)state;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&src, "static int v%zu __asm__(\"%s\") __attribute__((used)) = 1;\nint *p%zu = &v%zu;\n",
			    i, names[i], i, i);
	strbuf_addstr(&src, "int main(void) { return 0; }\n");
	write_file(c, src.buf);
	cmd = xasprintf("cc -g -O0 -o '%s' '%s'", bin, c);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	strbuf_reset(&src);
	strbuf_addstr(&src, "gdb -batch -nx");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&src, " -ex 'print p%zu'", i);
	strbuf_addf(&src, " '%s' 2>/dev/null | sed -n 's/^\\$[0-9]* = .*<\\(.*\\)>$/\\1/p'", bin);
	run(src.buf, &out);
	/* one line per name, then the empty rest after the last newline */
	assert_int_equal(split(out.buf, '\n', lines, 64), n + 1);
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&got);
		if (!dw_symbol_decoded_name(names[i], &got))
			strbuf_addstr(&got, names[i]);
		if (strcmp(got.buf, lines[i]))
			fail_msg("%s: gdb shows <%s>, wraith <%s>", names[i], lines[i], got.buf);
	}
	strbuf_release(&src);
	strbuf_release(&out);
	strbuf_release(&got);
	free(c);
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_sweep_chain),
		cmocka_unit_test(test_sweep_inline),
		cmocka_unit_test(test_sweep_cxx),
		cmocka_unit_test(test_sweep_c_types),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_backtrace_chain),
		cmocka_unit_test(test_backtrace_inline),
		cmocka_unit_test(test_backtrace_cxx),
		cmocka_unit_test(test_symbol_fallback),
		cmocka_unit_test(test_nothing_known),
		cmocka_unit_test(test_cache_shares_results),
		cmocka_unit_test(test_decoded_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
