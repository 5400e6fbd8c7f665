/* expr.c - script expressions to LLVM IR, with C's types and semantics.
 *
 * Every value but a string literal has a C type (lower.h): the program's
 * variables their DWARF types, literals and special variables the types C
 * (or gdb) gives them, and operator results the types C's rules give
 * (ops.c).  An integer travels as an i64 already reduced to its type's
 * width and extended by its signedness; a pointer as its address; a
 * floating value as its IEEE bits (floats.c).  The script's booleans (a
 * comparison, !, &&, ||, true, strncmp...) are i64 0 or 1 of type
 * ctype_bool.
 *
 * Every operation C does not allow, or a probe cannot do, is a located
 * error with a hint when the probe is compiled: the types of everything
 * are known then.
 */
#include "codegen/lower.h"
#include "util/diag.h"
#include "util/error.h"

#include <string.h>

static int lower_expr(struct cg *cg, const struct ast_expr *e, struct cg_value *out);

/* An array in memory becomes a pointer to its first element. */
static int decay(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	const struct dw_type *p;

	if (!v->lvalue && !v->optimized_out)
		return cg_fail(cg, e->loc, NULL, "the array %s is held in registers: it has no address",
			       v->dt->name);
	p = cg_pointer_to(cg, v->dt->target);
	if (!p)
		return cg_fail(cg, e->loc, NULL, "no pointer type for %s", v->dt->target->name);
	v->dt = p;
	v->lvalue = false;
	return 0;
}

/* A function decays to a pointer to it: its address is the value. */
static int decay_function(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	const struct dw_type *p = cg_pointer_to(cg, v->dt);

	if (!p)
		return cg_fail(cg, e->loc, NULL, "no pointer type for %s", v->dt->name);
	v->dt = p;
	v->lvalue = false;
	return 0;
}

int cg_operand(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	LLVMValueRef x;

	if (v->kind != CG_VALUE)
		return 0;
	if (v->dt->kind == DW_TYPE_ARRAY)
		return decay(cg, e, v);
	if (v->dt->kind == DW_TYPE_FUNCTION)
		return decay_function(cg, e, v);
	if (!ctype_is_scalar(v->dt) || (v->dt->kind == DW_TYPE_FLOAT && v->dt->size > 8))
		return 0;
	x = values_scalar(cg, e, v);
	if (!x)
		return -WR_ESEMANTIC;
	v->v = x;
	v->lvalue = false;
	return 0;
}

static int not_a_condition(struct cg *cg, const struct ast_expr *e, const struct cg_value *v,
			   const char *what)
{
	char desc[160];

	cg_describe(v, desc, sizeof(desc));
	if (v->kind == CG_STRING)
		return cg_fail(cg, e->loc, "compare it: s == \"text\", starts_with(s, \"te\")",
			       "%s needs a number, a pointer or a boolean, not %s", what, desc);
	return cg_fail(cg, e->loc, v->dt->kind == DW_TYPE_STRUCT || v->dt->kind == DW_TYPE_UNION
				   ? "test one of its members (s.count != 0), or the pointer it came from"
				   : NULL,
		       "%s needs a number, a pointer or a boolean, not %s", what, desc);
}

int cg_truth(struct cg *cg, const struct ast_expr *e, struct cg_value *v, const char *what,
	     LLVMValueRef *out)
{
	int err = 0;

	if (cg_library_truth(cg, e, v, &err) && err)
		return err;
	err = cg_operand(cg, e, v);
	if (err)
		return err;
	if (v->kind != CG_VALUE || !ctype_is_scalar(v->dt) || v->dt->size > 8)
		return not_a_condition(cg, e, v, what);
	if (v->optimized_out)
		return cg_fail(cg, e->loc, "print it to see <optimized out>; conditions need a value",
			       "this value is optimized out at this pc of %s", cg->plan->name);
	if (v->dt->kind == DW_TYPE_FLOAT)
		*out = cg_float_truth(cg, v);
	else
		*out = LLVMBuildICmp(cg->builder, LLVMIntNE, v->v, cg_i64(cg, 0), "");
	return 0;
}

