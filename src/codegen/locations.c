/* locations.c - the traced program's value at its DWARF location
 * (dwarf/location.h) in a probe: in a register, at a constant, in memory
 * at a register, at the frame's CFA or at a module address plus an
 * offset, computed by a location expression (read as it says, down to a
 * module's block of thread-local variables), or assembled from pieces.
 * What comes out is a struct cg_value: an lvalue (an address, read later
 * when values.c needs a scalar) or an rvalue.  The reads done here (a
 * location expression's, a piece's) record their failures in the value's
 * status, as every read does.
 */
#include "arch/x86_64.h"
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name of DWARF register @reg (x86-64 psABI numbers) into @buf. */
const char *cg_reg_name(unsigned reg, char *buf, size_t size)
{
	if (reg >= X86_DWARF_XMM0 && reg <= X86_DWARF_XMM15)
		snprintf(buf, size, "xmm%u", reg - X86_DWARF_XMM0);
	else if (reg >= X86_DWARF_XMM16 && reg <= X86_DWARF_XMM31)
		snprintf(buf, size, "xmm%u", reg - X86_DWARF_XMM16 + 16);
	else if (reg >= X86_DWARF_ST0 && reg <= X86_DWARF_ST7)
		snprintf(buf, size, "st%u", reg - X86_DWARF_ST0);
	else if (reg >= X86_DWARF_MM0 && reg <= X86_DWARF_MM7)
		snprintf(buf, size, "mm%u", reg - X86_DWARF_MM0);
	else
		snprintf(buf, size, "DWARF register %u", reg);
	return buf;
}

/* The CFA of the probe's frame, from the unwind row at the probe. */
static LLVMValueRef frame_cfa(struct cg *cg, const struct ast_expr *e)
{
	if (cg->plan->cfa_reg < 0) {
		cg_fail(cg, e->loc, "`info cfi` shows the unwind row at the probe",
			"'%s' lives in the stack frame, but there is no unwind row at this pc "
			"to find the frame", e->str);
		return NULL;
	}
	return LLVMBuildAdd(cg->builder, cg_site_reg(cg, cg->plan->cfa_reg),
			    cg_site_const(cg, (uint64_t)(int64_t)cg->plan->cfa_off), "cfa");
}

/* Signed division on a BPF target without sdiv: divide the magnitudes. */
static LLVMValueRef signed_div(struct cg *cg, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef zero = cg_i64(cg, 0);
	LLVMValueRef na = LLVMBuildICmp(B, LLVMIntSLT, a, zero, ""), nb = LLVMBuildICmp(B, LLVMIntSLT, b, zero, "");
	LLVMValueRef ua = LLVMBuildSelect(B, na, LLVMBuildNeg(B, a, ""), a, "");
	LLVMValueRef ub = LLVMBuildSelect(B, nb, LLVMBuildNeg(B, b, ""), b, "");
	LLVMValueRef q = LLVMBuildUDiv(B, ua, ub, "");

	return LLVMBuildSelect(B, LLVMBuildXor(B, na, nb, ""), LLVMBuildNeg(B, q, ""), q, "");
}

static LLVMValueRef expr_binary(struct cg *cg, enum dw_expr_op op, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBuilderRef B = cg->builder;
	static const LLVMIntPredicate preds[] = { LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSGT,
						  LLVMIntSLE, LLVMIntSGE };

	switch (op) {
	case DW_EXPR_ADD: return LLVMBuildAdd(B, a, b, "");
	case DW_EXPR_SUB: return LLVMBuildSub(B, a, b, "");
	case DW_EXPR_MUL: return LLVMBuildMul(B, a, b, "");
	case DW_EXPR_DIV: return signed_div(cg, a, b);
	case DW_EXPR_MOD: return LLVMBuildURem(B, a, b, "");
	case DW_EXPR_AND: return LLVMBuildAnd(B, a, b, "");
	case DW_EXPR_OR: return LLVMBuildOr(B, a, b, "");
	case DW_EXPR_XOR: return LLVMBuildXor(B, a, b, "");
	case DW_EXPR_SHL: return LLVMBuildShl(B, a, b, "");
	case DW_EXPR_SHR: return LLVMBuildLShr(B, a, b, "");
	case DW_EXPR_SHRA: return LLVMBuildAShr(B, a, b, "");
	default:
		return LLVMBuildZExt(B, LLVMBuildICmp(B, preds[op - DW_EXPR_EQ], a, b, ""),
				     LLVMInt64TypeInContext(cg->ctx), "");
	}
}

