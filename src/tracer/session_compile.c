/* session_compile.c - a probe's sites compiled and loaded: the plan of
 * each site (codegen/plan.h) with the answers codegen asks for about the
 * program there (variables, types, enumerators, functions, thread-local
 * blocks, the CFA rule for frame variables), a wire id each, codegen run,
 * and the object loaded into the kernel.  A site that cannot give what the
 * probe asks is compiled again printing a marker (lenient), or given up.
 */
#include "tracer/session_priv.h"
#include "codegen/codegen.h"
#include "dwarf/module.h"
#include "dwarf/vars.h"
#include "proc/pidns.h"
#include "runtime/runtime.h"
#include "script/walk.h"
#include "tracer/casttype.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A free wire id, after the last one given out: an id freed by a deleted
 * probe comes back only once all others were used, so its events still in
 * flight are dropped rather than shown as the new probe's, and its
 * counters start from zero. */
static uint32_t alloc_wire_id(struct session *s)
{
	for (uint32_t n = 1; n < WR_MAX_PROBES; n++) {
		uint32_t i = (s->wire_next + n - 1) % (WR_MAX_PROBES - 1) + 1;

		if (s->wire[i].probe)
			continue;
		s->wire_next = i;
		if (s->rt)
			runtime_reset_probe_stats(s->rt, i);
		return i;
	}
	return 0;
}

/* ---- what codegen asks about the program's variables ---- */

const struct dw_at *probe_site_at(const struct probe_site *site, struct dw_at *out)
{
	*out = (struct dw_at){ .pc = site->where.vaddr, .scope = site->where.scope,
			       .has_view = site->where.has_view, .view = site->where.view };
	return out;
}

struct site_ctx {
	struct probe *probe;
	struct probe_site *site;
	struct target *target;
};

/* What one site's lookups answered (a variable, an enumerator, a
 * function, the names visible there), kept while its probe's sites
 * compile: a site that cannot give a name is shaped three times (quiet,
 * described, lenient) and a form's site lowered once more for the
 * program, each time asking the same questions of the same DWARF. */
enum answer_kind { ANSWER_VAR, ANSWER_ENUMERATOR, ANSWER_FUNCTION, ANSWER_HINT };

struct site_answer {
	enum answer_kind kind;
	char *name;                 /* owned; NULL for ANSWER_HINT */
	int err;
	struct dw_var var;          /* ANSWER_VAR */
	const struct dw_type *type; /* ANSWER_ENUMERATOR, ANSWER_FUNCTION */
	uint64_t value;             /* an enumerator's value, a function's address */
	char *hint;                 /* ANSWER_HINT; owned */
};

struct site_answers {
	struct site_answer *v;
	size_t n, cap;
};

/* The names looked up at the sites of a probe, each with the first two
 * sites where target_find_var() finds it (SIZE_MAX: none): a site that
 * lacks a name asks whether another site has it, and at hundreds of
 * sites that lack it (Redis's sdsnewlen, 379) asking every other site
 * each time cost minutes.  And each site's answers, by site. */
struct site_names {
	struct site_name { char *name; size_t at[2]; } *v;
	size_t n, cap;
	struct site_answers *answers;
	size_t n_answers;
};

static void site_names_free(struct site_names *sn)
{
	if (!sn)
		return;
	for (size_t i = 0; i < sn->n; i++)
		free(sn->v[i].name);
	free(sn->v);
	for (size_t i = 0; i < sn->n_answers; i++) {
		for (size_t k = 0; k < sn->answers[i].n; k++) {
			free(sn->answers[i].v[k].name);
			free(sn->answers[i].v[k].hint);
		}
		free(sn->answers[i].v);
	}
	free(sn->answers);
	free(sn);
}

static struct site_names *probe_names(struct probe *p)
{
	return p->names ? p->names : (p->names = xcalloc(1, sizeof(*p->names)));
}

/* The site's answers (dropped with the names when session_load_sites()
 * returns). */
static struct site_answers *site_answers(struct site_ctx *sc)
{
	struct site_names *sn = probe_names(sc->probe);
	size_t i = (size_t)(sc->site - sc->probe->sites), n = sc->probe->n_sites;

	if (sn->n_answers < n) {
		sn->answers = xrealloc(sn->answers, n * sizeof(*sn->answers));
		memset(&sn->answers[sn->n_answers], 0, (n - sn->n_answers) * sizeof(*sn->answers));
		sn->n_answers = n;
	}
	return &sn->answers[i];
}

