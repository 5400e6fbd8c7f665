/* builtins.c - the traced program's bytes as bytes: strncmp, starts_with,
 * memcmp and hex() compare them, memory dumps ({:x.N}, {:s.N}, {:x.*},
 * {:x.name$}) print them, and expression-error items say why a
 * comparison could not be made.
 *
 * Both sides of a comparison meet in one stack buffer (struct
 * wr_cmp_buf): bytes known when the probe is compiled (a string literal,
 * hex("..")) are stored there by the probe; the others are read by the
 * template's wr_mem_equal(), which compares without a branch per byte, so
 * the verifier meets one path whatever the length.  Any pointer or array
 * (or a variable in memory) is a side: the bytes it points to or holds.
 * A length may be any integer expression; a negative one compares
 * nothing, one above what can be compared is cut (WR_CMP_MAX, or the
 * literal's length).  A side that cannot be read makes the comparison
 * false and appends a WR_ITEM_EXPR_ERROR item with the failing address
 * and the reason; the rest of the event goes on.
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "script/walk.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

/* One side of a comparison. */
struct side {
	const struct ast_expr *e;
	char held[WR_CMP_MAX];  /* bytes known at compile time ... */
	size_t held_len;
	bool is_held;           /* ... when this is set */
	LLVMValueRef addr;      /* else the user address of the bytes (i64) */
	LLVMValueRef status;    /* i32 status of finding addr, or NULL */
	LLVMValueRef fail_addr; /* with status: where that read failed */
};

/* The bytes of a string literal (a literal or a script string). */
static int held_string(struct cg *cg, const struct ast_expr *e, const char *s, struct side *out)
{
	size_t n = strlen(s);

	if (n > WR_CMP_MAX)
		return cg_fail(cg, e->loc, "compare a prefix of it",
			       "a string compared by a builtin is limited to %u bytes (this one has %zu)",
			       WR_CMP_MAX, n);
	memcpy(out->held, s, n);
	out->held_len = n;
	out->is_held = true;
	return 0;
}

