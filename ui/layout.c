/* layout.c - cutting the terminal into panels (see layout.h).
 *
 * The output panel is what a user watches, so it gets the room: the source
 * panel takes about two fifths of what is left after the command line and
 * the status bar, and none at all below LAYOUT_SOURCE_MIN_ROWS rows, where
 * a few lines of source would only squeeze the events.
 */
#include "layout.h"

#include <errno.h>
#include <string.h>

#define MIN_ROWS 5
#define MIN_COLS 20

void layout_release(struct layout *l)
{
	WINDOW **wins[] = { &l->source, &l->output, &l->command, &l->status, &l->full };

	for (size_t i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
		if (*wins[i])
			delwin(*wins[i]);
		*wins[i] = NULL;
	}
}

static int source_rows(int rest)
{
	int n = rest * 2 / 5;

	if (n < 6)
		n = 6;
	if (n > 24)
		n = 24;
	return n;
}

int layout_build(struct layout *l, int rows, int cols, bool want_source)
{
	int rest = rows - 2, top = 0;

	layout_release(l);
	l->rows = rows;
	l->cols = cols;
	l->source_shown = false;
	if (rows < MIN_ROWS || cols < MIN_COLS) {
		l->full = newwin(rows > 0 ? rows : 1, cols > 0 ? cols : 1, 0, 0);
		return -ENOSPC;
	}
	l->full = newwin(rows - 1, cols, 0, 0); /* the status bar stays under full-screen views */
	if (want_source && rows >= LAYOUT_SOURCE_MIN_ROWS) {
		int n = source_rows(rest);

		l->source = newwin(n, cols, 0, 0);
		l->source_shown = true;
		top = n;
		rest -= n;
	}
	l->output = newwin(rest, cols, top, 0);
	l->command = newwin(1, cols, rows - 2, 0);
	l->status = newwin(1, cols, rows - 1, 0);
	return 0;
}
