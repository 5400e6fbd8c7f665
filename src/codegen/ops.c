/* ops.c - C's binary operators on script values: arithmetic with the
 * integer promotions and usual arithmetic conversions, shifts, pointer
 * arithmetic and difference, and comparisons.
 *
 * Integer values travel as i64 already reduced to their type (lower.h), so
 * an operator converts both operands to the result type (cg_fit), computes
 * in 64 bits and reduces the result again.  What C leaves undefined gets a
 * defined result at run time and a located error when the operands are
 * constants: signed overflow wraps; x / 0 and x % 0 are 0; a shift count
 * outside 0..width-1 shifts everything out (0, or -1 for >> of a negative
 * value), as gdb does.
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

/* '+' (quoted) for messages. */
static const char *quoted_op(enum ast_op op, char *buf, size_t size)
{
	snprintf(buf, size, "'%s'", ast_op_name(op));
	return buf;
}

static int need_integer(struct cg *cg, const struct ast_expr *e, const struct cg_value *v,
			enum ast_op op)
{
	char what[160], q[8];

	if (v->kind == CG_VALUE && ctype_is_integer(v->dt))
		return 0;
	cg_describe(v, what, sizeof(what));
	quoted_op(op, q, sizeof(q));
	if (v->kind == CG_VALUE && v->dt->kind == DW_TYPE_FLOAT)
		return cg_fail(cg, e->loc, "BPF has no floating-point unit: floating-point values can be "
			       "printed and compared, integers can be computed with",
			       "%s cannot compute with %s", q, what);
	if (v->kind == CG_VALUE && v->dt->kind == DW_TYPE_POINTER)
		return cg_fail(cg, e->loc, "pointers take only p + n, p - n and p - q (elements), "
			       "and comparisons", "%s needs integers, not %s", q, what);
	if (v->kind == CG_VALUE && (v->dt->kind == DW_TYPE_STRUCT || v->dt->kind == DW_TYPE_UNION))
		return cg_fail(cg, e->loc, "use one of its members, e.g. s.field", "%s needs integers, not %s",
			       q, what);
	return cg_fail(cg, e->loc, NULL, "%s needs integers, not %s", q, what);
}

/* Signed division and remainder from unsigned ones: BPF CPU v3 has no
 * signed divide.  @b is never 0 here. */
static LLVMValueRef signed_divmod(struct cg *cg, LLVMValueRef a, LLVMValueRef b, bool mod)
{
	LLVMBuilderRef bl = cg->builder;
	LLVMValueRef zero = cg_i64(cg, 0);
	LLVMValueRef an = LLVMBuildICmp(bl, LLVMIntSLT, a, zero, "");
	LLVMValueRef bn = LLVMBuildICmp(bl, LLVMIntSLT, b, zero, "");
	LLVMValueRef ua = LLVMBuildSelect(bl, an, LLVMBuildNeg(bl, a, ""), a, "");
	LLVMValueRef ub = LLVMBuildSelect(bl, bn, LLVMBuildNeg(bl, b, ""), b, "");
	LLVMValueRef r = mod ? LLVMBuildURem(bl, ua, ub, "") : LLVMBuildUDiv(bl, ua, ub, "");
	LLVMValueRef neg = mod ? an : LLVMBuildXor(bl, an, bn, "");

	return LLVMBuildSelect(bl, neg, LLVMBuildNeg(bl, r, ""), r, "");
}

/* x / y or x % y, 0 when y is 0 (LLVM's division by zero is undefined,
 * so the divisor is made safe first). */
static LLVMValueRef divide(struct cg *cg, LLVMValueRef x, LLVMValueRef y, bool is_signed, bool mod)
{
	LLVMBuilderRef bl = cg->builder;
	LLVMValueRef zero = LLVMBuildICmp(bl, LLVMIntEQ, y, cg_i64(cg, 0), "");
	LLVMValueRef safe = LLVMBuildSelect(bl, zero, cg_i64(cg, 1), y, "");
	LLVMValueRef r;

	if (is_signed)
		r = signed_divmod(cg, x, safe, mod);
	else
		r = mod ? LLVMBuildURem(bl, x, safe, "") : LLVMBuildUDiv(bl, x, safe, "");
	return LLVMBuildSelect(bl, zero, cg_i64(cg, 0), r, "");
}

