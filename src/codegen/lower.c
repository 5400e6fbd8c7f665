/* lower.c - statements and expressions of one probe to LLVM IR.
 *
 * The generated function is glue: it calls the template's wr_* entry
 * points (event buffer, print items, backtraces) and computes the values
 * of expressions.  Script values are i64 integers, i1 booleans, or string
 * literals known at compile time (those never travel on the wire: the
 * renderer takes them from the AST).  Every instruction gets the debug
 * location of the script text it came from, so `bpftool prog dump` shows
 * script lines.
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "dwarf/vars.h"
#include "script/walk.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMTypeRef i1(struct cg *cg) { return LLVMInt1TypeInContext(cg->ctx); }
static LLVMTypeRef i32(struct cg *cg) { return LLVMInt32TypeInContext(cg->ctx); }
static LLVMTypeRef i64(struct cg *cg) { return LLVMInt64TypeInContext(cg->ctx); }

LLVMValueRef cg_i32(struct cg *cg, unsigned long long v)
{
	return LLVMConstInt(i32(cg), v, 0);
}

LLVMValueRef cg_i64(struct cg *cg, unsigned long long v)
{
	return LLVMConstInt(i64(cg), v, 0);
}

#define c32 cg_i32
#define c64 cg_i64

/* No subprogram (a probe lowered only for its shape, codegen.c): no
 * locations either. */
static void set_loc(struct cg *cg, struct src_loc loc)
{
	LLVMMetadataRef dl;

	if (!cg->di_sp)
		return;
	dl = LLVMDIBuilderCreateDebugLocation(cg->ctx, loc.line ? loc.line : 1, loc.col, cg->di_sp,
					      NULL);
	LLVMSetCurrentDebugLocation2(cg->builder, dl);
}

/* Call template entry point @name. */
static bool is_entry_point(const char *name, unsigned n)
{
	for (const struct cg_entry *e = cg_entry_points; e->name; e++)
		if (strcmp(e->name, name) == 0)
			return e->n_params == n;
	return false;
}

