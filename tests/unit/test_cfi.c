/* test_cfi.c - unwind/cfi.c against binutils as the oracle.
 *
 * For every FDE that `readelf --debug-dump=frames-interp` prints, the rule
 * cfi_table_lookup() finds at each readelf row's first pc and at a pc
 * inside the row must say what readelf's CFA, ra and rbp columns say,
 * translated by the rules at the top of cfi.c.  The interpreted view loses
 * two facts, so the plain `--debug-dump=frames` listing of the same entries
 * is read as well: which expression an "exp" CFA is, and whether a "u"
 * column means DW_CFA_undefined or merely "not set yet" (readelf prints
 * both as "u").  The binaries: every build of the chain and cfi_* fixtures,
 * libc, programs built here without CFI or with .debug_frame only (also
 * moved to a separate, compressed debug file), and the hand-written
 * tests/unit/data/cfi/synthetic.s, which also has a golden dump.
 * WRAITH_CFI_BENCH=1 adds the libLLVM extraction benchmark.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dwarf/module.h"
#include "unwind/cfi.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_REPORTED 10
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBLLVM "/usr/lib/x86_64-linux-gnu/libLLVM-19.so"

static char tmpdir[64];

/* ======================================================================
 * Helpers
 * ====================================================================== */

/* Run a shell command; its stdout goes to @out (may be NULL).  Returns the
 * exit status, or -1. */
static int run(const char *cmd, struct strbuf *out)
{
	char buf[65536];
	size_t n;
	FILE *p = popen(cmd, "r");
	int st;

	if (!p)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		if (out)
			strbuf_add(out, buf, n);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int runf(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	st = run(cmd, NULL);
	if (st != 0)
		print_message("command failed (%d): %s\n", st, cmd);
	free(cmd);
	return st;
}

static const char *env_dir(const char *name)
{
	const char *d = getenv(name);

	if (!d || !*d)
		fail_msg("%s is not set: run this test through `make check`", name);
	return d;
}

/* A module with its rows. */
struct loaded {
	struct dw_module *m;
	struct cfi_rules rules;
	struct cfi_table t;
	int err;
};

static void load(struct loaded *l, const char *path)
{
	int err = dw_module_open(path, &l->m);

	if (err)
		fail_msg("cannot open %s: %d", path, err);
	cfi_rules_init(&l->rules);
	cfi_table_init(&l->t);
	l->err = cfi_table_extract(l->m, &l->rules, &l->t);
}

static void unload(struct loaded *l)
{
	cfi_table_release(&l->t);
	cfi_rules_release(&l->rules);
	dw_module_free(l->m);
}

/* The rule covering @pc, or NULL. */
static const struct wr_cfi_rule *rule_at(const struct loaded *l, uint64_t pc)
{
	long i = cfi_table_lookup(&l->t, pc);

	return i < 0 ? NULL : &l->rules.v[l->t.rows[i].rule];
}

struct sym {
	uint64_t addr, size;
	char type;
	char name[64];
};

/* The symbols of the last file asked for: nm is slow on a busy machine. */
static struct {
	char *path;
	struct sym *v;
	size_t n;
} symcache;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void symcache_release(void)
{
	free(symcache.path);
	free(symcache.v);
	memset(&symcache, 0, sizeof(symcache));
}

/* The defined symbols of @path by address.  Borrowed until the next call. */
static const struct sym *symbols(const char *path, size_t *n)
{
	struct strbuf out = STRBUF_INIT;
	char *cmd;
	size_t cap = 0;

	if (!symcache.path || strcmp(symcache.path, path) != 0) {
		symcache_release();
		symcache.path = xstrdup(path);
		cmd = xasprintf("nm -S --defined-only '%s'", path);
		assert_int_equal(run(cmd, &out), 0);
		for (char *line = strtok(out.buf, "\n"); line; line = strtok(NULL, "\n")) {
			struct sym s = { 0 };

			if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %63s", &s.addr, &s.size, &s.type,
				   s.name) != 4 &&
			    sscanf(line, "%" SCNx64 " %c %63s", &s.addr, &s.type, s.name) != 3)
				continue;
			symcache.v = xgrow(symcache.v, &cap, symcache.n + 1, sizeof(s));
			symcache.v[symcache.n++] = s;
		}
		qsort(symcache.v, symcache.n, sizeof(struct sym), cmp_sym);
		free(cmd);
		strbuf_release(&out);
	}
	*n = symcache.n;
	return symcache.v;
}

/* [lo, hi) of function @name; false when absent. */
static bool sym_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	size_t n;
	const struct sym *v = symbols(path, &n);

	*lo = *hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0) {
			*lo = v[i].addr;
			*hi = v[i].addr + v[i].size;
			return true;
		}
	}
	return false;
}

/* ======================================================================
 * The readelf oracle
 * ====================================================================== */

enum { SEC_EH, SEC_DEBUG, SEC_OTHER };

/* One CIE or FDE as both listings describe it. */
struct entry {
	int sec;
	unsigned long off;
	unsigned long cie;         /* FDE: offset of its CIE */
	const struct entry *cie_ent; /* FDE: its CIE, once parsing is done */
	bool is_cie;
	unsigned long lo, hi;      /* FDE */
	bool signal;               /* CIE augmentation has 'S' */
	size_t row0, n_rows;       /* rows printed for it */
	/* from the raw listing */
	bool undef_rbp, undef_ra;
	int n_deref, n_other_exp;  /* DW_CFA_def_cfa_expression kinds */
	long deref_off;
	bool deref_mixed;
	int n_rbp_at_rbp;          /* DW_CFA_expression: r6 (rbp) (DW_OP_breg6 (rbp): N) */
	long rbp_at_off;
};

struct row {
	unsigned long loc;
	char cfa[32], ra[32], rbp[32]; /* "" when the column is absent */
};

struct span {
	unsigned long lo, hi, maxhi;
	size_t ent;
};

struct oracle {
	struct entry *ent;
	size_t n_ent, cap_ent;
	struct row *rows;
	size_t n_rows, cap_rows;
	struct span *spans[2];
	size_t n_spans[2];
	size_t parse_errors;
};

static int section_of(const char *line)
{
	if (strncmp(line, "Contents of the ", 16) != 0)
		return -1;
	if (strncmp(line + 16, ".eh_frame ", 10) == 0 || strncmp(line + 16, ".eh_frame:", 10) == 0)
		return SEC_EH;
	if (strncmp(line + 16, ".debug_frame", 12) == 0)
		return SEC_DEBUG;
	return SEC_OTHER;
}

static struct entry *find_entry(const struct oracle *o, int sec, unsigned long off)
{
	for (size_t i = o->n_ent; i-- > 0;)
		if (o->ent[i].sec == sec && o->ent[i].off == off)
			return &o->ent[i];
	return NULL;
}

/* An entry header line ("OFF LEN ID CIE|FDE ..."); NULL for other lines. */
static struct entry *parse_header(struct oracle *o, int sec, const char *line)
{
	unsigned long off, len, id;
	char kind[4];
	struct entry *e;
	const char *p;

