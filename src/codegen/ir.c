/* ir.c - the IR primitives the rest of the code generator is built from
 * (ir.h): constants, blocks, stack slots, debug locations, calls of the
 * template's entry points, the probe's registers and its site's data,
 * and located errors.  Nothing here knows the script's values or types.
 */
#include "codegen/ir.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdarg.h>

static LLVMTypeRef i32(struct cg *cg) { return LLVMInt32TypeInContext(cg->ctx); }
static LLVMTypeRef i64(struct cg *cg) { return LLVMInt64TypeInContext(cg->ctx); }

LLVMValueRef cg_i32(struct cg *cg, unsigned long long v)
{
	return LLVMConstInt(i32(cg), v, 0);
}

LLVMValueRef cg_i64(struct cg *cg, unsigned long long v)
{
	return LLVMConstInt(i64(cg), v, 0);
}

bool cg_constant(LLVMValueRef v, uint64_t *out)
{
	if (!v || !LLVMIsAConstantInt(v))
		return false;
	*out = LLVMConstIntGetZExtValue(v);
	return true;
}

LLVMValueRef cg_fit(struct cg *cg, LLVMValueRef x, unsigned bits, bool is_signed)
{
	LLVMTypeRef t;

	if (bits == 0 || bits >= 64)
		return x;
	t = LLVMIntTypeInContext(cg->ctx, bits);
	x = LLVMBuildTrunc(cg->builder, x, t, "");
	return is_signed ? LLVMBuildSExt(cg->builder, x, LLVMInt64TypeInContext(cg->ctx), "")
			 : LLVMBuildZExt(cg->builder, x, LLVMInt64TypeInContext(cg->ctx), "");
}

LLVMValueRef cg_bool(struct cg *cg, LLVMValueRef i1)
{
	return LLVMBuildZExt(cg->builder, i1, LLVMInt64TypeInContext(cg->ctx), "");
}

LLVMBasicBlockRef cg_block(struct cg *cg, const char *name)
{
	return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

/* Stack slots live in the entry block: elsewhere they are dynamic
 * allocations, which the BPF backend refuses. */
LLVMValueRef cg_alloca(struct cg *cg, LLVMTypeRef type, const char *name)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(cg->ctx);
	LLVMBasicBlockRef bb = cg->slots ? cg->slots : cg->entry;
	LLVMValueRef first = LLVMGetFirstInstruction(bb), slot;

	if (first)
		LLVMPositionBuilderBefore(b, first);
	else
		LLVMPositionBuilderAtEnd(b, bb);
	slot = LLVMBuildAlloca(b, type, name);
	LLVMDisposeBuilder(b);
	return slot;
}

/* No subprogram (a probe lowered only for its shape, codegen.c): no
 * locations either. */
void cg_set_loc(struct cg *cg, struct src_loc loc)
{
	LLVMMetadataRef dl;

	if (!cg->di_sp)
		return;
	dl = LLVMDIBuilderCreateDebugLocation(cg->ctx, loc.line ? loc.line : 1, loc.col, cg->di_sp,
					      NULL);
	LLVMSetCurrentDebugLocation2(cg->builder, dl);
}

LLVMValueRef cg_call(struct cg *cg, enum wr_entry_point e, LLVMValueRef *args, unsigned n)
{
	const struct wr_entry *ep = &wr_entry_points[e];
	LLVMValueRef fn = ep->n_params == n ? LLVMGetNamedFunction(cg->mod, ep->name) : NULL;

	if (!fn) {
		wr_error("internal error: %s with %u arguments is not a template entry point",
			 ep->name, n);
		cg->llvm_errors++;
		return LLVMGetPoison(LLVMInt64TypeInContext(cg->ctx));
	}
	return LLVMBuildCall2(cg->builder, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

/* The value of DWARF register @reg at the probe.  Each register is read
 * once, in the entry block: a pointer into the context that LLVM would
 * otherwise share between two reads is "a modified ctx pointer" to the
 * verifier, which only accepts ctx + constant at each load. */
LLVMValueRef cg_reg(struct cg *cg, int reg)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(cg->ctx);
	LLVMValueRef off, p;
	LLVMBuilderRef b;

	if (cg->regs[reg])
		return cg->regs[reg];
	b = LLVMCreateBuilderInContext(cg->ctx);
	LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(cg->entry));
	off = LLVMConstInt(i64(cg), x86_pt_regs_offset((unsigned)reg), 0);
	p = LLVMBuildGEP2(b, i8, cg->ctx_arg, &off, 1, "");
	cg->regs[reg] = LLVMBuildLoad2(b, i64(cg), p, "reg");
	LLVMSetVolatile(cg->regs[reg], 1);
	LLVMDisposeBuilder(b);
	return cg->regs[reg];
}

/* The next entry of the site's data, holding @value: NULL when the probe
 * has no table or the entry is full (the value is then built in, and
 * only sites with the same value share the program). */
static LLVMValueRef site_param(struct cg *cg, uint64_t value)
{
	LLVMValueRef idx, p, v;

	if (!cg->site_params || cg->n_params >= WR_SITE_FORM)
		return NULL;
	idx = cg_i64(cg, cg->n_params);
	cg->params[cg->n_params++] = value;
	p = LLVMBuildGEP2(cg->builder, i64(cg), cg->site_params, &idx, 1, "");
	v = LLVMBuildLoad2(cg->builder, i64(cg), p, "site");
	return v;
}

LLVMValueRef cg_site_const(struct cg *cg, uint64_t value)
{
	LLVMValueRef v = site_param(cg, value);

	return v ? v : cg_i64(cg, value);
}

LLVMValueRef cg_site_reg(struct cg *cg, int reg)
{
	LLVMValueRef args[2];

	if (reg < 0 || reg >= X86_DWARF_NREGS ||
	    !(args[1] = site_param(cg, x86_pt_regs_offset((unsigned)reg))))
		return cg_reg(cg, reg);
	args[0] = cg->ctx_arg;
	return cg_call(cg, WR_FN_SITE_REG, args, 2);
}

LLVMValueRef cg_load_bias(struct cg *cg)
{
	return LLVMBuildSub(cg->builder, cg_reg(cg, X86_DWARF_rip), cg_site_const(cg, cg->plan->pc),
			    "bias");
}

int cg_fail(struct cg *cg, struct src_loc loc, const char *hint, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	diag_set(cg->diag, loc, hint, "%s", msg.buf);
	strbuf_release(&msg);
	return -WR_ESEMANTIC;
}
