/* loader.h - reading modules' unwind rows (cfi.h) on a thread of their
 * own while the caller goes on (compiling probes).
 *
 * Layer rule: unwind/ (see cfi.h).  The caller decides which modules and
 * in what order; this file only runs the reads.
 *
 * A process with a big library mapped spends most of its start-up reading
 * rows (libLLVM: 1.7 M rows, over 100 ms), and nothing before the kernel
 * side is filled needs them but a probe's own module.  The caller finds
 * each module's CFI sections first, on its own thread (cfi_sources_open():
 * libelf and libdwfl are not thread-safe), and queues a struct uw_load for
 * it; the loader thread then reads the queued ones in order, which only
 * reads the sections' bytes.  A module the caller needs before the loader
 * has reached it, the caller reads itself (uw_loader_claim()); one the
 * loader is reading, it waits for.  A job's rows belong to whoever took
 * it until it is read; after that, to the caller.
 */
#ifndef WRAITH_UNWIND_LOADER_H
#define WRAITH_UNWIND_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "unwind/cfi.h"

/* One module's rows to read: the caller's, with the loader's state. */
struct uw_load {
	struct cfi_sources *src;  /* borrowed: the module's sections, open until read */
	struct cfi_rules *rules;  /* borrowed: where its rules go */
	struct cfi_table *table;  /* borrowed: where its rows go */
	int err;                  /* of reading it (cfi_sources_extract()) */
	bool last;                /* read after the others (see uw_loader_start()) */
	void *owner;              /* the caller's: what the job is for */
	int state;                /* the loader's, under its lock */
};

/* Read @job's rows here, on the caller's thread, into job->err. */
void uw_load_run(struct uw_load *job);

/* Called on the loader thread once it has read @job, unless the loader
 * was stopped: for more of the slow work that can overlap the caller's
 * (a module's kernel maps, whose memory is first touched there). */
typedef void (*uw_loaded_fn)(struct uw_load *job, void *ctx);

struct uw_loader;

/* Start reading the @n jobs of @jobs in their order, those marked last
 * after the others and, when @hold_until > 0 (a testing aid), not before
 * that time (now_seconds()'s clock) or a stop.  @jobs is copied; the jobs
 * stay the caller's and must outlive the loader.  When no thread can be
 * started, reads them all before returning.  Never NULL; free with
 * uw_loader_free(). */
struct uw_loader *uw_loader_start(struct uw_load *const *jobs, size_t n, double hold_until,
				  uw_loaded_fn loaded, void *ctx);
/* Make @job's rows ready (the caller's thread): read it here when the
 * loader has not taken it yet, else wait until it has read it. */
void uw_loader_claim(struct uw_loader *l, struct uw_load *job);
/* Is @job read, so that claiming it does not wait? */
bool uw_loader_done(struct uw_loader *l, const struct uw_load *job);
/* The jobs marked last are read at the lowest CPU priority (nice 19), so
 * as not to slow the caller's start-up, until this is called (the caller
 * is up: they are wanted now).  Cheap; may be called more than once. */
void uw_loader_boost(struct uw_loader *l);
/* Stop after the job being read (the others stay unread, their state
 * queued); a hold is cut short. */
void uw_loader_stop(struct uw_loader *l);
/* Wait until the loader has ended, and replay on this thread what it
 * logged.  Afterwards every job is either read (uw_loader_done()) or was
 * left unread by a stop. */
void uw_loader_join(struct uw_loader *l);
/* Join and free.  NULL is a no-op. */
void uw_loader_free(struct uw_loader *l);

#endif
