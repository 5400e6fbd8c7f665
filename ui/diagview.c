/* diagview.c - the diagnosis view (see diagview.h).
 *
 * Every draw builds the view as a list of rows from the probe's counters
 * and stop places, then shows the window of rows around the selection.
 * The selected place is remembered by what it is (module, pc, status,
 * error), not by its rank, because ranks change while counts grow.  The
 * unwind row is looked up the way the `diag` report does (at pc - 1, the
 * call instruction of a return address) with the CFI tables the target
 * already holds.
 */
#include "diagview.h"
#include "render/status.h"
#include "tracer/session.h"
#include "draw.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct diagview {
	unsigned probe;        /* shown probe id */
	bool have_sel;
	struct stop_place sel; /* key fields of the selected place (no sample) */
	bool detail;           /* Enter: show the selected place's details */
	long scroll;           /* rows scrolled by PgUp/PgDn beyond the selection */
	int rows;              /* body rows at the last draw */
};

struct row {
	char *text;            /* owned */
	enum ui_role role;
	bool selected;
};

struct rows {
	struct row *v;
	size_t n, cap;
	int cols;
	long sel_first, sel_last; /* rows to keep visible, -1 if none */
};

struct diagview *diagview_new(unsigned probe_id)
{
	struct diagview *d = xcalloc(1, sizeof(*d));

	d->probe = probe_id;
	d->rows = 10;
	return d;
}

void diagview_free(struct diagview *d)
{
	free(d);
}

/* ---- rows ---- */

static void add_row(struct rows *r, const char *text, size_t n, enum ui_role role)
{
	r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n++] = (struct row){ draw_sanitize(text, n), role, false };
}

static void add_str(struct rows *r, const char *text, enum ui_role role)
{
	add_row(r, text, strlen(text), role);
}

/* Add @head then @text wrapped at the view's width, continuation rows
 * indented to where @text started. */
static void add_wrapped(struct rows *r, const char *head, const char *text, enum ui_role role)
{
	size_t indent = draw_width(head, strlen(head));
	size_t room = (size_t)r->cols > indent + 20 ? (size_t)r->cols - indent : 20;
	struct strbuf line = STRBUF_INIT;
	bool first = true;

	do {
		size_t n = strlen(text), cut = n;

		if (draw_width(text, n) > room) {
			cut = draw_fit(text, n, room);
			for (size_t k = cut; k > cut / 2; k--) {
				if (text[k] == ' ') {
					cut = k;
					break;
				}
			}
		}
		strbuf_reset(&line);
		if (first)
			strbuf_addstr(&line, head);
		else
			strbuf_addchars(&line, ' ', indent);
		strbuf_add(&line, text, cut);
		add_row(r, line.buf, line.len, role);
		text += cut;
		while (*text == ' ')
			text++;
		first = false;
	} while (*text);
	strbuf_release(&line);
}

static void add_fmt(struct rows *r, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_fmt(struct rows *r, enum ui_role role, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	add_row(r, sb.buf, sb.len, role);
	strbuf_release(&sb);
}

static void rows_release(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].text);
	free(r->v);
}

/* ---- the tables ---- */

#define LABEL_WIDTH 26

static enum ui_role status_role(unsigned status)
{
	return draw_tone_role(bt_status_tone(status));
}

/* One table row: "  label (N)   count  explanation". */
static void count_row(struct rows *r, const char *label, unsigned number, uint64_t count,
		      const char *explain, enum ui_role role)
{
	char name[64], head[128];

	snprintf(name, sizeof(name), "%s (%u)", label, number);
	snprintf(head, sizeof(head), "  %-*s %8llu  ", LABEL_WIDTH, name, (unsigned long long)count);
	add_wrapped(r, head, explain, role);
}

static void status_rows(const struct probe *p, struct rows *r)
{
	struct probe_bt_end ends[PROBE_BT_ENDS_MAX];
	size_t n = probe_bt_statuses(p, ends);

	add_fmt(r, ROLE_HEADING, "%-*s %8s  %s", LABEL_WIDTH + 2, "status (number)", "count",
		"explanation");
	for (size_t i = 0; i < n; i++)
		count_row(r, ends[i].label, ends[i].number, ends[i].count, ends[i].explain,
			  ends[i].count ? status_role(ends[i].number) : ROLE_DIM);
}

/* Truncated backtraces are not stop places (nothing went wrong), so the
 * view says here what would show their outer frames. */
static void depth_hint(struct session *s, const struct probe *p, struct rows *r)
{
	uint64_t truncated = probe_bt_truncated(p);
	char text[256];

	if (!truncated)
		return;
	snprintf(text, sizeof(text), "%llu backtrace%s reached the depth limit; for the outer "
		 "frames, raise it: `set backtrace-depth N` (now %u, at most %u) and add the probe "
		 "again, or start with --backtrace-depth N",
		 (unsigned long long)truncated, truncated == 1 ? "" : "s", session_bt_depth(s),
		 session_max_bt_depth());
	add_wrapped(r, "  hint: ", text, ROLE_WARN);
}

