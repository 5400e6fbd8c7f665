/* cfi.c - compact unwind rows from .eh_frame and .debug_frame (see cfi.h).
 *
 * libdw's dwarf_cfi_addrframe() re-runs an FDE's program from its start for
 * every row it returns, which is quadratic per FDE and dominates on large
 * libraries.  So libdw only splits a section into CIEs and FDEs
 * (dwarf_next_cfi) and cfi_program.c runs each FDE program itself, once.
 * FDEs are sorted by start first, so rows arrive in pc order and
 * cfi_table_push_row() does the rest as they are appended: a row at the
 * same pc as the previous one replaces it, a row with the previous rule is
 * dropped, an FDE that overlaps an earlier one only contributes from the
 * earlier one's end, and every FDE ends with a gap row that the next FDE's
 * first row replaces when the two touch.
 *
 * How a CFA program becomes a struct wr_cfi_rule is told at the top of
 * cfi_program.c.  This file keeps the rest: the shared rule table, ordering
 * the FDEs, the rows themselves (merging, gaps, the overlay of .eh_frame
 * and .debug_frame), lookup and dumps.
 *
 * Where the rows come from: the main file's .eh_frame; .debug_frame of the
 * main file, or failing that of the separate debug file, fills the pcs
 * .eh_frame leaves uncovered (dwarf/module_cfi.h opens them).  Both are
 * read from the ELF sections, so a file without section headers has no
 * rows.  FDEs that do not start in an executable PT_LOAD segment
 * (.debug_frame keeps FDEs of discarded sections at address 0) or that end
 * beyond the 32-bit row pc are skipped.
 */
#include "unwind/cfi.h"
#include "unwind/cfi_priv.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* ======================================================================
 * The rule table
 * ====================================================================== */

/* A rule with its reserved bytes cleared, so equal rules are equal bytes. */
static struct wr_cfi_rule rule_key(const struct wr_cfi_rule *rule)
{
	struct wr_cfi_rule key = *rule;

	memset(key.reserved, 0, sizeof(key.reserved));
	return key;
}

/* The index's keys are the rules in r->v: when the array moves, they are
 * indexed again (amortised, since the array doubles). */
static void reindex(struct cfi_rules *r)
{
	htab_release(&r->index);
	for (size_t i = 0; i < r->n; i++) {
		struct htab_slot *s = htab_get(&r->index, &r->v[i], sizeof(r->v[i]), true);

		s->key = &r->v[i];
		s->val = (uint32_t)i;
	}
}

void cfi_rules_init(struct cfi_rules *r)
{
	memset(r, 0, sizeof(*r));
}

void cfi_rules_release(struct cfi_rules *r)
{
	htab_release(&r->index);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* The slot of @key in r->recent. */
static size_t recent_slot(const struct wr_cfi_rule *key)
{
	uint64_t w[2];

	memcpy(w, key, sizeof(w));
	w[0] ^= w[1] * 0x9e3779b97f4a7c15ull;
	return (size_t)((w[0] * 0xff51afd7ed558ccdull) >> 54) % CFI_RULES_RECENT;
}

uint32_t cfi_rules_intern(struct cfi_rules *r, const struct wr_cfi_rule *rule)
{
	struct wr_cfi_rule key = rule_key(rule), *old = r->v;
	size_t slot = recent_slot(&key);
	uint32_t hit = r->recent[slot];
	struct htab_slot *s;

	if (hit && memcmp(&r->v[hit - 1], &key, sizeof(key)) == 0)
		return hit - 1;
	s = htab_get(&r->index, &key, sizeof(key), false);
	if (s) {
		r->recent[slot] = (uint32_t)s->val + 1;
		return s->val;
	}
	r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
	if (r->v != old)
		reindex(r);
	r->v[r->n] = key;
	s = htab_get(&r->index, &r->v[r->n], sizeof(key), true);
	s->key = &r->v[r->n];
	s->val = (uint32_t)r->n;
	r->recent[slot] = (uint32_t)r->n + 1;
	return (uint32_t)r->n++;
}

/* ======================================================================
 * Tables
 * ====================================================================== */

void cfi_table_init(struct cfi_table *t)
{
	memset(t, 0, sizeof(*t));
	t->source = "none";
}

void cfi_table_release(struct cfi_table *t)
{
	free(t->rows);
	cfi_table_init(t);
}

/* Append a row in pc order (see the top of the file); every call counts
 * in rows_raw. */
void cfi_table_push_row(struct cfi_table *t, uint32_t pc, uint32_t rule)
{
	t->stats.rows_raw++;
	while (t->n && t->rows[t->n - 1].pc >= pc) {
		if (t->rows[t->n - 1].pc > pc)
			return; /* out of order: an earlier row already covers pc */
		t->n--;
	}
	if (t->n ? t->rows[t->n - 1].rule == rule : rule == WR_CFI_RULE_NONE)
		return;
	if (t->n == t->cap)
		t->rows = xgrow(t->rows, &t->cap, t->n + 1, sizeof(*t->rows));
	t->rows[t->n].pc = pc;
	t->rows[t->n].rule = rule;
	t->n++;
}

/* ======================================================================
 * Ordering the FDEs
 * ====================================================================== */

/* LSD radix sort of @k on its upper 32 bits, three 11-bit digits; stable,
 * so the lower half keeps its order. */
static void radix_sort_high(uint64_t *k, size_t n)
{
	uint64_t *tmp = xmalloc(n * sizeof(*tmp)), *src = k, *dst = tmp, *swap;

	for (unsigned shift = 32; shift < 64; shift += 11) {
		size_t count[2048] = { 0 }, sum = 0;

		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0x7ff]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0x7ff]++] = src[i];
		swap = src, src = dst, dst = swap;
	}
	if (src != k)
		memcpy(k, src, n * sizeof(*k));
	free(tmp);
}