/* x << n or x >> n in a type of @bits bits; @n is any i64. */
static LLVMValueRef shift(struct cg *cg, enum ast_op op, LLVMValueRef x, LLVMValueRef n, unsigned bits,
			  bool is_signed)
{
	LLVMBuilderRef bl = cg->builder;
	LLVMValueRef ok = LLVMBuildICmp(bl, LLVMIntULT, n, cg_i64(cg, bits), "");
	LLVMValueRef count = LLVMBuildAnd(bl, n, cg_i64(cg, 63), "");
	LLVMValueRef r, out;

	if (op == AST_OP_SHL) {
		r = LLVMBuildShl(bl, x, count, "");
		out = cg_i64(cg, 0);
	} else if (is_signed) {
		r = LLVMBuildAShr(bl, x, count, "");
		out = LLVMBuildAShr(bl, x, cg_i64(cg, 63), "");
	} else {
		r = LLVMBuildLShr(bl, x, count, "");
		out = cg_i64(cg, 0);
	}
	return LLVMBuildSelect(bl, ok, r, out, "");
}

/* Constant operands that make C's result undefined are errors. */
static int check_constant(struct cg *cg, const struct ast_expr *e, LLVMValueRef y, bool y_signed,
			  unsigned bits)
{
	uint64_t c;

	if (!cg_constant(y, &c))
		return 0;
	if ((e->op == AST_OP_DIV || e->op == AST_OP_MOD) && c == 0)
		return cg_fail(cg, e->rhs->loc, NULL, "division by zero");
	if ((e->op == AST_OP_SHL || e->op == AST_OP_SHR) && (y_signed ? (int64_t)c < 0 : false))
		return cg_fail(cg, e->rhs->loc, "a shift count is 0 up to the width of the shifted type, less one",
			       "negative shift count (%lld)", (long long)c);
	if ((e->op == AST_OP_SHL || e->op == AST_OP_SHR) && c >= bits)
		return cg_fail(cg, e->rhs->loc, "widen the left operand first, e.g. 1ul << 40",
			       "shift count %llu is not less than the width of the shifted type (%u bits)",
			       (unsigned long long)c, bits);
	return 0;
}

static int integer_binary(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
			  struct cg_value *b, struct cg_value *out)
{
	LLVMBuilderRef bl = cg->builder;
	const struct dw_type *ta = ctype_promote(a->dt, a->bit_size), *tb = ctype_promote(b->dt, b->bit_size);
	bool sh = e->op == AST_OP_SHL || e->op == AST_OP_SHR;
	const struct dw_type *rt = sh ? ta : ctype_common(ta, tb);
	unsigned bits = (unsigned)rt->size * 8;
	LLVMValueRef x = cg_fit(cg, a->v, bits, rt->is_signed), y, r;
	int err;

	y = sh ? cg_fit(cg, b->v, (unsigned)tb->size * 8, tb->is_signed)
	       : cg_fit(cg, b->v, bits, rt->is_signed);
	err = check_constant(cg, e, y, sh ? tb->is_signed : rt->is_signed, bits);
	if (err)
		return err;
	switch (e->op) {
	case AST_OP_ADD: r = LLVMBuildAdd(bl, x, y, ""); break;
	case AST_OP_SUB: r = LLVMBuildSub(bl, x, y, ""); break;
	case AST_OP_MUL: r = LLVMBuildMul(bl, x, y, ""); break;
	case AST_OP_DIV: r = divide(cg, x, y, rt->is_signed, false); break;
	case AST_OP_MOD: r = divide(cg, x, y, rt->is_signed, true); break;
	case AST_OP_BITAND: r = LLVMBuildAnd(bl, x, y, ""); break;
	case AST_OP_BITOR: r = LLVMBuildOr(bl, x, y, ""); break;
	case AST_OP_BITXOR: r = LLVMBuildXor(bl, x, y, ""); break;
	default: r = shift(cg, e->op, x, y, bits, rt->is_signed); break;
	}
	cg_set_value(out, rt, cg_fit(cg, r, bits, rt->is_signed));
	cg_merge(cg, out, a, b);
	return 0;
}

/* p + n, n + p, p - n: move by n elements; p - q: elements between. */
static int pointer_difference(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
			      struct cg_value *b, struct cg_value *out)
{
	unsigned long long stride = ctype_stride(a->dt);
	LLVMValueRef bytes;

