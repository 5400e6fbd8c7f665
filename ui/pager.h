/* pager.h - a full-screen, scrollable page of text (the F1 help).
 *
 * Layer rule: ui/ only (see draw.h).
 */
#ifndef WRAITH_UI_PAGER_H
#define WRAITH_UI_PAGER_H

#include <curses.h>
#include <stdbool.h>

struct pager;

/* A pager titled @title over a copy of @text.  Caller frees. */
struct pager *pager_new(const char *title, const char *text);
/* NULL is a no-op. */
void pager_free(struct pager *pg);

/* Up/Down/PgUp/PgDn/Home/End scroll.  Returns false when the pager wants
 * to close (Esc, q, F1). */
bool pager_key(struct pager *pg, int key);
void pager_draw(struct pager *pg, WINDOW *w);

#endif