/* The order to run FDEs in: by start, section order among equal starts
 * (the first one wins an overlap).  Keys are start << 32 | index (starts
 * fit 32 bits, see add_fde() in cfi_program.c).  Returns NULL when the
 * section is already sorted, as it is except for a few hot/cold/startup
 * text sections; otherwise the caller frees. */
static uint64_t *sort_fdes(const struct cfi_extract *x)
{
	uint64_t *k;
	size_t i;

	for (i = 1; i < x->n_fdes; i++)
		if (x->fdes[i].start < x->fdes[i - 1].start)
			break;
	if (i >= x->n_fdes)
		return NULL;
	k = xmalloc(x->n_fdes * sizeof(*k));
	for (i = 0; i < x->n_fdes; i++)
		k[i] = (uint64_t)x->fdes[i].start << 32 | i;
	radix_sort_high(k, x->n_fdes);
	return k;
}

/* Fault in the whole pages of [@p, @p + @bytes) with one system call: on
 * a virtual machine each first touch of a page can trap on its own, and a
 * big library's rows span thousands of pages (libLLVM: 9 MB; measured
 * 113 -> 103 ms to extract, median of 8, on a loaded machine).  Best
 * effort: without MADV_POPULATE_WRITE pages are touched on first use. */
static void prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1),
		  b = ((uintptr_t)p + bytes) & ~(page - 1);

	if (b > a + 16 * page)
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)bytes;
#endif
}

/* All rows of one section into @t. */
static int extract_section(struct cfi_extract *x, struct cfi_table *t)
{
	uint64_t *order;
	int err = cfi_program_scan(x);

	order = sort_fdes(x);
	/* about 5 bytes of CFI per row: one allocation, trimmed at the end */
	t->rows = xgrow(t->rows, &t->cap, x->sec.data->d_size / 4 + 16, sizeof(*t->rows));
	/* rows take 5.2 to 5.4 bytes of .eh_frame (libc, libstdc++, libLLVM):
	 * fault in what 6 bytes a row give, never more than is used */
	if (t->cap - t->n > x->sec.data->d_size / 6)
		prefault(t->rows + t->n, x->sec.data->d_size / 6 * sizeof(*t->rows));
	cfi_program_run(x, order, t);
	t->stats.fdes += x->n_fdes;
	free(order);
	return err;
}

static int extract_from(struct dw_module *m, struct cfi_rules *rules,
			const struct cfi_section *s, struct cfi_table *t)
{
	struct cfi_extract x;
	int err;

	memset(&x, 0, sizeof(x));
	x.m = m;
	x.rules = rules;
	x.sec = *s;
	err = extract_section(&x, t);
	free(x.cies);
	free(x.fdes);
	return err;
}

