/* values.c - reading the traced program's variables in a probe.
 *
 * A program value is either an lvalue (its address in the target, to be
 * read with bpf_probe_read_user when needed) or an rvalue (already in a
 * register of the probe's pt_regs, or a constant).  Member access, indexing
 * and dereferencing move addresses around without reading; a read happens
 * only when a scalar is needed (arithmetic, conditions, printing) or a
 * pointer must be followed.  A failed read never aborts the probe: the
 * value reads as 0 and its wire status says what failed, so the output
 * shows `<read error>` or `NULL` at that argument.
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "util/diag.h"
#include "util/editdist.h"
#include "util/error.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <ctype.h>
#include <string.h>

static LLVMTypeRef i64t(struct cg *cg)
{
	return LLVMInt64TypeInContext(cg->ctx);
}

#define reg_value cg_site_reg

/* The first failed read wins: its status, and the address it failed at
 * (for expression errors). */
static void merge_status(struct cg *cg, struct cg_value *v, LLVMValueRef st, LLVMValueRef addr)
{
	LLVMValueRef failed;

	if (!v->status) {
		v->status = st;
		v->fail_addr = addr;
		return;
	}
	failed = LLVMBuildICmp(cg->builder, LLVMIntNE, v->status, cg_i32(cg, 0), "");
	v->status = LLVMBuildSelect(cg->builder, failed, v->status, st, "");
	v->fail_addr = LLVMBuildSelect(cg->builder, failed, v->fail_addr ? v->fail_addr : cg_i64(cg, 0),
				       addr, "");
}

/* Read @size bytes at @addr; the value is zero-extended to i64.  Every
 * read goes through one stack slot: the value is loaded from it at once,
 * and a slot per read would exhaust BPF's 512-byte stack in a few dozen
 * reads. */
static LLVMValueRef read_u64(struct cg *cg, LLVMValueRef addr, unsigned size, struct cg_value *v)
{
	LLVMValueRef args[3], st;

	if (!cg->scratch)
		cg->scratch = cg_alloca(cg, i64t(cg), "scratch");
	args[0] = cg->scratch;
	args[1] = cg_i32(cg, size);
	args[2] = addr;
	st = LLVMBuildTrunc(cg->builder, cg_call(cg, WR_FN_READ_USER, args, 3),
			    LLVMInt32TypeInContext(cg->ctx), "");
	merge_status(cg, v, st, addr);
	return LLVMBuildLoad2(cg->builder, i64t(cg), cg->scratch, "");
}

#define fit cg_fit

static void set_dw(struct cg_value *out, const struct dw_type *t, LLVMValueRef v, bool lvalue)
{
	cg_set_value(out, t, v);
	out->lvalue = lvalue;
}

static int unknown_name(struct cg *cg, const struct ast_expr *e)
{
	struct strbuf hint = STRBUF_INIT;
	int err;

	if (cg->plan->vars.hint)
		cg->plan->vars.hint(cg->plan->vars.ctx, &hint);
	err = cg_fail(cg, e->loc, hint.len ? hint.buf : "bind script values with 'let NAME = EXPR;'",
		      "no variable '%s' is visible at %s", e->str, cg->plan->name);
	strbuf_release(&hint);
	return err;
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
	return LLVMBuildAdd(cg->builder, reg_value(cg, cg->plan->cfa_reg),
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
		return LLVMBuildZExt(B, LLVMBuildICmp(B, preds[op - DW_EXPR_EQ], a, b, ""), i64t(cg), "");
	}
}

static LLVMValueRef expr_value(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
			       struct cg_value *v);

