/* print_args.c - a program value put on the wire as a print argument:
 * a scalar with its kind (and, when its own read failed, the address
 * user space may read again), a char pointer with its string, a value in
 * memory as its bytes with the strings its char pointers point to
 * attached and the walks its containers need (walks.c), a value
 * assembled from pieces word by word with the bits no piece kept marked;
 * {:s} refused for a struct, with the text member it holds as the hint.
 * And for a bt with frame values, what frame 0's variables refer or
 * point to, copied at the hit.
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "util/error.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

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

/* The arguments of wr_arg_cstr() and wr_arg_wstr(): @max (their limit)
 * and @status (may be NULL) packed as wr_str_max_status() packs them. */
static void str_args(struct cg *cg, LLVMValueRef ptr, unsigned max, LLVMValueRef status, unsigned kind_aux,
		     LLVMValueRef args[4])
{
	LLVMValueRef ms = cg_i32(cg, wr_str_max_status(max, WR_ARG_OK));

	if (status)
		ms = LLVMBuildOr(cg->builder, ms,
				 LLVMBuildShl(cg->builder, status, cg_i32(cg, WR_STR_STATUS_SHIFT), ""), "");
	args[0] = cg->buf;
	args[1] = ptr;
	args[2] = ms;
	args[3] = cg_i32(cg, kind_aux);
}

/* A char pointer @ptr and its string, at most @max bytes; @status (may be
 * NULL) is the result of reading the pointer: when it failed, the event
 * says so instead of reading.  @kind_aux: WR_ARG_CSTR or WR_ARG_ATTACH
 * with its offset. */
static void emit_cstr(struct cg *cg, LLVMValueRef ptr, unsigned max, LLVMValueRef status,
		      unsigned kind_aux)
{
	LLVMValueRef args[4];

	str_args(cg, ptr, max, status, kind_aux, args);
	cg_call(cg, WR_FN_ARG_CSTR, args, 4);
}

/* A pointer @ptr to wide characters of type @e and the bytes of at most
 * print elements of them and a NUL (the renderer finds where the string
 * ends); @status and @kind_aux as for emit_cstr(). */
static void emit_wstr(struct cg *cg, LLVMValueRef ptr, const struct dw_type *e, LLVMValueRef status,
		      unsigned kind_aux)
{
	uint64_t max = ((uint64_t)cg->print_elements + 1) * e->size;
	LLVMValueRef args[4];

	str_args(cg, ptr, max < WR_ARG_WSTR_MAX ? (unsigned)max : WR_ARG_WSTR_MAX, status,
		 kind_aux | WR_ARG_AUX_WIDE << 8, args);
	cg_call(cg, WR_FN_ARG_WSTR, args, 4);
}

/* Whether gdb shows flexible array @t (its address) with the string
 * there: one of chars, not one of char arrays (char [][4]). */
static bool flexible_text(const struct dw_type *t)
{
	return t->is_char && t->target && t->target->kind != DW_TYPE_ARRAY;
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
		p = cg_read_u64(w->cg, LLVMBuildAdd(w->cg->builder, w->addr, cg_i64(w->cg, at), ""), 8, &held);
		*st = held.status;
		return p;
	}
	if (dw_loc_unavailable(w->loc, at * 8, 64) || locations_window(w->cg, w->e, w->loc, at * 8, 64, &p, st))
		return NULL;
	return p;
}

/* Strings of the char pointers inside a printed aggregate, so it shows
 * `name: 0x... "text"` as gdb does: each follows the aggregate on the wire,
 * tagged with the pointer's offset in it. */
