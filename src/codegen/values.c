/* values.c - the traced program's values in expressions: a name (a
 * variable at its location, locations.c; an enumerator; a function; a
 * member of `this` inside a method), members, indexes, pointers followed
 * and addresses taken, C++ references standing for their referents, and
 * the scalar a value reads as.
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
#include "util/editdist.h"
#include "util/error.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

/* A name that is no variable may be an enumerator, a constant of its enum. */
static int enum_constant(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	const struct dw_type *t;
	int64_t v;

	if (!cg->plan->vars.find_enumerator ||
	    cg->plan->vars.find_enumerator(cg->plan->vars.ctx, e->str, &t, &v))
		return unknown_name(cg, e);
	cg_set_value(out, t, cg_fit(cg, cg_i64(cg, (uint64_t)v), ctype_bits(t, 0), t->is_signed));
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
	cg_set_lvalue(out, t, LLVMBuildAdd(cg->builder, bias, cg_i64(cg, vaddr), ""));
	return 0;
}

static int follow(struct cg *cg, const struct ast_expr *e, struct cg_value *v, struct cg_value *out);

/* A C++ reference stands for its referent, as in C++: @v becomes the
 * referent (an lvalue), remembering the reference for print. */
int values_through_reference(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
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

#define MAX_BASE_PATH 8 /* base classes and anonymous members around a member */

/* Inside a method, a member named alone is this->member, as gdb finds
 * it; -ENOENT (nothing reported) when there is no `this` with it. */
static int implicit_this(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct ast_expr self = { .kind = AST_EXPR_IDENT, .loc = e->loc, .str = (char *)"this",
				 .off = e->off, .end = e->end, .height = 1 };
	struct ast_expr member = *e;
	const struct dw_member *path[MAX_BASE_PATH];
	size_t depth = 0;
	struct dw_var var;
	struct cg_value base;
	int err;

	if (cg->plan->vars.find(cg->plan->vars.ctx, "this", &var) || !var.type ||
	    var.type->kind != DW_TYPE_POINTER || !var.type->target ||
	    var.type->target->kind != DW_TYPE_STRUCT ||
	    !dw_type_member_path(var.type->target, e->str, path, &depth, MAX_BASE_PATH))
		return -ENOENT;
	member.kind = AST_EXPR_MEMBER;
	member.arrow = true;
	member.lhs = &self;
	member.height = 2;
	err = locations_value(cg, &self, var.type, &var.loc, &base);
	return err ? err : values_member(cg, &member, &base, out);
}

/* Whether the probe can compute location tree @x without an error: no
 * thread-local block, a CFA only with an unwind row at the probe. */
static bool computable(const struct cg *cg, const struct dw_expr *x, int depth)
{
	if (!x)
		return true;
	if (depth > 32 || x->op == DW_EXPR_TLS || (x->op == DW_EXPR_CFA && cg->plan->cfa_reg < 0))
		return false;
	return computable(cg, x->a, depth + 1) && computable(cg, x->b, depth + 1) &&
	       computable(cg, x->c, depth + 1);
}

/* The lengths of VLA @var (or of the VLA it points to) at the hit, into
 * @out's vla_count, when the pc has every one of them; else none (its
 * print stays marked). */
static void vla_counts(struct cg *cg, const struct ast_expr *e, const struct dw_var *var, struct cg_value *out)
{
	const struct dw_type *t = var->type;

	if (t && t->kind == DW_TYPE_POINTER)
		t = t->target;
	if (!var->n_vla || !t || !dw_type_is_vla(t) || out->optimized_out || out->synthetic)
		return;
	for (unsigned i = 0; i < var->n_vla; i++)
		if (var->vla_len[i].kind != DW_LOC_VALUE_EXPR || !computable(cg, var->vla_len[i].expr, 0))
			return;
	for (unsigned i = 0; i < var->n_vla; i++) {
		struct cg_value n = { 0 };

		if (locations_value(cg, e, &ctype_ulong, &var->vla_len[i], &n))
			return;
		out->vla_count[i] = n.v;
		if (n.status)
			out->vla_status = out->vla_status
				? LLVMBuildSelect(cg->builder, LLVMBuildICmp(cg->builder, LLVMIntNE, out->vla_status,
									      cg_i32(cg, 0), ""),
						  out->vla_status, n.status, "")
				: n.status;
	}
	out->n_vla = var->n_vla;
}

/* @out, an element of VLA @v (or what pointer @v points to, @deref):
 * the lengths that remain its own. */
static void vla_inner(const struct cg_value *v, bool deref, struct cg_value *out)
{
	unsigned drop = !deref && v->dt->kind == DW_TYPE_ARRAY && v->dt->dynamic;

	out->n_vla = 0;
	if (!v->n_vla || !dw_type_is_vla(out->dt) || drop > v->n_vla)
		return;
	for (unsigned i = drop; i < v->n_vla; i++)
		out->vla_count[i - drop] = v->vla_count[i];
	out->n_vla = v->n_vla - drop;
	out->vla_status = v->vla_status;
}

#define VLA_BYTES_MAX (UINT64_C(1) << 40) /* no array is larger */

LLVMValueRef values_vla_bytes(struct cg *cg, const struct cg_value *v)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef bytes = cg_i64(cg, 1), n, max = cg_i64(cg, VLA_BYTES_MAX), over;
	const struct dw_type *t = v->dt;
	unsigned k = 0;

	for (int depth = 0; t && t->kind == DW_TYPE_ARRAY && depth < 8; t = t->target, depth++) {
		n = t->dynamic && k < v->n_vla ? v->vla_count[k++] : cg_i64(cg, t->count);
		/* saturated: bytes * n > max when n > max / bytes (bytes >= 1) */
		over = LLVMBuildICmp(B, LLVMIntUGT, n, LLVMBuildUDiv(B, max, bytes, ""), "");
		bytes = LLVMBuildSelect(B, over, max, LLVMBuildMul(B, bytes, n, ""), "");
	}
	n = cg_i64(cg, t && t->size ? t->size : 1);
	over = LLVMBuildICmp(B, LLVMIntUGT, bytes, cg_i64(cg, VLA_BYTES_MAX / (t && t->size ? t->size : 1)), "");
	return LLVMBuildSelect(B, over, max, LLVMBuildMul(B, bytes, n, ""), "vla.bytes");
}

