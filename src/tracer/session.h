/* session.h - one tracing session: a target, the loaded runtime, the
 * probes, and the event path from the kernel to the front end's sink.
 *
 * Layer rule: tracer/ joins proc/, dwarf/, script/, codegen/, runtime/ and
 * render/; front ends (src/frontend/ for script mode and --batch, ui/ for
 * the shell) drive a session through this header and tracer/command.h
 * only.  struct session is opaque, the way libbpf keeps struct bpf_object:
 * its fields live in session_priv.h, for tracer/ alone.  This header names
 * the other stages' structs by declaration only and includes nothing but
 * the plain types of session_types.h, probe.h and the spans events arrive
 * as (render/span.h): a front end does not see the wire format.
 *
 * Probes: see probe.h.  Each site is its own BPF program with its own
 * wire id, so a probe can be enabled, disabled and deleted while the
 * others keep running.
 *
 * tracer/ never prints: rendered events go to the sink the front end
 * sets, and messages to the log sink (util/log.h).
 */
#ifndef WRAITH_TRACER_SESSION_H
#define WRAITH_TRACER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "render/span.h"
#include "tracer/probe.h"
#include "tracer/session_types.h"

struct session;
struct stack_rows;
struct stack_set;
struct strbuf;

/* Where modules' debug info is looked for (see dwarf/debugfile.h). */
struct session_debug_options {
	const char *debug_file;     /* -d: the debug file of the main module */
	bool loose;                 /* --allow-loose-debug-match */
	const char *const *dirs;    /* debug directories (none: /usr/lib/debug) */
	size_t n_dirs;
	bool debuginfod;
	const char *const *urls;    /* none: $DEBUGINFOD_URLS */
	size_t n_urls;
	const char *cache_dir;
	unsigned timeout;           /* seconds, 0: none */
	uint64_t max_size;          /* bytes, 0: no cap */
};

struct session_options {
	pid_t pid;                  /* -p */
	const char *path;           /* -t (with -p: the module probes go in) */
	struct session_debug_options debug;
	enum session_transport transport;
	bool fault_in;              /* sleepable probes whose failed reads fault pages in */
	unsigned bt_depth;          /* 1..session_max_bt_depth(); 0: the default (128) */
	enum render_format format;  /* the shown text of events: pretty or plain */
	bool dry_run;               /* resolve and compile, attach nothing */
	bool start_kernel;          /* session_start() before the target opens (probes follow) */
	/* Script mode: the text of the one script the session runs, no probe
	 * being added after it (NULL: probes may come at any time).  Parsed
	 * once, by session_new() (copied: it need not outlive the call), to
	 * size the maps for its probes (without a `count bt` there is no room
	 * for counted stacks); session_add_script() given the same text uses
	 * that parse. */
	const char *only_script;
	bool verbose;
	bool relative_time;
	uint64_t max_events;        /* 0 = unlimited */
	bool pending;               /* a function no library defines yet: wait for one */
	uint64_t buffer_bytes;      /* --buffer-size; 0: scaled to the CPUs */
	uint32_t stack_entries;     /* --stack-entries; 0: the runtime's default */
	const char *probe_cache_dir; /* compiled probes kept here between runs; NULL: not kept */
	/* How much of a container a value shows (gdb's `print elements`) and
	 * how deep values nest before `...`, for what the session's probes
	 * copy and what it renders alike; NULL: gdb's defaults, 200 and 20.
	 * Copied by session_new(). */
	const struct session_print *print;
};

struct session_print {
	unsigned elements;          /* 1..session_max_print_elements() */
	unsigned depth;             /* 0..1000 */
};

/* Start what compiling probes for @opt needs (LLVM, the template of its
 * transport and --fault-in setting) on a thread of its own, so that it
 * overlaps opening the target (codegen.c says why).  Optional: without it
 * the first compile does the same work. */
void session_prepare(const struct session_options *opt);
/* At exit: release the process-wide state compiling leaves (LLVM's), for
 * leak checkers.  No session may be used after it. */
void session_shutdown(void);

/* Open the target of @opt (a PID or a path); with @opt->start_kernel the
 * kernel side starts loading first (session_start()), so it overlaps
 * opening the target.  Returns 0 or a negative error (message logged). */
int session_new(const struct session_options *opt, struct session **out);
/* Detach and unload everything.  NULL is a no-op. */
void session_free(struct session *s);

