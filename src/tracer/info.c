/* info.c - `info functions|line|address|modules|probes|cfi|scope` and `diag`.
 *
 * Everything here reads what the session already holds (modules, CFI
 * tables, counters); nothing is attached or changed.  Long listings are
 * capped with a line saying how many more there are, so a regex that
 * matches all of libc does not flood the shell.
 */
#include "tracer/info.h"
#include "tracer/scope.h"
#include "dwarf/module.h"
#include "dwarf/resolve.h"
#include "dwarf/symbolize.h"
#include "render/render.h"
#include "render/status.h"
#include "script/parser.h"
#include "tracer/session_priv.h"
#include "tracer/target.h"
#include "unwind/cfi.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LISTED 200
#define MAX_DIAG_PLACES 5

/* ---- info functions ---- */

struct fn_list {
	regex_t *re;
	struct { char *name; uint64_t vaddr; } *v;
	size_t n, cap;
};

static int collect_function(const char *name, uint64_t vaddr, void *ctx)
{
	struct fn_list *l = ctx;

	if (l->re && regexec(l->re, name, 0, NULL, 0) != 0)
		return 0;
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n].name = xstrdup(name);
	l->v[l->n].vaddr = vaddr;
	l->n++;
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int info_functions(struct session *s, const char *regex, struct strbuf *out)
{
	struct target *t = s->target;
	struct tmodule **order = xcalloc(target_module_count(t) + 1, sizeof(*order));
	size_t n = target_modules_in_order(t, false, order), listed = 0, total = 0;
	regex_t re;

	if (regex && regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0) {
		strbuf_addf(out, "invalid regular expression '%s'\n", regex);
		free(order);
		return -WR_EUSAGE;
	}
	for (size_t i = 0; i < n; i++) {
		struct fn_list l = { .re = regex ? &re : NULL };

		dw_module_foreach_function(order[i]->dw, collect_function, &l);
		if (l.n)
			qsort(l.v, l.n, sizeof(*l.v), cmp_fn);
		if (l.n)
			strbuf_addf(out, "%s: %zu function%s\n", order[i]->path, l.n, l.n == 1 ? "" : "s");
		for (size_t k = 0; k < l.n; k++) {
			if (listed < MAX_LISTED) {
				strbuf_addf(out, "  0x%-10llx %s\n", (unsigned long long)l.v[k].vaddr, l.v[k].name);
				listed++;
			}
			free(l.v[k].name);
		}
		total += l.n;
		free(l.v);
	}
	if (total > listed)
		strbuf_addf(out, "... and %zu more; give a narrower REGEX\n", total - listed);
	if (!total)
		strbuf_addf(out, "no function matches '%s'\n", regex ? regex : "");
	if (regex)
		regfree(&re);
	free(order);
	return total ? 0 : -WR_ENOTARGET;
}

/* ---- info line / address / cfi ---- */

static void site_lines(struct tmodule *m, const struct dw_sites *sites, struct strbuf *out)
{
	for (size_t i = 0; i < sites->n; i++) {
		const struct dw_site *st = &sites->v[i];

		strbuf_addf(out, "  %s+0x%llx %s%s", dw_module_name(m->dw), (unsigned long long)st->vaddr,
			    st->function ? st->function : "??", st->inlined ? " (inlined)" : "");
		if (st->file)
			strbuf_addf(out, " at %s:%u", st->file, st->line);
		strbuf_addch(out, '\n');
	}
}

static int parse_target_arg(const char *arg, struct ast_target *t, struct strbuf *out)
{
	struct diag d = { 0 };
	int err = script_parse_target(arg, (struct src_loc){ 1, 1, 1 }, t, &d);

	if (err)
		strbuf_addf(out, "'%s': %s\n", arg, d.msg ? d.msg : "not a valid location");
	diag_release(&d);
	return err;
}

static int info_line(struct session *s, const char *arg, struct strbuf *out)
{
	struct target *t = s->target;
	struct ast_target at = { 0 };
	size_t found = 0;
	int err = parse_target_arg(arg, &at, out);

	if (err || at.kind != AST_TARGET_LINE) {
		ast_target_release(&at);
		return -WR_EUSAGE;
	}
	for (size_t i = 0; i < target_module_count(t); i++) {
		struct dw_sites sites = { 0 };

		if (!dw_module_has_dwarf(target_module(t, i)->dw))
			continue;
		dw_resolve_line(target_module(t, i)->dw, at.file, at.line, &sites);
		site_lines(target_module(t, i), &sites, out);
		found += sites.n;
		dw_sites_release(&sites);
	}
	if (!found)
		strbuf_addf(out, "no code at %s:%u (no line table of the target has it)\n", at.file,
			    at.line);
	ast_target_release(&at);
	return found ? 0 : -WR_ENOTARGET;
}

