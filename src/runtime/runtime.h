/* runtime.h - loading, attaching and reading: everything that talks to the
 * kernel through libbpf.
 *
 * Layer rule: runtime/ is the only directory that includes libbpf headers,
 * and it depends on util/ and protocol/wire.h alone.  It takes BPF objects
 * as ELF bytes (struct bpf_blob, protocol/blob.h) and wire-format map values
 * (protocol/wire.h); libbpf and kernel failures come back as -errno or
 * -WR_E* codes with one clear message logged, and libbpf's own output goes
 * to wraith's log sink at debug level.
 *
 * One runtime per session: it loads the base object (maps and the
 * tail-called unwinder step program) and then any number of probe objects
 * that reuse the base object's maps, each attachable and detachable on its
 * own.  runtime_free() detaches and unloads everything.
 */
#ifndef WRAITH_RUNTIME_RUNTIME_H
#define WRAITH_RUNTIME_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/wire.h"
#include "protocol/blob.h"

struct runtime;
struct rt_probe;

struct rt_options {
	enum wr_transport transport;
	bool fault_in;          /* probes load sleepable (BPF_F_SLEEPABLE) */
	/* Bytes of event buffer, all CPUs together (0: runtime_default_buffer()).
	 * The ring buffer rounds it up to a power of two; the perf buffer gives
	 * each CPU its share, rounded down to a power of two of pages. */
	uint64_t buffer_bytes;
	/* Entries of each stack-counting map (0: WR_COUNT_DEFAULT_STACKS).  A
	 * session that can never count stacks asks for 1: a map's buckets
	 * cost start-up time whether it is used or not. */
	uint32_t stack_entries;
	/* Processes whose mappings can be installed at once (0: WR_MAX_PROCS):
	 * each costs a map value of 20 KiB, made when the maps are. */
	uint32_t max_procs;
	/* The disk cache (util/diskcache.h) the kernel BTF cut for the base
	 * object is kept in between runs (runtime/btf_cache.h); NULL: none. */
	const char *cache_dir;
	/* The unwinder's arrays of maps, made already (runtime_cfi_outer_new()):
	 * the base object takes them (its own copies of the fds) instead of
	 * making its own.  NULL: it makes them. */
	const int *cfi_outer;
	/* -t PATH: load the tracepoints that keep the target's processes in
	 * the kernel (runtime_watch_members()); else they are not loaded. */
	bool members;
	/* WR_BASE_NO_*: parts of the base object no probe of the session
	 * reaches; with WR_BASE_NO_STEP (or fault_in: such probes unwind
	 * themselves) the step program is not loaded.  0: all of them. */
	unsigned base_omits;
};

/* The event buffer a session gets without --buffer-size: 4 MiB per
 * possible CPU, at least 8 MiB and at most 256 MiB. */
uint64_t runtime_default_buffer(void);
/* Bytes of event buffer @opt gives the kernel, after rounding. */
uint64_t runtime_buffer_bytes(const struct rt_options *opt);

/* Load @base (from codegen_base).  Returns 0, -WR_EPERM without the needed
 * privileges, -WR_ELOAD (message logged) otherwise. */
int runtime_new(const struct rt_options *opt, const struct bpf_blob *base, struct runtime **out);
/* Detach and unload every probe, close every map.  NULL is a no-op. */
void runtime_free(struct runtime *rt);

/* -t PATH (rt_options.members): the processes of the target, for the
 * sites attached with WR_COOKIE_MEMBERS.  runtime_watch_members() tells
 * the kernel the file (@dev as stat() gives it, @ino) and attaches the
 * tracepoints that keep the set from then on: a member's forks join it,
 * a process leaves when its last thread exits, and with @exec (PATH is a
 * program) an exec() of the file joins and of another file leaves.  Call
 * it before looking for the running processes, so none is missed.
 * runtime_put_member()/runtime_del_member() add and remove one process
 * (-ENOENT before runtime_watch_members(); removing one not in is 0).
 * Return 0 or -errno (the first logs it). */
int runtime_watch_members(struct runtime *rt, uint64_t dev, uint64_t ino, bool exec);
int runtime_put_member(struct runtime *rt, uint32_t tgid);
int runtime_del_member(struct runtime *rt, uint32_t tgid);

/* Install the CFI of one module in @slot (< WR_MAX_MODULES): its rows and
 * rules each become one map of exactly that size.  Replaces what the slot
 * held.  Returns 0 or -errno. */
