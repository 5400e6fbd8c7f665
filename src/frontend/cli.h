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

#include "codegen/plan.h"
#include "render/render.h"

struct session;

struct cli_options {
	pid_t pid;
	const char *path;
	const char *script;
	const char *script_file;
	const char *batch_file;
	bool keep_going;
	bool dry_run;
	bool verbose;
	bool quiet;
	bool help;
	bool version;
	bool relative_time;
	enum render_format format;
	const char *color_mode;
	enum render_color color;
	uint64_t max_events;       /* 0 = unlimited */
	double timeout;            /* seconds, 0 = none */
	unsigned bt_depth;         /* 0 = default */
	enum wr_transport transport;
	const char *log_file;
	volatile sig_atomic_t *stop_signal; /* set by SIGINT/SIGTERM handlers */
};

/* Open the session @o asks for, rendering events to stdout and start-up
 * progress to a terminal on stderr.  Returns 0 or a negative error
 * (message logged). */
int cli_open_session(const struct cli_options *o, struct session **out);

/* Render events until Ctrl-C, SIGTERM, --timeout, --max-events or the end
 * of the traced process.  Returns the exit status. */
int cli_event_loop(const struct cli_options *o, struct session *s);

/* Warn about events that never reached the output: lost, cut short,
 * dropped, malformed.  Lost and malformed events are never silent. */
void cli_report_losses(struct session *s);

/* Exit status for a negative error code: 2 for bad input (script, target,
 * usage), 1 for runtime failures. */
int cli_exit_status(int err);

#endif