static void attach_strings(struct attach_walk *w, const struct dw_type *t, uint64_t at, int depth)
{
	if (dw_type_is_flexible(t) && !w->loc && at <= w->limit && w->n < WR_ARG_ATTACH_MAX) {
		/* a flexible array member: its address, a char one's string */
		emit_cstr(w->cg, LLVMBuildAdd(w->cg->builder, w->addr, cg_i64(w->cg, at), ""),
			  flexible_text(t) ? WR_ARG_ATTACH_STR : 1, NULL, WR_ARG_ATTACH | (unsigned)at << 8);
		w->n++;
		return;
	}
	if (depth > 8 || at >= w->limit || w->n >= WR_ARG_ATTACH_MAX)
		return;
	if (ctype_is_text_pointer(t) && at + 8 <= w->limit) {
		LLVMValueRef st = NULL, p = attached_pointer(w, at, &st);

		if (!p)
			return;
		emit_cstr(w->cg, p, WR_ARG_ATTACH_STR, st, WR_ARG_ATTACH | (unsigned)at << 8);
		w->n++;
	} else if (ctype_is_wide_text_pointer(t) && at + 8 <= w->limit) {
		LLVMValueRef st = NULL, p = attached_pointer(w, at, &st);

		if (!p)
			return;
		emit_wstr(w->cg, p, t->target, st, WR_ARG_ATTACH | (unsigned)at << 8);
		w->n++;
	} else if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION) {
		for (size_t i = 0; i < t->n_members; i++)
			if (!t->members[i].bit_size && !t->members[i].is_virtual)
				attach_strings(w, t->members[i].type, at + t->members[i].offset, depth + 1);
	} else if (t->kind == DW_TYPE_ARRAY && t->target && t->target->size) {
		for (uint64_t i = 0; i < t->count && w->n < WR_ARG_ATTACH_MAX; i++)
			attach_strings(w, t->target, at + i * t->target->size, depth + 1);
	}
}

#define STATICS_MAX 16 /* static data members copied with one printed value */

/* The C++ static data members a printed value shows (dw_type_statics():
 * its class's, its members', its bases', and those of static members of
 * class type), each copied once at the hit, tagged by its name
 * (WR_MEM_F_STATIC): they are variables of their own, which gdb reads
 * from the process. */
struct statics_walk {
	struct cg *cg;
	const struct ast_expr *e;
	const char *seen[STATICS_MAX];
	unsigned n;
	unsigned strings; /* of char pointers inside them */
};

/* The strings of the char pointers inside a static member of class type
 * (at @addr + @at), each copied at its address. */
static void static_strings(struct statics_walk *w, const struct dw_type *t, LLVMValueRef addr, uint64_t at,
			   int depth)
{
	struct cg *cg = w->cg;
	LLVMValueRef args[5];

	if (!t || depth > 8 || w->strings >= WR_ARG_ATTACH_MAX)
		return;
	if (ctype_is_text_pointer(t)) {
		args[0] = cg->buf;
		args[1] = LLVMBuildAdd(cg->builder, addr, cg_i64(cg, at), "");
		args[2] = cg_i32(cg, 8);
		args[3] = cg_i64(cg, 0);
		args[4] = cg_i32(cg, 2);
		cg_call(cg, WR_FN_ARG_STATIC, args, 5);
		w->strings++;
	} else if (t->kind == DW_TYPE_STRUCT && !t->rust) {
		for (size_t i = 0; i < t->n_members; i++)
			if (!t->members[i].bit_size && !t->members[i].is_virtual)
				static_strings(w, t->members[i].type, addr, at + t->members[i].offset, depth + 1);
	} else if (t->kind == DW_TYPE_ARRAY && t->target && t->target->size && t->count <= WR_ARG_ATTACH_MAX) {
		for (uint64_t i = 0; i < t->count; i++)
			static_strings(w, t->target, addr, at + i * t->target->size, depth + 1);
	}
}

static void copy_static(struct statics_walk *w, const struct dw_static *st)
{
	struct cg *cg = w->cg;
	struct dw_var var = { 0 };
	struct cg_value v = { 0 };
	LLVMValueRef args[5];

	args[0] = cg->buf;
	args[1] = cg_i64(cg, 0); /* no variable of that name: <optimized out>, as gdb says */
	args[2] = cg_i32(cg, 0);
	args[3] = cg_i64(cg, dw_static_tag(st));
	args[4] = cg_i32(cg, 0);
	if (cg->plan->vars.find && !cg->plan->vars.find(cg->plan->vars.ctx, st->qname, &var)) {
		/* a variable not in memory (thread-local, ...) is not copied:
		 * the renderer says <unavailable> */
		if (var.loc.kind != DW_LOC_MEM_ADDR || !var.type || !var.type->size || var.type->size > 256 ||
		    locations_value(cg, w->e, var.type, &var.loc, &v) || !v.lvalue)
			return;
		args[1] = v.v;
		args[2] = cg_i32(cg, (unsigned)var.type->size);
		args[4] = cg_i32(cg, ctype_is_text_pointer(var.type));
	}
	cg_call(cg, WR_FN_ARG_STATIC, args, 5);
	if (v.lvalue && !ctype_is_text_pointer(var.type))
		static_strings(w, var.type, v.v, 0, 1);
}

