/* floats.c - floating-point values in a probe, which has no FPU.
 *
 * BPF has no floating-point instructions, so a float or double travels as
 * its IEEE bits in an i64 and only what integer instructions can do
 * exactly is offered: comparing two values of the same type (the bits
 * ordered by sign and magnitude, NaN unordered, -0 equal to +0), comparing
 * with a constant (converted at compile time exactly as C converts it, so
 * `f > 0.1` with a float f means what it means in C), negation, and
 * arithmetic on constants, folded here with the host's FPU.  Everything
 * else is a located error.
 */
#include "codegen/lower.h"
#include "util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A constant's value as a double: @v holds the bits of a float or double
 * or an integer of type @t. */
static double host_value(const struct dw_type *t, uint64_t bits)
{
	float f;
	double d;

	if (t->kind == DW_TYPE_FLOAT && t->size == 4) {
		uint32_t b32 = (uint32_t)bits;

		memcpy(&f, &b32, 4);
		return f;
	}
	if (t->kind == DW_TYPE_FLOAT) {
		memcpy(&d, &bits, 8);
		return d;
	}
	return t->is_signed ? (double)(int64_t)bits : (double)bits;
}

static uint64_t float_bits(double v, unsigned size)
{
	uint64_t bits = 0;
	float f = (float)v;

	if (size == 4)
		memcpy(&bits, &f, 4);
	else
		memcpy(&bits, &v, 8);
	return bits;
}

bool cg_float_constants(const struct cg_value *a, const struct cg_value *b)
{
	uint64_t c;

	return (a->dt->kind == DW_TYPE_FLOAT || b->dt->kind == DW_TYPE_FLOAT) &&
	       ctype_is_arith(a->dt) && ctype_is_arith(b->dt) && a->dt->size <= 8 && b->dt->size <= 8 &&
	       cg_constant(a->v, &c) && cg_constant(b->v, &c);
}

/* C's usual arithmetic conversions with a floating operand: double wins
 * over float, and a float over any integer. */
static const struct dw_type *float_common(const struct dw_type *a, const struct dw_type *b)
{
	if ((a->kind == DW_TYPE_FLOAT && a->size == 8) || (b->kind == DW_TYPE_FLOAT && b->size == 8))
		return &ctype_double;
	return &ctype_float;
}

int cg_fold_floats(struct cg *cg, const struct ast_expr *e, struct cg_value *a, struct cg_value *b,
		   struct cg_value *out)
{
	const struct dw_type *rt = float_common(a->dt, b->dt);
	uint64_t ca = 0, cb = 0;
	double x, y, r;

	cg_constant(a->v, &ca);
	cg_constant(b->v, &cb);
	x = host_value(a->dt, ca);
	y = host_value(b->dt, cb);
	if (rt->size == 4) {
		x = (float)x;
		y = (float)y;
	}
	switch (e->op) {
	case AST_OP_ADD: r = x + y; break;
	case AST_OP_SUB: r = x - y; break;
	case AST_OP_MUL: r = x * y; break;
	default: r = x / y; break;
	}
	cg_set_value(out, rt, cg_i64(cg, float_bits(r, (unsigned)rt->size)));
	return 0;
}

int cg_fold_float_cast(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		       const struct dw_type *t, struct cg_value *out)
{
	uint64_t c;
	double x;

	if (!cg_constant(v->v, &c) || t->size > 8 || v->dt->size > 8)
		return cg_fail(cg, e->loc, "BPF has no floating-point unit: only constants convert "
			       "between integers and floating types", "cannot convert %s to %s in a probe",
			       v->dt->name, t->name);
	x = host_value(v->dt, c);
	if (t->kind == DW_TYPE_FLOAT) {
		cg_set_value(out, t, cg_i64(cg, float_bits(x, (unsigned)t->size)));
		return 0;
	}
	if (isnan(x) || x >= 18446744073709551616.0 || x <= -9223372036854775809.0)
		return cg_fail(cg, e->loc, NULL, "%g does not fit in %s", x, t->name);
	c = x < 0 ? (uint64_t)(int64_t)x : (uint64_t)x;
	cg_set_value(out, t, cg_fit(cg, cg_i64(cg, c), ctype_bits(t, 0), t->is_signed));
	return 0;
}