static LLVMValueRef expr_value(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
			       struct cg_value *v);

#define IF_CHAIN_MAX 256

/* x->a ? x->b : x->c, each branch's reads failing only when taken. */
static LLVMValueRef expr_select(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
				struct cg_value *v)
{
	LLVMBuilderRef B = cg->builder;
	struct cg_value tv = { 0 }, ev = { 0 };
	LLVMValueRef cond = expr_value(cg, e, x->a, v), t, f, st;

	if (!cond || !(t = expr_value(cg, e, x->b, &tv)) || !(f = expr_value(cg, e, x->c, &ev)))
		return NULL;
	cond = LLVMBuildICmp(B, LLVMIntNE, cond, cg_i64(cg, 0), "");
	st = LLVMBuildSelect(B, cond, tv.status ? tv.status : cg_i32(cg, 0),
			     ev.status ? ev.status : cg_i32(cg, 0), "");
	cg_merge_status(cg, v, st, LLVMBuildSelect(B, cond, tv.fail_addr ? tv.fail_addr : cg_i64(cg, 0),
						ev.fail_addr ? ev.fail_addr : cg_i64(cg, 0), ""));
	return LLVMBuildSelect(B, cond, t, f, "");
}

/* Case @c of a chain: `ra == BIAS + K`, with K into *@k and ra (the same
 * tree in every case) into *@ra. */
static bool chain_case(const struct dw_expr *c, const struct dw_expr **ra, uint64_t *k)
{
	if (c->op != DW_EXPR_EQ || (*ra && c->a != *ra) || c->b->op != DW_EXPR_ADD ||
	    c->b->a->op != DW_EXPR_BIAS || c->b->b->op != DW_EXPR_CONST)
		return false;
	*ra = c->a;
	*k = (uint64_t)c->b->b->value;
	return true;
}

/* One case's value and status, into the merge's incoming lists. */
struct chain_phis {
	LLVMValueRef r[IF_CHAIN_MAX + 1], st[IF_CHAIN_MAX + 1], fa[IF_CHAIN_MAX + 1];
	LLVMBasicBlockRef from[IF_CHAIN_MAX + 1];
	unsigned n;
};

static bool chain_arm(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
		      LLVMBasicBlockRef merge, struct chain_phis *ph)
{
	struct cg_value tv = { 0 };
	LLVMValueRef t = expr_value(cg, e, x, &tv);

	if (!t)
		return false;
	ph->r[ph->n] = t;
	ph->st[ph->n] = tv.status ? tv.status : cg_i32(cg, 0);
	ph->fa[ph->n] = tv.fail_addr ? tv.fail_addr : cg_i64(cg, 0);
	ph->from[ph->n++] = LLVMGetInsertBlock(cg->builder);
	LLVMBuildBr(cg->builder, merge);
	return true;
}

static LLVMValueRef chain_phi(struct cg *cg, LLVMTypeRef ty, LLVMValueRef *vals, struct chain_phis *ph)
{
	LLVMValueRef phi = LLVMBuildPhi(cg->builder, ty, "");

	LLVMAddIncoming(phi, vals, ph->from, ph->n);
	return phi;
}

/* Jump to the block of the case whose key is @key, among @n cases of
 * keys @kv (with blocks @bbs), else to @dflt.  Keys the probe's site
 * table holds (sites that share the program) are compared one by one;
 * keys built in make one switch, which the backend turns into a binary
 * search. */
static void chain_dispatch(struct cg *cg, LLVMValueRef key, LLVMValueRef *kv, LLVMBasicBlockRef *bbs,
			   size_t n, LLVMBasicBlockRef dflt)
{
	LLVMBuilderRef B = cg->builder;
	bool built_in = true;
	LLVMValueRef sw;

	for (size_t i = 0; i < n && built_in; i++)
		built_in = LLVMIsConstant(kv[i]);
	if (built_in) {
		sw = LLVMBuildSwitch(B, key, dflt, (unsigned)n);
		for (size_t i = 0; i < n; i++)
			LLVMAddCase(sw, kv[i], bbs[i]);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		LLVMBasicBlockRef next = i + 1 < n ? cg_block(cg, "entry.test") : dflt;

		LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, key, kv[i], ""), bbs[i], next);
		LLVMPositionBuilderAtEnd(B, next);
	}
}

