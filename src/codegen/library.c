/* library.c - the C++ standard library's values in expressions, as a
 * C++ user reaches for them: `*p` and `p->m` through unique_ptr and
 * shared_ptr, `v[i]` on vector, span and string, `v.size()`,
 * `s.length()`, `m.empty()`, `o.has_value()`, `p.get()`, a string
 * compared with a literal, an optional or a smart pointer as a
 * condition.  Each reads the fields dwarf/stdlib.h locates, in the
 * probe, at the hit; nothing here calls the program's code.
 */
#include "codegen/codegen.h"
#include "codegen/ctype.h"
#include "codegen/lower.h"
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

/* A Rust reference (a pointer in DWARF: `&Vec<i32>`) to one of the
 * library's values stands for it, as Rust's auto-deref makes it for a
 * method call or an index: @v becomes the referent (@e: the expression
 * whose lhs is @v's).  Returns 0 when @v is not one. */
static int rust_referent(struct cg *cg, const struct ast_expr *e, struct cg_value *v)
{
	struct cg_value r;
	struct dw_std s;
	int err;

	if (v->kind != CG_VALUE || !v->dt->rust || v->dt->kind != DW_TYPE_POINTER || !v->dt->target ||
	    v->dt->target->kind != DW_TYPE_STRUCT || !dw_std_recognize(v->dt->target, &s))
		return 0;
	err = values_deref(cg, e, v, &r);
	if (!err)
		*v = r;
	return err;
}

/* The field at byte @off of library value @obj, of type @t, read. */
static int field(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_type *t,
		 int64_t off, LLVMValueRef *out)
{
	struct cg_value f;
	bool in_pieces = obj->kind == CG_VALUE && obj->composed && !obj->lvalue && !obj->optimized_out;
	int err = in_pieces ? 0 : values_need_lvalue(cg, e, obj, "the library's value");

	if (err)
		return err;
	if (off < 0)
		return cg_fail(cg, e->loc, NULL, "this version of %s has no such field", obj->dt->name);
	if (in_pieces) {
		/* a Rust &str or a slice in two registers: each field from its piece */
		err = values_composed_part(cg, e, obj, t, (uint64_t)off, 0, 0, &f);
		if (!err && f.optimized_out)
			err = cg_fail(cg, e->loc, NULL, "a field of %s is optimized out at this pc of %s",
				      obj->dt->name, cg->plan->name);
		if (err)
			return err;
	} else {
		cg_set_value(&f, t, LLVMBuildAdd(cg->builder, obj->v, cg_i64(cg, (uint64_t)off), ""));
		f.lvalue = true;
	}
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
	/* a short string's characters are in the object: it needs an address */
	err = values_need_lvalue(cg, e, obj, "the library's value");
	if (!err)
		err = field(cg, e, obj, &ctype_ulong, 0, &head);
	if (!err)
		err = field(cg, e, obj, &lib_text, s->a, data);
	if (!err)
		err = field(cg, e, obj, &ctype_ulong, s->b, len);
	if (err)
		return err;
	is_long = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, head, cg_i64(cg, 1), ""), cg_i64(cg, 0), "");
	*data = LLVMBuildSelect(B, is_long, *data, LLVMBuildAdd(B, obj->v, cg_i64(cg, s->char_size ? s->char_size : 1), ""),
				"");
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

static int deque_count(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		       LLVMValueRef *n);
static int ring_count(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		      LLVMValueRef *n);

/* size(), length(), len(): the number of elements or characters; an
 * error for a container whose count the probe does not read. */
