/* session_hooks.c - what the renderer asks the session (render.h's
 * hooks): a probe's render info for a wire id (a site's own argument
 * types), frames named, tail calls recovered, data symbols, frame values,
 * and which inline frames an exact hit hides.  Each answers from the
 * target; the renderer looks nothing up itself.  Having read an outer
 * frame's values, it writes its call chain's recipe (learn_outer()).
 */
#include "tracer/session_priv.h"
#include "codegen/codegen.h"
#include "dwarf/types.h"
#include "protocol/wire.h"
#include "runtime/runtime.h"
#include "tracer/frame_values.h"
#include "tracer/target.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static const struct render_probe *hook_probe(void *ctx, uint32_t wire_id)
{
	struct session *s = ctx;

	struct probe *p;
	struct probe_site *site;

	if (wire_id >= WR_MAX_PROBES || !(p = s->wire[wire_id].probe))
		return NULL;
	if (s->wire[wire_id].site >= p->n_sites)
		return &p->render;
	/* the probe's, with what this site reads from other frames */
	site = &p->sites[s->wire[wire_id].site];
	site->render = p->render;
	site->render.arg_types = site->render.arg_frames = site->args;
	site->render.n_arg_types = site->render.n_arg_frames = site->n_args;
	return &site->render;
}

static void hook_frame(void *ctx, const struct wr_bt_frame *f, struct render_frame *out)
{
	struct session *s = ctx;

	target_symbolize(s->target, f, out);
}

static size_t hook_tailcalls(void *ctx, const struct wr_bt_frame *callee,
			     const struct wr_bt_frame *caller, struct render_frame *out, size_t max)
{
	struct session *s = ctx;

	return target_tailcalls(s->target, callee, caller, out, max);
}

/* The symbols of one event's process, for frame values. */
struct values_symbol {
	struct session *s;
	pid_t pid;
};

static void values_symbol(void *ctx, uint64_t addr, struct strbuf *out)
{
	struct values_symbol *vs = ctx;

	target_data_symbol(vs->s->target, vs->pid, addr, out);
}

static long values_vtable(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct values_symbol *vs = ctx;

	return target_read_vtable(vs->s->target, vs->pid, addr, buf, len);
}

/* One frame-values call: the process's symbols and fv's answer. */
struct values_call {
	struct values_symbol vs;
	struct render_value_ctx vc;
	struct fv_var v[64];
	const char *why;
	size_t max;  /* what fv may fill: the renderer's max, at most 64 */
};

/* Prepares @vc for process @pid; the session's walker, made on first need. */
static struct fv_walk *values_begin(struct session *s, uint32_t pid, size_t max, struct values_call *vc)
{
	vc->vs = (struct values_symbol){ s, (pid_t)pid };
	vc->vc = (struct render_value_ctx){ .symbol = values_symbol, .vtable = values_vtable, .ctx = &vc->vs,
					    .limits = &s->renderer.limits };
	vc->why = NULL;
	vc->max = max < 64 ? max : 64;
	if (!s->frame_values)
		s->frame_values = fv_new();
	return s->frame_values;
}

/* fv's answer @n (or -1 with vc->why) as the renderer's @out. */
static long values_end(long n, const struct values_call *vc, struct render_var *out, size_t max)
{
	if (n < 0 && max)
		out[0].value = vc->why;
	for (long k = 0; k < n; k++) {
		out[k].name = vc->v[k].name;
		out[k].value = vc->v[k].value;
		out[k].param = vc->v[k].param;
		out[k].entry = vc->v[k].entry;
	}
	return n;
}

/* The key of frame @i's recipe in @bt: the hash of frames 0 to @i's ips
 * (wire.h: wr_outer_chain_add()); 0 when it can have none. */
static uint64_t key_of(const struct ev_backtrace *bt, unsigned i)
{
	uint64_t hash = 0;

	if (!bt->stack || i == 0 || i >= WR_OUTER_CHAIN_FRAMES || i >= bt->frame_count)
		return 0;
	for (unsigned k = 0; k <= i; k++)
		hash = wr_outer_chain_add(hash, bt->frames[k].ip);
	return hash;
}

/* A local of bt full shown whole (@wt->whole): its whole walk, as
 * print's, into @r's ops after the *@n_ops in use, for root @out; false
 * when it needs no more than the root's own op (a lone string's) or its
 * ops do not fit (the value then shows short). */
static bool whole_root(const struct fv_want *wt, unsigned elements, struct wr_outer_recipe *r, unsigned *n_ops,
		       struct wr_outer_root *out)
{
	struct wr_walk_op ops[WR_WALK_MAX_OPS];
	unsigned n = *n_ops;
	int op;

