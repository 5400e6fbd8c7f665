/* frame_statics.c - the C++ static data members a frame's value shows
 * (`{static count: 3, x: 1}`, as gdb's bt and print show them), for
 * bt args and bt full.
 *
 * A static member is a variable of its own at a fixed address, not part
 * of the value's bytes, so the stack copy does not hold it.  Its value
 * at the hit comes from: what the probe copied for frame 0's values
 * (print_args_frame_statics(), in WR_ITEM_REFS, by tag), a module's
 * read-only data (it cannot have changed), or, for an outer frame, what
 * the chain's recipe copied at its address (noted for the recipe when it
 * did not: later events of the chain have it).  Else the renderer says
 * <unavailable> (or why the recipe copied nothing): never the memory as
 * it is now.
 */
#include "tracer/frame_values_priv.h"
#include "dwarf/stdlib.h"
#include "dwarf/vars.h"
#include "tracer/target.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STATICS 16        /* static members looked up for one value, as a print copies */
#define MAX_STATIC_STRINGS 8  /* char pointers inside one static member whose strings are read */
#define MAX_STATIC_BYTES 256  /* a static member larger than this is not read (a print's limit) */
#define STRING_BYTES 201      /* gdb's 200 characters and the NUL */

struct fv_statics {
	struct ev_arg holder; /* what render_value_ctx.statics borrows */
	struct ev_arg *m;
	size_t n, cap;
	uint8_t **own;        /* bytes read here, freed with the rest */
	size_t n_own, cap_own;
	unsigned strings;
};

static void add(struct fv_statics *s, const struct ev_arg *a)
{
	s->m = xgrow(s->m, &s->cap, s->n + 1, sizeof(*s->m));
	s->m[s->n++] = *a;
}

static uint8_t *buffer(struct fv_statics *s, size_t n)
{
	s->own = xgrow(s->own, &s->cap_own, s->n_own + 1, sizeof(*s->own));
	return s->own[s->n_own++] = xmalloc(n);
}

/* The copies the probe made at the hit of the static members frame 0's
 * values show (WR_MEM_F_STATIC, and the strings copied with them): any
 * frame's value uses them, they are the memory there at the hit. */
static void add_probe_copies(struct fv_statics *s, const struct ev_backtrace *bt)
{
	for (size_t i = 0; i < bt->n_refs; i++) {
		const struct ev_arg *r = &bt->refs[i];
		bool statics = false;

		for (size_t k = 0; k < r->n_attach && !statics; k++)
			statics = r->attach[k].kind == WR_ARG_MEM && (r->attach[k].aux & WR_MEM_F_STATIC);
		for (size_t k = 0; statics && k < r->n_attach; k++)
			if (r->attach[k].kind == WR_ARG_MEM)
				add(s, &r->attach[k]);
	}
}

static bool have(const struct fv_statics *s, uint64_t tag)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->m[i].value == tag && (s->m[i].aux & WR_MEM_F_STATIC))
			return true;
	return false;
}

/* The strings of the char pointers in a static member's bytes @data (of
 * @t), each at its address, where they can be read as bt args reads a
 * char pointer's: a module's read-only data (a literal). */
