/* session.c - a session's life and its probes: opened on a target,
 * scripts added, probes listed, enabled, deleted and described, closed
 * (see session.h).  The parts of the way live apart: the kernel side
 * loaded while probes compile (session_kernel.c), a probe's sites placed
 * and attached (session_sites.c), compiled and loaded
 * (session_compile.c), the renderer's hooks (session_hooks.c), and events
 * from the kernel to the sink (session_events.c).
 *
 * Adding a script is all or nothing: every probe in it is parsed, checked,
 * resolved and compiled before the first is loaded, and when any later
 * step fails the probes of that script already loaded are removed again,
 * so a failed `trace` never leaves half a probe attached.
 */
#include "tracer/session_priv.h"
#include "codegen/codegen.h"
#include "dwarf/debugfile.h"
#include "dwarf/module.h"
#include "render/status.h"
#include "runtime/prearm.h"
#include "runtime/runtime.h"
#include "script/parser.h"
#include "script/walk.h"
#include "tracer/frame_values.h"
#include "tracer/locate.h"
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

/* debuginfod's progress goes where the target's does. */
static void debug_progress(void *ctx, const char *text)
{
	struct session *s = ctx;

	if (s->target)
		target_progress(s->target, text);
}

static void configure_debug(struct session *s)
{
	const struct session_debug_options *d = &s->opt.debug;
	struct dw_debug_config c = {
		.dirs = d->dirs, .n_dirs = d->n_dirs, .loose = d->loose, .debuginfod = d->debuginfod,
		.urls = d->urls, .n_urls = d->n_urls, .cache_dir = d->cache_dir, .timeout = d->timeout,
		.max_size = d->max_size, .index_dir = s->opt.probe_cache_dir,
		.progress = debug_progress, .progress_ctx = s,
	};

	dw_debug_configure(&c);
}

static int open_target(struct session *s, const struct session_options *opt)
{
	struct tmodule *m;
	int err;

	if (opt->pid) {
		err = target_open_pid(opt->pid, &s->target);
		if (!err && opt->path)
			err = target_set_scope(s->target, opt->path);
	} else {
		err = target_open_path(opt->path, &s->target);
	}
	m = err ? NULL : target_main_module(s->target);
	if (m && opt->debug.debug_file)
		err = dw_module_set_debug_file(m->dw, opt->debug.debug_file);
	return err;
}

static bool script_has_count(const struct ast_script *sc)
{
	for (size_t i = 0; i < sc->n_probes; i++)
		if (ast_probe_count(sc->probes[i], AST_STMT_COUNT))
			return true;
	return false;
}

/* The parts of the base object @sc never reaches (WR_BASE_NO_*). */
static unsigned script_base_omits(const struct ast_script *sc)
{
	unsigned omits = WR_BASE_NO_STEP | WR_BASE_NO_COUNT | WR_BASE_NO_VALUES | WR_BASE_NO_WALKS;

	for (size_t i = 0; i < sc->n_probes; i++) {
		const struct ast_probe *p = sc->probes[i];
		size_t n_bt = ast_probe_count(p, AST_STMT_BT);

		if (n_bt || ast_probe_count(p, AST_STMT_COUNT))
			omits &= ~WR_BASE_NO_STEP;
		if (ast_probe_count(p, AST_STMT_COUNT))
			omits &= ~WR_BASE_NO_COUNT;
		for (size_t k = 0; k < n_bt; k++)
			if (ast_probe_nth(p, AST_STMT_BT, k)->bt_flags & (WR_BT_F_ARGS | WR_BT_F_FULL))
				omits &= ~WR_BASE_NO_VALUES;
		for (size_t k = 0; k < n_bt; k++)
			if (ast_probe_nth(p, AST_STMT_BT, k)->bt_flags & WR_BT_F_FULL)
				omits &= ~WR_BASE_NO_WALKS;
	}
	return omits;
}

