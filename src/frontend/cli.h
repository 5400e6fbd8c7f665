/* cli.h - the options of the command line and the modes that run them.
 *
 * Layer rule: tracer/ is the only layer front ends talk to.  main.c parses
 * the command line into struct cli_options and calls cli_run(), which
 * opens the session and runs script mode, --batch, --dry-run, or the
 * interactive shell (passed in by main.c, since ui/ sits above tracer/).
 */
#ifndef WRAITH_TRACER_CLI_H
#define WRAITH_TRACER_CLI_H

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

typedef int (*cli_shell_fn)(struct session *s, const struct cli_options *o);

/* Run the mode @o asks for.  Returns the process exit status. */
int cli_run(const struct cli_options *o, cli_shell_fn shell);

/* Exit status for a negative error code: 2 for bad input (script, target,
 * usage), 1 for runtime failures. */
int cli_exit_status(int err);

#endif