static void add_strings(struct fv_statics *s, const struct where *c, const struct dw_type *t,
			const uint8_t *data, int depth)
{
	uint64_t p;

	if (!t || depth > 8 || s->strings >= MAX_STATIC_STRINGS)
		return;
	if (t->kind == DW_TYPE_POINTER && !t->is_reference && !t->container && t->target &&
	    t->target->is_char && t->target->size == 1 && t->size == 8) {
		uint8_t *text;
		size_t len;

		memcpy(&p, data, 8);
		if (!p)
			return;
		s->strings++;
		text = buffer(s, STRING_BYTES);
		len = fv_pointed_string(c, p, 1, text, STRING_BYTES);
		if (!len)
			len = fv_outer_string(c->w->bt, p, text, STRING_BYTES);
		if (len)
			add(s, &(struct ev_arg){ .kind = WR_ARG_MEM, .status = WR_ARG_OK, .value = p, .data = text,
						 .len = len });
	} else if (t->kind == DW_TYPE_STRUCT && !t->rust) {
		for (size_t i = 0; i < t->n_members; i++)
			if (!t->members[i].bit_size && !t->members[i].is_virtual && t->members[i].type &&
			    t->members[i].offset + t->members[i].type->size <= t->size)
				add_strings(s, c, t->members[i].type, data + t->members[i].offset, depth + 1);
	} else if (t->kind == DW_TYPE_ARRAY && t->target && t->target->size && t->count <= MAX_STATIC_STRINGS) {
		for (uint64_t i = 0; i < t->count; i++)
			add_strings(s, c, t->target, data + i * t->target->size, depth + 1);
	}
}

/* Static member @st's value at the hit, looked up by its name from the
 * frame's module as gdb finds it: a module's read-only data, or what the
 * chain's recipe copied (an outer frame's; noted for later events). */
static void add_static(struct fv_statics *s, const struct where *c, const struct dw_static *st)
{
	const struct wr_bt_frame *f = &c->w->bt->frames[c->w->i];
	struct tmodule *m = c->t ? target_module_by_cookie(c->t, f->cookie) : NULL;
	struct dw_at at = { .pc = f->pc };
	struct dw_var var;
	uint64_t bias, addr;
	size_t size;
	uint8_t *buf;
	int err;

	if (!m)
		return;
	err = target_find_var(c->t, m, &at, st->qname, &var);
	if (err == -ENOENT) { /* declared, never defined: gdb's <optimized out> */
		add(s, &(struct ev_arg){ .kind = WR_ARG_MEM, .status = WR_ARG_NULL_DEREF, .aux = WR_MEM_F_STATIC,
					 .value = dw_static_tag(st) });
		return;
	}
	if (err || var.loc.kind != DW_LOC_MEM_ADDR || !var.type || !(size = (size_t)var.type->size) ||
	    size > MAX_STATIC_BYTES || !target_module_bias(c->t, (pid_t)c->pid, m, &bias))
		return;
	addr = (uint64_t)var.loc.offset + bias;
	buf = buffer(s, size);
	if (target_read_const(c->t, (pid_t)c->pid, addr, buf, size) != (long)size &&
	    target_read_stable(c->t, (pid_t)c->pid, addr, buf, size) != size) {
		const uint8_t *copy;

		fv_want_static(c->w, addr, var.type);
		copy = fv_outer_bytes(c->w->bt, addr, size);
		if (!copy)
			return;
		memcpy(buf, copy, size);
	}
	add(s, &(struct ev_arg){ .kind = WR_ARG_MEM, .status = WR_ARG_OK, .aux = WR_MEM_F_STATIC,
				 .value = dw_static_tag(st), .data = buf, .len = size });
	add_strings(s, c, var.type, buf, 0);
}

struct fv_statics *fv_statics_new(const struct where *c, const struct dw_type *t)
{
	const struct dw_static *sts[MAX_STATICS];
	size_t n = dw_type_statics(t, false, sts, MAX_STATICS);
	struct fv_statics *s;

	if (!n)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	add_probe_copies(s, c->w->bt);
	for (size_t i = 0; i < n; i++)
		if (!have(s, dw_static_tag(sts[i])))
			add_static(s, c, sts[i]);
	s->holder = (struct ev_arg){ .kind = WR_ARG_U64, .status = WR_ARG_OK, .attach = s->m, .n_attach = s->n };
	return s;
}

const struct ev_arg *fv_statics_arg(const struct fv_statics *s)
{
	return s ? &s->holder : NULL;
}

void fv_statics_free(struct fv_statics *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_own; i++)
		free(s->own[i]);
	free(s->own);
	free(s->m);
	free(s);
}