	if (!ctype_compatible(a->dt->target, b->dt->target))
		return cg_fail(cg, e->loc, "cast one side: cast(q, \"T *\")",
			       "'-' subtracts pointers to different types (%s and %s)", a->dt->name,
			       b->dt->name);
	bytes = LLVMBuildSub(cg->builder, a->v, b->v, "");
	cg_set_value(out, &ctype_long, stride == 1 ? bytes : signed_divmod(cg, bytes, cg_i64(cg, stride), false));
	cg_merge(cg, out, a, b);
	return 0;
}

static int pointer_arith(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
			 struct cg_value *b, struct cg_value *out)
{
	bool pa = a->dt->kind == DW_TYPE_POINTER, pb = b->dt->kind == DW_TYPE_POINTER;
	struct cg_value *p = pa ? a : b, *n = pa ? b : a;
	LLVMValueRef delta;
	int err;

	if (pa && pb && e->op == AST_OP_SUB)
		return pointer_difference(cg, e, a, b, out);
	if (pa && pb)
		return cg_fail(cg, e->loc, "p + n moves by n elements; p - q counts the elements between",
			       "pointers cannot be added");
	if (pb && e->op == AST_OP_SUB)
		return cg_fail(cg, e->lhs->loc, "write p - n", "an integer minus a pointer has no meaning");
	err = need_integer(cg, pa ? e->rhs : e->lhs, n, e->op);
	if (err)
		return err;
	if (p->dt->target && p->dt->target->kind != DW_TYPE_VOID &&
	    p->dt->target->kind != DW_TYPE_FUNCTION && !p->dt->target->size)
		return cg_fail(cg, (pa ? e->lhs : e->rhs)->loc, NULL,
			       "pointer arithmetic on %s needs the size of %s, which is unknown",
			       p->dt->name, p->dt->target->name);
	delta = LLVMBuildMul(cg->builder, n->v, cg_i64(cg, ctype_stride(p->dt)), "");
	cg_set_value(out, p->dt, e->op == AST_OP_ADD ? LLVMBuildAdd(cg->builder, p->v, delta, "")
						     : LLVMBuildSub(cg->builder, p->v, delta, ""));
	cg_merge(cg, out, a, b);
	return 0;
}

static LLVMIntPredicate predicate(enum ast_op op, bool is_signed)
{
	switch (op) {
	case AST_OP_LT: return is_signed ? LLVMIntSLT : LLVMIntULT;
	case AST_OP_LE: return is_signed ? LLVMIntSLE : LLVMIntULE;
	case AST_OP_GT: return is_signed ? LLVMIntSGT : LLVMIntUGT;
	case AST_OP_GE: return is_signed ? LLVMIntSGE : LLVMIntUGE;
	case AST_OP_EQ: return LLVMIntEQ;
	default: return LLVMIntNE;
	}
}

static bool is_null_constant(const struct cg_value *v)
{
	uint64_t c;

	return ctype_is_integer(v->dt) && v->dt != &ctype_bool && cg_constant(v->v, &c) && c == 0;
}

static int compare_pointers(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
			    struct cg_value *b, struct cg_value *out)
{
	bool pa = a->dt->kind == DW_TYPE_POINTER, pb = b->dt->kind == DW_TYPE_POINTER;
	bool eq = e->op == AST_OP_EQ || e->op == AST_OP_NE;
	const struct cg_value *p = pa ? a : b, *n = pa ? b : a;
	const struct ast_expr *ne = pa ? e->rhs : e->lhs;
	char what[160];

	if (pa && pb && !ctype_compatible(a->dt->target, b->dt->target))
		return cg_fail(cg, e->loc, "cast one side: cast(q, \"T *\")",
			       "'%s' compares pointers to different types (%s and %s)", ast_op_name(e->op),
			       a->dt->name, b->dt->name);
	if (!(pa && pb) && eq && !is_null_constant(n))
		return cg_fail(cg, ne->loc, "a pointer equals another pointer or 0 (NULL); "
			       "cast(p, \"unsigned long\") compares its address as a number",
			       "'%s' compares %s with %s", ast_op_name(e->op),
			       cg_describe(n, what, sizeof(what)), p->dt->name);
	if (!(pa && pb) && !eq)
		return cg_fail(cg, ne->loc, "test a pointer with `if p`, `p != 0` or `p == 0`",
			       "'%s' orders a pointer (%s) against %s: only two pointers have an order",
			       ast_op_name(e->op), p->dt->name, cg_describe(n, what, sizeof(what)));
	cg_set_value(out, &ctype_bool,
		     cg_bool(cg, LLVMBuildICmp(cg->builder, predicate(e->op, false), a->v, b->v, "")));
	cg_merge(cg, out, a, b);
	return 0;
}