/* The answer of @kind about @name at the site, NULL when not asked yet. */
static const struct site_answer *answer_of(struct site_ctx *sc, enum answer_kind kind, const char *name)
{
	struct site_answers *a = site_answers(sc);

	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind == kind && (!name || !strcmp(a->v[i].name, name)))
			return &a->v[i];
	return NULL;
}

/* Keep answer @ans (its name copied, its hint taken over). */
static void keep_answer(struct site_ctx *sc, const struct site_answer *ans)
{
	struct site_answers *a = site_answers(sc);

	a->v = xgrow(a->v, &a->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n] = *ans;
	a->v[a->n++].name = ans->name ? xstrdup(ans->name) : NULL;
}

/* The entry of @name in @p's names, the sites looked through once. */
static const struct site_name *site_name(struct site_ctx *sc, const char *name)
{
	struct probe *p = sc->probe;
	struct site_names *sn = probe_names(p);
	struct site_name *e;
	struct dw_var v;
	struct dw_at at;
	size_t k = 0;

	for (size_t i = 0; i < sn->n; i++)
		if (!strcmp(sn->v[i].name, name))
			return &sn->v[i];
	sn->v = xgrow(sn->v, &sn->cap, sn->n + 1, sizeof(*sn->v));
	e = &sn->v[sn->n++];
	*e = (struct site_name){ xstrdup(name), { SIZE_MAX, SIZE_MAX } };
	for (size_t i = 0; i < p->n_sites && k < 2; i++)
		if (target_find_var(sc->target, p->sites[i].mod, probe_site_at(&p->sites[i], &at), name, &v) == 0)
			e->at[k++] = i;
	return e;
}

/* Variable @name at the site (its function's, counting what the abstract
 * instance names for a copy that dropped it; else a function's it is
 * inlined into, marked with that frame); else, when another site of the
 * probe has it (another library's function of the same name), it is
 * <optimized out> here, as gdb prints such a site.  -ENOENT only when no
 * site has it. */
static int var_find_once(struct site_ctx *sc, const char *name, struct dw_var *out)
{
	struct probe *p = sc->probe;
	const struct site_name *e;
	struct dw_at at;
	size_t here = (size_t)(sc->site - p->sites), o;
	int err = target_find_var(sc->target, sc->site->mod, probe_site_at(sc->site, &at), name, out);

	if (err == -ENOENT && sc->site->mod->dw)
		err = dw_var_find_outer(sc->site->mod->dw, probe_site_at(sc->site, &at), name, out);
	if (err != -ENOENT)
		return err;
	e = site_name(sc, name);
	o = e->at[0] == here ? e->at[1] : e->at[0];
	if (o == SIZE_MAX ||
	    target_find_var(sc->target, p->sites[o].mod, probe_site_at(&p->sites[o], &at), name, out) != 0)
		return -ENOENT;
	memset(&out->loc, 0, sizeof(out->loc));
	out->loc.kind = DW_LOC_OPTIMIZED_OUT;
	return 0;
}

static int var_find(void *ctx, const char *name, struct dw_var *out)
{
	struct site_ctx *sc = ctx;
	const struct site_answer *kept = answer_of(sc, ANSWER_VAR, name);
	struct site_answer ans = { .kind = ANSWER_VAR, .name = (char *)name };

	if (!kept) {
		ans.err = var_find_once(sc, name, &ans.var);
		keep_answer(sc, &ans);
		kept = &ans;
	}
	*out = kept->var;
	return kept->err;
}

/* Whether @name is among the names of hint @out already (an inlined
 * call's parameter shadows its caller's of the same name: named once). */