int values_ident(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct dw_var var;
	int err;

	if (!cg->plan->vars.find)
		return cg_fail(cg, e->loc, "build the program with -g, or install its debug info",
			       "'%s' cannot be read: %s has no debug information", e->str, cg->plan->name);
	err = cg->plan->vars.find(cg->plan->vars.ctx, e->str, &var);
	if (err == -ENOTUNIQ)
		return cg_fail(cg, e->loc, "write its path: MODULE::NAME (a Rust module's, a C++ namespace's)",
			       "'%s' names globals of several namespaces", e->str);
	if (err) {
		err = implicit_this(cg, e, out);
		return err != -ENOENT ? err : function_value(cg, e, out);
	}
	if (var.frame)
		cg->arg_frame = var.frame;
	err = locations_value(cg, e, var.type, &var.loc, out);
	/* a reference's value at entry is its referent's, which no call
	 * site's DW_AT_call_value says (as bt args rules); a local may be
	 * only a parameter's entry value too (`struct job *j = arg;`) */
	if (!err && var.scope != DW_VAR_GLOBAL && !var.frame && var.type && !var.type->is_reference)
		out->entry_reg = var.loc.entry_reg;
	if (!err)
		vla_counts(cg, e, &var, out);
	return err ? err : values_through_reference(cg, e, out);
}

int values_composed_part(struct cg *cg, const struct ast_expr *e, const struct cg_value *base,
			 const struct dw_type *t, uint64_t offset, unsigned bit_size, unsigned bit_offset,
			 struct cg_value *out)
{
	struct dw_loc sub;
	int err;