static int count(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		 LLVMValueRef *n)
{
	LLVMValueRef data;

	switch (s->kind) {
	case DW_STD_STRING:
		/* the length alone where it is a field: a &str whose data
		 * pointer the compiler dropped still has it */
		if (!s->libcxx)
			return field(cg, e, obj, &ctype_ulong, s->b, n);
		return text(cg, e, obj, s, &data, n);
	case DW_STD_VECTOR:
		if (s->has_count && !s->fixed)
			return field(cg, e, obj, &ctype_ulong, s->b, n);
		return sequence(cg, e, obj, s, &data, n);
	case DW_STD_TREE:
	case DW_STD_LIST:
	case DW_STD_HASH:
	case DW_STD_BTREE:
		if (s->e >= 0)
			return field(cg, e, obj, &ctype_ulong, s->e, n);
		break;
	case DW_STD_DEQUE:
		return deque_count(cg, e, obj, s, n);
	case DW_STD_RING:
		return ring_count(cg, e, obj, s, n);
	default:
		break;
	}
	return cg_fail(cg, e->loc, "print it: its printer shows how many it holds",
		       "%s of %s is not read by the probe", obj->dt->rust ? "len()" : "size()", obj->dt->name);
}

/* A std::deque's length.  libc++ keeps it; libstdc++'s is its iterators'
 * distance, as its operator- computes it: whole blocks between their
 * nodes, and the parts of the first and last. */
static int deque_count(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		       LLVMValueRef *n)
{
	LLVMBuilderRef B = cg->builder;
	uint64_t size = s->elem->size ? s->elem->size : 1;
	LLVMValueRef scur, slast, snode, fcur, ffirst, fnode, blocks, head, tail;
	int err;

	if (s->libcxx)
		return field(cg, e, obj, &ctype_ulong, s->c, n);
	err = field(cg, e, obj, &ctype_ulong, s->a, &scur);
	err = err ? err : field(cg, e, obj, &ctype_ulong, s->a + 16, &slast);
	err = err ? err : field(cg, e, obj, &ctype_ulong, s->a + 24, &snode);
	err = err ? err : field(cg, e, obj, &ctype_ulong, s->b, &fcur);
	err = err ? err : field(cg, e, obj, &ctype_ulong, s->b + 8, &ffirst);
	err = err ? err : field(cg, e, obj, &ctype_ulong, s->b + 24, &fnode);
	if (err)
		return err;
	/* (fnode - snode) / 8 - (fnode != 0) whole blocks of d / size (-1
	 * when both ends are in one block: the sum wraps back) */
	blocks = LLVMBuildSub(B, LLVMBuildUDiv(B, LLVMBuildSub(B, fnode, snode, ""), cg_i64(cg, 8), ""),
			      LLVMBuildZExt(B, LLVMBuildICmp(B, LLVMIntNE, fnode, cg_i64(cg, 0), ""),
					    LLVMInt64TypeInContext(cg->ctx), ""), "");
	head = LLVMBuildUDiv(B, LLVMBuildSub(B, fcur, ffirst, ""), cg_i64(cg, size), "");
	tail = LLVMBuildUDiv(B, LLVMBuildSub(B, slast, scur, ""), cg_i64(cg, size), "");
	*n = LLVMBuildAdd(B, LLVMBuildMul(B, blocks, cg_i64(cg, (uint64_t)s->d / size), ""),
			  LLVMBuildAdd(B, head, tail, ""), "");
	return 0;
}

/* Rust's VecDeque: its count (rustc 1.67+), or (head - tail) &
 * (capacity - 1), its capacity a power of two. */
static int ring_count(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
		      LLVMValueRef *n)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef tail, head, cap;
	int err;

	if (s->ring_len)
		return field(cg, e, obj, &ctype_ulong, s->c, n);
	err = field(cg, e, obj, &ctype_ulong, s->b, &tail);

	err = err ? err : field(cg, e, obj, &ctype_ulong, s->c, &head);
	err = err ? err : field(cg, e, obj, &ctype_ulong, s->d, &cap);
	if (err)
		return err;
	*n = LLVMBuildAnd(B, LLVMBuildSub(B, head, tail, ""), LLVMBuildSub(B, cap, cg_i64(cg, 1), ""), "");
	return 0;
}

/* A smart pointer's pointer, as a pointer to its element; Rust's Rc and
 * Arc point to a block, the value at b in it. */