/* ---- leaves ---- */

/* C's type for an integer literal: the first of int, unsigned int (only
 * for 0x/0o/0b or a u suffix), long, unsigned long that holds it, no
 * narrower than its suffix asks.  A decimal literal above LONG_MAX is
 * unsigned long, as GCC and gdb make it. */
static const struct dw_type *int_literal_type(const struct ast_expr *e)
{
	uint64_t v = (uint64_t)e->ival;
	bool u = e->num_flags & AST_NUM_UNSIGNED, l = e->num_flags & AST_NUM_LONG;

	if (!l && !u && v <= INT32_MAX)
		return &ctype_int;
	if (!l && v <= UINT32_MAX && (u || (e->num_flags & AST_NUM_RADIX)))
		return &ctype_uint;
	if (!u && v <= INT64_MAX)
		return &ctype_long;
	return &ctype_ulong;
}

static void float_literal(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	uint64_t bits = 0;

	if (e->num_flags & AST_NUM_FLOAT) {
		float f = (float)e->fval;

		memcpy(&bits, &f, sizeof(f));
		cg_set_value(out, &ctype_float, cg_i64(cg, bits));
	} else {
		memcpy(&bits, &e->fval, sizeof(bits));
		cg_set_value(out, &ctype_double, cg_i64(cg, bits));
	}
}

/* Thread group and thread id, packed: as the traced process's PID
 * namespace sees them (@host false), or as the initial namespace does. */
static LLVMValueRef pid_tgid(struct cg *cg, bool host)
{
	LLVMValueRef args[2];

	if (host || !cg->plan->pidns_ino)
		return cg_call(cg, WR_FN_PID_TGID, NULL, 0);
	args[0] = cg_i64(cg, cg->plan->pidns_dev);
	args[1] = cg_i64(cg, cg->plan->pidns_ino);
	return cg_call(cg, WR_FN_NS_PID_TGID, args, 2);
}

static int lower_special(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	bool host = e->special == AST_SPECIAL_HOST_PID || e->special == AST_SPECIAL_HOST_TID;
	LLVMValueRef v;

	switch (e->special) {
	case AST_SPECIAL_PID:
	case AST_SPECIAL_HOST_PID:
		v = pid_tgid(cg, host);
		cg_set_value(out, &ctype_int, LLVMBuildLShr(cg->builder, v, cg_i64(cg, 32), "pid"));
		return 0;
	case AST_SPECIAL_TID:
	case AST_SPECIAL_HOST_TID:
		v = pid_tgid(cg, host);
		cg_set_value(out, &ctype_int, LLVMBuildAnd(cg->builder, v, cg_i64(cg, 0xffffffffu), "tid"));
		return 0;
	case AST_SPECIAL_INPUT_PID:
		if (!cg->plan->tgid)
			return cg_fail(cg, e->loc, "start wraith with -p PID, or use $pid",
				       "$input_pid is only available with -p: this probe traces every "
				       "process of its program");
		cg_set_value(out, &ctype_int, cg_i64(cg, cg->plan->tgid));
		return 0;
	case AST_SPECIAL_TIMESTAMP:
		cg_set_value(out, &ctype_ulong, cg_call(cg, WR_FN_KTIME, NULL, 0));
		return 0;
	case AST_SPECIAL_PC:
		cg_set_value(out, cg->plan->cxx ? &ctype_code_ptr_cxx : &ctype_code_ptr, cg_reg(cg, X86_DWARF_rip));
		return 0;
	case AST_SPECIAL_SP:
		cg_set_value(out, &ctype_void_ptr, cg_reg(cg, 7));
		return 0;
	}
	return cg_fail(cg, e->loc, NULL, "unknown special variable");
}

