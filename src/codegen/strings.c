/* strings.c - comparing a string of the traced program (char *, char[N])
 * with a literal in a probe, `s == "text"`: read into one shared stack
 * slot and compared a word at a time.  (starts_with() and strncmp() are
 * builtins.c's, through the template's comparison.)
 */
#include "codegen/lower.h"
#include "util/error.h"

#include <string.h>

/* True when the first @n bytes at @buf (8-aligned) are @lit: compared a
 * word at a time without branches, so the verifier meets one path per
 * comparison, not one per character. */
static LLVMValueRef words_equal(struct cg *cg, LLVMValueRef buf, const char *lit, size_t n)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(cg->ctx), i64 = LLVMInt64TypeInContext(cg->ctx);
	LLVMValueRef diff = cg_i64(cg, 0);

	for (size_t at = 0; at < n; at += 8) {
		uint64_t want = 0, mask = 0;
		LLVMValueRef off = cg_i64(cg, at), p, word;

		for (size_t k = 0; k < 8 && at + k < n; k++) {
			want |= (uint64_t)(unsigned char)lit[at + k] << (8 * k);
			mask |= 0xffull << (8 * k);
		}
		p = LLVMBuildGEP2(cg->builder, i8, buf, &off, 1, "");
		word = LLVMBuildLoad2(cg->builder, i64, p, "");
		LLVMSetAlignment(word, 8);
		word = LLVMBuildAnd(cg->builder, LLVMBuildXor(cg->builder, word, cg_i64(cg, want), ""),
				    cg_i64(cg, mask), "");
		diff = LLVMBuildOr(cg->builder, diff, word, "");
	}
	return LLVMBuildICmp(cg->builder, LLVMIntEQ, diff, cg_i64(cg, 0), "");
}

int strings_equal(struct cg *cg, const struct ast_expr *e, struct cg_value *v, const char *lit,
		  bool negate, struct cg_value *out)
{
	size_t n = strlen(lit);
	LLVMTypeRef i8 = LLVMInt8TypeInContext(cg->ctx), arr;
	LLVMValueRef addr, buf, args[3], got, eq;
	const struct dw_type *t;
	char what[160];
	int err;

	if (cg_library_text(cg, e, v, &err) && err)
		return err;
	t = v->dt;
	if (v->kind != CG_VALUE || (!ctype_is_text_pointer(t) && !(t->kind == DW_TYPE_ARRAY && t->is_char)))
		return cg_fail(cg, e->loc, NULL, "a string literal compares only with char * or char[N], not %s",
			       cg_describe(v, what, sizeof(what)));
	if (n > 62)
		return cg_fail(cg, e->loc, NULL, "string literals in comparisons are limited to 62 bytes");
	if (t->kind == DW_TYPE_ARRAY) {
		if (values_need_lvalue(cg, e, v, "the array"))
			return -WR_ESEMANTIC;
		addr = v->v;
	} else {
		addr = values_scalar(cg, e, v);
		if (!addr)
			return -WR_ESEMANTIC;
	}
	arr = LLVMArrayType2(i8, 64);
	if (!cg->text_buf) {
		cg->text_buf = cg_alloca(cg, arr, "text");
		LLVMSetAlignment(cg->text_buf, 8);
	}
	buf = cg->text_buf;
	args[0] = buf;
	args[1] = cg_i32(cg, (unsigned)n + 2);
	args[2] = addr;
	got = cg_call(cg, WR_FN_READ_USER_STR, args, 3);
	/* Reading up to n + 1 characters stops at a NUL after exactly n when
	 * the strings are equal: bpf_probe_read_user_str returned n + 1. */
	eq = LLVMBuildICmp(cg->builder, LLVMIntEQ, got, cg_i64(cg, n + 1), "");
	eq = LLVMBuildAnd(cg->builder, eq, words_equal(cg, buf, lit, n), "");
	if (negate)
		eq = LLVMBuildNot(cg->builder, eq, "");
	cg_set_value(out, &ctype_bool, cg_bool(cg, eq));
	return 0;
}