/* Script mode: parse the one script now, for session_add_script() to
 * take; the counting maps' buckets cost start-up time even unused, so a
 * script without `count bt` gets none, and the base object leaves out
 * what the script cannot reach (its step program is most of the kernel's
 * checking at start). */
static void parse_only_script(struct session *s, const char *text)
{
	s->only.text = xstrdup(text);
	s->only.err = script_parse(s->only.text, &s->only.ast, &s->only.diag);
	if (!s->only.err && !script_has_count(s->only.ast))
		s->opt.stack_entries = 1;
	if (!s->only.err)
		s->base_omits = script_base_omits(s->only.ast);
}

static void only_script_release(struct session *s)
{
	free(s->only.text);
	ast_script_free(s->only.ast);
	diag_release(&s->only.diag);
}

void session_prepare(const struct session_options *opt)
{
	codegen_prepare(&(struct codegen_options){ .transport = session_wire_transport(opt->transport),
						    .fault_in = opt->fault_in });
}

void session_shutdown(void)
{
	codegen_shutdown();
}

int session_new(const struct session_options *opt, struct session **out)
{
	struct session *s = xcalloc(1, sizeof(*s));
	struct render_hooks hooks;
	double t0 = now_seconds();
	int err;

	*out = NULL;
	s->opt = *opt;
	s->cfi_outer[0] = s->cfi_outer[1] = -1;
	s->opt.only_script = NULL;
	s->opt.print = NULL;
	if (!s->opt.bt_depth)
		s->opt.bt_depth = WR_BT_DEFAULT_DEPTH;
	if (opt->only_script)
		parse_only_script(s, opt->only_script);
	if (opt->start_kernel)
		session_start(s);
	configure_debug(s);
	err = open_target(s, opt);
	if (err) {
		session_kernel_abandon(s);
		target_free(s->target);
		dw_debug_config_release();
		only_script_release(s);
		free(s);
		return err;
	}
	s->objects = codegen_cache_new(s->opt.probe_cache_dir);
	s->next_probe_id = 1;
	s->mods_seen = target_module_count(s->target);
	s->budget = UINT64_MAX;
	span_list_init(&s->spans);
	s->backlog = xcalloc(1, sizeof(*s->backlog));
	strbuf_init(s->backlog);
	session_render_hooks(s, &hooks);
	renderer_init(&s->renderer, opt->format, &hooks);
	s->renderer.relative_time = opt->relative_time;
	s->renderer.json_only = opt->format == RENDER_JSON && opt->only_script;
	/* what probes copy (session_compile.c) and what is shown alike */
	if (opt->print)
		s->renderer.limits = (struct render_limits){ opt->print->elements, opt->print->depth };
	event_decoder_init(&s->decoder);
	wr_debug("target opened: %zu modules in %.1f ms", target_module_count(s->target), (now_seconds() - t0) * 1e3);
	*out = s;
	return 0;
}

static void unload_probe(struct session *s, struct probe *p)
{
	if (p->pending)
		s->n_pending--;
	for (size_t i = 0; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];

		if (s->rt)
			runtime_unload(s->rt, site->rt);
		if (site->wire_id < WR_MAX_PROBES && s->wire[site->wire_id].probe == p)
			s->wire[site->wire_id].probe = NULL;
	}
	/* Detached first: no hit counts after the counts are gone. */
	runtime_settle(s->rt);
	stacks_forget_probe(s, p);
	probe_free(p);
}

