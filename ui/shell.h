/* shell.h - the interactive shell: the state its parts share, and its
 * entry point, ui_run(), which main.c calls.
 *
 * Layer rule: ui/ only draws and handles keys.  Every command goes to the
 * one interpreter in tracer/command.h; what comes back is shown here.
 * shell.c runs the event loop and routes keys; commands.c sends text to
 * the interpreter and acts on its result (open the editor or the
 * diagnosis view, clear the output, quit).
 */
#ifndef WRAITH_UI_SHELL_H
#define WRAITH_UI_SHELL_H

#include <stdbool.h>

#include "layout.h"
#include "statusbar.h"
#include "terminal.h"
#include "util/strbuf.h"

struct cli_options;
struct diagview;
struct editor;
struct output;
struct pager;
struct session;
struct source;
struct stacksview;

#define SHELL_PROMPT "wraith> "
#define SHELL_CONT_PROMPT "   ...> "

enum shell_focus {
	FOCUS_SOURCE,
	FOCUS_OUTPUT,
	FOCUS_COMMAND,
};

struct shell {
	struct session *s;          /* borrowed from main.c */
	const struct cli_options *o;
	struct layout layout;
	WINDOW *keys;               /* owned: 1x1, never drawn; keys are read through it */
	struct output *out;         /* owned */
	struct source *src;         /* owned */
	struct editor *editor;      /* owned: the open script editor, or NULL */
	unsigned editor_replaces;   /* the probe the editor's text replaces, 0: none */
	struct diagview *diag;      /* owned: the open diagnosis view, or NULL */
	struct pager *help;         /* owned: the open help, or NULL */
	struct stacksview *stacks;  /* owned: the open top-stacks view, or NULL */
	struct statusbar bar;
	enum shell_focus focus;
	bool want_source;           /* F2 hides the source panel */
	bool too_small;             /* the terminal cannot hold the panels */
	bool quit;
	bool dirty;                 /* something must be drawn */
	double ctrl_c_at;           /* when Ctrl-C was last pressed (0: not recently) */
	bool exit_noted;            /* the traced process's exit was announced */
	struct strbuf pending;      /* lines of a `trace` block still open */
};

/* The interactive shell on session @s.  Returns the exit status once the
 * user quits; the caller frees the session, which detaches everything. */
int ui_run(struct session *s, const struct cli_options *o);

/* ---- commands.c ---- */

/* A line readline finished: gather `trace` blocks, then run them. */
void shell_submit_line(struct shell *sh, const char *line);
/* Run one complete command from the command line. */
void shell_run_command(struct shell *sh, const char *text);
/* Ctrl-S in the editor: hand its text to the interpreter. */
void shell_submit_editor(struct shell *sh);
/* Close the editor without adding anything. */
void shell_close_editor(struct shell *sh);
/* Open the diagnosis view (on the source panel's probe if it has one). */
void shell_open_diag(struct shell *sh);
/* The live top-stacks view (F4, `stacks live`). */
void shell_open_stacks(struct shell *sh);
/* The F1 help: commands and keys. */
void shell_open_help(struct shell *sh);

#endif
