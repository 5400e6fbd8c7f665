/* cmdline.h - the command line: GNU readline driven through its callback
 * interface, reading keys from the shell's key queue and drawing into a
 * curses window.
 *
 * Layer rule: ui/ only (see draw.h).
 *
 * readline is one global state, so this module is a singleton: init once,
 * release once.  Editing, history (Up/Down, Ctrl-R reverse search) and
 * Tab completion are readline's; this module only translates curses keys
 * into the bytes readline expects, draws readline's prompt and line, and
 * hands finished lines back one at a time.
 */
#ifndef WRAITH_UI_CMDLINE_H
#define WRAITH_UI_CMDLINE_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

struct cmdline_hooks {
	/* Completion candidates for the word ending at @point of @line: owned
	 * strings in an owned array (command_complete's contract). */
	char **(*complete)(void *ctx, const char *line, size_t point, size_t *n);
	/* Show a list of possible completions (borrowed for the call). */
	void (*show_matches)(void *ctx, char **matches, size_t n);
	void *ctx;
};

/* Set readline up (no terminal changes, no signal handlers of its own,
 * output to /dev/null) and load the history file.  Returns 0 or -errno. */
int cmdline_init(const struct cmdline_hooks *hooks, const char *prompt);
/* Save the history file (mode 0600) and tear readline down. */
void cmdline_release(void);

/* Feed one curses key (a byte or a KEY_* code) to readline. */
void cmdline_feed(int key);
/* The next line readline finished, or NULL.  Caller frees.  Ctrl-D on an
 * empty line gives *eof = true and NULL. */
char *cmdline_take(bool *eof);
/* Change the prompt (e.g. for a continued `trace` block). */
void cmdline_set_prompt(const char *prompt);
/* Discard the line being edited. */
void cmdline_clear(void);
/* True when the line being edited is empty. */
bool cmdline_empty(void);
/* Add @line to the history (and the history file at release). */
void cmdline_remember(const char *line);

/* Draw prompt and line into row 0 of @w; with @focus leave the cursor at
 * readline's point. */
void cmdline_draw(WINDOW *w, bool focus);

/* Where the history lives: $XDG_STATE_HOME/wraith/history, else
 * $HOME/.local/state/wraith/history.  Returns a new string (caller frees)
 * or NULL when neither variable is set. */
char *cmdline_history_path(void);

#endif
