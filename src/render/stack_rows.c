/* stack_rows.c - counted stacks as rows of a live view (see stacks.h):
 * sorted by count or by function names, and collapsed by function.
 *
 * Frames are named by stack_names(), as the listing and folded stacks
 * name them.  Collapsing compares the names alone, so stacks that differ
 * only in return addresses (two call sites in one function, a loop the
 * compiler unrolled), in the probe or in the KEY become one row; a frame
 * named by its address counts as its module there.
 */
#include "render/stacks.h"
#include "render/stacks_priv.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void stack_rows_release(struct stack_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		free(rows->v[i].frames);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

/* A frame named `module+0xpc` or `0xIP` as collapsing sees it. */
static void add_collapsed_name(struct strbuf *sb, const char *name)
{
	const char *plus = strstr(name, "+0x");

	if (!strncmp(name, "0x", 2))
		strbuf_addstr(sb, "??");
	else if (plus && plus[3] && strspn(plus + 3, "0123456789abcdef") == strlen(plus + 3))
		strbuf_add(sb, name, (size_t)(plus - name));
	else
		strbuf_addstr(sb, name);
}

static char *frames_text(const struct name_list *l, bool collapse)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t k = 0; k < l->n; k++) {
		const char *name = l->text.buf + l->off[k];
		size_t at = sb.len;

		if (collapse)
			add_collapsed_name(&sb, name);
		else
			strbuf_addstr(&sb, name);
		for (size_t i = at; i < sb.len; i++)
			if (sb.buf[i] == '\n')
				sb.buf[i] = ' ';
		if (k + 1 < l->n)
			strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

static int cmp_frames(const void *a, const void *b)
{
	return strcmp(((const struct stack_row *)a)->frames, ((const struct stack_row *)b)->frames);
}

static int cmp_count(const void *a, const void *b)
{
	const struct stack_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->frames, y->frames);
}

static int cmp_name(const void *a, const void *b)
{
	const struct stack_row *x = a, *y = b;
	int c = strcmp(x->frames, y->frames);

	if (c)
		return c;
	return x->count > y->count ? -1 : x->count < y->count;
}

/* Merge rows with equal frames (sorted by frames first). */
static void collapse_rows(struct stack_rows *r)
{
	size_t n = 0;

	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), cmp_frames);
	for (size_t i = 0; i < r->n; i++) {
		struct stack_row *to = n ? &r->v[n - 1] : NULL;

		if (!to || strcmp(to->frames, r->v[i].frames)) {
			r->v[n++] = r->v[i];
			continue;
		}
		to->count += r->v[i].count;
		to->merged += r->v[i].merged;
		if (to->probe != r->v[i].probe) {
			to->probe = 0;
			to->target = NULL;
		}
		if (!to->key_text || !r->v[i].key_text || strcmp(to->key_text, r->v[i].key_text) ||
		    to->key != r->v[i].key)
			to->key_text = NULL;
		free(r->v[i].frames);
	}
	r->n = n;
}

void stack_rows_build(const struct stack_set *set, const struct render_hooks *hooks,
		      enum stacks_order order, bool collapse, struct stack_rows *out)
{
	struct name_list names = { .text = STRBUF_INIT };

	stack_rows_release(out);
	out->v = xcalloc(set->n + 1, sizeof(*out->v));
	for (size_t i = 0; i < set->n; i++) {
		const struct stack_sample *smp = &set->v[i];

		stack_names(smp, hooks, &names);
		out->v[out->n++] = (struct stack_row){
			.count = smp->count, .probe = smp->probe, .target = smp->target,
			.status = smp->stack ? smp->stack->h.status : -1,
			.key_text = smp->key_text, .key = smp->key, .merged = 1,
			.frames = frames_text(&names, collapse),
		};
	}
	name_list_release(&names);
	out->total = set->total;
	out->dropped = set->dropped;
	if (collapse)
		collapse_rows(out);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), order == STACKS_BY_NAME ? cmp_name : cmp_count);
}