/* Copy the static data members a value of @t shows that @w has not
 * copied yet; how many it copied. */
static unsigned copy_statics(struct statics_walk *w, const struct dw_type *t, bool raw)
{
	const struct dw_static *sts[STATICS_MAX];
	size_t n = dw_type_statics(t, raw, sts, STATICS_MAX);
	unsigned copied = 0;

	for (size_t i = 0; i < n && w->n < STATICS_MAX; i++) {
		bool dup = false;

		for (unsigned k = 0; k < w->n && !dup; k++)
			dup = !strcmp(w->seen[k], sts[i]->qname);
		if (dup)
			continue;
		w->seen[w->n++] = sts[i]->qname;
		copy_static(w, sts[i]);
		copied++;
	}
	return copied;
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
	if (dw_type_is_flexible(t) && !as_number) {
		/* as gdb: its address, a char array's string there */
		emit_cstr(cg, v->v, flexible_text(t) ? WR_ARG_STR_MAX : 1, v->status, WR_ARG_CSTR);
		return 0;
	}
	emit_bytes(cg, v->v, t->size, WR_ARG_BYTES, v->status);
	if (!as_number && t->kind != DW_TYPE_FLOAT) {
		/* members past the argument's 256 bytes come in the value's
		 * whole copy (walks_emit below), their strings too */
		struct attach_walk w = { cg, v->v, t->size > WR_WALK_COPY_MAX ? WR_WALK_COPY_MAX : t->size, 0,
					 e, NULL };

		struct statics_walk sw = { .cg = cg, .e = e };

		attach_strings(&w, t, 0, 0);
		copy_statics(&sw, t, raw);
		/* a container's elements, a string's characters; else the
		 * value whole when its argument cannot hold it (gdb shows 200
		 * elements of an array, whatever their size) */
		if (!raw && walks_needed(t))
			walks_emit(cg, v->v, t, false);
		else if (t->size > WR_DUMP_MAX)
			walks_emit(cg, v->v, t, true);
	}
	return 0;
}

/* A C variable-length array whose lengths were read at the hit: its
 * bytes as any array's (its argument's first WR_DUMP_MAX, a whole copy
 * of at most WR_WALK_COPY_MAX when larger, which gdb's 200 elements
 * need), with its address and lengths attached (wire.h:
 * WR_ARG_ATTACH_VLA_ADDR) for the renderer to size its type. */
static int print_vla(struct cg *cg, struct cg_value *v, bool as_number)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef size = values_vla_bytes(cg, v), args[4], big;
	LLVMBasicBlockRef walk, done;

	size = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, size, cg_i64(cg, WR_WALK_COPY_MAX), ""),
			       cg_i64(cg, WR_WALK_COPY_MAX), size, "");
	big = LLVMBuildICmp(B, LLVMIntUGT, size, cg_i64(cg, WR_DUMP_MAX), "");
	args[0] = cg->buf;
	args[1] = v->v;
	args[2] = LLVMBuildTrunc(B, LLVMBuildSelect(B, big, cg_i64(cg, WR_DUMP_MAX), size, ""),
				 LLVMInt32TypeInContext(cg->ctx), "");
	args[3] = cg_i32(cg, WR_ARG_BYTES);
	if (v->status)
		args[3] = LLVMBuildOr(B, args[3], LLVMBuildShl(B, v->status, cg_i32(cg, 8), ""), "");
	cg_call(cg, WR_FN_ARG_USER_BYTES, args, 4);
	emit_scalar(cg, WR_ARG_ATTACH, v->v, NULL, WR_ARG_ATTACH_VLA_ADDR);
	for (unsigned k = 0; k < v->n_vla; k++)
		emit_scalar(cg, WR_ARG_ATTACH, v->vla_count[k], v->vla_status, WR_ARG_ATTACH_VLA_DIM + k);
	if (as_number)
		return 0;
	walk = cg_block(cg, "vla.walk");
	done = cg_block(cg, "vla.done");
	LLVMBuildCondBr(B, big, walk, done);
	LLVMPositionBuilderAtEnd(B, walk);
	walks_emit_sized(cg, v->v, LLVMBuildTrunc(B, size, LLVMInt32TypeInContext(cg->ctx), ""));
	LLVMBuildBr(B, done);
	LLVMPositionBuilderAtEnd(B, done);
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

