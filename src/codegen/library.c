/* library.c - the C++ standard library's values in expressions, as a
 * C++ user reaches for them: `*p` and `p->m` through unique_ptr and
 * shared_ptr, `v[i]` on vector, span and string, `v.size()`,
 * `s.length()`, `m.empty()`, `o.has_value()`, `p.get()`, a string
 * compared with a literal, an optional or a smart pointer as a
 * condition.  Each reads the fields dwarf/stdlib.h locates, in the
 * probe, at the hit; nothing here calls the program's code.
 */
#include "codegen/ctype.h"
#include "codegen/lower.h"
#include "dwarf/stdlib.h"
#include "protocol/wire.h"
#include "util/error.h"

#include <string.h>

static const struct dw_type lib_char = { .kind = DW_TYPE_INT, .name = "char", .size = 1, .is_signed = true,
					 .is_char = true };
static const struct dw_type lib_text = { .kind = DW_TYPE_POINTER, .name = "const char *", .size = 8,
					 .target = &lib_char };

/* @v as one of the library's values; false when it is none. */
static bool library_of(const struct cg_value *v, struct dw_std *s)
{
	return v->kind == CG_VALUE && v->dt->kind == DW_TYPE_STRUCT && dw_std_recognize(v->dt, s);
}

/* The field at byte @off of library value @obj, of type @t, read. */
static int field(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_type *t,
		 int64_t off, LLVMValueRef *out)
{
	struct cg_value f;
	int err = values_need_lvalue(cg, e, obj, "the library's value");

	if (err)
		return err;
	if (off < 0)
		return cg_fail(cg, e->loc, NULL, "this version of %s has no such field", obj->dt->name);
	cg_set_value(&f, t, LLVMBuildAdd(cg->builder, obj->v, cg_i64(cg, (uint64_t)off), ""));
	f.lvalue = true;
	f.status = obj->status;
	f.fail_addr = obj->fail_addr;
	*out = values_scalar(cg, e, &f);
	if (!*out)
		return -WR_ESEMANTIC;
	/* the read's failure travels with the result */
	obj->status = f.status;
	obj->fail_addr = f.fail_addr;
	return 0;
}

static void result(struct cg *cg, const struct cg_value *obj, const struct dw_type *t, LLVMValueRef x,
		   struct cg_value *out)
{
	cg_set_value(out, t, x);
	cg_merge(cg, out, obj, NULL);
}

/* A string's characters and length: libc++ keeps a short one in the
 * object (its first byte: length << 1, bit 0 clear), a long one on the
 * heap. */
static int text(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		LLVMValueRef *data, LLVMValueRef *len)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef head, is_long;
	int err;

	if (!s->libcxx) {
		err = field(cg, e, obj, &lib_text, s->a, data);
		return err ? err : field(cg, e, obj, &ctype_ulong, s->b, len);
	}
	err = field(cg, e, obj, &ctype_ulong, 0, &head);
	if (!err)
		err = field(cg, e, obj, &lib_text, s->a, data);
	if (!err)
		err = field(cg, e, obj, &ctype_ulong, s->b, len);
	if (err)
		return err;
	is_long = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, head, cg_i64(cg, 1), ""), cg_i64(cg, 0), "");
	*data = LLVMBuildSelect(B, is_long, *data, LLVMBuildAdd(B, obj->v, cg_i64(cg, 1), ""), "");
	*len = LLVMBuildSelect(B, is_long, *len, LLVMBuildLShr(B, LLVMBuildAnd(B, head, cg_i64(cg, 0xff), ""),
							     cg_i64(cg, 1), ""), "");
	return 0;
}

/* The elements of a vector or span: where they start, how many. */
static int sequence(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		    LLVMValueRef *begin, LLVMValueRef *n)
{
	LLVMValueRef end;
	int err = field(cg, e, obj, &ctype_ulong, s->a, begin);

	if (err)
		return err;
	if (s->fixed) {
		*n = cg_i64(cg, (uint64_t)s->d);
		return 0;
	}
	err = field(cg, e, obj, &ctype_ulong, s->b, &end);
	if (err)
		return err;
	*n = s->has_count ? end
			  : LLVMBuildUDiv(cg->builder, LLVMBuildSub(cg->builder, end, *begin, ""),
					  cg_i64(cg, s->elem->size ? s->elem->size : 1), "");
	return 0;
}

/* size(), length(): the number of elements or characters; 1 when none
 * (with an error). */
static int count(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		 LLVMValueRef *n)
{
	LLVMValueRef data;

	switch (s->kind) {
	case DW_STD_STRING:
		return text(cg, e, obj, s, &data, n);
	case DW_STD_VECTOR:
		return sequence(cg, e, obj, s, &data, n);
	case DW_STD_TREE:
	case DW_STD_LIST:
		if (s->e >= 0)
			return field(cg, e, obj, &ctype_ulong, s->e, n);
		break;
	default:
		break;
	}
	return cg_fail(cg, e->loc, "print it: its printer shows how many it holds",
		       "size() of %s is not read by the probe", obj->dt->name);
}

