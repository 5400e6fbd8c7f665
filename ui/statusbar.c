/* statusbar.c - the status bar (see statusbar.h).
 *
 * Lost events add up everything that never reached the output panel: the
 * kernel side's per-probe losses (buffer full), the perf buffer's own
 * count, and events the session dropped from its backlog.  The rate is
 * measured over windows of at least a second so it does not flicker.
 */
#include "statusbar.h"
#include "tracer/session.h"
#include "draw.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <string.h>

#define RATE_WINDOW 1.0

/* Which probes lost events, most first is not needed: few probes lose. */
static void lost_by_probe(struct statusbar *b, struct session *s)
{
	size_t len = 0, shown = 0;
	struct probe *p;

	b->lost_by[0] = '\0';
	session_for_each_probe(p, s) {
		struct session_probe_stats st;
		int n;

		session_probe_stats(s, p, &st);
		if (!st.lost)
			continue;
		n = shown < 3 ? snprintf(b->lost_by + len, sizeof(b->lost_by) - len, "%s#%u %llu",
					 len ? ", " : "", probe_id(p), (unsigned long long)st.lost)
			      : snprintf(b->lost_by + len, sizeof(b->lost_by) - len, ", ...");
		if (n < 0 || (size_t)n >= sizeof(b->lost_by) - len || shown++ >= 3)
			break;
		len += (size_t)n;
	}
}

void statusbar_tick(struct statusbar *b, struct session *s, double now)
{
	uint64_t events = session_events(s);
	struct session_losses l;

	if (!b->since) {
		b->since = now;
		b->events_then = events;
	}
	if (now - b->since >= RATE_WINDOW) {
		b->rate = (double)(events - b->events_then) / (now - b->since);
		b->since = now;
		b->events_then = events;
	}
	session_losses(s, &l);
	b->lost = l.lost + l.dropped;
	lost_by_probe(b, s);
}

void statusbar_message(struct statusbar *b, const char *msg, double seconds, double now)
{
	snprintf(b->message, sizeof(b->message), "%s", msg);
	b->message_until = now + seconds;
}

/* The bar's text: target, probes, rate, events, losses, transport, each
 * cut at @limit columns (what the right end shows starts there). */
static void draw_left(const struct statusbar *b, struct session *s, WINDOW *w, int limit)
{
	struct strbuf sb = STRBUF_INIT;
	char lost[96];
	size_t on = 0;
	struct probe *p;
	int x;

	session_for_each_probe(p, s)
		on += session_probe_on(s, p);
	strbuf_addch(&sb, ' ');
	session_target_text(s, &sb);
	strbuf_addf(&sb, " | probes %zu/%zu on | %.0f ev/s | %llu events | ", on,
		    session_probe_count(s), b->rate, (unsigned long long)session_events(s));
	snprintf(lost, sizeof(lost), b->lost_by[0] ? "lost %llu (%s)" : "lost %llu",
		 (unsigned long long)b->lost, b->lost_by);
	x = draw_text(w, 0, 0, sb.buf, sb.len, limit, ROLE_STATUS);
	x += draw_text(w, 0, x, lost, strlen(lost), limit - x, b->lost ? ROLE_ALERT : ROLE_STATUS);
	strbuf_reset(&sb);
	strbuf_addf(&sb, " | %s", session_transport(s) == SESSION_TRANSPORT_PERF ? "perf" : "ringbuf");
	draw_text(w, 0, x, sb.buf, sb.len, limit - x, ROLE_STATUS);
	strbuf_release(&sb);
}

void statusbar_draw(const struct statusbar *b, struct session *s, WINDOW *w, double now)
{
	int cols = getmaxx(w), x;
	bool alert = b->message[0] && now < b->message_until;

	mvwhline(w, 0, 0, ' ' | draw_attr(ROLE_STATUS), cols);
	if (alert) {
		/* the message keeps its place on the right; the rest is cut before it */
		int len = (int)draw_width(b->message, strlen(b->message)) + 2;

		x = cols - len > 0 ? cols - len : 0;
		draw_left(b, s, w, x > 0 ? x - 1 : 0);
		mvwhline(w, 0, x, ' ' | draw_attr(ROLE_ALERT), cols - x);
		draw_text(w, 0, x + 1, b->message, strlen(b->message), cols - x - 1, ROLE_ALERT);
	} else if (cols > 20) {
		draw_left(b, s, w, cols - 9);
		draw_text(w, 0, cols - 8, "F1 help", 7, 7, ROLE_STATUS);
	} else {
		draw_left(b, s, w, cols);
	}
}