/* ======================================================================
 * Extraction
 * ====================================================================== */

/* Rows of @eh where it has a rule, else of @dbg. */
static void merge_tables(const struct cfi_table *eh, const struct cfi_table *dbg,
			 struct cfi_table *out)
{
	size_t i = 0, j = 0;
	uint32_t e = WR_CFI_RULE_NONE, d = WR_CFI_RULE_NONE;

	out->rows = xgrow(out->rows, &out->cap, eh->n + dbg->n + 1, sizeof(*out->rows));
	while (i < eh->n || j < dbg->n) {
		uint32_t pc;

		if (j >= dbg->n || (i < eh->n && eh->rows[i].pc <= dbg->rows[j].pc))
			pc = eh->rows[i].pc;
		else
			pc = dbg->rows[j].pc;
		if (i < eh->n && eh->rows[i].pc == pc)
			e = eh->rows[i++].rule;
		if (j < dbg->n && dbg->rows[j].pc == pc)
			d = dbg->rows[j++].rule;
		cfi_table_push_row(out, pc, e != WR_CFI_RULE_NONE ? e : d);
	}
}

static void count_kinds(struct cfi_table *t, const struct cfi_rules *rules)
{
	t->stats.rows = t->n;
	for (size_t i = 0; i < t->n; i++) {
		uint32_t r = t->rows[i].rule;

		if (r == WR_CFI_RULE_NONE)
			continue;
		if (rules->v[r].kind == WR_ROW_UNSUPPORTED)
			t->stats.unsupported_rows++;
		else if (rules->v[r].kind == WR_ROW_SIGNAL)
			t->stats.signal_rows++;
	}
}

/* Both sections: extract each on its own, then overlay. */
static int extract_both(struct dw_module *m, struct cfi_rules *rules,
			const struct cfi_section *eh, const struct cfi_section *dbg,
			struct cfi_table *out)
{
	struct cfi_table te, td;
	int err, err2;

	cfi_table_init(&te);
	cfi_table_init(&td);
	err = extract_from(m, rules, eh, &te);
	err2 = extract_from(m, rules, dbg, &td);
	merge_tables(&te, &td, out);
	out->stats.fdes = te.stats.fdes + td.stats.fdes;
	out->stats.rows_raw = te.stats.rows_raw + td.stats.rows_raw;
	out->source = !te.n ? ".debug_frame" : !td.n ? ".eh_frame" : "both";
	cfi_table_release(&te);
	cfi_table_release(&td);
	return err ? err : err2;
}

/* The sections one module's rows come from, found by cfi_sources_open(). */
struct cfi_sources {
	struct dw_module *m;
	struct dw_section eh_sec, dbg_sec; /* what dwarf/ opened */
	struct cfi_section eh, dbg;        /* the same, as the interpreter reads them */
	bool have_eh, have_dbg;
};

/* @ds as the interpreter reads it. */
static void take(const struct dw_section *ds, bool eh, struct cfi_section *s)
{
	s->name = ds->name;
	s->data = ds->data;
	s->buf = ds->buf;
	s->vaddr = ds->vaddr;
	s->eh = eh;
	s->ident = ds->ident;
}

struct cfi_sources *cfi_sources_open(struct dw_module *m)
{
	struct cfi_sources *src = xcalloc(1, sizeof(*src));

	src->m = m;
	src->have_eh = dw_module_section(m, ".eh_frame", &src->eh_sec);
	src->have_dbg = dw_module_debug_frame(m, &src->dbg_sec);
	take(&src->eh_sec, true, &src->eh);
	take(&src->dbg_sec, false, &src->dbg);
	return src;
}

size_t cfi_sources_size(const struct cfi_sources *src)
{
	return (src->have_eh ? src->eh.data->d_size : 0) + (src->have_dbg ? src->dbg.data->d_size : 0);
}

void cfi_sources_close(struct cfi_sources *src)
{
	if (!src)
		return;
	dw_section_close(&src->eh_sec);
	dw_section_close(&src->dbg_sec);
	free(src);
}