	if (sscanf(line, "%lx %lx %lx %3s", &off, &len, &id, kind) != 4 ||
	    (strcmp(kind, "CIE") != 0 && strcmp(kind, "FDE") != 0))
		return NULL;
	e = find_entry(o, sec, off);
	if (!e) {
		o->ent = xgrow(o->ent, &o->cap_ent, o->n_ent + 1, sizeof(*o->ent));
		e = &o->ent[o->n_ent++];
		memset(e, 0, sizeof(*e));
		e->sec = sec;
		e->off = off;
		e->is_cie = kind[0] == 'C';
	}
	/* the interpreted listing has the augmentation on this line */
	if (e->is_cie && (p = strchr(line, '"'))) {
		const char *s = strchr(p + 1, 'S'), *q = strchr(p + 1, '"');

		e->signal = s && q && s < q;
	} else if (!e->is_cie && (!(p = strstr(line, "cie=")) ||
				  sscanf(p, "cie=%lx pc=%lx..%lx", &e->cie, &e->lo, &e->hi) != 3)) {
		o->parse_errors++;
	}
	return e;
}

/* One instruction line of the raw listing. */
static void parse_raw_op(struct entry *e, const char *line)
{
	const char *x = strstr(line, "DW_CFA_def_cfa_expression (");
	long off;
	int n = 0;

	if (strstr(line, "DW_CFA_undefined: r6 (rbp)"))
		e->undef_rbp = true;
	if (strstr(line, "DW_CFA_undefined: r16 (rip)"))
		e->undef_ra = true;
	{
		const char *r = strstr(line, "DW_CFA_expression: r6 (rbp) (DW_OP_breg6 (rbp): ");

		if (r && sscanf(r + strlen("DW_CFA_expression: r6 (rbp) (DW_OP_breg6 (rbp): "), "%ld)%n",
				&off, &n) == 1 && r[strlen("DW_CFA_expression: r6 (rbp) (DW_OP_breg6 (rbp): ") + n] == '\0') {
			e->rbp_at_off = off;
			e->n_rbp_at_rbp++;
		}
	}
	if (!x)
		return;
	x += strlen("DW_CFA_def_cfa_expression (");
	if (sscanf(x, "DW_OP_breg6 (rbp): %ld; DW_OP_deref)%n", &off, &n) == 1 && x[n] == '\0') {
		if (e->n_deref && off != e->deref_off)
			e->deref_mixed = true;
		e->deref_off = off;
		e->n_deref++;
	} else {
		e->n_other_exp++;
	}
}

/* The lines of @text, which is cut in place. */
static char **split_lines(char *text, size_t *n)
{
	size_t cap = 0;
	char **v = NULL;

	*n = 0;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		v = xgrow(v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = p;
		p = nl ? nl + 1 : NULL;
	}
	return v;
}

static void parse_raw(struct oracle *o, char *text)
{
	struct entry *cur = NULL;
	int sec = SEC_OTHER;
	size_t n;
	char **lines = split_lines(text, &n);

	for (size_t i = 0; i < n; i++) {
		const char *line = lines[i];
		int s = section_of(line);
		struct entry *e;

		if (s >= 0) {
			sec = s;
			cur = NULL;
		} else if (sec != SEC_OTHER && (e = parse_header(o, sec, line))) {
			cur = e;
		} else if (cur && strncmp(line, "  DW_CFA_", 9) == 0) {
			parse_raw_op(cur, line);
		}
	}
	free(lines);
}

/* Split a row into columns; "r9 (r9)" is one column. */
static size_t split_row(char *line, char **tok, size_t max)
{
	size_t n = 0;

	for (char *t = strtok(line, " "); t; t = strtok(NULL, " ")) {
		if (t[0] == '(' && n > 0)
			t[-1] = ' ';
		else if (n < max)
			tok[n++] = t;
	}
	return n;
}

struct columns {
	size_t n;
	int cfa, ra, rbp;
};

static void parse_columns(char *line, struct columns *c)
{
	char *tok[64];
	size_t n = split_row(line, tok, 64);

	c->n = n;
	c->cfa = c->ra = c->rbp = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(tok[i], "CFA") == 0)
			c->cfa = (int)i;
		else if (strcmp(tok[i], "ra") == 0)
			c->ra = (int)i;
		else if (strcmp(tok[i], "rbp") == 0)
			c->rbp = (int)i;
	}
}

static void parse_row(struct oracle *o, struct entry *e, const struct columns *c, char *line)
{
	char *tok[64];
	size_t n = split_row(line, tok, 64);
	struct row *r;

	if (!e || n != c->n || c->cfa < 0) {
		o->parse_errors++;
		return;
	}
	o->rows = xgrow(o->rows, &o->cap_rows, o->n_rows + 1, sizeof(*o->rows));
	r = &o->rows[o->n_rows++];
	memset(r, 0, sizeof(*r));
	r->loc = strtoul(tok[0], NULL, 16);
	snprintf(r->cfa, sizeof(r->cfa), "%s", tok[c->cfa]);
	if (c->ra >= 0)
		snprintf(r->ra, sizeof(r->ra), "%s", tok[c->ra]);
	if (c->rbp >= 0)
		snprintf(r->rbp, sizeof(r->rbp), "%s", tok[c->rbp]);
	if (e->n_rows == 0)
		e->row0 = o->n_rows - 1;
	e->n_rows++;
}

static bool is_row(const char *line)
{
	for (int i = 0; i < 16; i++)
		if (!isxdigit((unsigned char)line[i]))
			return false;
	return line[16] == ' ';
}

static void parse_interp(struct oracle *o, char *text)
{
	struct entry *cur = NULL;
	struct columns cols = { 0, -1, -1, -1 };
	int sec = SEC_OTHER;
	size_t n;
	char **lines = split_lines(text, &n);

	for (size_t i = 0; i < n; i++) {
		char *line = lines[i];
		int s = section_of(line);
		struct entry *e;

		if (s >= 0) {
			sec = s;
			cur = NULL;
		} else if (sec == SEC_OTHER) {
			continue;
		} else if (strncmp(line, "   LOC", 6) == 0) {
			parse_columns(line, &cols);
		} else if (strlen(line) > 17 && is_row(line)) {
			parse_row(o, cur, &cols, line);
		} else if ((e = parse_header(o, sec, line))) {
			cur = e;
		}
	}
	free(lines);
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->ent < y->ent ? -1 : x->ent > y->ent;
}

/* Whether cfi.c reads this FDE at all (see the top of cfi.c). */
static bool fde_used(struct dw_module *m, const struct entry *e)
{
	return !e->is_cie && e->sec != SEC_OTHER && e->hi > e->lo && e->hi <= UINT32_MAX &&
	       dw_module_vaddr_is_code(m, e->lo);
}

/* Per section, the FDEs by start with the running maximum of their ends,
 * to find which FDE owns a pc: the first by start (section order among
 * equal starts), as in cfi.c. */
