/* output.c - the output panel's scrollback and drawing (see output.h).
 *
 * Lines live in a ring of fixed capacity.  Each line is made of segments
 * that keep the role of the text they came from, decided once, when the
 * line arrives: for events from the spans' roles and tones (render/span.h),
 * never by reading the text back.  A line too wide for the panel first
 * loses the end of its parameter list (libc's run to 200 columns), then
 * wraps; scrolling counts whole lines.  While paused, events' lines wait
 * in a list of their own and join the ring on resume, so what is on the
 * screen stays still while events keep being read from the kernel.
 */
#include "output.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From byte `from` of its line to the next segment, text plays `role`. */
struct out_seg {
	size_t from;
	enum ui_role role;
	bool elide;  /* a parameter list: shortened, not wrapped, when the line is too wide */
};

struct out_line {
	char *text;            /* owned, sanitized */
	size_t len;
	struct out_seg *segs;  /* owned, at least one, the first from 0 */
	size_t n_segs;
};

struct output {
	struct out_line *ring; /* owned, max entries */
	size_t max, head, count; /* head: index of the oldest line */
	size_t offset;
	/* Paused: events are kept here, not shown, until output_pause(false). */
	bool paused;
	struct out_line *held; /* owned, oldest first, at most `max` */
	size_t n_held, cap_held;
	uint64_t held_events;  /* events that arrived while paused */
};

/* A line being put together from pieces. */
struct line_builder {
	struct strbuf text;
	struct out_seg *segs;
	size_t n_segs, cap_segs;
};

static void line_free(struct out_line *l)
{
	free(l->text);
	free(l->segs);
}

struct output *output_new(size_t max_lines)
{
	struct output *o = xcalloc(1, sizeof(*o));

	o->max = max_lines ? max_lines : 1;
	o->ring = xcalloc(o->max, sizeof(*o->ring));
	return o;
}

static void drop_held(struct output *o)
{
	for (size_t i = 0; i < o->n_held; i++)
		line_free(&o->held[i]);
	o->n_held = 0;
	o->held_events = 0;
}

void output_clear(struct output *o)
{
	for (size_t i = 0; i < o->count; i++)
		line_free(&o->ring[(o->head + i) % o->max]);
	o->head = o->count = o->offset = 0;
	drop_held(o);
}

void output_free(struct output *o)
{
	if (!o)
		return;
	output_clear(o);
	free(o->ring);
	free(o->held);
	free(o);
}

static struct out_line *line_at(const struct output *o, size_t i)
{
	return &o->ring[(o->head + i) % o->max];
}

/* ---- adding lines ---- */

static void builder_add(struct line_builder *b, const char *s, size_t n, enum ui_role role,
			bool elide)
{
	struct out_seg *last = b->n_segs ? &b->segs[b->n_segs - 1] : NULL;

	if (!last || last->role != role || last->elide != elide) {
		b->segs = xgrow(b->segs, &b->cap_segs, b->n_segs + 1, sizeof(*b->segs));
		b->segs[b->n_segs++] = (struct out_seg){ b->text.len, role, elide };
	}
	draw_sanitize_add(&b->text, s, n);
}

/* Put @line (taken over) in the newest place of the ring. */
static void push_line(struct output *o, struct out_line line)
{
	if (o->count == o->max) {
		line_free(line_at(o, 0));
		o->head = (o->head + 1) % o->max;
		o->count--;
	}
	if (o->offset)
		o->offset++; /* keep the view where the user put it */
	*line_at(o, o->count++) = line;
	if (o->offset >= o->count)
		o->offset = o->count - 1;
}

/* The line in @b, taken out of it (@b is left empty). */
static struct out_line take_line(struct line_builder *b)
{
	struct out_line l;

	if (!b->n_segs)
		builder_add(b, "", 0, ROLE_NORMAL, false);
	l.len = b->text.len;
	l.text = strbuf_detach(&b->text);
	l.segs = b->segs;
	l.n_segs = b->n_segs;
	b->segs = NULL;
	b->n_segs = b->cap_segs = 0;
	return l;
}

/* Keep an event's line while paused.  Beyond `max` lines the oldest go:
 * the ring would drop them on resume anyway.  Half are dropped at once, so
 * the move is paid once per max/2 lines. */
static void hold(struct output *o, struct out_line line)
{
	if (o->n_held == o->max) {
		size_t drop = o->max / 2 ? o->max / 2 : 1;

		for (size_t i = 0; i < drop; i++)
			line_free(&o->held[i]);
		memmove(o->held, o->held + drop, (o->n_held - drop) * sizeof(*o->held));
		o->n_held -= drop;
	}
	o->held = xgrow(o->held, &o->cap_held, o->n_held + 1, sizeof(*o->held));
	o->held[o->n_held++] = line;
}

static void push(struct output *o, struct line_builder *b)
{
	push_line(o, take_line(b));
}

void output_add(struct output *o, const char *text, enum ui_role role)
{
	struct line_builder b = { STRBUF_INIT, NULL, 0, 0 };

	while (*text) {
		size_t n = strcspn(text, "\n");

		builder_add(&b, text, n, role, false);
		push(o, &b);
		text += n + (text[n] == '\n');
	}
}

/* ---- events ---- */

/* Where in an event the spans are, for roles that depend on it. */
struct event_place {
	bool in_header;
	bool in_frame;
	int digits;      /* of the current backtrace's highest frame number */
};

static enum ui_role span_ui_role(const struct span *s, const struct event_place *at)
{
	if (s->tone != SPAN_TONE_NONE)
		return draw_tone_role((enum span_tone)s->tone);
	if (at->in_header)
		return ROLE_EVENT;
	if (s->role == SPAN_WHERE)
		return ROLE_DIM;
	return at->in_frame ? ROLE_FRAME : ROLE_NORMAL;
}

