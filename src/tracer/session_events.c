/* session_events.c - a session's events from the kernel to the front
 * end's sink (see session.h): decoded, rendered as spans, counted in their
 * probe, kept back in order while a front end's budget is spent, and
 * limited in rate; and what was lost on the way.
 *
 * The kernel side's buffer is read only from here, so a change to how
 * events are consumed (batching, wakeups, a pause) stays in this file.
 */
#include "tracer/session_priv.h"
#include "render/status.h"
#include "runtime/runtime.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define REFRESH_INTERVAL 0.2 /* seconds between checks of the mappings */
#define PENDING_REFRESH_INTERVAL 0.02 /* the same while a probe waits for a library */
#define MAX_BACKLOG_BYTES (64u << 20)

/* Over the rate limit in the current second?  Counts the event. */
static bool over_rate(struct session *s)
{
	double now;

	if (!s->rate_limit)
		return false;
	now = now_seconds();
	if (now - s->rate_window >= 1.0) {
		s->rate_window = now;
		s->rate_count = 0;
	}
	return ++s->rate_count > s->rate_limit;
}

/* A backtrace the kernel handed over (a frame in a mapping it did not
 * know yet) is finished here, before anything sees the event. */
static void finish_backtraces(struct session *s, struct event *ev)
{
	for (size_t i = 0; i < ev->n_items; i++) {
		struct ev_backtrace *bt = &ev->items[i].bt;

		if (ev->items[i].type != WR_ITEM_BACKTRACE || !bt->stack)
			continue;
		if (!s->finished)
			s->finished = xcalloc(WR_BT_MAX_DEPTH, sizeof(*s->finished));
		target_finish_backtrace(s->target, ev->hdr.pid, bt, s->finished);
		return; /* one per event */
	}
}

/* A bt with frame values whose event came without the stack copy, for
 * a reason the kernel did not give or a decoding error: its marker says
 * so, and -v says what the event held, for the next occurrence to tell. */
static void log_missing_copy(const struct event *ev)
{
	for (size_t i = 0; i < ev->n_items; i++) {
		const struct ev_backtrace *bt = &ev->items[i].bt;

		if (ev->items[i].type != WR_ITEM_BACKTRACE ||
		    (bt->no_stack != EV_STACK_LOST && bt->no_stack != EV_STACK_NOT_TRIED))
			continue;
		wr_debug("event of probe %u, thread %u: backtrace %u (%s, %u frames, flags 0x%x) "
			 "came without its stack copy (%s); the event's flags 0x%x, payload %u "
			 "bytes, %u items", (unsigned)ev->hdr.probe_id, (unsigned)ev->hdr.tid,
			 (unsigned)bt->index, bt_status_label(bt->status), (unsigned)bt->frame_count,
			 (unsigned)bt->flags,
			 bt->no_stack == EV_STACK_LOST ? "the kernel attached it" : "the kernel did not",
			 (unsigned)ev->hdr.flags, (unsigned)ev->hdr.payload_len,
			 (unsigned)ev->hdr.n_items);
	}
}

static void render_one(struct session *s, const void *data, size_t size)
{
	struct probe *p;
	struct event ev;

	if (event_decode(&s->decoder, data, size, &ev)) {
		s->malformed++;
		return;
	}
	p = ev.hdr.probe_id < WR_MAX_PROBES ? s->wire[ev.hdr.probe_id].probe : NULL;
	if (!p)
		return; /* a probe deleted while its events were in flight */
	finish_backtraces(s, &ev);
	log_missing_copy(&ev);
	/* Rendering is the cost the limit saves: a suppressed event is only
	 * counted (and rendered only when the diagnosis needs its text). */
	if (over_rate(s) && !probe_needs_text(p, &ev)) {
		s->suppressed++;
		probe_count_event(p, &ev, NULL);
		return;
	}
	span_list_reset(&s->spans);
	recover_reads(&s->recover, &ev);
	render_event(&s->renderer, &ev, &s->spans);
	if (probe_count_event(p, &ev, &s->spans))
		s->refresh_wanted = true;
	s->events++;
	if (s->budget != UINT64_MAX)
		s->budget--;
	if (s->sink.event)
		s->sink.event(s->sink.ctx, &s->spans);
}