/* ---- comparisons on IEEE bits ---- */

struct ieee {
	struct cg *cg;
	unsigned bits;    /* 32 or 64 */
	uint64_t sign;
	uint64_t mag;     /* all bits but the sign */
	uint64_t inf;     /* exponent all ones, fraction 0 */
};

static LLVMValueRef k64(struct ieee *f, uint64_t v)
{
	return cg_i64(f->cg, v);
}

static LLVMValueRef is_nan(struct ieee *f, LLVMValueRef x)
{
	LLVMBuilderRef b = f->cg->builder;

	return LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAnd(b, x, k64(f, f->mag), ""), k64(f, f->inf), "");
}

/* Unsigned order of the bits matches the order of the values: negative
 * values reversed below the positive ones. */
static LLVMValueRef order_key(struct ieee *f, LLVMValueRef x)
{
	LLVMBuilderRef b = f->cg->builder;
	LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, x, k64(f, f->sign), ""), k64(f, 0), "");
	LLVMValueRef flipped = LLVMBuildAnd(b, LLVMBuildNot(b, x, ""), k64(f, f->sign | f->mag), "");

	return LLVMBuildSelect(b, neg, flipped, LLVMBuildOr(b, x, k64(f, f->sign), ""), "");
}

static LLVMValueRef ieee_compare(struct ieee *f, enum ast_op op, LLVMValueRef x, LLVMValueRef y)
{
	LLVMBuilderRef b = f->cg->builder;
	LLVMValueRef ordered = LLVMBuildNot(b, LLVMBuildOr(b, is_nan(f, x), is_nan(f, y), ""), "");
	LLVMValueRef zeros = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, LLVMBuildOr(b, x, y, ""),
								     k64(f, f->mag), ""), k64(f, 0), "");
	LLVMValueRef r;

	if (op == AST_OP_GT || op == AST_OP_GE) {
		LLVMValueRef t = x;

		x = y;
		y = t;
		op = op == AST_OP_GT ? AST_OP_LT : AST_OP_LE;
	}
	switch (op) {
	case AST_OP_LT:
		r = LLVMBuildAnd(b, LLVMBuildNot(b, zeros, ""),
				 LLVMBuildICmp(b, LLVMIntULT, order_key(f, x), order_key(f, y), ""), "");
		break;
	case AST_OP_LE:
		r = LLVMBuildOr(b, zeros, LLVMBuildICmp(b, LLVMIntULE, order_key(f, x), order_key(f, y), ""), "");
		break;
	default:
		r = LLVMBuildOr(b, zeros, LLVMBuildICmp(b, LLVMIntEQ, x, y, ""), "");
		break;
	}
	r = LLVMBuildAnd(b, ordered, r, "");
	return op == AST_OP_NE ? LLVMBuildNot(b, r, "") : r;
}

static void ieee_init(struct ieee *f, struct cg *cg, unsigned size)
{
	f->cg = cg;
	f->bits = size * 8;
	f->sign = 1ull << (f->bits - 1);
	f->mag = f->sign - 1;
	f->inf = size == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
}

static enum ast_op mirror(enum ast_op op)
{
	switch (op) {
	case AST_OP_LT: return AST_OP_GT;
	case AST_OP_LE: return AST_OP_GE;
	case AST_OP_GT: return AST_OP_LT;
	case AST_OP_GE: return AST_OP_LE;
	default: return op;
	}
}

static bool host_compare(enum ast_op op, double x, double y)
{
	switch (op) {
	case AST_OP_LT: return x < y;
	case AST_OP_LE: return x <= y;
	case AST_OP_GT: return x > y;
	case AST_OP_GE: return x >= y;
	case AST_OP_EQ: return x == y;
	default: return x != y;
	}
}

/* float x OP double constant c, in double as C compares them: x is
 * exactly a double, so compare it with the floats on either side of c. */
