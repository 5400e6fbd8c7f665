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
#include "dwarf/fnstack.h"
#include "dwarf/module.h"
#include "dwarf/symtab.h"
#include "dwarf/vars.h"
#include "protocol/wire.h"
#include "script/walk.h"
#include "tracer/frame_values.h"
#include "tracer/target.h"
#include "unwind/cfi.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/x86insn.h"
#include "util/xalloc.h"

#include <stdint.h>
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
	uint32_t fp;   /* bit j: frame j's CFA is rbp + 16, its cfa[] known */
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
	/* the direct calls of a module without call-site information */
	struct call_pair *calls;
	size_t n_calls;
	const struct tmodule *calls_of;
	/* the stack depths of the last function asked about */
	struct fn_stack *stack;
	const struct tmodule *stack_of;
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

/* ---- frames with a frame pointer (-O0) ---- */

/* The stack depths of the function of @c's module that starts at
 * @entry (one kept: a function's call sites come together). */
static const struct fn_stack *stack_of(struct pre_ctx *c, uint64_t entry)
{
	if (c->stack && c->stack_of == c->m && fn_stack_entry(c->stack) == entry)
		return c->stack;
	fn_stack_free(c->stack);
	c->stack = NULL;
	c->stack_of = NULL;
	if (fn_stack_new(c->m->dw, entry, &c->stack) != 0)
		return NULL;
	c->stack_of = c->m;
	return c->stack;
}

/* The depth before the instruction at @at of the function of @c's module
 * that holds @pc; false when its code does not say (dwarf/fnstack.h). */
static bool depth_at(struct pre_ctx *c, uint64_t pc, uint64_t at, struct fn_stack_depth *d)
{
	const struct fn_stack *s;
	const char *key;
	uint64_t entry;

	return dw_function_at(c->m->dw, pc, &key, &entry) && (s = stack_of(c, entry)) && fn_stack_covers(s, at) &&
	       fn_stack_at(s, at, d);
}

/* Where a frame whose CFI puts its CFA at rbp + 16 at @pc (a return
 * address when @ret: the call before it) has its CFA from its rsp
 * there, into *@off: false unless its code from the entry fixes both
 * rsp and rbp there, and rbp at its CFA less 16 (what the CFI says). */
static bool rsp_at(struct pre_ctx *c, uint64_t pc, bool ret, int32_t *off)
{
	struct fn_stack_depth d;

	/* rsp at the call is the callee's CFA */
	if ((ret && pc < 5) || !depth_at(c, ret ? pc - 1 : pc, ret ? pc - 5 : pc, &d) || !d.rsp_known ||
	    !d.rbp_known || d.cfa_rbp != 16 || d.cfa_rsp > INT32_MAX)
		return false;
	*off = (int32_t)d.cfa_rsp;
	return true;
}

/* Where the unwinder finds frame @j's rbp in @ch's event: the stack
 * slot (from frame 0's sp) where the nearest frame below that saved it
 * did, or -1 for frame 0's register; false when a rule there says
 * neither. */
static bool rbp_home(struct pre_ctx *c, const struct pre_chain *ch, unsigned j, int64_t *slot)
{
	const struct cfi_rules *rules = target_module_rules(c->m);

	for (unsigned k = j; k > 0; k--) {
		uint32_t idx = target_rule_at(c->m, k - 1 ? ch->pc[k - 1] - 1 : ch->pc[k - 1]);
		const struct wr_cfi_rule *r = idx < rules->n ? &rules->v[idx] : NULL;

		if (!r || r->kind != WR_ROW_NORMAL)
			return false;
		if (r->rbp_rule == WR_RULE_AT_CFA) {
			*slot = ch->cfa[k - 1] + r->rbp_off;
			return *slot >= 0 && *slot + 8 <= (int64_t)sizeof(c->data);
		}
		if (r->rbp_rule != WR_RULE_SAME_VALUE)
			return false;
	}
	*slot = -1;
	return true;
}

/* Each frame of @ch with a frame pointer: its rbp, where the unwinder
 * finds it; false when one cannot be placed (two frames would need it
 * in one place). */