static void build_spans(struct oracle *o, struct dw_module *m)
{
	for (int s = 0; s < 2; s++) {
		size_t cap = 0;
		unsigned long maxhi = 0;

		for (size_t i = 0; i < o->n_ent; i++) {
			const struct entry *e = &o->ent[i];

			if (e->sec != s || !fde_used(m, e))
				continue;
			o->spans[s] = xgrow(o->spans[s], &cap, o->n_spans[s] + 1, sizeof(struct span));
			o->spans[s][o->n_spans[s]++] = (struct span){ e->lo, e->hi, 0, i };
		}
		if (o->n_spans[s])
			qsort(o->spans[s], o->n_spans[s], sizeof(struct span), cmp_span);
		for (size_t i = 0; i < o->n_spans[s]; i++) {
			if (o->spans[s][i].hi > maxhi)
				maxhi = o->spans[s][i].hi;
			o->spans[s][i].maxhi = maxhi;
		}
	}
}

/* Index of the entry whose rows apply at @pc in section @s, or -1. */
static long owner_in(const struct oracle *o, int s, unsigned long pc)
{
	const struct span *v = o->spans[s];
	size_t lo = 0, hi = o->n_spans[s];
	long best = -1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > 0 && v[j].maxhi > pc;)
		if (v[j].hi > pc)
			best = (long)v[j].ent;
	return best;
}

/* .eh_frame wins over .debug_frame. */
static long owner(const struct oracle *o, unsigned long pc)
{
	long e = owner_in(o, SEC_EH, pc);

	return e >= 0 ? e : owner_in(o, SEC_DEBUG, pc);
}