/* Start loading the runtime (base object and maps) on a helper thread,
 * so the verifier checks the unwinder while probes compile; the first
 * step that needs it (loading a probe) waits for it, and an error it met
 * is returned (message logged) from session_add_script().  No-op in
 * dry-run mode or when already started.  Returns 0 or a negative error. */
int session_start(struct session *s);

/* Parse, check, resolve, compile, load and attach every probe in @text
 * (named @file in messages, NULL for "<script>").  Script errors are
 * rendered into @errors with location and caret and return -WR_ESYNTAX or
 * -WR_ESEMANTIC or -WR_ENOTARGET; load and attach failures return other
 * negative codes with the message in @errors.  On any error no probe of
 * @text stays attached.  The ids of new probes are appended to @ids (may
 * be NULL). */
int session_add_script(struct session *s, const char *text, const char *file,
		       struct strbuf *errors, unsigned *ids, size_t max_ids, size_t *n_ids);

/* ---- probes ---- */

/* The probe numbered @id, or NULL. */
struct probe *session_probe(struct session *s, unsigned id);
/* The probe after @prev in the order they were added (@prev NULL: the
 * first), or NULL after the last. */
struct probe *session_next_probe(const struct session *s, const struct probe *prev);
#define session_for_each_probe(p, s) \
	for ((p) = session_next_probe((s), NULL); (p); (p) = session_next_probe((s), (p)))
size_t session_probe_count(const struct session *s);
/* Whether @p takes hits: enabled, and its script started (a probe being
 * added, while its script compiles and attaches, is not on yet). */
bool session_probe_on(const struct session *s, const struct probe *p);

/* Attach (@on) or detach every site of @p.  Returns 0 or a negative error. */
int session_enable(struct session *s, struct probe *p, bool on);
/* Detach and forget @p (its pointer becomes invalid). */
void session_delete(struct session *s, struct probe *p);
/* Whether an enabled probe can send events (it has a print or bt, and a
 * site attached or a library to wait for); false with the reasons in
 * @why ("probe 1 (leaf) is disabled, ..."). */
bool session_sends_events(const struct session *s, struct strbuf *why);
/* Detach every probe's uprobes, the programs and their maps staying: at
 * the end of a run, so that the counters and the counted stacks read
 * afterwards are final and agree, and before `disable all` or `delete
 * all`, so that all links close in one batch. */
void session_detach_all(struct session *s);
/* Whether probes added from now on on a function that no library of the
 * process defines yet wait for one (gdb's pending breakpoints) or are
 * refused. */
void session_set_pending(struct session *s, bool on);
/* Change the backtrace depth of future probes (1..session_max_bt_depth()).
 * Returns 0 or -WR_EUSAGE. */
int session_set_bt_depth(struct session *s, unsigned depth);
unsigned session_bt_depth(const struct session *s);

/* Kernel-side counters of @p summed over its sites. */
void session_probe_stats(struct session *s, const struct probe *p, struct session_probe_stats *out);
/* The plan of every site of @p, for --dry-run and `trace`. */
void session_describe_probe(struct session *s, const struct probe *p, struct strbuf *out);
/* Write all probes as a script `--script-file` and `source` accept. */
void session_save(struct session *s, struct strbuf *out);

/* ---- events ---- */

/* Front ends receive each rendered event here as spans (render.h says
 * their shape), borrowed for the call; they write them with the writers
 * of render/span.h or draw them. */
struct session_sink {
	void (*event)(void *ctx, const struct span_list *event);
	void *ctx;
};

/* Send rendered events to @sink (NULL: drop them after counting). */
void session_set_sink(struct session *s, const struct session_sink *sink);

/* Wait up to @timeout_ms for events and render them to the sink.  Returns
 * the number of events rendered, 0 on timeout, or -errno (-EINTR). */
int session_poll(struct session *s, int timeout_ms);
/* Read, without waiting, one batch of what the event buffer holds now.
 * Returns the number of records read (0: the buffer is empty; for the
 * perf buffer one call reads all there is and returns 0), or -errno.
 * Ends a run: the events still in flight when it stops are shown. */
int session_read_buffered(struct session *s);
/* Render at most @n more events per poll (UINT64_MAX: no limit); events
 * beyond it are kept, in order, for later polls. */
void session_set_budget(struct session *s, uint64_t n);
/* Render at most @per_sec events a second (0: no limit); the others are
 * counted (session_losses' suppressed) but neither rendered nor sent to
 * the sink. */
