/* session_recipes.c - outer frames' recipes (wire.h: struct
 * wr_outer_recipe) written when a probe attaches, before its first event.
 *
 * A recipe is learned from an event: reading frame j's values, the
 * renderer notes where those that point outside the stack lie from frame
 * 0's sp (session_hooks.c: learn_outer()), so the first events of every
 * new chain show `<not copied: new call chain>`.  For frame 1 some chains
 * are known before any event: where frame 0 stands at a pc whose CFA is
 * rsp plus a constant (a function's entry, a frameless function), frame
 * 1's pc is the return address of a direct call of frame 0's function,
 * and every such call its module's call sites (DW_TAG_call_site) name.
 * For each, this builds the event such a hit would send as far as the
 * recipe depends on it - frames 0 and 1, frame 0's registers, the stack
 * copy with the return address where frame 0's CFI puts it - and reads
 * frame 1's values from it through the renderer's own hook, which writes
 * the recipe the event-driven path would: the same code, with values
 * that only stand for themselves.  Every other register and stack word
 * holds an address of its own, far from the stack and from any module,
 * so a variable's pointer is found in exactly the register or slot that
 * holds it, and whatever depends on a value not fixed by frames 0 and 1's
 * code (an rbp-based CFA: the caller's frame pointer) lies outside the
 * copy and is noted nowhere.  The key is the hash of the two ips the
 * process's chains have (this process's load biases), so it matches only
 * a chain of those two frames, whose frame 1 lies at the same offsets
 * from frame 0's sp.  The first event of a chain then rewrites the recipe
 * when it learns more (a value's string found only at run time).
 *
 * At most half of the recipe table is filled this way (each the least
 * recently used when a chain needs room), call sites in index order; an
 * indirect call, a tail call and a caller without call-site information
 * stay event-driven.
 */
#include "tracer/session_priv.h"
#include "arch/x86_64.h"
#include "dwarf/vars.h"
#include "protocol/wire.h"
#include "script/walk.h"
#include "tracer/frame_values.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* Frame 0's stack pointer in the events built here, and the values
 * every other stack word and register holds: word k of the copy
 * PRE_WORDS + k * PRE_STRIDE, DWARF register r PRE_REGS + r *
 * PRE_STRIDE; no module and no stack lies there, and each is more than
 * frame_outer.c's MAX_ADDEND from every other. */
#define PRE_SP     0x7f0000000000ull
#define PRE_WORDS  0x100000000000ull
#define PRE_REGS   0x200000000000ull
#define PRE_STRIDE 0x1000ull
#define PRE_CALLS  4096 /* call sites of one function looked at */
#define PRE_DEPTH  WR_OUTER_CHAIN_FRAMES /* frames of a chain, at most */
#define PRE_QUEUE  1024 /* chains waiting to be extended, at most */
#define PRE_READS  (2 * WR_OUTER_RECIPES) /* events read per probe, at most */

/* A call chain from frame 0 out: each frame's module address (frame 0's
 * pc, then return addresses) and where its CFA lies from frame 0's sp
 * (known for all but the last: its callee's fixes where its return
 * address lies). */
struct pre_chain {
	uint64_t pc[PRE_DEPTH];
	int64_t cfa[PRE_DEPTH];
	unsigned n;
};

/* One probe site's chains, and the event built for each. */
struct pre_ctx {
	struct session *s;
	pid_t pid;
	struct tmodule *m;
	uint64_t bias;
	uint8_t flags;  /* the bt's: WR_BT_F_ARGS or WR_BT_F_FULL */
	size_t read;    /* events read */
	struct pre_chain queue[PRE_QUEUE];
	size_t head, tail;
	uint64_t rets[PRE_CALLS];
	struct wr_bt_frame frames[PRE_DEPTH];
	struct wr_stack_header sh;
	struct wr_stack_regs regs;
	uint8_t data[WR_BT_STACK_MAX];
	/* the event, in turn in one of two places: a walk over another
	 * backtrace starts again from frame 0 (frame_values.c: reach()) */
	struct ev_backtrace bts[2];
	struct ev_backtrace *bt;
};

