/* editor.h - the multi-line script editor `trace TARGET` opens.
 *
 * Layer rule: ui/ only (see draw.h).
 *
 * The editor holds the whole `trace TARGET { ... }` text, highlighted by
 * the script lexer's token classes.  Ctrl-S hands the text back for the
 * command interpreter; Esc cancels.  When the interpreter rejects it, the
 * located message is shown under the text, the line it names is marked,
 * and the text stays as it was.
 */
#ifndef WRAITH_UI_EDITOR_H
#define WRAITH_UI_EDITOR_H

#include <curses.h>

struct editor;

enum editor_action {
	EDITOR_NONE,
	EDITOR_SUBMIT,  /* Ctrl-S: take editor_text() */
	EDITOR_CANCEL,  /* Esc */
};

/* A new editor on @text with the cursor on line @line (1-based) at its
 * end; @title names what is edited.  Caller frees. */
struct editor *editor_new(const char *title, const char *text, unsigned line);
/* NULL is a no-op. */
void editor_free(struct editor *e);

enum editor_action editor_key(struct editor *e, int key);
/* The text, lines joined by '\n'.  Caller frees. */
char *editor_text(const struct editor *e);
/* Show @message (the interpreter's output for a rejected text; NULL
 * clears it).  A first line "FILE:LINE:COL: ..." marks LINE. */
void editor_set_error(struct editor *e, const char *message);

/* Draw the whole editor into @w and leave the cursor at the insertion
 * point. */
void editor_draw(struct editor *e, WINDOW *w);

#endif