static int hex_digit(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The bytes of hex("de ad ...") (its syntax was checked with the script). */
static int held_hex(struct cg *cg, const struct ast_expr *call, struct side *out)
{
	const struct ast_expr *lit = call->args[0];
	size_t n = 0;
	int hi = -1;

	for (size_t i = 0; i < lit->str_len; i++) {
		if (lit->str[i] == ' ')
			continue;
		if (hi < 0) {
			hi = hex_digit(lit->str[i]);
			continue;
		}
		if (n == WR_CMP_MAX)
			return cg_fail(cg, call->loc, NULL, "hex() literals are limited to %u bytes",
				       WR_CMP_MAX);
		out->held[n++] = (char)(hi << 4 | hex_digit(lit->str[i]));
		hi = -1;
	}
	out->held_len = n;
	out->is_held = true;
	return 0;
}

int cg_bytes_address(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		     LLVMValueRef *addr)
{
	char what[160];

	if (v->kind != CG_VALUE)
		return cg_fail(cg, e->loc, NULL, "%s has no address", cg_describe(v, what, sizeof(what)));
	if (v->optimized_out)
		return cg_fail(cg, e->loc, NULL, "this value is optimized out at this pc of %s",
			       cg->plan->name);
	if (v->dt->kind == DW_TYPE_POINTER) {
		*addr = values_scalar(cg, e, v);
		return *addr ? 0 : -WR_ESEMANTIC;
	}
	if (!v->lvalue || v->bit_size)
		return cg_fail(cg, e->loc, "pass a pointer, an array, or a variable that lives in memory",
			       "%s has no address here: it is %s", cg_describe(v, what, sizeof(what)),
			       v->bit_size ? "a bitfield" : "held in a register or computed");
	*addr = v->v;
	return 0;
}

/* Side @e of a comparison: held bytes, or the address of program bytes. */
static int lower_side(struct cg *cg, const struct ast_expr *e, struct side *out)
{
	struct cg_value v;
	int err;

	memset(out, 0, sizeof(*out));
	out->e = e;
	if (e->kind == AST_EXPR_CALL && !strcmp(e->str, "hex"))
		return held_hex(cg, e, out);
	err = cg_lower_expr(cg, e, &v);
	if (err)
		return err;
	if (v.kind == CG_STRING)
		return held_string(cg, e, v.str, out);
	if (cg_library_text(cg, e, &v, &err) && err)
		return err;
	err = cg_bytes_address(cg, e, &v, &out->addr);
	out->status = v.status;
	out->fail_addr = v.fail_addr;
	return err;
}

/* How lower_length() takes a constant length: above the limit is an
 * error (not cut); a negative one compares nothing (not an error). */
#define LEN_STRICT 0x1u
#define LEN_NEGATIVE_NONE 0x2u

/* The length to compare: @n (NULL: @limit) as a signed i64, which
 * wr_mem_equal() cuts to @limit at run time (a negative one compares
 * nothing).  A constant length must not be negative (0 with
 * LEN_NEGATIVE_NONE), nor above @limit with LEN_STRICT; a constant above
 * @limit otherwise is cut here. */
static int lower_length(struct cg *cg, const struct ast_expr *n, uint64_t limit, unsigned how,
			LLVMValueRef *len)
{
	struct cg_value v;
	uint64_t c;
	char what[160];
	int err;

	*len = cg_i64(cg, limit);
	if (!n)
		return 0;
	err = cg_lower_expr(cg, n, &v);
	if (!err)
		err = cg_operand(cg, n, &v);
	if (err)
		return err;
	if (v.kind != CG_VALUE || !ctype_is_integer(v.dt))
		return cg_fail(cg, n->loc, NULL, "a length must be an integer, not %s",
			       cg_describe(&v, what, sizeof(what)));
	if (!cg_constant(v.v, &c) || v.status) {
		*len = v.v;
		return 0;
	}
	if (v.dt->is_signed && (int64_t)c < 0 && (how & LEN_NEGATIVE_NONE))
		c = 0;
	if (v.dt->is_signed && (int64_t)c < 0)
		return cg_fail(cg, n->loc, NULL, "the length must not be negative");
	if ((how & LEN_STRICT) && c > limit)
		return cg_fail(cg, n->loc, "compare in several calls, each at most 64 bytes",
			       "at most %llu bytes can be compared, not %llu", (unsigned long long)limit,
			       (unsigned long long)c);
	*len = cg_i64(cg, c < limit ? c : limit);
	return 0;
}


void cg_expr_error(struct cg *cg, const struct ast_expr *e, LLVMValueRef code, LLVMValueRef addr)
{
	long index = cg->plan->ast ? ast_probe_expr_index(cg->plan->ast, e) : -1;
	LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
	LLVMValueRef args[3];

	if (index < 0 || index > 0xffff || !cg->buf)
		return;
	args[0] = cg->buf;
	args[1] = LLVMBuildOr(cg->builder, cg_i32(cg, (unsigned long long)index),
			      LLVMBuildShl(cg->builder, LLVMBuildTrunc(cg->builder, code, i32, ""),
					   cg_i32(cg, 16), ""), "");
	args[2] = addr;
	cg_call(cg, WR_FN_EXPR_ERROR, args, 3);
}

/* Store @v (an i64, cut to @type) at byte @at of the comparison buffer. */
static void store_at(struct cg *cg, unsigned at, LLVMValueRef v, LLVMTypeRef type, unsigned align)
{
	LLVMValueRef off = cg_i64(cg, at), p, st;

	p = LLVMBuildGEP2(cg->builder, LLVMInt8TypeInContext(cg->ctx), cg->cmp_buf, &off, 1, "");
	if (type != LLVMInt64TypeInContext(cg->ctx))
		v = LLVMBuildTrunc(cg->builder, v, type, "");
	st = LLVMBuildStore(cg->builder, v, p);
	LLVMSetAlignment(st, align);
}

/* Held bytes go in the buffer a word at a time. */
static void store_held(struct cg *cg, const struct side *s, unsigned at)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);

	for (size_t k = 0; k < s->held_len; k += 8) {
		uint64_t w = 0;

		for (size_t j = 0; j < 8 && k + j < s->held_len; j++)
			w |= (uint64_t)(unsigned char)s->held[k + j] << (8 * j);
		store_at(cg, at + (unsigned)k, cg_i64(cg, w), i64, 8);
	}
}