/* The module and address an `info address`/`info cfi` argument names. */
static struct tmodule *address_arg(struct session *s, const char *arg, uint64_t *addr,
				   struct strbuf *out)
{
	struct ast_target at = { 0 };
	struct tmodule *m = NULL;
	bool ambiguous = false;

	if (parse_target_arg(arg, &at, out) == 0 && at.kind == AST_TARGET_ADDRESS) {
		m = target_find_module(s->target, at.module, &ambiguous);
		*addr = at.address;
		if (!m)
			strbuf_addf(out, "%s module '%s'\n", ambiguous ? "ambiguous" : "no",
				    at.module ? at.module : "(main)");
	}
	ast_target_release(&at);
	return m;
}

static void symbol_lines(struct tmodule *m, uint64_t addr, struct strbuf *out)
{
	struct dw_sym sym;

	if (dw_symbolize(m->dw, addr, &sym) || !sym.n)
		return;
	for (size_t i = 0; i < sym.n; i++) {
		const struct dw_sym_frame *f = &sym.frames[i];

		strbuf_addf(out, "  %s%s", f->inlined ? "inlined " : "", f->function ? f->function : "??");
		if (f->params)
			strbuf_addf(out, "(%s)", f->params);
		if (f->file)
			strbuf_addf(out, " at %s:%u:%u", f->file, f->line, f->col);
		strbuf_addch(out, '\n');
	}
}

static int info_address(struct session *s, const char *arg, struct strbuf *out)
{
	uint64_t addr = 0;
	struct tmodule *m = arg ? address_arg(s, arg, &addr, out) : NULL;

	if (!m)
		return -WR_EUSAGE;
	if (!dw_module_vaddr_is_code(m->dw, addr)) {
		strbuf_addf(out, "0x%llx is not code in %s\n", (unsigned long long)addr, m->path);
		return -WR_ENOTARGET;
	}
	strbuf_addf(out, "%s+0x%llx:\n", m->path, (unsigned long long)addr);
	symbol_lines(m, addr, out);
	return 0;
}

static void cfi_row_line(struct tmodule *m, uint64_t pc, struct strbuf *out)
{
	const struct cfi_table *rows = target_module_rows(m);

	if (!rows->n) {
		strbuf_addf(out, "  %s+0x%llx: %s has no call frame information\n", dw_module_name(m->dw),
			    (unsigned long long)pc, m->path);
		return;
	}
	if (cfi_table_lookup(rows, pc) < 0) {
		strbuf_addf(out, "  %s+0x%llx: no unwind row covers this pc\n", dw_module_name(m->dw),
			    (unsigned long long)pc);
		return;
	}
	strbuf_addf(out, "  %s (%s): ", dw_module_name(m->dw), rows->source);
	cfi_table_dump(rows, target_module_rules(m), pc, out);
}

static int info_cfi(struct session *s, const char *arg, struct strbuf *out)
{
	uint64_t addr = 0;
	struct tmodule *m;

	if (!arg)
		return -WR_EUSAGE;
	target_load_cfi(s->target);
	if (strncmp(arg, "0x", 2) == 0 || strstr(arg, ":0x")) {
		m = address_arg(s, arg, &addr, out);
		if (!m)
			return -WR_EUSAGE;
		cfi_row_line(m, addr, out);
		return 0;
	}
	for (size_t i = 0; i < target_module_count(s->target); i++) {
		struct tmodule *mod = target_module(s->target, i);
		struct dw_sites sites = { 0 };

		dw_resolve_function(mod->dw, arg, &sites);
		for (size_t k = 0; k < sites.n; k++)
			cfi_row_line(mod, sites.v[k].vaddr, out);
		addr += sites.n;
		dw_sites_release(&sites);
	}
	if (!addr)
		strbuf_addf(out, "no function '%s'\n", arg);
	return addr ? 0 : -WR_ENOTARGET;
}

/* ---- info probes ---- */