/* x->a ? x->b : x->c, each branch's reads failing only when taken. */
static LLVMValueRef expr_if(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x,
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
	merge_status(cg, v, st, LLVMBuildSelect(B, cond, tv.fail_addr ? tv.fail_addr : cg_i64(cg, 0),
						ev.fail_addr ? ev.fail_addr : cg_i64(cg, 0), ""));
	return LLVMBuildSelect(B, cond, t, f, "");
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

	dtv = read_u64(cg, LLVMBuildAdd(B, tp, cg_i64(cg, 8), ""), 8, v);
	len = read_u64(cg, LLVMBuildSub(B, dtv, cg_i64(cg, 16), ""), 8, v);
	past = LLVMBuildICmp(B, LLVMIntULT, len, cg_i64(cg, modid), "");
	merge_status(cg, v, LLVMBuildSelect(B, past, cg_i32(cg, WR_ARG_TLS_UNALLOCATED),
					    cg_i32(cg, WR_ARG_OK), ""), cg_i64(cg, 0));
	entry = LLVMBuildSelect(B, past, cg_i64(cg, 0),
				LLVMBuildAdd(B, dtv, cg_i64(cg, modid * 16), ""), "");
	blk = read_u64(cg, entry, 8, v);
	none = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntEQ, blk, cg_i64(cg, UINT64_MAX), ""),
			   LLVMBuildICmp(B, LLVMIntEQ, blk, cg_i64(cg, 0), ""), "");
	merge_status(cg, v, LLVMBuildSelect(B, none, cg_i32(cg, WR_ARG_TLS_UNALLOCATED),
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
	if (x->op == DW_EXPR_UNAVAILABLE) {
		merge_status(cg, v, cg_i32(cg, WR_ARG_OPTIMIZED_OUT), cg_i64(cg, 0));
		return cg_i64(cg, 0);
	}
	if (x->a && !(a = expr_value(cg, e, x->a, v)))
		return NULL;
	if (x->b && !(b = expr_value(cg, e, x->b, v)))
		return NULL;
	switch (x->op) {
	case DW_EXPR_CONST: return cg_site_const(cg, (uint64_t)x->value);
	case DW_EXPR_REG: return reg_value(cg, x->reg);
	case DW_EXPR_CFA: return frame_cfa(cg, e);
	case DW_EXPR_BIAS:
		return cg_load_bias(cg);
	case DW_EXPR_DEREF: return read_u64(cg, a, x->size, v);
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

static int value_at(struct cg *cg, const struct ast_expr *e, const struct dw_type *t,
		    const struct dw_loc *loc, struct cg_value *out);

/* Bits [@lo, @lo + @n) (@n <= 64) of the value at @loc - pieces, or an
 * aggregate in one register - into *@x, each piece's bits in place; the
 * status of its reads into *@st (NULL: none).  Bits no piece kept
 * (dw_loc_unavailable()) are 0. */
static int composed_window(struct cg *cg, const struct ast_expr *e, const struct dw_loc *loc,
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
		if (value_at(cg, e, &u64, &sub, &part))
			return -WR_ESEMANTIC;
		if (part.optimized_out)
			continue;
		v = part.lvalue ? read_u64(cg, part.v, (unsigned)((to - from + 7) / 8), &part) : part.v;
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
		set_dw(out, t, cg_i64(cg, 0), false);
		out->optimized_out = true;
		return 0;
	}
	if (composed_window(cg, e, loc, 0, n, &acc, &st))
		return -WR_ESEMANTIC;
	set_dw(out, t, acc, false);
	out->status = st;
	return 0;
}

/* The value of type @t at @loc (see dwarf/location.h) into @out. */
static int value_at(struct cg *cg, const struct ast_expr *e, const struct dw_type *t,
		    const struct dw_loc *loc, struct cg_value *out)
{
	LLVMValueRef base;
	/* a pointer to a member function is two words: read as an aggregate */
	bool aggregate = (!dw_type_is_scalar(t) || t->size > 8) && t->kind != DW_TYPE_FLOAT;

	if (aggregate && (loc->kind == DW_LOC_REG || loc->kind == DW_LOC_VALUE_REG ||
			  loc->kind == DW_LOC_VALUE_EXPR || loc->kind == DW_LOC_CONST)) {
		/* a small struct or union in a register: read by member */
		set_dw(out, t, cg_i64(cg, 0), false);
		out->composed = true;
		out->loc = *loc;
		return 0;
	}
	switch (loc->kind) {
	case DW_LOC_REG:
		set_dw(out, t, shifted(cg, reg_value(cg, loc->reg), loc->bit_shift), false);
		return 0;
	case DW_LOC_VALUE_REG:
		base = reg_value(cg, loc->reg);
		base = LLVMBuildAdd(cg->builder, base, cg_site_const(cg, (uint64_t)loc->offset), "");
		set_dw(out, t, shifted(cg, base, loc->bit_shift), false);
		return 0;
	case DW_LOC_CONST:
		set_dw(out, t, shifted(cg, cg_site_const(cg, (uint64_t)loc->offset), loc->bit_shift), false);
		return 0;
	case DW_LOC_MEM_REG:
		base = reg_value(cg, loc->reg);
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

			set_dw(out, t, base, loc->kind == DW_LOC_MEM_EXPR);
			out->status = st;
			out->fail_addr = at;
		}
		return 0;
	case DW_LOC_MEM_ADDR:
		base = cg_load_bias(cg);
		break;
	case DW_LOC_PIECES:
		if (!aggregate)
			return composed_scalar(cg, e, t, loc, out);
		set_dw(out, t, cg_i64(cg, 0), false);
		out->composed = true;
		out->loc = *loc;
		return 0;
	case DW_LOC_OPTIMIZED_OUT:
		set_dw(out, t, cg_i64(cg, 0), false);
		out->optimized_out = true;
		return 0;
	case DW_LOC_IMPLICIT_PTR:
		set_dw(out, t, cg_i64(cg, 0), false);
		out->synthetic = true;
		out->loc = *loc;
		return 0;
	default:
		return cg_fail(cg, e->loc, NULL, "'%s' cannot be read at this pc of %s: %s", e->str,
			       cg->plan->name,
			       loc->why ? loc->why : "unsupported location");
	}
	set_dw(out, t, LLVMBuildAdd(cg->builder, base, cg_site_const(cg, (uint64_t)loc->offset), ""), true);
	return 0;
}

/* A name that is no variable may be an enumerator, a constant of its enum. */
static int enum_constant(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct dw_type *t;
	int64_t v;

	if (!cg->plan->vars.find_enumerator ||
	    cg->plan->vars.find_enumerator(cg->plan->vars.ctx, e->str, &t, &v))
		return unknown_name(cg, e);
	set_dw(out, t, fit(cg, cg_i64(cg, (uint64_t)v), ctype_bits(t, 0), t->is_signed), false);
	return 0;
}

/* A function of the module: a value of its function type whose address is
 * its code (it decays to a pointer where C decays it). */
static int function_value(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct dw_type *t;
	uint64_t vaddr;
	LLVMValueRef bias;

	if (!cg->plan->vars.find_function ||
	    cg->plan->vars.find_function(cg->plan->vars.ctx, e->str, &t, &vaddr))
		return enum_constant(cg, e, out);
	bias = cg_load_bias(cg);
	set_dw(out, t, LLVMBuildAdd(cg->builder, bias, cg_i64(cg, vaddr), ""), true);
	return 0;
}

static int follow(struct cg *cg, const struct ast_expr *e, struct cg_value *v, struct cg_value *out);

/* A C++ reference stands for its referent, as in C++: @v becomes the
 * referent (an lvalue), remembering the reference for print. */
static int through_reference(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	struct cg_value ref = *v;
	int err;

	if (v->kind != CG_VALUE || !v->dt->is_reference || !v->dt->target)
		return 0;
	if (v->optimized_out) {
		v->dt = ref.dt->target;
	} else {
		err = follow(cg, e, &ref, v);
		if (err)
			return err;
	}
	v->ref = ref.dt;
	return 0;
}

/* Inside a method, a member named alone is this->member, as gdb finds
 * it; -ENOENT (nothing reported) when there is no `this` with it. */
static int implicit_this(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct ast_expr self = { .kind = AST_EXPR_IDENT, .loc = e->loc, .str = (char *)"this",
				 .off = e->off, .end = e->end, .height = 1 };
	struct ast_expr member = *e;
	struct dw_var var;
	struct cg_value base;
	uint64_t off;
	int err;

	if (cg->plan->vars.find(cg->plan->vars.ctx, "this", &var) || !var.type ||
	    var.type->kind != DW_TYPE_POINTER || !var.type->target ||
	    var.type->target->kind != DW_TYPE_STRUCT || !dw_type_member(var.type->target, e->str, &off))
		return -ENOENT;
	member.kind = AST_EXPR_MEMBER;
	member.arrow = true;
	member.lhs = &self;
	member.height = 2;
	err = value_at(cg, &self, var.type, &var.loc, &base);
	return err ? err : values_member(cg, &member, &base, out);
}

int values_ident(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct dw_var var;
	int err;

	if (!cg->plan->vars.find)
		return cg_fail(cg, e->loc, "build the program with -g, or install its debug info",
			       "'%s' cannot be read: %s has no debug information", e->str, cg->plan->name);
	if (cg->plan->vars.find(cg->plan->vars.ctx, e->str, &var)) {
		err = implicit_this(cg, e, out);
		return err != -ENOENT ? err : function_value(cg, e, out);
	}
	if (var.frame)
		cg->arg_frame = var.frame;
	err = value_at(cg, e, var.type, &var.loc, out);
	return err ? err : through_reference(cg, e, out);
}

/* Member or element @t at byte @offset of composed value @base; a
 * bitfield's bits follow (@bit_size, @bit_offset). */
static int composed_part(struct cg *cg, const struct ast_expr *e, const struct cg_value *base,
			 const struct dw_type *t, uint64_t offset, unsigned bit_size, unsigned bit_offset,
			 struct cg_value *out)
{
	struct dw_loc sub;
	int err;

	dw_loc_select(&base->loc, offset * 8, (t->size ? t->size : 1) * 8, &sub);
	err = value_at(cg, e, t, &sub, out);
	if (err || !bit_size || out->optimized_out)
		return err;
	if (out->lvalue) {
		out->bit_size = bit_size;
		out->bit_offset = bit_offset;
	} else {
		out->v = fit(cg, LLVMBuildLShr(cg->builder, out->v, cg_i64(cg, bit_offset), ""), bit_size,
			     t->is_signed);
	}
	return 0;
}

int values_need_lvalue(struct cg *cg, const struct ast_expr *e, const struct cg_value *v,
		       const char *what)
{
	if (v->optimized_out)
		return cg_fail(cg, e->loc, NULL, "%s is optimized out at this pc of %s", what,
			       cg->plan->name);
	if (v->kind != CG_VALUE || !v->lvalue)
		return cg_fail(cg, e->loc, "it lives in a register (or is computed), not in memory",
			       "%s has no address", what);
	return 0;
}

/* The value @byte_off bytes into what synthetic pointer @v points to, of
 * type @t (gdb reads through a <synthetic pointer> the same way). */
static int synthetic_target(struct cg *cg, const struct ast_expr *e, const struct cg_value *v,
			    const struct dw_type *t, int64_t byte_off, struct cg_value *out)
{
	struct dw_loc sub;
	uint64_t at = (uint64_t)v->loc.offset + (uint64_t)byte_off;

	if (!t || t->kind == DW_TYPE_VOID)
		return cg_fail(cg, e->loc, NULL, "%s points to void, which has no value to read",
			       v->dt->name);
	dw_loc_select(v->loc.target, at * 8, (t->size ? t->size : 1) * 8, &sub);
	return value_at(cg, e, t, &sub, out);
}

/* Follow pointer @v: the pointee as an lvalue.  A NULL pointer makes
 * every later read of it report a null dereference. */
static int follow(struct cg *cg, const struct ast_expr *e, struct cg_value *v, struct cg_value *out)
{
	LLVMValueRef p, is_null, st;

	if (v->synthetic)
		return synthetic_target(cg, e, v, v->dt->target, 0, out);
	if (v->optimized_out) /* as gdb: "value has been optimized out" */
		return cg_fail(cg, e->loc, "print the pointer itself to see <optimized out>",
			       "this pointer is optimized out at this pc of %s: what it points to "
			       "cannot be read", cg->plan->name);
	p = values_scalar(cg, e, v);
	if (!p)
		return -WR_ESEMANTIC;
	set_dw(out, v->dt->target, p, true);
	out->status = v->status;
	out->fail_addr = v->fail_addr;
	is_null = LLVMBuildICmp(cg->builder, LLVMIntEQ, p, cg_i64(cg, 0), "");
	st = LLVMBuildSelect(cg->builder, is_null, cg_i32(cg, WR_ARG_NULL_DEREF), cg_i32(cg, 0), "");
	merge_status(cg, out, st, cg_i64(cg, 0));
	return 0;
}

/* The pointee of @v (a pointer, or an array seen as a pointer to its first
 * element), refusing what has no value to read. */
static int pointee(struct cg *cg, const struct ast_expr *e, struct cg_value *v, struct cg_value *out)
{
	const struct dw_type *t;
	char what[160];
	int err;

	if (cg_library_pointer(cg, e, v, &err) && err)
		return err;
	if (v->kind == CG_VALUE && v->dt->kind == DW_TYPE_ARRAY) {
		int err = values_need_lvalue(cg, e, v, "the array");

		if (err)
			return err;
		*out = *v;
		out->dt = v->dt->target;
		out->ref = NULL;
		return 0;
	}
	if (v->kind != CG_VALUE || v->dt->kind != DW_TYPE_POINTER)
		return cg_fail(cg, e->loc, NULL, "only a pointer or an array can be dereferenced, not %s",
			       cg_describe(v, what, sizeof(what)));
	t = v->dt->target;
	if (!t || t->kind == DW_TYPE_VOID)
		return cg_fail(cg, e->loc, "cast it to a pointer to what it points to: cast(p, \"T *\")",
			       "%s points to void, which has no value to read", v->dt->name);
	return follow(cg, e, v, out);
}

#define MAX_MEMBERS_NAMED 16

/* The names @t's members go by: a base class's and an anonymous member's
 * own members in their place, as a member access finds them. */
static void member_names(const struct dw_type *t, const char **names, size_t *n, int depth)
{
	for (size_t i = 0; depth < 8 && i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];

		if (!mb->name || !strcmp(mb->name, "<base>"))
			member_names(mb->type, names, n, depth + 1);
		else if (*n < MAX_MEMBERS_NAMED + 1 && strncmp(mb->name, "_vptr", 5))
			names[(*n)++] = mb->name;
	}
}

