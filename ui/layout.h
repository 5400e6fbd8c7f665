/* layout.h - the shell's screen areas and how they share the terminal.
 *
 * Layer rule: ui/ only (see draw.h).
 *
 * Top to bottom: the source panel (title row and body; it collapses when
 * the terminal is short or the user hides it), the output panel (title and
 * body), the command line, the status bar.  Full-screen views (editor,
 * diagnosis, help) draw into `full`, above the status bar.  All windows
 * are owned by the layout and rebuilt on every resize.
 */
#ifndef WRAITH_UI_LAYOUT_H
#define WRAITH_UI_LAYOUT_H

#include <curses.h>
#include <stdbool.h>

struct layout {
	int rows, cols;
	bool source_shown;
	WINDOW *source;  /* title row + body, NULL when collapsed */
	WINDOW *output;  /* title row + body */
	WINDOW *command; /* one row */
	WINDOW *status;  /* one row */
	WINDOW *full;    /* all but the status bar, for full-screen views */
};

/* Fewer rows than this and the source panel collapses. */
#define LAYOUT_SOURCE_MIN_ROWS 20

/* (Re)build the windows for a @rows x @cols terminal; the source panel is
 * shown when @want_source and there is room.  Returns 0, or -ENOSPC when
 * the terminal is too small for anything but a message in `full`. */
int layout_build(struct layout *l, int rows, int cols, bool want_source);
/* Delete the windows.  Safe on a zeroed or released layout. */
void layout_release(struct layout *l);

#endif