static bool hint_has(const struct strbuf *out, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(out->buf, name); p; p = strstr(p + 1, name))
		if (p > out->buf && p[-1] == ' ' && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static int hint_name(const struct dw_var *v, void *ctx)
{
	struct strbuf *out = ctx;

	if (out->len > 200)
		return 1;
	if (out->len && hint_has(out, v->name))
		return 0;
	strbuf_addf(out, "%s%s", out->len ? ", " : "visible here: ", v->name);
	return 0;
}

static void var_hint(void *ctx, struct strbuf *out)
{
	struct site_ctx *sc = ctx;
	const struct site_answer *kept = out->len ? NULL : answer_of(sc, ANSWER_HINT, NULL);
	struct strbuf hint = STRBUF_INIT;
	struct dw_at at;

	if (kept) {
		strbuf_addstr(out, kept->hint);
		return;
	}
	if (out->len) { /* what it writes depends on what is there */
		dw_var_foreach_at(sc->site->mod->dw, probe_site_at(sc->site, &at), hint_name, out);
		return;
	}
	dw_var_foreach_at(sc->site->mod->dw, probe_site_at(sc->site, &at), hint_name, &hint);
	strbuf_addstr(out, hint.buf);
	keep_answer(sc, &(struct site_answer){ .kind = ANSWER_HINT, .hint = strbuf_detach(&hint) });
}

static int type_find(void *ctx, const struct typespec *ts, const struct dw_type **out, struct diag *d)
{
	struct site_ctx *sc = ctx;

	return casttype_resolve(sc->target, sc->site->mod, ts, out, d);
}

static int enumerator_find(void *ctx, const char *name, const struct dw_type **type, int64_t *value)
{
	struct site_ctx *sc = ctx;
	const struct site_answer *kept = answer_of(sc, ANSWER_ENUMERATOR, name);
	struct site_answer ans = { .kind = ANSWER_ENUMERATOR, .name = (char *)name };
	int64_t v = 0;

	if (!kept) {
		ans.err = dw_enumerator_find(sc->site->mod->dw, sc->site->where.vaddr, name, &ans.type, &v);
		ans.value = (uint64_t)v;
		keep_answer(sc, &ans);
		kept = &ans;
	}
	if (!kept->err) {
		*type = kept->type;
		*value = (int64_t)kept->value;
	}
	return kept->err;
}

static int function_find(void *ctx, const char *name, const struct dw_type **type, uint64_t *vaddr)
{
	struct site_ctx *sc = ctx;
	const struct site_answer *kept = answer_of(sc, ANSWER_FUNCTION, name);
	struct site_answer ans = { .kind = ANSWER_FUNCTION, .name = (char *)name };

	if (!kept) {
		ans.err = dw_function_find(sc->site->mod->dw, sc->site->where.vaddr, name, &ans.type,
					   &ans.value);
		keep_answer(sc, &ans);
		kept = &ans;
	}
	if (!kept->err) {
		*type = kept->type;
		*vaddr = kept->value;
	}
	return kept->err;
}

static const struct dw_type *type_pointer(void *ctx, const struct dw_type *target)
{
	struct site_ctx *sc = ctx;

	return dw_type_pointer(sc->site->mod->dw, target);
}

static int tls_block(void *ctx, const struct dw_module *owner, bool *is_static, uint64_t *value,
		     const char **why, const char **hint)
{
	struct site_ctx *sc = ctx;
	struct target_tls tls;
	int err = target_tls_block(sc->target, owner, sc->site->mod, &tls, why);

	if (err) {
		*hint = err == -ESRCH ? "trace one process with -p PID to read a shared library's "
					"thread-local variables" : NULL;
		return err;
	}
	*is_static = tls.is_static;
	*value = tls.value;
	return 0;
}

/* The entry of print argument @arg of print @print at site @site. */
static struct render_arg_type *site_arg(struct probe_site *site, unsigned print, unsigned arg)
{
	for (size_t i = 0; i < site->n_args; i++)
		if (site->args[i].print == print && site->args[i].arg == arg)
			return &site->args[i];
	site->args = xgrow(site->args, &site->cap_args, site->n_args + 1, sizeof(*site->args));
	site->args[site->n_args] = (struct render_arg_type){ (uint16_t)print, (uint16_t)arg, NULL, NULL };
	return &site->args[site->n_args++];
}

/* What the probe's code says of its print arguments at @site: those a
 * lenient site cannot give, in its notes ("line:col: why" a line); for
 * the renderer, their types (the probe's from the first site that has
 * one) and the frames whose variables they read.  A module without
 * DWARF has no types kept: its values are shown by their wire kinds. */
static void keep_args(struct probe *p, struct probe_site *site, const struct codegen_args *args)
{
	struct strbuf notes = STRBUF_INIT;

	if (args->n_markers) {
		if (site->notes)
			strbuf_addstr(&notes, site->notes);
		for (size_t i = 0; i < args->n_markers; i++)
			strbuf_addf(&notes, "%u:%u: %s\n", args->markers[i].line, args->markers[i].col,
				    args->markers[i].why);
		free(site->notes);
		site->notes = strbuf_detach(&notes);
	}
	if (!dw_module_has_dwarf(site->mod->dw))
		return;
	for (size_t i = 0; i < args->n; i++) {
		const struct codegen_arg *a = &args->v[i];
		struct render_arg_type *kept = site_arg(site, a->print, a->arg);

		if (a->type) {
			probe_note_arg_type(p, a->print, a->arg, a->type, site->mod->dw);
			kept->type = a->type;
			kept->module = site->mod->dw;
		}
		if (a->frame)
			kept->frame = a->frame;
	}
}

static void frame_vars(void *ctx, bool locals, int (*fn)(const struct dw_var *v, void *arg),
		       void *arg)
{
	struct probe_site *site = ((struct site_ctx *)ctx)->site;

	dw_frame_vars(site->mod->dw, site->where.vaddr, DW_FRAME_ALL, true, locals, fn, arg);
}

/* The CFA rule at the site, for frame variables. */
static void site_cfa(struct session *s, struct probe_site *site, struct probe_plan *plan)
{
	plan->cfa_reg = -1;
	target_cfa_at(s->target, site->mod, site->where.vaddr, &site->rule0, &plan->cfa_reg,
		      &plan->cfa_off);
}

/* The attach cookie of @site's uprobes: its wire id, and the process or
 * thread it traces (WR_COOKIE_THREAD), or under -t PATH for a site outside
 * PATH's file, the target's processes (WR_COOKIE_MEMBERS). */
static uint64_t site_cookie(const struct session *s, const struct probe_site *site)
{
	pid_t pid = target_pid(s->target), tid = target_tid(s->target);
	uint64_t only = tid > 0 ? (uint32_t)tid | WR_COOKIE_THREAD : pid > 0 ? (uint32_t)pid : 0;

	if (target_site_filtered(s->target, site->mod))
		only = WR_COOKIE_MEMBERS;

	return site->wire_id | only << 32;
}

static struct codegen_options site_options(const struct session *s)
{
	return (struct codegen_options){ .transport = session_wire_transport(s->opt.transport),
					 .fault_in = s->opt.fault_in, .cache = s->objects,
					 .print_elements = s->renderer.limits.elements };
}

/* The plan of @site into @plan, which points into @sc and @where (the
 * caller's, released after the plan's use). */
static void site_plan(struct session *s, struct probe *p, struct probe_site *site, bool lenient,
		      struct site_ctx *sc, struct strbuf *where, struct probe_plan *plan)
{
	*sc = (struct site_ctx){ p, site, s->target };
	*plan = (struct probe_plan){
		.probe_id = site->wire_id, .ast = p->ast, .pc = site->where.vaddr,
		.rule0 = site->rule0, .bt_depth = s->opt.bt_depth, .name = p->target_text,
		.tgid = target_pid(s->target) > 0 ? (uint32_t)target_pid(s->target) : 0, .lenient = lenient,
		/* the sites of a probe share the programs they can */
		.site_table = p->n_sites > 1,
	};
	/* errors at one of several sites say which (@where NULL: none
	 * expected) */
	if (p->n_sites > 1 && where) {
		strbuf_addf(where, "%s (site %zu of %zu: ", p->target_text, (size_t)(site - p->sites) + 1,
			    p->n_sites);
		target_describe_site(s->target, site->mod, site->where.vaddr, where);
		strbuf_addch(where, ')');
		plan->name = where->buf;
	}
	plan->cxx = dw_module_pc_is_cxx(site->mod->dw, site->where.vaddr);
	if (dw_module_has_dwarf(site->mod->dw))
		plan->vars = (struct plan_vars){ .find = var_find, .hint = var_hint,
						 .find_type = type_find, .pointer_to = type_pointer,
						 .find_enumerator = enumerator_find,
						 .find_function = function_find,
						 .tls_block = tls_block,
						 .frame_vars = frame_vars, .ctx = sc };
	site_cfa(s, site, plan);
	plan->rule0 = site->rule0; /* looked up again if the rows were not read */
	if (plan->tgid && plan->tgid != s->pidns.tgid) {
		s->pidns.tgid = plan->tgid;
		proc_pidns((pid_t)plan->tgid, &s->pidns.dev, &s->pidns.ino);
	}
	if (plan->tgid) {
		plan->pidns_dev = s->pidns.dev;
		plan->pidns_ino = s->pidns.ino;
	}
	plan->fsbase_offset = runtime_fsbase_offset;
}

/* Load @blob for @site (its program, its table entry, its gate); a
 * verifier's rejection is said in @errors. */
static int load_site(struct session *s, struct probe *p, struct probe_site *site,
		     const struct bpf_blob *blob, struct strbuf *errors)
{
	char *why = NULL;
	double t1;
	int err = session_kernel_wait(s);

	t1 = now_seconds();
	if (!err)
		err = runtime_load_probe(s->rt, blob, site_cookie(s, site), &site->rt, &why);
	if (!err)
		runtime_gate_set(s->rt, site->wire_id, p->gate);
	wr_debug("probe %u site %u: loaded (verifier) in %.1f ms", p->id, site->wire_id,
		 (now_seconds() - t1) * 1e3);
	if (err == -WR_EVERIFIER)
		strbuf_addf(errors, "wraith: the kernel's BPF verifier rejected probe %u (%s at %s+0x%llx): "
			    "%s\nhint: %s\n",
			    p->id, p->target_text, dw_module_name(site->mod->dw),
			    (unsigned long long)site->where.vaddr, why ? why : "no reason given",
			    s->opt.fault_in && why && strstr(why, "combined stack size")
			    ? "under --fault-in a probe with `bt` unwinds in its own program, whose "
			      "512 bytes of stack the unwinder then shares; move the bt to a probe of "
			      "its own, or trace without --fault-in"
			    : "run with -v, or --log-file FILE, to see the whole verifier log");
	free(why);
	return err;
}

/* ---- progress ----
 * Start-up that runs longer than PROGRESS_AFTER seconds says, where the
 * front end shows progress (a terminal), how far through a probe's sites
 * it is, rather than keep silent: a probe of hundreds of sites on a big
 * program can take seconds.  WRAITH_PROGRESS_AFTER=SECONDS sets the wait
 * (tests set 0). */

#define PROGRESS_AFTER 1.0
#define PROGRESS_EVERY 0.1 /* seconds between two updates */

struct sites_progress {
	struct session *s;
	struct probe *p;
	double t0, after, last;
	bool shown;
};

static void progress_start(struct sites_progress *pg, struct session *s, struct probe *p)
{
	const char *env = getenv("WRAITH_PROGRESS_AFTER");
	char *end;

	*pg = (struct sites_progress){ s, p, now_seconds(), PROGRESS_AFTER, 0, false };
	if (env && *env) {
		double v = strtod(env, &end);

		if (!*end && v >= 0)
			pg->after = v;
	}
}

/* Say "@what site @done of @n" once start-up has taken long enough. */
static void progress_site(struct sites_progress *pg, const char *what, size_t done, size_t n)
{
	double t = now_seconds();
	char *text;

	if (t - pg->t0 < pg->after || (pg->shown && t - pg->last < PROGRESS_EVERY && done < n))
		return;
	text = xasprintf("probe %u (%s): %s site %zu of %zu", pg->p->id, pg->p->target_text, what, done, n);
	target_progress(pg->s->target, text);
	free(text);
	pg->shown = true;
	pg->last = t;
}

/* The same for a step of the whole probe (@what). */
static void progress_probe(struct sites_progress *pg, const char *what)
{
	char *text;

	if (now_seconds() - pg->t0 < pg->after)
		return;
	text = xasprintf("probe %u (%s): %s", pg->p->id, pg->p->target_text, what);
	target_progress(pg->s->target, text);
	free(text);
	pg->shown = true;
}

static void progress_end(struct sites_progress *pg)
{
	if (pg->shown)
		target_progress(pg->s->target, NULL);
	pg->shown = false;
}

static void say_lenient(struct session *s, struct probe *p, struct probe_site *site,
			const struct diag *d);

/* A site that compiled as it is but prints markers all the same (a
 * variable in a register no probe can read: <unavailable>) says so once,
 * naming the site, as a lenient one does. */
static void say_markers(struct session *s, struct probe *p, struct probe_site *site, bool lenient,
			int err, const struct codegen_args *args)
{
	if (!lenient && !err && args->n_markers)
		say_lenient(s, p, site, NULL);
}

static int compile_site(struct session *s, struct probe *p, struct probe_site *site, bool lenient,
			struct diag *d, struct strbuf *errors)
{
	struct codegen_options co = site_options(s);
	struct probe_plan plan;
	struct site_ctx sc;
	struct bpf_blob blob = { 0 };
	struct codegen_args args;
	struct strbuf where = STRBUF_INIT;
	int err;
	double t0 = now_seconds(), t1;

	site_plan(s, p, site, lenient, &sc, &where, &plan);
	err = codegen_probe(&co, &plan, &blob, &args, d, NULL);
	keep_args(p, site, &args);
	say_markers(s, p, site, lenient, err, &args);
	codegen_args_release(&args);
	t1 = now_seconds();
	wr_debug("probe %u site %u: %s in %.1f ms (%zu bytes of BPF object)", p->id, site->wire_id,
		 blob.origin == BPF_BLOB_DISK_CACHE ? "from the probe cache"
		 : blob.origin == BPF_BLOB_SHAPE ? "reused an earlier probe's object" : "compiled",
		 (t1 - t0) * 1e3, blob.size);

	strbuf_release(&where);
	if (err || s->opt.dry_run) {
		site->bpf_insns = blob.size;
		bpf_blob_release(&blob);
		return err;
	}
	err = load_site(s, p, site, &blob, errors);
	bpf_blob_release(&blob);
	return err;
}

/* Say what became of @site, which did not lower as it is: dead (@d says
 * why), or printing a marker for what it cannot give (its notes). */
static void say_lenient(struct session *s, struct probe *p, struct probe_site *site,
			const struct diag *d)
{
	struct strbuf where = STRBUF_INIT;
	size_t i = (size_t)(site - p->sites);

	target_describe_site(s->target, site->mod, site->where.vaddr, &where);
	if (site->dead)
		wr_warn("probe %u (%s), site %zu of %zu (%s): not traced: %s", p->id, p->target_text,
			i + 1, p->n_sites, where.buf, d && d->msg ? d->msg : "it does not compile here");
	else
		wr_warn("probe %u (%s), site %zu of %zu (%s) prints a marker for what it cannot "
			"give:\n%s", p->id, p->target_text, i + 1, p->n_sites, where.buf, site->notes);
	strbuf_release(&where);
}

/* Sites the first pass could not compile, compiled again printing a
 * marker for what each cannot give (plan.lenient), or given up (dead);
 * each is said, naming the site. */
static void load_lenient(struct session *s, struct probe *p, const bool *failed, size_t first,
			 struct strbuf *errors, struct sites_progress *pg)
{
	for (size_t i = first; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];
		struct diag d = { 0 };

		if (!failed[i - first])
			continue;
		progress_site(pg, "compiling with markers", i + 1, p->n_sites);
		free(site->notes);
		site->notes = NULL;
		site->dead = compile_site(s, p, site, true, &d, errors) != 0;
		say_lenient(s, p, site, &d);
		diag_release(&d);
	}
}