/* What finding side @s's address left: its status, and where it failed. */
static void store_status(struct cg *cg, const struct side *s, unsigned status_at, unsigned addr_at)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
	LLVMValueRef st = s->status ? LLVMBuildZExt(cg->builder, s->status, i64, "") : cg_i64(cg, 0);

	store_at(cg, status_at, st, LLVMInt8TypeInContext(cg->ctx), 1);
	store_at(cg, addr_at, s->fail_addr ? s->fail_addr : cg_i64(cg, 0), i64, 8);
}

/* Compare @len bytes of @a and @b (not both held), at most @limit: a
 * boolean in @out. */
static void compare(struct cg *cg, const struct ast_expr *e, struct side *a, struct side *b,
		    LLVMValueRef len, uint64_t limit, struct cg_value *out)
{
	long index = cg->plan->ast ? ast_probe_expr_index(cg->plan->ast, e) : -1;
	LLVMTypeRef i16 = LLVMInt16TypeInContext(cg->ctx), i32 = LLVMInt32TypeInContext(cg->ctx);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
	LLVMBuilderRef B = cg->builder;
	LLVMBasicBlockRef from = LLVMGetInsertBlock(B), fill = cg_block(cg, "cmp.fill"), done = cg_block(cg, "cmp.done");
	LLVMValueRef args[4], r, phi, zero = cg_i64(cg, 0);
	unsigned flags = 0;

	/* the operands go in this CPU's buffer (a map's), off the probe's
	 * 512-byte stack; no buffer (never seen): unequal */
	cg->cmp_buf = cg_call(cg, WR_FN_CMP_BUF, NULL, 0);
	LLVMBuildCondBr(B, LLVMBuildIsNull(B, cg->cmp_buf, ""), done, fill);
	LLVMPositionBuilderAtEnd(B, fill);
	if (a->is_held) {
		store_held(cg, a, WR_OFFSETOF(struct wr_cmp_buf, a));
		flags |= WR_CMP_A_HELD;
	}
	if (b->is_held) {
		store_held(cg, b, WR_OFFSETOF(struct wr_cmp_buf, b));
		flags |= WR_CMP_B_HELD;
	}
	store_at(cg, WR_OFFSETOF(struct wr_cmp_buf, len), len, LLVMInt64TypeInContext(cg->ctx), 8);
	store_at(cg, WR_OFFSETOF(struct wr_cmp_buf, limit), cg_i64(cg, limit), i32, 4);
	store_at(cg, WR_OFFSETOF(struct wr_cmp_buf, flags), cg_i64(cg, flags), i16, 2);
	store_at(cg, WR_OFFSETOF(struct wr_cmp_buf, index),
		 cg_i64(cg, index < 0 || index > 0xffff ? 0xffff : (unsigned long long)index), i16, 2);
	store_status(cg, a, WR_OFFSETOF(struct wr_cmp_buf, status_a), WR_OFFSETOF(struct wr_cmp_buf, at_a));
	store_status(cg, b, WR_OFFSETOF(struct wr_cmp_buf, status_b), WR_OFFSETOF(struct wr_cmp_buf, at_b));
	args[0] = cg->buf;
	args[1] = cg->cmp_buf;
	args[2] = a->addr ? a->addr : zero;
	args[3] = b->addr ? b->addr : zero;
	r = cg_call(cg, WR_FN_MEM_EQUAL, args, 4);
	fill = LLVMGetInsertBlock(B);
	LLVMBuildBr(B, done);
	LLVMPositionBuilderAtEnd(B, done);
	phi = LLVMBuildPhi(B, i64, "");
	LLVMAddIncoming(phi, (LLVMValueRef[]){ zero, r }, (LLVMBasicBlockRef[]){ from, fill }, 2);
	cg->cmp_buf = NULL;
	cg_set_value(out, &ctype_bool, cg_bool(cg, LLVMBuildICmp(B, LLVMIntEQ, phi, cg_i64(cg, 1), "")));
	out->maker = e;
}

