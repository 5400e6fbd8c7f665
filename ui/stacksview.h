/* stacksview.h - the live "top stacks" view of the stacks `count bt`
 * counts in the kernel.
 *
 * Layer rule: ui/ only (see draw.h); reads the counts through the
 * session (tracer/session.h), which reads the kernel's maps without
 * stopping the target, and names frames as the `stacks` command does.
 *
 * Per stack: its count, its share of all counted hits, the probe (and the
 * KEY's value) and its frames, innermost first.  The counts are read again
 * about once a second.  `s` sorts by count or by function names, `c`
 * collapses stacks whose frames are the same functions into one row (or
 * shows them apart again); Up/Down/PgUp/PgDn/Home/End scroll; Esc, q or F4
 * closes.
 */
#ifndef WRAITH_UI_STACKSVIEW_H
#define WRAITH_UI_STACKSVIEW_H

#include <curses.h>
#include <stdbool.h>

struct session;
struct stacksview;

/* Seconds between two readings of the counts. */
#define STACKSVIEW_REFRESH 1.0

/* A new view; the counts are read at the first refresh.  Caller frees. */
struct stacksview *stacksview_new(void);
/* NULL is a no-op. */
void stacksview_free(struct stacksview *v);

/* Read the counts again when STACKSVIEW_REFRESH seconds passed since the
 * last reading (at @now), or always when @force.  True when it read. */
bool stacksview_refresh(struct stacksview *v, struct session *s, double now, bool force);
/* Handle @key.  Returns false when the view wants to close. */
bool stacksview_key(struct stacksview *v, struct session *s, int key, double now);
void stacksview_draw(struct stacksview *v, WINDOW *w);

#endif