/* ---- the sites of a probe in one program ----
 * Sites whose code differs in more than their table entry (where each
 * variable lives: a register, a stack slot, a constant, an entry value,
 * a piece...) are forms of the probe.  Each site is lowered for its shape
 * only; then one object holds every form of the sites, behind a switch
 * on the form in the site's entry, compiled, loaded and verified once,
 * where a program per form cost a compile and a load each (Redis's
 * sdsnewlen: 17 forms in 379 sites). */

struct site_shape {
	struct codegen_shape shape;
	size_t form;       /* index into the forms; SIZE_MAX: none (dead) */
	bool failed;       /* did not lower without markers */
};

/* The shape of @site (its print arguments and notes kept), as
 * compile_site() would lower it; its messages name the site if
 * @described. */
static int shape_site(struct session *s, struct probe *p, struct probe_site *site, bool lenient,
		      bool described, struct codegen_shape *out, struct diag *d)
{
	struct codegen_options co = site_options(s);
	struct strbuf where = STRBUF_INIT;
	struct codegen_args args;
	struct probe_plan plan;
	struct site_ctx sc;
	int err;

	site_plan(s, p, site, lenient, &sc, described ? &where : NULL, &plan);
	err = codegen_shape(&co, &plan, out, &args, d);
	keep_args(p, site, &args);
	say_markers(s, p, site, lenient, err, &args);
	codegen_args_release(&args);
	strbuf_release(&where);
	return err;
}