static int smart_pointer(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, const struct dw_std *s,
			 struct cg_value *out)
{
	const struct dw_type *p = s->elem ? cg_pointer_to(cg, s->elem) : NULL;
	LLVMValueRef x;
	int err;

	if (s->str_value)
		return cg_fail(cg, e->loc, "print it whole: it shows its text", "%s holds a str, which has no address "
			       "of its own to dereference", obj->dt->name);
	if (!p)
		return cg_fail(cg, e->loc, NULL, "no pointer type for %s", obj->dt->name);
	err = field(cg, e, obj, &ctype_ulong, s->a, &x);
	if (!err && s->kind == DW_STD_RC)
		x = LLVMBuildAdd(cg->builder, x, cg_i64(cg, (uint64_t)s->b), "");
	if (!err)
		result(cg, obj, p, x, out);
	return err;
}

bool cg_library_pointer(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err)
{
	struct dw_std s;
	struct cg_value p;

	/* not a Rust Weak, which has no Deref: its value may be gone */
	if (!library_of(v, &s) || (s.kind == DW_STD_RC && s.weak) ||
	    (s.kind != DW_STD_UNIQUE_PTR && s.kind != DW_STD_SHARED_PTR && s.kind != DW_STD_RC))
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
	if (s.char_size > 1)
		*err = cg_fail(cg, e->loc, "print it", "%s holds wide characters and cannot be compared with text here",
			       v->dt->name);
	else if (strstr(v->dt->name, "string_view"))
		*err = cg_fail(cg, e->loc, "compare a std::string", "%s cannot be compared as text here",
			       v->dt->name);
	else if (!(*err = text(cg, e, v, &s, &data, &len)))
		result(cg, v, &lib_text, data, v);
	return true;
}

/* The unsigned type of a Rust enum's discriminant of @size bytes. */
static const struct dw_type *discr_type(unsigned size)
{
	static const struct dw_type u[4] = {
		{ .kind = DW_TYPE_INT, .name = "u8", .size = 1 },
		{ .kind = DW_TYPE_INT, .name = "u16", .size = 2 },
		{ .kind = DW_TYPE_INT, .name = "u32", .size = 4 },
		{ .kind = DW_TYPE_INT, .name = "u64", .size = 8 },
	};

	return size == 1 ? &u[0] : size == 2 ? &u[1] : size == 4 ? &u[2] : size == 8 ? &u[3] : NULL;
}

/* Rust's Option as a condition: whether it holds Some, by its
 * discriminant (a niche too: Some is then the variant no other value
 * selects).  False when @v is no Option. */
static bool rust_option(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err)
{
	const struct dw_type *t = v->dt, *dt;
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef d, some = NULL;

	if (v->kind != CG_VALUE || !t->rust || !t->n_variants || !t->tag_name ||
	    strncmp(t->tag_name, "core::option::Option<", 21))
		return false;
	dt = discr_type(t->discr_size);
	if (!dt) {
		*err = cg_fail(cg, e->loc, NULL, "the discriminant of %s is not read by the probe", t->name);
		return true;
	}
	*err = field(cg, e, v, dt, (int64_t)t->discr_offset, &d);
	if (*err)
		return true;
	for (size_t i = 0; i < t->n_variants; i++) {
		const struct dw_variant *w = &t->variants[i];
		bool is_some = w->name && !strcmp(w->name, "Some");
		LLVMValueRef hit;

		if (w->is_default)
			continue;
		hit = LLVMBuildICmp(B, LLVMIntEQ, d, cg_i64(cg, w->value), "");
		if (is_some)
			some = some ? LLVMBuildOr(B, some, hit, "") : hit;
		else
			some = some ? LLVMBuildAnd(B, some, LLVMBuildNot(B, hit, ""), "")
				    : LLVMBuildNot(B, hit, "");
	}
	if (!some) {
		*err = cg_fail(cg, e->loc, NULL, "%s has no discriminant to test", t->name);
		return true;
	}
	result(cg, v, &ctype_bool, cg_bool(cg, some), v);
	return true;
}