static bool place_rbps(struct pre_ctx *c, const struct pre_chain *ch)
{
	uint32_t placed = 0;
	int64_t home[PRE_DEPTH];

	for (unsigned j = 0; j < ch->n; j++) {
		uint64_t rbp = PRE_SP + (uint64_t)(ch->cfa[j] - 16);

		if (!(ch->fp >> j & 1))
			continue;
		if (!rbp_home(c, ch, j, &home[j]))
			return false;
		for (unsigned k = 0; k < j; k++)
			if (placed >> k & 1 && home[k] == home[j])
				return false;
		placed |= 1u << j;
		if (home[j] < 0)
			c->regs.bp = rbp;
		else
			memcpy(c->data + home[j], &rbp, 8);
	}
	return true;
}

/* Every direct call (call rel32) in @m's executable code, for a module
 * without call-site information (-O0): its target and return address,
 * sorted by target; read once per module and probe, decoded in one
 * sweep (compilers put no data among x86-64 code; a call a misread
 * byte made up names a return address no chain has), within
 * PRE_SCAN_MS of the thread's CPU time (a part of a big module's calls
 * is found then), not of the clock's: on a loaded host the clock's
 * 200 ms held a few of CPU, and the sweep stopped before it reached
 * the callers of a small program's probe. */
#define PRE_SCAN_MS 200.0
#define PRE_SCAN_CHUNK 65536