/* The shape of @site without markers.  Describing a site (its function
 * and the one it is inlined into, from the line tables) costs about as
 * much as lowering it, and only an error says it: so a site is described
 * when it fails, and shaped again for the error that names it. */
static int shape_plain(struct session *s, struct probe *p, struct probe_site *site,
		       struct codegen_shape *out, struct diag *d)
{
	struct diag quiet = { 0 };
	int err = shape_site(s, p, site, false, false, out, &quiet);

	diag_release(&quiet);
	if (err != -WR_ESEMANTIC)
		return err;
	codegen_shape_release(out);
	return shape_site(s, p, site, false, true, out, d);
}

/* Shape every site from @first: 0 when at least one lowers (those that
 * cannot lower without markers shaped again printing them, or dead);
 * -WR_ESEMANTIC with @d the first site's error when none does. */
static int shape_sites(struct session *s, struct probe *p, size_t first, struct site_shape *sh,
		       struct diag *d, struct sites_progress *pg)
{
	size_t ok = 0, n_failed = 0;

	for (size_t i = 0; i < first; i++)
		ok += !p->sites[i].dead;
	for (size_t i = first; i < p->n_sites; i++) {
		struct diag sd = { 0 };
		int err;

		progress_site(pg, "compiling", i + 1, p->n_sites);
		err = shape_plain(s, p, &p->sites[i], &sh[i - first].shape, n_failed ? &sd : d);

		diag_release(&sd);
		if (err && err != -WR_ESEMANTIC)
			return err;
		sh[i - first].failed = err != 0;
		n_failed += err != 0;
		ok += !err;
	}
	if (n_failed && !ok)
		return -WR_ESEMANTIC; /* @d holds the first site's error */
	if (n_failed) {
		diag_release(d);
		memset(d, 0, sizeof(*d));
	}
	for (size_t i = first; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];
		struct diag sd = { 0 };