static int info_probes(struct session *s, struct strbuf *out)
{
	if (!s->n_probes) {
		strbuf_addstr(out, "no probes; add one with `trace TARGET { ... }`\n");
		return 0;
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		struct probe *p = s->probes[i];
		struct session_probe_stats st;

		session_probe_stats(s, p, &st);
		strbuf_addf(out, "#%u %s  %s  sites %zu  hits %llu  events %llu  filtered %llu  lost %llu",
			    p->id, p->target_text, p->enabled ? "enabled" : "disabled", p->n_sites,
			    (unsigned long long)st.hits, (unsigned long long)p->counts.events,
			    (unsigned long long)st.filtered, (unsigned long long)st.lost);
		if (p->n_count_keys)
			strbuf_addf(out, "  stacks counted %llu  not counted %llu",
				    (unsigned long long)st.counted, (unsigned long long)st.count_dropped);
		strbuf_addch(out, '\n');
		for (size_t k = 0; k < p->n_sites; k++)
			if (p->sites[k].place_note)
				strbuf_addf(out, "    site %zu: %s\n", k + 1, p->sites[k].place_note);
		for (size_t k = 0; k < p->n_skipped; k++)
			strbuf_addf(out, "    skipped: %s\n", p->skipped[k]);
	}
	return 0;
}

enum info_topic { INFO_FUNCTIONS, INFO_LINE, INFO_ADDRESS, INFO_MODULES, INFO_PROBES, INFO_CFI, INFO_SCOPE };

/* Topics and the names gdb users type for them (`info breakpoints`,
 * `info sharedlibrary`); any prefix of one name only will do, as in gdb. */
static const struct { const char *name; enum info_topic topic; } info_topics[] = {
	{ "functions", INFO_FUNCTIONS }, { "line", INFO_LINE }, { "address", INFO_ADDRESS },
	{ "modules", INFO_MODULES }, { "sharedlibrary", INFO_MODULES }, { "probes", INFO_PROBES },
	{ "breakpoints", INFO_PROBES }, { "cfi", INFO_CFI }, { "scope", INFO_SCOPE },
};

static int topic_of(const char *word)
{
	int found = -1;
	size_t len = strlen(word);

	for (size_t i = 0; i < sizeof(info_topics) / sizeof(info_topics[0]); i++) {
		if (!strcmp(info_topics[i].name, word))
			return info_topics[i].topic;
		if (len && !strncmp(info_topics[i].name, word, len)) {
			if (found >= 0 && found != (int)info_topics[i].topic)
				return -1;
			found = (int)info_topics[i].topic;
		}
	}
	return found;
}

int info_run(struct session *s, const char *topic, const char *arg, struct strbuf *out)
{
	switch (topic_of(topic)) {
	case INFO_FUNCTIONS:
		return info_functions(s, arg, out);
	case INFO_LINE:
		return arg ? info_line(s, arg, out) : -WR_EUSAGE;
	case INFO_ADDRESS:
		return info_address(s, arg, out);
	case INFO_MODULES:
		target_dump_modules(s->target, out, false);
		return 0;
	case INFO_PROBES:
		return info_probes(s, out);
	case INFO_CFI:
		return info_cfi(s, arg, out);
	case INFO_SCOPE:
		return arg ? scope_info(s, arg, out) : -WR_EUSAGE;
	default:
		return -WR_EUSAGE;
	}
}

/* ---- diag ---- */

/* Backtraces of events and stacks `count bt` counted, together. */
static void diag_counts(const struct probe *p, struct strbuf *out)
{
	struct probe_bt_end ends[PROBE_BT_ENDS_MAX];
	size_t n = probe_bt_statuses(p, ends);

	strbuf_addstr(out, "  by status:\n");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "    %-24s %8llu  %s\n", ends[i].label,
			    (unsigned long long)ends[i].count, ends[i].explain);
	n = probe_bt_errors(p, ends);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "  error %-18s %8llu  (code=%u) %s\n", ends[i].label,
			    (unsigned long long)ends[i].count, ends[i].number, ends[i].explain);
}