	dw_loc_select(&base->loc, offset * 8, (t->size ? t->size : 1) * 8, &sub);
	err = locations_value(cg, e, t, &sub, out);
	if (err || !bit_size || out->optimized_out)
		return err;
	if (out->lvalue) {
		out->bit_size = bit_size;
		out->bit_offset = bit_offset;
	} else {
		out->v = cg_fit(cg, LLVMBuildLShr(cg->builder, out->v, cg_i64(cg, bit_offset), ""), bit_size,
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
	return locations_value(cg, e, t, &sub, out);
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
	cg_set_lvalue(out, v->dt->target, p);
	out->status = v->status;
	out->fail_addr = v->fail_addr;
	is_null = LLVMBuildICmp(cg->builder, LLVMIntEQ, p, cg_i64(cg, 0), "");
	st = LLVMBuildSelect(cg->builder, is_null, cg_i32(cg, WR_ARG_NULL_DEREF), cg_i32(cg, 0), "");
	cg_merge_status(cg, out, st, cg_i64(cg, 0));
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
		vla_inner(v, false, out);
		return 0;
	}
	if (v->kind != CG_VALUE || v->dt->kind != DW_TYPE_POINTER)
		return cg_fail(cg, e->loc, NULL, "only a pointer or an array can be dereferenced, not %s",
			       cg_describe(v, what, sizeof(what)));
	t = v->dt->target;
	if (!t || t->kind == DW_TYPE_VOID)
		return cg_fail(cg, e->loc, "cast it to a pointer to what it points to: cast(p, \"T *\")",
			       "%s points to void, which has no value to read", v->dt->name);
	err = follow(cg, e, v, out);
	if (!err)
		vla_inner(v, true, out);
	return err;
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

/* Member @name of @t; of a Rust tuple or tuple struct, `.0` is its field
 * __0, as Rust spells it. */
static const struct dw_member *rust_field(const struct dw_type *t, const char *name, uint64_t *off)
{
	const struct dw_member *mb = dw_type_member(t, name, off);
	char field[32];

	if (mb || !t->rust || !name[0] || strspn(name, "0123456789") != strlen(name) || strlen(name) > 8)
		return mb;
	snprintf(field, sizeof(field), "__%s", name);
	return dw_type_member(t, field, off);
}

/* Member @e->str of struct @obj (an lvalue) that lies in a C++ virtual
 * base class: its address computed at the hit, each virtual base placed
 * by the offset its object's vtable holds (gdb reads it the same way).
 * -ENOENT (nothing reported) when @obj has no such member. */
static int virtual_member(struct cg *cg, const struct ast_expr *e, const struct cg_value *obj,
			  struct cg_value *out)
{
	const struct dw_member *path[MAX_BASE_PATH], *mb;
	LLVMValueRef addr = obj->v, vptr, off;
	size_t n = 0;
	int err;

	mb = dw_type_member_path(obj->dt, e->str, path, &n, MAX_BASE_PATH);
	if (!mb)
		return -ENOENT;
	err = values_need_lvalue(cg, e->lhs, obj, "the object");
	if (err)
		return err;
	cg_set_lvalue(out, mb->type, addr);
	out->status = obj->status;
	out->fail_addr = obj->fail_addr;
	for (size_t i = 0; i < n; i++) {
		if (!path[i]->is_virtual) {
			addr = LLVMBuildAdd(cg->builder, addr, cg_i64(cg, path[i]->offset), "");
			continue;
		}
		if (!path[i]->vbase_slot)
			return cg_fail(cg, e->loc, NULL,
				       "'%s' lies in virtual base class %s, and the debug info places it in a "
				       "way this version cannot read", e->str, path[i]->type->name);
		vptr = cg_read_u64(cg, addr, 8, out);
		off = cg_read_u64(cg, LLVMBuildSub(cg->builder, vptr, cg_i64(cg, path[i]->vbase_slot), ""), 8, out);
		addr = LLVMBuildAdd(cg->builder, addr, off, "");
	}
	out->v = LLVMBuildAdd(cg->builder, addr, cg_i64(cg, mb->offset), "");
	out->bit_size = mb->bit_size;
	out->bit_offset = mb->bit_offset;
	return values_through_reference(cg, e, out);
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
	mb = rust_field(obj.dt, e->str, &off);
	if (!mb && !obj.optimized_out && !obj.composed) {
		err = virtual_member(cg, e, &obj, out);
		if (err != -ENOENT)
			return err;
	}
	if (!mb)
		return no_member(cg, e, obj.dt);
	if (obj.optimized_out) {
		/* a member of what is optimized out is too, as gdb says */
		cg_set_value(out, mb->type, cg_i64(cg, 0));
		out->optimized_out = true;
		return 0;
	}
	if (obj.composed) {
		err = values_composed_part(cg, e, &obj, mb->type, off, mb->bit_size, mb->bit_offset, out);
		return err ? err : values_through_reference(cg, e, out);
	}
	err = values_need_lvalue(cg, e->lhs, &obj, "the struct");
	if (err)
		return err;
	cg_set_lvalue(out, mb->type, LLVMBuildAdd(cg->builder, obj.v, cg_i64(cg, off), ""));
	out->status = obj.status;
	out->fail_addr = obj.fail_addr;
	out->bit_size = mb->bit_size;
	out->bit_offset = mb->bit_offset;
	return values_through_reference(cg, e, out);
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
	cg_merge_status(cg, out, st, cg_i64(cg, 0));
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
		cg_set_value(out, base->dt->target, cg_i64(cg, 0));
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
		return values_composed_part(cg, e, base, base->dt->target,
				     LLVMConstIntGetZExtValue(index->v) * base->dt->target->size, 0, 0, out);
	}
	err = pointee(cg, e->lhs, base, &elem);
	if (err)
		return err;
	if (elem.n_vla && base->dt->kind == DW_TYPE_ARRAY) {
		/* a row of a VLA: its size is the lengths read at the hit (a
		 * pointer to a VLA is not indexed, as gdb does not) */
		scaled = LLVMBuildMul(cg->builder, index->v, values_vla_bytes(cg, &elem), "");
		*out = elem;
		out->v = LLVMBuildAdd(cg->builder, elem.v, scaled, "");
		cg_merge(cg, out, &elem, index);
		if (elem.vla_status)
			cg_merge_status(cg, out, elem.vla_status, cg_i64(cg, 0));
		return 0;
	}
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
		return cg_fit(cg, v->v, v->bit_size ? v->bit_size : size * 8, t->is_signed);
	if (v->bit_size) {
		x = cg_read_u64(cg, v->v, bitfield_bytes(v), v);
		x = LLVMBuildLShr(cg->builder, x, cg_i64(cg, v->bit_offset), "");
		return cg_fit(cg, x, v->bit_size, t->is_signed);
	}
	x = cg_read_u64(cg, v->v, size, v);
	return cg_fit(cg, x, size * 8, t->is_signed);
}