/* An entry value: a chain of cases, one per call site, that compares the
 * frame's return address with each call's (x->c the next case).  It is
 * one dispatch on the return address less the load bias, each case its
 * own block: only the value of the call that was made is computed and
 * read, and the program holds one case's values at a time.  As selects
 * over every case, a function with 64 callers kept them all at once, over
 * the 512-byte BPF stack, and each select is a branch the verifier walks
 * both ways.  NULL when @x is no such chain (*@done false) or after a
 * reported error. */
static LLVMValueRef expr_chain(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
			       struct cg_value *v, bool *done)
{
	struct chain_phis *ph;
	const struct dw_expr *chain[IF_CHAIN_MAX], *p = x, *ra = NULL;
	uint64_t keys[IF_CHAIN_MAX];
	LLVMValueRef kv[IF_CHAIN_MAX], key, st, r = NULL;
	LLVMBasicBlockRef merge, bbs[IF_CHAIN_MAX];
	size_t n = 0, m = 0;

	*done = false;
	for (; p->op == DW_EXPR_IF && n < IF_CHAIN_MAX && chain_case(p->a, &ra, &keys[n]); p = p->c)
		chain[n++] = p;
	if (n < 2 || p->op == DW_EXPR_IF)
		return NULL;
	*done = true;
	if (!(key = expr_value(cg, e, ra, v)))
		return NULL;
	key = LLVMBuildSub(cg->builder, key, cg_load_bias(cg), "ra.pc");
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++) /* the first case of a pc wins */
			seen = keys[j] == keys[i];
		if (!seen) {
			chain[m] = chain[i];
			kv[m] = cg_site_const(cg, keys[i]);
			bbs[m++] = cg_block(cg, "entry.call");
		}
	}
	merge = cg_block(cg, "entry.value");
	bbs[m] = cg_block(cg, "entry.none");
	chain_dispatch(cg, key, kv, bbs, m, bbs[m]);
	ph = xcalloc(1, sizeof(*ph)); /* a case may hold a chain of its own */
	for (size_t i = 0; i <= m; i++) {
		LLVMPositionBuilderAtEnd(cg->builder, bbs[i]);
		if (!chain_arm(cg, e, i < m ? chain[i]->b : p, merge, ph))
			goto out;
	}
	LLVMPositionBuilderAtEnd(cg->builder, merge);
	r = chain_phi(cg, LLVMInt64TypeInContext(cg->ctx), ph->r, ph);
	st = chain_phi(cg, LLVMInt32TypeInContext(cg->ctx), ph->st, ph);
	cg_merge_status(cg, v, st, chain_phi(cg, LLVMInt64TypeInContext(cg->ctx), ph->fa, ph));
out:
	free(ph);
	return r;
}

static LLVMValueRef expr_if(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
			    struct cg_value *v)
{
	bool done;
	LLVMValueRef r = expr_chain(cg, e, x, v, &done);

	return done ? r : expr_select(cg, e, x, v);
}

/* The block of a module whose thread-local variables are not static:
 * dtv[modid] of the thread's DTV (glibc, x86-64: the TCB at the thread
 * pointer holds dtv at 8; dtv[-1] counts its entries; an entry is 16
 * bytes, its first word the block).  A thread that never used the module
 * has no block: its entry is TLS_DTV_UNALLOCATED (-1), or 0 or past the
 * end when the DTV predates the dlopen; that is WR_ARG_TLS_UNALLOCATED
 * and nothing is read at the block. */