static void oracle_load(struct oracle *o, const char *path, struct dw_module *m)
{
	struct strbuf raw = STRBUF_INIT, interp = STRBUF_INIT;
	char *cmd;

	memset(o, 0, sizeof(*o));
	/* readelf exits 1 after a complaint about libc's missing interpreter */
	cmd = xasprintf("readelf --debug-dump=frames '%s' 2>/dev/null", path);
	run(cmd, &raw);
	free(cmd);
	cmd = xasprintf("readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	run(cmd, &interp);
	free(cmd);
	assert_non_null(strstr(raw.buf, "Contents of the "));
	assert_non_null(strstr(interp.buf, "Contents of the "));
	parse_raw(o, raw.buf);
	parse_interp(o, interp.buf);
	for (size_t i = 0; i < o->n_ent; i++)
		if (!o->ent[i].is_cie)
			o->ent[i].cie_ent = find_entry(o, o->ent[i].sec, o->ent[i].cie);
	build_spans(o, m);
	strbuf_release(&raw);
	strbuf_release(&interp);
}

static void oracle_release(struct oracle *o)
{
	free(o->ent);
	free(o->rows);
	free(o->spans[0]);
	free(o->spans[1]);
}

/* ---- what a readelf row means in compact form ---- */

enum want { W_NORMAL, W_UNSUPPORTED, W_UNKNOWN };

static bool fits_s16(long v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

/* readelf's "c-16", "v+8": the offset after the letter. */
static bool col_off(const char *s, char letter, long *off)
{
	char *end;

	if (s[0] != letter || (s[1] != '+' && s[1] != '-'))
		return false;
	*off = strtol(s + 1, &end, 10);
	return *end == '\0';
}

/* Register number of a register rule, "r7 (rsp)"; -1 otherwise. */
static int col_reg(const char *s)
{
	char *end;
	long r;

	if (s[0] != 'r' || !isdigit((unsigned char)s[1]))
		return -1;
	r = strtol(s + 1, &end, 10);
	return *end == ' ' ? (int)r : -1;
}

static enum want want_cfa(const char *cfa, const struct entry *f, const struct entry *c,
			  struct wr_cfi_rule *w)
{
	int n_deref = f->n_deref + c->n_deref, n_other = f->n_other_exp + c->n_other_exp;
	char *end;
	long off;

	if (strcmp(cfa, "exp") == 0) {
		if (n_deref == 0)
			return W_UNSUPPORTED;
		if (n_other || f->deref_mixed || c->deref_mixed || (f->n_deref && c->n_deref))
			return W_UNKNOWN;
		w->cfa_kind = WR_CFA_DEREF;
		w->cfa_reg = WR_DWARF_RBP;
		w->cfa_off = (int32_t)(f->n_deref ? f->deref_off : c->deref_off);
		return W_NORMAL;
	}
	if (strncmp(cfa, "rsp", 3) == 0)
		w->cfa_reg = WR_DWARF_RSP;
	else if (strncmp(cfa, "rbp", 3) == 0)
		w->cfa_reg = WR_DWARF_RBP;
	else
		return W_UNSUPPORTED;
	off = strtol(cfa + 3, &end, 10);
	if (*end != '\0' || off < INT32_MIN || off > INT32_MAX)
		return W_UNKNOWN;
	w->cfa_off = (int32_t)off;
	return W_NORMAL;
}

static enum want want_ra(const char *ra, bool undef_ra, struct wr_cfi_rule *w)
{
	long off;

	if (col_off(ra, 'c', &off) && fits_s16(off)) {
		w->ra_rule = WR_RULE_AT_CFA;
		w->ra_off = (int16_t)off;
		return W_NORMAL;
	}
	if (strcmp(ra, "u") == 0 && undef_ra) {
		w->ra_rule = WR_RULE_UNDEFINED;
		return W_NORMAL;
	}
	return W_UNSUPPORTED;
}

static bool rbp_matches(const char *rbp, bool undef_rbp, const struct entry *f,
			const struct entry *c, const struct wr_cfi_rule *got)
{
	long off;
	int reg = col_reg(rbp);

	if (rbp[0] == '\0' || strcmp(rbp, "s") == 0 || reg == WR_DWARF_RBP)
		return got->rbp_rule == WR_RULE_SAME_VALUE;
	if (strcmp(rbp, "u") == 0)
		return got->rbp_rule == WR_RULE_SAME_VALUE ||
		       (undef_rbp && got->rbp_rule == WR_RULE_UNDEFINED);
	if (reg == WR_DWARF_RSP)
		return got->rbp_rule == WR_RULE_REGISTER && got->rbp_off == WR_DWARF_RSP;
	if (col_off(rbp, 'c', &off) && fits_s16(off))
		return got->rbp_rule == WR_RULE_AT_CFA && got->rbp_off == off;
	if (col_off(rbp, 'v', &off) && fits_s16(off))
		return got->rbp_rule == WR_RULE_VAL_CFA && got->rbp_off == off;
	/* rbp saved at rbp+N: the one expression with a compact form, when
	 * this FDE (or its CIE) uses only that one */
	if (strcmp(rbp, "exp") == 0 && f->n_rbp_at_rbp + c->n_rbp_at_rbp == 1)
		return got->rbp_rule == WR_RULE_AT_RBP &&
		       got->rbp_off == (f->n_rbp_at_rbp ? f->rbp_at_off : c->rbp_at_off);
	/* other expressions, other registers, far offsets: unknown */
	return got->rbp_rule == WR_RULE_UNDEFINED || got->rbp_rule == WR_RULE_AT_RBP;
}

/* NULL when @got says what readelf's @row says, else what differs. */
static const char *check_rule(const struct entry *f, const struct entry *c, const struct row *row,
			      const struct wr_cfi_rule *got)
{
	struct wr_cfi_rule w;
	enum want cfa, ra;

	if (c->signal)
		return got->kind == WR_ROW_SIGNAL ? NULL : "want a signal row";
	memset(&w, 0, sizeof(w));
	cfa = want_cfa(row->cfa, f, c, &w);
	ra = want_ra(row->ra, f->undef_ra || c->undef_ra, &w);
	if (cfa == W_UNKNOWN)
		return NULL;
	if (cfa == W_UNSUPPORTED || ra == W_UNSUPPORTED)
		return got->kind == WR_ROW_UNSUPPORTED ? NULL : "want an unsupported row";
	if (got->kind != WR_ROW_NORMAL)
		return "want a normal row";
	if (got->cfa_kind != w.cfa_kind || got->cfa_reg != w.cfa_reg || got->cfa_off != w.cfa_off)
		return "CFA differs";
	if (got->ra_rule != w.ra_rule || got->ra_off != w.ra_off)
		return "return address differs";
	if (!rbp_matches(row->rbp, f->undef_rbp || c->undef_rbp, f, c, got))
		return "rbp differs";
	return NULL;
}

/* ---- the comparison ---- */

struct verdict {
	size_t checked;     /* pcs compared */
	size_t gaps;        /* pcs outside every FDE found without a row */
	size_t failures;
	size_t signal;      /* pcs readelf puts in a signal frame */
	size_t deref;       /* pcs with an `*(rbp + N)` CFA */
	size_t unsupported; /* pcs found unsupported */
};

static void report(struct verdict *v, const char *path, uint64_t pc, const struct row *row,
		   const struct wr_cfi_rule *got, const char *why)
{
	struct strbuf sb = STRBUF_INIT;

	if (++v->failures > MAX_REPORTED)
		return;
	if (got)
		cfi_rule_format(got, &sb);
	print_message("%s: pc %#" PRIx64 ": %s (readelf: cfa %s ra '%s' rbp '%s'; got: %s)\n",
		      path, pc, why, row ? row->cfa : "-", row ? row->ra : "-",
		      row ? row->rbp : "-", got ? sb.buf : "no row");
	strbuf_release(&sb);
}

static void check_pc(const struct loaded *l, const struct oracle *o, size_t fi,
		     const struct row *row, uint64_t pc, const char *path, struct verdict *v)
{
	const struct entry *f = &o->ent[fi], *c;
	const struct wr_cfi_rule *got;
	const char *why;

	if (owner(o, pc) != (long)fi)
		return;
	c = f->cie_ent;
	got = rule_at(l, pc);
	v->checked++;
	if (!got) {
		report(v, path, pc, row, NULL, "no row");
		return;
	}
	why = c ? check_rule(f, c, row, got) : "no CIE";
	if (why)
		report(v, path, pc, row, got, why);
	v->signal += c && c->signal;
	v->deref += got->kind == WR_ROW_NORMAL && got->cfa_kind == WR_CFA_DEREF;
	v->unsupported += got->kind == WR_ROW_UNSUPPORTED;
}

/* The rows readelf prints for FDE @fi: the last of several at one
 * location, none outside the FDE, the CIE's when the FDE prints none. */
static void check_fde(const struct loaded *l, const struct oracle *o, size_t fi, const char *path,
		      struct verdict *v)
{
	const struct entry *f = &o->ent[fi];
	const struct entry *c = f->cie_ent;
	const struct row *rows = &o->rows[f->row0];
	size_t n = f->n_rows;

	if (n == 0) {
		if (!c || c->n_rows == 0) {
			report(v, path, f->lo, NULL, NULL, "no readelf row for FDE");
			return;
		}
		rows = &o->rows[c->row0 + c->n_rows - 1];
		n = 1;
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t lo = n == f->n_rows ? rows[k].loc : f->lo;
		uint64_t hi = k + 1 < n && rows[k + 1].loc < f->hi ? rows[k + 1].loc : f->hi;

		if (lo < f->lo || lo >= hi)
			continue;
		check_pc(l, o, fi, &rows[k], lo, path, v);
		if (lo + (hi - lo) / 2 != lo)
			check_pc(l, o, fi, &rows[k], lo + (hi - lo) / 2, path, v);
	}
}

/* The pcs just outside an FDE that no FDE covers have no row. */
static void check_gaps(const struct loaded *l, const struct oracle *o, size_t fi, const char *path,
		       struct verdict *v)
{
	uint64_t pcs[2] = { o->ent[fi].hi, o->ent[fi].lo - 1 };

	for (int i = 0; i < 2; i++) {
		if (owner(o, pcs[i]) >= 0)
			continue;
		v->gaps++;
		if (cfi_table_lookup(&l->t, pcs[i]) >= 0)
			report(v, path, pcs[i], NULL, rule_at(l, pcs[i]), "row outside every FDE");
	}
}

/* Compare @path's rows with readelf's.  FDEs starting at one of @skip
 * (terminated by 0) are left out: readelf misreads them. */
static void compare_with_readelf(const char *path, const uint64_t *skip, struct verdict *v)
{
	struct loaded l;
	struct oracle o;

	memset(v, 0, sizeof(*v));
	load(&l, path);
	assert_int_equal(l.err, 0);
	oracle_load(&o, path, l.m);
	assert_int_equal(o.parse_errors, 0);
	for (size_t i = 0; i < o.n_ent; i++) {
		const uint64_t *s = skip;

		if (!fde_used(l.m, &o.ent[i]))
			continue;
		while (s && *s && *s != o.ent[i].lo)
			s++;
		if (s && *s)
			continue;
		check_fde(&l, &o, i, path, v);
		check_gaps(&l, &o, i, path, v);
	}
	oracle_release(&o);
	unload(&l);
	if (v->failures > MAX_REPORTED)
		print_message("%s: %zu more differences\n", path, v->failures - MAX_REPORTED);
	assert_int_equal(v->failures, 0);
	assert_true(v->checked > 0);
}

/* ======================================================================
 * Tests
 * ====================================================================== */

/* Every pc of function @name has a row; returns how many are unsupported
 * and the largest CFA offset seen, counts DEREF CFAs in *deref. */
static size_t check_function(const struct loaded *l, const char *path, const char *name,
			     int32_t *max_cfa_off, size_t *deref)
{
	uint64_t lo, hi;
	size_t unsupported = 0;

	if (!sym_range(path, name, &lo, &hi))
		fail_msg("%s: no symbol %s", path, name);
	for (uint64_t pc = lo; pc < hi; pc++) {
		const struct wr_cfi_rule *r = rule_at(l, pc);

		if (!r)
			fail_msg("%s: %s+%#" PRIx64 " has no row", path, name, pc - lo);
		unsupported += r->kind != WR_ROW_NORMAL;
		if (r->kind == WR_ROW_NORMAL && r->cfa_kind == WR_CFA_REG_OFF && r->cfa_off > *max_cfa_off)
			*max_cfa_off = r->cfa_off;
		*deref += r->kind == WR_ROW_NORMAL && r->cfa_kind == WR_CFA_DEREF;
	}
	return unsupported;
}

/* Facts readelf's listing cannot show about one fixture build. */
static void check_fixture_functions(const char *path, const char *base)
{
	static const char *const chain[] = { "leaf", "middle", "outer", "main", NULL };
	static const char *const frames[] = { "big_frame", "alloca_frame", "ends_in_noreturn",
					      "early_returns", "many_saved", "recurse", "main", NULL };
	const char *const *fns = strncmp(base, "chain-", 6) == 0 ? chain : frames;
	int32_t max_off = 0;
	size_t deref = 0;
	struct loaded l;

	load(&l, path);
	if (strncmp(base, "cfi_realign-", 12) == 0) {
		check_function(&l, path, "main", &max_off, &deref);
		check_function(&l, path, "vla_frame", &max_off, &deref);
		/* GCC realigns through a CFA expression; clang keeps rbp */
		if (!strstr(base, "clang"))
			assert_true(deref > 0);
	} else {
		for (size_t i = 0; fns[i]; i++)
			assert_int_equal(check_function(&l, path, fns[i], &max_off, &deref), 0);
	}
	/* without a frame pointer GCC's CFA is rsp-based across the frame
	 * (clang keeps only the two bytes of the buffer it touches) */
	if (strncmp(base, "cfi_frames-O2", 13) == 0 && !strstr(base, "O2fp")) {
		max_off = 0;
		check_function(&l, path, "big_frame", &max_off, &deref);
		assert_true(max_off > 1000000); /* 1 MiB less the red zone */
	}
	unload(&l);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_fixtures_match_readelf(void **state)
{
	const char *dir = env_dir("WRAITH_FIXTURES");
	char *names[128];
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	(void)state;
	if (!d)
		fail_msg("cannot open %s", dir);
	while ((de = readdir(d)) && n < 128)
		if (strncmp(de->d_name, "chain-", 6) == 0 || strncmp(de->d_name, "cfi_", 4) == 0)
			names[n++] = xstrdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	/* chain, cfi_frames, cfi_realign: five builds each by gcc and clang */
	assert_true(n >= 30);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		struct verdict v;

		compare_with_readelf(path, NULL, &v);
		print_message("%-22s %5zu pcs as readelf, %zu outside FDEs without rows\n",
			      names[i], v.checked, v.gaps);
		check_fixture_functions(path, names[i]);
		free(path);
		free(names[i]);
	}
}

/* [start, end) of section @name of @path. */
static void section_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	*lo = *hi = 0;
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name) == 0)
			*lo = sh.sh_addr, *hi = sh.sh_addr + sh.sh_size;
	elf_end(elf);
	close(fd);
	assert_true(*hi > *lo);
}