		if (!sh[i - first].failed)
			continue;
		progress_site(pg, "compiling with markers", i + 1, p->n_sites);
		free(site->notes);
		site->notes = NULL;
		site->dead = shape_site(s, p, site, true, true, &sh[i - first].shape, &sd) != 0;
		say_lenient(s, p, site, &sd);
		diag_release(&sd);
	}
	return 0;
}

/* The forms of the shaped sites (sh[i].form set): their count, and one
 * site of each in @rep. */
static size_t group_forms(struct probe *p, size_t first, struct site_shape *sh, size_t *rep)
{
	size_t n_forms = 0;

	for (size_t i = 0; i < p->n_sites - first; i++) {
		size_t f = 0;

		sh[i].form = SIZE_MAX;
		if (p->sites[first + i].dead)
			continue;
		while (f < n_forms && strcmp(sh[rep[f]].shape.key, sh[i].shape.key) != 0)
			f++;
		if (f == n_forms)
			rep[n_forms++] = i;
		sh[i].form = f;
	}
	return n_forms;
}

/* The object of the @n forms whose sites are @rep, into @blob (one form:
 * its own program, as a site alone has). */
static int compile_forms(struct session *s, struct probe *p, size_t first, const struct site_shape *sh,
			 const size_t *rep, size_t n, struct bpf_blob *blob)
{
	struct codegen_options co = site_options(s);
	struct probe_plan *plans = xcalloc(n, sizeof(*plans));
	const struct probe_plan **pp = xcalloc(n, sizeof(*pp));
	const struct codegen_shape **shapes = xcalloc(n, sizeof(*shapes));
	struct site_ctx *sc = xcalloc(n, sizeof(*sc));
	struct strbuf *where = xcalloc(n, sizeof(*where));
	struct diag d = { 0 };
	int err;

	for (size_t f = 0; f < n; f++) {
		struct probe_site *site = &p->sites[first + rep[f]];

		strbuf_init(&where[f]);
		site_plan(s, p, site, sh[rep[f]].failed, &sc[f], &where[f], &plans[f]);
		pp[f] = &plans[f];
		shapes[f] = &sh[rep[f]].shape;
	}
	if (n == 1)
		err = codegen_probe(&co, pp[0], blob, NULL, &d, NULL);
	else
		err = codegen_forms(&co, pp, shapes, n, blob, &d);
	if (err)
		wr_debug("probe %u: its %zu forms do not compile into one program (%s): one each",
			 p->id, n, d.msg ? d.msg : wr_strerror(err));
	diag_release(&d);
	for (size_t f = 0; f < n; f++)
		strbuf_release(&where[f]);
	free(where);
	free(sc);
	free(shapes);
	free(pp);
	free(plans);
	return err;
}