static void error_rows(const struct probe *p, struct rows *r)
{
	struct probe_bt_end ends[PROBE_BT_ENDS_MAX];
	size_t n = probe_bt_errors(p, ends);

	if (!n)
		return;
	add_str(r, "", ROLE_NORMAL);
	add_fmt(r, ROLE_HEADING, "%-*s %8s  %s", LABEL_WIDTH + 2, "error code (number)", "count",
		"explanation");
	for (size_t i = 0; i < n; i++)
		count_row(r, ends[i].label, ends[i].number, ends[i].count, ends[i].explain, ROLE_NORMAL);
}

/* ---- stop places ---- */

static int cmp_place(const void *a, const void *b)
{
	const struct stop_place *x = *(const struct stop_place *const *)a;
	const struct stop_place *y = *(const struct stop_place *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The probe's places, most frequent first, their number in *@n.  Caller
 * frees the array. */
static const struct stop_place **sorted_places(const struct probe *p, size_t *n)
{
	const struct stop_place *places = probe_stop_places(p, n);
	const struct stop_place **v = xcalloc(*n + 1, sizeof(*v));

	for (size_t i = 0; i < *n; i++)
		v[i] = &places[i];
	qsort(v, *n, sizeof(*v), cmp_place);
	return v;
}

static bool same_place(const struct stop_place *a, const struct stop_place *b)
{
	return a->cookie == b->cookie && a->pc == b->pc && a->status == b->status &&
	       a->error == b->error;
}

static void detail_rows(struct session *s, const struct stop_place *sp, struct rows *r)
{
	struct strbuf sb = STRBUF_INIT;

	session_stop_row_text(s, sp, &sb);
	add_wrapped(r, "      unwind row: ", sb.buf, ROLE_NORMAL);
	add_wrapped(r, "      fix: ", bt_status_fix(sp->status), ROLE_WARN);
	add_str(r, "      sample event:", ROLE_DIM);
	for (const char *l = sp->sample ? sp->sample : ""; *l;) {
		size_t n = strcspn(l, "\n");

		strbuf_reset(&sb);
		strbuf_addstr(&sb, "        ");
		strbuf_add(&sb, l, n);
		add_row(r, sb.buf, sb.len, ROLE_FRAME);
		l += n + (l[n] == '\n');
	}
	strbuf_release(&sb);
}

/* The place rows; the selected one (found again by identity) gets its
 * details under it when they are open. */
static void place_rows(struct diagview *d, struct session *s, const struct probe *p, struct rows *r)
{
	size_t n, sel = 0;
	const struct stop_place **v = sorted_places(p, &n);
	struct strbuf sb = STRBUF_INIT;

	add_str(r, "", ROLE_NORMAL);
	add_str(r, "where unwinding stopped early, most often first (Up/Down, Enter)", ROLE_HEADING);
	if (!n)
		add_str(r, "  nowhere: every backtrace was complete or truncated", ROLE_DIM);
	for (size_t i = 0; d->have_sel && i < n; i++)
		if (same_place(v[i], &d->sel))
			sel = i;
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%c %zu. ", i == sel ? '>' : ' ', i + 1);
		session_stop_place_text(s, v[i], &sb);
		if (i == sel)
			r->sel_first = (long)r->n;
		add_row(r, sb.buf, sb.len, status_role(v[i]->status));
		r->v[r->n - 1].selected = i == sel;
		if (i == sel && d->detail)
			detail_rows(s, v[i], r);
		if (i == sel)
			r->sel_last = (long)r->n - 1;
	}
	if (n) {
		d->sel = *v[sel];
		d->sel.sample = NULL;
		d->have_sel = true;
	}
	strbuf_release(&sb);
	free(v);
}

/* ---- probes ---- */

/* Probes worth showing: those that took backtraces. */
static struct probe *probe_at(struct session *s, size_t k)
{
	struct probe *p;

	session_for_each_probe(p, s)
		if ((probe_backtraces(p) || probe_counted(p)) && k-- == 0)
			return p;
	return NULL;
}

static size_t probe_index(struct diagview *d, struct session *s, size_t *total)
{
	size_t n = 0, at = 0;
	struct probe *p;

	session_for_each_probe(p, s) {
		if (!probe_backtraces(p) && !probe_counted(p))
			continue;
		if (probe_id(p) == d->probe)
			at = n;
		n++;
	}
	*total = n;
	return at;
}

static void switch_probe(struct diagview *d, struct session *s, int dir)
{
	size_t total, at = probe_index(d, s, &total);
	struct probe *p;

	if (!total)
		return;
	p = probe_at(s, (at + total + (size_t)(long)dir) % total);
	d->probe = probe_id(p);
	d->have_sel = d->detail = false;
	d->scroll = 0;
}

static void move_selection(struct diagview *d, struct session *s, int dir)
{
	size_t total, at = probe_index(d, s, &total);
	struct probe *p = probe_at(s, at);
	const struct stop_place **v;
	size_t n, sel = 0;

	if (!p || !probe_stop_places(p, &n) || !n)
		return;
	v = sorted_places(p, &n);
	for (size_t i = 0; d->have_sel && i < n; i++)
		if (same_place(v[i], &d->sel))
			sel = i;
	if (dir < 0 && sel > 0)
		sel--;
	else if (dir > 0 && sel + 1 < n)
		sel++;
	d->sel = *v[sel];
	d->sel.sample = NULL;
	d->have_sel = true;
	d->scroll = 0;
	free(v);
}

bool diagview_key(struct diagview *d, struct session *s, int key)
{
	switch (key) {
	case 27: case 'q': case KEY_F(1):
		return false;
	case KEY_LEFT: switch_probe(d, s, -1); break;
	case KEY_RIGHT: switch_probe(d, s, 1); break;
	case KEY_UP: move_selection(d, s, -1); break;
	case KEY_DOWN: move_selection(d, s, 1); break;
	case '\n': case '\r': case KEY_ENTER: d->detail = !d->detail; d->scroll = 0; break;
	case KEY_PPAGE: d->scroll -= d->rows - 1; break;
	case KEY_NPAGE: d->scroll += d->rows - 1; break;
	case KEY_HOME: d->scroll = -100000; break;
	case KEY_END: d->scroll = 100000; break;
	default: break;
	}
	return true;
}

/* ---- drawing ---- */

static void build(struct diagview *d, struct session *s, struct probe *p, struct rows *r)
{
	unsigned long long events = probe_events(p), backtraces = probe_backtraces(p);

	/* the stacks `count bt` counted went the same ways (probe_bt_statuses) */
	if (probe_counted(p))
		add_fmt(r, ROLE_NORMAL, "%llu events, %llu backtraces, %llu stacks counted (count bt)",
			events, backtraces, (unsigned long long)probe_counted(p));
	else
		add_fmt(r, ROLE_NORMAL, "%llu events, %llu backtraces", events, backtraces);
	add_str(r, "", ROLE_NORMAL);
	status_rows(p, r);
	depth_hint(s, p, r);
	error_rows(p, r);
	place_rows(d, s, p, r);
}

/* First row to show: the selection (and its details) in view, moved by
 * the user's paging. */
static long first_row(struct diagview *d, const struct rows *r, int rows)
{
	long base = 0, top, max = (long)r->n - rows;

	if (r->sel_first >= 0) {
		if (r->sel_last >= rows)
			base = r->sel_last - rows + 1;
		if (r->sel_first < base)
			base = r->sel_first;
	}
	top = base + d->scroll;
	if (top > max)
		top = max;
	if (top < 0)
		top = 0;
	d->scroll = top - base; /* paging past either end does not pile up */
	return top;
}

static void draw_rows(struct diagview *d, const struct rows *r, WINDOW *w)
{
	int rows = getmaxy(w) - 2, cols = getmaxx(w);
	long top = first_row(d, r, rows);

	d->rows = rows > 1 ? rows : 1;
	for (int y = 0; y < rows && top + y < (long)r->n; y++) {
		const struct row *row = &r->v[top + y];

		if (row->selected)
			mvwhline(w, y + 1, 0, ' ' | draw_attr(ROLE_SELECTED), cols);
		draw_text(w, y + 1, 1, row->text, strlen(row->text), cols - 2,
			  row->selected ? ROLE_SELECTED : row->role);
	}
}

void diagview_draw(struct diagview *d, struct session *s, WINDOW *w)
{
	static const char keys[] = "Left/Right probe  Up/Down place  Enter details  Esc close";
	static const char none[] = "no backtraces yet: add `bt;` or `count bt;` to a probe and let "
				   "it fire";
	struct rows r = { .cols = getmaxx(w) - 2, .sel_first = -1, .sel_last = -1 };
	size_t total, at;
	struct probe *p;

	session_read_counted(s);
	at = probe_index(d, s, &total);
	p = probe_at(s, at);
	char title[256];

	werase(w);
	if (!p) {
		draw_title(w, 0, "diagnosis", NULL, true);
		draw_text(w, 2, 1, none, strlen(none), getmaxx(w) - 2, ROLE_NORMAL);
	} else {
		d->probe = probe_id(p);
		snprintf(title, sizeof(title), "diagnosis: probe %u (%s), %zu of %zu", probe_id(p),
			 probe_target(p), at + 1, total);
		draw_title(w, 0, title, NULL, true);
		build(d, s, p, &r);
		draw_rows(d, &r, w);
	}
	draw_title(w, getmaxy(w) - 1, keys, NULL, false);
	rows_release(&r);
}
