/* probe.c - a probe's own bookkeeping: what it was made from, the types
 * of the values it prints, and what its events said (counters by status
 * and error code, the places where backtraces stopped early).  Loading and
 * attaching its sites is the session's business (session.c).
 */
#include "tracer/session_priv.h"
#include "render/status.h"
#include "script/walk.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>

#define MAX_STOP_PLACES 64

/* The KEY of each `count bt`, as script text, for what counted stacks
 * are labelled with. */
static void note_count_keys(struct probe *p)
{
	p->n_count_keys = ast_probe_count(p->ast, AST_STMT_COUNT);
	p->count_keys = xcalloc(p->n_count_keys + 1, sizeof(*p->count_keys));
	for (size_t i = 0; i < p->n_count_keys; i++) {
		const struct ast_stmt *s = ast_probe_nth(p->ast, AST_STMT_COUNT, i);
		struct strbuf sb = STRBUF_INIT;

		if (!s || !s->value)
			continue;
		ast_expr_text(s->value, &sb);
		p->count_keys[i] = strbuf_detach(&sb);
	}
}

struct probe *probe_new(unsigned id, struct ast_probe *ast)
{
	struct probe *p = xcalloc(1, sizeof(*p));

	p->script = xcalloc(1, sizeof(*p->script));
	p->script->probes = xcalloc(1, sizeof(*p->script->probes));
	p->script->probes[0] = ast;
	p->script->n_probes = 1;
	p->ast = ast;
	p->id = id;
	p->target_text = xstrdup(ast->target.text);
	p->source = xasprintf("trace %s {%s}", ast->target.text, ast->body_text ? ast->body_text : "");
	p->enabled = true;
	p->render.id = p->id;
	p->render.target = p->target_text;
	p->render.ast = ast;
	note_count_keys(p);
	return p;
}

void probe_free(struct probe *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_sites; i++)
		probe_site_release(&p->sites[i]);
	for (size_t i = 0; i < p->n_skipped; i++)
		free(p->skipped[i]);
	free(p->skipped);
	for (size_t i = 0; i < p->n_stops; i++)
		free(p->stops[i].sample);
	free(p->stops);
	for (size_t i = 0; i < p->n_count_keys; i++)
		free(p->count_keys[i]);
	free(p->count_keys);
	free(p->arg_types);
	free(p->sites);
	free(p->target_text);
	free(p->pattern);
	free(p->source);
	ast_script_free(p->script);
	free(p);
}

void probe_site_release(struct probe_site *site)
{
	free(site->where.function);
	free(site->where.file);
	free(site->place_note);
	free(site->notes);
	free(site->args);
	site->where.function = site->where.file = site->place_note = site->notes = NULL;
	site->args = NULL;
	site->n_args = site->cap_args = 0;
}

void probe_note_skipped(struct probe *p, char *text)
{
	p->skipped = xrealloc(p->skipped, (p->n_skipped + 1) * sizeof(*p->skipped));
	p->skipped[p->n_skipped++] = text;
}

void probe_note_arg_type(struct probe *p, unsigned print, unsigned arg, const struct dw_type *t,
			 struct dw_module *module)
{
	for (size_t i = 0; i < p->n_arg_types; i++)
		if (p->arg_types[i].print == print && p->arg_types[i].arg == arg)
			return;
	p->arg_types = xgrow(p->arg_types, &p->cap_arg_types, p->n_arg_types + 1,
			     sizeof(*p->arg_types));
	p->arg_types[p->n_arg_types++] = (struct render_arg_type){ (uint16_t)print, (uint16_t)arg, t, NULL,
									     module };
	p->render.arg_types = p->arg_types;
	p->render.n_arg_types = p->n_arg_types;
}

/* ---- what events said ---- */

static bool stopped_early(const struct ev_backtrace *bt)
{
	return bt->status != WR_BT_COMPLETE && bt->status != WR_BT_TRUNCATED;
}

/* The stop place @bt ends at, or NULL if it is not known yet. */
static struct stop_place *find_stop(const struct probe *p, const struct ev_backtrace *bt)
{
	const struct wr_bt_frame *last = bt->frame_count ? &bt->frames[bt->frame_count - 1] : NULL;
	uint64_t cookie = last ? last->cookie : 0, pc = last ? ev_frame_pc(last) : 0;

	for (size_t i = 0; i < p->n_stops; i++) {
		struct stop_place *sp = &p->stops[i];

		if (sp->cookie == cookie && sp->pc == pc && sp->status == bt->status &&
		    sp->error == bt->error)
			return sp;
	}
	return NULL;
}

bool probe_needs_text(const struct probe *p, const struct event *ev)
{
	for (size_t i = 0; i < ev->n_items; i++)
		if (ev->items[i].type == WR_ITEM_BACKTRACE && stopped_early(&ev->items[i].bt) &&
		    !find_stop(p, &ev->items[i].bt) && p->n_stops < MAX_STOP_PLACES)
			return true;
	return false;
}