/* Whether the call that returns to @ret (runtime) calls @entry
 * (runtime) directly: e8 rel32 before it, read from the module. */
static bool calls_entry(struct pre_ctx *c, uint64_t ret, uint64_t entry)
{
	uint8_t call[5];
	int32_t rel;

	if (ret < sizeof(call) || target_read_const(c->s->target, c->pid, ret - sizeof(call), call, sizeof(call)) !=
	    sizeof(call) || call[0] != 0xe8)
		return false;
	memcpy(&rel, call + 1, sizeof(rel));
	return ret + (uint64_t)(int64_t)rel == entry;
}

/* The CFA of the last frame of @ch from frame 0's sp, into its cfa[]:
 * false unless its rule there is rsp plus a constant (a frame pointer's
 * value is not fixed by the code). */
static bool last_cfa(struct pre_ctx *c, struct pre_chain *ch)
{
	unsigned j = ch->n - 1;
	uint32_t rule = WR_RULE_LOOKUP;
	int32_t off;
	int reg;

	if (!target_cfa_at(c->s->target, c->m, j ? ch->pc[j] - 1 : ch->pc[j], &rule, &reg, &off) ||
	    reg != X86_DWARF_rsp || off < 8 || off % 8)
		return false;
	ch->cfa[j] = (j ? ch->cfa[j - 1] : 0) + off;
	return ch->cfa[j] <= (int64_t)sizeof(c->data);
}

/* The event a hit with the frames of @ch would send, as far as frame
 * values depend on it: its frames, frame 0's registers, the stack copy
 * with each return address where its callee's CFA puts it. */
static void pre_event(struct pre_ctx *c, const struct pre_chain *ch)
{
	uint64_t v[X86_DWARF_NREGS];

	for (unsigned j = 0; j < ch->n; j++)
		c->frames[j] = (struct wr_bt_frame){ .ip = ch->pc[j] + c->bias, .pc = (uint32_t)ch->pc[j],
						     .cookie = (uint16_t)c->m->cookie,
						     .flags = j ? 0 : WR_FRAME_F_EXACT_IP };
	for (size_t k = 0; k < sizeof(c->data) / 8; k++) {
		uint64_t w = PRE_WORDS + k * PRE_STRIDE;

		memcpy(c->data + 8 * k, &w, 8);
	}
	for (unsigned j = 0; j + 1 < ch->n; j++)
		memcpy(c->data + ch->cfa[j] - 8, &c->frames[j + 1].ip, 8);
	for (unsigned r = 0; r < X86_DWARF_NREGS; r++)
		v[r] = PRE_REGS + r * PRE_STRIDE;
	v[X86_DWARF_rsp] = PRE_SP;
	v[X86_DWARF_rip] = c->frames[0].ip;
#define REG_SET(n, name, field) c->regs.field = v[n];
	X86_DWARF_REGS(REG_SET)
#undef REG_SET
	c->sh = (struct wr_stack_header){ .ip = c->frames[0].ip, .sp = PRE_SP, .base = PRE_SP,
					  .flags = WR_STACK_F_REGS, .len = sizeof(c->data) };
	c->bt = &c->bts[c->bt == &c->bts[0]];
	*c->bt = (struct ev_backtrace){ .requested_depth = (uint16_t)ch->n, .frame_count = (uint16_t)ch->n,
					.flags = c->flags, .frames = c->frames, .stack = &c->sh,
					.stack_data = c->data, .regs = &c->regs };
}

/* The last frame's values in @ch's event, each function level of it,
 * read as the renderer reads them, which writes its recipe. */
static void pre_learn(struct pre_ctx *c, const struct pre_chain *ch)
{
	struct render_hooks h;
	struct render_frame rf;
	struct render_var out[64];
	unsigned i = ch->n - 1;
	size_t levels;

	pre_event(c, ch);
	session_render_hooks(c->s, &h);
	target_symbolize(c->s->target, &c->frames[i], &rf);
	levels = rf.sym.n ? rf.sym.n : 1;
	for (size_t level = 0; level < levels; level++)
		h.values(h.ctx, (uint32_t)c->pid, c->bt, i, (unsigned)level, c->flags & WR_BT_F_FULL, out, 64);
	c->read++;
}