/* Both sides known: the answer is too. */
static void fold(struct cg *cg, const struct ast_expr *e, const struct side *a,
		 const struct side *b, size_t n, struct cg_value *out)
{
	bool eq = n <= a->held_len && n <= b->held_len && !memcmp(a->held, b->held, n);

	cg_set_value(out, &ctype_bool, cg_i64(cg, eq));
	out->maker = e;
}

/* Two strings known at compile time compare as C compares them. */
static int fold_strings(struct cg *cg, const struct ast_expr *e, const struct side *a,
			const struct side *b, struct cg_value *out)
{
	char sa[WR_CMP_MAX + 1] = { 0 }, sb[WR_CMP_MAX + 1] = { 0 };
	LLVMValueRef len;
	uint64_t n;
	int err = 0;

	memcpy(sa, a->held, a->held_len);
	memcpy(sb, b->held, b->held_len);
	n = b->held_len;
	if (e->n_args > 2)
		err = lower_length(cg, e->args[2], WR_CMP_MAX + 1, 0, &len);
	if (!err && e->n_args > 2 && !cg_constant(len, &n))
		err = cg_fail(cg, e->args[2]->loc, NULL, "comparing two strings needs a constant length");
	if (err)
		return err;
	cg_set_value(out, &ctype_bool, cg_i64(cg, strncmp(sa, sb, (size_t)n) == 0));
	out->maker = e;
	return 0;
}

/* strncmp(a, b, n) and starts_with(a, b): the program's bytes against a
 * string; equal when the first min(n, strlen) bytes are (no NUL needed). */
static int lower_prefix(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	bool starts = !strcmp(e->str, "starts_with");
	struct side a, b, *lit, *other;
	LLVMValueRef len;
	uint64_t c;

	int err = lower_side(cg, e->args[0], &a);

	if (!err)
		err = lower_side(cg, e->args[1], &b);
	if (err)
		return err;
	lit = b.is_held ? &b : &a;
	other = lit == &b ? &a : &b;
	if (!lit->is_held || e->args[lit == &b]->kind == AST_EXPR_CALL)
		return cg_fail(cg, e->loc, "e.g. strncmp(name, \"main\", 4)",
			       "%s compares with a string literal or a script string", e->str);
	if (other->is_held)
		return fold_strings(cg, e, &a, &b, out);
	err = lower_length(cg, starts ? NULL : e->args[2], lit->held_len, 0, &len);
	if (err)
		return err;
	if (cg_constant(len, &c) && c == 0) {
		cg_set_value(out, &ctype_bool, cg_i64(cg, 1));
		out->maker = e;
		return 0;
	}
	compare(cg, e, other, lit, len, lit->held_len, out);
	return 0;
}

/* memcmp(a, b [, n]): n bytes of two pointers, arrays or hex() literals;
 * without n, the hex() literal's length. */
static int lower_memcmp(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	struct side a, b;
	LLVMValueRef len;
	uint64_t limit = WR_CMP_MAX, c;
	int err = lower_side(cg, e->args[0], &a);

	if (!err)
		err = lower_side(cg, e->args[1], &b);
	if (err)
		return err;
	if (a.is_held)
		limit = a.held_len;
	if (b.is_held && b.held_len < limit)
		limit = b.held_len;
	err = lower_length(cg, e->n_args > 2 ? e->args[2] : NULL, limit,
			   LEN_NEGATIVE_NONE | (!a.is_held && !b.is_held ? LEN_STRICT : 0), &len);
	if (err)
		return err;
	if (a.is_held && b.is_held) {
		if (a.held_len != b.held_len)
			return cg_fail(cg, e->args[1]->loc, NULL, "hex() literals differ in length");
		if (!cg_constant(len, &c))
			return cg_fail(cg, e->args[2]->loc, NULL,
				       "comparing two hex() literals needs a constant length");
		fold(cg, e, &a, &b, (size_t)c, out);
		return 0;
	}
	if (cg_constant(len, &c) && c == 0) {
		cg_set_value(out, &ctype_bool, cg_i64(cg, 1));
		out->maker = e;
		return 0;
	}
	compare(cg, e, &a, &b, len, limit, out);
	return 0;
}

