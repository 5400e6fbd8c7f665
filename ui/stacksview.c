/* stacksview.c - the live top-stacks view (see stacksview.h).
 *
 * A reading takes the counts from the session (session_stacks, the same
 * reading the `stacks` command and --folded use) and turns them into rows
 * (session_stack_rows: sorted, collapsed or not, frames named as the
 * listing names them).  Drawing only lays out those rows, so it costs
 * nothing between readings.  The view scrolls by screen row; a reading
 * keeps the scroll position, so the rows move under it only as counts
 * change their order.
 */
#include "stacksview.h"
#include "render/stacks.h"
#include "render/status.h"
#include "tracer/session.h"
#include "draw.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stacksview {
	struct stack_rows rows;
	enum stacks_order order;
	bool collapse;
	bool counting;       /* a probe counts stacks (at the last reading) */
	bool failed;         /* the last reading failed */
	size_t distinct;     /* distinct stacks in the kernel */
	double read_at;      /* when the counts were last read (0: never) */
	unsigned readings;
	long top;            /* first screen row shown */
	int body;            /* body rows at the last draw */
	long lines;          /* screen rows of all stacks at the last draw */
};

struct stacksview *stacksview_new(void)
{
	struct stacksview *v = xcalloc(1, sizeof(*v));

	v->body = 10;
	return v;
}

void stacksview_free(struct stacksview *v)
{
	if (!v)
		return;
	stack_rows_release(&v->rows);
	free(v);
}

bool stacksview_refresh(struct stacksview *v, struct session *s, double now, bool force)
{
	struct stack_set set;

	if (!force && v->read_at && now - v->read_at < STACKSVIEW_REFRESH)
		return false;
	v->read_at = now;
	v->readings++;
	v->counting = session_counts_stacks(s);
	v->failed = v->counting && session_stacks(s, &set) != 0;
	if (!v->counting || v->failed) {
		if (v->failed)
			stack_set_release(&set);
		stack_rows_release(&v->rows);
		v->distinct = 0;
		return true;
	}
	v->distinct = set.n;
	session_stack_rows(s, &set, v->order == STACKS_BY_NAME, v->collapse, &v->rows);
	stack_set_release(&set);
	return true;
}

static void scroll_to(struct stacksview *v, long top)
{
	long max = v->lines - v->body;

	v->top = top > max ? max : top;
	if (v->top < 0)
		v->top = 0;
}

bool stacksview_key(struct stacksview *v, struct session *s, int key, double now)
{
	switch (key) {
	case 27: case 'q': case KEY_F(4):
		return false;
	case 's':
		v->order = v->order == STACKS_BY_COUNT ? STACKS_BY_NAME : STACKS_BY_COUNT;
		stacksview_refresh(v, s, now, true);
		break;
	case 'c':
		v->collapse = !v->collapse;
		stacksview_refresh(v, s, now, true);
		break;
	case KEY_UP: scroll_to(v, v->top - 1); break;
	case KEY_DOWN: scroll_to(v, v->top + 1); break;
	case KEY_PPAGE: scroll_to(v, v->top - (v->body - 1)); break;
	case KEY_NPAGE: case ' ': scroll_to(v, v->top + (v->body - 1)); break;
	case KEY_HOME: scroll_to(v, 0); break;
	case KEY_END: scroll_to(v, v->lines); break;
	default: break;
	}
	return true;
}

/* ---- drawing ---- */

/* The first line of @r: count, share, how the walk ended, probe, KEY,
 * stacks merged. */
static void row_head(const struct stacksview *v, const struct stack_row *r, struct strbuf *sb)
{
	strbuf_addf(sb, "%10" PRIu64 "  %5.1f%%  %-9s  ", r->count,
		    v->rows.total ? 100.0 * (double)r->count / (double)v->rows.total : 0.0,
		    r->status < 0 ? "?" : bt_status_label((unsigned)r->status));
	if (r->probe)
		strbuf_addf(sb, "#%u %s", r->probe, r->target ? r->target : "?");
	else
		strbuf_addstr(sb, "several probes");
	if (r->key_text)
		strbuf_addf(sb, "  %s=%" PRId64, r->key_text, r->key);
	if (r->merged > 1)
		strbuf_addf(sb, "  (%zu stacks)", r->merged);
}

/* Draw screen row @line (counted over all stacks) at @y when it is shown. */
static void put(struct stacksview *v, WINDOW *w, long line, const char *s, size_t n,
		enum ui_role role)
{
	long y = line - v->top + 1;

	if (y >= 1 && y <= v->body)
		draw_text(w, (int)y, 1, s, n, getmaxx(w) - 2, role);
}

static void draw_rows(struct stacksview *v, WINDOW *w)
{
	struct strbuf sb = STRBUF_INIT;
	long line = 0;

	for (size_t i = 0; i < v->rows.n; i++) {
		const struct stack_row *r = &v->rows.v[i];

		strbuf_reset(&sb);
		row_head(v, r, &sb);
		put(v, w, line++, sb.buf, sb.len, ROLE_EVENT);
		for (const char *f = r->frames; *f;) {
			size_t n = strcspn(f, "\n");

			strbuf_reset(&sb);
			strbuf_addf(&sb, "                    %.*s", (int)n, f);
			put(v, w, line++, sb.buf, sb.len, ROLE_FRAME);
			f += n + (f[n] == '\n');
		}
	}
	v->lines = line;
	strbuf_release(&sb);
}

static void draw_message(WINDOW *w, const char *msg)
{
	draw_text(w, 1, 1, msg, strlen(msg), getmaxx(w) - 2, ROLE_DIM);
}

void stacksview_draw(struct stacksview *v, WINDOW *w)
{
	char left[160], right[96];
	int rows = getmaxy(w) - 2;

	v->body = rows > 1 ? rows : 1;
	werase(w);
	snprintf(left, sizeof(left), "top stacks: %zu distinct, %" PRIu64 " hits", v->distinct,
		 v->rows.total);
	if (v->rows.dropped)
		snprintf(left + strlen(left), sizeof(left) - strlen(left), ", %" PRIu64 " not counted",
			 v->rows.dropped);
	snprintf(right, sizeof(right), "by %s%s, counts read %u time%s, every %.0f s",
		 v->order == STACKS_BY_NAME ? "name" : "count", v->collapse ? ", collapsed" : "",
		 v->readings, v->readings == 1 ? "" : "s", STACKSVIEW_REFRESH);
	draw_title(w, 0, left, right, true);
	if (!v->counting)
		draw_message(w, "no probe counts stacks; add one with `trace TARGET { count bt; }`");
	else if (v->failed)
		draw_message(w, "cannot read the counted stacks from the kernel");
	else if (!v->rows.n)
		draw_message(w, "no stacks counted yet");
	draw_rows(v, w);
	scroll_to(v, v->top);
	draw_title(w, getmaxy(w) - 1, "s sort by count/name  c collapse by function  "
		   "Up/Down/PgUp/PgDn scroll  Esc/F4 close", NULL, false);
}
