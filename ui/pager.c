/* pager.c - a scrollable page of text (see pager.h).  Lines longer than
 * the screen are cut, not wrapped: the help is written to fit 80 columns.
 */
#include "pager.h"
#include "draw.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct pager {
	char *title;  /* owned */
	char **lines; /* owned, sanitized */
	size_t n, cap;
	long top;
	int rows;     /* body rows at the last draw */
};

struct pager *pager_new(const char *title, const char *text)
{
	struct pager *pg = xcalloc(1, sizeof(*pg));

	pg->title = xstrdup(title);
	pg->rows = 10;
	while (*text) {
		size_t n = strcspn(text, "\n");

		pg->lines = xgrow(pg->lines, &pg->cap, pg->n + 1, sizeof(*pg->lines));
		pg->lines[pg->n++] = draw_sanitize(text, n);
		text += n + (text[n] == '\n');
	}
	return pg;
}

void pager_free(struct pager *pg)
{
	if (!pg)
		return;
	for (size_t i = 0; i < pg->n; i++)
		free(pg->lines[i]);
	free(pg->lines);
	free(pg->title);
	free(pg);
}

bool pager_key(struct pager *pg, int key)
{
	long max = (long)pg->n - pg->rows;

	switch (key) {
	case 27: case 'q': case KEY_F(1):
		return false;
	case KEY_UP: pg->top--; break;
	case KEY_DOWN: pg->top++; break;
	case KEY_PPAGE: pg->top -= pg->rows - 1; break;
	case KEY_NPAGE: case ' ': pg->top += pg->rows - 1; break;
	case KEY_HOME: pg->top = 0; break;
	case KEY_END: pg->top = max; break;
	default: break;
	}
	if (pg->top > max)
		pg->top = max;
	if (pg->top < 0)
		pg->top = 0;
	return true;
}

void pager_draw(struct pager *pg, WINDOW *w)
{
	int rows = getmaxy(w) - 2, cols = getmaxx(w);

	pg->rows = rows > 1 ? rows : 1;
	werase(w);
	draw_title(w, 0, pg->title, NULL, true);
	for (int y = 0; y < rows && pg->top + y < (long)pg->n; y++) {
		const char *l = pg->lines[pg->top + y];

		draw_text(w, y + 1, 1, l, strlen(l), cols - 2, ROLE_NORMAL);
	}
	draw_title(w, getmaxy(w) - 1, "Up/Down/PgUp/PgDn scroll  Esc close", NULL, false);
}