void session_free(struct session *s)
{
	if (!s)
		return;
	/* Every link closed at once: each close waits for the kernel. */
	for (size_t i = 0; s->rt && i < s->n_probes; i++)
		for (size_t j = 0; j < s->probes[i]->n_sites; j++)
			runtime_detach(s->rt, s->probes[i]->sites[j].rt);
	runtime_settle(s->rt);
	for (size_t i = 0; i < s->n_probes; i++)
		unload_probe(s, s->probes[i]);
	free(s->probes);
	uprobe_prearm_release(NULL);
	session_kernel_abandon(s);
	stack_cache_free(s->stack_cache);
	runtime_free(s->rt);
	codegen_cache_free(s->objects);
	target_free(s->target);
	dw_debug_config_release();
	event_decoder_release(&s->decoder);
	recover_release(&s->recover);
	renderer_release(&s->renderer);
	span_list_release(&s->spans);
	free(s->finished);
	fv_free(s->frame_values);
	if (s->backlog)
		strbuf_release(s->backlog);
	free(s->backlog);
	only_script_release(s);
	free(s);
}

/* ---- adding probes ---- */

static bool probe_has_bt(const struct ast_probe *p)
{
	return ast_probe_count(p, AST_STMT_BT) + ast_probe_count(p, AST_STMT_COUNT) > 0;
}

static void render_diag(const struct diag *d, const char *file, const char *text,
			struct strbuf *errors)
{
	diag_render(d, file, text, errors);
}

static int attach_probe(struct session *s, struct probe *p, struct strbuf *errors)
{
	return session_attach_sites(s, p, 0, errors);
}

static void add_probe(struct session *s, struct probe *p)
{
	s->probes = xgrow(s->probes, &s->cap_probes, s->n_probes + 1, sizeof(*s->probes));
	s->probes[s->n_probes++] = p;
}

static void remove_probe(struct session *s, struct probe *p)
{
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i] == p) {
			memmove(&s->probes[i], &s->probes[i + 1],
				(s->n_probes - i - 1) * sizeof(*s->probes));
			s->n_probes--;
			break;
		}
	}
	unload_probe(s, p);
}

/* Parse and check @text; on error render it into @errors. */
/* @text parsed and checked into *@out (caller frees), or an error with
 * its message in @errors.  Script mode's one script was parsed already. */
static int parse_script(struct session *s, const char *text, const char *file,
			struct ast_script **out, struct strbuf *errors)
{
	struct diag d = { 0 };
	int err;

	if (s->only.text && !s->only.taken && strcmp(text, s->only.text) == 0) {
		err = s->only.err;
		*out = s->only.ast;
		d = s->only.diag;
		s->only.ast = NULL;
		s->only.diag = (struct diag){ 0 };
		s->only.taken = true;
	} else {
		err = script_parse(text, out, &d);
	}
	if (!err) {
		err = script_check(*out, &d);
		if (err) {
			ast_script_free(*out);
			*out = NULL;
		}
	}
	if (err)
		render_diag(&d, file, text, errors);
	diag_release(&d);
	return err;
}

static bool script_has_bt(const struct ast_script *sc)
{
	for (size_t i = 0; i < sc->n_probes; i++)
		if (probe_has_bt(sc->probes[i]))
			return true;
	return false;
}

/* Start the probes of every script up to @script, at this instant. */
static void arm_scripts(struct session *s, uint32_t script)
{
	runtime_gate_arm(s->rt, script);
	if (script > s->armed)
		s->armed = script;
}

/* Probe @i of script @text, as parsed again, for the function @function:
 * its statements keep their places in @text for messages. */
static struct ast_probe *probe_for_function(const char *text, size_t i, const char *function)
{
	struct ast_script *sc = NULL;
	struct ast_probe *ap = NULL;
	struct diag d = { 0 };

	/* It parsed and checked a moment ago: it cannot fail now. */
	if (!script_parse(text, &sc, &d) && !script_check(sc, &d) && i < sc->n_probes) {
		ap = sc->probes[i];
		sc->probes[i] = NULL;
		free(ap->target.function);
		free(ap->target.text);
		ap->target.function = xstrdup(function);
		ap->target.text = xstrdup(function);
	}
	ast_script_free(sc);
	diag_release(&d);
	return ap;
}

/* The most functions of one pattern skipped by name before the rest are
 * only counted. */