/* "struct point has no member 'z'", with what it has and the closest. */
static int no_member(struct cg *cg, const struct ast_expr *e, const struct dw_type *t)
{
	const char *names[MAX_MEMBERS_NAMED + 1], *close = NULL;
	struct strbuf hint = STRBUF_INIT;
	size_t n = 0, len = strlen(e->str);
	/* a one-letter name is close to every other */
	unsigned limit = len > 2 ? 2 : (unsigned)len - 1, best = limit + 1;
	int err;

	member_names(t, names, &n, 0);
	for (size_t i = 0; i < n && i < MAX_MEMBERS_NAMED; i++) {
		unsigned d = edit_distance(e->str, len, names[i], strlen(names[i]), limit);

		if (d < best) {
			best = d;
			close = names[i];
		}
	}
	if (close)
		strbuf_addf(&hint, "did you mean '%s'? ", close);
	if (n)
		strbuf_addf(&hint, "%s has:", t->name);
	for (size_t i = 0; i < n && i < MAX_MEMBERS_NAMED; i++)
		strbuf_addf(&hint, "%s %s", i ? "," : "", names[i]);
	if (n > MAX_MEMBERS_NAMED)
		strbuf_addstr(&hint, ", ...");
	if (!n)
		strbuf_addf(&hint, "%s has no members", t->name);
	err = cg_fail(cg, e->loc, hint.buf, "%s has no member '%s'", t->name, e->str);
	strbuf_release(&hint);
	return err;
}