static LLVMValueRef dtv_block(struct cg *cg, LLVMValueRef tp, uint64_t modid, struct cg_value *v)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef dtv, len, past, entry, blk, none;

	dtv = cg_read_u64(cg, LLVMBuildAdd(B, tp, cg_i64(cg, 8), ""), 8, v);
	len = cg_read_u64(cg, LLVMBuildSub(B, dtv, cg_i64(cg, 16), ""), 8, v);
	past = LLVMBuildICmp(B, LLVMIntULT, len, cg_i64(cg, modid), "");
	cg_merge_status(cg, v, LLVMBuildSelect(B, past, cg_i32(cg, WR_ARG_TLS_UNALLOCATED),
					    cg_i32(cg, WR_ARG_OK), ""), cg_i64(cg, 0));
	entry = LLVMBuildSelect(B, past, cg_i64(cg, 0),
				LLVMBuildAdd(B, dtv, cg_i64(cg, modid * 16), ""), "");
	blk = cg_read_u64(cg, entry, 8, v);
	none = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntEQ, blk, cg_i64(cg, UINT64_MAX), ""),
			   LLVMBuildICmp(B, LLVMIntEQ, blk, cg_i64(cg, 0), ""), "");
	cg_merge_status(cg, v, LLVMBuildSelect(B, none, cg_i32(cg, WR_ARG_TLS_UNALLOCATED),
					    cg_i32(cg, WR_ARG_OK), ""), cg_i64(cg, 0));
	return LLVMBuildSelect(B, none, cg_i64(cg, 0), blk, "tls");
}

/* The current thread's block of thread-local variables of the module the
 * location being read belongs to (cg->tls_module). */
static LLVMValueRef tls_block(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	const struct plan_vars *pv = &cg->plan->vars;
	const char *why = "this probe cannot see thread-local variables", *hint = NULL;
	LLVMValueRef args[1], tp;
	uint64_t value = 0;
	uint32_t fsbase;
	bool is_static = false;

	if (!pv->tls_block ||
	    pv->tls_block(pv->ctx, cg->tls_module, &is_static, &value, &why, &hint) != 0) {
		cg_fail(cg, e->loc, hint, "'%s' is thread-local, and %s", e->str, why);
		return NULL;
	}
	fsbase = cg->plan->fsbase_offset ? cg->plan->fsbase_offset() : 0;
	if (!fsbase) {
		cg_fail(cg, e->loc, "the kernel needs BTF (/sys/kernel/btf/vmlinux)",
			"'%s' is thread-local, and this kernel does not say where a thread's fs base is",
			e->str);
		return NULL;
	}
	args[0] = cg_i64(cg, fsbase);
	tp = cg_call(cg, WR_FN_THREAD_POINTER, args, 1);
	if (!is_static)
		return dtv_block(cg, tp, value, v);
	return LLVMBuildSub(cg->builder, tp, cg_i64(cg, value), "tls");
}

/* The value of location tree @x (see dwarf/location.h), reading memory as it says;
 * a failed read is recorded in @v's status, and so is a branch with no
 * value (<optimized out>).  NULL after a reported error. */
static LLVMValueRef expr_value(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
			       struct cg_value *v)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef a = NULL, b = NULL;

	if (x->op == DW_EXPR_IF)
		return expr_if(cg, e, x, v);
	if (x->op == DW_EXPR_UNAVAILABLE || x->op == DW_EXPR_UNREADABLE) {
		cg_merge_status(cg, v, cg_i32(cg, x->op == DW_EXPR_UNREADABLE ? WR_ARG_UNAVAILABLE : WR_ARG_OPTIMIZED_OUT),
				cg_i64(cg, 0));
		return cg_i64(cg, 0);
	}
	if (x->a && !(a = expr_value(cg, e, x->a, v)))
		return NULL;
	if (x->b && !(b = expr_value(cg, e, x->b, v)))
		return NULL;
	switch (x->op) {
	case DW_EXPR_CONST: return cg_site_const(cg, (uint64_t)x->value);
	case DW_EXPR_REG: return cg_site_reg(cg, x->reg);
	case DW_EXPR_CFA: return frame_cfa(cg, e);
	case DW_EXPR_BIAS:
		return cg_load_bias(cg);
	case DW_EXPR_DEREF: return cg_read_u64(cg, a, x->size, v);
	case DW_EXPR_NEG: return LLVMBuildNeg(B, a, "");
	case DW_EXPR_NOT: return LLVMBuildNot(B, a, "");
	case DW_EXPR_ABS:
		return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, a, cg_i64(cg, 0), ""),
				       LLVMBuildNeg(B, a, ""), a, "");
	case DW_EXPR_TLS: return tls_block(cg, e, v);
	default: return expr_binary(cg, x->op, a, b);
	}
}

