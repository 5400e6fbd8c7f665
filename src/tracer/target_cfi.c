/* target_cfi.c - which modules' unwind tables are read when (see
 * target.h): the policy around the loader thread of unwind/loader.h.
 *
 * target_load_cfi_start() finds every module's CFI sections on the calling
 * thread and queues them all to the loader, the biggest first, while the
 * probes compile; the main thread takes a module the loader has not
 * reached yet itself when it needs it (a probe's module: its CFA rule at
 * the site), or waits for that one module.  Unless --dry-run, the loader
 * also makes each module's kernel maps (filled, not yet installed), since
 * first touching their pages costs as much again.
 *
 * target_install() does not wait for the big modules (CFI_DEFER_BYTES of
 * CFI or more) that hold no probe site and are not one every stack passes
 * through (the executable, the dynamic linker, libc): while the loader
 * still reads one, it is deferred, left out of the kernel with its
 * mappings, so a walk that reaches it is handed over (unwind/walk.h) and
 * finished in userspace, which waits for its rows; target_install_deferred()
 * puts it in once read.  The loader reads the others first.  Every table
 * is still in the kernel before a mapping points at it: no backtrace can
 * tell the difference, but for a walk handed over that is deeper than the
 * copy of the stack (read-error, as after a dlopen).
 *
 * The fields cfi_loaded, cfi_queued and the stats belong to the main
 * thread; a module's rows to whoever took its job until the loader says
 * it is done: the main thread adopts a finished module when it first
 * looks.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "runtime/runtime.h"
#include "unwind/loader.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of CFI from which a module may be deferred: libLLVM (6.2 MB of
 * .eh_frame, 1.17 M rows) and libz3 (2.2 MB) are, libstdc++ (200 KB) is
 * not.  A testing aid, for the e2e tests only: WRAITH_DEFER_CFI=BYTES[:MS]
 * lowers it, and makes the loader wait MS ms (or until stopped) before it
 * reads the modules that may be deferred, so that a small library is
 * deferred and on the stack while the first events come. */
#define CFI_DEFER_BYTES (1024 * 1024)

/* The loader (unwind/loader.h) and the modules queued to it. */
struct cfi_loader {
	struct uw_loader *l;
	struct tmodule **mods;      /* queued, largest first; the target may grow meanwhile */
	size_t n, cap;
	bool stopped;               /* target_free(): leave the rest */
	double t0;
};

/* The kernel's copy of @m's rows, made on the loader thread so that
 * filling a big library's (first touching megabytes of kernel memory)
 * overlaps the probe's compilation too.  On failure target_install()
 * tries again the usual way and says what is wrong. */
static void make_maps(struct uw_load *job, void *ctx)
{
	struct tmodule *m = job->owner;

	(void)ctx;
	if (m->cfi->rows.n)
		runtime_cfi_maps_new(m->cfi->rows.rows, m->cfi->rows.n, m->cfi->rules.v, m->cfi->rules.n, m->cfi->fds);
}

/* Main thread: count @m's rows as loaded and say what went wrong. */
static void adopt(struct target *t, struct tmodule *m)
{
	if (m->cfi->load.err)
		wr_warn("reading the unwind tables of %s: %s (frames in it may stop early)", m->path,
			wr_strerror(m->cfi->load.err));
	cfi_sources_close(m->cfi->load.src);
	m->cfi->load.src = NULL;
	m->cfi->loaded = true;
	t->stats.cfi_rows += m->cfi->rows.n;
	t->stats.cfi_rules += m->cfi->rules.n;
	t->stats.cfi_modules++;
	t->stats.cfi_seconds += m->cfi->rows.stats.seconds;
}

/* @m's job, its sections found (main thread: libelf, libdwfl). */
static void prepare(struct tmodule *m)
{
	m->cfi->load.src = cfi_sources_open(m->dw);
	m->cfi->load.rules = &m->cfi->rules;
	m->cfi->load.table = &m->cfi->rows;
	m->cfi->load.owner = m;
}

static int load_module_cfi(struct target *t, struct tmodule *m)
{
	if (m->cfi->loaded)
		return 0;
	if (m->cfi->queued) {
		uw_loader_claim(t->cfi_loader->l, &m->cfi->load);
	} else {
		prepare(m);
		uw_load_run(&m->cfi->load);
	}
	adopt(t, m);
	return 0;
}

int target_load_module_cfi(struct target *t, struct tmodule *m)
{
	return load_module_cfi(t, m);
}