int values_member(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		  struct cg_value *out)
{
	const struct dw_member *mb;
	struct cg_value obj;
	uint64_t off;
	char what[160];
	int err;

	if (e->arrow && cg_library_pointer(cg, e->lhs, base, &err) && err)
		return err;
	if (base->kind != CG_VALUE ||
	    (base->dt->kind != DW_TYPE_POINTER && base->dt->kind != DW_TYPE_STRUCT &&
	     base->dt->kind != DW_TYPE_UNION))
		return cg_fail(cg, e->loc, NULL, "'%s%s' needs a struct, a union or a pointer to one, not %s",
			       e->arrow ? "->" : ".", e->str, cg_describe(base, what, sizeof(what)));
	if (e->arrow && base->dt->kind != DW_TYPE_POINTER)
		return cg_fail(cg, e->loc, "use '.' for a member of a struct or union itself",
			       "'->%s' needs a pointer, but %s is %s", e->str,
			       e->lhs->kind == AST_EXPR_IDENT ? e->lhs->str : "this",
			       cg_describe(base, what, sizeof(what)));
	obj = *base;
	if (obj.dt->kind == DW_TYPE_POINTER) {
		err = pointee(cg, e->lhs, base, &obj); /* p.x means p->x */
		if (err)
			return err;
	}
	if (obj.dt->incomplete)
		return cg_fail(cg, e->loc, "no module of the process defines it (is its library loaded?)",
			       "%s is only declared here, its members are unknown", obj.dt->name);
	mb = dw_type_member(obj.dt, e->str, &off);
	if (!mb)
		return no_member(cg, e, obj.dt);
	if (obj.optimized_out) {
		/* a member of what is optimized out is too, as gdb says */
		set_dw(out, mb->type, cg_i64(cg, 0), false);
		out->optimized_out = true;
		return 0;
	}
	if (obj.composed) {
		err = composed_part(cg, e, &obj, mb->type, off, mb->bit_size, mb->bit_offset, out);
		return err ? err : through_reference(cg, e, out);
	}
	err = values_need_lvalue(cg, e->lhs, &obj, "the struct");
	if (err)
		return err;
	set_dw(out, mb->type, LLVMBuildAdd(cg->builder, obj.v, cg_i64(cg, off), ""), true);
	out->status = obj.status;
	out->fail_addr = obj.fail_addr;
	out->bit_size = mb->bit_size;
	out->bit_offset = mb->bit_offset;
	return through_reference(cg, e, out);
}

/* An index whose byte offset (index x element size) does not fit in 64
 * signed bits would wrap around the address space and read some other
 * element: a constant one is refused here, a computed one reads nothing
 * and says WR_ARG_INDEX_RANGE.  Returns 0 or -WR_ESEMANTIC. */
static int index_range(struct cg *cg, const struct ast_expr *e, const struct cg_value *base,
		       const struct cg_value *index, unsigned long long size, struct cg_value *out)
{
	LLVMBuilderRef B = cg->builder;
	long long lo = INT64_MIN / (long long)size, hi = INT64_MAX / (long long)size;
	bool is_signed = index->dt->is_signed;
	LLVMValueRef oor, st;
	char what[160];

	if (LLVMIsAConstantInt(index->v)) {
		unsigned long long u = LLVMConstIntGetZExtValue(index->v);
		long long s = LLVMConstIntGetSExtValue(index->v);

		if (is_signed ? s >= lo && s <= hi : u <= (unsigned long long)hi)
			return 0;
		return cg_fail(cg, e->rhs->loc, "an index times the element size must fit in 64 bits",
			       is_signed ? "index %lld of %s is out of range: its byte offset "
					   "(%llu bytes an element) wraps around the address space"
					 : "index %llu of %s is out of range: its byte offset "
					   "(%llu bytes an element) wraps around the address space",
			       is_signed ? s : (long long)u, cg_describe(base, what, sizeof(what)), size);
	}
	oor = LLVMBuildICmp(B, is_signed ? LLVMIntSGT : LLVMIntUGT, index->v, cg_i64(cg, (uint64_t)hi), "");
	if (is_signed)
		oor = LLVMBuildOr(B, oor, LLVMBuildICmp(B, LLVMIntSLT, index->v, cg_i64(cg, (uint64_t)lo), ""),
				  "");
	st = LLVMBuildSelect(B, oor, cg_i32(cg, WR_ARG_INDEX_RANGE), cg_i32(cg, WR_ARG_OK), "");
	merge_status(cg, out, st, cg_i64(cg, 0));
	/* Nothing is read there: the address becomes 0, whose read fails
	 * after the status above is already set. */
	out->v = LLVMBuildSelect(B, oor, cg_i64(cg, 0), out->v, "");
	return 0;
}