	memcpy(ops, r->ops, n * sizeof(ops[0]));
	op = codegen_bt_walk_whole(wt->type, elements, ops, &n);
	if (op < 0 || n > WR_OUTER_OPS || (n - *n_ops == 1 && ops[op].code == WR_WALK_STRING))
		return false;
	memcpy(r->ops + *n_ops, ops + *n_ops, (n - *n_ops) * sizeof(ops[0]));
	*n_ops = n;
	out->flags |= WR_OUTER_F_WALK;
	out->first = (uint8_t)op;
	out->size = (uint32_t)wt->type->size;
	return true;
}

/* The root of a recipe that finds @wt as it says, @off from frame 0's sp
 * (F_REG: the register's offset), with the first op of its printer's walk
 * (a char pointer's: its string, at most @elements characters), or, for
 * a local shown whole, its whole walk in @r's ops (*@n_ops in use); false
 * when its walk does not fit. */
static bool root_of(const struct fv_want *wt, int32_t off, unsigned elements, struct wr_outer_recipe *r,
		    unsigned *n_ops, struct wr_outer_root *out)
{
	static const uint16_t flags[] = { [FV_AT_VALUE] = 0, [FV_AT_DEREF] = WR_OUTER_F_DEREF,
					  [FV_AT_REG] = WR_OUTER_F_REG, [FV_AT_STATIC] = WR_OUTER_F_ABS };
	struct wr_walk_op ops[WR_WALK_MAX_OPS];
	unsigned n = 0;
	int op = -1;

	*out = (struct wr_outer_root){ .off = off, .flags = flags[wt->kind] };
	if (wt->kind == FV_AT_DEREF || wt->kind == FV_AT_REG)
		out->hi = (uint32_t)wt->addend;
	if (wt->span) { /* as many characters as its printer shows */
		op = codegen_bt_walk(wt->type, elements, ops, &n);
		if (op < 0 || ops[op].code != WR_WALK_STRING || (wt->kind != FV_AT_DEREF && wt->kind != FV_AT_REG))
			return false;
		out->flags |= WR_OUTER_F_SPAN;
		out->size = ops[op].limit << (ops[op].d & 3);
		out->size = out->size < WR_WALK_COPY_MAX ? out->size : WR_WALK_COPY_MAX;
		return out->size > 0;
	}
	if (wt->string) {
		/* one character more than shown: a string that fills the
		 * copy goes on past it (`...`), one that ends at the limit
		 * shows its NUL (fv_outer_string()) */
		out->op.code = WR_WALK_CSTR;
		out->op.limit = elements + 1;
		return true;
	}
	if (wt->kind == FV_AT_STATIC) { /* its bytes, and a string's characters */
		out->off = (int32_t)(uint32_t)wt->at;
		out->hi = (uint32_t)(wt->at >> 32);
		out->size = (uint32_t)wt->type->size;
		op = codegen_bt_walk(wt->type, elements, ops, &n);
		if (op >= 0 && ops[op].code == WR_WALK_STRING)
			out->op = ops[op];
		return wt->type->size && wt->type->size <= WR_WALK_COPY_MAX;
	}
	if (wt->whole && wt->kind == FV_AT_VALUE && whole_root(wt, elements, r, n_ops, out))
		return true;
	op = codegen_bt_walk(wt->type, elements, ops, &n);
	if (op < 0 || (wt->kind == FV_AT_VALUE && ops[op].code != WR_WALK_STRING))
		return false; /* nothing the probe would read */
	out->op = ops[op];
	out->size = (uint32_t)wt->type->size;
	return true;
}

WR_STATIC_ASSERT(sizeof(((struct session *)0)->outer_chains) / sizeof(((struct session *)0)->outer_chains[0]) ==
		 WR_OUTER_RECIPES, "one entry a recipe the kernel keeps");

/* The entry of chain @chain among those with a recipe, or -1. */
static long outer_index(const struct session *s, uint64_t chain)
{
	for (size_t k = 0; k < s->n_outer_chains; k++)
		if (s->outer_chains[k].chain == chain)
			return (long)k;
	return -1;
}

/* Whether @chain's recipe was evicted to make room for another's. */
static bool outer_evicted(const struct session *s, uint64_t chain)
{
	size_t n = s->n_outer_evicted < 1024 ? s->n_outer_evicted : 1024;

	for (size_t k = 0; k < n; k++)
		if (s->outer_evicted[k] == chain)
			return true;
	return false;
}

/* The recipes the session keeps: WR_OUTER_RECIPES, or fewer where
 * WRAITH_OUTER_RECIPES says (tests that make the table evict); the
 * spare slot is the last. */
