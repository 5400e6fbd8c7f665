/* output.c - the output panel's scrollback and drawing (see output.h).
 *
 * Lines live in a ring of fixed capacity; each keeps its role, so colour
 * is decided once, when the line arrives, from what the session says about
 * the event (a backtrace's status), not by re-reading the text on every
 * redraw.  Long lines wrap; scrolling counts whole lines.
 */
#include "output.h"
#include "protocol/decode.h"
#include "protocol/wire.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out_line {
	char *text;       /* owned, sanitized */
	size_t len;
	size_t dim_from;  /* bytes from here are dimmed (== len: none) */
	enum ui_role role;
};

struct output {
	struct out_line *ring; /* owned, max entries */
	size_t max, head, count; /* head: index of the oldest line */
	size_t offset;
};

struct output *output_new(size_t max_lines)
{
	struct output *o = xcalloc(1, sizeof(*o));

	o->max = max_lines ? max_lines : 1;
	o->ring = xcalloc(o->max, sizeof(*o->ring));
	return o;
}

void output_clear(struct output *o)
{
	for (size_t i = 0; i < o->count; i++)
		free(o->ring[(o->head + i) % o->max].text);
	o->head = o->count = o->offset = 0;
}

void output_free(struct output *o)
{
	if (!o)
		return;
	output_clear(o);
	free(o->ring);
	free(o);
}

static struct out_line *line_at(const struct output *o, size_t i)
{
	return &o->ring[(o->head + i) % o->max];
}

/* Append one line of @n bytes; @dim_tail dims a trailing " [module+0x..]". */
static void push(struct output *o, const char *s, size_t n, enum ui_role role, bool dim_tail)
{
	struct out_line *l;
	char *text = draw_sanitize(s, n);
	char *bracket = dim_tail ? strrchr(text, '[') : NULL;

	if (o->count == o->max) {
		free(line_at(o, 0)->text);
		o->head = (o->head + 1) % o->max;
		o->count--;
	}
	if (o->offset)
		o->offset++; /* keep the view where the user put it */
	l = line_at(o, o->count++);
	l->text = text;
	l->len = strlen(text);
	l->role = role;
	l->dim_from = bracket && bracket > text && bracket[-1] == ' ' ? (size_t)(bracket - text) : l->len;
	if (o->offset >= o->count)
		o->offset = o->count - 1;
}

void output_add(struct output *o, const char *text, enum ui_role role)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		push(o, text, n, role, false);
		text += n + (text[n] == '\n');
	}
}

/* ---- events ---- */

struct event_lines {
	const struct event *ev;
	size_t line;                   /* lines of the event seen so far */
	size_t next_item;              /* where to look for the next backtrace */
	const struct ev_backtrace *bt; /* the backtrace being shown, or NULL */
	int digits;                    /* of its highest frame number */
};

static enum ui_role bt_role(unsigned status)
{
	if (status == WR_BT_COMPLETE)
		return ROLE_BT_COMPLETE;
	if (status == WR_BT_TRUNCATED)
		return ROLE_BT_TRUNCATED;
	return ROLE_BT_ERROR;
}

static void next_backtrace(struct event_lines *el)
{
	const struct event *ev = el->ev;

	el->bt = NULL;
	while (el->next_item < ev->n_items) {
		const struct ev_item *it = &ev->items[el->next_item++];

		if (it->type == WR_ITEM_BACKTRACE) {
			el->bt = &it->bt;
			break;
		}
	}
	el->digits = el->bt ? snprintf(NULL, 0, "%u", el->bt->frame_count ? el->bt->frame_count - 1 : 0)
			    : 1;
}

/* "#3 f() ..." with the number padded so that every frame's function
 * starts in the same column. */