static void test_libc(void **state)
{
	struct verdict v;
	struct loaded l;
	uint64_t plt, plt_end;
	const struct wr_cfi_rule *r;

	(void)state;
	compare_with_readelf(LIBC, NULL, &v);
	print_message("libc.so.6: %zu pcs as readelf, %zu unsupported, %zu in signal frames, "
		      "%zu outside FDEs without rows\n", v.checked, v.unsupported, v.signal, v.gaps);
	assert_true(v.checked > 20000);
	assert_true(v.signal > 0);
	load(&l, LIBC);
	assert_true(l.t.stats.signal_rows >= 1);
	assert_true(l.t.stats.unsupported_rows * 100 < l.t.stats.rows);
	assert_string_equal(l.t.source, ".eh_frame");
	/* .plt: the first entry pushes, the others jump: an rip-based CFA */
	section_range(LIBC, ".plt", &plt, &plt_end);
	r = rule_at(&l, plt);
	assert_non_null(r);
	assert_int_equal(r->kind, WR_ROW_NORMAL);
	for (uint64_t pc = plt + 16; pc < plt_end; pc += 5) {
		r = rule_at(&l, pc);
		assert_non_null(r);
		assert_int_equal(r->kind, WR_ROW_UNSUPPORTED);
	}
	unload(&l);
}

/* ---- the hand-written CFI ---- */

/* @dump with every "0x..." written as the nearest code symbol at or below. */
static char *symbolic(const char *path, const char *dump)
{
	struct strbuf out = STRBUF_INIT;
	size_t n;
	const struct sym *syms = symbols(path, &n);

	for (const char *p = dump; *p;) {
		if (p[0] == '0' && p[1] == 'x') {
			char *end;
			uint64_t a = strtoull(p, &end, 16);
			size_t i = n;

			while (i > 0 && (syms[i - 1].addr > a || tolower(syms[i - 1].type) != 't'))
				i--;
			if (i)
				strbuf_addf(&out, "%s+%#" PRIx64, syms[i - 1].name, a - syms[i - 1].addr);
			else
				strbuf_addf(&out, "%#" PRIx64, a);
			p = end;
		} else {
			strbuf_addch(&out, *p++);
		}
	}
	return strbuf_detach(&out);
}