/* The event as plain text, for the diagnosis view's sample ("" when it
 * was not rendered). */
static char *sample_text(const struct span_list *spans)
{
	struct strbuf sb = STRBUF_INIT;

	if (spans)
		span_write_text(spans, SPAN_COLOR_NONE, &sb);
	return strbuf_detach(&sb);
}

static void note_stop(struct probe *p, const struct ev_backtrace *bt, const struct span_list *spans)
{
	const struct wr_bt_frame *last = bt->frame_count ? &bt->frames[bt->frame_count - 1] : NULL;
	uint64_t cookie = last ? last->cookie : 0, pc = last ? ev_frame_pc(last) : 0;
	struct stop_place *sp = find_stop(p, bt);

	if (sp) {
		sp->count++;
		return;
	}
	if (p->n_stops >= MAX_STOP_PLACES)
		return;
	p->stops = xgrow(p->stops, &p->cap_stops, p->n_stops + 1, sizeof(*p->stops));
	p->stops[p->n_stops++] = (struct stop_place){
		.cookie = cookie, .pc = pc, .status = bt->status, .error = bt->error, .count = 1,
		.exact = last && (last->flags & WR_FRAME_F_EXACT_IP), .sample = sample_text(spans),
	};
}

bool probe_count_event(struct probe *p, const struct event *ev, const struct span_list *spans)
{
	bool unknown_module = false;

	p->counts.events++;
	for (size_t i = 0; i < ev->n_items; i++) {
		const struct ev_backtrace *bt = &ev->items[i].bt;

		if (ev->items[i].type != WR_ITEM_BACKTRACE)
			continue;
		p->counts.backtraces++;
		if (bt->status < WR_BT_STATUS_COUNT_)
			p->counts.by_status[bt->status]++;
		if (bt->error < WR_BTE_COUNT_)
			p->counts.by_error[bt->error]++;
		if (bt->status == WR_BT_OFFSETS_UNAVAILABLE)
			unknown_module = true;
		if (stopped_early(bt))
			note_stop(p, bt, spans);
	}
	return unknown_module;
}

/* ---- accessors (probe.h) ---- */

unsigned probe_id(const struct probe *p)
{
	return p->id;
}

const char *probe_pattern(const struct probe *p)
{
	return p->pattern;
}

const char *probe_target(const struct probe *p)
{
	return p->target_text;
}

const char *probe_source(const struct probe *p)
{
	return p->source;
}

bool probe_enabled(const struct probe *p)
{
	return p->enabled;
}

size_t probe_site_count(const struct probe *p)
{
	return p->n_sites;
}

const char *probe_site_file(const struct probe *p, size_t i, unsigned *line)
{
	const struct dw_site *w = &p->sites[i].where;

	*line = w->file ? w->line : 0;
	return w->file;
}

uint64_t probe_events(const struct probe *p)
{
	return p->counts.events;
}

uint64_t probe_backtraces(const struct probe *p)
{
	return p->counts.backtraces;
}

uint64_t probe_counted(const struct probe *p)
{
	return p->counts.counted;
}

_Static_assert(WR_BT_STATUS_COUNT_ <= PROBE_BT_ENDS_MAX && WR_BTE_COUNT_ <= PROBE_BT_ENDS_MAX,
	       "every status and error code has room");

size_t probe_bt_statuses(const struct probe *p, struct probe_bt_end *out)
{
	const struct probe_counts *c = &p->counts;
	size_t n = 0;

	for (unsigned i = 0; i < WR_BT_STATUS_COUNT_; i++) {
		uint64_t k = c->by_status[i] + c->counted_by_status[i];

		if (k || i == WR_BT_COMPLETE)
			out[n++] = (struct probe_bt_end){ i, bt_status_label(i), bt_status_explain(i), k };
	}
	return n;
}

size_t probe_bt_errors(const struct probe *p, struct probe_bt_end *out)
{
	const struct probe_counts *c = &p->counts;
	size_t n = 0;

	for (unsigned i = 1; i < WR_BTE_COUNT_; i++) {
		uint64_t k = c->by_error[i] + c->counted_by_error[i];

		if (k)
			out[n++] = (struct probe_bt_end){ i, bt_error_label(i), bt_error_explain(i), k };
	}
	return n;
}

uint64_t probe_bt_truncated(const struct probe *p)
{
	return p->counts.by_status[WR_BT_TRUNCATED] + p->counts.counted_by_status[WR_BT_TRUNCATED];
}

const struct stop_place *probe_stop_places(const struct probe *p, size_t *n)
{
	*n = p->n_stops;
	return p->stops;
}
