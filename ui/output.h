/* output.h - the output panel: events as they arrive, command output and
 * messages, in a bounded scrollback.
 *
 * Layer rule: ui/ only (see draw.h).
 *
 * The newest line is at the bottom.  While the view follows the end, new
 * lines scroll it; once the user scrolls up, the view stays where it is
 * until End.  Lines beyond the limit are dropped oldest first.
 */
#ifndef WRAITH_UI_OUTPUT_H
#define WRAITH_UI_OUTPUT_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "draw.h"

struct output;
struct span_list;

/* A new, empty panel keeping at most @max_lines lines.  Caller frees. */
struct output *output_new(size_t max_lines);
/* NULL is a no-op. */
void output_free(struct output *o);

/* Append @text (any number of lines; a final newline is optional) in
 * @role.  Escape sequences are removed and tabs expanded. */
void output_add(struct output *o, const char *text, enum ui_role role);
/* Append a rendered event (render.h): its lines, each piece in the role
 * of its span (the header, a backtrace's header and stop line in the tone
 * of its status, frames with their module dimmed), frames aligned on their
 * numbers. */
void output_add_event(struct output *o, const struct span_list *event);
void output_clear(struct output *o);

/* Pause (@on) or resume the panel: while paused, events are kept rather
 * than shown (command output and messages still show), and the title says
 * how many wait; on resume they are appended in order.  At most the
 * scrollback's size of waiting lines is kept, the oldest dropped first. */
void output_pause(struct output *o, bool on);
bool output_paused(const struct output *o);

/* Scroll by @lines (positive: towards older lines). */
void output_scroll(struct output *o, long lines);
void output_scroll_home(struct output *o);
void output_scroll_end(struct output *o);

/* Draw into rows 1.. of @w (row 0 is the title, drawn here too). */
void output_draw(struct output *o, WINDOW *w, bool focus);

#endif