static const char synthetic_dump[] =
	"syn_basic+0-syn_basic+0x1 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_basic+0x1-syn_basic+0x4 cfa=rsp+16 ra=c-8 rbp=c-16\n"
	"syn_basic+0x4-syn_basic+0x6 cfa=rbp+16 ra=c-8 rbp=c-16\n"
	"syn_basic+0x6-syn_basic+0x7 cfa=rsp+8 ra=c-8 rbp=c-16\n"
	"syn_state+0-syn_state+0x1 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_state+0x1-syn_state+0x2 cfa=rsp+16 ra=c-8 rbp=s\n"
	"syn_state+0x2-syn_state+0x8 cfa=rsp+24 ra=c-8 rbp=c-24\n"
	"syn_state+0x8-syn_state+0x9 cfa=rsp+16 ra=c-8 rbp=s\n"
	"syn_state+0x9-syn_state+0xa cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_state+0xa-syn_state+0xc cfa=rsp+24 ra=c-8 rbp=c-24\n"
	"syn_state+0xc-syn_state+0xd cfa=rsp+16 ra=c-8 rbp=c-24\n"
	"syn_state+0xd-syn_state+0xe cfa=rsp+8 ra=c-8 rbp=c-24\n"
	"syn_realign+0-syn_realign+0x5 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_realign+0x5-syn_realign+0x13 unsupported\n"
	"syn_realign+0x13-syn_realign+0x16 cfa=*(rbp-8) ra=c-8 rbp=*(rbp+0)\n"
	"syn_realign+0x16-syn_realign+0x1b unsupported\n"
	"syn_realign+0x1b-syn_realign+0x1c cfa=rsp+8 ra=c-8 rbp=*(rbp+0)\n"
	"syn_rbp+0-syn_rbp+0x1 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_rbp+0x1-syn_rbp+0x2 cfa=rsp+8 ra=c-8 rbp=rsp\n"
	"syn_rbp+0x2-syn_rbp+0x3 cfa=rsp+8 ra=c-8 rbp=v-8\n"
	"syn_rbp+0x3-syn_rbp+0x5 cfa=rsp+8 ra=c-8 rbp=u\n"
	"syn_rbp+0x5-syn_rbp+0x6 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_rbp+0x6-syn_rbp+0x8 cfa=rsp+8 ra=c-8 rbp=u\n"
	"syn_rbp+0x8-syn_rbp+0x9 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_rbp+0x9-syn_rbp+0xa cfa=rsp+8 ra=u rbp=s\n"
	"syn_ops+0-syn_ops+0x1 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_ops+0x1-syn_ops+0x2 cfa=rsp+16 ra=c-8 rbp=s\n"
	"syn_ops+0x2-syn_ops+0x3 cfa=rsp+24 ra=c-8 rbp=c+24\n"
	"syn_ops+0x3-syn_ops+0x4 cfa=rsp+24 ra=c-8 rbp=c+16\n"
	"syn_ops+0x4-syn_ops+0x5 cfa=rsp+24 ra=c-8 rbp=v+16\n"
	"syn_ops+0x5-syn_ops+0x69 cfa=rsp+24 ra=c-8 rbp=s\n"
	"syn_ops+0x69-syn_ops+0x195 cfa=rsp+24 ra=c-8 rbp=c-24\n"
	"syn_ops+0x195-syn_ops+0x11305 cfa=rsp+32 ra=c-8 rbp=c-24\n"
	"syn_ops+0x11305-syn_ops+0x11306 cfa=*(rbp+16) ra=c-8 rbp=c-24\n"
	"syn_ops+0x11306-syn_ops+0x11307 cfa=rsp+8 ra=c-8 rbp=c-24\n"
	"syn_unsup+0-syn_unsup+0x1 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_unsup+0x1-syn_unsup+0xa unsupported\n"
	"syn_unsup+0xa-syn_unsup+0xb cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_sigframe+0-syn_sigreturn+0x7 signal\n"
	"syn_dbg1+0-syn_dbg1+0x1 cfa=rsp+8 ra=c-8 rbp=s\n"
	"syn_dbg1+0x1-syn_dbg1_end+0 cfa=rsp+16 ra=c-8 rbp=c-16\n"
	"syn_dbg1_end+0-syn_dbg2_end+0 cfa=rsp+24 ra=c-8 rbp=s\n"
	"syn_dbg3+0-syn_dbg3+0x2 cfa=rbp+16 ra=c-8 rbp=c-16\n"
	"syn_dbg3+0x2-syn_dbg3_end+0 cfa=rsp+8 ra=c-8 rbp=c-16\n"
	"syn_dbg4+0-syn_dbg4_end+0 cfa=rsp+8 ra=c-8 rbp=s\n";

static void test_synthetic(void **state)
{
	const char *src = env_dir("WRAITH_SRCDIR");
	char *so = xasprintf("%s/libsyn.so", tmpdir);
	struct strbuf dump = STRBUF_INIT;
	uint64_t skip[4], end, ops;
	struct verdict v;
	struct loaded l;
	char *text;

	(void)state;
	assert_int_equal(runf("gcc -shared -nostdlib -o '%s' '%s/tests/unit/data/cfi/synthetic.s'",
			      so, src), 0);
	/* readelf reads 2^32 as 0 in syn_unsup, does not look ahead for
	 * syn_dbg3's CIE and calls only column 16 "ra" (syn_dbg4); the golden
	 * dump covers them */
	assert_true(sym_range(so, "syn_unsup", &skip[0], &end));
	assert_true(sym_range(so, "syn_dbg3", &skip[1], &end));
	assert_true(sym_range(so, "syn_dbg4", &skip[2], &end));
	skip[3] = 0;
	compare_with_readelf(so, skip, &v);
	assert_true(v.deref > 0);
	assert_true(v.signal > 0);

	load(&l, so);
	assert_int_equal(l.err, 0);
	assert_string_equal(l.t.source, "both");
	assert_int_equal(l.t.stats.fdes, 13);
	assert_int_equal(l.t.stats.signal_rows, 1);
	assert_int_equal(l.t.stats.unsupported_rows, 3);
	cfi_table_dump(&l.t, &l.rules, UINT64_MAX, &dump);
	text = symbolic(so, dump.buf);
	assert_string_equal(text, synthetic_dump);
	free(text);
	/* one pc: the row around it; a gap: nothing */
	assert_true(sym_range(so, "syn_ops", &ops, &end));
	strbuf_reset(&dump);
	cfi_table_dump(&l.t, &l.rules, ops + 0x100, &dump);
	text = symbolic(so, dump.buf);
	assert_string_equal(text, "syn_ops+0x69-syn_ops+0x195 cfa=rsp+24 ra=c-8 rbp=c-24\n");
	free(text);
	strbuf_reset(&dump);
	cfi_table_dump(&l.t, &l.rules, end, &dump);
	assert_string_equal(dump.buf, "");
	strbuf_release(&dump);
	unload(&l);
	free(so);
}

/* ---- builds without .eh_frame ---- */

static const char nocfi_c[] =
	"volatile int sink;\n"
	"__attribute__((noinline)) int f1(int x) { sink += x; return sink * 3; }\n"
	"__attribute__((noinline)) int f2(int x) { return f1(x + 1) + f1(x * 2); }\n"
	"int main(int argc, char **argv) { (void)argv; return f2(argc) & 1; }\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* No pc of @name has a row. */
static void assert_no_rows(const struct loaded *l, const char *path, const char *name)
{
	uint64_t lo, hi;

	assert_true(sym_range(path, name, &lo, &hi));
	for (uint64_t pc = lo; pc < hi; pc++)
		if (cfi_table_lookup(&l->t, pc) >= 0)
			fail_msg("%s: %s+%#" PRIx64 " has a row", path, name, pc - lo);
}

static void test_no_cfi(void **state)
{
	char *src = xasprintf("%s/nocfi.c", tmpdir);
	char *bin = xasprintf("%s/nocfi", tmpdir);
	char *bare = xasprintf("%s/nocfi-bare", tmpdir);
	struct loaded l;

	(void)state;
	write_file(src, nocfi_c);
	assert_int_equal(runf("gcc -O2 -fno-asynchronous-unwind-tables -fno-unwind-tables -g0 "
			      "-o '%s' '%s'", bin, src), 0);
	assert_int_equal(runf("objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr "
			      "--remove-section=.debug_frame '%s' '%s'", bin, bare), 0);
	/* the crt files bring a few FDEs, the program's functions none */
	load(&l, bin);
	assert_int_equal(l.err, 0);
	assert_no_rows(&l, bin, "f1");
	assert_no_rows(&l, bin, "f2");
	assert_no_rows(&l, bin, "main");
	unload(&l);
	load(&l, bare);
	assert_int_equal(l.err, 0);
	assert_int_equal(l.t.n, 0);
	assert_int_equal(l.t.stats.rows, 0);
	assert_int_equal(l.t.stats.fdes, 0);
	assert_string_equal(l.t.source, "none");
	assert_no_rows(&l, bare, "f1");
	assert_int_equal(cfi_table_lookup(&l.t, 0), -1);
	unload(&l);
	free(src);
	free(bin);
	free(bare);
}