/* Follow groups, and the frame count of each backtrace. */
static void track(const struct span *s, struct event_place *at)
{
	bool open = s->flags & SPAN_F_OPEN;

	if (s->flags & (SPAN_F_OPEN | SPAN_F_CLOSE)) {
		if (s->role == SPAN_HEADER)
			at->in_header = open;
		else if (s->role == SPAN_FRAME)
			at->in_frame = open;
	} else if (s->role == SPAN_FRAME_COUNT && (s->flags & SPAN_F_DATA)) {
		at->digits = snprintf(NULL, 0, "%llu", (unsigned long long)(s->value ? s->value - 1 : 0));
	}
}

/* An event's line: shown, or kept while paused. */
static void emit(struct output *o, struct line_builder *b)
{
	if (o->paused)
		hold(o, take_line(b));
	else
		push(o, b);
}

void output_add_event(struct output *o, const struct span_list *event)
{
	struct line_builder b = { STRBUF_INIT, NULL, 0, 0 };
	struct event_place at = { .digits = 1 };

	for (size_t i = 0; i < event->n; i++) {
		const struct span *s = &event->v[i];
		const char *text = span_show(event, s);
		enum ui_role role = span_ui_role(s, &at);
		size_t n = strlen(text);

		track(s, &at);
		if (!(s->flags & SPAN_F_SHOW))
			continue;
		if (s->role == SPAN_EOL) {
			emit(o, &b);
			continue;
		}
		builder_add(&b, text, n, role, s->role == SPAN_PARAMS);
		/* "#3 f()": numbers padded so every frame's function starts in
		 * the same column. */
		while (s->role == SPAN_FRAME_NO && n++ < (size_t)(1 + at.digits))
			builder_add(&b, " ", 1, role, false);
	}
	if (b.n_segs)
		emit(o, &b);
	strbuf_release(&b.text);
	free(b.segs);
	if (o->paused)
		o->held_events++;
}

void output_pause(struct output *o, bool on)
{
	if (o->paused == on)
		return;
	o->paused = on;
	if (on)
		return;
	for (size_t i = 0; i < o->n_held; i++)
		push_line(o, o->held[i]);
	o->n_held = 0;
	o->held_events = 0;
}

bool output_paused(const struct output *o)
{
	return o->paused;
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

/* ---- drawing ---- */

/* Draw bytes [from, to) of @l at (@y, 0), each segment in its role. */
static void draw_piece(WINDOW *w, int y, const struct out_line *l, size_t from, size_t to, int cols)
{
	int x = 0;

	for (size_t k = 0; k < l->n_segs && from < to; k++) {
		size_t end = k + 1 < l->n_segs ? l->segs[k + 1].from : l->len;

		if (end <= from)
			continue;
		if (end > to)
			end = to;
		x += draw_text(w, y, x, l->text + from, end - from, cols - x, l->segs[k].role);
		from = end;
	}
}

#define ELLIPSIS "...)"

/* @l with its parameter list cut so the line fits @cols ("(int argc,
 * ...)"), in @out (caller frees its text and segs).  False when @l fits,
 * has no parameter list, or cutting it cannot make the line fit. */
static bool shortened(const struct out_line *l, int cols, struct out_line *out)
{
	size_t width = draw_width(l->text, l->len), over, k = 0, from, to, list, keep, cut;
	struct strbuf sb = STRBUF_INIT;

	if (width <= (size_t)cols)
		return false;
	while (k < l->n_segs && !l->segs[k].elide)
		k++;
	if (k == l->n_segs)
		return false;
	from = l->segs[k].from;
	to = k + 1 < l->n_segs ? l->segs[k + 1].from : l->len;
	list = draw_width(l->text + from, to - from);
	over = width - (size_t)cols;
	if (list < over + strlen(ELLIPSIS) + 1)
		return false;
	keep = draw_fit(l->text + from, to - from, list - over - strlen(ELLIPSIS));
	strbuf_add(&sb, l->text, from + keep);
	strbuf_addstr(&sb, ELLIPSIS);
	cut = to - sb.len; /* bytes the list lost */
	strbuf_add(&sb, l->text + to, l->len - to);
	out->len = sb.len;
	out->text = strbuf_detach(&sb);
	out->n_segs = l->n_segs;
	out->segs = xcalloc(l->n_segs, sizeof(*out->segs));
	for (size_t j = 0; j < l->n_segs; j++) {
		out->segs[j] = l->segs[j];
		if (j > k)
			out->segs[j].from -= cut;
	}
	return true;
}

/* Draw @l so that its last row is @bottom; rows above @top are skipped.
 * A line too wide for @cols loses the end of its parameter list first,
 * then wraps.  Returns the rows it takes. */
static int draw_line(WINDOW *w, const struct out_line *line, int bottom, int top, int cols)
{
	struct out_line cut;
	const struct out_line *l = shortened(line, cols, &cut) ? &cut : line;
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
	if (l == &cut)
		line_free(&cut);
	return n;
}

void output_draw(struct output *o, WINDOW *w, bool focus)
{
	int rows = getmaxy(w), cols = getmaxx(w), y = rows - 1;
	char right[64];

	werase(w);
	if (o->paused)
		snprintf(right, sizeof(right), "%zu lines; paused, %" PRIu64 " events waiting (F3)",
			 o->count, o->held_events);
	else if (o->offset)
		snprintf(right, sizeof(right), "%zu newer lines below (End)", o->offset);
	else
		snprintf(right, sizeof(right), "%zu lines", o->count);
	draw_title(w, 0, "output", right, focus);
	for (size_t i = o->count - o->offset; i-- > 0 && y >= 1;)
		y -= draw_line(w, line_at(o, i), y, 1, cols);
}