LLVMValueRef cg_call(struct cg *cg, const char *name, LLVMValueRef *args, unsigned n)
{
	LLVMValueRef fn = is_entry_point(name, n) ? LLVMGetNamedFunction(cg->mod, name) : NULL;

	if (!fn) {
		wr_error("internal error: %s with %u arguments is not a template entry point", name, n);
		cg->llvm_errors++;
		return LLVMGetPoison(LLVMInt64TypeInContext(cg->ctx));
	}
	return LLVMBuildCall2(cg->builder, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

#define call cg_call

/* Stack slots live in the entry block: elsewhere they are dynamic
 * allocations, which the BPF backend refuses. */
LLVMValueRef cg_alloca(struct cg *cg, LLVMTypeRef type, const char *name)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(cg->ctx);
	LLVMValueRef first = LLVMGetFirstInstruction(cg->entry), slot;

	if (first)
		LLVMPositionBuilderBefore(b, first);
	else
		LLVMPositionBuilderAtEnd(b, cg->entry);
	slot = LLVMBuildAlloca(b, type, name);
	LLVMDisposeBuilder(b);
	return slot;
}

int cg_fail(struct cg *cg, struct src_loc loc, const char *hint, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	diag_set(cg->diag, loc, hint, "%s", msg.buf);
	strbuf_release(&msg);
	return -WR_ESEMANTIC;
}

static int fail(struct cg *cg, struct src_loc loc, const char *hint, const char *msg)
{
	return cg_fail(cg, loc, hint, "%s", msg);
}

static LLVMBasicBlockRef new_block(struct cg *cg, const char *name)
{
	return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

/* ---- expressions ---- */

static int lower_expr(struct cg *cg, const struct ast_expr *e, struct cg_value *out);

static LLVMValueRef as_i64(struct cg *cg, const struct cg_value *v)
{
	if (v->type == CG_BOOL)
		return LLVMBuildZExt(cg->builder, v->v, i64(cg), "");
	return v->v;
}

static LLVMValueRef as_bool(struct cg *cg, const struct cg_value *v)
{
	if (v->type == CG_BOOL)
		return v->v;
	return LLVMBuildICmp(cg->builder, LLVMIntNE, v->v, c64(cg, 0), "");
}

/* Make @v a script integer or boolean: program values are read here. */
static int want_int(struct cg *cg, const struct ast_expr *e, struct cg_value *v, const char *what)
{
	char msg[160];
	LLVMValueRef x;

	if (v->type == CG_INT || v->type == CG_BOOL)
		return 0;
	if (v->type == CG_DW) {
		x = values_scalar(cg, e, v);
		if (!x)
			return -WR_ESEMANTIC;
		v->type = CG_INT;
		v->v = x;
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s needs an integer or boolean operand, not a string", what);
	return fail(cg, e->loc, NULL, msg);
}

static int lower_special(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	LLVMValueRef v;

	out->type = CG_INT;
	switch (e->special) {
	case AST_SPECIAL_PID:
		v = call(cg, "wr_pid_tgid", NULL, 0);
		out->v = LLVMBuildLShr(cg->builder, v, c64(cg, 32), "pid");
		return 0;
	case AST_SPECIAL_TID:
		v = call(cg, "wr_pid_tgid", NULL, 0);
		out->v = LLVMBuildAnd(cg->builder, v, c64(cg, 0xffffffffu), "tid");
		return 0;
	case AST_SPECIAL_TIMESTAMP:
		out->v = call(cg, "wr_ktime", NULL, 0);
		return 0;
	case AST_SPECIAL_PC:
	case AST_SPECIAL_SP:
		out->v = values_reg(cg, e->special == AST_SPECIAL_PC ? 16 : 7);
		return 0;
	}
	return fail(cg, e->loc, NULL, "unknown special variable");
}

static int lower_unary(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value v;
	int err = lower_expr(cg, e->lhs, &v);

	if (err)
		return err;
	if (e->op == AST_OP_DEREF)
		return values_deref(cg, e, &v, out);
	if (e->op == AST_OP_ADDR)
		return values_address_of(cg, e, &v, out);
	err = want_int(cg, e->lhs, &v, "this operator");
	if (err)
		return err;
	if (e->op == AST_OP_NOT) {
		out->type = CG_BOOL;
		out->v = LLVMBuildNot(cg->builder, as_bool(cg, &v), "");
	} else {
		out->type = CG_INT;
		out->v = e->op == AST_OP_NEG ? LLVMBuildNeg(cg->builder, as_i64(cg, &v), "")
					      : LLVMBuildNot(cg->builder, as_i64(cg, &v), "");
	}
	return 0;
}

/* Signed division and remainder from unsigned ones: BPF CPU v3 has no
 * signed divide.  x / 0 is 0 in BPF, and stays 0 here. */
static LLVMValueRef signed_divmod(struct cg *cg, LLVMValueRef a, LLVMValueRef b, bool mod)
{
	LLVMBuilderRef bl = cg->builder;
	LLVMValueRef zero = c64(cg, 0);
	LLVMValueRef an = LLVMBuildICmp(bl, LLVMIntSLT, a, zero, "");
	LLVMValueRef bn = LLVMBuildICmp(bl, LLVMIntSLT, b, zero, "");
	LLVMValueRef ua = LLVMBuildSelect(bl, an, LLVMBuildNeg(bl, a, ""), a, "");
	LLVMValueRef ub = LLVMBuildSelect(bl, bn, LLVMBuildNeg(bl, b, ""), b, "");
	LLVMValueRef r = mod ? LLVMBuildURem(bl, ua, ub, "") : LLVMBuildUDiv(bl, ua, ub, "");
	LLVMValueRef neg = mod ? an : LLVMBuildXor(bl, an, bn, "");

	return LLVMBuildSelect(bl, neg, LLVMBuildNeg(bl, r, ""), r, "");
}

static LLVMValueRef arith(struct cg *cg, enum ast_op op, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBuilderRef bl = cg->builder;
	LLVMValueRef sh;

	switch (op) {
	case AST_OP_ADD: return LLVMBuildAdd(bl, a, b, "");
	case AST_OP_SUB: return LLVMBuildSub(bl, a, b, "");
	case AST_OP_MUL: return LLVMBuildMul(bl, a, b, "");
	case AST_OP_DIV: return signed_divmod(cg, a, b, false);
	case AST_OP_MOD: return signed_divmod(cg, a, b, true);
	case AST_OP_BITAND: return LLVMBuildAnd(bl, a, b, "");
	case AST_OP_BITOR: return LLVMBuildOr(bl, a, b, "");
	case AST_OP_BITXOR: return LLVMBuildXor(bl, a, b, "");
	case AST_OP_SHL:
	case AST_OP_SHR:
		/* Shift counts are masked to the operand width, as documented. */
		sh = LLVMBuildAnd(bl, b, c64(cg, 63), "");
		return op == AST_OP_SHL ? LLVMBuildShl(bl, a, sh, "") : LLVMBuildAShr(bl, a, sh, "");
	default:
		return NULL;
	}
}

static LLVMIntPredicate predicate(enum ast_op op)
{
	switch (op) {
	case AST_OP_LT: return LLVMIntSLT;
	case AST_OP_LE: return LLVMIntSLE;
	case AST_OP_GT: return LLVMIntSGT;
	case AST_OP_GE: return LLVMIntSGE;
	case AST_OP_EQ: return LLVMIntEQ;
	default: return LLVMIntNE;
	}
}

static bool is_compare(enum ast_op op)
{
	return op >= AST_OP_LT && op <= AST_OP_NE;
}

/* Two string literals compare at compile time. */
static int compare_strings(struct cg *cg, const struct ast_expr *e, const struct cg_value *a,
			   const struct cg_value *b, struct cg_value *out)
{
	bool eq;

	if (a->type != CG_STRING || b->type != CG_STRING ||
	    (e->op != AST_OP_EQ && e->op != AST_OP_NE))
		return fail(cg, e->loc, "strings compare only with == and != against another string",
			    "cannot compare a string with this operand");
	eq = strcmp(a->str, b->str) == 0;
	out->type = CG_BOOL;
	out->v = LLVMConstInt(i1(cg), e->op == AST_OP_EQ ? eq : !eq, 0);
	return 0;
}

/* && and || evaluate their right side only when needed. */
static int lower_logical(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	LLVMBasicBlockRef rhs_bb = new_block(cg, "logic.rhs"), end_bb = new_block(cg, "logic.end");
	LLVMBasicBlockRef lhs_end, rhs_end;
	LLVMValueRef lhs_v, rhs_v, phi, vals[2];
	LLVMBasicBlockRef bbs[2];
	struct cg_value v;
	int err;

	err = lower_expr(cg, e->lhs, &v);
	if (!err)
		err = want_int(cg, e->lhs, &v, "a logical operator");
	if (err)
		return err;
	lhs_v = as_bool(cg, &v);
	lhs_end = LLVMGetInsertBlock(cg->builder);
	if (e->op == AST_OP_AND)
		LLVMBuildCondBr(cg->builder, lhs_v, rhs_bb, end_bb);
	else
		LLVMBuildCondBr(cg->builder, lhs_v, end_bb, rhs_bb);
	LLVMPositionBuilderAtEnd(cg->builder, rhs_bb);
	err = lower_expr(cg, e->rhs, &v);
	if (!err)
		err = want_int(cg, e->rhs, &v, "a logical operator");
	if (err)
		return err;
	rhs_v = as_bool(cg, &v);
	rhs_end = LLVMGetInsertBlock(cg->builder);
	LLVMBuildBr(cg->builder, end_bb);
	LLVMPositionBuilderAtEnd(cg->builder, end_bb);
	phi = LLVMBuildPhi(cg->builder, i1(cg), "");
	vals[0] = LLVMConstInt(i1(cg), e->op == AST_OP_OR, 0);
	vals[1] = rhs_v;
	bbs[0] = lhs_end;
	bbs[1] = rhs_end;
	LLVMAddIncoming(phi, vals, bbs, 2);
	out->type = CG_BOOL;
	out->v = phi;
	return 0;
}

/* p + n and p - n move by n elements, as in C, and stay pointers. */
static int pointer_offset(struct cg *cg, const struct ast_expr *e, struct cg_value *p,
			  struct cg_value *n, struct cg_value *out)
{
	uint64_t size = p->dt->target && p->dt->target->size ? p->dt->target->size : 1;
	LLVMValueRef base = values_scalar(cg, e->lhs, p), delta;
	int err = base ? want_int(cg, e->rhs, n, "pointer arithmetic") : -WR_ESEMANTIC;

	if (err)
		return err;
	delta = LLVMBuildMul(cg->builder, as_i64(cg, n), c64(cg, size), "");
	*out = *p;
	out->lvalue = false;
	out->v = e->op == AST_OP_ADD ? LLVMBuildAdd(cg->builder, base, delta, "")
				     : LLVMBuildSub(cg->builder, base, delta, "");
	return 0;
}

static int lower_binary(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value a, b;
	int err;

	if (e->op == AST_OP_AND || e->op == AST_OP_OR)
		return lower_logical(cg, e, out);
	err = lower_expr(cg, e->lhs, &a);
	if (!err)
		err = lower_expr(cg, e->rhs, &b);
	if (err)
		return err;
	if ((a.type == CG_STRING && b.type == CG_DW) || (a.type == CG_DW && b.type == CG_STRING)) {
		if (e->op != AST_OP_EQ && e->op != AST_OP_NE)
			return fail(cg, e->loc, NULL, "strings compare only with == and !=");
		return a.type == CG_DW ? values_string_eq(cg, e->lhs, &a, b.str, e->op == AST_OP_NE, out)
				       : values_string_eq(cg, e->rhs, &b, a.str, e->op == AST_OP_NE, out);
	}
	if (a.type == CG_STRING || b.type == CG_STRING)
		return compare_strings(cg, e, &a, &b, out);
	if ((e->op == AST_OP_ADD || e->op == AST_OP_SUB) && a.type == CG_DW &&
	    a.dt->kind == DW_TYPE_POINTER && b.type != CG_DW)
		return pointer_offset(cg, e, &a, &b, out);
	err = want_int(cg, e->lhs, &a, "this operator");
	if (!err)
		err = want_int(cg, e->rhs, &b, "this operator");
	if (err)
		return err;
	if (is_compare(e->op)) {
		out->type = CG_BOOL;
		out->v = LLVMBuildICmp(cg->builder, predicate(e->op), as_i64(cg, &a), as_i64(cg, &b), "");
		return 0;
	}
	out->type = CG_INT;
	out->v = arith(cg, e->op, as_i64(cg, &a), as_i64(cg, &b));
	return out->v ? 0 : fail(cg, e->loc, NULL, "unsupported operator");
}

static const struct cg_binding *find_binding(struct cg *cg, const char *name)
{
	for (size_t i = cg->n_vars; i-- > 0;)
		if (strcmp(cg->vars[i].name, name) == 0)
			return &cg->vars[i];
	return NULL;
}

static int lower_ident(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct cg_binding *b = find_binding(cg, e->str);

	if (b) {
		*out = b->val;
		return 0;
	}
	return values_ident(cg, e, out);
}

static int lower_member(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value base;
	int err = lower_expr(cg, e->lhs, &base);

	return err ? err : values_member(cg, e, &base, out);
}

static int lower_index(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value base, index;
	int err = lower_expr(cg, e->lhs, &base);

	if (!err)
		err = lower_expr(cg, e->rhs, &index);
	return err ? err : values_index(cg, e, &base, &index, out);
}

/* cast(expr, "TYPE"): the same address (or value) seen as TYPE. */
static int lower_cast(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct dw_type *t = NULL;
	struct cg_value v;
	int err;

	if (e->n_args != 2 || e->args[1]->kind != AST_EXPR_STRING)
		return fail(cg, e->loc, NULL, "usage: cast(EXPR, \"TYPE\")");
	if (cg->plan->vars.find_type)
		t = cg->plan->vars.find_type(cg->plan->vars.ctx, e->args[1]->str);
	if (!t)
		return cg_fail(cg, e->args[1]->loc, "the type must be defined in the probed module",
			       "no type '%s'", e->args[1]->str);
	err = lower_expr(cg, e->args[0], &v);
	if (err)
		return err;
	if (v.type == CG_DW && v.lvalue && t->kind != DW_TYPE_POINTER) {
		v.dt = t; /* reinterpret the memory */
		*out = v;
		return 0;
	}
	err = want_int(cg, e->args[0], &v, "cast");
	if (err)
		return err;
	memset(out, 0, sizeof(*out));
	out->type = CG_DW;
	out->dt = t;
	out->v = as_i64(cg, &v);
	return 0;
}

/* starts_with(s, "lit") and strncmp(s, "lit", n): compare a prefix. */
static int lower_prefix(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct ast_expr *lit = e->n_args >= 2 ? e->args[1] : NULL;
	size_t n = lit && lit->kind == AST_EXPR_STRING ? strlen(lit->str) : 0;
	struct cg_value v;
	char *prefix;
	int err;

	if (!lit || lit->kind != AST_EXPR_STRING)
		return fail(cg, e->loc, NULL, "the second argument must be a string literal");
	if (!strcmp(e->str, "strncmp") && e->n_args == 3 && e->args[2]->kind == AST_EXPR_INT &&
	    (size_t)e->args[2]->ival < n)
		n = (size_t)e->args[2]->ival;
	err = lower_expr(cg, e->args[0], &v);
	if (err)
		return err;
	prefix = xstrndup(lit->str, n);
	err = values_string_prefix(cg, e->args[0], &v, prefix, out);
	free(prefix);
	return err;
}

static int lower_call(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	if (!strcmp(e->str, "cast"))
		return lower_cast(cg, e, out);
	if (!strcmp(e->str, "starts_with") || !strcmp(e->str, "strncmp"))
		return lower_prefix(cg, e, out);
	return cg_fail(cg, e->loc, "strncmp, starts_with and cast are available",
		       "%s() is not supported by this version", e->str);
}

static int lower_expr(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	memset(out, 0, sizeof(*out));
	switch (e->kind) {
	case AST_EXPR_INT:
		out->type = CG_INT;
		out->v = c64(cg, (unsigned long long)e->ival);
		return 0;
	case AST_EXPR_BOOL:
		out->type = CG_BOOL;
		out->v = LLVMConstInt(i1(cg), e->ival != 0, 0);
		return 0;
	case AST_EXPR_STRING:
		out->type = CG_STRING;
		out->str = e->str;
		return 0;
	case AST_EXPR_IDENT:
		return lower_ident(cg, e, out);
	case AST_EXPR_SPECIAL:
		return lower_special(cg, e, out);
	case AST_EXPR_UNARY:
		return lower_unary(cg, e, out);
	case AST_EXPR_BINARY:
		return lower_binary(cg, e, out);
	case AST_EXPR_MEMBER:
		return lower_member(cg, e, out);
	case AST_EXPR_INDEX:
		return lower_index(cg, e, out);
	case AST_EXPR_CALL:
		return lower_call(cg, e, out);
	}
	return fail(cg, e->loc, NULL, "unknown expression");
}

/* ---- statements ---- */

static int lower_block(struct cg *cg, const struct ast_block *b);

/* The placeholder spec argument @arg of @s is printed with. */
static enum ast_fmt_spec arg_spec(const struct ast_stmt *s, size_t arg)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_pieces; i++) {
		if (!s->pieces[i].has_placeholder)
			continue;
		if (k == arg)
			return s->pieces[i].spec;
		k += s->pieces[i].len_kind == AST_FMT_LEN_STAR ? 2 : 1;
	}
	return AST_FMT_DEFAULT;
}

static int lower_print(struct cg *cg, const struct ast_stmt *s)
{
	LLVMValueRef args[4], item;
	long index = ast_probe_index_of(cg->plan->ast, s);
	int err = 0;

	for (size_t i = 0; i < s->n_pieces; i++)
		if (s->pieces[i].has_placeholder && s->pieces[i].len_kind != AST_FMT_LEN_NONE)
			return fail(cg, s->pieces[i].loc, "print the value with {} or {:x} instead",
				    "memory dumps ({:x.N}, {:s.N}) are not supported by this version");
	args[0] = cg->buf;
	args[1] = c32(cg, WR_ITEM_PRINT);
	args[2] = c32(cg, (unsigned long long)index);
	item = call(cg, "wr_item_open", args, 3);
	for (size_t i = 0, wire = 0; i < s->n_args && !err; i++) {
		struct cg_value v;

		err = lower_expr(cg, s->args[i], &v);
		if (err || v.type == CG_STRING)
			continue; /* literals are rendered from the script */
		set_loc(cg, s->args[i]->loc);
		if (v.type == CG_DW) {
			err = values_print_arg(cg, s->args[i], &v, arg_spec(s, i), (unsigned)index,
					       (unsigned)wire++);
			continue;
		}
		args[0] = cg->buf;
		args[1] = c32(cg, wr_arg_kind_status(v.type == CG_BOOL ? WR_ARG_BOOL : WR_ARG_I64, WR_ARG_OK));
		args[2] = c32(cg, 8);
		args[3] = as_i64(cg, &v);
		call(cg, "wr_arg_scalar", args, 4);
		wire++;
	}
	args[0] = cg->buf;
	args[1] = item;
	call(cg, "wr_item_close", args, 2);
	return err;
}

static void lower_bt(struct cg *cg, const struct ast_stmt *s)
{
	unsigned long long index = (unsigned long long)ast_probe_index_of(cg->plan->ast, s);
	unsigned depth = cg->plan->bt_depth ? cg->plan->bt_depth : WR_BT_DEFAULT_DEPTH;
	LLVMValueRef args[5];

	args[0] = cg->ctx_arg;
	args[1] = cg->buf;
	args[2] = c32(cg, depth);
	args[3] = c32(cg, wr_bt_flags_index(s->bt_flags, (__u32)index));
	args[4] = c32(cg, cg->plan->rule0);
	call(cg, "wr_bt", args, 5);
}

/* One arm of an if/else-if chain: its body when @arm's condition holds,
 * then on to @end_bb; the builder is left where the next arm goes. */
static int lower_arm(struct cg *cg, const struct ast_stmt *arm, LLVMBasicBlockRef end_bb)
{
	LLVMBasicBlockRef then_bb = new_block(cg, "if.then"), else_bb = new_block(cg, "if.else");
	struct cg_value c;
	int err = lower_expr(cg, arm->cond, &c);

	if (!err)
		err = want_int(cg, arm->cond, &c, "an if condition");
	if (err)
		return err;
	LLVMBuildCondBr(cg->builder, as_bool(cg, &c), then_bb, else_bb);
	LLVMPositionBuilderAtEnd(cg->builder, then_bb);
	err = lower_block(cg, &arm->then_body);
	if (err)
		return err;
	LLVMBuildBr(cg->builder, end_bb);
	LLVMPositionBuilderAtEnd(cg->builder, else_bb);
	return 0;
}

/* An else-if chain is a flat list of arms (ast.h): a loop, not recursion. */
static int lower_if(struct cg *cg, const struct ast_stmt *s)
{
	LLVMBasicBlockRef end_bb = new_block(cg, "if.end");
	int err = lower_arm(cg, s, end_bb);

	for (size_t i = 0; i < s->n_elifs && !err; i++) {
		set_loc(cg, s->elifs[i]->loc);
		err = lower_arm(cg, s->elifs[i], end_bb);
	}
	if (!err)
		err = lower_block(cg, &s->else_body);
	if (err)
		return err;
	LLVMBuildBr(cg->builder, end_bb);
	LLVMMoveBasicBlockAfter(end_bb, LLVMGetInsertBlock(cg->builder));
	LLVMPositionBuilderAtEnd(cg->builder, end_bb);
	return 0;
}

static int lower_let(struct cg *cg, const struct ast_stmt *s)
{
	struct cg_value v;
	int err = lower_expr(cg, s->value, &v);

	if (err)
		return err;
	cg->vars = xgrow(cg->vars, &cg->cap_vars, cg->n_vars + 1, sizeof(*cg->vars));
	cg->vars[cg->n_vars++] = (struct cg_binding){ .name = s->name, .val = v, .depth = cg->depth };
	return 0;
}

static int lower_stmt(struct cg *cg, const struct ast_stmt *s)
{
	struct cg_value ignored;

	set_loc(cg, s->loc);
	switch (s->kind) {
	case AST_STMT_PRINT:
		return lower_print(cg, s);
	case AST_STMT_BT:
		lower_bt(cg, s);
		return 0;
	case AST_STMT_IF:
		return lower_if(cg, s);
	case AST_STMT_LET:
		return lower_let(cg, s);
	case AST_STMT_EXPR:
		return lower_expr(cg, s->value, &ignored);
	}
	return 0;
}

static int lower_block(struct cg *cg, const struct ast_block *b)
{
	size_t saved = cg->n_vars;
	int err = 0;

	cg->depth++;
	for (size_t i = 0; i < b->n && !err; i++)
		err = lower_stmt(cg, b->stmts[i]);
	cg->n_vars = saved;
	cg->depth--;
	return err;
}

/* Tests of the verifier-rejection path set WRAITH_FAULT=verifier: the
 * probe then reads from address 8, which the real verifier must refuse. */
static void inject_fault(struct cg *cg)
{
	const char *fault = getenv("WRAITH_FAULT");
	LLVMValueRef load;

	if (!fault || strcmp(fault, "verifier") != 0)
		return;
	load = LLVMBuildLoad2(cg->builder, i64(cg),
			      LLVMConstIntToPtr(c64(cg, 8), LLVMPointerTypeInContext(cg->ctx, 0)), "");
	LLVMSetVolatile(load, 1);
}

int lower_probe(struct cg *cg)
{
	LLVMBasicBlockRef entry, body, skip;
	LLVMValueRef args[3], isnull, ret;
	int err;

	cg->builder = LLVMCreateBuilderInContext(cg->ctx);
	cg->ctx_arg = LLVMGetParam(cg->fn, 0);
	entry = new_block(cg, "entry");
	cg->entry = entry;
	body = new_block(cg, "body");
	skip = new_block(cg, "skip");
	LLVMPositionBuilderAtEnd(cg->builder, entry);
	set_loc(cg, cg->plan->ast->loc);
	args[0] = cg->ctx_arg;
	args[1] = call(cg, "wr_probe_id", args, 1);
	args[2] = c32(cg, cg->plan->tgid);
	cg->buf = call(cg, "wr_event_begin", args, 3);
	isnull = LLVMBuildIsNull(cg->builder, cg->buf, "");
	LLVMBuildCondBr(cg->builder, isnull, skip, body);
	LLVMPositionBuilderAtEnd(cg->builder, skip);
	LLVMBuildRet(cg->builder, LLVMConstInt(i32(cg), 0, 0));
	LLVMPositionBuilderAtEnd(cg->builder, body);
	inject_fault(cg);
	err = lower_block(cg, &cg->plan->ast->body);
	if (err)
		return err;
	set_loc(cg, cg->plan->ast->loc);
	args[0] = cg->ctx_arg;
	args[1] = cg->buf;
	ret = call(cg, "wr_event_end", args, 2);
	LLVMBuildRet(cg->builder, ret);
	return 0;
}

void lower_release(struct cg *cg)
{
	free(cg->vars);
	cg->vars = NULL;
	cg->n_vars = cg->cap_vars = 0;
}