/* A boolean of the script compared with a number is a mistake in C's
 * habits: strncmp() here says whether the strings match. */
static int bool_mismatch(struct cg *cg, const struct ast_expr *e, const struct cg_value *bv,
			 const struct cg_value *other)
{
	char what[160], hint[200];

	cg_describe(other, what, sizeof(what));
	if (bv->maker) {
		snprintf(hint, sizeof(hint), "%s() returns a boolean here (true when they match), not "
			 "C's <0, 0, >0: write `%s(...)` or `!%s(...)`", bv->maker->str, bv->maker->str,
			 bv->maker->str);
		return cg_fail(cg, bv->maker->loc, hint, "'%s' compares the boolean result of %s() with %s",
			       ast_op_name(e->op), bv->maker->str, what);
	}
	return cg_fail(cg, e->loc, "a boolean is tested directly (`if ok`, `if !ok`) or compared with "
		       "another boolean", "'%s' compares a boolean with %s", ast_op_name(e->op), what);
}

static bool is_script_bool(const struct cg_value *v)
{
	return v->dt == &ctype_bool;
}

static int compare(struct cg *cg, const struct ast_expr *e, struct cg_value *a, struct cg_value *b,
		   struct cg_value *out)
{
	const struct dw_type *ta, *tb, *rt;
	unsigned bits;
	LLVMValueRef x, y;
	int err;

	if (is_script_bool(a) != is_script_bool(b)) {
		const struct cg_value *bv = is_script_bool(a) ? a : b, *o = is_script_bool(a) ? b : a;

		if (o->dt->kind != DW_TYPE_BOOL)
			return bool_mismatch(cg, e, bv, o);
	}
	if (a->dt->kind == DW_TYPE_POINTER || b->dt->kind == DW_TYPE_POINTER)
		return compare_pointers(cg, e, a, b, out);
	if (a->dt->kind == DW_TYPE_FLOAT || b->dt->kind == DW_TYPE_FLOAT)
		return cg_compare_floats(cg, e, a, b, out);
	err = need_integer(cg, e->lhs, a, e->op);
	if (!err)
		err = need_integer(cg, e->rhs, b, e->op);
	if (err)
		return err;
	ta = ctype_promote(a->dt, a->bit_size);
	tb = ctype_promote(b->dt, b->bit_size);
	rt = ctype_common(ta, tb);
	bits = (unsigned)rt->size * 8;
	x = cg_fit(cg, a->v, bits, rt->is_signed);
	y = cg_fit(cg, b->v, bits, rt->is_signed);
	cg_set_value(out, &ctype_bool,
		     cg_bool(cg, LLVMBuildICmp(cg->builder, predicate(e->op, rt->is_signed), x, y, "")));
	cg_merge(cg, out, a, b);
	return 0;
}

static bool is_compare(enum ast_op op)
{
	return op >= AST_OP_LT && op <= AST_OP_NE;
}

int cg_binary_op(struct cg *cg, const struct ast_expr *e, struct cg_value *a, struct cg_value *b,
		 struct cg_value *out)
{
	int err = cg_operand(cg, e->lhs, a);

	if (!err)
		err = cg_operand(cg, e->rhs, b);
	if (err)
		return err;
	if (is_compare(e->op))
		return compare(cg, e, a, b, out);
	if ((e->op == AST_OP_ADD || e->op == AST_OP_SUB) &&
	    (a->dt->kind == DW_TYPE_POINTER || b->dt->kind == DW_TYPE_POINTER))
		return pointer_arith(cg, e, a, b, out);
	if (cg_float_constants(a, b) && e->op >= AST_OP_MUL && e->op <= AST_OP_SUB && e->op != AST_OP_MOD)
		return cg_fold_floats(cg, e, a, b, out);
	err = need_integer(cg, e->lhs, a, e->op);
	if (!err)
		err = need_integer(cg, e->rhs, b, e->op);
	return err ? err : integer_binary(cg, e, a, b, out);
}
