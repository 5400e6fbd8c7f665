/* target.h - what is being traced: one process (-p PID) or every process
 * that maps one file (-t PATH), the modules (executables and libraries)
 * they map, and the CFI of those modules.
 *
 * struct target is opaque: its fields are the target*.c files' own
 * (target_priv.h), and the rest of tracer/ asks through the functions
 * here.  So are a module's unwind rows and their state (struct
 * tmodule_cfi), read through target_rule_at(), target_cfa_at() and
 * target_module_rows().
 *
 * Layer rule: tracer/ sits on top of proc/, dwarf/, script/, codegen/,
 * runtime/ and render/, and is the only place that joins them.  The shell,
 * --batch and script mode all drive a target through tracer/session.h.
 *
 * A module is opened once per file (dev, inode) and shared by every
 * process; its cookie is its slot in the CFI maps plus one, so the cookie
 * in a backtrace frame names the module directly.  Per process the target
 * keeps the executable mappings with their load bias, which is what the
 * unwinder needs to normalise an instruction pointer.
 */
#ifndef WRAITH_TRACER_TARGET_H
#define WRAITH_TRACER_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/decode.h"
#include "protocol/wire.h"

struct cfi_rules;
struct cfi_table;
struct dw_module;
struct runtime;
struct tmodule_cfi;
struct render_frame;
struct strbuf;

struct tmodule {
	struct dw_module *dw;   /* owned */
	char *path;             /* owned: as the process sees it */
	char *open_path;        /* owned: the path we opened (may be under /proc/PID/root) */
	uint64_t dev;
	uint64_t ino;
	uint32_t slot;          /* CFI map slot */
	uint64_t cookie;        /* slot + 1 */
	bool deleted;           /* deleted or replaced on disk: open_path is the mapping */
	bool special;           /* the vdso: unwound and named, never probed */
	bool unmapped;          /* found on disk for a probe; no process maps it yet */
	struct tmodule_cfi *cfi; /* owned: its unwind rows and what became of them
				 * (target_priv.h: the target files' own) */
};

struct tmapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;        /* file offset of start */
	uint64_t bias;          /* runtime address - ELF virtual address */
	struct tmodule *mod;    /* borrowed from the target */
};

struct tprocess {
	pid_t pid;
	uint64_t exe_dev;       /* the program it runs (/proc/PID/exe) */
	uint64_t exe_ino;
	uint64_t exe_start;     /* where that program's first mapping starts */
	char *maps_text;        /* owned: last /proc/PID/maps text seen */
	struct tmapping *maps;  /* owned, sorted by start */
	size_t n_maps;
	bool installed;         /* mappings sent to the kernel */
};

struct target;

/* Open the process @pid: read its mappings and open every module it maps.
 * A @pid that is a thread other than its process's main thread traces
 * the process's code in that thread only (t->tid; a warning says so).
 * Returns 0, -WR_ENOPROC, -WR_EKTHREAD or -errno (message logged). */
int target_open_pid(pid_t pid, struct target **out);
/* Open every process that maps @path (possibly none yet).  @path is a
 * path, or a name without '/' that is not a file here: a program in $PATH,
 * else a library by short name (libc).  Returns 0, -ENOENT or -WR_EELF
 * (message logged). */
int target_open_path(const char *path, struct target **out);
/* -t PATH with -p: probes of @t (a process target) go in the module PATH
 * only.  PATH is a path, or a short name (libc, libfix_a) of a module the
 * process maps.  Returns 0 or -WR_ENOTARGET (message logged). */
int target_set_scope(struct target *t, const char *path);
/* NULL is a no-op. */
void target_free(struct target *t);

/* ---- what a target is (struct target is private to target*.c) ---- */

/* -p: the process traced (its thread group), else 0. */
pid_t target_pid(const struct target *t);
/* -p given a thread that is not its process's main thread: that thread
 * only is traced; else 0. */