static void assert_same_rows(const struct loaded *a, const struct loaded *b, const char *path,
			     const char *name)
{
	uint64_t lo, hi;

	assert_true(sym_range(path, name, &lo, &hi));
	for (uint64_t pc = lo; pc < hi; pc++) {
		const struct wr_cfi_rule *x = rule_at(a, pc), *y = rule_at(b, pc);

		if (!x || !y || memcmp(x, y, sizeof(*x)) != 0)
			fail_msg("%s: %s+%#" PRIx64 " differs", path, name, pc - lo);
	}
}

/* -g -fno-asynchronous-unwind-tables: the program's rows come from
 * .debug_frame, in the file itself, alone, or in a separate debug file
 * (compressed) found through .gnu_debuglink. */
static void test_debug_frame(void **state)
{
	static const char *const fns[] = { "leaf", "middle", "outer", "main" };
	const char *srcdir = env_dir("WRAITH_SRCDIR");
	char *bin = xasprintf("%s/dbgframe", tmpdir);
	char *noeh = xasprintf("%s/dbgframe-noeh", tmpdir);
	char *strip = xasprintf("%s/dbgframe-stripped", tmpdir);
	struct loaded full, l;
	struct verdict v;

	(void)state;
	assert_int_equal(runf("gcc -g -O2 -fno-asynchronous-unwind-tables -o '%s' "
			      "'%s/tests/fixtures/chain.c'", bin, srcdir), 0);
	assert_int_equal(runf("objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr "
			      "'%s' '%s'", bin, noeh), 0);
	assert_int_equal(runf("cd '%s' && objcopy --only-keep-debug --compress-debug-sections=zlib "
			      "dbgframe dbgframe.debug && objcopy --strip-debug "
			      "--add-gnu-debuglink=dbgframe.debug dbgframe dbgframe-stripped",
			      tmpdir), 0);
	compare_with_readelf(bin, NULL, &v);
	load(&full, bin);
	assert_string_equal(full.t.source, "both");
	for (size_t i = 0; i < 4; i++) {
		int32_t max_off = 0;
		size_t deref = 0;

		assert_int_equal(check_function(&full, bin, fns[i], &max_off, &deref), 0);
	}
	load(&l, noeh);
	assert_string_equal(l.t.source, ".debug_frame");
	for (size_t i = 0; i < 4; i++)
		assert_same_rows(&full, &l, bin, fns[i]);
	unload(&l);
	load(&l, strip);
	assert_int_equal(l.err, 0);
	assert_string_equal(l.t.source, "both");
	assert_int_equal(l.t.n, full.t.n);
	assert_memory_equal(l.t.rows, full.t.rows, l.t.n * sizeof(*l.t.rows));
	unload(&l);
	unload(&full);
	free(bin);
	free(noeh);
	free(strip);
}

/* ---- the rule table, formatting and lookup ---- */

static void test_rules_intern(void **state)
{
	struct cfi_rules r;
	struct wr_cfi_rule a = { .cfa_off = 16, .ra_off = -8, .cfa_reg = WR_DWARF_RSP,
				 .ra_rule = WR_RULE_AT_CFA, .rbp_rule = WR_RULE_SAME_VALUE };
	struct wr_cfi_rule b = a;
	uint32_t ia;

	(void)state;
	cfi_rules_init(&r);
	ia = cfi_rules_intern(&r, &a);
	b.reserved[1] = 7; /* padding does not make a new rule */
	assert_int_equal(cfi_rules_intern(&r, &b), ia);
	b.rbp_rule = WR_RULE_AT_CFA;
	b.rbp_off = -16;
	assert_int_not_equal(cfi_rules_intern(&r, &b), ia);
	/* the second word: register and kinds */
	b = a;
	b.cfa_reg = WR_DWARF_RBP;
	assert_int_equal(cfi_rules_intern(&r, &b), 2);
	b = a;
	b.kind = WR_ROW_UNSUPPORTED;
	assert_int_equal(cfi_rules_intern(&r, &b), 3);
	b = a;
	b.rbp_rule = WR_RULE_UNDEFINED;
	assert_int_equal(cfi_rules_intern(&r, &b), 4);
	assert_int_equal(cfi_rules_intern(&r, &a), ia);
	assert_int_equal(r.n, 5);
	/* enough rules to rehash several times, each found again */
	for (int32_t i = 0; i < 5000; i++) {
		size_t before = r.n;
		uint32_t idx;

		a.cfa_off = i * 8;
		idx = cfi_rules_intern(&r, &a);
		assert_int_equal(idx, i == 2 ? ia : before);
		assert_int_equal(r.n, i == 2 ? before : before + 1);
	}
	/* rules that differ in their second word only, many in one chain */
	for (int32_t i = 0; i < 5000; i++) {
		uint32_t idx;

		a.cfa_off = i * 8;
		a.cfa_reg = WR_DWARF_RBP;
		idx = cfi_rules_intern(&r, &a); /* may move r.v */
		assert_int_equal(r.v[idx].cfa_reg, WR_DWARF_RBP);
		a.cfa_reg = WR_DWARF_RSP;
		idx = cfi_rules_intern(&r, &a);
		assert_int_equal(r.v[idx].cfa_off, i * 8);
		assert_int_equal(r.v[idx].cfa_reg, WR_DWARF_RSP);
	}
	assert_int_equal(r.n, 10003);
	cfi_rules_release(&r);
}

/* cfi_sources_extract() on another thread, while this one goes on using
 * the module (here: extracting it again the one-step way), gives the
 * same rows and rules (the loader thread of unwind/loader.c). */
struct threaded {
	struct cfi_sources *src;
	struct cfi_rules rules;
	struct cfi_table t;
	int err;
};

static void *extract_thread(void *arg)
{
	struct threaded *x = arg;

	x->err = cfi_sources_extract(x->src, &x->rules, &x->t);
	return NULL;
}