#define GLOB_SKIPS_NAMED 5

/* Probe @i of script @text names functions by a pattern with wildcards
 * (@t): add a probe for each function it matches, so that an event, a
 * count and `info probes` say which function it is.  A function whose
 * probe cannot load (`print x` where it has no x) is skipped with a
 * warning; it is an error only when none loads, the first's. */
static int add_glob_probes(struct session *s, const char *text, const char *file, size_t i,
			   const struct ast_target *t, uint32_t script, struct strbuf *errors)
{
	struct strbuf first = STRBUF_INIT, skips = STRBUF_INIT;
	struct diag d = { 0 };
	char **names = NULL;
	size_t n = 0, loaded = 0, skipped = 0;
	int err = locate_glob(s->target, t, &names, &n, &d), first_err = 0;

	if (err)
		render_diag(&d, file, text, errors);
	diag_release(&d);
	for (size_t k = 0; k < n && !err; k++) {
		struct ast_probe *ap = probe_for_function(text, i, names[k]);
		struct strbuf why = STRBUF_INIT;
		struct probe *p;

		if (!ap) {
			err = -WR_ESEMANTIC;
			break;
		}
		p = probe_new(s->next_probe_id++, ap);
		p->pattern = xstrdup(t->text);
		p->enabled = !ap->disabled;
		p->gate = script;
		add_probe(s, p);
		err = session_load_probe(s, p, &d, &why);
		if (!err) {
			loaded++;
		} else {
			if (d.msg)
				render_diag(&d, file, text, &why);
			if (!first_err) {
				first_err = err;
				strbuf_add(&first, why.buf, why.len);
			}
			if (skipped++ < GLOB_SKIPS_NAMED)
				strbuf_addf(&skips, "%s: function %s is not traced: %s\n", t->text, names[k],
					    d.msg ? d.msg : wr_strerror(err));
			remove_probe(s, p);
			s->next_probe_id--;
			err = 0;
		}
		diag_release(&d);
		strbuf_release(&why);
	}
	if (!err && loaded) {
		/* What was left out is said once the rest is known to load. */
		for (char *line = skips.buf, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			wr_warn("%s", line);
		}
		if (skipped > GLOB_SKIPS_NAMED)
			wr_warn("%s: %zu more functions are not traced", t->text, skipped - GLOB_SKIPS_NAMED);
		wr_info("%s: %zu function%s traced of %zu matching", t->text, loaded,
			loaded == 1 ? "" : "s", n);
	} else if (!err && first_err) {
		/* None loads: the first function's error stands for all. */
		strbuf_add(errors, first.buf, first.len);
		err = first_err;
	}
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	strbuf_release(&first);
	strbuf_release(&skips);
	return err;
}

static int add_script(struct session *s, const char *text, const char *file,
		      struct strbuf *errors, unsigned *ids, size_t max_ids, size_t *n_ids)
{
	struct ast_script *sc = NULL;
	size_t first = s->n_probes;
	unsigned first_id = s->next_probe_id;
	uint32_t script = ++s->scripts;
	size_t taken, queued;
	int err = parse_script(s, text, file, &sc, errors);