static LLVMValueRef float_vs_double(struct ieee *f, enum ast_op op, LLVMValueRef x, double c)
{
	float near = (float)c, lo, hi;

	if (isnan(c))
		return LLVMConstInt(LLVMInt1TypeInContext(f->cg->ctx), op == AST_OP_NE, 0);
	if ((double)near == c)
		return ieee_compare(f, op, x, k64(f, float_bits(c, 4)));
	lo = (double)near < c ? near : nextafterf(near, -INFINITY);
	hi = (double)near > c ? near : nextafterf(near, INFINITY);
	switch (op) {
	case AST_OP_LT:
	case AST_OP_LE:
		return ieee_compare(f, AST_OP_LE, x, k64(f, float_bits(lo, 4)));
	case AST_OP_GT:
	case AST_OP_GE:
		return ieee_compare(f, AST_OP_GE, x, k64(f, float_bits(hi, 4)));
	default:
		return LLVMConstInt(LLVMInt1TypeInContext(f->cg->ctx), op == AST_OP_NE, 0);
	}
}

/* Variable @x (floating) OP constant @c (any arithmetic type). */
static LLVMValueRef against_constant(struct cg *cg, enum ast_op op, const struct cg_value *x,
				     const struct cg_value *c)
{
	struct ieee f;
	uint64_t bits = 0;
	double v;

	cg_constant(c->v, &bits);
	v = host_value(c->dt, bits);
	ieee_init(&f, cg, (unsigned)x->dt->size);
	if (c->dt->kind != DW_TYPE_FLOAT || c->dt->size <= x->dt->size)
		return ieee_compare(&f, op, x->v, k64(&f, float_bits(v, (unsigned)x->dt->size)));
	return float_vs_double(&f, op, x->v, v);
}

int cg_compare_floats(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
		      struct cg_value *b, struct cg_value *out)
{
	bool fa = a->dt->kind == DW_TYPE_FLOAT, fb = b->dt->kind == DW_TYPE_FLOAT;
	uint64_t ca, cb;
	bool ka = cg_constant(a->v, &ca), kb = cg_constant(b->v, &cb);
	const struct cg_value *x = fa && !ka ? a : b, *c = x == a ? b : a;
	char what[160];
	LLVMValueRef r;
	struct ieee f;

	if (!ctype_is_arith(a->dt) || !ctype_is_arith(b->dt) || a->dt->size > 8 || b->dt->size > 8) {
		const struct cg_value *bad = ctype_is_arith(a->dt) && a->dt->size <= 8 ? b : a;

		return cg_fail(cg, (bad == a ? e->lhs : e->rhs)->loc, NULL,
			       "'%s' cannot compare %s with a floating-point value", ast_op_name(e->op),
			       cg_describe(bad, what, sizeof(what)));
	}
	if (ka && kb) {
		r = LLVMConstInt(LLVMInt1TypeInContext(cg->ctx),
				 host_compare(e->op, host_value(a->dt, ca), host_value(b->dt, cb)), 0);
	} else if (ka || kb) {
		r = against_constant(cg, x == a ? e->op : mirror(e->op), x, c);
	} else if (fa && fb && a->dt->size == b->dt->size) {
		ieee_init(&f, cg, (unsigned)a->dt->size);
		r = ieee_compare(&f, e->op, a->v, b->v);
	} else {
		return cg_fail(cg, e->loc, "BPF has no floating-point unit: compare values of the same "
			       "floating type, or a value with a constant",
			       "'%s' would convert %s to %s, which a probe cannot do", ast_op_name(e->op),
			       (fa ? b : a)->dt->name, (fa ? a : b)->dt->name);
	}
	cg_set_value(out, &ctype_bool, cg_bool(cg, r));
	cg_merge(cg, out, a, b);
	return 0;
}

LLVMValueRef cg_float_truth(struct cg *cg, const struct cg_value *v)
{
	uint64_t mag = v->dt->size == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;

	return LLVMBuildICmp(cg->builder, LLVMIntNE, LLVMBuildAnd(cg->builder, v->v, cg_i64(cg, mag), ""),
			     cg_i64(cg, 0), "");
}

LLVMValueRef cg_float_negate(struct cg *cg, const struct cg_value *v)
{
	return LLVMBuildXor(cg->builder, v->v, cg_i64(cg, 1ull << (v->dt->size * 8 - 1)), "");
}