/* A value that starts @shift bits up in @x (a member of a struct held in
 * a register). */
static LLVMValueRef shifted(struct cg *cg, LLVMValueRef x, uint64_t shift)
{
	return shift ? LLVMBuildLShr(cg->builder, x, cg_i64(cg, shift), "") : x;
}

/* Bits [@lo, @lo + @n) (@n <= 64) of the value at @loc - pieces, or an
 * aggregate in one register - into *@x, each piece's bits in place; the
 * status of its reads into *@st (NULL: none).  Bits no piece kept
 * (dw_loc_unavailable()) are 0. */
int locations_window(struct cg *cg, const struct ast_expr *e, const struct dw_loc *loc,
			   uint64_t lo, unsigned n, LLVMValueRef *x, LLVMValueRef *st)
{
	static const struct dw_type u64 = { .kind = DW_TYPE_INT, .name = "u64", .size = 8 };
	struct dw_piece whole = { .loc = *loc, .bit_offset = 0, .bit_size = UINT64_MAX / 2 };
	const struct dw_piece *pieces = loc->kind == DW_LOC_PIECES ? loc->pieces : &whole;
	size_t n_pieces = loc->kind == DW_LOC_PIECES ? loc->n_pieces : 1;
	uint64_t at = (loc->kind == DW_LOC_PIECES ? loc->bit_shift : 0) + lo;
	LLVMBuilderRef B = cg->builder;

	*x = cg_i64(cg, 0);
	*st = NULL;
	for (size_t i = 0; i < n_pieces; i++) {
		const struct dw_piece *p = &pieces[i];
		uint64_t end = p->bit_offset + p->bit_size;
		uint64_t from = p->bit_offset > at ? p->bit_offset : at, to = end < at + n ? end : at + n;
		uint64_t held;
		struct cg_value part;
		struct dw_loc sub;
		LLVMValueRef v;

		if (from >= to)
			continue;
		held = ~dw_loc_unavailable(&p->loc, from - p->bit_offset, (unsigned)(to - from));
		if (!(held & 1))
			continue; /* empty, or beyond its register */
		dw_loc_select(&p->loc, from - p->bit_offset, to - from, &sub);
		if (locations_value(cg, e, &u64, &sub, &part))
			return -WR_ESEMANTIC;
		if (part.optimized_out)
			continue;
		v = part.lvalue ? cg_read_u64(cg, part.v, (unsigned)((to - from + 7) / 8), &part) : part.v;
		if (to - from < 64)
			v = LLVMBuildAnd(B, v, cg_i64(cg, held & ((1ull << (to - from)) - 1)), "");
		*x = LLVMBuildOr(B, *x, LLVMBuildShl(B, v, cg_i64(cg, from - at), ""), "");
		if (part.status)
			*st = *st ? LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntNE, *st, cg_i32(cg, 0), ""),
						    *st, part.status, "")
				  : part.status;
	}
	return 0;
}

/* A scalar assembled from pieces: each piece's bits in place; <optimized
 * out> when a bit of it was not kept (as gdb says). */
static int composed_scalar(struct cg *cg, const struct ast_expr *e, const struct dw_type *t,
			   const struct dw_loc *loc, struct cg_value *out)
{
	unsigned n = t->size && t->size < 8 ? (unsigned)t->size * 8 : 64;
	LLVMValueRef acc, st;

	if (dw_loc_unavailable(loc, 0, n)) {
		cg_set_value(out, t, cg_i64(cg, 0));
		out->optimized_out = true;
		return 0;
	}
	if (locations_window(cg, e, loc, 0, n, &acc, &st))
		return -WR_ESEMANTIC;
	cg_set_value(out, t, acc);
	out->status = st;
	return 0;
}

