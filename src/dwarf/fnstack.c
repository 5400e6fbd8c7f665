/* fnstack.c - see fnstack.h.
 *
 * The function's ranges are decoded into one array of instructions in
 * address order; a forward data flow then gives each instruction the
 * depth before it: its entry's (CFA = rsp + 8, rbp the caller's), and
 * for the others the meet of what their predecessors leave, where two
 * different values meet as unknown.  Each value only ever goes from
 * unreached to known to unknown, so the work list empties.
 */
#include "dwarf/fnstack.h"
#include "dwarf/fnrange.h"
#include "dwarf/module.h"
#include "util/x86insn.h"
#include "util/x86stack.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODE (16u << 20) /* bytes of one function, at most */
#define MAX_DEPTH (1ll << 32) /* beyond it a depth is unknown */

enum { UNREACHED, KNOWN, UNKNOWN };

struct state {
	uint8_t rsp, rbp; /* UNREACHED, KNOWN, UNKNOWN */
	int64_t d, f;     /* CFA - rsp, CFA - rbp when KNOWN */
};

struct insn {
	uint64_t at, target; /* target: of a branch inside the function, else 0 */
	struct x86stack_effect eff;
	uint8_t len;
};

struct fn_stack {
	struct dw_range r[DW_FUNCTION_MAX_RANGES];
	size_t n_ranges;
	uint64_t entry;
	struct insn *v;
	struct state *st;
	size_t n, cap;
	bool bad; /* a jump into an instruction */
};

bool fn_stack_covers(const struct fn_stack *s, uint64_t pc)
{
	for (size_t i = 0; i < s->n_ranges; i++)
		if (pc >= s->r[i].lo && pc < s->r[i].hi)
			return true;
	return false;
}

uint64_t fn_stack_entry(const struct fn_stack *s)
{
	return s->entry;
}