int runtime_put_module_cfi(struct runtime *rt, uint32_t slot, const struct wr_cfi_row *rows,
			   size_t n_rows, const struct wr_cfi_rule *rules, size_t n_rules);
/* The same in two steps, so the slow one (the maps' memory, first touched
 * here) can run early on another thread: runtime_cfi_maps_new() needs no
 * runtime and makes @fds[0] the rules' map and @fds[1] the rows' (-1 for
 * none; the caller's, to close with runtime_cfi_maps_close(), which sets
 * them to -1); runtime_put_cfi_maps() installs many modules' at once.
 * Each write into the kernel's two arrays of maps waits for an RCU grace
 * period, once per batch: it waits for one (the two arrays side by side),
 * where a module at a time waits for two a module.  Return 0 or -errno
 * (the second logs it). */
int runtime_cfi_maps_new(const struct wr_cfi_row *rows, size_t n_rows,
			 const struct wr_cfi_rule *rules, size_t n_rules, int fds[2]);
void runtime_cfi_maps_close(int fds[2]);
struct rt_cfi_put {
	uint32_t slot;          /* < WR_MAX_MODULES: replaced */
	int fds[2];             /* borrowed: runtime_cfi_maps_new()'s */
};
int runtime_put_cfi_maps(struct runtime *rt, const struct rt_cfi_put *v, size_t n);
/* The two arrays of maps themselves, made before the runtime (@outer[0]
 * the rules', @outer[1] the rows'; the caller's, closed with
 * runtime_cfi_maps_close()), so that modules can go in while the base
 * object loads (rt_options.cfi_outer), with runtime_put_cfi_maps_at(),
 * which returns 0 or -errno (not logged). */
int runtime_cfi_outer_new(int outer[2]);
int runtime_put_cfi_maps_at(const int outer[2], const struct rt_cfi_put *v, size_t n);

/* Set or remove the executable mappings of process @tgid.  Setting
 * returns 0, -WR_ELIMIT when rt_options.max_procs processes have theirs
 * already, or -errno. */
int runtime_put_proc_maps(struct runtime *rt, uint32_t tgid, const struct wr_proc_maps *pm);
int runtime_del_proc_maps(struct runtime *rt, uint32_t tgid);

/* Load a probe object (the verifier runs here) for the probe whose
 * programs read @cookie as their wire id.  Probes whose objects have the
 * same bytes share one loaded program, loaded and verified once.  On
 * rejection returns -WR_EVERIFIER; the verifier log is logged at debug
 * level and its last lines are appended to *@why (caller frees; may be
 * NULL).  A program that reads a site table (obj->site_table) gets its
 * site's data written into the entry of the cookie's wire id here, and
 * runtime_unload() clears it. */
int runtime_load_probe(struct runtime *rt, const struct bpf_blob *obj, uint64_t cookie,
		       struct rt_probe **out, char **why);
struct strbuf;
/* Replace, in @msg, the texts libbpf and glibc give errors they have no
 * name for ("ERROR: strerror_r(-524)=22", "Unknown error 524") with
 * wr_strerror()'s. */
void runtime_name_errors(struct strbuf *msg);

/* Attach @p as a uprobe at @file_offset of @path, for process @pid only
 * (-1: every process mapping the file), with @p's cookie.  May be called
 * several times.
 * Returns 0; -WR_EATTACH / -WR_EPERM (message logged); or, with no
 * message (the caller names the site), an error uprobe_insn_error()
 * explains: the kernel's uprobes refused the instruction there. */
int runtime_attach(struct runtime *rt, struct rt_probe *p, pid_t pid, const char *path,
		   uint64_t file_offset);
/* Detach every link of @p (the program stays loaded; other probes sharing
 * it stay attached).  The links close at the next runtime_settle(): until
 * then the sites may still fire. */
void runtime_detach(struct runtime *rt, struct rt_probe *p);
/* Detach and unload @p, as runtime_detach() does.  NULL is a no-op. */
void runtime_unload(struct runtime *rt, struct rt_probe *p);
/* Close every link detached since the last call, all at once (closes made
 * together share the kernel's waits, see ulink.h), and return when none of
 * their sites fires any more.  NULL is a no-op. */
void runtime_settle(struct runtime *rt);

/* The start gate: wire probe id @id (not 0) takes hits only once script
 * @script is armed (0: at once).  Set it before attaching the probe. */