static const struct cg_binding *find_binding(struct cg *cg, const char *name)
{
	for (size_t i = cg->n_vars; i-- > 0;)
		if (strcmp(cg->vars[i].name, name) == 0)
			return &cg->vars[i];
	return NULL;
}

const struct cg_value *cg_binding(struct cg *cg, const char *name)
{
	const struct cg_binding *b = find_binding(cg, name);

	return b ? &b->val : NULL;
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

/* ---- unary operators ---- */

static int negate_or_complement(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
				struct cg_value *out)
{
	const struct dw_type *t;
	char what[160];
	unsigned bits;
	LLVMValueRef x;

	if (v->kind == CG_VALUE && v->dt->kind == DW_TYPE_FLOAT && v->dt->size <= 8 &&
	    e->op == AST_OP_NEG) {
		cg_set_value(out, v->dt, cg_float_negate(cg, v));
		cg_merge(cg, out, v, NULL);
		return 0;
	}
	if (v->kind != CG_VALUE || !ctype_is_integer(v->dt))
		return cg_fail(cg, e->lhs->loc, v->kind == CG_VALUE && v->dt->kind == DW_TYPE_FLOAT
				   ? "'~' works on the bits of integers" : NULL,
			       "'%s' needs %s, not %s", ast_op_name(e->op),
			       e->op == AST_OP_NEG ? "a number" : "an integer", cg_describe(v, what, sizeof(what)));
	t = ctype_promote(v->dt, v->bit_size);
	bits = (unsigned)t->size * 8;
	x = e->op == AST_OP_NEG ? LLVMBuildNeg(cg->builder, v->v, "") : LLVMBuildNot(cg->builder, v->v, "");
	cg_set_value(out, t, cg_fit(cg, x, bits, t->is_signed));
	cg_merge(cg, out, v, NULL);
	return 0;
}

static int lower_unary(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value v;
	LLVMValueRef t;
	int err = lower_expr(cg, e->lhs, &v);

	if (err)
		return err;
	if (e->op == AST_OP_DEREF)
		return values_deref(cg, e, &v, out);
	if (e->op == AST_OP_ADDR)
		return values_address_of(cg, e, &v, out);
	if (e->op == AST_OP_NOT) {
		err = cg_truth(cg, e->lhs, &v, "'!'", &t);
		if (err)
			return err;
		cg_set_value(out, &ctype_bool, cg_bool(cg, LLVMBuildNot(cg->builder, t, "")));
		cg_merge(cg, out, &v, NULL);
		return 0;
	}
	err = cg_operand(cg, e->lhs, &v);
	return err ? err : negate_or_complement(cg, e, &v, out);
}

/* ---- binary operators ---- */

/* Does the constant @lhs alone decide @op's result? */
static bool decided(enum ast_op op, LLVMValueRef lhs)
{
	uint64_t l;

	return cg_constant(lhs, &l) && (op == AST_OP_AND) != (l != 0);
}

/* The result of && or || when constants decide it (the phi of the
 * branches is never a constant), else @phi. */
static LLVMValueRef constant_logic(enum ast_op op, LLVMValueRef lhs, LLVMValueRef rhs, LLVMValueRef phi)
{
	uint64_t l, r;

	if (!cg_constant(lhs, &l))
		return phi;
	if (decided(op, lhs))
		return lhs; /* false && x, true || x */
	return cg_constant(rhs, &r) ? rhs : phi;
}

/* && and || evaluate their right side only when needed. */
static int lower_logical(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	LLVMBasicBlockRef rhs_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "logic.rhs");
	LLVMBasicBlockRef end_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "logic.end");
	LLVMTypeRef i1 = LLVMInt1TypeInContext(cg->ctx);
	LLVMValueRef lhs_v, rhs_v, phi, vals[2];
	LLVMBasicBlockRef bbs[2];
	const char *what = e->op == AST_OP_AND ? "'&&'" : "'||'";
	struct cg_value v;
	int err = lower_expr(cg, e->lhs, &v);

	if (!err)
		err = cg_truth(cg, e->lhs, &v, what, &lhs_v);
	if (err)
		return err;
	bbs[0] = LLVMGetInsertBlock(cg->builder);
	if (e->op == AST_OP_AND)
		LLVMBuildCondBr(cg->builder, lhs_v, rhs_bb, end_bb);
	else
		LLVMBuildCondBr(cg->builder, lhs_v, end_bb, rhs_bb);
	LLVMPositionBuilderAtEnd(cg->builder, rhs_bb);
	err = lower_expr(cg, e->rhs, &v);
	/* A constant left side that decides the result (1 || x, 0 && x)
	 * means the right side never runs: its names must exist, but its
	 * type need not be a condition's (as scripts written for GhostScope
	 * expect of `1 || *p` with a struct *p). */
	if (!err && decided(e->op, lhs_v))
		rhs_v = LLVMConstInt(i1, e->op == AST_OP_OR, 0);
	else if (!err)
		err = cg_truth(cg, e->rhs, &v, what, &rhs_v);
	if (err)
		return err;
	bbs[1] = LLVMGetInsertBlock(cg->builder);
	LLVMBuildBr(cg->builder, end_bb);
	LLVMPositionBuilderAtEnd(cg->builder, end_bb);
	phi = LLVMBuildPhi(cg->builder, i1, "");
	vals[0] = LLVMConstInt(i1, e->op == AST_OP_OR, 0);
	vals[1] = rhs_v;
	LLVMAddIncoming(phi, vals, bbs, 2);
	cg_set_value(out, &ctype_bool, cg_bool(cg, constant_logic(e->op, lhs_v, rhs_v, phi)));
	return 0;
}