int values_index(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		 struct cg_value *index, struct cg_value *out)
{
	struct cg_value elem;
	char what[160];
	LLVMValueRef scaled;
	bool done;
	int err = cg_library_index(cg, e, base, index, out, &done);

	if (done)
		return err;
	if (base->kind != CG_VALUE ||
	    (base->dt->kind != DW_TYPE_ARRAY && base->dt->kind != DW_TYPE_POINTER))
		return cg_fail(cg, e->lhs->loc, NULL, "only arrays and pointers can be indexed, not %s",
			       cg_describe(base, what, sizeof(what)));
	if (index->kind != CG_VALUE || !ctype_is_integer(index->dt))
		return cg_fail(cg, e->rhs->loc, NULL, "an index must be an integer, not %s",
			       cg_describe(index, what, sizeof(what)));
	if (base->optimized_out && base->dt->kind == DW_TYPE_ARRAY) {
		set_dw(out, base->dt->target, cg_i64(cg, 0), false);
		out->optimized_out = true;
		return 0;
	}
	if (LLVMIsAConstantInt(index->v) && base->dt->target &&
	    index_range(cg, e, base, index, base->dt->target->size ? base->dt->target->size : 1, out))
		return -WR_ESEMANTIC;
	if (base->synthetic) {
		if (!LLVMIsAConstantInt(index->v))
			return cg_fail(cg, e->rhs->loc, NULL, "the pointer was optimized away "
				       "(<synthetic pointer>): index it with a constant");
		return synthetic_target(cg, e, base, base->dt->target,
					LLVMConstIntGetSExtValue(index->v) *
					(int64_t)(base->dt->target && base->dt->target->size ? base->dt->target->size : 1),
					out);
	}
	if (base->composed) {
		if (!LLVMIsAConstantInt(index->v))
			return cg_fail(cg, e->rhs->loc, NULL, "the array is split across registers here "
				       "(DW_OP_piece): index it with a constant");
		return composed_part(cg, e, base, base->dt->target,
				     LLVMConstIntGetZExtValue(index->v) * base->dt->target->size, 0, 0, out);
	}
	err = pointee(cg, e->lhs, base, &elem);
	if (err)
		return err;
	if (!elem.dt->size && elem.dt->kind != DW_TYPE_VOID)
		return cg_fail(cg, e->lhs->loc, NULL, "the size of %s is unknown", elem.dt->name);
	scaled = LLVMBuildMul(cg->builder, index->v, cg_i64(cg, elem.dt->size ? elem.dt->size : 1), "");
	*out = elem;
	out->v = LLVMBuildAdd(cg->builder, elem.v, scaled, "");
	cg_merge(cg, out, &elem, index);
	return index_range(cg, e, base, index, elem.dt->size ? elem.dt->size : 1, out);
}

int values_deref(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		 struct cg_value *out)
{
	return pointee(cg, e->lhs, base, out);
}

int values_address_of(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		      struct cg_value *out)
{
	const struct dw_type *p;
	int err;

	if (base->kind == CG_VALUE && base->bit_size && base->lvalue)
		return cg_fail(cg, e->lhs->loc, NULL, "a bitfield has no address of its own");
	err = values_need_lvalue(cg, e->lhs, base, "this expression");
	if (err)
		return err;
	p = cg_pointer_to(cg, base->dt);
	if (!p)
		return cg_fail(cg, e->loc, NULL, "no pointer type for %s", base->dt->name);
	cg_set_value(out, p, base->v);
	out->status = base->status;
	out->fail_addr = base->fail_addr;
	return 0;
}

/* Bytes to read for a bitfield that starts @bit_offset bits into them. */
static unsigned bitfield_bytes(const struct cg_value *v)
{
	unsigned n = (v->bit_offset + v->bit_size + 7) / 8;

	return n > 8 ? 8 : n;
}

LLVMValueRef values_scalar(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	const struct dw_type *t = v->dt;
	unsigned size;
	char what[160];
	LLVMValueRef x;

	if (v->kind != CG_VALUE || !ctype_is_scalar(t) || t->size > 8) {
		cg_fail(cg, e->loc, NULL, "%s has no single value here: use a member, an index, or print it",
			cg_describe(v, what, sizeof(what)));
		return NULL;
	}
	if (v->synthetic) {
		cg_fail(cg, e->loc, "read what it points to: *p, p->member, p[i]",
			"the pointer was optimized away (<synthetic pointer>): it has no value of its own");
		return NULL;
	}
	if (v->optimized_out)
		return cg_i64(cg, 0);
	size = t->size && t->size <= 8 ? (unsigned)t->size : 8;
	if (!v->lvalue)
		return fit(cg, v->v, v->bit_size ? v->bit_size : size * 8, t->is_signed);
	if (v->bit_size) {
		x = read_u64(cg, v->v, bitfield_bytes(v), v);
		x = LLVMBuildLShr(cg->builder, x, cg_i64(cg, v->bit_offset), "");
		return fit(cg, x, v->bit_size, t->is_signed);
	}
	x = read_u64(cg, v->v, size, v);
	return fit(cg, x, size * 8, t->is_signed);
}

/* ---- printing ---- */

static void emit_scalar(struct cg *cg, unsigned kind, LLVMValueRef value, LLVMValueRef status,
			unsigned size)
{
	LLVMValueRef args[4], ks;

	ks = cg_i32(cg, wr_arg_kind_status(kind, WR_ARG_OK));
	if (status)
		ks = LLVMBuildOr(cg->builder, ks,
				 LLVMBuildShl(cg->builder, status, cg_i32(cg, WR_ARG_STATUS_SHIFT), ""), "");
	args[0] = cg->buf;
	args[1] = ks;
	args[2] = cg_i32(cg, size);
	args[3] = value;
	cg_call(cg, WR_FN_ARG_SCALAR, args, 4);
}