/* The index of the instruction at @pc, or -1. */
static long find(const struct fn_stack *s, uint64_t pc)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].at == pc)
			return (long)mid;
		if (s->v[mid].at < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_range(const void *a, const void *b)
{
	uint64_t x = ((const struct dw_range *)a)->lo, y = ((const struct dw_range *)b)->lo;

	return x < y ? -1 : x > y;
}

/* Decode range @r of @m into s->v. */
static int decode(struct fn_stack *s, struct dw_module *m, const struct dw_range *r)
{
	size_t len = r->hi - r->lo, at = 0;
	uint8_t *code;
	int err = 0;

	if (r->hi <= r->lo || len > MAX_CODE)
		return -EIO;
	code = xmalloc(len);
	if (dw_module_read_const(m, r->lo, code, len) != (long)len)
		err = -EIO;
	while (!err && at < len) {
		struct insn *e;
		struct x86insn in;
		uint64_t target;

		if (x86insn_decode(code + at, len - at, &in) != 0) {
			err = -EIO;
			break;
		}
		s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
		e = &s->v[s->n++];
		*e = (struct insn){ .at = r->lo + at, .len = in.len };
		x86stack_classify(&in, code + at, &e->eff);
		if (x86insn_branch_target(&in, e->at, &target) && fn_stack_covers(s, target)) {
			/* a call into itself but for recursion: pushes, jumps */
			if (e->eff.flow == X86FLOW_NEXT && target != s->entry)
				e->eff.kind = X86STACK_UNKNOWN;
			else if (e->eff.flow != X86FLOW_NEXT)
				e->target = target;
		}
		at += in.len;
	}
	free(code);
	return err;
}

/* What @e leaves of @in. */
static struct state step(const struct insn *e, struct state in)
{
	struct state out = in;

	switch (e->eff.kind) {
	case X86STACK_NONE:
		break;
	case X86STACK_RSP_ADD:
		out.d = in.d - e->eff.delta;
		break;
	case X86STACK_POP_RBP:
		out.d = in.d - 8;
		out.rbp = UNKNOWN;
		break;
	case X86STACK_RBP_FROM_RSP: /* rbp = rsp + delta */
		out.rbp = in.rsp;
		out.f = in.d - e->eff.delta;
		break;
	case X86STACK_RSP_FROM_RBP: /* rsp = rbp + delta */
		out.rsp = in.rbp;
		out.d = in.f - e->eff.delta;
		break;
	case X86STACK_LEAVE: /* rsp = rbp + 8, rbp popped */
		out.rsp = in.rbp;
		out.d = in.f - 8;
		out.rbp = UNKNOWN;
		break;
	case X86STACK_RBP_LOST:
		out.rbp = UNKNOWN;
		break;
	case X86STACK_UNKNOWN:
	default:
		out.rsp = out.rbp = UNKNOWN;
		break;
	}
	if (out.rsp == KNOWN && (out.d > MAX_DEPTH || out.d < -MAX_DEPTH))
		out.rsp = UNKNOWN;
	if (out.rbp == KNOWN && (out.f > MAX_DEPTH || out.f < -MAX_DEPTH))
		out.rbp = UNKNOWN;
	return out;
}

/* Meet @in into instruction @i's state; whether it changed. */
static bool meet(struct fn_stack *s, size_t i, const struct state *in)
{
	struct state *st = &s->st[i], old = *st;

	if (st->rsp == UNREACHED) {
		*st = *in;
		return true;
	}
	if (st->rsp == KNOWN && (in->rsp != KNOWN || in->d != st->d))
		st->rsp = UNKNOWN;
	if (st->rbp == KNOWN && (in->rbp != KNOWN || in->f != st->f))
		st->rbp = UNKNOWN;
	return st->rsp != old.rsp || st->rbp != old.rbp;
}

/* The data flow from the entry (instruction @first). */
static void flow(struct fn_stack *s, size_t first)
{
	size_t *work = xmalloc(s->n * sizeof(*work)), top = 0;
	bool *queued = xcalloc(s->n, sizeof(*queued));

	s->st[first] = (struct state){ .rsp = KNOWN, .rbp = UNKNOWN, .d = 8 };
	work[top++] = first;
	queued[first] = true;
	while (top) {
		size_t i = work[--top], next[2];
		const struct insn *e = &s->v[i];
		struct state out = step(e, s->st[i]);
		unsigned n = 0;

		queued[i] = false;
		if ((e->eff.flow == X86FLOW_NEXT || e->eff.flow == X86FLOW_BRANCH) && i + 1 < s->n &&
		    s->v[i + 1].at == e->at + e->len)
			next[n++] = i + 1;
		if ((e->eff.flow == X86FLOW_JUMP || e->eff.flow == X86FLOW_BRANCH) && e->target) {
			long t = find(s, e->target);

			if (t < 0) {
				s->bad = true;
				break;
			}
			next[n++] = (size_t)t;
		}
		for (unsigned k = 0; k < n; k++)
			if (meet(s, next[k], &out) && !queued[next[k]]) {
				work[top++] = next[k];
				queued[next[k]] = true;
			}
	}
	free(work);
	free(queued);
}

int fn_stack_new(struct dw_module *m, uint64_t entry, struct fn_stack **out)
{
	struct fn_stack *s = xcalloc(1, sizeof(*s));
	int err = 0;
	long first;

	s->entry = entry;
	s->n_ranges = dw_function_ranges(m, entry, s->r, DW_FUNCTION_MAX_RANGES);
	if (s->n_ranges == 0 || s->n_ranges > DW_FUNCTION_MAX_RANGES || !fn_stack_covers(s, entry)) {
		err = -ENOENT;
		goto out_free;
	}
	qsort(s->r, s->n_ranges, sizeof(*s->r), cmp_range);
	for (size_t i = 0; i < s->n_ranges && !err; i++)
		err = decode(s, m, &s->r[i]);
	if (err)
		goto out_free;
	if ((first = find(s, entry)) < 0) {
		err = -ENOENT;
		goto out_free;
	}
	s->st = xcalloc(s->n, sizeof(*s->st));
	flow(s, (size_t)first);
	*out = s;
	return 0;
out_free:
	fn_stack_free(s);
	return err;
}

void fn_stack_free(struct fn_stack *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->st);
	free(s);
}

static void depth_of(const struct fn_stack *s, size_t i, struct fn_stack_depth *out)
{
	const struct state *st = &s->st[i];

	*out = (struct fn_stack_depth){
		.rsp_known = !s->bad && st->rsp == KNOWN, .rbp_known = !s->bad && st->rbp == KNOWN,
		.cfa_rsp = st->d, .cfa_rbp = st->f,
	};
}

bool fn_stack_at(const struct fn_stack *s, uint64_t pc, struct fn_stack_depth *out)
{
	long i = find(s, pc);

	if (i < 0 || s->bad)
		return false;
	depth_of(s, (size_t)i, out);
	return true;
}

size_t fn_stack_count(const struct fn_stack *s)
{
	return s->n;
}

uint64_t fn_stack_nth(const struct fn_stack *s, size_t i, struct fn_stack_depth *out)
{
	depth_of(s, i, out);
	return s->v[i].at;
}