int cfi_sources_extract(struct cfi_sources *src, struct cfi_rules *rules, struct cfi_table *out)
{
	struct timespec t0, t1;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	free(out->rows);
	cfi_table_init(out);
	if (src->have_eh && src->have_dbg) {
		err = extract_both(src->m, rules, &src->eh, &src->dbg, out);
	} else if (src->have_eh || src->have_dbg) {
		err = extract_from(src->m, rules, src->have_eh ? &src->eh : &src->dbg, out);
		out->source = src->have_eh ? ".eh_frame" : ".debug_frame";
	}
	if (out->n == 0) {
		free(out->rows);
		out->rows = NULL;
		out->cap = 0;
	} else if (out->n < out->cap) {
		out->rows = xrealloc(out->rows, out->n * sizeof(*out->rows));
		out->cap = out->n;
	}
	count_kinds(out, rules);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->stats.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return err;
}

int cfi_table_extract(struct dw_module *m, struct cfi_rules *rules, struct cfi_table *out)
{
	struct cfi_sources *src = cfi_sources_open(m);
	int err = cfi_sources_extract(src, rules, out);

	cfi_sources_close(src);
	return err;
}

/* ======================================================================
 * Lookup and dumps
 * ====================================================================== */

long cfi_table_lookup(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	if (pc > UINT32_MAX)
		return -1;
	/* first row with rows[i].pc > pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || t->rows[lo - 1].rule == WR_CFI_RULE_NONE)
		return -1;
	return (long)(lo - 1);
}

static const char *reg_name(unsigned reg)
{
	return reg == WR_DWARF_RBP || reg == WR_DWARF_RSP ? x86_dwarf_reg_name(reg) : "r?";
}

/* readelf's column notation: c-8 at CFA-8, v+8 the value CFA+8, u
 * undefined, s same value, a register's name; *(rbp+0) saved at rbp+0
 * (readelf prints `exp` for that expression). */
static void format_col(uint8_t rule, int16_t off, struct strbuf *out)
{
	switch (rule) {
	case WR_RULE_UNDEFINED: strbuf_addstr(out, "u"); break;
	case WR_RULE_AT_CFA: strbuf_addf(out, "c%+d", off); break;
	case WR_RULE_VAL_CFA: strbuf_addf(out, "v%+d", off); break;
	case WR_RULE_SAME_VALUE: strbuf_addstr(out, "s"); break;
	case WR_RULE_REGISTER: strbuf_addstr(out, reg_name((unsigned)off)); break;
	case WR_RULE_AT_RBP: strbuf_addf(out, "*(rbp%+d)", off); break;
	default: strbuf_addf(out, "?%u", rule); break;
	}
}

void cfi_rule_format(const struct wr_cfi_rule *rule, struct strbuf *out)
{
	if (rule->kind == WR_ROW_SIGNAL) {
		strbuf_addstr(out, "signal");
		return;
	}
	if (rule->kind != WR_ROW_NORMAL) {
		strbuf_addstr(out, "unsupported");
		return;
	}
	if (rule->cfa_kind == WR_CFA_DEREF)
		strbuf_addf(out, "cfa=*(%s%+d) ra=", reg_name(rule->cfa_reg), rule->cfa_off);
	else
		strbuf_addf(out, "cfa=%s%+d ra=", reg_name(rule->cfa_reg), rule->cfa_off);
	format_col(rule->ra_rule, rule->ra_off, out);
	strbuf_addstr(out, " rbp=");
	format_col(rule->rbp_rule, rule->rbp_off, out);
}

static void dump_row(const struct cfi_table *t, const struct cfi_rules *rules, size_t i,
		     struct strbuf *out)
{
	strbuf_addf(out, "0x%x-0x%x ", t->rows[i].pc, t->rows[i + 1].pc);
	cfi_rule_format(&rules->v[t->rows[i].rule], out);
	strbuf_addch(out, '\n');
}

/* Gap rows are not printed: their ranges show as holes.  Prints nothing
 * for a single @pc no row covers.  Every table ends with a gap row, so
 * rows[i + 1] exists for every rule row. */
void cfi_table_dump(const struct cfi_table *t, const struct cfi_rules *rules, uint64_t pc,
		    struct strbuf *out)
{
	long i;

	if (pc != UINT64_MAX) {
		i = cfi_table_lookup(t, pc);
		if (i >= 0)
			dump_row(t, rules, (size_t)i, out);
		return;
	}
	for (size_t k = 0; k + 1 < t->n; k++)
		if (t->rows[k].rule != WR_CFI_RULE_NONE)
			dump_row(t, rules, k, out);
}
