/* render.c - an event as spans: the header, then each item (print.c,
 * backtrace.c), in the shapes render.h describes.
 *
 * pretty: a header line `[time] #probe pid/tid target`, then each item's
 *         lines indented by two spaces;
 * plain:  the item lines only.
 * Either way every JSON field is there as data, so the front end picks the
 * writer: text (plain or ANSI), the shell's panel, or NDJSON.
 */
#include "render/render_priv.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void renderer_init(struct renderer *r, enum render_format format, const struct render_hooks *hooks)
{
	struct timespec mono, real;

	memset(r, 0, sizeof(*r));
	r->format = format;
	r->limits = RENDER_LIMITS_GDB;
	r->hooks = *hooks;
	strbuf_init(&r->scratch);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	r->start_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	r->mono_to_real_ns = ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000000ll +
			     ((int64_t)real.tv_nsec - (int64_t)mono.tv_nsec);
}

void renderer_release(struct renderer *r)
{
	strbuf_release(&r->scratch);
	render_lines_free(r->lines);
	r->lines = NULL;
}

const char *render_base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

/* ---- the header ---- */

/* "[hh:mm:ss.mmm]" of @ns (wall clock): the local time of a second is
 * worked out once, as events come many a second. */
static void wall_time_span(struct renderer *r, int64_t ns, struct span_list *out)
{
	time_t secs = (time_t)(ns / 1000000000ll);
	char text[sizeof("[hh:mm:ss.mmm]")];
	unsigned ms = (unsigned)((ns / 1000000) % 1000);

	if (!r->clock_valid || secs != r->clock_secs) {
		struct tm tm;

		localtime_r(&secs, &tm);
		snprintf(r->clock_text, sizeof(r->clock_text), "%02d:%02d:%02d", tm.tm_hour % 100,
			 tm.tm_min % 100, tm.tm_sec % 100);
		r->clock_secs = secs;
		r->clock_valid = true;
	}
	text[0] = '[';
	memcpy(text + 1, r->clock_text, 8);
	text[9] = '.';
	text[10] = (char)('0' + ms / 100);
	text[11] = (char)('0' + ms / 10 % 10);
	text[12] = (char)('0' + ms % 10);
	text[13] = ']';
	text[14] = '\0';
	span_addn(out, SPAN_TIME, SPAN_TONE_NONE, text, 14, NULL, 0);
}

static void time_span(struct renderer *r, const struct event *ev, struct span_list *out)
{
	if (r->relative_time) {
		span_showf(out, SPAN_TIME, SPAN_TONE_NONE, "[+%.6f]",
			   (double)(ev->hdr.timestamp_ns - r->start_ns) / 1e9);
		return;
	}
	wall_time_span(r, (int64_t)ev->hdr.timestamp_ns + r->mono_to_real_ns, out);
}

/* `[time] #probe pid/tid target`, shown in pretty format; the same facts
 * as data in JSON's order (seq, probe, target, pid, tid, timestamp_ns). */
static void header_spans(struct renderer *r, const struct render_probe *probe,
			 const struct event *ev, struct span_list *out)
{
	bool shown = r->format != RENDER_PLAIN;
	const char *target = probe ? probe->target : NULL;
	char id[STRBUF_U64_MAX + 1];
	size_t id_len;

	id[0] = '#';
	id_len = 1 + fmt_u64(id + 1, probe ? probe->id : ev->hdr.probe_id);
	span_open(out, SPAN_HEADER);
	span_data_u64(out, SPAN_SEQ, r->seq);
	if (shown) {
		time_span(r, ev, out);
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, " ", NULL);
	}
	span_addn(out, SPAN_PROBE, SPAN_TONE_NONE, shown ? id : NULL, id_len, id + 1, id_len - 1);
	if (target)
		span_add(out, SPAN_TARGET, SPAN_TONE_NONE, NULL, target);
	else
		span_null(out, SPAN_TARGET);
	if (shown)
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, " ", NULL);
	span_data_u64(out, SPAN_PID, ev->hdr.pid);
	span_data_u64(out, SPAN_TID, ev->hdr.tid);
	span_data_u64(out, SPAN_TIMESTAMP, ev->hdr.timestamp_ns);
	if (shown) {
		span_show_u64(out, SPAN_PID, SPAN_TONE_NONE, ev->hdr.pid);
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, "/", NULL);
		span_show_u64(out, SPAN_TID, SPAN_TONE_NONE, ev->hdr.tid);
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, " ", NULL);
		span_add(out, SPAN_TARGET, SPAN_TONE_NONE, target ? target : "?", NULL);
	}
	if (ev->hdr.flags & WR_EVENT_F_TRUNCATED)
		span_add(out, SPAN_TRUNCATED, SPAN_TONE_NONE,
			 shown ? " (truncated: the event exceeded its size limit)" : NULL, "true");
	if (shown)
		span_eol(out);
	span_close(out);
}

/* ---- the event ---- */

static void item_spans(struct renderer *r, const struct render_probe *probe,
		       const struct wr_event_header *hdr, const struct ev_item *it, struct span_list *out)
{
	const char *indent = r->format == RENDER_PLAIN ? "" : "  ";

	span_open(out, SPAN_ITEM);
	if (it->type == WR_ITEM_PRINT) {
		render_print(r, probe, hdr->pid, &it->print, indent, out);
	} else if (it->type == WR_ITEM_BACKTRACE) {
		render_backtrace(r, hdr->pid, hdr->probe_id, &it->bt, indent, out);
	} else if (it->type == WR_ITEM_EXPR_ERROR) {
		render_expr_error(r, probe, &it->xerr, indent, out);
	} else {
		span_add(out, SPAN_TYPE, SPAN_TONE_NONE, NULL, "unknown");
		span_dataf(out, SPAN_CODE, "%u", it->type);
	}
	span_close(out);
}

void render_event(struct renderer *r, const struct event *ev, struct span_list *out)
{
	const struct render_probe *probe = r->hooks.probe(r->hooks.ctx, ev->hdr.probe_id);

	r->seq++;
	span_open(out, SPAN_EVENT);
	span_data_u64(out, SPAN_VERSION, RENDER_JSON_VERSION);
	header_spans(r, probe, ev, out);
	span_open(out, SPAN_ITEMS);
	for (size_t i = 0; i < ev->n_items; i++)
		item_spans(r, probe, &ev->hdr, &ev->items[i], out);
	span_close(out);
	span_close(out);
}