struct call_pair {
	uint64_t target, ret;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The calls in the code at @lo (@len bytes at @code) into @v; where the
 * sweep goes on (the chunk's last instruction may run past it). */
static uint64_t sweep(uint64_t lo, const uint8_t *code, size_t len, struct call_pair **v, size_t *n, size_t *cap)
{
	struct x86insn in;
	uint64_t target;
	size_t at = 0;

	while (at + X86_MAX_INSN <= len) {
		if (x86insn_decode(code + at, len - at, &in) != 0) {
			at++;
			continue;
		}
		if (in.enc == X86_LEGACY && in.map == X86_MAP_ONE && in.opcode == 0xe8 &&
		    x86insn_branch_target(&in, lo + at, &target)) {
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 256;
				*v = xrealloc(*v, *cap * sizeof(**v));
			}
			(*v)[(*n)++] = (struct call_pair){ .target = target, .ret = lo + at + in.len };
		}
		at += in.len;
	}
	return lo + at;
}

static void scan_calls(struct pre_ctx *c)
{
	struct call_pair *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t start, end, at;
	uint8_t *code = xmalloc(PRE_SCAN_CHUNK);
	double t0 = thread_cpu_seconds();

	dw_module_range(c->m->dw, &start, &end);
	for (at = start; at < end && (thread_cpu_seconds() - t0) * 1e3 < PRE_SCAN_MS;) {
		long got;

		if (!dw_module_vaddr_is_code(c->m->dw, at)) {
			at = (at | 4095) + 1;
			continue;
		}
		got = dw_module_read_const(c->m->dw, at, code, end - at < PRE_SCAN_CHUNK ? end - at : PRE_SCAN_CHUNK);
		if (got < X86_MAX_INSN) {
			at = (at | 4095) + 1;
			continue;
		}
		at = sweep(at, code, (size_t)got, &v, &n, &cap);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	free(code);
	free(c->calls);
	c->calls = v;
	c->n_calls = n;
	c->calls_of = c->m;
}

/* The return addresses of the direct calls of @entry that scan_calls()
 * found, at most @max into @out; how many. */
static size_t decoded_calls(struct pre_ctx *c, uint64_t entry, uint64_t *out, size_t max)
{
	struct call_pair key = { .target = entry }, *e;
	size_t n = 0;

	if (c->calls_of != c->m)
		scan_calls(c);
	e = c->n_calls ? bsearch(&key, c->calls, c->n_calls, sizeof(*e), cmp_u64) : NULL;
	while (e && e > c->calls && e[-1].target == entry)
		e--;
	for (; e && e < c->calls + c->n_calls && e->target == entry && n < max; e++)
		out[n++] = e->ret;
	return n;
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

	if (!target_cfa_at(c->s->target, c->m, j ? ch->pc[j] - 1 : ch->pc[j], &rule, &reg, &off))
		return false;
	if (reg == X86_DWARF_rbp && off == 16 && rsp_at(c, ch->pc[j], j > 0, &off)) {
		ch->fp |= 1u << j; /* its rbp, CFA - 16, where the unwinder finds it: pre_event() */
	} else if (reg != X86_DWARF_rsp) {
		return false;
	}
	if (off < 8 || off % 8)
		return false;
	ch->cfa[j] = (j ? ch->cfa[j - 1] : 0) + off;
	return ch->cfa[j] <= (int64_t)sizeof(c->data);
}

/* The event a hit with the frames of @ch would send, as far as frame
 * values depend on it: its frames, frame 0's registers, the stack copy
 * with each return address where its callee's CFA puts it. */
static bool pre_event(struct pre_ctx *c, const struct pre_chain *ch)
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
	if (!place_rbps(c, ch))
		return false;
	c->sh = (struct wr_stack_header){ .ip = c->frames[0].ip, .sp = PRE_SP, .base = PRE_SP,
					  .flags = WR_STACK_F_REGS, .len = sizeof(c->data) };
	c->bt = &c->bts[c->bt == &c->bts[0]];
	*c->bt = (struct ev_backtrace){ .requested_depth = (uint16_t)ch->n, .frame_count = (uint16_t)ch->n,
					.flags = c->flags, .frames = c->frames, .stack = &c->sh,
					.stack_data = c->data, .regs = &c->regs };
	return true;
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

	if (!pre_event(c, ch))
		return;
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
	bool decoded;
	size_t n;

	if (ch->n >= PRE_DEPTH || !dw_function_at(c->m->dw, j ? ch->pc[j] - 1 : ch->pc[j], &key, &entry))
		return;
	n = dw_call_returns(c->m->dw, key, c->rets, PRE_CALLS);
	decoded = n == 0 && !dw_module_has_call_sites(c->m->dw);
	if (decoded)
		n = decoded_calls(c, entry, c->rets, PRE_CALLS);
	for (size_t k = 0; k < n && session_outer_room(c->s) && c->read < PRE_READS; k++) {
		struct pre_chain next = *ch;
		struct fn_stack_depth d;
		bool known;

		if (!calls_entry(c, c->rets[k] + c->bias, entry + c->bias))
			continue;
		/* a call the sweep found: one its caller's code reaches */
		if (decoded && (c->rets[k] < 5 || !depth_at(c, c->rets[k] - 1, c->rets[k] - 5, &d) ||
				!(d.rsp_known || d.rbp_known)))
			continue;
		next.pc[next.n++] = c->rets[k];
		/* a frame pointer's frame needs its CFA for its own values */
		known = last_cfa(c, &next);
		pre_learn(c, &next);
		if (c->tail - c->head < PRE_QUEUE && known)
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
	s->outer_precomputing = true;
	for (size_t i = first; i < p->n_sites && session_outer_room(s); i++)
		if (!p->sites[i].dead && p->sites[i].mod && p->sites[i].mod->dw)
			pre_site(c, &p->sites[i]);
	s->outer_precomputing = false;
	fv_forget(s->frame_values); /* it walked c's events */
	/* Each chain's first event learns its recipe again, and writes it
	 * where it differs: an event shows what these could not (a value
	 * frame 1 reaches through its caller's stack, an argument passed by
	 * reference to a copy there), and a recipe not written again would
	 * leave it `<unavailable>` for good. */
	memset(s->outer_done, 0, sizeof(s->outer_done));
	free(c->calls);
	fn_stack_free(c->stack);
	wr_debug("probe %u: %zu call chains read before attach, %zu outer recipes written, in %.1f ms", p->id,
		 c->read, s->n_outer_chains - before, (now_seconds() - t0) * 1e3);
	free(c);
}