void session_set_rate_limit(struct session *s, uint64_t per_sec);
/* True while events kept back by the budget wait for a poll. */
bool session_backlog_waiting(const struct session *s);
/* Event descriptor for front ends with their own poll loop (-1 before the
 * runtime is loaded). */
int session_event_fd(struct session *s);
/* Events rendered so far. */
uint64_t session_events(const struct session *s);
/* True when --max-events is reached, or the traced process (-p) exited. */
bool session_done(const struct session *s);
/* True when the process of -p is gone (or can no longer be traced). */
bool session_target_exited(const struct session *s);
/* Why, once session_target_exited(): "process N exited", "thread N of
 * process M exited", or that the process ran exec() of another program. */
void session_end_text(const struct session *s, struct strbuf *out);

/* Events that never reached the sink, by cause. */
struct session_losses {
	uint64_t lost;       /* the kernel's buffers were full (every probe and the perf buffer) */
	uint64_t truncated;  /* cut short: larger than session_max_event_bytes() */
	uint64_t dropped;    /* the backlog was full while no poll rendered */
	uint64_t malformed;  /* failed to decode */
	uint64_t suppressed; /* over the rate limit (session_set_rate_limit) */
};
void session_losses(struct session *s, struct session_losses *out);

/* ---- what front ends show ---- */

/* The process of -p (0 with -t). */
pid_t session_pid(const struct session *s);
enum session_transport session_transport(const struct session *s);

/* The limits options are checked against: the frames of one backtrace,
 * the elements of a container one print shows, the bytes of one event. */
unsigned session_max_bt_depth(void);
unsigned session_max_print_elements(void);
unsigned session_max_event_bytes(void);
/* What is traced, for a status line: "pid 1234 chain" or "3 processes chain". */
void session_target_text(struct session *s, struct strbuf *out);
/* A place where backtraces stopped early: "mod+0xpc in fn: status (error,
 * code=N), N times", and the unwind row there or why there is none (one
 * line each, no newline). */
void session_stop_place_text(struct session *s, const struct stop_place *sp, struct strbuf *out);
void session_stop_row_text(struct session *s, const struct stop_place *sp, struct strbuf *out);
/* The source file and line trace pattern @pattern resolves to first.
 * Returns 0 (*file: caller frees) or -ENOENT. */
int session_pattern_source(struct session *s, const char *pattern, char **file, unsigned *line);

/* ---- stacks counted in the kernel (`count bt`) ---- */

enum stacks_format {
	STACKS_TOP,     /* the most counted stacks, as text */
	STACKS_FOLDED,  /* folded stacks for flame graphs */
	STACKS_PPROF,   /* a gzip-compressed pprof profile */
	STACKS_JSON,    /* one NDJSON object per stack */
};

/* True when a probe of @s has a `count bt`. */
bool session_counts_stacks(const struct session *s);
/* Every counted stack now, most counted first (stack_set_release() frees
 * @out; its stacks and strings are borrowed from the session until the
 * probe is deleted or the counts are cleared).  Returns 0 or -errno. */
int session_stacks(struct session *s, struct stack_set *out);
/* Write @set as @fmt (STACKS_TOP: at most @max stacks) to @out.  Returns 0
 * or a negative error. */
int session_stacks_write(struct session *s, const struct stack_set *set, enum stacks_format fmt,
			 size_t max, struct strbuf *out);
/* Tally the counted stacks by how their walks ended into each probe's
 * counts (probe_counts(): counted, counted_by_status, counted_by_error),
 * reading them from the kernel at most every half second. */
void session_read_counted(struct session *s);
/* Forget every count: counting starts again from zero. */
void session_stacks_clear(struct session *s);
/* @set as rows of a live view (stack_rows_build() with the session's
 * symbolizer), by function names (@by_name) or most counted first. */
void session_stack_rows(struct session *s, const struct stack_set *set, bool by_name,
			bool collapse, struct stack_rows *out);

/* The start-up report (--status): per module, where its debug info and
 * unwind rows come from and what that means for probes and backtraces,
 * and whether debuginfod is asked.  Reads every module's unwind rows. */
void session_status_report(struct session *s, struct strbuf *out);

/* Report progress of slow work (reading unwind tables, downloading debug
 * info) to @fn: one line of text, NULL when done.  @fn NULL stops it. */
void session_set_progress(struct session *s, void (*fn)(void *ctx, const char *text), void *ctx);

#endif