/* Load the object @blob of the forms for every shaped site from @first,
 * each with its own table entry. */
static int load_forms(struct session *s, struct probe *p, size_t first, const struct site_shape *sh,
		      size_t n_forms, const struct bpf_blob *blob, struct strbuf *errors)
{
	bool verified = false;
	int err = 0;

	for (size_t i = first; i < p->n_sites && !err; i++) {
		struct probe_site *site = &p->sites[i];
		const struct site_shape *one = &sh[i - first];
		uint64_t v[WR_SITE_PARAMS] = { 0 };
		struct bpf_blob b = *blob;

		if (site->dead)
			continue;
		memcpy(v, one->shape.params, one->shape.n_params * sizeof(*v));
		v[WR_SITE_FORM] = one->form;
		b.site_params = v;
		b.n_site_params = WR_SITE_PARAMS;
		b.site_table = true;
		site->bpf_insns = blob->size;
		if (!s->opt.dry_run && !verified && n_forms > 1) {
			/* the first load verifies the program the others share */
			struct strbuf why = STRBUF_INIT;

			err = load_site(s, p, site, &b, &why);
			if (err == -WR_EVERIFIER) {
				wr_debug("probe %u: the kernel refuses the program of its %zu forms, "
					 "so each gets its own:\n%s", p->id, n_forms, why.buf);
				err = -EAGAIN;
			} else {
				strbuf_add(errors, why.buf, why.len);
			}
			strbuf_release(&why);
			verified = true;
		} else if (!s->opt.dry_run) {
			err = load_site(s, p, site, &b, errors);
		}
	}
	return err;
}

