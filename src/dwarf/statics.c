/* statics.c - the C++ static data members a printed value shows (see
 * stdlib.h: dw_type_statics()): the probe copies each at the hit, where
 * it prints the value or frame 0's values, and a backtrace's frames look
 * them up for their values; both walk the type the same way, here.
 */
#include "dwarf/stdlib.h"

#include <string.h>

#define MAX_DEPTH 8

struct statics_walk {
	bool raw;
	const struct dw_static **out;
	size_t n, max;
};

static bool seen(const struct statics_walk *w, const struct dw_static *st)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->out[i]->qname, st->qname))
			return true;
	return false;
}

static void walk(struct statics_walk *w, const struct dw_type *t, int depth)
{
	struct dw_std s;

	if (!t || depth > MAX_DEPTH || w->n >= w->max)
		return;
	if (t->kind == DW_TYPE_ARRAY) {
		walk(w, t->target, depth + 1);
		return;
	}
	if ((t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION) || t->rust)
		return;
	if (!w->raw && dw_std_recognize(t, &s)) {
		/* the printer shows the elements, not the library's members */
		walk(w, s.elem, depth + 1);
		for (unsigned i = 0; i < s.n_alts; i++)
			walk(w, s.alt[i], depth + 1);
		return;
	}
	for (size_t i = 0; i < t->n_statics && w->n < w->max; i++) {
		const struct dw_static *st = &t->statics[i];

		if (st->has_const || !st->type || seen(w, st))
			continue;
		w->out[w->n++] = st;
		walk(w, st->type, depth + 1);
	}
	for (size_t i = 0; i < t->n_members; i++)
		if (!t->members[i].bit_size)
			walk(w, t->members[i].type, depth + 1);
}

size_t dw_type_statics(const struct dw_type *t, bool raw, const struct dw_static **out, size_t max)
{
	struct statics_walk w = { .raw = raw, .out = out, .max = max };

	walk(&w, t, 0);
	return w.n;
}