static int cmp_stop(const void *a, const void *b)
{
	const struct stop_place *x = *(const struct stop_place *const *)a;
	const struct stop_place *y = *(const struct stop_place *const *)b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

void session_stop_place_text(struct session *s, const struct stop_place *sp, struct strbuf *out)
{
	struct wr_bt_frame f = { .ip = sp->pc, .pc = (uint32_t)sp->pc, .cookie = (uint16_t)sp->cookie };
	struct render_frame rf;
	const char *fn = NULL;

	target_symbolize(s->target, &f, &rf);
	if (rf.sym.n)
		fn = rf.sym.frames[rf.sym.n - 1].function;
	strbuf_addf(out, "%s+0x%llx in %s: %s", rf.module_name ? rf.module_name : "?",
		    (unsigned long long)sp->pc, fn ? fn : "??", bt_status_label(sp->status));
	if (sp->error)
		strbuf_addf(out, " (%s, code=%u)", bt_error_label(sp->error), sp->error);
	strbuf_addf(out, ", %llu time%s", (unsigned long long)sp->count, sp->count == 1 ? "" : "s");
}

void session_stop_row_text(struct session *s, const struct stop_place *sp, struct strbuf *out)
{
	struct tmodule *m = target_module_by_cookie(s->target, sp->cookie);
	/* the row the unwinder looked up: a return address's call, minus one */
	uint64_t pc = sp->exact || !sp->pc ? sp->pc : sp->pc - 1;
	const struct cfi_table *rows;
	size_t len;

	if (!m) {
		strbuf_addstr(out, "none: the address is in no module wraith knows of this process");
		return;
	}
	rows = target_module_rows(m);
	if (!rows->n) {
		strbuf_addf(out, "none: %s has no call frame information", dw_module_name(m->dw));
		return;
	}
	if (cfi_table_lookup(rows, pc) < 0) {
		strbuf_addf(out, "none: no row of %s covers %s+0x%llx", rows->source,
			    dw_module_name(m->dw), (unsigned long long)pc);
		return;
	}
	strbuf_addf(out, "%s+0x%llx, from %s: ", dw_module_name(m->dw), (unsigned long long)pc,
		    rows->source);
	len = out->len;
	cfi_table_dump(rows, target_module_rules(m), pc, out);
	while (out->len > len && out->buf[out->len - 1] == '\n')
		strbuf_setlen(out, out->len - 1);
}

static void diag_place(struct session *s, const struct stop_place *sp, unsigned rank,
		       struct strbuf *out)
{
	strbuf_addf(out, "  %u. ", rank);
	session_stop_place_text(s, sp, out);
	strbuf_addstr(out, "\n     unwind row: ");
	session_stop_row_text(s, sp, out);
	strbuf_addf(out, "\n     fix: %s\n     sample:\n", bt_status_fix(sp->status));
	for (const char *l = sp->sample; *l;) {
		size_t len = strcspn(l, "\n");

		strbuf_addf(out, "       %.*s\n", (int)len, l);
		l += len + (l[len] == '\n');
	}
}

static void diag_places(struct session *s, const struct probe *p, struct strbuf *out)
{
	const struct stop_place **order;

	if (!p->n_stops)
		return;
	order = xcalloc(p->n_stops, sizeof(*order));
	for (size_t i = 0; i < p->n_stops; i++)
		order[i] = &p->stops[i];
	qsort(order, p->n_stops, sizeof(*order), cmp_stop);
	strbuf_addstr(out, "  stopped early most often at:\n");
	for (size_t i = 0; i < p->n_stops && i < MAX_DIAG_PLACES; i++)
		diag_place(s, order[i], (unsigned)i + 1, out);
	free(order);
}

void info_diag(struct session *s, struct strbuf *out)
{
	size_t with_bt = 0;

	session_read_counted(s);
	for (size_t i = 0; i < s->n_probes; i++) {
		const struct probe *p = s->probes[i];

		if (!p->counts.backtraces && !p->counts.counted)
			continue;
		with_bt++;
		strbuf_addf(out, "probe %u (%s): %llu events, %llu backtraces", p->id, p->target_text,
			    (unsigned long long)p->counts.events, (unsigned long long)p->counts.backtraces);
		if (p->counts.counted)
			strbuf_addf(out, ", %llu stacks counted (count bt)",
				    (unsigned long long)p->counts.counted);
		strbuf_addch(out, '\n');
		diag_counts(p, out);
		diag_places(s, p, out);
	}
	if (!with_bt)
		strbuf_addstr(out, "no backtraces yet: add `bt;` or `count bt;` to a probe and let it "
			      "fire\n");
}

/* ---- completion names ---- */

struct source_offer {
	int (*fn)(const char *name, uint64_t vaddr, void *ctx);
	void *ctx;
};

static int offer_source(const char *path, void *ctx)
{
	struct source_offer *so = ctx;
	const char *base = strrchr(path, '/');
	char *name = xasprintf("%s:", base ? base + 1 : path);
	int r = so->fn(name, 0, so->ctx);

	free(name);
	return r;
}

void info_foreach_name(struct session *s, int (*fn)(const char *name, uint64_t vaddr, void *ctx),
		       void *ctx)
{
	struct target *t = s->target;
	struct tmodule **order = xcalloc(target_module_count(t) + 1, sizeof(*order));
	size_t n = target_modules_in_order(t, false, order);
	struct source_offer so = { fn, ctx };

	for (size_t i = 0; i < n; i++) {
		if (dw_module_foreach_function(order[i]->dw, fn, ctx))
			break;
		if (dw_module_has_dwarf(order[i]->dw) &&
		    dw_module_foreach_source(order[i]->dw, offer_source, &so))
			break;
	}
	free(order);
}