void runtime_gate_set(struct runtime *rt, uint32_t id, uint32_t script);
/* Arm every script up to @script (numbered from 1, in order): their
 * probes start taking hits, all at this instant. */
void runtime_gate_arm(struct runtime *rt, uint32_t script);
/* Entry @id of the gate as the probes read it (through the kernel, not
 * the mapping; 0 is the last script armed) into *@out.  Returns 0 or
 * -errno. */
int runtime_gate_get(struct runtime *rt, uint32_t id, uint64_t *out);

/* Write @r (its roots; its seq and chain are ours) as the recipe of the
 * call chain whose hash is @chain into slot @slot (< WR_OUTER_SLOTS) of
 * the kernel's table, and name that slot for @chain (wire.h: struct
 * wr_outer_recipe): later events of the chain copy what it says.  The
 * chain the slot was of no longer names it (runtime_outer_recipe_del(),
 * or a put of that chain in another slot); a probe that reads the slot
 * while it is rewritten takes nothing from it.  Returns 0 or -errno. */
int runtime_outer_recipe_put(struct runtime *rt, uint32_t slot, uint64_t chain, const struct wr_outer_recipe *r);
/* Whether slot @slot holds @chain's recipe @r (its roots) already. */
bool runtime_outer_recipe_holds(struct runtime *rt, uint32_t slot, uint64_t chain, const struct wr_outer_recipe *r);
/* Unname the recipe of the call chain @chain.  Returns 0 or -errno. */
int runtime_outer_recipe_del(struct runtime *rt, uint64_t chain);

/* Zero the counters of wire probe id @id (given to a new probe). */
void runtime_reset_probe_stats(struct runtime *rt, uint32_t id);
/* Sum of the per-CPU counters of wire probe id @id. */
int runtime_probe_stats(struct runtime *rt, uint32_t id, struct wr_probe_stats *out);
/* Records the perf buffer reported lost (always 0 for the ring buffer). */
uint64_t runtime_transport_lost(const struct runtime *rt);

/* ---- counted stacks (`count bt`) ---- */

/* Call @fn for every (probe, stack, key) count in the kernel, once per
 * key with its count summed over the CPUs' slots and the hash map, in no
 * particular order; @fn returns non-zero to stop.  Returns 0 or -errno. */
typedef int (*rt_count_fn)(const struct wr_count_key *k, uint64_t count, void *ctx);
int runtime_counts_foreach(struct runtime *rt, rt_count_fn fn, void *ctx);
/* The frames of stack @stack_id.  Returns 0, or -ENOENT. */
int runtime_count_stack(struct runtime *rt, uint64_t stack_id, struct wr_count_stack *out);
/* Delete the counts @match says yes to (every count when @match is NULL,
 * and then the stored stacks too).  Returns the number of keys @match
 * chose (0 when @match is NULL). */
size_t runtime_counts_delete(struct runtime *rt, bool (*match)(const struct wr_count_key *k, void *ctx),
			     void *ctx);
/* Capacity of each counting map. */
uint32_t runtime_count_capacity(const struct runtime *rt);

/* Called for each event; @data is only valid during the call and may be
 * unaligned (perf buffer). */
typedef void (*rt_event_fn)(const void *data, size_t size, void *ctx);

/* Wait up to @timeout_ms for events and deliver them.  The kernel wakes
 * the reader only when its buffer is filling (see WR_RING_WAKE_DIVISOR), so
 * this also returns every WR_POLL_TICK_MS and delivers whatever arrived
 * meanwhile.  Returns the number of events delivered, or -errno (-EINTR
 * when a signal arrived). */
int runtime_poll(struct runtime *rt, int timeout_ms, rt_event_fn fn, void *ctx);
/* Deliver what the buffer holds now, without waiting (the end of a run).
 * Returns the number of events delivered (0: none were there), or -errno. */
int runtime_read_buffered(struct runtime *rt, rt_event_fn fn, void *ctx);
/* A file descriptor that becomes readable when events may be waiting: the
 * buffer is filling, or the next tick of the reader's timer is due. */
int runtime_event_fd(const struct runtime *rt);

/* Byte offset of thread.fsbase in the running kernel's task_struct (the
 * thread pointer of a task, for thread-local variables), from its BTF;
 * 0 when the kernel has no BTF.  Looked up once. */
uint32_t runtime_fsbase_offset(void);

#endif