static void test_sources_threaded(void **state)
{
	struct threaded x;
	struct loaded l;
	pthread_t th;

	(void)state;
	load(&l, LIBC);
	cfi_rules_init(&x.rules);
	cfi_table_init(&x.t);
	x.src = cfi_sources_open(l.m);
	assert_true(cfi_sources_size(x.src) > 100000);
	assert_int_equal(pthread_create(&th, NULL, extract_thread, &x), 0);
	cfi_table_release(&l.t);
	cfi_rules_release(&l.rules);
	cfi_rules_init(&l.rules);
	cfi_table_init(&l.t);
	assert_int_equal(cfi_table_extract(l.m, &l.rules, &l.t), 0);
	pthread_join(th, NULL);
	cfi_sources_close(x.src);
	assert_int_equal(x.err, 0);
	assert_int_equal(x.t.n, l.t.n);
	assert_true(x.t.n > 20000);
	assert_memory_equal(x.t.rows, l.t.rows, x.t.n * sizeof(*x.t.rows));
	assert_int_equal(x.rules.n, l.rules.n);
	assert_memory_equal(x.rules.v, l.rules.v, x.rules.n * sizeof(*x.rules.v));
	assert_string_equal(x.t.source, l.t.source);
	cfi_table_release(&x.t);
	cfi_rules_release(&x.rules);
	unload(&l);
}

static void test_rule_format(void **state)
{
	static const struct {
		struct wr_cfi_rule rule;
		const char *text;
	} cases[] = {
		{ { .cfa_off = 8, .ra_off = -8, .cfa_reg = WR_DWARF_RSP, .ra_rule = WR_RULE_AT_CFA,
		    .rbp_rule = WR_RULE_SAME_VALUE }, "cfa=rsp+8 ra=c-8 rbp=s" },
		{ { .cfa_off = 16, .ra_off = -8, .rbp_off = -16, .cfa_reg = WR_DWARF_RBP,
		    .ra_rule = WR_RULE_AT_CFA, .rbp_rule = WR_RULE_AT_CFA }, "cfa=rbp+16 ra=c-8 rbp=c-16" },
		{ { .cfa_off = -8, .ra_off = -8, .cfa_reg = WR_DWARF_RBP, .cfa_kind = WR_CFA_DEREF,
		    .ra_rule = WR_RULE_AT_CFA, .rbp_rule = WR_RULE_UNDEFINED }, "cfa=*(rbp-8) ra=c-8 rbp=u" },
		{ { .cfa_off = 0, .rbp_off = 8, .cfa_reg = WR_DWARF_RSP, .ra_rule = WR_RULE_UNDEFINED,
		    .rbp_rule = WR_RULE_VAL_CFA }, "cfa=rsp+0 ra=u rbp=v+8" },
		{ { .cfa_off = 8, .ra_off = -8, .rbp_off = WR_DWARF_RSP, .cfa_reg = WR_DWARF_RSP,
		    .ra_rule = WR_RULE_AT_CFA, .rbp_rule = WR_RULE_REGISTER }, "cfa=rsp+8 ra=c-8 rbp=rsp" },
		{ { .kind = WR_ROW_SIGNAL }, "signal" },
		{ { .kind = WR_ROW_UNSUPPORTED }, "unsupported" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		cfi_rule_format(&cases[i].rule, &sb);
		assert_string_equal(sb.buf, cases[i].text);
		strbuf_release(&sb);
	}
}

static void test_lookup_edges(void **state)
{
	struct wr_cfi_row rows[] = {
		{ 0x1000, 0 }, { 0x1010, 1 }, { 0x1020, WR_CFI_RULE_NONE }, { 0x2000, 0 },
		{ 0x2004, WR_CFI_RULE_NONE },
	};
	struct cfi_table t;

	(void)state;
	cfi_table_init(&t);
	assert_int_equal(cfi_table_lookup(&t, 0x1000), -1);
	t.rows = rows;
	t.n = 5;
	assert_int_equal(cfi_table_lookup(&t, 0xfff), -1);
	assert_int_equal(cfi_table_lookup(&t, 0x1000), 0);
	assert_int_equal(cfi_table_lookup(&t, 0x100f), 0);
	assert_int_equal(cfi_table_lookup(&t, 0x1010), 1);
	assert_int_equal(cfi_table_lookup(&t, 0x101f), 1);
	assert_int_equal(cfi_table_lookup(&t, 0x1020), -1);
	assert_int_equal(cfi_table_lookup(&t, 0x1fff), -1);
	assert_int_equal(cfi_table_lookup(&t, 0x2003), 3);
	assert_int_equal(cfi_table_lookup(&t, 0x2004), -1);
	assert_int_equal(cfi_table_lookup(&t, 0x100002000ull), -1);
}

/* ---- speed ---- */

static double thread_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Extraction speed in CPU time (the wall time in the stats also counts
 * waiting for a CPU on a busy machine); the best of three runs, since the
 * first extraction in a process also pays for libdwfl's debuginfod setup
 * and for faulting in fresh heap pages. */
static void bench(const char *path, const char *name)
{
	double best = 0, wall = 0, first = 0;
	struct loaded l;

	for (int i = 0; i < 3; i++) {
		double t0;

		assert_int_equal(dw_module_open(path, &l.m), 0);
		cfi_rules_init(&l.rules);
		cfi_table_init(&l.t);
		t0 = thread_seconds();
		assert_int_equal(cfi_table_extract(l.m, &l.rules, &l.t), 0);
		t0 = thread_seconds() - t0;
		if (i == 0)
			first = t0;
		if (i == 0 || t0 < best)
			best = t0, wall = l.t.stats.seconds;
		if (i < 2)
			unload(&l);
	}
	print_message("%s: %zu FDEs, %zu rows (%zu before merging), %zu rules, %.1f ms CPU "
		      "(%.1f ms wall; first run %.1f ms CPU), %.2f M rows/s, %.2f bytes/row, "
		      "%zu unsupported, %zu signal\n",
		      name, l.t.stats.fdes, l.t.stats.rows, l.t.stats.rows_raw, l.rules.n, best * 1e3,
		      wall * 1e3, first * 1e3, (double)l.t.stats.rows / best / 1e6,
		      8.0 + 16.0 * (double)l.rules.n / (double)l.t.stats.rows,
		      l.t.stats.unsupported_rows, l.t.stats.signal_rows);
	if (getenv("WRAITH_CFI_BENCH") && l.t.stats.rows > 100000)
		assert_true((double)l.t.stats.rows / best >= 3e6);
	unload(&l);
}

static void test_bench_libc(void **state)
{
	(void)state;
	bench(LIBC, "libc.so.6");
}

static void test_bench_libllvm(void **state)
{
	(void)state;
	if (!getenv("WRAITH_CFI_BENCH") || access(LIBLLVM, R_OK) != 0)
		skip();
	bench(LIBLLVM, "libLLVM-19.so");
}

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/test_cfi.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);

	(void)state;
	run(cmd, NULL);
	free(cmd);
	symcache_release();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_intern),
		cmocka_unit_test(test_sources_threaded),
		cmocka_unit_test(test_rule_format),
		cmocka_unit_test(test_lookup_edges),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_fixtures_match_readelf),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_no_cfi),
		cmocka_unit_test(test_debug_frame),
		cmocka_unit_test(test_bench_libc),
		cmocka_unit_test(test_bench_libllvm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