static void on_event(const void *data, size_t size, void *ctx)
{
	struct session *s = ctx;
	uint32_t len = (uint32_t)size;

	if (s->opt.max_events && s->events >= s->opt.max_events)
		return; /* beyond --max-events: not shown */
	if (s->budget == 0 || s->backlog_pos < s->backlog->len) {
		/* Keep it, in order, for a later poll; a bounded amount. */
		if (s->backlog->len >= MAX_BACKLOG_BYTES) {
			s->backlog_dropped++;
			return;
		}
		strbuf_add(s->backlog, &len, sizeof(len));
		strbuf_add(s->backlog, data, size);
		return;
	}
	render_one(s, data, size);
}

/* Render what earlier polls kept back, within the budget. */
static int drain_backlog(struct session *s)
{
	int n = 0;

	while (s->backlog_pos < s->backlog->len && s->budget &&
	       !(s->opt.max_events && s->events >= s->opt.max_events)) {
		uint32_t len;

		memcpy(&len, s->backlog->buf + s->backlog_pos, sizeof(len));
		render_one(s, s->backlog->buf + s->backlog_pos + sizeof(len), len);
		s->backlog_pos += sizeof(len) + len;
		n++;
	}
	if (s->backlog_pos >= s->backlog->len) {
		strbuf_reset(s->backlog);
		s->backlog_pos = 0;
	}
	return n;
}

void session_set_rate_limit(struct session *s, uint64_t per_sec)
{
	s->rate_limit = per_sec;
}

void session_set_budget(struct session *s, uint64_t n)
{
	s->budget = n;
}

bool session_backlog_waiting(const struct session *s)
{
	return s->backlog_pos < s->backlog->len;
}

void session_set_sink(struct session *s, const struct session_sink *sink)
{
	s->sink = sink ? *sink : (struct session_sink){ NULL, NULL };
}

/* Modules the target learnt of since the last look (by a refresh, or
 * while finishing a backtrace) may define the functions of probes. */
static void follow_new_modules(struct session *s)
{
	size_t seen = s->mods_seen;

	s->mods_seen = target_module_count(s->target);
	if (seen < s->mods_seen)
		session_follow_libraries(s, seen);
}

static void maybe_refresh(struct session *s)
{
	double now = now_seconds();

	/* While a probe waits for a library, look more often. */
	if (s->refresh_wanted ||
	    now - s->last_refresh >= (s->n_pending ? PENDING_REFRESH_INTERVAL : REFRESH_INTERVAL)) {
		s->refresh_wanted = false;
		s->last_refresh = now;
		target_refresh(s->target);
	}
	target_install_deferred(s->target);
	follow_new_modules(s);
}

int session_poll(struct session *s, int timeout_ms)
{
	uint64_t before = s->events;
	int n;

	if (drain_backlog(s) > 0 && s->budget == 0)
		return (int)(s->events - before);
	if (!s->rt) {
		struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return 0;
	}
	n = runtime_poll(s->rt, timeout_ms, on_event, s);
	maybe_refresh(s);
	if (n < 0 && n != -EINTR)
		return n;
	return n == -EINTR ? -EINTR : (int)(s->events - before);
}

int session_read_buffered(struct session *s)
{
	int n;

	if (!s->rt || (s->opt.max_events && s->events >= s->opt.max_events))
		return 0;
	n = runtime_read_buffered(s->rt, on_event, s);
	return n == -EINTR ? 0 : n;
}

int session_event_fd(struct session *s)
{
	return s->rt ? runtime_event_fd(s->rt) : -1;
}

bool session_target_exited(const struct session *s)
{
	return target_pid(s->target) > 0 && target_process_count(s->target) == 0;
}

uint64_t session_events(const struct session *s)
{
	return s->events;
}

void session_end_text(const struct session *s, struct strbuf *out)
{
	const struct target *t = s->target;

	if (target_ended(t))
		strbuf_addstr(out, target_ended(t));
	else if (target_tid(t) > 0)
		strbuf_addf(out, "thread %d of process %d exited", (int)target_tid(t), (int)target_pid(t));
	else
		strbuf_addf(out, "process %d exited", (int)target_pid(t));
}

bool session_done(const struct session *s)
{
	return (s->opt.max_events && s->events >= s->opt.max_events) || session_target_exited(s);
}

void session_losses(struct session *s, struct session_losses *out)
{
	*out = (struct session_losses){
		.lost = s->rt ? runtime_transport_lost(s->rt) : 0,
		.dropped = s->backlog_dropped, .malformed = s->malformed, .suppressed = s->suppressed,
	};
	for (size_t i = 0; i < s->n_probes; i++) {
		struct session_probe_stats st;

		session_probe_stats(s, s->probes[i], &st);
		out->lost += st.lost;
		out->truncated += st.truncated;
	}
}