/* @size bytes at @addr; @status (may be NULL) is the result of finding
 * the address: when it failed, the event says so instead of reading. */
static void emit_bytes(struct cg *cg, LLVMValueRef addr, uint64_t size, unsigned kind,
		       LLVMValueRef status)
{
	LLVMValueRef ks = cg_i32(cg, kind), args[4];

	if (status)
		ks = LLVMBuildOr(cg->builder, ks, LLVMBuildShl(cg->builder, status, cg_i32(cg, 8), ""), "");
	args[0] = cg->buf;
	args[1] = addr;
	args[2] = cg_i32(cg, size > 256 ? 256 : size);
	args[3] = ks;
	cg_call(cg, WR_FN_ARG_USER_BYTES, args, 4);
}

/* A char pointer @ptr and its string, at most @max bytes; @status (may be
 * NULL) is the result of reading the pointer: when it failed, the event
 * says so instead of reading.  @kind_aux: WR_ARG_CSTR or WR_ARG_ATTACH
 * with its offset. */
static void emit_cstr(struct cg *cg, LLVMValueRef ptr, unsigned max, LLVMValueRef status,
		      unsigned kind_aux)
{
	LLVMValueRef ms = cg_i32(cg, wr_str_max_status(max, WR_ARG_OK)), args[4];

	if (status)
		ms = LLVMBuildOr(cg->builder, ms,
				 LLVMBuildShl(cg->builder, status, cg_i32(cg, WR_STR_STATUS_SHIFT), ""), "");
	args[0] = cg->buf;
	args[1] = ptr;
	args[2] = ms;
	args[3] = cg_i32(cg, kind_aux);
	cg_call(cg, WR_FN_ARG_CSTR, args, 4);
}

struct attach_walk {
	struct cg *cg;
	LLVMValueRef addr;  /* of the printed value */
	uint64_t limit;     /* bytes of it on the wire */
	unsigned n;
	const struct ast_expr *e;  /* a value assembled from pieces: its expression */
	const struct dw_loc *loc;  /* and location (else NULL: it is in memory at addr) */
};

/* The char pointer at byte @at of the value @w prints, and the status of
 * finding it (NULL: none); NULL when a value from pieces did not keep it. */
static LLVMValueRef attached_pointer(struct attach_walk *w, uint64_t at, LLVMValueRef *st)
{
	struct cg_value held = { 0 };
	LLVMValueRef p;

	if (!w->loc) {
		p = read_u64(w->cg, LLVMBuildAdd(w->cg->builder, w->addr, cg_i64(w->cg, at), ""), 8, &held);
		*st = held.status;
		return p;
	}
	if (dw_loc_unavailable(w->loc, at * 8, 64) || composed_window(w->cg, w->e, w->loc, at * 8, 64, &p, st))
		return NULL;
	return p;
}

/* Strings of the char pointers inside a printed aggregate, so it shows
 * `name: 0x... "text"` as gdb does: each follows the aggregate on the wire,
 * tagged with the pointer's offset in it. */
static void attach_strings(struct attach_walk *w, const struct dw_type *t, uint64_t at, int depth)
{
	if (depth > 8 || at >= w->limit || w->n >= WR_ARG_ATTACH_MAX)
		return;
	if (ctype_is_text_pointer(t) && at + 8 <= w->limit) {
		LLVMValueRef st = NULL, p = attached_pointer(w, at, &st);

		if (!p)
			return;
		emit_cstr(w->cg, p, WR_ARG_ATTACH_STR, st, WR_ARG_ATTACH | (unsigned)at << 8);
		w->n++;
	} else if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION) {
		for (size_t i = 0; i < t->n_members; i++)
			if (!t->members[i].bit_size)
				attach_strings(w, t->members[i].type, at + t->members[i].offset, depth + 1);
	} else if (t->kind == DW_TYPE_ARRAY && t->target && t->target->size) {
		for (uint64_t i = 0; i < t->count && w->n < WR_ARG_ATTACH_MAX; i++)
			attach_strings(w, t->target, at + i * t->target->size, depth + 1);
	}
}

static unsigned scalar_kind(const struct dw_type *t)
{
	if (t->kind == DW_TYPE_BOOL)
		return WR_ARG_BOOL;
	if (t->kind == DW_TYPE_ENUM)
		return WR_ARG_ENUM;
	if (t->kind == DW_TYPE_POINTER)
		return WR_ARG_PTR;
	if (t->kind == DW_TYPE_FLOAT)
		return WR_ARG_BYTES;
	if (t->is_char && t->size == 1)
		return WR_ARG_CHAR;
	return t->is_signed ? WR_ARG_I64 : WR_ARG_U64;
}

/* A value printed from memory as it lies there: aggregates, arrays,
 * floating values (the renderer formats them from their bytes). */
static int print_memory(struct cg *cg, const struct ast_expr *e, struct cg_value *v, bool as_number,
			bool raw)
{
	const struct dw_type *t = v->dt;

	if (!v->lvalue)
		return cg_fail(cg, e->loc, NULL, "%s is held in registers and cannot be printed whole",
			       t->name);
	emit_bytes(cg, v->v, t->size, WR_ARG_BYTES, v->status);
	if (!as_number && t->kind != DW_TYPE_FLOAT) {
		struct attach_walk w = { cg, v->v, t->size > 256 ? 256 : t->size, 0, e, NULL };

		attach_strings(&w, t, 0, 0);
		/* a container's elements, a string's characters; under {:r}
		 * the value whole when its argument cannot hold it */
		if (raw ? t->size > WR_DUMP_MAX : walks_needed(t))
			walks_emit(cg, v->v, t, raw);
	}
	return 0;
}