pid_t target_tid(const struct target *t);
/* -t: the file, as an absolute path (borrowed), else NULL. */
const char *target_path(const struct target *t);
/* -t with -p: the module probes go in, else NULL. */
struct tmodule *target_scope(const struct target *t);
/* -t PATH without -p: the target's processes are those that run PATH (a
 * program) or map it (a library), and a uprobe on another file fires in
 * every process that maps that file: true when a site in module @m must
 * take the hits of the target's processes only (WR_COOKIE_MEMBERS; the
 * kernel keeps them, target_install()).  False for PATH's own file, whose
 * uprobes fire only where it is mapped, and outside -t PATH. */
bool target_site_filtered(const struct target *t, const struct tmodule *m);
/* The same question for the session: -t PATH without -p. */
bool target_has_members(const struct target *t);
/* The modules opened so far: how many, and module @i (< count; its CFI
 * slot).  New modules are appended, so an index stays valid. */
size_t target_module_count(const struct target *t);
struct tmodule *target_module(const struct target *t, size_t i);
/* How many processes are traced now. */
size_t target_process_count(const struct target *t);
/* Why the process can no longer be traced when not because it exited (it
 * ran exec() of another program), else NULL.  Borrowed. */
const char *target_ended(const struct target *t);
/* Progress of slow start-up work (reading unwind tables, downloads) goes
 * to @fn(@ctx, text), text NULL when done; @fn NULL: nowhere. */
void target_set_progress(struct target *t, void (*fn)(void *ctx, const char *text), void *ctx);
/* Say @text (NULL: done) where target_set_progress() said. */
void target_progress(struct target *t, const char *text);

/* The module a probe pattern means: @name NULL = the main module (the
 * executable with -p, the file with -t); else a path, a basename, a
 * unique path suffix, another name of the module's file (a symlink or
 * hard link to it: a path, a name in the working directory or in the
 * module's directory, or the tail of the path -t was given as), or a
 * short library name (libc for libc.so.6, see proc/libpath.h).  Returns
 * the module or NULL; on ambiguity sets *ambiguous. */
struct tmodule *target_find_module(struct target *t, const char *name, bool *ambiguous);
struct tmodule *target_main_module(struct target *t);
/* The modules in the order users expect, into @order (room for
 * target_module_count() + 1): the main module first, then the others as
 * they were opened.  With @probed, only those a probe may go in: with -t
 * and -p together the -t module only, and never a special one (the vdso:
 * no uprobe can be placed in it).  Returns how many. */
size_t target_modules_in_order(struct target *t, bool probed, struct tmodule **order);
struct tmodule *target_module_by_cookie(struct target *t, uint64_t cookie);
/* The module whose debug info is @dw, or NULL. */
struct tmodule *target_module_of(struct target *t, const struct dw_module *dw);
/* Module @m's load bias (runtime address - ELF address) in process @pid,
 * from its mappings; false when the process is not known to map it. */
bool target_module_bias(struct target *t, pid_t pid, const struct tmodule *m, uint64_t *bias);

/* Look for libraries that define @function where process t->pid loads
 * its own libraries from (the directories of its executable and of its
 * non-system libraries, its LD_LIBRARY_PATH) and that it has not mapped;
 * each one found becomes a module (unmapped), so a probe can be placed on
 * its file before the process loads it.  Returns how many were added. */
size_t target_find_unloaded(struct target *t, const char *function);

/* Load (if not yet) the CFI of every module, and from now on of every
 * module that appears later.  Returns 0 or a negative error. */
int target_load_cfi(struct target *t);
/* The same, on a thread of its own: start reading every module's CFI, to
 * be waited for by target_load_cfi_wait(), which target_install() and
 * target_load_cfi() call first (and target_load_module_cfi() waits for
 * the one module it needs).  Until then the rows of a module not yet
 * read are not the main thread's to touch.  With @kernel_maps the loader
 * also makes each module's maps for the kernel (not for --dry-run). */
