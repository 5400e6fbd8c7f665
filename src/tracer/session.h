/* session.h - one tracing session: a target, the loaded runtime, the
 * probes, and the event path from the kernel to rendered text.
 *
 * Layer rule: tracer/ joins proc/, dwarf/, script/, codegen/, runtime/ and
 * render/; front ends (src/main.c script mode, --batch, ui/) drive a
 * session and never reach past it.
 *
 * Probes: a user-level probe (`trace leaf { ... }`, id 1, 2, ...) has one
 * site per resolved address (every inlined copy of a function is a site);
 * each site is its own BPF program with its own wire id, so a probe can be
 * enabled, disabled and deleted while the others keep running.
 */
#ifndef WRAITH_TRACER_SESSION_H
#define WRAITH_TRACER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "codegen/plan.h"
#include "dwarf/resolve.h"
#include "protocol/decode.h"
#include "render/render.h"
#include "script/ast.h"

struct strbuf;
struct target;
struct tmodule;
struct runtime;
struct rt_probe;

struct session_options {
	pid_t pid;                  /* -p */
	const char *path;           /* -t */
	enum wr_transport transport;
	unsigned bt_depth;          /* 1..WR_BT_MAX_DEPTH */
	enum render_format format;
	enum render_color color;
	bool dry_run;               /* resolve and compile, attach nothing */
	bool verbose;
	bool relative_time;
};

struct probe_site {
	struct tmodule *mod;        /* borrowed from the target */
	struct dw_site where;       /* owned strings */
	uint64_t file_offset;
	uint32_t rule0;
	uint32_t wire_id;
	struct rt_probe *rt;        /* NULL when not loaded (dry run) */
	size_t bpf_insns;           /* instructions of the loaded program (0 if unknown) */
};

/* Counters behind `diag` and `info probes`. */
struct probe_counts {
	uint64_t events;
	uint64_t backtraces;
	uint64_t by_status[WR_BT_STATUS_COUNT_];
	uint64_t by_error[WR_BTE_COUNT_];
};

struct stop_place;

struct probe {
	unsigned id;
	char *target_text;          /* owned: the pattern as written */
	char *source;               /* owned: `trace PATTERN { BODY }` for save */
	struct ast_script *script;  /* owned: holds this probe only */
	const struct ast_probe *ast;/* borrowed from script */
	struct render_probe render;
	struct probe_site *sites;   /* owned */
	size_t n_sites;
	bool enabled;
	struct probe_counts counts;
	struct stop_place *stops;   /* owned: where backtraces stopped early */
	size_t n_stops, cap_stops;
	struct render_arg_type *arg_types; /* owned: types of program values printed */
	size_t n_arg_types, cap_arg_types;
};

/* Where a backtrace stopped early, with how often and one sample. */
struct stop_place {
	uint64_t cookie;
	uint64_t pc;
	uint8_t status;
	uint16_t error;
	bool exact;                 /* pc is exact (frame 0 or after a signal), not a return address */
	uint64_t count;
	char *sample;               /* owned: rendered text of the first such event */
};

/* Front ends receive rendered events here. */
struct session_sink {
	void (*event)(void *ctx, const char *text, const struct event *ev);
	void *ctx;
};

struct session {
	struct session_options opt;
	struct target *target;
	struct runtime *rt;
	struct kernel_start *kstart; /* owned: the kernel side while it loads */
	struct probe **probes;      /* owned */
	size_t n_probes, cap_probes;
	unsigned next_probe_id;
	struct { struct probe *probe; size_t site; } wire[WR_MAX_PROBES];
	struct renderer renderer;
	struct event_decoder decoder;
	struct session_sink sink;
	struct strbuf *scratch;     /* owned: rendering buffer */
	uint64_t events;            /* rendered */
	uint64_t max_events;        /* 0 = unlimited */
	uint64_t budget;            /* events this poll may still render (UINT64_MAX: all) */
	struct strbuf *backlog;     /* owned: raw events that arrived beyond the budget */
	size_t backlog_pos;         /* next unread byte of backlog */
	uint64_t backlog_dropped;   /* events dropped because the backlog was full */
	uint64_t malformed;
	bool refresh_wanted;
	double last_refresh;
	size_t cfi_rows_installed;
	double startup_seconds;
};

/* Open the target of @opt (a PID or a path).  Returns 0 or a negative
 * error (message logged). */
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

struct probe *session_probe(struct session *s, unsigned id);
int session_enable(struct session *s, struct probe *p, bool on);
void session_delete(struct session *s, struct probe *p);
/* Change the backtrace depth of future probes (1..WR_BT_MAX_DEPTH). */
int session_set_bt_depth(struct session *s, unsigned depth);

/* Wait up to @timeout_ms for events and render them to the sink.  Returns
 * the number of events rendered, 0 on timeout, or -errno (-EINTR). */
int session_poll(struct session *s, int timeout_ms);
/* Render at most @n more events per poll (UINT64_MAX: no limit); events
 * beyond it are kept, in order, for later polls. */
void session_set_budget(struct session *s, uint64_t n);
/* Event descriptor for front ends with their own poll loop. */
int session_event_fd(struct session *s);
/* True when --max-events is reached, or the traced process (-p) exited. */
bool session_done(const struct session *s);
/* True when the process of -p is gone. */
bool session_target_exited(const struct session *s);

/* Kernel-side counters of @p summed over its sites. */
void session_probe_stats(struct session *s, const struct probe *p, struct wr_probe_stats *out);

/* The plan of site @i of @p, for --dry-run listing. */
void session_describe_probe(struct session *s, const struct probe *p, struct strbuf *out);

/* Events lost so far: kernel buffers full (every probe), the perf
 * buffer's own losses, and the batch backlog. */
uint64_t session_lost_events(struct session *s);
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

/* Report progress of slow start-up work (reading unwind tables) to @fn:
 * @what is the file being read, NULL when done.  @fn NULL stops it. */
void session_set_progress(struct session *s,
			  void (*fn)(void *ctx, const char *what, size_t done, size_t total), void *ctx);

/* Write all probes as a script `--script-file` and `source` accept. */
void session_save(struct session *s, struct strbuf *out);

#endif