/* Whether any bit of the @size bytes at @loc was kept. */
static bool kept_any(const struct dw_loc *loc, uint64_t size)
{
	for (uint64_t w = 0; w * 8 < size; w++) {
		unsigned n = size - w * 8 >= 8 ? 64 : (unsigned)(size - w * 8) * 8;

		if (dw_loc_unavailable(loc, w * 64, n) != (n >= 64 ? ~0ull : (1ull << n) - 1))
			return true;
	}
	return false;
}

/* An aggregate held in registers or split into pieces (DW_OP_piece),
 * assembled 8 bytes at a time with the bits no piece kept marked, for
 * the renderer to show as <optimized out> (WR_ARG_PIECES). */
static int print_composed(struct cg *cg, const struct ast_expr *e, struct cg_value *v, bool as_number)
{
	uint64_t size = v->dt->size;
	LLVMValueRef args[5], off, x, st;

	if (size > WR_PIECES_MAX)
		return cg_fail(cg, e->loc, "print its members",
			       "%s is split into pieces at this pc and is larger than the %u bytes "
			       "wraith assembles whole", v->dt->name, WR_PIECES_MAX);
	if (!kept_any(&v->loc, size)) {
		/* nothing of it was kept: <optimized out>, as gdb says of it */
		emit_scalar(cg, WR_ARG_I64, cg_i64(cg, 0), cg_i32(cg, WR_ARG_OPTIMIZED_OUT), 0);
		return 0;
	}
	args[0] = cg->buf;
	/* gdb marks a variable DW_OP_GNU_uninit marks, not a part of it */
	args[1] = cg_i32(cg, size | (v->loc.uninit && e->kind == AST_EXPR_IDENT ? WR_PIECES_F_UNINIT : 0));
	off = cg_call(cg, WR_FN_ARG_PIECES, args, 2);
	for (uint64_t w = 0; w * 8 < size; w++) {
		unsigned n = size - w * 8 >= 8 ? 64 : (unsigned)(size - w * 8) * 8;
		LLVMValueRef index = cg_i32(cg, wr_word_index_status((unsigned)w, WR_ARG_OK));

		if (composed_window(cg, e, &v->loc, w * 64, n, &x, &st))
			return -WR_ESEMANTIC;
		if (st)
			index = LLVMBuildOr(cg->builder, index,
					    LLVMBuildShl(cg->builder, st, cg_i32(cg, 8), ""), "");
		args[1] = off;
		args[2] = index;
		args[3] = x;
		args[4] = cg_i64(cg, dw_loc_unavailable(&v->loc, w * 64, n));
		cg_call(cg, WR_FN_ARG_WORD, args, 5);
	}
	if (!as_number) {
		struct attach_walk aw = { cg, NULL, size, 0, e, &v->loc };

		attach_strings(&aw, v->dt, 0, 0);
		if (walks_needed(v->dt))
			walks_emit_pieces(cg, off, v->dt);
	}
	return 0;
}

/* Scalar @x of @v, or, when a read failed, the address whose read failed
 * if that was the value's own read with everything before it read
 * (@pre: the status before it), else 0: user space may read it again
 * there (wire.h). */
static LLVMValueRef value_or_failed_at(struct cg *cg, const struct cg_value *v, LLVMValueRef pre,
				       LLVMValueRef x)
{
	LLVMBuilderRef b = cg->builder;
	LLVMValueRef at = cg_i64(cg, 0), failed;

	if (!v->status)
		return x;
	if (v->lvalue && !v->bit_size && v->status != pre) {
		at = v->v;
		if (pre)
			at = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, pre, cg_i32(cg, 0), ""),
					     cg_i64(cg, 0), at, "");
	}
	failed = LLVMBuildICmp(b, LLVMIntNE, v->status, cg_i32(cg, 0), "");
	return LLVMBuildSelect(b, failed, at, x, "");
}

static int print_value(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		       enum ast_fmt_spec spec);

static bool is_text(const struct dw_type *t)
{
	return ctype_is_text_pointer(t) ||
	       (t->kind == DW_TYPE_ARRAY && t->target && t->target->is_char && t->target->size == 1);
}

/* The path of the first member of @t, at any depth, that {:s} shows:
 * ".name", "._M_dataplus._M_p" (a std::string's).  Not inside a union:
 * which of its members holds the text is not known (a std::string's
 * _M_local_buf holds a short string only). */
static bool text_member(const struct dw_type *t, struct strbuf *path, int depth)
{
	for (size_t i = 0; depth < 8 && t->kind == DW_TYPE_STRUCT && i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];
		size_t len = path->len;

		if (mb->bit_size || (mb->name && !strcmp(mb->name, "<base>")))
			continue;
		if (mb->name)
			strbuf_addf(path, ".%s", mb->name);
		if (is_text(mb->type) || text_member(mb->type, path, depth + 1))
			return true;
		strbuf_setlen(path, len);
	}
	return false;
}

/* Whether a member can follow @text as it stands: a name, member,
 * element or call, no operator before or between. */
static bool postfix_only(const char *text)
{
	for (const char *c = text; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.[]:$>", *c) &&
		    !(*c == '-' && c[1] == '>'))
			return false;
	return true;
}

/* {:s} shows text: a struct or union is not, whatever bytes it holds. */
static int check_text(struct cg *cg, const struct ast_expr *e, const struct dw_type *t)
{
	struct strbuf hint = STRBUF_INIT, expr = STRBUF_INIT, path = STRBUF_INIT;
	int err;

	ast_expr_text(e, &expr);
	if (text_member(t, &path, 0))
		strbuf_addf(&hint, "print the text member it holds: {:s} of %s%s%s%s",
			    postfix_only(expr.buf) ? "" : "(", expr.buf, postfix_only(expr.buf) ? "" : ")",
			    path.buf);
	else
		strbuf_addstr(&hint, "{} shows it member by member, {:x} its bytes");
	strbuf_release(&path);
	err = cg_fail(cg, e->loc, hint.buf, "{:s} shows a string or char array, and %s is %s",
		      expr.buf, t->name);
	strbuf_release(&hint);
	strbuf_release(&expr);
	return err;
}

/* Whether a bt shows what a reference to @t refers to, and so frame 0's
 * referent is copied at the hit: a scalar (`@0x7ffe...: 5`) or one of
 * the library's values (`name="apple"`); not a struct holding them
 * (`...`). */