/* Two string literals compare at compile time; a literal and a string of
 * the program at run time. */
static int string_binary(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
			 struct cg_value *b, struct cg_value *out)
{
	char what[160];
	bool eq;

	if (e->op != AST_OP_EQ && e->op != AST_OP_NE)
		return cg_fail(cg, (a->kind == CG_STRING ? e->lhs : e->rhs)->loc,
			       "strings compare with == and != (or starts_with, strncmp)",
			       "'%s' cannot take a string literal", ast_op_name(e->op));
	if (a->kind == CG_VALUE)
		return strings_equal(cg, e->lhs, a, b->str, e->op == AST_OP_NE, out);
	if (b->kind == CG_VALUE)
		return strings_equal(cg, e->rhs, b, a->str, e->op == AST_OP_NE, out);
	if (!a->str || !b->str)
		return cg_fail(cg, e->loc, NULL, "cannot compare %s", cg_describe(a, what, sizeof(what)));
	eq = strcmp(a->str, b->str) == 0;
	cg_set_value(out, &ctype_bool, cg_i64(cg, e->op == AST_OP_EQ ? eq : !eq));
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
	if (a.kind == CG_STRING || b.kind == CG_STRING)
		return string_binary(cg, e, &a, &b, out);
	return cg_binary_op(cg, e, &a, &b, out);
}

static int lower_member(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value base, obj;
	int err = lower_expr(cg, e->lhs, &base);

	if (err || !e->call)
		return err ? err : values_member(cg, e, &base, out);
	if (!e->arrow)
		return cg_library_method(cg, e, &base, out);
	err = values_deref(cg, e, &base, &obj); /* p->size() */
	return err ? err : cg_library_method(cg, e, &obj, out);
}

static int lower_index(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct cg_value base, index;
	int err = lower_expr(cg, e->lhs, &base);

	if (!err)
		err = lower_expr(cg, e->rhs, &index);
	if (!err)
		err = cg_operand(cg, e->rhs, &index);
	return err ? err : values_index(cg, e, &base, &index, out);
}

/* ---- builtins ---- */

