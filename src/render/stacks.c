/* stacks.c - counted stacks as folded stacks and as a top-stacks listing
 * (see stacks.h); the pprof profile is in pprof.c.
 *
 * Both walk a stack the same way, innermost frame first: the names of a
 * physical frame (its inlined calls first), then the functions that
 * tail-called out between it and its caller.  Folded lines read the other
 * way round, outermost first, so they are built leaf-first and reversed.
 */
#include "render/stacks.h"
#include "render/stacks_priv.h"
#include "render/status.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void stack_set_release(struct stack_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* ---- naming frames ---- */

static void name_add(struct name_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void name_add(struct name_list *l, const char *fmt, ...)
{
	va_list ap;

	l->off = xgrow(l->off, &l->cap, l->n + 1, sizeof(*l->off));
	l->off[l->n++] = l->text.len;
	va_start(ap, fmt);
	strbuf_vaddf(&l->text, fmt, ap);
	va_end(ap);
	strbuf_addch(&l->text, '\0');
}

void name_list_release(struct name_list *l)
{
	strbuf_release(&l->text);
	free(l->off);
	memset(l, 0, sizeof(*l));
}

/* The name of a frame nothing is known of but where it is. */
static void unnamed(struct name_list *l, const struct wr_bt_frame *f, const struct render_frame *rf)
{
	if (rf->module_name)
		name_add(l, "%s+0x%" PRIx32, rf->module_name, f->pc);
	else
		name_add(l, "0x%" PRIx64, (uint64_t)f->ip);
}

/* Names of physical frame @i of @st, innermost first, then of the
 * functions that tail-called out between it and its caller. */
static void frame_names(const struct wr_count_stack *st, unsigned i, const struct render_hooks *h,
			struct name_list *l)
{
	struct render_frame rf = { 0 }, tails[STACKS_MAX_TAILS];
	bool show_inline = st->h.flags & WR_BT_F_INLINE;
	size_t n;

	h->frame(h->ctx, &st->frames[i], &rf);
	if (rf.signal_trampoline)
		name_add(l, "<signal handler called>");
	else if (!rf.sym.n || !rf.sym.frames[rf.sym.n - 1].function)
		unnamed(l, &st->frames[i], &rf);
	else
		for (size_t k = show_inline ? 0 : rf.sym.n - 1; k < rf.sym.n; k++)
			name_add(l, "%s", rf.sym.frames[k].function ? rf.sym.frames[k].function : "??");
	if (!h->tailcalls || i + 1 >= st->h.frame_count)
		return;
	n = h->tailcalls(h->ctx, &st->frames[i], &st->frames[i + 1], tails, STACKS_MAX_TAILS);
	for (size_t k = 0; k < n; k++)
		name_add(l, "%s", tails[k].sym.n && tails[k].sym.frames[0].function
				  ? tails[k].sym.frames[0].function : "??");
}

bool stack_stopped(const struct stack_sample *smp, struct strbuf *out)
{
	const struct wr_bt_header *h = smp->stack ? &smp->stack->h : NULL;

	if (!h || h->status == WR_BT_COMPLETE)
		return false;
	strbuf_addf(out, "[stopped: %s", bt_status_label(h->status));
	if (h->error_code)
		strbuf_addf(out, ", %s", bt_error_label(h->error_code));
	strbuf_addch(out, ']');
	return true;
}

void stack_frame_names(const struct stack_sample *smp, const struct render_hooks *h,
		       struct name_list *l)
{
	l->n = 0;
	strbuf_reset(&l->text);
	if (!smp->stack) {
		name_add(l, "[stack not kept]");
		return;
	}
	for (unsigned i = 0; i < smp->stack->h.frame_count && i < WR_COUNT_MAX_DEPTH; i++)
		frame_names(smp->stack, i, h, l);
	if (!smp->stack->h.frame_count)
		name_add(l, "[no frames]");
}

void stack_names(const struct stack_sample *smp, const struct render_hooks *h, struct name_list *l)
{
	struct strbuf marker = STRBUF_INIT;

	stack_frame_names(smp, h, l);
	if (stack_stopped(smp, &marker))
		name_add(l, "%s", marker.buf);
	strbuf_release(&marker);
}

/* ---- folded ---- */

struct folded_line {
	char *text;      /* owned: the stack, without the count */
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

/* Element separators and line ends inside a name would split it. */
static void add_folded_name(struct strbuf *sb, const char *name)
{
	for (const char *c = name; *c; c++)
		strbuf_addch(sb, *c == ';' ? ':' : *c == '\n' ? ' ' : *c);
}

static char *folded_text(const struct stack_sample *smp, const struct name_list *l)
{
	struct strbuf sb = STRBUF_INIT;

	if (smp->key_text)
		strbuf_addf(&sb, "%s=%" PRId64 ";", smp->key_text, smp->key);
	for (size_t i = l->n; i-- > 0;) {
		add_folded_name(&sb, l->text.buf + l->off[i]);
		if (i)
			strbuf_addch(&sb, ';');
	}
	return strbuf_detach(&sb);
}

void stacks_write_folded(const struct stack_set *set, const struct render_hooks *hooks,
			 struct strbuf *out)
{
	struct folded_line *lines = xcalloc(set->n + 1, sizeof(*lines));
	struct name_list names = { .text = STRBUF_INIT };
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++) {
		stack_names(&set->v[i], hooks, &names);
		lines[i].text = folded_text(&set->v[i], &names);
		lines[i].count = set->v[i].count;
	}
	if (set->n)
		qsort(lines, set->n, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < set->n; i = n) {
		uint64_t count = 0;

		for (n = i; n < set->n && !strcmp(lines[n].text, lines[i].text); n++)
			count += lines[n].count;
		strbuf_addf(out, "%s %" PRIu64 "\n", lines[i].text, count);
	}
	for (size_t i = 0; i < set->n; i++)
		free(lines[i].text);
	free(lines);
	name_list_release(&names);
}

/* ---- NDJSON ---- */

static void json_status(const struct stack_sample *smp, struct strbuf *out)
{
	const struct wr_bt_header *h = smp->stack ? &smp->stack->h : NULL;

	if (!h) {
		strbuf_addstr(out, ",\"status\":null,\"status_code\":null,\"error\":null,"
			      "\"error_code\":null");
		return;
	}
	strbuf_addstr(out, ",\"status\":");
	strbuf_add_json_str(out, bt_status_label(h->status));
	strbuf_addf(out, ",\"status_code\":%u,\"error\":", h->status);
	strbuf_add_json_str(out, bt_error_label(h->error_code));
	strbuf_addf(out, ",\"error_code\":%u", h->error_code);
}

static void json_stack(const struct stack_set *set, const struct stack_sample *smp,
		       const struct name_list *names, struct strbuf *out)
{
	strbuf_addf(out, "{\"type\":\"stack\",\"version\":%u,\"probe\":%u,\"target\":",
		    STACKS_JSON_VERSION, smp->probe);
	strbuf_add_json_str(out, smp->target ? smp->target : "");
	if (smp->key_text) {
		strbuf_addstr(out, ",\"key_expr\":");
		strbuf_add_json_str(out, smp->key_text);
		strbuf_addf(out, ",\"key\":%" PRId64, smp->key);
	}
	strbuf_addf(out, ",\"count\":%" PRIu64 ",\"share\":%.6f", smp->count,
		    set->total ? (double)smp->count / (double)set->total : 0.0);
	json_status(smp, out);
	strbuf_addstr(out, ",\"frames\":[");
	for (size_t k = 0; k < names->n; k++) {
		if (k)
			strbuf_addch(out, ',');
		strbuf_add_json_str(out, names->text.buf + names->off[k]);
	}
	strbuf_addstr(out, "]}\n");
}

void stacks_write_json(const struct stack_set *set, const struct render_hooks *hooks,
		       struct strbuf *out)
{
	struct name_list names = { .text = STRBUF_INIT };

	for (size_t i = 0; i < set->n; i++) {
		stack_frame_names(&set->v[i], hooks, &names);
		json_stack(set, &set->v[i], &names, out);
	}
	name_list_release(&names);
}

/* ---- the top stacks ---- */

static void top_header(const struct stack_set *set, struct strbuf *out)
{
	strbuf_addf(out, "counted stacks: %zu distinct, %" PRIu64 " hit%s", set->n, set->total,
		    set->total == 1 ? "" : "s");
	if (set->dropped)
		strbuf_addf(out, "; %" PRIu64 " not counted: the stack maps were full (--stack-entries)",
			    set->dropped);
	strbuf_addch(out, '\n');
}

void stacks_write_top(const struct stack_set *set, const struct render_hooks *hooks, size_t max,
		      struct strbuf *out)
{
	struct name_list names = { .text = STRBUF_INIT };

	top_header(set, out);
	for (size_t i = 0; i < set->n && i < max; i++) {
		const struct stack_sample *smp = &set->v[i];

		strbuf_addf(out, "%" PRIu64 " (%.1f%%) #%u %s", smp->count,
			    set->total ? 100.0 * (double)smp->count / (double)set->total : 0.0, smp->probe,
			    smp->target ? smp->target : "?");
		if (smp->key_text)
			strbuf_addf(out, " %s=%" PRId64, smp->key_text, smp->key);
		strbuf_addch(out, '\n');
		stack_names(smp, hooks, &names);
		for (size_t k = 0; k < names.n; k++)
			strbuf_addf(out, "  %s\n", names.text.buf + names.off[k]);
	}
	if (set->n > max)
		strbuf_addf(out, "... and %zu more stack%s\n", set->n - max, set->n - max == 1 ? "" : "s");
	name_list_release(&names);
}