static size_t cfi_size(const struct tmodule *m)
{
	return m->cfi->load.src ? cfi_sources_size(m->cfi->load.src) : 0;
}

/* The biggest first (the loader reads the deferrable ones last). */
static int by_size_desc(const void *a, const void *b)
{
	size_t x = cfi_size(*(struct tmodule *const *)a), y = cfi_size(*(struct tmodule *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* WRAITH_DEFER_CFI=BYTES[:MS] (see CFI_DEFER_BYTES): the threshold, and
 * the loader's wait in *@hold. */
static size_t defer_bytes(double *hold)
{
	const char *env = getenv("WRAITH_DEFER_CFI");
	unsigned long long v;
	char *end;

	*hold = 0;
	if (!env || !*env)
		return CFI_DEFER_BYTES;
	v = strtoull(env, &end, 10);
	if (*end == ':')
		*hold = strtod(end + 1, &end) / 1e3;
	return *end || end == env ? CFI_DEFER_BYTES : (size_t)v;
}

/* A module (nearly) every stack passes through: the dynamic linker, libc
 * (the thread's start, a signal's trampoline). */
static bool on_every_stack(const struct tmodule *m)
{
	const char *base = strrchr(m->path, '/');

	base = base ? base + 1 : m->path;
	return strncmp(base, "ld-", 3) == 0 || strncmp(base, "ld.so", 5) == 0 ||
	       strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0 ||
	       strncmp(base, "libc.musl", 9) == 0;
}

/* May @m's rows go into the kernel after the probes attach? */
static bool deferrable(struct target *t, const struct tmodule *m, struct tmodule *main_mod,
		       size_t threshold)
{
	return m->cfi->load.src && cfi_sources_size(m->cfi->load.src) >= threshold &&
	       m != main_mod && !m->special && !m->unmapped && !m->cfi->pinned &&
	       !on_every_stack(m) && !t->cfi_defer_off;
}

void target_load_cfi_start(struct target *t, bool kernel_maps)
{
	struct tmodule *main_mod;
	struct cfi_loader *c;
	size_t threshold;
	double hold;

	t->want_cfi = true;
	t->cfi_maps_early = kernel_maps;
	if (t->cfi_loader)
		return;
	c = xcalloc(1, sizeof(*c));
	c->t0 = now_seconds();
	main_mod = target_main_module(t);
	threshold = defer_bytes(&hold);
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmodule *m = t->mods[i];

		if (m->cfi->loaded)
			continue;
		prepare(m);
		m->cfi->load.last = deferrable(t, m, main_mod, threshold);
		m->cfi->queued = true;
		c->mods = xgrow(c->mods, &c->cap, c->n + 1, sizeof(*c->mods));
		c->mods[c->n++] = m;
	}
	if (!c->n) {
		free(c);
		return;
	}
	/* The biggest first, but those that may be deferred last: the main
	 * thread then takes the small ones it needs (the probe's module)
	 * itself instead of waiting, and target_install() finds the others
	 * read. */
	qsort(c->mods, c->n, sizeof(*c->mods), by_size_desc);
	t->cfi_loader = c;
	{
		struct uw_load **jobs = xmalloc(c->n * sizeof(*jobs));

		for (size_t i = 0; i < c->n; i++)
			jobs[i] = &c->mods[i]->cfi->load;
		c->l = uw_loader_start(jobs, c->n, hold > 0 ? c->t0 + hold : 0,
				       t->cfi_maps_early ? make_maps : NULL, NULL);
		free(jobs);
	}
}

/* Join the loader and adopt what it read.  @late: after target_install()
 * deferred modules (no progress shown, nobody waits). */
static void join(struct target *t, bool late)
{
	struct cfi_loader *c = t->cfi_loader;
	bool shown = t->progress && !c->stopped && !late;
	double t0 = now_seconds();

	if (late) /* nothing is left to read: cut short a testing aid's hold */
		uw_loader_stop(c->l);
	if (shown)
		t->progress(t->progress_ctx, "reading unwind tables");
	uw_loader_join(c->l);
	for (size_t i = 0; i < c->n; i++) {
		struct tmodule *m = c->mods[i];

		/* The loader is gone: the modules are the main thread's now. */
		if (uw_loader_done(c->l, &m->cfi->load) && !m->cfi->loaded)
			adopt(t, m);
		cfi_sources_close(m->cfi->load.src); /* left when stopped */
		m->cfi->load.src = NULL;
		m->cfi->queued = false;
	}
	if (shown)
		t->progress(t->progress_ctx, NULL);
	if (!c->stopped || late)
		wr_debug("unwind tables: %zu rows of %zu modules ready in %.1f ms (%.1f ms of "
			 "extraction, mostly on the loader thread; the main thread waited %.1f ms)",
			 t->stats.cfi_rows, t->stats.cfi_modules, (now_seconds() - c->t0) * 1e3,
			 t->stats.cfi_seconds * 1e3, late ? 0.0 : (now_seconds() - t0) * 1e3);
	uw_loader_free(c->l);
	free(c->mods);
	free(c);
	t->cfi_loader = NULL;
}

void target_load_cfi_wait(struct target *t)
{
	if (t->cfi_loader)
		join(t, false);
}

void target_cfi_join_late(struct target *t)
{
	if (t->cfi_loader)
		join(t, true);
}

size_t target_cfi_defer(struct target *t)
{
	struct cfi_loader *c = t->cfi_loader;
	struct strbuf names = STRBUF_INIT;
	size_t n = 0;

	if (!c || t->cfi_defer_off)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		struct tmodule *m = c->mods[i];

		if (!m->cfi->load.last || m->cfi->pinned || uw_loader_done(c->l, &m->cfi->load))
			continue;
		m->cfi->deferred = true;
		strbuf_addf(&names, "%s%s (%.1f MB of CFI)", n ? ", " : "", dw_module_name(m->dw),
			    cfi_sources_size(m->cfi->load.src) / 1e6);
		n++;
	}
	t->cfi_n_deferred = n;
	if (n)
		wr_debug("unwind tables: %zu module%s deferred until the loader has read %s (walks "
			 "reaching %s are finished in userspace meanwhile): %s", n, n == 1 ? "" : "s",
			 n == 1 ? "it" : "them", n == 1 ? "it" : "one", names.buf);
	strbuf_release(&names);
	return n;
}

bool target_cfi_ready(struct target *t, const struct tmodule *m)
{
	struct cfi_loader *c = t->cfi_loader;

	if (m->cfi->loaded || !c || !m->cfi->queued)
		return m->cfi->loaded;
	return uw_loader_done(c->l, &m->cfi->load);
}

void target_cfi_boost(struct target *t)
{
	if (t->cfi_loader)
		uw_loader_boost(t->cfi_loader->l);
}

void target_load_cfi_stop(struct target *t)
{
	struct cfi_loader *c = t->cfi_loader;

	if (!c)
		return;
	c->stopped = true;
	uw_loader_stop(c->l);
	target_load_cfi_wait(t);
}

int target_load_cfi(struct target *t)
{
	if (!t->cfi_loader)
		target_progress(t, "reading unwind tables");
	target_load_cfi_start(t, t->cfi_maps_early);
	target_load_cfi_wait(t);
	for (size_t i = 0; i < t->n_mods; i++)
		load_module_cfi(t, t->mods[i]);
	target_progress(t, NULL);
	return t->rt ? target_install(t, t->rt) : 0;
}

uint32_t target_rule_at(struct tmodule *m, uint64_t pc)
{
	long idx;

	if (!m->cfi->loaded)
		return WR_RULE_LOOKUP;
	idx = cfi_table_lookup(&m->cfi->rows, pc);
	return idx < 0 ? WR_CFI_RULE_NONE : m->cfi->rows.rows[idx].rule;
}

bool target_cfa_at(struct target *t, struct tmodule *m, uint64_t pc, uint32_t *rule, int *reg,
		   int32_t *off)
{
	const struct wr_cfi_rule *r;

	/* The rows may have been read since the rule was looked up (by an
	 * earlier site's kernel start-up): look it up again then too. */
	if (!m->cfi->loaded || *rule == WR_RULE_LOOKUP) {
		target_load_module_cfi(t, m);
		*rule = target_rule_at(m, pc);
	}
	if (*rule >= m->cfi->rules.n)
		return false;
	r = &m->cfi->rules.v[*rule];
	if (r->kind != WR_ROW_NORMAL || r->cfa_kind != WR_CFA_REG_OFF)
		return false;
	*reg = r->cfa_reg;
	*off = r->cfa_off;
	return true;
}

bool target_cfi_wanted(const struct target *t)
{
	return t->want_cfi && !t->cfi_put;
}

const struct cfi_table *target_module_rows(const struct tmodule *m)
{
	return &m->cfi->rows;
}

const struct cfi_rules *target_module_rules(const struct tmodule *m)
{
	return &m->cfi->rules;
}
