/* session.c - probes from script text to attached programs (see
 * session.h); events from the kernel to the sink are session_events.c's.
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
#include "dwarf/vars.h"
#include "proc/pidns.h"
#include "render/status.h"
#include "runtime/prearm.h"
#include "runtime/runtime.h"
#include "runtime/uprobe_insn.h"
#include "script/parser.h"
#include "script/walk.h"
#include "tracer/casttype.h"
#include "tracer/frame_values.h"
#include "tracer/locate.h"
#include "tracer/place.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int kernel_wait(struct session *s);
static void kernel_abandon(struct session *s);

/* ---- renderer hooks ---- */

static const struct render_probe *hook_probe(void *ctx, uint32_t wire_id)
{
	struct session *s = ctx;

	struct probe *p;
	struct probe_site *site;

	if (wire_id >= WR_MAX_PROBES || !(p = s->wire[wire_id].probe))
		return NULL;
	if (s->wire[wire_id].site >= p->n_sites)
		return &p->render;
	/* the probe's, with what this site reads from other frames */
	site = &p->sites[s->wire[wire_id].site];
	site->render = p->render;
	site->render.arg_types = site->render.arg_frames = site->args;
	site->render.n_arg_types = site->render.n_arg_frames = site->n_args;
	return &site->render;
}

static void hook_frame(void *ctx, const struct wr_bt_frame *f, struct render_frame *out)
{
	struct session *s = ctx;

	target_symbolize(s->target, f, out);
}

static size_t hook_tailcalls(void *ctx, const struct wr_bt_frame *callee,
			     const struct wr_bt_frame *caller, struct render_frame *out, size_t max)
{
	struct session *s = ctx;

	return target_tailcalls(s->target, callee, caller, out, max);
}

/* The symbols of one event's process, for frame values. */
struct values_symbol {
	struct session *s;
	pid_t pid;
};

static void values_symbol(void *ctx, uint64_t addr, struct strbuf *out)
{
	struct values_symbol *vs = ctx;

	target_data_symbol(vs->s->target, vs->pid, addr, out);
}

static long hook_values(void *ctx, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
			unsigned level, bool locals, struct render_var *out, size_t max)
{
	struct session *s = ctx;
	struct values_symbol vs = { s, (pid_t)pid };
	struct render_value_ctx vc = { .symbol = values_symbol, .ctx = &vs };
	struct fv_var v[64];
	long n;

	if (!s->frame_values)
		s->frame_values = fv_new();
	n = fv_frame(s->frame_values, s->target, pid, bt, i, level, locals, &vc, v,
		     max < 64 ? max : 64);
	for (long k = 0; k < n; k++) {
		out[k].name = v[k].name;
		out[k].value = v[k].value;
		out[k].param = v[k].param;
		out[k].entry = v[k].entry;
	}
	return n;
}

/* debuginfod's progress goes where the target's does. */
static void debug_progress(void *ctx, const char *text)
{
	struct session *s = ctx;

	if (s->target && s->target->progress)
		s->target->progress(s->target->progress_ctx, text);
}