bool cg_library_truth(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err)
{
	struct dw_std s;
	LLVMValueRef x;

	if (rust_option(cg, e, v, err))
		return true;
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

	err = rust_referent(cg, e, base);
	if (err)
		return *done = true, err;
	*done = library_of(base, &s) && (s.kind == DW_STD_VECTOR || s.kind == DW_STD_STRING);
	if (!*done)
		return 0;
	if (s.char_size > 1)
		return cg_fail(cg, e->loc, "print it", "%s holds wide characters and cannot be indexed here",
			       base->dt->name);
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
	int err = rust_referent(cg, e, obj);

	if (err)
		return err;
	if ((!strcmp(e->str, "is_some") || !strcmp(e->str, "is_none")) && rust_option(cg, e, obj, &err)) {
		if (!err && !strcmp(e->str, "is_none"))
			obj->v = LLVMBuildXor(cg->builder, obj->v, cg_i64(cg, 1), "");
		*out = *obj;
		return err;
	}
	if (!library_of(obj, &s))
		return cg_fail(cg, e->loc, "methods are read for the C++ library's strings, containers, "
			       "optionals and smart pointers", "%s has no method %s() the probe can read",
			       obj->kind == CG_VALUE ? obj->dt->name : "this value", e->str);
	if (!strcmp(e->str, "empty") && s.kind == DW_STD_LIST && s.e < 0 && !s.circular) {
		/* forward_list: no count, its first node or none */
		err = field(cg, e, obj, &ctype_ulong, s.a, &x);
		if (!err)
			result(cg, obj, &ctype_bool, cg_bool(cg, LLVMBuildICmp(cg->builder, LLVMIntEQ, x, cg_i64(cg, 0), "")),
			       out);
		return err;
	}
	if (!strcmp(e->str, "size") || !strcmp(e->str, "length") || !strcmp(e->str, "empty") ||
	    (obj->dt->rust && (!strcmp(e->str, "len") || !strcmp(e->str, "is_empty")))) {
		bool empty = !strcmp(e->str, "empty") || !strcmp(e->str, "is_empty");

		err = count(cg, e, obj, &s, &x);
		if (!err && empty)
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

void codegen_methods(const struct dw_type *t, void (*fn)(const char *name, void *ctx), void *ctx)
{
	struct dw_std s;

	/* a reference stands for its referent (C++; Rust's: rust_referent) */
	if (t->kind == DW_TYPE_POINTER && t->target && (t->is_reference || (t->rust && t->target->kind == DW_TYPE_STRUCT &&
								      dw_std_recognize(t->target, &s))))
		t = t->target;
	if (t->rust && t->n_variants && t->tag_name && !strncmp(t->tag_name, "core::option::Option<", 21)) {
		fn("is_some()", ctx);
		fn("is_none()", ctx);
		return;
	}
	if (t->kind != DW_TYPE_STRUCT || !dw_std_recognize(t, &s))
		return;
	switch (s.kind) {
	case DW_STD_STRING:
	case DW_STD_VECTOR:
	case DW_STD_DEQUE:
	case DW_STD_RING:
		break;
	case DW_STD_TREE:
	case DW_STD_LIST:
	case DW_STD_HASH:
	case DW_STD_BTREE:
		if (s.e < 0) { /* forward_list: no count (count()) */
			if (s.kind == DW_STD_LIST && !s.circular)
				fn("empty()", ctx);
			return;
		}
		break;
	case DW_STD_OPTIONAL:
		fn("has_value()", ctx);
		return;
	case DW_STD_UNIQUE_PTR:
	case DW_STD_SHARED_PTR:
		fn("get()", ctx);
		return;
	default:
		return;
	}
	if (t->rust) {
		fn("len()", ctx);
		fn("is_empty()", ctx);
		return;
	}
	fn("size()", ctx);
	if (s.kind == DW_STD_STRING)
		fn("length()", ctx);
	fn("empty()", ctx);
}