static size_t outer_capacity(struct session *s)
{
	const char *env;
	long n;

	if (!s->outer_capacity) {
		env = getenv("WRAITH_OUTER_RECIPES");
		n = env ? atol(env) : 0;
		s->outer_capacity = n > 0 && n < WR_OUTER_RECIPES ? (size_t)n : WR_OUTER_RECIPES;
		s->outer_spare = (uint32_t)s->outer_capacity;
	}
	return s->outer_capacity;
}

bool session_outer_room(struct session *s)
{
	return s->n_outer_chains < outer_capacity(s) / 2;
}

/* Make room in the kernel's table of recipes: the least recently seen
 * chain's recipe goes (an event of it copies nothing more until it has
 * one again, and says the table was full).  Returns the entry freed,
 * whose slot becomes the spare once the next recipe is written, or
 * -errno. */
static long outer_evict(struct session *s)
{
	size_t old = 0, slot;
	uint64_t chain;
	int err;

	if (!s->n_outer_chains)
		return -ENOSPC;
	for (size_t k = 1; k < s->n_outer_chains; k++)
		if (s->outer_chains[k].seen < s->outer_chains[old].seen)
			old = k;
	chain = s->outer_chains[old].chain;
	err = runtime_outer_recipe_del(s->rt, chain);
	if (err && err != -ENOENT)
		return err;
	s->outer_chains[old].chain = s->outer_chains[old].seen = 0;
	s->outer_evicted[s->n_outer_evicted++ % 1024] = chain;
	slot = (size_t)(chain % (sizeof(s->outer_done) / sizeof(s->outer_done[0])));
	if (s->outer_done[slot].chain == chain)
		s->outer_done[slot].chain = 0;
	return (long)old;
}

/* Write @chain's recipe @r: a new chain's in a slot never used while
 * the table is not full; else (a changed recipe, or a new chain in a
 * full table, whose least recently seen chain goes) in the spare slot,
 * the slot it replaces becoming the spare, which a probe may still be
 * reading (wire.h). */
static int outer_put(struct session *s, uint64_t chain, const struct wr_outer_recipe *r)
{
	long k = outer_index(s, chain);
	bool fresh = false;
	uint32_t slot;
	int err;

	if (k >= 0 && runtime_outer_recipe_holds(s->rt, s->outer_chains[k].slot, chain, r)) {
		s->outer_chains[k].seen = ++s->outer_clock;
		s->outer_chains[k].pre = s->outer_precomputing;
		return 0;
	}
	if (k < 0 && s->n_outer_chains < outer_capacity(s)) {
		k = (long)s->n_outer_chains++;
		s->outer_chains[k].slot = (uint32_t)k;
		fresh = true;
	} else if (k < 0) {
		k = outer_evict(s);
	}
	if (k < 0)
		return (int)k;
	slot = fresh ? s->outer_chains[k].slot : s->outer_spare;
	err = runtime_outer_recipe_put(s->rt, slot, chain, r);
	if (err)
		return err;
	if (!fresh) {
		s->outer_spare = s->outer_chains[k].slot;
		s->outer_chains[k].slot = slot;
	}
	/* a chain's recipe written at attach and changed by its first event:
	 * the events sent meanwhile ran the first one (pre stays) */
	s->outer_chains[k].pre = s->outer_precomputing || (!fresh && s->outer_chains[k].chain == chain &&
							     s->outer_chains[k].pre);
	s->outer_chains[k].chain = chain;
	s->outer_chains[k].seen = ++s->outer_clock;
	return 0;
}

/* After frame values of frame @i of @bt were read: when its values
 * point outside the stack copy (fv_wants()), the recipe that copies them
 * at later events whose frames 0 to @i are the same, written once per
 * such frames and set of values under @key (struct wr_outer_recipe).  A
 * value whose walk does not fit is left out. */