void target_load_cfi_start(struct target *t, bool kernel_maps);
void target_load_cfi_wait(struct target *t);

/* The loader reads the modules that may be deferred at the lowest CPU
 * priority, so as not to slow the start; the caller is up now: full speed
 * (unwind/loader.h). */
void target_cfi_boost(struct target *t);

/* Does the target want unwind tables in the kernel that target_install()
 * has not put there yet (a script with `bt` after scripts without one)? */
bool target_cfi_wanted(const struct target *t);

/* Load (if not yet) the CFI of module @m only: a probe reading frame
 * variables needs the CFA rule at its pc.  Returns 0. */
int target_load_module_cfi(struct target *t, struct tmodule *m);

/* Send CFI and mappings to @rt (and keep them current from now on).
 * While the loader thread still reads them, big modules that hold no
 * probe site and are not the executable, the dynamic linker or libc are
 * deferred: left out of the kernel, rows and mappings, so that a walk
 * reaching one is handed over and finished in userspace (which waits for
 * the module's rows).  target_install_deferred() puts them in later. */
int target_install(struct target *t, struct runtime *rt);
/* Before target_install(), while the kernel side loads: put the unwind
 * tables of the modules that are never deferred (waiting for their rows)
 * into the arrays of maps @outer (runtime_cfi_outer_new(), which the
 * runtime takes), since each write into them waits for the kernel (an RCU
 * grace period).  target_install() then puts in only the others.
 * Returns 0 or -errno (logged; target_install() tries them again). */
int target_install_early(struct target *t, const int outer[2]);
/* Install the deferred modules whose rows are ready, and the mappings of
 * the processes that map them (main thread, from the event loop).  Cheap
 * when there is nothing to do.  Returns how many went in. */
size_t target_install_deferred(struct target *t);
/* Module @m holds a probe site: never defer it (install it now if it is
 * deferred, waiting for its rows). */
void target_pin_module(struct target *t, struct tmodule *m);
/* No module may be deferred from now on: a `count bt` is counted in the
 * kernel and never handed over.  Installs any deferred one now, waiting
 * for its rows. */
void target_defer_off(struct target *t);

/* Re-read the mappings of every process (and, with -t, look for new
 * processes).  New modules are opened and installed before the mappings
 * that use them.  A process that ran exec() is noticed here: when it runs
 * the same program again the probes follow it (the kernel re-arms them in
 * the new image) and a warning says so; when it runs another program it is
 * dropped and t->ended says why.  Returns the number of processes whose
 * mappings changed, or a negative error. */
int target_refresh(struct target *t);

/* The rule index covering @pc of @m (for a probe's frame 0),
 * WR_CFI_RULE_NONE when no row covers it, or WR_RULE_LOOKUP while @m's
 * CFI is not loaded (the unwinder then searches at run time). */
uint32_t target_rule_at(struct tmodule *m, uint64_t pc);
/* The CFA at @pc of @m (a probe's frame 0, for frame variables) when its
 * rule is a register plus an offset: true, with *@reg (a DWARF register
 * number) and *@off.  *@rule is the rule index target_rule_at() gave
 * earlier; while it was not known (WR_RULE_LOOKUP, or @m's rows not read
 * then) @m's rows are read now and *@rule updated. */
bool target_cfa_at(struct target *t, struct tmodule *m, uint64_t pc, uint32_t *rule, int *reg,
		   int32_t *off);
/* @m's unwind rows and their rules as read so far (empty before), for
 * `info cfi` and `info frame`.  Borrowed from @m. */
const struct cfi_table *target_module_rows(const struct tmodule *m);
const struct cfi_rules *target_module_rules(const struct tmodule *m);

struct dw_var;
struct dw_at;