static bool bt_shows_referent(const struct dw_type *t, struct dw_std *s)
{
	if (!t || !t->size || t->incomplete)
		return false;
	if (ctype_is_scalar(t))
		return t->size <= 8;
	return dw_std_recognize(t, s);
}

/* Whether a bt shows a value of @t, held in memory, with memory outside
 * it: a string's characters (Rust's &str and String too), what a smart
 * pointer or an optional holds; not a container's elements, which a bt
 * elides. */
static bool bt_shows_pointed(const struct dw_type *t, struct dw_std *s)
{
	if (t && t->rust && t->kind == DW_TYPE_STRUCT && !dw_std_recognize(t, s))
		return walks_needed(t); /* a struct or enum holding Strings */
	if (!t || t->kind != DW_TYPE_STRUCT || !dw_std_recognize(t, s))
		return false;
	switch (s->kind) {
	case DW_STD_VECTOR: case DW_STD_BITS: case DW_STD_DEQUE: case DW_STD_LIST:
	case DW_STD_TREE: case DW_STD_RING: case DW_STD_HASH:
		return false;
	default:
		return walks_needed(t);
	}
}

int values_frame_referent(struct cg *cg, const struct ast_expr *e, const struct dw_var *var)
{
	const struct dw_type *t = var->type;
	bool ref = t && t->kind == DW_TYPE_POINTER && t->is_reference;
	struct cg_value v = { 0 };
	struct dw_std s = { 0 };
	LLVMValueRef x;

	if (!t || !(ref ? bt_shows_referent(t->target, &s) : bt_shows_pointed(t, &s)) ||
	    value_at(cg, e, t, &var->loc, &v) || (ref && through_reference(cg, e, &v)) || v.optimized_out ||
	    v.kind != CG_VALUE)
		return -ENOENT;
	/* a &str in two registers: assembled, its characters copied (the
	 * bt finds it by its bytes) */
	if (v.composed && !ref)
		return print_composed(cg, e, &v, false) ? -ENOENT : 0;
	if (!v.lvalue)
		return -ENOENT;
	if (ctype_is_scalar(v.dt)) {
		x = values_scalar(cg, e, &v);
		if (!x)
			return -ENOENT;
		emit_scalar(cg, scalar_kind(v.dt), value_or_failed_at(cg, &v, v.status, x), v.status,
			    (unsigned)v.dt->size);
	} else {
		emit_bytes(cg, v.v, v.dt->size, WR_ARG_BYTES, v.status);
		/* a bt shows a container's head, its elements elided: only
		 * what strings and wrappers point to is copied */
		switch (s.kind) {
		case DW_STD_VECTOR: case DW_STD_BITS: case DW_STD_DEQUE: case DW_STD_LIST:
		case DW_STD_TREE: case DW_STD_RING: case DW_STD_HASH:
			break;
		default:
			walks_emit(cg, v.v, v.dt, false);
		}
	}
	emit_scalar(cg, WR_ARG_ATTACH, v.v, NULL, WR_ARG_ATTACH_REFERENCE);
	return 0;
}

/* A value reached through a C++ reference is printed as its referent's
 * value with the referent's address attached (WR_ARG_ATTACH_REFERENCE),
 * for gdb's `(int &) @0x7ffe...: 5`. */
int values_print_arg(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		     enum ast_fmt_spec spec, unsigned print_index, unsigned wire_index)
{
	bool ref = v->kind == CG_VALUE && v->ref && v->ref->target == v->dt;
	int err;

	if (v->marker) {
		emit_scalar(cg, WR_ARG_I64, cg_i64(cg, 0), cg_i32(cg, v->marker), 0);
		return 0;
	}
	if (spec == AST_FMT_STR && (v->dt->kind == DW_TYPE_STRUCT || v->dt->kind == DW_TYPE_UNION))
		return check_text(cg, e, v->dt);

	cg_note_arg(cg, print_index, wire_index, ref ? v->ref : v->dt);
	err = print_value(cg, e, v, spec);
	if (!err && ref && v->lvalue && !v->optimized_out)
		emit_scalar(cg, WR_ARG_ATTACH, v->v, NULL, WR_ARG_ATTACH_REFERENCE);
	return err;
}

static int print_value(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		       enum ast_fmt_spec spec)
{
	const struct dw_type *t = v->dt;
	bool as_number = spec == AST_FMT_HEX || spec == AST_FMT_HEX_UPPER || spec == AST_FMT_PTR;
	LLVMValueRef x, pre = v->status;

	if (v->optimized_out || v->synthetic) {
		emit_scalar(cg, WR_ARG_I64, cg_i64(cg, 0),
			    cg_i32(cg, v->synthetic ? WR_ARG_SYNTHETIC_POINTER : WR_ARG_OPTIMIZED_OUT), 0);
		return 0;
	}
	if (t->kind == DW_TYPE_FUNCTION) {
		/* gdb's {void (int)} 0x401136 <f>: the address, shown with the type */
		emit_scalar(cg, WR_ARG_PTR, value_or_failed_at(cg, v, pre, v->v), v->status, 8);
		return 0;
	}
	if (!ctype_is_scalar(t) || t->size > 8 || (t->kind == DW_TYPE_FLOAT && v->lvalue)) {
		if (t->incomplete)
			return cg_fail(cg, e->loc, "no module of the process defines it (is its library loaded?)",
				       "%s is only declared here, its contents are unknown", t->name);
		if (v->composed)
			return print_composed(cg, e, v, as_number);
		return print_memory(cg, e, v, as_number, spec == AST_FMT_RAW);
	}
	x = values_scalar(cg, e, v);
	if (!x)
		return -WR_ESEMANTIC;
	if (ctype_is_text_pointer(t) && !as_number) {
		emit_cstr(cg, x, WR_ARG_STR_MAX, v->status, WR_ARG_CSTR);
		return 0;
	}
	emit_scalar(cg, scalar_kind(t), value_or_failed_at(cg, v, pre, x), v->status, (unsigned)t->size);
	return 0;
}