/* Back to one by one: forget what load_sites_together() did. */
static void forget_sites(struct session *s, struct probe *p, size_t first)
{
	for (size_t i = first; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];

		if (site->wire_id)
			s->wire[site->wire_id].probe = NULL;
		site->wire_id = 0;
		site->dead = false;
		free(site->notes);
		site->notes = NULL;
	}
}

/* Give site @i of @p the next wire id (events name their site by it). */
static int assign_wire_id(struct session *s, struct probe *p, size_t i, struct strbuf *errors)
{
	struct probe_site *site = &p->sites[i];

	site->wire_id = alloc_wire_id(s);
	if (!site->wire_id) {
		strbuf_addf(errors, "wraith: too many probe sites (at most %u)\n", WR_MAX_PROBES - 1);
		return -WR_ELIMIT;
	}
	s->wire[site->wire_id].probe = p;
	s->wire[site->wire_id].site = i;
	return 0;
}

/* The sites from @first in one program: 0 or an error as
 * session_load_sites(); -EAGAIN when they are to be compiled one by one
 * (forms that do not fit in one program), with nothing of theirs kept. */
static int load_sites_together(struct session *s, struct probe *p, size_t first, struct diag *d,
			       struct strbuf *errors, struct sites_progress *pg)
{
	size_t n = p->n_sites - first, *rep = xcalloc(n, sizeof(*rep)), n_forms = 0;
	struct site_shape *sh = xcalloc(n, sizeof(*sh));
	struct bpf_blob blob = { 0 };
	int err = 0;

	for (size_t i = first; i < p->n_sites && !err; i++)
		err = assign_wire_id(s, p, i, errors);
	if (!err)
		err = shape_sites(s, p, first, sh, d, pg);
	if (!err)
		n_forms = group_forms(p, first, sh, rep);
	if (!err)
		progress_probe(pg, n_forms > 1 ? "compiling its forms into one program" : "compiling");
	if (!err && compile_forms(s, p, first, sh, rep, n_forms, &blob))
		err = -EAGAIN;
	if (!err && !s->opt.dry_run)
		progress_probe(pg, "loading");
	if (!err) {
		wr_debug("probe %u: %zu sites in %zu forms, one program", p->id, n, n_forms);
		err = load_forms(s, p, first, sh, n_forms, &blob, errors);
	}
	if (err == -EAGAIN)
		forget_sites(s, p, first);
	bpf_blob_release(&blob);
	for (size_t i = 0; i < n; i++)
		codegen_shape_release(&sh[i].shape);
	free(sh);
	free(rep);
	return err;
}

int session_load_sites(struct session *s, struct probe *p, size_t first, struct diag *d,
		       struct strbuf *errors)
{
	struct sites_progress pg;
	bool *failed;
	size_t ok = 0, n_failed = 0;
	int err;

	progress_start(&pg, s, p);
	err = p->n_sites - first > 1 ? load_sites_together(s, p, first, d, errors, &pg) : -EAGAIN;

	if (err != -EAGAIN)
		goto out;
	err = 0;
	failed = xcalloc(p->n_sites - first + 1, sizeof(bool));

	for (size_t i = 0; i < first; i++)
		ok += !p->sites[i].dead;
	for (size_t i = first; i < p->n_sites && !err; i++) {
		struct probe_site *site = &p->sites[i];
		struct diag sd = { 0 };

		err = assign_wire_id(s, p, i, errors);
		if (err)
			break;
		progress_site(&pg, "compiling", i + 1, p->n_sites);
		/* An error of one site of several is that site's own unless
		 * no site compiles (then it is the script's). */
		err = compile_site(s, p, site, false, n_failed ? &sd : d, errors);
		if (err == -WR_ESEMANTIC && p->n_sites > 1) {
			failed[i - first] = true;
			n_failed++;
			err = 0;
		} else {
			ok += !err;
		}
		diag_release(&sd);
	}
	if (err && n_failed) {
		diag_release(d); /* the error is another */
		memset(d, 0, sizeof(*d));
	} else if (!err && n_failed && !ok)
		err = -WR_ESEMANTIC; /* @d holds the first site's error */
	else if (!err && n_failed) {
		diag_release(d);
		memset(d, 0, sizeof(*d));
		load_lenient(s, p, failed, first, errors, &pg);
	}
	free(failed);
out:
	progress_end(&pg);
	site_names_free(p->names);
	p->names = NULL;
	return err;
}