static void push_frame(struct output *o, const struct event_lines *el, const char *s, size_t n,
		       size_t indent)
{
	size_t word = strcspn(s + indent, " ");
	size_t want = 1 + (size_t)el->digits;
	char *aligned;

	if (word >= want || indent + word >= n) {
		push(o, s, n, ROLE_FRAME, true);
		return;
	}
	aligned = xasprintf("%.*s%*s%.*s", (int)(indent + word), s, (int)(want - word), "",
			    (int)(n - indent - word), s + indent + word);
	push(o, aligned, strlen(aligned), ROLE_FRAME, true);
	free(aligned);
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t len = strlen(prefix);

	return n >= len && memcmp(s, prefix, len) == 0;
}

static void event_line(struct output *o, struct event_lines *el, const char *s, size_t n)
{
	size_t indent = 0;

	while (indent < n && s[indent] == ' ')
		indent++;
	if (el->line++ == 0) {
		push(o, s, n, ROLE_EVENT, false);
	} else if (starts_with(s + indent, n - indent, "backtrace:")) {
		next_backtrace(el);
		push(o, s, n, el->bt ? bt_role(el->bt->status) : ROLE_NORMAL, false);
	} else if (el->bt && starts_with(s + indent, n - indent, "stopped:")) {
		push(o, s, n, bt_role(el->bt->status), false);
	} else if (el->bt && indent < n && s[indent] == '#') {
		push_frame(o, el, s, n, indent);
	} else {
		push(o, s, n, ROLE_NORMAL, false);
	}
}

void output_add_event(struct output *o, const char *text, const struct event *ev)
{
	struct event_lines el = { .ev = ev, .digits = 1 };

	while (*text) {
		size_t n = strcspn(text, "\n");

		event_line(o, &el, text, n);
		text += n + (text[n] == '\n');
	}
}

/* ---- scrolling ---- */

void output_scroll(struct output *o, long lines)
{
	long max = o->count ? (long)o->count - 1 : 0;
	long off = (long)o->offset + lines;

	o->offset = (size_t)(off < 0 ? 0 : off > max ? max : off);
}

void output_scroll_home(struct output *o)
{
	o->offset = o->count ? o->count - 1 : 0;
}

void output_scroll_end(struct output *o)
{
	o->offset = 0;
}

size_t output_offset(const struct output *o)
{
	return o->offset;
}

size_t output_count(const struct output *o)
{
	return o->count;
}

/* ---- drawing ---- */

/* Draw bytes [from, to) of @l at (@y, 0), dimming what lies past dim_from. */
static void draw_piece(WINDOW *w, int y, const struct out_line *l, size_t from, size_t to, int cols)
{
	int x = 0;

	if (from < l->dim_from) {
		size_t end = to < l->dim_from ? to : l->dim_from;

		x = draw_text(w, y, 0, l->text + from, end - from, cols, l->role);
		from = end;
	}
	if (from < to)
		draw_text(w, y, x, l->text + from, to - from, cols - x, ROLE_DIM);
}

/* Draw @l so that its last row is @bottom; rows above @top are skipped.
 * Returns the rows it takes. */
static int draw_line(WINDOW *w, const struct out_line *l, int bottom, int top, int cols)
{
	size_t starts[64], at = 0;
	int n = 0;

	do {
		size_t fit = draw_fit(l->text + at, l->len - at, (size_t)cols);

		starts[n++] = at;
		at += fit ? fit : draw_char_len(l->text + at, l->len - at);
	} while (at < l->len && n < 64);
	for (int k = 0; k < n; k++) {
		int y = bottom - (n - 1) + k;
		size_t end = k + 1 < n ? starts[k + 1] : l->len;

		if (y >= top)
			draw_piece(w, y, l, starts[k], end, cols);
	}
	return n;
}

void output_draw(struct output *o, WINDOW *w, bool focus)
{
	int rows = getmaxy(w), cols = getmaxx(w), y = rows - 1;
	char right[64];

	werase(w);
	if (o->offset)
		snprintf(right, sizeof(right), "%zu newer lines below (End)", o->offset);
	else
		snprintf(right, sizeof(right), "%zu lines", o->count);
	draw_title(w, 0, "output", right, focus);
	for (size_t i = o->count - o->offset; i-- > 0 && y >= 1;)
		y -= draw_line(w, line_at(o, i), y, 1, cols);
}