/* The type cast @e names, asked of the plan. */
static int cast_type(struct cg *cg, const struct ast_expr *e, const struct dw_type **t)
{
	if (!e->ctype || !cg->plan->vars.find_type)
		return cg_fail(cg, e->args[1]->loc, "the probed module needs debug info",
			       "no type '%s' here", e->args[1]->str);
	return cg->plan->vars.find_type(cg->plan->vars.ctx, e->ctype, t, cg->diag);
}

/* A pointer cast to a struct, union or array type: the memory it points
 * to, seen as that type, as *(T *)p is in C. */
static int cast_pointee(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
			const struct dw_type *t, struct cg_value *out)
{
	const struct dw_type *p = cg_pointer_to(cg, t);
	int err = cg_operand(cg, e->args[0], v);

	if (err)
		return err;
	if (!p)
		return cg_fail(cg, e->loc, NULL, "no pointer type to %s here", t->name);
	v->dt = p;
	return values_deref(cg, e, v, out);
}

static bool is_aggregate(const struct dw_type *t)
{
	return t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION || t->kind == DW_TYPE_ARRAY;
}

/* cast(expr, "TYPE"): a scalar converts as C converts it; a pointer cast
 * to an aggregate is what it points to; anything else is its memory
 * seen as TYPE. */
static int lower_cast(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct dw_type *t = NULL;
	struct cg_value v;
	char what[160];
	int err = cast_type(cg, e, &t);

	if (!err)
		err = lower_expr(cg, e->args[0], &v);
	if (err)
		return err;
	if (v.kind != CG_VALUE)
		return cg_fail(cg, e->args[0]->loc, NULL, "cast() cannot convert %s",
			       cg_describe(&v, what, sizeof(what)));
	if (is_aggregate(t) && v.dt->kind == DW_TYPE_POINTER && !v.dt->is_reference && !v.dt->container)
		return cast_pointee(cg, e, &v, t, out);
	if (v.lvalue && (!ctype_is_scalar(t) || !ctype_is_scalar(v.dt))) {
		v.dt = t; /* reinterpret the memory */
		v.bit_size = 0;
		*out = v;
		return 0;
	}
	err = cg_operand(cg, e->args[0], &v);
	if (err)
		return err;
	if (!ctype_is_scalar(v.dt) || !ctype_is_scalar(t))
		return cg_fail(cg, e->loc, is_aggregate(t) ? "a cast to an array, struct or union views "
				"memory: cast a pointer to it, or a variable in memory" : NULL,
			       "cannot convert %s to %s", cg_describe(&v, what, sizeof(what)), t->name);
	if ((t->kind == DW_TYPE_FLOAT) != (v.dt->kind == DW_TYPE_FLOAT) ||
	    (t->kind == DW_TYPE_FLOAT && t->size != v.dt->size))
		err = cg_fold_float_cast(cg, e, &v, t, out);
	else
		cg_set_value(out, t, t->kind == DW_TYPE_BOOL
				     ? cg_bool(cg, LLVMBuildICmp(cg->builder, LLVMIntNE, v.v, cg_i64(cg, 0), ""))
				     : cg_fit(cg, v.v, ctype_bits(t, 0), t->is_signed));
	if (!err)
		cg_merge(cg, out, &v, NULL);
	return err;
}

static int lower_call(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	if (!strcmp(e->str, "cast"))
		return lower_cast(cg, e, out);
	return cg_lower_builtin(cg, e, out);
}

static int lower_expr(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	memset(out, 0, sizeof(*out));
	switch (e->kind) {
	case AST_EXPR_INT:
		cg_set_value(out, int_literal_type(e), cg_i64(cg, (uint64_t)e->ival));
		return 0;
	case AST_EXPR_FLOAT:
		float_literal(cg, e, out);
		return 0;
	case AST_EXPR_BOOL:
		cg_set_value(out, &ctype_bool, cg_i64(cg, e->ival != 0));
		return 0;
	case AST_EXPR_STRING:
		out->kind = CG_STRING;
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
	return cg_fail(cg, e->loc, NULL, "unknown expression");
}

int cg_lower_expr(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	return lower_expr(cg, e, out);
}