	if (n_ids)
		*n_ids = 0;
	if (err)
		return err;
	/* Read while the probes compile; target_install() waits for them,
	 * but for big modules it may defer.  A counted bt is never handed
	 * over, so it needs every module in the kernel from the start. */
	if (script_has_count(sc))
		target_defer_off(s->target);
	if (script_has_bt(sc)) {
		target_load_cfi_start(s->target, !s->opt.dry_run);
	}
	for (size_t i = 0; i < sc->n_probes && !err; i++) {
		struct probe *p;
		struct diag d = { 0 };

		if (sc->probes[i]->target.kind == AST_TARGET_FUNCTION &&
		    locate_is_glob(sc->probes[i]->target.function)) {
			err = add_glob_probes(s, text, file, i, &sc->probes[i]->target, script, errors);
			continue;
		}
		p = probe_new(s->next_probe_id++, sc->probes[i]);
		p->enabled = !p->ast->disabled;
		p->gate = script;
		sc->probes[i] = NULL;
		add_probe(s, p);
		err = session_load_probe(s, p, &d, errors);
		if (err && d.msg)
			render_diag(&d, file, text, errors);
		diag_release(&d);
	}
	for (size_t i = first; i < s->n_probes && !err; i++)
		err = attach_probe(s, s->probes[i], errors);
	/* Every probe of the script starts here, at one instant (wr_gate). */
	if (!err && s->rt)
		arm_scripts(s, script);
	target_cfi_boost(s->target);
	/* A uprobe registered early that no attach took (the script failed)
	 * would keep trapping in the target for nothing. */
	taken = uprobe_prearm_release(&queued);
	if (queued)
		wr_debug("uprobes: %zu of %zu attached as registered while the probes compiled",
			 taken, queued);
	if (s->opt.dry_run)
		target_load_cfi_wait(s->target); /* what a real start would read */
	ast_script_free(sc);
	if (err) {
		while (s->n_probes > first)
			remove_probe(s, s->probes[s->n_probes - 1]);
		s->next_probe_id = first_id; /* a failed trace uses up no id */
		return err;
	}
	for (size_t i = first; i < s->n_probes; i++)
		stacks_note_probe(s, s->probes[i]);
	for (size_t i = first; i < s->n_probes && n_ids; i++)
		if (*n_ids < max_ids)
			ids[(*n_ids)++] = s->probes[i]->id;
	return 0;
}

int session_add_script(struct session *s, const char *text, const char *file,
		       struct strbuf *errors, unsigned *ids, size_t max_ids, size_t *n_ids)
{
	int err = add_script(s, text, file, errors, ids, max_ids, n_ids);

	/* A script that failed before loading anything leaves the kernel side
	 * loading: finish it here, so nothing runs on after this call. */
	if (s->kstart) {
		int kerr = session_kernel_wait(s);

		if (!err)
			err = kerr;
		/* A script whose probes all wait for a library (--pending)
		 * loaded nothing: the kernel side was not up to arm it, and
		 * the sites it gains later would never start. */
		if (!err && s->rt)
			arm_scripts(s, s->scripts);
	}
	return err;
}

struct probe *session_probe(struct session *s, unsigned id)
{
	for (size_t i = 0; i < s->n_probes; i++)
		if (s->probes[i]->id == id)
			return s->probes[i];
	return NULL;
}

struct probe *session_next_probe(const struct session *s, const struct probe *prev)
{
	size_t i = 0;

	if (prev)
		while (i < s->n_probes && s->probes[i++] != prev)
			;
	return i < s->n_probes ? s->probes[i] : NULL;
}

bool session_probe_on(const struct session *s, const struct probe *p)
{
	return p->enabled && p->gate <= s->armed;
}

size_t session_probe_count(const struct session *s)
{
	return s->n_probes;
}

int session_enable(struct session *s, struct probe *p, bool on)
{
	int err = 0;

	if (p->enabled == on || s->opt.dry_run) {
		p->enabled = on;
		return 0;
	}
	for (size_t i = 0; i < p->n_sites; i++) {
		if (p->sites[i].refused)
			continue; /* the kernel refused its uprobe: it stays off */
		if (on)
			err = err ? err : session_attach_site(s, &p->sites[i]);
		else if (p->sites[i].rt)
			runtime_detach(s->rt, p->sites[i].rt);
	}
	runtime_settle(s->rt);
	if (!err)
		p->enabled = on;
	return err;
}