/* A smart pointer's pointer, as a pointer to its element. */
static int smart_pointer(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
			 struct cg_value *out)
{
	const struct dw_type *p = s->elem ? cg_pointer_to(cg, s->elem) : NULL;
	LLVMValueRef x;
	int err;

	if (!p)
		return cg_fail(cg, e->loc, NULL, "no pointer type for %s", obj->dt->name);
	err = field(cg, e, obj, &ctype_ulong, s->a, &x);
	if (!err)
		result(cg, obj, p, x, out);
	return err;
}

bool cg_library_pointer(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err)
{
	struct dw_std s;
	struct cg_value p;

	if (!library_of(v, &s) || (s.kind != DW_STD_UNIQUE_PTR && s.kind != DW_STD_SHARED_PTR))
		return false;
	*err = smart_pointer(cg, e, v, &s, &p);
	if (!*err)
		*v = p;
	return true;
}

bool cg_library_text(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err)
{
	struct dw_std s;
	LLVMValueRef data, len;

	if (!library_of(v, &s) || s.kind != DW_STD_STRING)
		return false;
	/* a string_view's characters are not NUL-terminated */
	if (strstr(v->dt->name, "string_view"))
		*err = cg_fail(cg, e->loc, "compare a std::string", "%s cannot be compared as text here",
			       v->dt->name);
	else if (!(*err = text(cg, e, v, &s, &data, &len)))
		result(cg, v, &lib_text, data, v);
	return true;
}

bool cg_library_truth(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err)
{
	struct dw_std s;
	LLVMValueRef x;

	if (!library_of(v, &s))
		return false;
	if (s.kind == DW_STD_OPTIONAL) {
		if (!(*err = field(cg, e, v, &ctype_ulong, s.b, &x)))
			result(cg, v, &ctype_bool, LLVMBuildAnd(cg->builder, x, cg_i64(cg, 0xff), ""), v);
		return true;
	}
	return cg_library_pointer(cg, e, v, err);
}

int cg_library_index(struct cg *cg, const struct ast_expr *e, struct cg_value *base, struct cg_value *index,
		     struct cg_value *out, bool *done)
{
	LLVMBuilderRef B = cg->builder;
	struct cg_value p;
	struct dw_std s;
	LLVMValueRef begin, n, oor;
	int err;

	*done = library_of(base, &s) && (s.kind == DW_STD_VECTOR || s.kind == DW_STD_STRING);
	if (!*done)
		return 0;
	err = s.kind == DW_STD_STRING ? text(cg, e->lhs, base, &s, &begin, &n) : sequence(cg, e->lhs, base, &s, &begin, &n);
	if (err)
		return err;
	cg_set_value(&p, s.kind == DW_STD_STRING ? &lib_text : cg_pointer_to(cg, s.elem), begin);
	if (!p.dt)
		return cg_fail(cg, e->loc, NULL, "no pointer type for the elements of %s", base->dt->name);
	cg_merge(cg, &p, base, NULL);
	err = values_index(cg, e, &p, index, out);
	if (err || !out->lvalue)
		return err;
	/* past the end nothing is read: index-out-of-range */
	oor = LLVMBuildICmp(B, LLVMIntUGE, index->v, n, "");
	out->status = LLVMBuildSelect(B, LLVMBuildAnd(B, oor, LLVMBuildICmp(B, LLVMIntEQ, out->status,
									   cg_i32(cg, WR_ARG_OK), ""), ""),
				      cg_i32(cg, WR_ARG_INDEX_RANGE), out->status, "");
	out->v = LLVMBuildSelect(B, oor, cg_i64(cg, 0), out->v, "");
	return 0;
}

int cg_library_method(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, struct cg_value *out)
{
	struct dw_std s;
	LLVMValueRef x;
	int err;

	if (!library_of(obj, &s))
		return cg_fail(cg, e->loc, "methods are read for the C++ library's strings, containers, "
			       "optionals and smart pointers", "%s has no method %s() the probe can read",
			       obj->kind == CG_VALUE ? obj->dt->name : "this value", e->str);
	if (!strcmp(e->str, "size") || !strcmp(e->str, "length") || !strcmp(e->str, "empty")) {
		err = count(cg, e, obj, &s, &x);
		if (!err && !strcmp(e->str, "empty"))
			result(cg, obj, &ctype_bool, cg_bool(cg, LLVMBuildICmp(cg->builder, LLVMIntEQ, x, cg_i64(cg, 0), "")),
			       out);
		else if (!err)
			result(cg, obj, &ctype_ulong, x, out);
		return err;
	}
	if (!strcmp(e->str, "has_value") && s.kind == DW_STD_OPTIONAL) {
		*out = *obj;
		return cg_library_truth(cg, e, out, &err) ? err : 0;
	}
	if (!strcmp(e->str, "get") && (s.kind == DW_STD_UNIQUE_PTR || s.kind == DW_STD_SHARED_PTR))
		return smart_pointer(cg, e, obj, &s, out);
	return cg_fail(cg, e->loc, "size(), length(), empty(), has_value() and get() are read",
		       "%s() of %s is not read by the probe", e->str, obj->dt->name);
}