/* Each direct call in the module of the last frame's function of @ch:
 * the chain one frame longer, its new frame's recipe written, and kept
 * to extend when that frame's CFA is known. */
static void extend(struct pre_ctx *c, const struct pre_chain *ch)
{
	unsigned j = ch->n - 1;
	uint64_t entry;
	const char *key;
	size_t n;

	if (ch->n >= PRE_DEPTH || !dw_function_at(c->m->dw, j ? ch->pc[j] - 1 : ch->pc[j], &key, &entry))
		return;
	n = dw_call_returns(c->m->dw, key, c->rets, PRE_CALLS);
	for (size_t k = 0; k < n && session_outer_room(c->s) && c->read < PRE_READS; k++) {
		struct pre_chain next = *ch;

		if (!calls_entry(c, c->rets[k] + c->bias, entry + c->bias))
			continue;
		next.pc[next.n++] = c->rets[k];
		pre_learn(c, &next);
		if (c->tail - c->head < PRE_QUEUE && last_cfa(c, &next))
			c->queue[c->tail++ % PRE_QUEUE] = next;
	}
}

/* The recipes of @site's chains in its module, frame 1's first, then
 * frame 2's and so on (breadth first), while there is room. */
static void pre_site(struct pre_ctx *c, const struct probe_site *site)
{
	struct pre_chain first = { .pc = { site->where.vaddr }, .n = 1 };

	c->m = site->mod;
	c->head = c->tail = 0;
	if (!target_module_bias(c->s->target, c->pid, c->m, &c->bias) || !last_cfa(c, &first))
		return;
	c->queue[c->tail++] = first;
	while (c->head < c->tail && session_outer_room(c->s)) {
		struct pre_chain ch = c->queue[c->head++ % PRE_QUEUE];

		extend(c, &ch);
	}
}

/* The bt flags frame values are read with for @p's events: full when a
 * bt of it shows locals, args when one shows only parameters, else 0. */
static uint8_t values_flags(const struct probe *p)
{
	uint8_t flags = 0;

	for (size_t k = 0; k < ast_probe_count(p->ast, AST_STMT_BT); k++) {
		unsigned f = ast_probe_nth(p->ast, AST_STMT_BT, k)->bt_flags;

		if (!(f & WR_BT_F_RAW))
			flags |= f & (WR_BT_F_ARGS | WR_BT_F_FULL);
	}
	return flags & WR_BT_F_FULL ? WR_BT_F_FULL : flags;
}

void session_precompute_recipes(struct session *s, struct probe *p, size_t first)
{
	struct pre_ctx *c;
	size_t before = s->n_outer_chains;
	uint8_t flags = values_flags(p);
	double t0 = now_seconds();

	if (target_pid(s->target) <= 0 || !flags || !s->rt || s->opt.dry_run || !p->enabled ||
	    getenv("WRAITH_NO_PRE_RECIPES") || !(c = calloc(1, sizeof(*c))))
		return;
	c->s = s;
	c->pid = target_pid(s->target);
	c->flags = flags;
	for (size_t i = first; i < p->n_sites && session_outer_room(s); i++)
		if (!p->sites[i].dead && p->sites[i].mod && p->sites[i].mod->dw)
			pre_site(c, &p->sites[i]);
	fv_forget(s->frame_values); /* it walked c's events */
	/* Each chain's first event learns its recipe again, and writes it
	 * where it differs: an event shows what these could not (a value
	 * frame 1 reaches through its caller's stack, an argument passed by
	 * reference to a copy there), and a recipe not written again would
	 * leave it `<unavailable>` for good. */
	memset(s->outer_done, 0, sizeof(s->outer_done));
	wr_debug("probe %u: %zu call chains read before attach, %zu outer recipes written, in %.1f ms", p->id,
		 c->read, s->n_outer_chains - before, (now_seconds() - t0) * 1e3);
	free(c);
}
