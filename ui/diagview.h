/* diagview.h - the diagnosis view: why backtraces ended early.
 *
 * Layer rule: ui/ only (see draw.h); reads the session's probe counters
 * and stop places, changes nothing.
 *
 * Per probe: backtraces by status and by error code (label, number,
 * count, explanation), then the places where unwinding stopped, most
 * frequent first.  Up/Down selects a place; Enter shows its sample event,
 * the unwind (CFI) row found there (or that none was) and what would fix
 * it.  Left/Right switch probes; Esc or q closes.  The numbers are read
 * again on every draw, so the view stays live while events arrive.
 */
#ifndef WRAITH_UI_DIAGVIEW_H
#define WRAITH_UI_DIAGVIEW_H

#include <curses.h>
#include <stdbool.h>

struct diagview;
struct session;

/* A new view starting at probe @probe_id (0: the first with backtraces).
 * Caller frees. */
struct diagview *diagview_new(unsigned probe_id);
/* NULL is a no-op. */
void diagview_free(struct diagview *d);

/* Handle @key.  Returns false when the view wants to close. */
bool diagview_key(struct diagview *d, struct session *s, int key);
void diagview_draw(struct diagview *d, struct session *s, WINDOW *w);

#endif