static void learn_outer(struct session *s, const struct ev_backtrace *bt, const struct fv_walk *w, unsigned i,
			uint64_t key)
{
	const struct fv_want *wants;
	size_t n = fv_wants(w, &wants), slot, mine = 0;
	struct wr_outer_recipe r = { 0 };
	unsigned n_ops = 0;
	int err;

	if (!key || !s->rt)
		return;
	for (size_t k = 0; k < n; k++)
		mine += wants[k].frame == i;
	slot = (size_t)(key % (sizeof(s->outer_done) / sizeof(s->outer_done[0])));
	if (!mine || (s->outer_done[slot].chain == key && s->outer_done[slot].roots >= mine))
		return;
	/* what a bt shows first, then the locals bt full shows whole, whose
	 * walks take the roots and ops left (why_not_copied() counts so) */
	for (size_t k = 0; k < 2 * n && r.n_roots < WR_OUTER_ROOTS; k++) {
		const struct fv_want *wt = &wants[k % n];
		int64_t off = wt->kind == FV_AT_REG || wt->kind == FV_AT_STATIC ? 0 : (int64_t)(wt->at - bt->stack->sp);

		if (wt->frame != i || wt->whole != (k >= n))
			continue;
		if (wt->kind == FV_AT_REG)
			off = (int64_t)wt->at;
		if (off >= INT32_MIN && off <= INT32_MAX &&
		    root_of(wt, (int32_t)off, s->renderer.limits.elements, &r, &n_ops, &r.roots[r.n_roots]))
			r.n_roots++;
	}
	err = r.n_roots ? outer_put(s, key, &r) : -ENOENT;
	if (err == 0) {
		s->outer_done[slot].chain = key;
		s->outer_done[slot].roots = (uint32_t)mine;
	}
}

static long hook_values(void *ctx, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
			unsigned level, bool locals, struct render_var *out, size_t max)
{
	struct session *s = ctx;
	struct values_call vc;
	struct fv_walk *w = values_begin(s, pid, max, &vc);
	uint64_t key = key_of(bt, i);
	long k = key ? outer_index(s, key) : -1;
	bool ran = key && bt->outer && (bt->outer->aux >> i & 1);
	long n;

	if (k >= 0) /* its recipe is in use: the last to make room */
		s->outer_chains[k].seen = ++s->outer_clock;
	fv_recipes_full(w, i, key && !ran && outer_evicted(s, key));
	fv_recipes_pre(w, i, k >= 0 && s->outer_chains[k].pre && !s->outer_precomputing);
	n = fv_frame(w, s->target, pid, bt, i, level, locals, &vc.vc, vc.v, vc.max, &vc.why);

	learn_outer(s, bt, w, i, key);
	return values_end(n, &vc, out, max);
}

static long hook_tail_values(void *ctx, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
			     const struct render_frame *tail, bool locals,
			     struct render_var *out, size_t max)
{
	struct session *s = ctx;
	struct values_call vc;
	struct fv_walk *w = values_begin(s, pid, max, &vc);

	return values_end(fv_tail_frame(w, s->target, pid, bt, i, tail->tail_module, tail->tail_pc, locals,
					&vc.vc, vc.v, vc.max, &vc.why),
			  &vc, out, max);
}

static size_t hook_hidden_inlines(void *ctx, uint32_t wire_id, const struct wr_bt_frame *f,
				  const struct render_frame *rf)
{
	struct session *s = ctx;
	const struct probe_site *site;
	size_t n = 0;

	if (wire_id >= WR_MAX_PROBES || !s->wire[wire_id].probe)
		return 0;
	site = &s->wire[wire_id].probe->sites[s->wire[wire_id].site];
	/* an address probe names no function: gdb shows every frame there */
	if (!site->where.scope || !(f->flags & WR_FRAME_F_EXACT_IP) || f->pc != site->where.vaddr)
		return 0;
	while (n + 1 < rf->sym.n && rf->sym.frames[n].starts_here &&
	       rf->sym.frames[n].scope != site->where.scope)
		n++;
	return n;
}

static bool hook_caller_value(void *ctx, uint32_t pid, const struct ev_arg *cap, size_t n, unsigned reg,
			      uint64_t *value)
{
	struct session *s = ctx;

	return fv_caller_value(s->target, pid, cap, n, (int)reg, value);
}

static size_t hook_caller_string(void *ctx, uint32_t pid, const struct ev_arg *cap, size_t n, uint64_t p,
				 uint8_t *buf, size_t max)
{
	struct session *s = ctx;

	return fv_caller_string(s->target, pid, cap, n, p, buf, max);
}

static void hook_symbol(void *ctx, uint32_t pid, uint64_t addr, struct strbuf *out)
{
	struct session *s = ctx;

	target_data_symbol(s->target, (pid_t)pid, addr, out);
}

static long hook_vtable(void *ctx, uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct session *s = ctx;

	return target_read_vtable(s->target, (pid_t)pid, addr, buf, len);
}

void session_render_hooks(struct session *s, struct render_hooks *out)
{
	*out = (struct render_hooks){ .probe = hook_probe, .frame = hook_frame,
				      .tailcalls = hook_tailcalls, .ctx = s, .symbol = hook_symbol, .vtable = hook_vtable,
				      .values = hook_values, .tail_values = hook_tail_values,
				      .hidden_inlines = hook_hidden_inlines, .caller_value = hook_caller_value,
				      .caller_string = hook_caller_string };
}