/* Why @p sends no events, or NULL when it may. */
static const char *why_silent(const struct probe *p)
{
	size_t attached = 0;

	if (!p->enabled)
		return "is disabled";
	if (!ast_probe_count(p->ast, AST_STMT_PRINT) && !ast_probe_count(p->ast, AST_STMT_BT))
		return p->n_count_keys ? "only counts stacks (count bt sends no event)"
				       : "has no print or bt";
	for (size_t i = 0; i < p->n_sites; i++)
		attached += !p->sites[i].refused;
	return attached || p->pending ? NULL : "has no site attached";
}

bool session_sends_events(const struct session *s, struct strbuf *why)
{
	if (!s->n_probes) {
		strbuf_addstr(why, "there is no probe");
		return false;
	}
	for (size_t i = 0; i < s->n_probes; i++)
		if (!why_silent(s->probes[i]))
			return true;
	for (size_t i = 0; i < s->n_probes; i++)
		strbuf_addf(why, "%sprobe %u (%s) %s", i ? ", " : "", s->probes[i]->id,
			    s->probes[i]->target_text, why_silent(s->probes[i]));
	return false;
}

void session_detach_all(struct session *s)
{
	for (size_t i = 0; s->rt && i < s->n_probes; i++)
		for (size_t k = 0; k < s->probes[i]->n_sites; k++)
			runtime_detach(s->rt, s->probes[i]->sites[k].rt);
	runtime_settle(s->rt);
}

void session_delete(struct session *s, struct probe *p)
{
	remove_probe(s, p);
}

void session_set_pending(struct session *s, bool on)
{
	s->opt.pending = on;
}

int session_set_bt_depth(struct session *s, unsigned depth)
{
	if (depth < 1 || depth > WR_BT_MAX_DEPTH)
		return -WR_EUSAGE;
	s->opt.bt_depth = depth;
	return 0;
}

unsigned session_bt_depth(const struct session *s)
{
	return s->opt.bt_depth;
}

void session_probe_stats(struct session *s, const struct probe *p, struct session_probe_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; s->rt && i < p->n_sites; i++) {
		struct wr_probe_stats one;

		if (runtime_probe_stats(s->rt, p->sites[i].wire_id, &one) == 0) {
			out->hits += one.hits;
			out->lost += one.lost;
			out->truncated += one.truncated;
			out->bt_errors += one.bt_errors;
			out->filtered += one.filtered;
			out->counted += one.counted;
			out->count_dropped += one.count_dropped;
		}
	}
}

/* ---- descriptions ---- */

void session_describe_probe(struct session *s, const struct probe *p, struct strbuf *out)
{
	(void)s;
	strbuf_addf(out, "probe %u: %s (%zu site%s)%s%s\n", p->id, p->target_text, p->n_sites,
		    p->n_sites == 1 ? "" : "s", p->enabled ? "" : " [disabled]",
		    p->pending ? " [pending: waits for a library that defines it]" : "");
	for (size_t i = 0; i < p->n_sites; i++) {
		const struct probe_site *site = &p->sites[i];

		strbuf_addf(out, "  #%zu %s+0x%llx (file offset 0x%llx)%s %s", i + 1,
			    dw_module_name(site->mod->dw), (unsigned long long)site->where.vaddr,
			    (unsigned long long)site->file_offset, site->where.inlined ? " inline" : "",
			    site->where.function ? site->where.function : "?");
		if (site->where.file)
			strbuf_addf(out, " at %s:%u", site->where.file, site->where.line);
		if (site->rule0 == WR_CFI_RULE_NONE)
			strbuf_addstr(out, " [no unwind row]");
		if (site->dead)
			strbuf_addstr(out, " [not traced: the probe does not compile here]");
		if (site->place_note)
			strbuf_addf(out, "\n     %s", site->place_note);
		strbuf_addch(out, '\n');
		for (const char *n = site->notes; n && *n;) {
			const char *nl = strchr(n, '\n');
			int len = nl ? (int)(nl - n) : (int)strlen(n);

			strbuf_addf(out, "      cannot give <script>:%.*s\n", len, n);
			n += len + (nl != NULL);
		}
		for (size_t k = 0; k < site->n_args; k++)
			if (site->args[k].frame)
				strbuf_addf(out, "      print %u, value %u: a variable of %s (a frame out of the "
					    "probe's own)\n", site->args[k].print + 1, site->args[k].arg + 1,
					    site->args[k].frame);
	}
	for (size_t i = 0; i < p->n_skipped; i++)
		strbuf_addf(out, "  skipped: %s\n", p->skipped[i]);
}