/* The value of type @t at @loc (see dwarf/location.h) into @out. */
int locations_value(struct cg *cg, const struct ast_expr *e, const struct dw_type *t,
		    const struct dw_loc *loc, struct cg_value *out)
{
	LLVMValueRef base;
	/* a pointer to a member function is two words: read as an aggregate */
	bool aggregate = (!dw_type_is_scalar(t) || t->size > 8) && t->kind != DW_TYPE_FLOAT;

	if (aggregate && (loc->kind == DW_LOC_REG || loc->kind == DW_LOC_VALUE_REG ||
			  loc->kind == DW_LOC_VALUE_EXPR || loc->kind == DW_LOC_CONST)) {
		/* a small struct or union in a register: read by member */
		cg_set_value(out, t, cg_i64(cg, 0));
		out->composed = true;
		out->loc = *loc;
		return 0;
	}
	switch (loc->kind) {
	case DW_LOC_REG:
		cg_set_value(out, t, shifted(cg, cg_site_reg(cg, loc->reg), loc->bit_shift));
		return 0;
	case DW_LOC_VALUE_REG:
		base = cg_site_reg(cg, loc->reg);
		base = LLVMBuildAdd(cg->builder, base, cg_site_const(cg, (uint64_t)loc->offset), "");
		cg_set_value(out, t, shifted(cg, base, loc->bit_shift));
		return 0;
	case DW_LOC_CONST:
		cg_set_value(out, t, shifted(cg, cg_site_const(cg, (uint64_t)loc->offset), loc->bit_shift));
		return 0;
	case DW_LOC_MEM_REG:
		base = cg_site_reg(cg, loc->reg);
		break;
	case DW_LOC_MEM_CFA:
		base = frame_cfa(cg, e);
		if (!base)
			return -WR_ESEMANTIC;
		break;
	case DW_LOC_MEM_EXPR:
	case DW_LOC_VALUE_EXPR:
		memset(out, 0, sizeof(*out));
		cg->tls_module = loc->tls_module;
		base = expr_value(cg, e, loc->expr, out);
		if (!base)
			return -WR_ESEMANTIC;
		if (loc->kind == DW_LOC_MEM_EXPR)
			base = LLVMBuildAdd(cg->builder, base, cg_site_const(cg, (uint64_t)loc->offset), "");
		else
			base = shifted(cg, base, loc->bit_shift);
		{
			LLVMValueRef st = out->status, at = out->fail_addr;

			if (loc->kind == DW_LOC_MEM_EXPR)
				cg_set_lvalue(out, t, base);
			else
				cg_set_value(out, t, base);
			out->status = st;
			out->fail_addr = at;
		}
		return 0;
	case DW_LOC_MEM_ADDR:
		base = cg_load_bias(cg);
		break;
	case DW_LOC_PIECES:
		/* a long double's 16 bytes are assembled as an aggregate's */
		if (!aggregate && !(t->kind == DW_TYPE_FLOAT && t->size > 8))
			return composed_scalar(cg, e, t, loc, out);
		cg_set_value(out, t, cg_i64(cg, 0));
		out->composed = true;
		out->loc = *loc;
		return 0;
	case DW_LOC_OPTIMIZED_OUT:
		cg_set_value(out, t, cg_i64(cg, 0));
		out->optimized_out = true;
		return 0;
	case DW_LOC_IMPLICIT_PTR:
		cg_set_value(out, t, cg_i64(cg, 0));
		out->synthetic = true;
		out->loc = *loc;
		return 0;
	default:
		if (loc->unreadable_reg) {
			char reg[16];

			cg->unreadable_reg = loc->unreadable_reg;
			return cg_fail(cg, e->loc, "print it to see <unavailable>",
				       "'%s' is %s %s at this pc of %s, which a uprobe cannot read: the "
				       "kernel gives a probe the general-purpose registers only",
				       e->str, loc->unreadable_computed ? "computed from" : "in",
				       cg_reg_name(loc->unreadable_reg - 1, reg, sizeof(reg)), cg->plan->name);
		}
		return cg_fail(cg, e->loc, NULL, "'%s' cannot be read at this pc of %s: %s", e->str,
			       cg->plan->name,
			       loc->why ? loc->why : "unsupported location");
	}
	cg_set_lvalue(out, t, LLVMBuildAdd(cg->builder, base, cg_site_const(cg, (uint64_t)loc->offset), ""));
	return 0;
}
