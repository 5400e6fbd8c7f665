/* target_cfi.c - reading the modules' unwind tables (see target.h), on a
 * thread of their own while the probes compile.
 *
 * A process with a big library mapped spends most of its start-up here
 * (libLLVM: 1.7 M rows, over 100 ms), and nothing before the kernel side
 * is filled needs the rows but a probe's own module (its CFA rule at the
 * site).  So target_load_cfi_start() finds every module's CFI sections on
 * the calling thread (libelf and libdwfl are not thread-safe) and hands
 * the rest, which only reads section bytes, to one loader thread.  The
 * main thread takes a module the loader has not reached yet itself when it
 * needs it, or waits for that one module; target_install() waits for all,
 * so every table is in the kernel before a mapping points at it and before
 * any probe attaches: no backtrace can tell the difference.  Unless
 * --dry-run, the loader also makes each module's kernel maps (filled, not
 * yet installed), since first touching their pages costs as much again.
 *
 * cfi_state is read and written under the loader's lock only; the other
 * fields (cfi_loaded, cfi_queued, the stats) belong to the main thread,
 * and a module's rows to whoever took it until it is CFI_DONE: the main
 * thread adopts a finished module when it first looks.
 */
#include "tracer/target_priv.h"
#include "runtime/runtime.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum { CFI_NONE, CFI_QUEUED, CFI_TAKEN, CFI_DONE };

struct cfi_loader {
	pthread_t thread;
	bool threaded;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct tmodule **mods;      /* queued, largest first; the target may grow meanwhile */
	size_t n, cap;
	bool stop;                  /* target_free(): leave the rest */
	bool maps;                  /* make the kernel's maps too (t->cfi_maps_early) */
	bool finished;
	double t0;
	struct wr_log_deferred log; /* the loader's messages, replayed on joining */
};

/* Extract @m's rows from the sources opened for it (any thread). */
static void extract(struct tmodule *m)
{
	m->cfi_err = cfi_sources_extract(m->cfi_src, &m->rules, &m->cfi);
}

/* The kernel's copy of @m's rows, made here so that filling a big
 * library's (first touching megabytes of kernel memory) overlaps the
 * probe's compilation too.  On failure target_install() tries again the
 * usual way and says what is wrong. */
static void make_maps(struct tmodule *m)
{
	if (m->cfi.n)
		runtime_cfi_maps_new(m->cfi.rows, m->cfi.n, m->rules.v, m->rules.n, m->cfi_fds);
}

/* Main thread: count @m's rows as loaded and say what went wrong. */
static void adopt(struct target *t, struct tmodule *m)
{
	if (m->cfi_err)
		wr_warn("reading the unwind tables of %s: %s (frames in it may stop early)", m->path,
			wr_strerror(m->cfi_err));
	cfi_sources_close(m->cfi_src);
	m->cfi_src = NULL;
	m->cfi_loaded = true;
	t->stats.cfi_rows += m->cfi.n;
	t->stats.cfi_rules += m->rules.n;
	t->stats.cfi_modules++;
	t->stats.cfi_seconds += m->cfi.stats.seconds;
}

static void *loader_main(void *arg)
{
	struct cfi_loader *l = arg;

	wr_log_defer(&l->log);
	for (size_t i = 0; i < l->n; i++) {
		struct tmodule *m = l->mods[i];
		bool mine;

		pthread_mutex_lock(&l->lock);
		mine = !l->stop && m->cfi_state == CFI_QUEUED;
		if (mine)
			m->cfi_state = CFI_TAKEN;
		pthread_mutex_unlock(&l->lock);
		if (!mine)
			continue;
		extract(m);
		if (l->maps)
			make_maps(m);
		pthread_mutex_lock(&l->lock);
		m->cfi_state = CFI_DONE;
		pthread_cond_broadcast(&l->changed);
		pthread_mutex_unlock(&l->lock);
	}
	pthread_mutex_lock(&l->lock);
	l->finished = true;
	pthread_cond_broadcast(&l->changed);
	pthread_mutex_unlock(&l->lock);
	wr_log_defer(NULL);
	return NULL;
}

/* Main thread: make @m's rows ready, taking it from the loader's queue
 * or waiting while the loader reads it. */
