/* target_priv.h - what the files of the target share (tracer/target*.c);
 * nothing outside them includes it.
 *
 * target.c opens and frees a target and keeps its modules; target_procs.c
 * its processes and their mappings; target_install.c the kernel's copy of
 * both; target_cfi.c which modules' unwind rows are read when;
 * target_data.c the program's data across modules; target_frames.c turns
 * backtrace frames into names (symbols, tail calls) and finishes the walks
 * the kernel hands over; target_names.c finds the module a name means;
 * target_libs.c finds libraries a process has not loaded yet.
 */
#ifndef WRAITH_TRACER_TARGET_PRIV_H
#define WRAITH_TRACER_TARGET_PRIV_H

#include "tracer/target.h"
#include "unwind/cfi.h"
#include "unwind/loader.h"

/* A module's unwind rows and what became of them (target_cfi.c reads
 * them, target_install.c puts them in the kernel). */
struct tmodule_cfi {
	bool loaded;            /* rows extracted */
	bool installed;         /* rows in the kernel */
	bool queued;            /* in the loader thread's queue (target_cfi.c) */
	bool pinned;            /* holds probe sites: never deferred */
	bool deferred;          /* left out of the kernel (rows and mappings) until
				 * the loader has read it: a walk reaching it is
				 * handed over and finished in userspace */
	struct uw_load load;    /* reading its rows (unwind/loader.h): its sections
				 * (owned while queued), and .last when deferrable: big,
				 * and not one of the modules every stack passes through */
	int fds[2];             /* owned: its rules' and rows' maps, made early by the
				 * loader thread (runtime_cfi_maps_new), or -1 */
	struct cfi_rules rules; /* this module's rule table */
	struct cfi_table rows;  /* its rows, by pc */
};

struct tail_entry;
struct cfi_loader;

struct target_stats {
	size_t cfi_rows;
	size_t cfi_rules;
	double cfi_seconds;
	size_t cfi_modules;
	size_t deferred_walks;  /* walks handed over at a deferred module, finished here */
};

struct proc_stable_cache;

struct target {
	pid_t pid;              /* -p: the process (its thread group), else 0 */
	pid_t tid;              /* -p given a thread that is not the leader: only it */
	char *ended;            /* owned: why the process can no longer be traced, when
				 * not because it exited (exec of another program) */
	char *path;             /* -t, else NULL (owned) */
	char *given;            /* -t as the user spelled it (a symlink's name, say), else
				 * NULL (owned) */
	struct tmodule *scope;  /* -t with -p: the module probes go in (borrowed) */
	struct tmodule **mods;  /* owned */
	size_t n_mods, cap_mods;
	struct tprocess **procs; /* owned */
	size_t n_procs, cap_procs;
	bool want_cfi;          /* load CFI of every module (a probe uses bt) */
	struct cfi_loader *cfi_loader; /* owned: the thread reading CFI, or NULL */
	bool cfi_maps_early;    /* the loader also makes the kernel's maps (not --dry-run) */
	bool cfi_defer_off;     /* no module may be deferred (a `count bt` never hands over) */
	size_t cfi_n_deferred;  /* modules deferred and not yet installed */
	double cfi_installed_at; /* when target_install() put the others in */
	bool cfi_put;           /* target_install() ran wanting unwind tables */
	double last_scan;       /* -t: when /proc was last searched for new processes */
	uint32_t generation;    /* of installed mappings (see wr_proc_maps.generation) */
	struct runtime *rt;     /* borrowed, NULL until installed */
	struct target_stats stats;
	struct tail_entry *tails;   /* owned: tail-call frames by frame pair, direct-mapped */
	struct proc_stable_cache *stable; /* owned, made on first need: target_read_stable() */
	/* Progress of slow start-up work (CFI extraction); may be NULL. */
	void (*progress)(void *ctx, const char *text);
	void *progress_ctx;
};

/* -t PROGRAM: add the libraries the program loads at start (the closure
 * of its DT_NEEDED, found as the dynamic linker finds them), not loaded
 * yet, so probes go in them before a process runs it (target_needed.c). */
void target_add_needed(struct target *t);

/* -t PATH: tell the kernel which of the known processes are the target's
 * (target_site_filtered()); each process added or changed later is told
 * as it is (target_procs.c). */
void target_sync_members(struct target *t);

/* ---- processes (target_procs.c) ---- */

/* Free @p and what it owns.  NULL is a no-op. */
void tprocess_free(struct tprocess *p);
/* The text of /proc/@pid/maps into *@out (caller frees).  Returns 0 or
 * -errno. */
int target_read_maps(pid_t pid, char **out);
/* Add process @pid with its maps text @maps_text (taken over), opening the
 * modules it maps.  Returns 0 or a negative error. */
int target_add_process(struct target *t, pid_t pid, char *maps_text);
/* -t: add the processes that map the target file and are not known yet.
 * Returns how many. */
int target_scan_processes(struct target *t);
/* The process @pid of @t, or NULL. */
struct tprocess *target_process(struct target *t, pid_t pid);
/* Bring the mappings of @pid up to date now (adding the process when -t
 * sees it for the first time) and install them.  Returns it, or NULL. */
struct tprocess *target_refresh_process(struct target *t, pid_t pid);

/* ---- the kernel's copy (target_install.c) ---- */

/* Put @p's mappings in the kernel (and the rows of the modules they
 * map, first).  Returns 0 or a negative error. */
int target_install_process(struct target *t, struct tprocess *p);

/* ---- modules (target.c, target_data.c) ---- */

/* The module of file (@dev, @ino), or NULL. */
struct tmodule *target_module_by_identity(struct target *t, uint64_t dev, uint64_t ino);

/* Add the module @path, opened through @open_path (taken over), unless the
 * file (@dev, @ino) is known already (*@out is then that module).
 * Returns 0 or a negative error. */
int target_add_module(struct target *t, const char *path, char *open_path, uint64_t dev,
		      uint64_t ino, struct tmodule **out);

/* The type resolver of every module of @ctx (a struct target): a type
 * module @asking only declares, spelled @spelling, from another module
 * that defines it, or NULL (dwarf/module.h). */
struct dw_type;
const struct dw_type *target_resolve_type(void *ctx, struct dw_module *asking, const char *spelling);

/* The caller modules of every module of @ctx (a struct target): its @i-th
 * other module mapped in the one process traced, and that module's load
 * bias less @asking's; false past the last, or when the target is not
 * one process (dwarf/vars.h: dw_caller_modules). */
bool target_caller_modules(void *ctx, struct dw_module *asking, size_t i, struct dw_module **out,
			   int64_t *delta);

/* ---- unwind rows (target_cfi.c) ---- */

/* Stop the loader thread of target_load_cfi_start() after the module it
 * is reading, and wait for it (target_free()). */
void target_load_cfi_stop(struct target *t);

/* target_install(): mark deferred the big modules the loader has not
 * finished (see target_cfi.c); how many. */
size_t target_cfi_defer(struct target *t);
/* Are @m's rows read, so that loading them does not wait? */
bool target_cfi_ready(struct target *t, const struct tmodule *m);
/* Join the loader once the last deferred module is in (it is done, or
 * about to be). */
void target_cfi_join_late(struct target *t);

#endif