void session_save(struct session *s, struct strbuf *out)
{
	strbuf_addstr(out, "// wraith probes\n");
	for (size_t i = 0; i < s->n_probes; i++) {
		const struct probe *p = s->probes[i];

		if (!p->enabled)
			strbuf_addstr(out, AST_DISABLED_MARK "\n");
		strbuf_addf(out, "%s\n", p->source);
	}
}

/* ---- what front ends show ---- */

pid_t session_pid(const struct session *s)
{
	return s->opt.pid;
}

enum session_transport session_transport(const struct session *s)
{
	return s->opt.transport;
}

enum wr_transport session_wire_transport(enum session_transport t)
{
	return t == SESSION_TRANSPORT_PERF ? WR_TRANSPORT_PERF : WR_TRANSPORT_RINGBUF;
}

unsigned session_max_bt_depth(void)
{
	return WR_BT_MAX_DEPTH;
}

unsigned session_max_print_elements(void)
{
	return WR_WALK_STEPS;
}

unsigned session_max_event_bytes(void)
{
	return WR_EVENT_MAX;
}

void session_target_text(struct session *s, struct strbuf *out)
{
	struct target *t = s->target;
	struct tmodule *m = target_main_module(t);

	size_t n = target_process_count(t);

	if (target_tid(t) > 0)
		strbuf_addf(out, "thread %d of pid %d", (int)target_tid(t), (int)target_pid(t));
	else if (target_pid(t) > 0)
		strbuf_addf(out, "pid %d", (int)target_pid(t));
	else
		strbuf_addf(out, "%zu process%s", n, n == 1 ? "" : "es");
	if (m)
		strbuf_addf(out, " %s", dw_module_name(m->dw));
}

int session_pattern_source(struct session *s, const char *pattern, char **file, unsigned *line)
{
	struct ast_target at = { 0 };
	struct located_set found = { 0 };
	struct diag d = { 0 };
	int err = script_parse_target(pattern, (struct src_loc){ 1, 1, 1 }, &at, NULL);

	*file = NULL;
	if (!err)
		err = locate_target(s->target, &at, &found, &d);
	for (size_t i = 0; !err && i < found.n && !*file; i++) {
		if (found.v[i].site.file) {
			*file = xstrdup(found.v[i].site.file);
			*line = at.kind == AST_TARGET_LINE ? at.line : found.v[i].site.line;
		}
	}
	located_set_release(&found);
	ast_target_release(&at);
	diag_release(&d);
	return *file ? 0 : -ENOENT;
}

void session_status_report(struct session *s, struct strbuf *out)
{
	const struct session_debug_options *d = &s->opt.debug;
	const char *env = getenv("DEBUGINFOD_URLS");

	strbuf_addf(out, "modules of ");
	session_target_text(s, out);
	strbuf_addf(out, " (%zu):\n", target_module_count(s->target));
	target_dump_modules(s->target, out, true);
	if (d->debuginfod)
		strbuf_addf(out, "debuginfod: on, %s\n", env && *env ? env : "no server set");
	else if (env && *env)
		strbuf_addf(out, "debuginfod: off (DEBUGINFOD_URLS is set; --debuginfod on asks %s)\n",
			    env);
	else
		strbuf_addstr(out, "debuginfod: off\n");
}

void session_set_progress(struct session *s, void (*fn)(void *ctx, const char *text), void *ctx)
{
	target_set_progress(s->target, fn, ctx);
}
