/* cgvalue.c - a script value (struct cg_value, lower.h): made, merged
 * with another's read status, read from user memory with its failure
 * kept in that status, described in messages, pointed to; and the print
 * arguments noted for the renderer and the markers of a lenient site
 * (codegen_probe()'s @args).
 * Used by every file that lowers expressions and the program's values.
 */
#include "codegen/lower.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <string.h>

void cg_set_value(struct cg_value *out, const struct dw_type *t, LLVMValueRef v)
{
	memset(out, 0, sizeof(*out));
	out->kind = CG_VALUE;
	out->dt = t;
	out->v = v;
}

/* A failed read of either operand is the result's; so is having no value. */
void cg_merge(struct cg *cg, struct cg_value *out, const struct cg_value *a, const struct cg_value *b)
{
	LLVMValueRef sa = a->status, sb = b ? b->status : NULL, failed;

	if (sa && sb) {
		failed = LLVMBuildICmp(cg->builder, LLVMIntNE, sa, cg_i32(cg, 0), "");
		out->status = LLVMBuildSelect(cg->builder, failed, sa, sb, "");
		out->fail_addr = LLVMBuildSelect(cg->builder, failed,
						 a->fail_addr ? a->fail_addr : cg_i64(cg, 0),
						 b->fail_addr ? b->fail_addr : cg_i64(cg, 0), "");
	} else {
		out->status = sa ? sa : sb;
		out->fail_addr = sa ? a->fail_addr : sb ? b->fail_addr : NULL;
	}
	out->optimized_out = a->optimized_out || (b && b->optimized_out);
}

void cg_set_lvalue(struct cg_value *out, const struct dw_type *t, LLVMValueRef addr)
{
	cg_set_value(out, t, addr);
	out->lvalue = true;
}

void cg_merge_status(struct cg *cg, struct cg_value *v, LLVMValueRef st, LLVMValueRef addr)
{
	LLVMValueRef failed;

	if (!v->status) {
		v->status = st;
		v->fail_addr = addr;
		return;
	}
	failed = LLVMBuildICmp(cg->builder, LLVMIntNE, v->status, cg_i32(cg, 0), "");
	v->status = LLVMBuildSelect(cg->builder, failed, v->status, st, "");
	v->fail_addr = LLVMBuildSelect(cg->builder, failed, v->fail_addr ? v->fail_addr : cg_i64(cg, 0),
				       addr, "");
}

/* Every read goes through one stack slot: the value is loaded from it at
 * once, and a slot per read would exhaust BPF's 512-byte stack in a few
 * dozen reads. */
LLVMValueRef cg_read_u64(struct cg *cg, LLVMValueRef addr, unsigned size, struct cg_value *v)
{
	LLVMValueRef args[3], st;

	if (!cg->scratch)
		cg->scratch = cg_alloca(cg, LLVMInt64TypeInContext(cg->ctx), "scratch");
	args[0] = cg->scratch;
	args[1] = cg_i32(cg, size);
	args[2] = addr;
	st = LLVMBuildTrunc(cg->builder, cg_call(cg, WR_FN_READ_USER, args, 3),
			    LLVMInt32TypeInContext(cg->ctx), "");
	cg_merge_status(cg, v, st, addr);
	return LLVMBuildLoad2(cg->builder, LLVMInt64TypeInContext(cg->ctx), cg->scratch, "");
}

const char *cg_describe(const struct cg_value *v, char *buf, size_t size)
{
	if (v->kind == CG_STRING) {
		snprintf(buf, size, "a string literal");
		return buf;
	}
	return ctype_describe(v->dt, buf, size);
}

const struct dw_type *cg_pointer_to(struct cg *cg, const struct dw_type *target)
{
	if (target == &ctype_void)
		return &ctype_void_ptr;
	if (!cg->plan->vars.pointer_to)
		return NULL;
	return cg->plan->vars.pointer_to(cg->plan->vars.ctx, target);
}

/* The entry of wire argument @arg of print @print in cg->args, made if
 * it is not there yet. */
static struct codegen_arg *arg_entry(struct cg *cg, unsigned print, unsigned arg)
{
	struct codegen_args *a = &cg->args;

	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].print == print && a->v[i].arg == arg)
			return &a->v[i];
	a->v = xgrow(a->v, &a->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n] = (struct codegen_arg){ .print = print, .arg = arg };
	return &a->v[a->n++];
}

void cg_note_arg(struct cg *cg, unsigned print, unsigned arg, const struct dw_type *t)
{
	arg_entry(cg, print, arg)->type = t;
}

void cg_note_frame(struct cg *cg, unsigned print, unsigned arg, const char *frame)
{
	arg_entry(cg, print, arg)->frame = frame;
}

void cg_note_marker(struct cg *cg, struct src_loc loc, const char *why)
{
	struct codegen_args *a = &cg->args;

	a->markers = xgrow(a->markers, &a->cap_markers, a->n_markers + 1, sizeof(*a->markers));
	a->markers[a->n_markers++] = (struct codegen_marker){ loc.line, loc.col, xstrdup(why) };
}
