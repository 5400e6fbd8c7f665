/* loader.c - reading modules' unwind rows on a thread of their own (see
 * loader.h).
 *
 * A job's state moves queued -> taken -> done under the loader's lock:
 * whoever takes a queued job (the loader thread, or the caller in
 * uw_loader_claim()) reads it outside the lock, and marking it done wakes
 * any caller waiting for it.
 */
#include "unwind/loader.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The nice value the last jobs are read at (see yield_cpu()). */
#define LOADER_NICE 19

enum { LOAD_QUEUED, LOAD_TAKEN, LOAD_DONE };

struct uw_loader {
	pthread_t thread;
	bool threaded;
	bool joined;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct uw_load **jobs;      /* owned array, borrowed jobs */
	size_t n;
	bool stop;
	double hold_until;          /* the last ones wait until then (now_seconds()), or 0 */
	uw_loaded_fn loaded;
	void *ctx;
	struct wr_log_deferred log; /* the thread's messages, replayed on joining */
	pid_t tid;                  /* the thread's, once it reads the last ones, or 0 */
	bool boosted;               /* uw_loader_boost() was called */
	bool own_thread;            /* loader_main() runs on a thread of its own */
};

void uw_load_run(struct uw_load *job)
{
	job->err = cfi_sources_extract(job->src, job->rules, job->table);
}

/* The testing aid's wait (see uw_loader_start()), cut short by a stop. */
static void hold(struct uw_loader *l)
{
	struct timespec until;

	until.tv_sec = (time_t)l->hold_until;
	until.tv_nsec = (long)((l->hold_until - (double)until.tv_sec) * 1e9);
	pthread_mutex_lock(&l->lock);
	while (!l->stop && pthread_cond_timedwait(&l->changed, &l->lock, &until) != ETIMEDOUT)
		;
	l->hold_until = 0;
	pthread_mutex_unlock(&l->lock);
}

/* Take @job when it is still queued and the loader runs. */
static bool take(struct uw_loader *l, struct uw_load *job)
{
	bool mine;

	pthread_mutex_lock(&l->lock);
	mine = !l->stop && job->state == LOAD_QUEUED;
	if (mine)
		job->state = LOAD_TAKEN;
	pthread_mutex_unlock(&l->lock);
	return mine;
}

/* The last ones are read at the lowest priority until uw_loader_boost():
 * the caller's start-up (compiling, the verifier on the kernel thread)
 * needs the two CPUs of a small machine more than they do. */
static void yield_cpu(struct uw_loader *l)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	pthread_mutex_lock(&l->lock);
	if (!l->boosted && l->own_thread && setpriority(PRIO_PROCESS, (id_t)tid, LOADER_NICE) == 0)
		l->tid = tid;
	pthread_mutex_unlock(&l->lock);
}

static void *loader_main(void *arg)
{
	struct uw_loader *l = arg;
	bool yielded = false;

	wr_log_defer(&l->log);
	for (size_t i = 0; i < l->n; i++) {
		struct uw_load *job = l->jobs[i];
		bool loaded;

		if (job->last && !yielded) {
			yield_cpu(l);
			yielded = true;
		}
		if (job->last && l->hold_until > 0)
			hold(l);
		if (!take(l, job))
			continue;
		uw_load_run(job);
		pthread_mutex_lock(&l->lock);
		loaded = l->loaded && !l->stop; /* stopped: the caller does the rest, if ever */
		pthread_mutex_unlock(&l->lock);
		if (loaded)
			l->loaded(job, l->ctx);
		pthread_mutex_lock(&l->lock);
		job->state = LOAD_DONE;
		pthread_cond_broadcast(&l->changed);
		pthread_mutex_unlock(&l->lock);
	}
	pthread_mutex_lock(&l->lock);
	l->tid = 0; /* it may name another thread once this one ends */
	pthread_mutex_unlock(&l->lock);
	wr_log_defer(NULL);
	return NULL;
}

/* The last ones after the others, keeping the order within each group. */
static void order(struct uw_loader *l)
{
	struct uw_load **v = xmalloc(l->n * sizeof(*v));
	size_t k = 0;

	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < l->n; i++)
			if (l->jobs[i]->last == (bool)last)
				v[k++] = l->jobs[i];
	memcpy(l->jobs, v, l->n * sizeof(*v));
	free(v);
}

struct uw_loader *uw_loader_start(struct uw_load *const *jobs, size_t n, double hold_until,
				  uw_loaded_fn loaded, void *ctx)
{
	struct uw_loader *l = xcalloc(1, sizeof(*l));
	pthread_condattr_t ca;

	l->jobs = xmalloc((n ? n : 1) * sizeof(*l->jobs));
	memcpy(l->jobs, jobs, n * sizeof(*jobs));
	l->n = n;
	for (size_t i = 0; i < n; i++)
		l->jobs[i]->state = LOAD_QUEUED; /* no other thread yet */
	order(l);
	l->hold_until = hold_until;
	l->loaded = loaded;
	l->ctx = ctx;
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* now_seconds()'s, for hold() */
	pthread_cond_init(&l->changed, &ca);
	pthread_condattr_destroy(&ca);
	l->own_thread = true; /* before it starts: it reads it */
	l->threaded = thread_start_unsignalled(&l->thread, loader_main, l);
	if (!l->threaded) {
		l->own_thread = false; /* the caller's thread keeps its priority */
		loader_main(l);
	}
	return l;
}

void uw_loader_claim(struct uw_loader *l, struct uw_load *job)
{
	bool mine;

	pthread_mutex_lock(&l->lock);
	mine = job->state == LOAD_QUEUED;
	if (mine)
		job->state = LOAD_TAKEN;
	pthread_mutex_unlock(&l->lock);
	if (!mine && job->last)
		uw_loader_boost(l); /* waited for: at full speed */
	pthread_mutex_lock(&l->lock);
	while (!mine && job->state != LOAD_DONE)
		pthread_cond_wait(&l->changed, &l->lock);
	pthread_mutex_unlock(&l->lock);
	if (!mine)
		return;
	uw_load_run(job);
	pthread_mutex_lock(&l->lock);
	job->state = LOAD_DONE;
	pthread_mutex_unlock(&l->lock);
}

bool uw_loader_done(struct uw_loader *l, const struct uw_load *job)
{
	bool done;

	pthread_mutex_lock(&l->lock);
	done = job->state == LOAD_DONE;
	pthread_mutex_unlock(&l->lock);
	return done;
}

void uw_loader_boost(struct uw_loader *l)
{
	pthread_mutex_lock(&l->lock);
	l->boosted = true;
	if (l->tid)
		(void)setpriority(PRIO_PROCESS, (id_t)l->tid, 0);
	l->tid = 0;
	pthread_mutex_unlock(&l->lock);
}

void uw_loader_stop(struct uw_loader *l)
{
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_broadcast(&l->changed);
	pthread_mutex_unlock(&l->lock);
}

void uw_loader_join(struct uw_loader *l)
{
	if (l->joined)
		return;
	uw_loader_boost(l);
	if (l->threaded)
		pthread_join(l->thread, NULL);
	l->joined = true;
	wr_log_replay(&l->log);
}

void uw_loader_free(struct uw_loader *l)
{
	if (!l)
		return;
	uw_loader_join(l);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->changed);
	free(l->jobs);
	free(l);
}
