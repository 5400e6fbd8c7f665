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
 * needs it, or waits for that one module.  Unless --dry-run, the loader
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
 * cfi_state is read and written under the loader's lock only; the other
 * fields (cfi_loaded, cfi_queued, the stats) belong to the main thread,
 * and a module's rows to whoever took it until it is CFI_DONE: the main
 * thread adopts a finished module when it first looks.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "runtime/runtime.h"
#include "util/clock.h"
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

enum { CFI_NONE, CFI_QUEUED, CFI_TAKEN, CFI_DONE };

/* Bytes of CFI from which a module may be deferred: libLLVM (6.2 MB of
 * .eh_frame, 1.17 M rows) and libz3 (2.2 MB) are, libstdc++ (200 KB) is
 * not.  A testing aid, for the e2e tests only: WRAITH_DEFER_CFI=BYTES[:MS]
 * lowers it, and makes the loader wait MS ms (or until stopped) before it
 * reads the modules that may be deferred, so that a small library is
 * deferred and on the stack while the first events come. */
#define CFI_DEFER_BYTES (1024 * 1024)

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
	double hold;                /* seconds to wait before the deferrable ones (tests) */
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

/* The testing aid's wait (see CFI_DEFER_BYTES), cut short by a stop. */
static void hold(struct cfi_loader *l)
{
	struct timespec until;
	double at = l->t0 + l->hold;

	until.tv_sec = (time_t)at;
	until.tv_nsec = (long)((at - (double)until.tv_sec) * 1e9);
	pthread_mutex_lock(&l->lock);
	while (!l->stop && pthread_cond_timedwait(&l->changed, &l->lock, &until) != ETIMEDOUT)
		;
	l->hold = 0;
	pthread_mutex_unlock(&l->lock);
}

static void *loader_main(void *arg)
{
	struct cfi_loader *l = arg;

	wr_log_defer(&l->log);
	for (size_t i = 0; i < l->n; i++) {
		struct tmodule *m = l->mods[i];
		bool mine, maps;

		if (m->cfi_big && l->hold > 0)
			hold(l);
		pthread_mutex_lock(&l->lock);
		mine = !l->stop && m->cfi_state == CFI_QUEUED;
		if (mine)
			m->cfi_state = CFI_TAKEN;
		pthread_mutex_unlock(&l->lock);
		if (!mine)
			continue;
		extract(m);
		pthread_mutex_lock(&l->lock);
		maps = l->maps && !l->stop; /* stopped: put in the usual way, if ever */
		pthread_mutex_unlock(&l->lock);
		if (maps)
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

/* The modules that may be deferred last; in each group the biggest
 * first. */
static int by_size_desc(const void *a, const void *b)
{
	const struct tmodule *ma = *(struct tmodule *const *)a, *mb = *(struct tmodule *const *)b;
	size_t x = eh_size_order(ma), y = eh_size_order(mb);

	if (ma->cfi_big != mb->cfi_big)
		return ma->cfi_big ? 1 : -1;
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
	return m->cfi_src && cfi_sources_size(m->cfi_src) >= threshold && m != main_mod &&
	       !m->special && !m->unmapped && !m->cfi_pinned && !on_every_stack(m) &&
	       !t->cfi_defer_off;
}

void target_load_cfi_start(struct target *t)
{
	struct tmodule *main_mod;
	struct cfi_loader *l;
	pthread_condattr_t ca;
	size_t threshold;

	t->want_cfi = true;
	if (t->cfi_loader)
		return;
	l = xcalloc(1, sizeof(*l));
	l->t0 = now_seconds();
	l->maps = t->cfi_maps_early;
	main_mod = target_main_module(t);
	threshold = defer_bytes(&l->hold);
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmodule *m = t->mods[i];

		if (m->cfi_loaded)
			continue;
		m->cfi_src = cfi_sources_open(m->dw);
		m->cfi_big = deferrable(t, m, main_mod, threshold);
		m->cfi_state = CFI_QUEUED; /* no other thread yet */
		m->cfi_queued = true;
		l->mods = xgrow(l->mods, &l->cap, l->n + 1, sizeof(*l->mods));
		l->mods[l->n++] = m;
	}
	if (!l->n) {
		free(l);
		return;
	}
	/* The biggest first, but those that may be deferred last: the main
	 * thread then takes the small ones it needs (the probe's module)
	 * itself instead of waiting, and target_install() finds the others
	 * read. */
	qsort(l->mods, l->n, sizeof(*l->mods), by_size_desc);
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* now_seconds()'s, for hold() */
	pthread_cond_init(&l->changed, &ca);
	pthread_condattr_destroy(&ca);
	t->cfi_loader = l;
	l->threaded = thread_start_unsignalled(&l->thread, loader_main, l);
	if (!l->threaded)
		loader_main(l);
}

/* Join the loader and adopt what it read.  @late: after target_install()
 * deferred modules (no progress shown, nobody waits). */
static void join(struct target *t, bool late)
{
	struct cfi_loader *l = t->cfi_loader;
	bool shown = t->progress && !l->stop && !late;
	double t0 = now_seconds();

	if (late) { /* nothing is left to read: cut short a testing aid's hold() */
		pthread_mutex_lock(&l->lock);
		l->stop = true;
		pthread_cond_broadcast(&l->changed);
		pthread_mutex_unlock(&l->lock);
	}
	if (shown)
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
	if (shown)
		t->progress(t->progress_ctx, NULL);
	if (!l->stop || late)
		wr_debug("unwind tables: %zu rows of %zu modules ready in %.1f ms (%.1f ms of "
			 "extraction, mostly on the loader thread; the main thread waited %.1f ms)",
			 t->stats.cfi_rows, t->stats.cfi_modules, (now_seconds() - l->t0) * 1e3,
			 t->stats.cfi_seconds * 1e3, late ? 0.0 : (now_seconds() - t0) * 1e3);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->changed);
	free(l->mods);
	free(l);
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
	struct cfi_loader *l = t->cfi_loader;
	struct strbuf names = STRBUF_INIT;
	size_t n = 0;

	if (!l || t->cfi_defer_off)
		return 0;
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->n; i++) {
		struct tmodule *m = l->mods[i];

		if (!m->cfi_big || m->cfi_pinned || m->cfi_state == CFI_DONE)
			continue;
		m->cfi_deferred = true;
		strbuf_addf(&names, "%s%s (%.1f MB of CFI)", n ? ", " : "", dw_module_name(m->dw),
			    cfi_sources_size(m->cfi_src) / 1e6);
		n++;
	}
	pthread_mutex_unlock(&l->lock);
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
	struct cfi_loader *l = t->cfi_loader;
	bool done;

	if (m->cfi_loaded || !l || !m->cfi_queued)
		return m->cfi_loaded;
	pthread_mutex_lock(&l->lock);
	done = m->cfi_state == CFI_DONE;
	pthread_mutex_unlock(&l->lock);
	return done;
}

void target_load_cfi_stop(struct target *t)
{
	struct cfi_loader *l = t->cfi_loader;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_broadcast(&l->changed);
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
