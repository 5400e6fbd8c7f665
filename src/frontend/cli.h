/* cli.h - the options of the command line, and what the two plain-terminal
 * front ends (script mode and --batch) share: opening the session with
 * stdout as its sink, the event loop with its stop conditions, the report
 * of lost events, and exit statuses.
 *
 * Layer rule: src/frontend/ sits beside ui/ and main.c, above tracer/: it
 * drives a session through tracer/session.h and tracer/command.h only and
 * is the only code besides ui/ that writes to stdout and stderr.  It is
 * part of the program, not of libwraith.a.
 */
#ifndef WRAITH_FRONTEND_CLI_H
#define WRAITH_FRONTEND_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "render/span.h"
#include "tracer/session_types.h"

struct session;

/* A list option (repeatable flag, array in the config file).  A layer of
 * settings that names it replaces what an earlier layer gave. */
struct cli_list {
	const char **v;            /* strings owned by the options (see cli_options_keep) */
	size_t n, cap;
	int layer;                 /* the layer that set it (enum cli_layer) */
};

enum cli_debuginfod { CLI_DEBUGINFOD_OFF, CLI_DEBUGINFOD_ON, CLI_DEBUGINFOD_ASK };

struct cli_options {
	pid_t pid;
	const char *path;
	const char *script;
	const char *script_file;
	const char *batch_file;
	const char *config_file;   /* --config (NULL: the default place) */
	bool keep_going;
	bool dry_run;
	bool verbose;
	bool quiet;
	bool unsafe_paths;         /* --unsafe-paths: see util/safefile.h */
	bool help;
	bool version;
	bool relative_time;
	bool status;               /* --status: the start-up report of modules */
	enum render_format format;
	const char *color_mode;
	enum span_color color;     /* of pretty text on stdout */
	uint64_t max_events;       /* 0 = unlimited */
	double timeout;            /* seconds, 0 = none */
	unsigned bt_depth;         /* 0 = default */
	unsigned print_elements;   /* --print-elements: gdb's print elements */
	unsigned print_depth;      /* --print-depth: gdb's print max-depth */
	bool pending;              /* --pending */
	enum session_transport transport;
	bool fault_in;             /* --fault-in: sleepable probes, reads fault pages in */
	uint64_t buffer_bytes;     /* --buffer-size, 0 = scaled to the CPUs */
	uint32_t stack_entries;    /* --stack-entries, 0 = the default */
	const char *folded_file;   /* --folded FILE ("-": stdout) */
	const char *pprof_file;    /* --pprof FILE */
	const char *log_file;
	int log_level;             /* enum wr_log_level; -1: not set */
	long long events_per_sec;  /* render rate limit; 0 = none, -1 = auto */
	/* Debug info */
	const char *debug_file;    /* -d: the debug file of the main module */
	bool loose_debug_match;
	struct cli_list debug_dirs;
	enum cli_debuginfod debuginfod;
	struct cli_list debuginfod_urls;
	const char *debuginfod_cache;
	unsigned long long debuginfod_timeout;  /* seconds, 0 = none */
	unsigned long long debuginfod_max_size; /* bytes, 0 = no cap */
	bool probe_cache;          /* --probe-cache: keep compiled probes between runs */
	const char *probe_cache_dir; /* where; after parsing NULL when off or nowhere */
	char **owned;              /* strings the options own */
	size_t n_owned, cap_owned;
	const char *complete;      /* --complete TEXT (for the bash completion) */
	volatile sig_atomic_t *stop_signal; /* set by SIGINT/SIGTERM handlers */
};

/* Open the session @o asks for, writing events to stdout (as text, with
 * ANSI colours if o->color says so, or as NDJSON) and start-up progress to
 * a terminal on stderr.  @script: in script mode the script's text (read
 * for the call only), else NULL.  Returns 0 or a negative error (message
 * logged). */
int cli_open_session(const struct cli_options *o, const char *script, struct session **out);
/* Free the session opened by cli_open_session() (NULL is a no-op). */
void cli_close_session(struct session *s);

/* Write out the events rendered so far (they are gathered for large
 * writes) and flush stdout; do it before anything else goes to stdout.
 * Returns 0 or the errno of the first failed write (EPIPE: the reader went
 * away). */
int cli_flush_output(void);

/* Render events until Ctrl-C, SIGTERM, --timeout, --max-events or the end
 * of the traced process.  Returns the exit status. */
int cli_event_loop(const struct cli_options *o, struct session *s);

/* Script mode's render rate limit when stdout is a terminal and no
 * --script-output-events-per-sec was given (GhostScope's default). */
#define CLI_TTY_EVENTS_PER_SEC 10000

/* Say on stderr how many events the rate limit kept from the output since
 * the last report: at most once a second, or now when @final. */
void cli_report_suppressed(struct session *s, const struct cli_options *o, bool final);

/* Warn about events that never reached the output: lost, cut short,
 * dropped, malformed.  Lost and malformed events are never silent. */
void cli_report_losses(struct session *s);

/* At the end of a run: one line per probe on stderr (hits, delivered,
 * filtered, lost; stacks counted), unless -q and nothing was lost. */
void cli_report_summary(const struct cli_options *o, struct session *s);

/* At the end of a run in which probes counted stacks: write them where
 * --folded and --pprof say, or else list them on stdout in the
 * --script-output format.  Returns 0, or 1 when a file could not be
 * written (message on stderr). */
int cli_write_stacks(const struct cli_options *o, struct session *s);

/* Exit status for a negative error code: 2 for bad input (script, target,
 * usage), 1 for runtime failures. */
int cli_exit_status(int err);

#endif
