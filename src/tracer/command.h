/* command.h - the one command interpreter behind the shell, --batch and
 * `source`.
 *
 * Layer rule: tracer/.  Front ends hand it one command line (or a whole
 * `trace TARGET { ... }` block) and show the text it produces; they never
 * implement a command themselves.  What a front end must do on its own
 * (open the script editor, wait for events, clear its panel, quit) comes
 * back as the result's status.
 */
#ifndef WRAITH_TRACER_COMMAND_H
#define WRAITH_TRACER_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct strbuf;

enum cmd_status {
	CMD_OK,           /* done; output in `out` */
	CMD_FAILED,       /* the command failed; one line with the reason (and usage) in `out` */
	CMD_QUIT,         /* quit was asked for */
	CMD_EDIT,         /* `trace TARGET` without a body: open the editor for .edit_target */
	CMD_WAIT_TIME,    /* `wait SECONDS` (--batch): run the event loop .wait_seconds */
	CMD_WAIT_EVENTS,  /* `wait events N` (--batch): run until .wait_events more events */
	CMD_CLEAR,        /* `clear`: the front end clears its output */
	CMD_DIAG,         /* `diag`: text in `out`; the shell may open its diagnosis view */
	CMD_STACKS_LIVE,  /* `stacks live`: the top stacks in `out`; the shell opens its live view */
};

struct cmd_result {
	enum cmd_status status;
	int err;                /* negative error code when CMD_FAILED */
	double wait_seconds;
	uint64_t wait_events;
	char *edit_target;      /* owned (CMD_EDIT); free with cmd_result_release */
	unsigned first_added;   /* `trace`, `source`: the first probe added (0: none) */
};

void cmd_result_release(struct cmd_result *r);

/* Run one command.  @line may hold several lines when it is a `trace`
 * block.  @file names where it came from for located script errors
 * (NULL: "<command>").  Output (and errors) are appended to @out. */
void command_run(struct session *s, const char *line, const char *file, struct strbuf *out,
		 struct cmd_result *res);

/* True while @text is a `trace` command whose braces are not yet closed
 * (strings and comments are skipped), so a front end keeps reading lines. */
bool command_is_incomplete(const char *text);

/* Completion of the word that ends at @point in @line: command names,
 * `info` topics, probe ids, function names and source files of the target.
 * Returns the candidates as owned strings (caller frees each and the
 * array), count in *n. */
char **command_complete(struct session *s, const char *line, size_t point, size_t *n);

/* `help` text for all commands, or for @name. */
void command_help(const char *name, struct strbuf *out);

#endif