static void configure_debug(struct session *s)
{
	const struct session_debug_options *d = &s->opt.debug;
	struct dw_debug_config c = {
		.dirs = d->dirs, .n_dirs = d->n_dirs, .loose = d->loose, .debuginfod = d->debuginfod,
		.urls = d->urls, .n_urls = d->n_urls, .cache_dir = d->cache_dir, .timeout = d->timeout,
		.max_size = d->max_size, .progress = debug_progress, .progress_ctx = s,
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

static size_t hook_hidden_inlines(void *ctx, uint32_t wire_id, const struct wr_bt_frame *f,
				  const struct render_frame *rf)
{
	struct session *s = ctx;
	const struct probe_site *site;
	size_t n = 0;

	if (wire_id >= WR_MAX_PROBES || !s->wire[wire_id].probe)
		return 0;
	site = &s->wire[wire_id].probe->sites[s->wire[wire_id].site];
	/* an address probe names no function: gdb shows every frame there */
	if (!site->where.scope || !(f->flags & WR_FRAME_F_EXACT_IP) || f->pc != site->where.vaddr)
		return 0;
	while (n + 1 < rf->sym.n && rf->sym.frames[n].starts_here &&
	       rf->sym.frames[n].scope != site->where.scope)
		n++;
	return n;
}

static void hook_symbol(void *ctx, uint32_t pid, uint64_t addr, struct strbuf *out)
{
	struct session *s = ctx;

	target_data_symbol(s->target, (pid_t)pid, addr, out);
}

static bool script_has_count(const struct ast_script *sc)
{
	for (size_t i = 0; i < sc->n_probes; i++)
		if (ast_probe_count(sc->probes[i], AST_STMT_COUNT))
			return true;
	return false;
}

/* Script mode: parse the one script now, for session_add_script() to
 * take; the counting maps' buckets cost start-up time even unused, so a
 * script without `count bt` gets none. */
static void parse_only_script(struct session *s, const char *text)
{
	s->only.text = xstrdup(text);
	s->only.err = script_parse(s->only.text, &s->only.ast, &s->only.diag);
	if (!s->only.err && !script_has_count(s->only.ast))
		s->opt.stack_entries = 1;
}

static void only_script_release(struct session *s)
{
	free(s->only.text);
	ast_script_free(s->only.ast);
	diag_release(&s->only.diag);
}

void session_prepare(const struct session_options *opt)
{
	codegen_prepare(&(struct codegen_options){ .transport = opt->transport,
						    .fault_in = opt->fault_in });
}

void session_shutdown(void)
{
	codegen_shutdown();
}

int session_new(const struct session_options *opt, struct session **out)
{
	struct session *s = xcalloc(1, sizeof(*s));
	struct render_hooks hooks = { .probe = hook_probe, .frame = hook_frame,
				      .tailcalls = hook_tailcalls, .ctx = s, .symbol = hook_symbol,
				      .values = hook_values, .hidden_inlines = hook_hidden_inlines };
	double t0 = now_seconds();
	int err;

	*out = NULL;
	s->opt = *opt;
	s->opt.only_script = NULL;
	if (!s->opt.bt_depth)
		s->opt.bt_depth = WR_BT_DEFAULT_DEPTH;
	if (opt->only_script)
		parse_only_script(s, opt->only_script);
	if (opt->start_kernel)
		session_start(s);
	configure_debug(s);
	err = open_target(s, opt);
	if (err) {
		kernel_abandon(s);
		target_free(s->target);
		dw_debug_config_release();
		only_script_release(s);
		free(s);
		return err;
	}
	s->next_probe_id = 1;
	s->mods_seen = s->target->n_mods;
	s->budget = UINT64_MAX;
	span_list_init(&s->spans);
	s->backlog = xcalloc(1, sizeof(*s->backlog));
	strbuf_init(s->backlog);
	renderer_init(&s->renderer, opt->format, &hooks);
	s->renderer.relative_time = opt->relative_time;
	event_decoder_init(&s->decoder);
	wr_debug("target opened: %zu modules in %.1f ms", s->target->n_mods, (now_seconds() - t0) * 1e3);
	*out = s;
	return 0;
}

/* Unload every site of @p, then free it. */
void session_drop_sites(struct session *s, struct probe *p, size_t first)
{
	for (size_t i = first; i < p->n_sites; i++)
		if (s->rt)
			runtime_unload(s->rt, p->sites[i].rt);
	runtime_settle(s->rt);
	stacks_forget_sites(s, p, first);
	for (size_t i = first; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];

		if (site->wire_id < WR_MAX_PROBES && s->wire[site->wire_id].probe == p)
			s->wire[site->wire_id].probe = NULL;
		probe_site_release(site);
	}
	if (first < p->n_sites)
		p->n_sites = first;
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
	if (s->kstart)
		kernel_wait(s);
	stack_cache_free(s->stack_cache);
	runtime_free(s->rt);
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

/* ---- the kernel side, loaded while probes compile ---- */

struct kernel_start {
	pthread_t thread;
	bool threaded;
	struct rt_options ro;
	struct runtime *rt;
	int err;
	double seconds, cpu_seconds;
	struct wr_log_deferred log;
};

static void *kernel_start_main(void *arg)
{
	struct kernel_start *ks = arg;
	struct codegen_options co = { .transport = ks->ro.transport, .fault_in = ks->ro.fault_in };
	struct bpf_blob base = { 0 };
	double t0 = now_seconds(), c0 = thread_cpu_seconds();

	wr_log_defer(&ks->log);
	ks->err = codegen_base(&co, &base);
	if (!ks->err)
		ks->err = runtime_new(&ks->ro, &base, &ks->rt);
	bpf_blob_release(&base);
	ks->seconds = now_seconds() - t0;
	ks->cpu_seconds = thread_cpu_seconds() - c0;
	wr_log_defer(NULL);
	return NULL;
}

int session_start(struct session *s)
{
	struct kernel_start *ks;

	if (s->rt || s->kstart || s->opt.dry_run)
		return 0;
	ks = xcalloc(1, sizeof(*ks));
	ks->ro.transport = s->opt.transport;
	ks->ro.fault_in = s->opt.fault_in;
	ks->ro.buffer_bytes = s->opt.buffer_bytes;
	ks->ro.stack_entries = s->opt.stack_entries;
	ks->ro.cache_dir = s->opt.probe_cache_dir;
	/* With -p the one process is all there is (target.c adds no other). */
	ks->ro.max_procs = s->opt.pid > 0 ? 1 : 0;
	s->kstart = ks;
	ks->threaded = thread_start_unsignalled(&ks->thread, kernel_start_main, ks);
	if (!ks->threaded)
		kernel_start_main(ks);
	return 0;
}

/* The target did not open: wait for the kernel side started with it and
 * unload it unused. */
static void kernel_abandon(struct session *s)
{
	struct kernel_start *ks = s->kstart;

	if (!ks)
		return;
	if (ks->threaded)
		pthread_join(ks->thread, NULL);
	wr_log_replay(&ks->log);
	runtime_free(ks->rt);
	free(ks);
	s->kstart = NULL;
}

/* Wait for the kernel side started by session_start() and install the
 * target's mappings and unwind tables in it.  Returns 0 or a negative
 * error (message logged); after an error the next session_start() tries
 * again. */
static int kernel_wait(struct session *s)
{
	struct kernel_start *ks = s->kstart;
	int err = 0;

	if (!ks && s->rt) {
		/* The kernel side is up; a script with `bt` after scripts
		 * without one (the shell, --batch) has its unwind tables put
		 * in now. */
		if (!s->target->want_cfi || s->target->cfi_put)
			return 0;
	} else if (!ks && s->opt.dry_run) {
		return 0;
	} else {
		if (!ks) {
			session_start(s);
			ks = s->kstart;
		}
		if (ks->threaded)
			pthread_join(ks->thread, NULL);
		wr_log_replay(&ks->log);
		wr_debug("kernel side (maps, unwinder) ready in %.1f ms (%.1f ms of CPU)",
			 ks->seconds * 1e3, ks->cpu_seconds * 1e3);
		s->rt = ks->rt;
		err = ks->err;
		free(ks);
		s->kstart = NULL;
	}
	if (!err)
		err = target_install(s->target, s->rt);
	if (err && err != -WR_EPERM)
		wr_error("could not prepare the kernel side of the trace: %s", wr_strerror(err));
	return err;
}

/* ---- adding probes ---- */

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

static bool probe_has_bt(const struct ast_probe *p)
{
	return ast_probe_count(p, AST_STMT_BT) + ast_probe_count(p, AST_STMT_COUNT) > 0;
}

/* "mod+0x1153 (inline padded at refused.c:12)" */
static void describe_site(struct strbuf *sb, const struct located *l)
{
	strbuf_addf(sb, "%s+0x%llx", dw_module_name(l->mod->dw), (unsigned long long)l->site.vaddr);
	if (l->site.function)
		strbuf_addf(sb, " (%s%s", l->site.inlined ? "inline " : "", l->site.function);
	if (l->site.function && l->site.file)
		strbuf_addf(sb, " at %s:%u", l->site.file, l->site.line);
	if (l->site.function)
		strbuf_addch(sb, ')');
}

/* Where the uprobe of @l goes (place.h), into @site; false when nowhere,
 * after a warning. */
static bool place_site(struct probe *p, struct located *l, struct probe_site *site)
{
	struct site_place place;
	struct strbuf where = STRBUF_INIT;

	site_place(l->mod->dw, &l->site, p->ast->target.kind != AST_TARGET_FUNCTION, &place);
	site->site_vaddr = l->site.vaddr;
	if (!place.note)
		return true;
	describe_site(&where, l);
	if (place.skip) {
		wr_warn("probe %u (%s): site %s is skipped: %s.  Trace a later line of it instead "
			"(trace FILE:LINE)", p->id, p->target_text, where.buf, place.note);
		strbuf_addf(&where, ": %s", place.note);
		probe_note_skipped(p, strbuf_detach(&where));
		free(place.note);
		return false;
	}
	wr_debug("probe %u (%s): site %s: %s", p->id, p->target_text, where.buf, place.note);
	strbuf_release(&where);
	site->place_note = place.note;
	l->site.vaddr = place.vaddr;
	if (place.file) {
		free(l->site.file);
		l->site.file = place.file;
		l->site.line = place.line;
		l->site.col = place.col;
	}
	return true;
}

size_t session_add_sites(struct session *s, struct probe *p, struct located_set *found)
{
	size_t added = 0;

	p->sites = xrealloc(p->sites, (p->n_sites + found->n + 1) * sizeof(*p->sites));
	for (size_t i = 0; i < found->n; i++) {
		struct probe_site *site = &p->sites[p->n_sites];
		struct located *l = &found->v[i];

		memset(site, 0, sizeof(*site));
		if (!place_site(p, l, site) ||
		    dw_module_vaddr_to_offset(l->mod->dw, l->site.vaddr, &site->file_offset)) {
			free(l->site.function);
			free(l->site.file);
			free(site->place_note);
			continue;
		}
		site->mod = l->mod;
		site->where = l->site;
		target_pin_module(s->target, l->mod);
		site->rule0 = target_rule_at(l->mod, l->site.vaddr);
		p->n_sites++;
		added++;
	}
	free(found->v);
	memset(found, 0, sizeof(*found));
	return added;
}

static int resolve_probe(struct session *s, struct probe *p, struct diag *d)
{
	struct located_set found = { 0 };
	double t0 = now_seconds();
	int err = locate_target(s->target, &p->ast->target, &found, d);

	err = session_locate_unloaded(s, p, &found, d, err);
	if (err == 1) {
		p->pending = true;
		s->n_pending++;
		return 0;
	}
	wr_debug("probe %u: '%s' resolved to %zu site%s in %.1f ms", p->id, p->target_text, found.n,
		 found.n == 1 ? "" : "s", (now_seconds() - t0) * 1e3);
	if (err)
		return err;
	if (!session_add_sites(s, p, &found)) {
		if (p->n_skipped)
			diag_set(d, p->ast->target.loc, NULL,
				 "no site of '%s' can take a uprobe (the warning above says why)",
				 p->target_text);
		else
			diag_set(d, p->ast->target.loc, NULL, "'%s' resolves to no loadable code",
				 p->target_text);
		return -WR_ENOTARGET;
	}
	return 0;
}

static void render_diag(const struct diag *d, const char *file, const char *text,
			struct strbuf *errors)
{
	diag_render(d, file, text, errors);
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

/* Variable @name at the site (its function's, counting what the abstract
 * instance names for a copy that dropped it; else a function's it is
 * inlined into, marked with that frame); else, when another site of the
 * probe has it (another library's function of the same name), it is
 * <optimized out> here, as gdb prints such a site.  -ENOENT only when no
 * site has it. */
static int var_find(void *ctx, const char *name, struct dw_var *out)
{
	struct site_ctx *sc = ctx;
	struct probe *p = sc->probe;
	struct dw_at at;
	int err = target_find_var(sc->target, sc->site->mod, probe_site_at(sc->site, &at), name, out);

	if (err == -ENOENT && sc->site->mod->dw)
		err = dw_var_find_outer(sc->site->mod->dw, probe_site_at(sc->site, &at), name, out);
	if (err != -ENOENT)
		return err;
	for (size_t i = 0; i < p->n_sites; i++) {
		struct probe_site *o = &p->sites[i];

		if (o == sc->site ||
		    target_find_var(sc->target, o->mod, probe_site_at(o, &at), name, out) != 0)
			continue;
		memset(&out->loc, 0, sizeof(out->loc));
		out->loc.kind = DW_LOC_OPTIMIZED_OUT;
		return 0;
	}
	return -ENOENT;
}

static int hint_name(const struct dw_var *v, void *ctx)
{
	struct strbuf *out = ctx;

	if (out->len > 200)
		return 1;
	strbuf_addf(out, "%s%s", out->len ? ", " : "visible here: ", v->name);
	return 0;
}

static void var_hint(void *ctx, struct strbuf *out)
{
	struct site_ctx *sc = ctx;

	struct dw_at at;

	dw_var_foreach_at(sc->site->mod->dw, probe_site_at(sc->site, &at), hint_name, out);
}

static int type_find(void *ctx, const struct typespec *ts, const struct dw_type **out, struct diag *d)
{
	struct site_ctx *sc = ctx;

	return casttype_resolve(sc->target, sc->site->mod, ts, out, d);
}

static int enumerator_find(void *ctx, const char *name, const struct dw_type **type, int64_t *value)
{
	struct site_ctx *sc = ctx;

	return dw_enumerator_find(sc->site->mod->dw, sc->site->where.vaddr, name, type, value);
}

static int function_find(void *ctx, const char *name, const struct dw_type **type, uint64_t *vaddr)
{
	struct site_ctx *sc = ctx;

	return dw_function_find(sc->site->mod->dw, sc->site->where.vaddr, name, type, vaddr);
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

static void note_arg(void *ctx, unsigned print, unsigned arg, const struct dw_type *t)
{
	struct site_ctx *sc = ctx;

	probe_note_arg_type(sc->probe, print, arg, t);
	site_arg(sc->site, print, arg)->type = t;
}

static void note_frame(void *ctx, unsigned print, unsigned arg, const char *frame)
{
	site_arg(((struct site_ctx *)ctx)->site, print, arg)->frame = frame;
}

static void site_error(void *ctx, unsigned line, unsigned col, const char *msg)
{
	struct probe_site *site = ((struct site_ctx *)ctx)->site;
	struct strbuf sb = STRBUF_INIT;

	if (site->notes)
		strbuf_addstr(&sb, site->notes);
	strbuf_addf(&sb, "%u:%u: %s\n", line, col, msg);
	/* a probe is lowered twice (its shape key, then its code) */
	if (!site->notes || !strstr(site->notes, sb.buf + (site->notes ? strlen(site->notes) : 0))) {
		free(site->notes);
		site->notes = strbuf_detach(&sb);
	}
	strbuf_release(&sb);
}

/* The CFA rule at the site, for frame variables. */
static void site_cfa(struct session *s, struct probe_site *site, struct probe_plan *plan)
{
	struct tmodule *m = site->mod;
	uint32_t rule = site->rule0;

	plan->cfa_reg = -1;
	/* The rows may have been read since the site was resolved (by an
	 * earlier site's kernel start-up): look the rule up again then too. */
	if (!m->cfi_loaded || rule == WR_RULE_LOOKUP) {
		target_load_module_cfi(s->target, m);
		rule = site->rule0 = target_rule_at(m, site->where.vaddr);
	}
	if (rule < m->rules.n && m->rules.v[rule].kind == WR_ROW_NORMAL &&
	    m->rules.v[rule].cfa_kind == WR_CFA_REG_OFF) {
		plan->cfa_reg = m->rules.v[rule].cfa_reg;
		plan->cfa_off = m->rules.v[rule].cfa_off;
	}
}

/* The attach cookie of @site's uprobes: its wire id, and the process or
 * thread it traces (WR_COOKIE_THREAD). */
static uint64_t site_cookie(const struct session *s, const struct probe_site *site)
{
	uint64_t only = s->target->tid > 0 ? (uint32_t)s->target->tid | WR_COOKIE_THREAD
			: s->target->pid > 0 ? (uint32_t)s->target->pid : 0;

	return site->wire_id | only << 32;
}

static int compile_site(struct session *s, struct probe *p, struct probe_site *site, bool lenient,
			struct diag *d, struct strbuf *errors)
{
	struct codegen_options co = { .transport = s->opt.transport, .fault_in = s->opt.fault_in,
				      .cache_dir = s->opt.probe_cache_dir };
	struct probe_plan plan = {
		.probe_id = site->wire_id, .ast = p->ast, .pc = site->where.vaddr,
		.rule0 = site->rule0, .bt_depth = s->opt.bt_depth, .name = p->target_text,
		.tgid = s->target->pid > 0 ? (uint32_t)s->target->pid : 0, .lenient = lenient,
	};
	struct site_ctx sc = { p, site, s->target };
	struct bpf_blob blob = { 0 };
	struct strbuf where = STRBUF_INIT;
	char *why = NULL;
	int err;

	/* errors at one of several sites say which */
	if (p->n_sites > 1) {
		strbuf_addf(&where, "%s (site %zu of %zu: ", p->target_text, (size_t)(site - p->sites) + 1,
			    p->n_sites);
		target_describe_site(s->target, site->mod, site->where.vaddr, &where);
		strbuf_addch(&where, ')');
		plan.name = where.buf;
	}

	double t0 = now_seconds(), t1;

	if (dw_module_has_dwarf(site->mod->dw))
		plan.vars = (struct plan_vars){ .find = var_find, .hint = var_hint,
						.find_type = type_find, .pointer_to = type_pointer,
						.find_enumerator = enumerator_find,
						.find_function = function_find,
						.tls_block = tls_block,
						.note_arg = note_arg, .site_error = site_error,
						.note_frame = note_frame, .ctx = &sc };
	else
		plan.vars = (struct plan_vars){ .site_error = site_error, .ctx = &sc };
	site_cfa(s, site, &plan);
	if (plan.tgid)
		proc_pidns((pid_t)plan.tgid, &plan.pidns_dev, &plan.pidns_ino);
	plan.fsbase_offset = runtime_fsbase_offset;
	err = codegen_probe(&co, &plan, &blob, d, NULL);
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
	err = kernel_wait(s);
	t1 = now_seconds();
	if (!err)
		err = runtime_load_probe(s->rt, &blob, site_cookie(s, site), &site->rt, &why);
	if (!err)
		runtime_gate_set(s->rt, site->wire_id, p->gate);
	bpf_blob_release(&blob);
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

static int attach_site(struct session *s, struct probe_site *site)
{
	pid_t pid = s->target->pid > 0 ? s->target->pid : -1;

	if (site->dead)
		return 0;
	return runtime_attach(s->rt, site->rt, pid, site->mod->open_path, site->file_offset);
}

/* Sites the first pass could not compile, compiled again printing a
 * marker for what each cannot give (plan.lenient), or given up (dead);
 * each is said, naming the site. */
static void load_lenient(struct session *s, struct probe *p, const bool *failed, size_t first,
			 struct strbuf *errors)
{
	for (size_t i = first; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];
		struct strbuf where = STRBUF_INIT;
		struct diag d = { 0 };

		if (!failed[i - first])
			continue;
		free(site->notes);
		site->notes = NULL;
		target_describe_site(s->target, site->mod, site->where.vaddr, &where);
		site->dead = compile_site(s, p, site, true, &d, errors) != 0;
		if (site->dead)
			wr_warn("probe %u (%s), site %zu of %zu (%s): not traced: %s", p->id, p->target_text,
				i + 1, p->n_sites, where.buf, d.msg ? d.msg : "it does not compile here");
		else
			wr_warn("probe %u (%s), site %zu of %zu (%s) prints a marker for what it cannot "
				"give:\n%s", p->id, p->target_text, i + 1, p->n_sites, where.buf, site->notes);
		strbuf_release(&where);
		diag_release(&d);
	}
}

int session_load_sites(struct session *s, struct probe *p, size_t first, struct diag *d,
		       struct strbuf *errors)
{
	bool *failed = xcalloc(p->n_sites - first + 1, sizeof(bool));
	size_t ok = 0, n_failed = 0;
	int err = 0;

	for (size_t i = 0; i < first; i++)
		ok += !p->sites[i].dead;
	for (size_t i = first; i < p->n_sites && !err; i++) {
		struct probe_site *site = &p->sites[i];
		struct diag sd = { 0 };

		site->wire_id = alloc_wire_id(s);
		if (!site->wire_id) {
			strbuf_addf(errors, "wraith: too many probe sites (at most %u)\n", WR_MAX_PROBES - 1);
			err = -WR_ELIMIT;
			break;
		}
		s->wire[site->wire_id].probe = p;
		s->wire[site->wire_id].site = i;
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
		load_lenient(s, p, failed, first, errors);
	}
	free(failed);
	return err;
}

/* Resolve, compile and load all sites of @p (attaching comes later, for
 * all probes of a script at once, so they start firing together). */
static int load_probe(struct session *s, struct probe *p, struct diag *d, struct strbuf *errors)
{
	int err = resolve_probe(s, p, d);

	/* The sites' uprobes register while the probes compile (prearm.h). */
	for (size_t i = 0; !err && i < p->n_sites && p->enabled && !s->opt.dry_run; i++)
		uprobe_prearm(s->target->pid > 0 ? s->target->pid : -1, p->sites[i].mod->open_path,
			      p->sites[i].file_offset);
	return err ? err : session_load_sites(s, p, 0, d, errors);
}

/* The kernel refused the uprobe of @site (@err, which uprobe_insn_error()
 * explains): say so; the site stays loaded, unattached. */
static void refused_site(struct probe *p, struct probe_site *site, int err)
{
	struct strbuf insn = STRBUF_INIT, where = STRBUF_INIT;

	site_insn_bytes(site->mod->dw, site->where.vaddr, &insn);
	strbuf_addf(&where, "%s+0x%llx", dw_module_name(site->mod->dw),
		    (unsigned long long)site->where.vaddr);
	if (site->where.function)
		strbuf_addf(&where, " (%s%s)", site->where.inlined ? "inline " : "",
			    site->where.function);
	wr_warn("probe %u (%s): site %s is skipped: %s (%s).  Trace a later line of it instead "
		"(trace FILE:LINE)", p->id, p->target_text, where.buf, uprobe_insn_error(err),
		insn.len ? insn.buf : "unreadable");
	free(site->place_note);
	strbuf_reset(&where);
	strbuf_addf(&where, "not attached: %s (%s)", uprobe_insn_error(err), insn.buf);
	site->place_note = strbuf_detach(&where);
	site->refused = true;
	strbuf_release(&insn);
}

int session_attach_sites(struct session *s, struct probe *p, size_t first, struct strbuf *errors)
{
	size_t attached = 0, refused = 0;
	int err = 0;

	for (size_t i = first; i < p->n_sites && !err && !s->opt.dry_run && p->enabled; i++) {
		err = attach_site(s, &p->sites[i]);
		if (err && uprobe_insn_error(err)) {
			refused_site(p, &p->sites[i], err);
			refused++;
			err = 0;
		} else if (!err && !p->sites[i].dead) {
			attached++;
		}
	}
	if (err)
		strbuf_addf(errors, "wraith: probe %u (%s) could not be attached: %s\n", p->id,
			    p->target_text, wr_strerror(err));
	else if (refused && !attached)
		strbuf_addf(errors, "wraith: probe %u (%s) could not be attached: the kernel's uprobes "
			    "took none of its sites (the warning%s above say%s why)\n", p->id,
			    p->target_text, refused == 1 ? "" : "s", refused == 1 ? "s" : "");
	return err ? err : refused && !attached ? -WR_EATTACH : 0;
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
		s->target->cfi_maps_early = !s->opt.dry_run;
		target_load_cfi_start(s->target);
	}
	for (size_t i = 0; i < sc->n_probes && !err; i++) {
		struct probe *p = probe_new(s->next_probe_id++, sc->probes[i]);
		struct diag d = { 0 };

		p->enabled = !p->ast->disabled;
		p->gate = script;
		sc->probes[i] = NULL;
		add_probe(s, p);
		err = load_probe(s, p, &d, errors);
		if (err && d.msg)
			render_diag(&d, file, text, errors);
		diag_release(&d);
	}
	for (size_t i = first; i < s->n_probes && !err; i++)
		err = attach_probe(s, s->probes[i], errors);
	/* Every probe of the script starts here, at one instant (wr_gate). */
	if (!err && s->rt)
		arm_scripts(s, script);
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
		int kerr = kernel_wait(s);

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
			err = err ? err : attach_site(s, &p->sites[i]);
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

void session_probe_stats(struct session *s, const struct probe *p, struct wr_probe_stats *out)
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

enum wr_transport session_transport(const struct session *s)
{
	return s->opt.transport;
}

void session_target_text(struct session *s, struct strbuf *out)
{
	struct target *t = s->target;
	struct tmodule *m = target_main_module(t);

	if (t->tid > 0)
		strbuf_addf(out, "thread %d of pid %d", (int)t->tid, (int)t->pid);
	else if (t->pid > 0)
		strbuf_addf(out, "pid %d", (int)t->pid);
	else
		strbuf_addf(out, "%zu process%s", t->n_procs, t->n_procs == 1 ? "" : "es");
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
	strbuf_addf(out, " (%zu):\n", s->target->n_mods);
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
	s->target->progress = fn;
	s->target->progress_ctx = fn ? ctx : NULL;
}