/* Where the block of thread-local variables of module @dw (NULL: of
 * @probe_mod) lies for the current thread: @is_static with @value its
 * distance below the thread pointer, else @value is the module id (its
 * entry in the thread's DTV).  Returns 0, or a negative errno with *@why
 * (static text); -ESRCH when it needs the process (-p). */
struct target_tls {
	bool is_static;
	uint64_t value;
};
int target_tls_block(struct target *t, const struct dw_module *dw, struct tmodule *probe_mod,
		     struct target_tls *out, const char **why);


/* Variable @name as a probe standing at @at in module @m sees it: what
 * dw_var_find_at() finds there, else a global defined in another module
 * (the main module first), its address made relative to @m.  Returns 0, -ENOENT or
 * -WR_ENODWARF; types are borrowed from the modules. */
int target_find_var(struct target *t, struct tmodule *m, const struct dw_at *at, const char *name,
		    struct dw_var *out);

/* "libstdc++.so.6+0x12340 in __libc_write, inlined into std::ostream::write":
 * a probe site for messages, appended to @out. */
void target_describe_site(struct target *t, struct tmodule *m, uint64_t vaddr, struct strbuf *out);
/* Finish backtrace @bt of an event of process @pid that the kernel handed
 * over (bt->stack is set): learn the process's mappings now (and install
 * them, so the events that follow need no help), check that the frame
 * where the kernel stopped lies in the very mapping the kernel saw, and
 * walk on from there through the copy of the stack (unwind/walk.h).
 * The frames go to @frames (room for WR_BT_MAX_DEPTH), starting with bt's
 * own; bt then points at them, with its new count, status and error.
 * Returns 0, or -ENOENT when the mapping is not known or not the same
 * (bt is then unchanged: it stays offsets-unavailable). */
int target_finish_backtrace(struct target *t, uint32_t pid, struct ev_backtrace *bt,
			    struct wr_bt_frame *frames);

/* Symbolize a backtrace frame into @out (strings borrowed from caches that
 * live as long as the target). */
void target_symbolize(struct target *t, const struct wr_bt_frame *f, struct render_frame *out);

/* When runtime address @addr of process @pid lies inside a symbol of a
 * module it maps, append " <symbol+offset>" to @out (gdb's way of saying
 * where a pointer points). */
void target_data_symbol(struct target *t, pid_t pid, uint64_t addr, struct strbuf *out);

/* Up to @len bytes at runtime address @addr of process @pid when they lie
 * in a module's read-only segment (a string literal), read from the
 * module's file; how many, or -1. */
long target_read_const(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len);
/* The same, from a vtable too (dw_module_read_unrelocated()): only for
 * bytes no relocation touches, as a vtable's base-class offsets. */
long target_read_vtable(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len);
/* Up to @len bytes at runtime address @addr of process @pid where they
 * cannot have changed since a probe fired (proc/stable.h: read-only
 * private mappings of files, RELRO data after relocation), read from the
 * process now; how many (0: none). */
size_t target_read_stable(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len);

/* Functions that left the stack by tail calls between @callee (a frame)
 * and @caller (the next frame out): filled into @out innermost first
 * (strings borrowed from caches that live as long as the target).
 * Returns how many (at most @max). */
size_t target_tailcalls(struct target *t, const struct wr_bt_frame *callee,
			const struct wr_bt_frame *caller, struct render_frame *out, size_t max);

/* Address @ip of process @pid as a backtrace frame (its module's cookie
 * and pc; @exact: not a return address), by the mappings the target
 * knows (read again when none holds it).  False when no module does. */
bool target_frame_at(struct target *t, pid_t pid, uint64_t ip, bool exact, struct wr_bt_frame *out);

/* `info modules` and the start-up report: per module, where its debug
 * info and unwind rows come from and what that means for probes and
 * backtraces.  With @report, unwind rows are read first for every module
 * (else only those already read are described). */
void target_dump_modules(struct target *t, struct strbuf *out, bool report);

#endif