int cg_lower_builtin(struct cg *cg, const struct ast_expr *e, struct cg_value *out)
{
	if (!strcmp(e->str, "starts_with") || !strcmp(e->str, "strncmp"))
		return lower_prefix(cg, e, out);
	if (!strcmp(e->str, "memcmp"))
		return lower_memcmp(cg, e, out);
	return cg_fail(cg, e->loc, "e.g. memcmp(p, hex(\"de ad\"))",
		       "hex() is a byte literal for memcmp; it has no value of its own");
}

/* ---- memory dumps ---- */

/* The length of a dump as an i64: N, the argument before the value, or
 * a `let` variable; *@gone when that has no value at this pc. */
static int dump_length(struct cg *cg, const struct ast_fmt_piece *pc, const struct ast_expr *len_e,
		       struct cg_value *len, LLVMValueRef *out, bool *gone)
{
	/* Where a `let` length is named, for messages. */
	struct ast_expr at = { .kind = AST_EXPR_IDENT, .loc = pc->loc, .str = pc->len_var };
	const struct cg_value *b;
	struct cg_value v;
	char what[160];
	int err;

	if (pc->len_kind == AST_FMT_LEN_FIXED) {
		*out = cg_i64(cg, pc->len_value);
		return 0;
	}
	if (pc->len_kind == AST_FMT_LEN_VAR) {
		b = cg_binding(cg, pc->len_var);
		if (!b)
			return cg_fail(cg, pc->loc, "bind it first: let n = ...;",
				       "no script variable '%s' for the dump's length", pc->len_var);
		v = *b;
	} else {
		v = *len;
	}
	if (!len_e)
		len_e = &at;
	err = cg_operand(cg, len_e, &v);
	if (err)
		return err;
	if (v.kind != CG_VALUE || !ctype_is_integer(v.dt))
		return cg_fail(cg, len_e->loc, NULL,
			       "a dump's length must be an integer, not %s",
			       cg_describe(&v, what, sizeof(what)));
	*out = v.v;
	*gone = v.optimized_out;
	return 0;
}

int cg_print_dump(struct cg *cg, const struct ast_fmt_piece *pc, const struct ast_expr *e,
		  struct cg_value *v, const struct ast_expr *len_e, struct cg_value *len,
		  unsigned print, unsigned wire)
{
	LLVMValueRef addr = NULL, n = NULL, args[4];
	bool gone = false;
	int err;

	if (v->kind == CG_STRING)
		return cg_fail(cg, e->loc, "dump a pointer, an array or a variable in memory",
			       "a string literal has no memory to dump");
	err = dump_length(cg, pc, len_e, len, &n, &gone);
	if (!err && (gone || v->optimized_out)) {
		/* its address or length has no value at this pc (one site
		 * of several, an inlined copy): <optimized out>, as gdb
		 * prints them, never a dump of a length it does not hold */
		struct cg_value none = { .kind = CG_VALUE, .dt = v->dt, .optimized_out = true };

		return print_args_lower(cg, e, &none, AST_FMT_DEFAULT, print, wire);
	}
	if (!err)
		err = cg_bytes_address(cg, e, v, &addr);
	if (err)
		return err;
	cg_note_arg(cg, print, wire, v->dt);
	args[0] = cg->buf;
	args[1] = addr;
	args[2] = n;
	args[3] = v->status ? v->status : cg_i32(cg, 0);
	cg_call(cg, WR_FN_ARG_DUMP, args, 4);
	return 0;
}