/* Whether @t is x87's 80-bit extended format in 12 or 16 bytes, the rest
 * padding: a constant of its 10 bytes (clang's) is its whole value. */
static bool is_x87(const struct dw_type *t)
{
	return t->kind == DW_TYPE_FLOAT && (t->size == 12 || t->size == 16) && !(t->name && strstr(t->name, "128"));
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

		if (locations_window(cg, e, &v->loc, w * 64, n, &x, &st))
			return -WR_ESEMANTIC;
		if (st)
			index = LLVMBuildOr(cg->builder, index,
					    LLVMBuildShl(cg->builder, st, cg_i32(cg, 8), ""), "");
		args[1] = off;
		args[2] = index;
		args[3] = x;
		args[4] = cg_i64(cg, dw_loc_unavailable(&v->loc, w * 64, n) & (w == 1 && is_x87(v->dt) ? 0xffff : ~0ull));
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

/* Whether @t is one of the library's strings (std::string, String,
 * &str, OsString), which {:s} shows as its characters. */
static bool library_string(const struct dw_type *t)
{
	struct dw_std s;

	return t->kind == DW_TYPE_STRUCT && dw_std_recognize(t, &s) && s.kind == DW_STD_STRING;
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

/* Frame 0's variable in static storage (a function's static) or off the
 * stack (off_stack()): its bytes at the hit, which the bt finds by
 * address, as a referent's (writable data and the heap are not read
 * after the hit: they may have changed since). */
static int static_copy(struct cg *cg, const struct ast_expr *e, const struct dw_var *var)
{
	const struct dw_type *t = var->type;
	struct cg_value v = { 0 };

	if (!t || !t->size || t->size > WR_DUMP_MAX || t->incomplete || locations_value(cg, e, t, &var->loc, &v) ||
	    v.optimized_out || v.kind != CG_VALUE || !v.lvalue)
		return -ENOENT;
	emit_bytes(cg, v.v, t->size, WR_ARG_BYTES, v.status);
	emit_scalar(cg, WR_ARG_ATTACH, v.v, NULL, WR_ARG_ATTACH_REFERENCE);
	return 0;
}

/* Whether @x reads the stack pointer, the frame pointer or the CFA:
 * an address on the stack, which the stack copy holds. */
static bool expr_on_stack(const struct dw_expr *x)
{
	if (!x)
		return false;
	if (x->op == DW_EXPR_CFA || (x->op == DW_EXPR_REG && (x->reg == X86_DWARF_rsp || x->reg == X86_DWARF_rbp)))
		return true;
	return expr_on_stack(x->a) || expr_on_stack(x->b) || expr_on_stack(x->c);
}

/* Whether frame 0's variable at @l lives in memory the stack copy does
 * not hold (the heap, an object a register points to: an inlined call's
 * parameter that is still its caller's c->argv[j]): its bytes are
 * copied at the hit, as a static's. */
static bool off_stack(const struct dw_loc *l)
{
	switch (l->kind) {
	case DW_LOC_MEM_REG:
		return l->reg != X86_DWARF_rsp && l->reg != X86_DWARF_rbp;
	case DW_LOC_MEM_EXPR:
		return !expr_on_stack(l->expr);
	default:
		return false;
	}
}

#define MAX_DEREF_COPIES 4 /* words a frame 0 variable's location reads, copied */

/* The words that frame 0's location expression @x reads off the stack
 * (GCC's `DW_OP_breg9 24; DW_OP_deref; DW_OP_breg0 0; DW_OP_plus`: the
 * address of c->names[j], read through c on the heap), each copied at
 * the hit as a static's, found by its address: the bt evaluates the
 * location with them.  At most *@budget of them; how many. */
static int copy_derefs(struct cg *cg, const struct ast_expr *e, const struct dw_expr *x, int depth,
		       int *budget)
{
	int n = 0;

	if (!x || depth > 8 || *budget <= 0)
		return 0;
	n += copy_derefs(cg, e, x->a, depth + 1, budget);
	n += copy_derefs(cg, e, x->b, depth + 1, budget);
	n += copy_derefs(cg, e, x->c, depth + 1, budget);
	if (x->op == DW_EXPR_DEREF && x->size >= 1 && x->size <= 8 && !expr_on_stack(x->a) && *budget > 0) {
		struct dw_var word = { .type = ctype_integer(x->size * 8, false),
				       .loc = { .kind = DW_LOC_MEM_EXPR, .expr = x->a } };

		if (static_copy(cg, e, &word) == 0) {
			(*budget)--;
			n++;
		}
	}
	return n;
}

/* Frame 0's char pointer: its string at the hit (its readable head where
 * it runs into a page that cannot be read), which the bt finds by the
 * pointer's value (the heap and writable data are not read after the
 * hit: they may have changed since). */
static int frame_string(struct cg *cg, const struct ast_expr *e, const struct dw_var *var)
{
	struct cg_value v = { 0 };
	LLVMValueRef x;

	if (locations_value(cg, e, var->type, &var->loc, &v) || v.optimized_out || v.synthetic ||
	    v.kind != CG_VALUE || v.composed || !(x = values_scalar(cg, e, &v)))
		return -ENOENT;
	emit_cstr(cg, x, WR_ARG_STR_MAX, v.status, WR_ARG_CSTR);
	return 0;
}

/* Whether frame 0's local of @t (a bt full's) is copied whole, as a
 * print copies it: gdb's bt full shows a local as print does, a
 * container's elements included (parameters are short). */
static bool bt_shows_whole(const struct dw_type *t, struct dw_std *s)
{
	if (!t || (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION && t->kind != DW_TYPE_ARRAY))
		return false;
	if (t->kind == DW_TYPE_STRUCT)
		dw_std_recognize(t, s);
	return walks_needed(t);
}

bool codegen_bt_copies(const struct dw_type *t, bool referent)
{
	struct dw_std s = { 0 };

	return referent ? bt_shows_referent(t, &s) : bt_shows_pointed(t, &s);
}

bool codegen_bt_shows_whole(const struct dw_type *t)
{
	struct wr_walk_op ops[WR_WALK_MAX_OPS];
	unsigned n = 0;
	int op;

	if (!bt_shows_whole(t, &(struct dw_std){ 0 }))
		return false;
	/* a string alone: a bt shows it whole already */
	op = walks_append(t, false, 1, ops, &n);
	return !(op >= 0 && n == 1 && ops[op].code == WR_WALK_STRING);
}

int codegen_bt_walk_whole(const struct dw_type *t, unsigned print_elements, struct wr_walk_op *ops, unsigned *n)
{
	return bt_shows_whole(t, &(struct dw_std){ 0 }) ? walks_append(t, false, print_elements, ops, n) : -1;
}

int codegen_bt_walk(const struct dw_type *t, unsigned print_elements, struct wr_walk_op *ops, unsigned *n)
{
	struct dw_std s = { 0 };

	if (!walks_needed(t) || !dw_std_recognize(t, &s))
		return walks_append(t, !walks_needed(t), print_elements, ops, n);
	switch (s.kind) {
	case DW_STD_VECTOR: case DW_STD_BITS: case DW_STD_DEQUE: case DW_STD_LIST:
	case DW_STD_TREE: case DW_STD_RING: case DW_STD_HASH:
		return walks_append(t, true, print_elements, ops, n); /* its head */
	default:
		return walks_append(t, false, print_elements, ops, n);
	}
}

/* Whether a bt shows a value of @t member by member from its bytes
 * alone: a C or C++ struct, union or array of at most WR_DUMP_MAX bytes
 * holding none of the library's values (a bt shows such a struct as
 * `...`). */
static bool plain_aggregate(const struct dw_type *t)
{
	struct dw_std s;

	return t && (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION || t->kind == DW_TYPE_ARRAY) && !t->rust &&
	       !t->incomplete && t->size && t->size <= WR_DUMP_MAX && !dw_type_is_vla(t) && !dw_std_walkable(t, 0) &&
	       !dw_std_recognize(t, &s);
}

/* print_args_frame_referent() but the words its location reads. */
static int frame_copy(struct cg *cg, const struct ast_expr *e, const struct dw_var *var)
{
	const struct dw_type *t = var->type;
	bool ref = t && t->kind == DW_TYPE_POINTER && t->is_reference;
	bool whole = var->scope == DW_VAR_LOCAL && !ref && bt_shows_whole(t, &(struct dw_std){ 0 });
	struct cg_value v = { 0 };
	struct dw_std s = { 0 };
	LLVMValueRef x;

	if (t && !ref && ctype_is_text_pointer(t) && var->loc.kind != DW_LOC_MEM_ADDR) {
		/* off the stack, the pointer too */
		bool kept = off_stack(&var->loc) && static_copy(cg, e, var) == 0;

		return frame_string(cg, e, var) == 0 || kept ? 0 : -ENOENT;
	}
	if ((var->loc.kind == DW_LOC_MEM_ADDR || off_stack(&var->loc)) && t && !ref && !whole &&
	    !bt_shows_pointed(t, &s))
		return static_copy(cg, e, var);
	if (ref && plain_aggregate(t->target)) {
		/* a reference to a struct or array that may lie off the stack
		 * (the heap): its bytes at the hit, found by its address */
		if (locations_value(cg, e, t, &var->loc, &v) || values_through_reference(cg, e, &v) ||
		    v.optimized_out || v.kind != CG_VALUE || v.composed || !v.lvalue)
			return -ENOENT;
		emit_bytes(cg, v.v, t->target->size, WR_ARG_BYTES, v.status);
		emit_scalar(cg, WR_ARG_ATTACH, v.v, NULL, WR_ARG_ATTACH_REFERENCE);
		return 0;
	}
	if (!t || !(ref ? bt_shows_referent(t->target, &s) : whole ? bt_shows_whole(t, &s) : bt_shows_pointed(t, &s)) ||
	    locations_value(cg, e, t, &var->loc, &v) || (ref && values_through_reference(cg, e, &v)) || v.optimized_out ||
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
		 * what strings and wrappers point to is copied (a local of
		 * bt full: all of it) */
		switch (whole ? DW_STD_NONE : s.kind) {
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

int print_args_frame_referent(struct cg *cg, const struct ast_expr *e, const struct dw_var *var)
{
	int budget = MAX_DEREF_COPIES, derefs = 0;

	if (var->loc.kind == DW_LOC_MEM_EXPR || var->loc.kind == DW_LOC_VALUE_EXPR)
		derefs = copy_derefs(cg, e, var->loc.expr, 0, &budget);
	return frame_copy(cg, e, var) == 0 || derefs ? 0 : -ENOENT;
}

/* The char pointers inside frame 0's struct or array @t at @addr (at
 * byte @at of it): each one's string copied as frame_string() copies a
 * char pointer's, while *@budget lasts. */
static void member_strings(struct cg *cg, const struct dw_type *t, LLVMValueRef addr, uint64_t at, int depth,
			   unsigned *budget)
{
	struct dw_std s;

	if (!t || depth > 4 || !*budget)
		return;
	if (ctype_is_text_pointer(t)) {
		struct cg_value held = { 0 };
		LLVMValueRef p = cg_read_u64(cg, LLVMBuildAdd(cg->builder, addr, cg_i64(cg, at), ""), 8, &held);

		emit_cstr(cg, p, WR_ARG_STR_MAX, held.status, WR_ARG_CSTR);
		(*budget)--;
	} else if (t->kind == DW_TYPE_STRUCT && !t->rust && !dw_std_recognize(t, &s)) {
		for (size_t i = 0; i < t->n_members && *budget; i++)
			if (!t->members[i].bit_size && !t->members[i].is_virtual)
				member_strings(cg, t->members[i].type, addr, at + t->members[i].offset, depth + 1,
					       budget);
	} else if (t->kind == DW_TYPE_ARRAY && t->target && t->target->size) {
		for (uint64_t i = 0; i < t->count && *budget; i++)
			member_strings(cg, t->target, addr, at + i * t->target->size, depth + 1, budget);
	}
}

int print_args_frame_strings(struct cg *cg, const struct ast_expr *e, const struct dw_var *var, unsigned *budget)
{
	const struct dw_type *t = var->type;
	bool ref = t && t->kind == DW_TYPE_POINTER && t->is_reference;
	const struct dw_type *vt = ref ? t->target : t;
	struct cg_value v = { 0 };
	unsigned before = *budget;

	if (!vt || !*budget || (vt->kind != DW_TYPE_STRUCT && vt->kind != DW_TYPE_ARRAY) || vt->rust ||
	    !vt->size || vt->incomplete || locations_value(cg, e, t, &var->loc, &v) ||
	    (ref && values_through_reference(cg, e, &v)) || v.optimized_out || v.kind != CG_VALUE || v.composed ||
	    !v.lvalue)
		return -ENOENT;
	member_strings(cg, vt, v.v, 0, 0, budget);
	return *budget < before ? 0 : -ENOENT;
}

void print_args_frame_statics(struct cg *cg, const struct ast_expr *e, const struct dw_type *const *types,
			      size_t n)
{
	struct statics_walk sw = { .cg = cg, .e = e };
	const struct dw_static *st;
	bool any = false;

	for (size_t i = 0; i < n && !any; i++)
		any = dw_type_statics(types[i], false, &st, 1) > 0;
	if (!any)
		return;
	emit_scalar(cg, WR_ARG_U64, cg_i64(cg, 0), NULL, 8); /* what the copies attach to */
	for (size_t i = 0; i < n && sw.n < STATICS_MAX; i++)
		copy_statics(&sw, types[i], false);
}

/* A value reached through a C++ reference is printed as its referent's
 * value with the referent's address attached (WR_ARG_ATTACH_REFERENCE),
 * for gdb's `(int &) @0x7ffe...: 5`. */
void print_args_caller(struct cg *cg, unsigned print_index, const uint64_t *args, size_t n)
{
	LLVMBuilderRef B = cg->builder;
	LLVMValueRef a[4], item, cfa, lo, sp;

	if (!n || cg->plan->cfa_reg < 0)
		return;
	a[0] = cg->buf;
	a[1] = cg_i32(cg, WR_ITEM_CALLER);
	a[2] = cg_i32(cg, print_index);
	item = cg_call(cg, WR_FN_ITEM_OPEN, a, 3);
	for (int r = 0; r < (int)WR_CALLER_REGS; r++)
		emit_scalar(cg, WR_ARG_U64, cg_reg(cg, r), NULL, 8);
	cfa = LLVMBuildAdd(B, cg_site_reg(cg, cg->plan->cfa_reg),
			   cg_site_const(cg, (uint64_t)(int64_t)cg->plan->cfa_off), "cfa");
	/* from below the registers frame 0 saved, but not below its sp
	 * (a page there may not be mapped) */
	lo = LLVMBuildSub(B, cfa, cg_i64(cg, WR_CALLER_BELOW), "");
	sp = LLVMBuildAnd(B, cg_reg(cg, X86_DWARF_rsp), cg_i64(cg, ~7ull), "");
	lo = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, lo, sp, ""), sp, lo, "");
	for (unsigned k = 0; k < WR_CALLER_DUMPS; k++) {
		a[0] = cg->buf;
		a[1] = LLVMBuildAdd(B, lo, cg_i64(cg, (uint64_t)k * WR_DUMP_MAX), "");
		a[2] = cg_i64(cg, WR_DUMP_MAX);
		a[3] = cg_i32(cg, 0);
		cg_call(cg, WR_FN_ARG_DUMP, a, 4);
	}
	for (size_t i = 0; i < n; i++)
		emit_scalar(cg, WR_ARG_U64, cg_i64(cg, args[i]), NULL, 8);
	a[0] = cg->buf;
	a[1] = item;
	cg_call(cg, WR_FN_ITEM_CLOSE, a, 2);
}

int print_args_lower(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		     enum ast_fmt_spec spec, unsigned print_index, unsigned wire_index)
{
	bool ref = v->kind == CG_VALUE && v->ref && v->ref->target == v->dt;
	int err;

	if (v->marker) {
		emit_scalar(cg, WR_ARG_I64, cg_i64(cg, 0), cg_i32(cg, v->marker), 0);
		return 0;
	}
	if (spec == AST_FMT_STR && (v->dt->kind == DW_TYPE_STRUCT || v->dt->kind == DW_TYPE_UNION) &&
	    !library_string(v->dt))
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
	if (dw_type_is_vla(t)) {
		/* its length is computed at run time: without it, no value */
		if (v->n_vla && v->n_vla <= WR_ARG_ATTACH_VLA_DIMS && v->lvalue && !v->composed)
			return print_vla(cg, v, as_number);
		emit_scalar(cg, WR_ARG_I64, cg_i64(cg, 0), cg_i32(cg, WR_ARG_VARIABLE_LENGTH), 0);
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
	if (ctype_is_wide_text_pointer(t) && !as_number) {
		emit_wstr(cg, x, t->target, v->status, WR_ARG_CSTR);
		return 0;
	}
	emit_scalar(cg, scalar_kind(t), value_or_failed_at(cg, v, pre, x), v->status, (unsigned)t->size);
	return 0;
}