static void claim(struct target *t, struct tmodule *m)
{
	struct cfi_loader *l = t->cfi_loader;
	bool mine;

	pthread_mutex_lock(&l->lock);
	mine = m->cfi_state == CFI_QUEUED;
	if (mine)
		m->cfi_state = CFI_TAKEN;
	while (!mine && m->cfi_state != CFI_DONE)
		pthread_cond_wait(&l->changed, &l->lock);
	pthread_mutex_unlock(&l->lock);
	if (mine)
		extract(m);
	adopt(t, m);
}

static int load_module_cfi(struct target *t, struct tmodule *m)
{
	if (m->cfi_loaded)
		return 0;
	if (m->cfi_queued) {
		claim(t, m);
		return 0;
	}
	m->cfi_src = cfi_sources_open(m->dw);
	extract(m);
	adopt(t, m);
	return 0;
}

int target_load_module_cfi(struct target *t, struct tmodule *m)
{
	return load_module_cfi(t, m);
}

static size_t eh_size_order(const struct tmodule *m)
{
	return m->cfi_src ? cfi_sources_size(m->cfi_src) : 0;
}

static int by_size_desc(const void *a, const void *b)
{
	size_t x = eh_size_order(*(struct tmodule *const *)a),
	       y = eh_size_order(*(struct tmodule *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

void target_load_cfi_start(struct target *t)
{
	struct cfi_loader *l;

	t->want_cfi = true;
	if (t->cfi_loader)
		return;
	l = xcalloc(1, sizeof(*l));
	l->t0 = now_seconds();
	l->maps = t->cfi_maps_early;
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmodule *m = t->mods[i];

		if (m->cfi_loaded)
			continue;
		m->cfi_src = cfi_sources_open(m->dw);
		m->cfi_state = CFI_QUEUED; /* no other thread yet */
		m->cfi_queued = true;
		l->mods = xgrow(l->mods, &l->cap, l->n + 1, sizeof(*l->mods));
		l->mods[l->n++] = m;
	}
	if (!l->n) {
		free(l);
		return;
	}
	/* The biggest first: the main thread then takes the small ones it
	 * needs (the probe's module) itself instead of waiting. */
	qsort(l->mods, l->n, sizeof(*l->mods), by_size_desc);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->changed, NULL);
	t->cfi_loader = l;
	l->threaded = thread_start_unsignalled(&l->thread, loader_main, l);
	if (!l->threaded)
		loader_main(l);
}

void target_load_cfi_wait(struct target *t)
{
	struct cfi_loader *l = t->cfi_loader;
	double t0 = now_seconds();

	if (!l)
		return;
	if (t->progress && !l->stop)
		t->progress(t->progress_ctx, "reading unwind tables");
	if (l->threaded)
		pthread_join(l->thread, NULL);
	wr_log_replay(&l->log);
	for (size_t i = 0; i < l->n; i++) {
		struct tmodule *m = l->mods[i];

		/* The loader is gone: the states are the main thread's now. */
		if (m->cfi_state == CFI_DONE && !m->cfi_loaded)
			adopt(t, m);
		cfi_sources_close(m->cfi_src); /* left when stopped */
		m->cfi_src = NULL;
		m->cfi_state = CFI_NONE;
		m->cfi_queued = false;
	}
	if (t->progress && !l->stop)
		t->progress(t->progress_ctx, NULL);
	if (!l->stop)
		wr_debug("unwind tables: %zu rows of %zu modules ready in %.1f ms (%.1f ms of "
			 "extraction, mostly on the loader thread; the main thread waited %.1f ms)",
			 t->stats.cfi_rows, t->stats.cfi_modules, (now_seconds() - l->t0) * 1e3,
			 t->stats.cfi_seconds * 1e3, (now_seconds() - t0) * 1e3);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->changed);
	free(l->mods);
	free(l);
	t->cfi_loader = NULL;
}

void target_load_cfi_stop(struct target *t)
{
	struct cfi_loader *l = t->cfi_loader;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_mutex_unlock(&l->lock);
	target_load_cfi_wait(t);
}

int target_load_cfi(struct target *t)
{
	if (t->progress && !t->cfi_loader)
		t->progress(t->progress_ctx, "reading unwind tables");
	target_load_cfi_start(t);
	target_load_cfi_wait(t);
	for (size_t i = 0; i < t->n_mods; i++)
		load_module_cfi(t, t->mods[i]);
	if (t->progress)
		t->progress(t->progress_ctx, NULL);
	return t->rt ? target_install(t, t->rt) : 0;
}
