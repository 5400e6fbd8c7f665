/* ir.h - the bottom of the code generator: its state (struct cg) and the
 * IR primitives everything above is built from: constants, blocks, stack
 * slots, debug locations, calls of the template's entry points, the
 * probe's registers and its site's data, and located errors.
 *
 * Layer rule: private to src/codegen, and its lowest part: ir.c calls
 * nothing else of codegen/, and lower.c (statements), expr.c, ops.c,
 * floats.c, builtins.c, locations.c, values.c, print_args.c, strings.c,
 * walks.c, library.c and cgvalue.c call down into it, never the
 * reverse.
 */
#ifndef WRAITH_CODEGEN_IR_H
#define WRAITH_CODEGEN_IR_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64.h"
#include "codegen/codegen.h"
#include "codegen/plan.h"
#include "protocol/contract.h"
#include "protocol/wire.h"

struct cg_binding;
struct diag;
struct dw_module;

struct cg {
	const char *what;            /* for messages */
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef builder;
	LLVMDIBuilderRef dib;
	LLVMMetadataRef di_file;
	LLVMMetadataRef di_sp;
	int llvm_errors;
	const struct probe_plan *plan;
	const struct dw_module *tls_module; /* of the location being read (dw_loc) */
	struct diag *diag;
	LLVMValueRef fn;             /* the probe function */
	LLVMBasicBlockRef entry;     /* allocas and register reads go here */
	unsigned n_forms;            /* lower_forms(): how many; else 0 */
	LLVMBasicBlockRef slots;     /* allocas go here instead when not NULL: the
					function's entry, where the entry of the
					form being lowered is not (lower_forms()) */
	LLVMValueRef regs[X86_DWARF_NREGS]; /* registers read so far, by DWARF number */
	LLVMValueRef ctx_arg;
	/* plan.site_table: the site's data in its table entry (i64 *), and
	 * the values this site put there so far, in the order asked. */
	LLVMValueRef site_params;
	/* The hit's attach cookie when lower_forms() read it for every form
	 * (its dispatch comes first); NULL: lower_body() reads it. */
	LLVMValueRef cookie;
	uint64_t params[WR_SITE_PARAMS];
	unsigned n_params;
	LLVMValueRef buf;            /* the event buffer */
	LLVMValueRef scratch;        /* i64 stack slot every scalar read shares */
	LLVMValueRef text_buf;       /* 64-byte stack slot every string comparison shares */
	LLVMValueRef cmp_buf;        /* the comparison being lowered's struct wr_cmp_buf (a map's) */
	const char *arg_frame;       /* the frame a variable of the print argument being
					lowered came from (dw_var.frame), or NULL */
	struct cg_binding *vars;     /* owned array: `let` bindings in scope */
	struct codegen_args args;    /* the print arguments lowered so far */
	size_t n_vars, cap_vars;
	unsigned depth;
	unsigned print_elements;     /* codegen_options.print_elements, 0 made 200 */
	/* Frame 0's values a bt copies at the hit (lower_bt_refs()): how many
	 * items of them were lowered; none when no_frame_copies (the second
	 * try of a probe whose first ran over the BPF stack: its bt then
	 * shows markers where they would have shown). */
	unsigned frame_copies;
	bool no_frame_copies;
	/* The last variable refused was wholly in this DWARF register + 1,
	 * which a probe cannot read (dw_loc.unreadable_reg): a print of it
	 * shows <unavailable> (lower.c) */
	unsigned unreadable_reg;
	bool stack_quiet;            /* running over the BPF stack is not reported (yet) */
	bool stack_exceeded;         /* and it ran over */
};

/* Integer constants. */
LLVMValueRef cg_i32(struct cg *cg, unsigned long long v);
LLVMValueRef cg_i64(struct cg *cg, unsigned long long v);
/* True when @v is an integer constant; *@out gets its 64 bits. */
bool cg_constant(LLVMValueRef v, uint64_t *out);
/* @x (an i64) cut to @bits and widened again, signed or not. */
LLVMValueRef cg_fit(struct cg *cg, LLVMValueRef x, unsigned bits, bool is_signed);
/* An i1 as a script boolean (i64 0 or 1). */
LLVMValueRef cg_bool(struct cg *cg, LLVMValueRef i1);

/* A new block at the end of cg->fn. */
LLVMBasicBlockRef cg_block(struct cg *cg, const char *name);
/* A stack slot of @type, in the entry block. */
LLVMValueRef cg_alloca(struct cg *cg, LLVMTypeRef type, const char *name);
/* What follows gets the debug location of script text @loc (none for a
 * probe lowered only for its shape). */
void cg_set_loc(struct cg *cg, struct src_loc loc);

/* Call the template's entry point @e (protocol/contract.h: every parsed
 * template is checked against that list before anything is generated, so
 * a renamed or changed entry point is a clean error, not a crash in the
 * middle of a probe) with @n arguments.  A count not in the list is an
 * internal error: logged, counted in llvm_errors, and a poison value is
 * returned so lowering can finish. */
LLVMValueRef cg_call(struct cg *cg, enum wr_entry_point e, LLVMValueRef *args, unsigned n);

/* The value of DWARF register @reg at the probe (an i64), read once. */
LLVMValueRef cg_reg(struct cg *cg, int reg);
/* A constant of this site's locations (an offset, a constant value, its
 * pc), and the value of DWARF register @reg there: built into the
 * program, or under plan.site_table read from the site's table entry
 * (cg->params), so that they make no difference to the program. */
LLVMValueRef cg_site_const(struct cg *cg, uint64_t value);
LLVMValueRef cg_site_reg(struct cg *cg, int reg);
/* The load bias: where the probe's pc really is, minus its ELF address
 * (an i64). */
LLVMValueRef cg_load_bias(struct cg *cg);

/* Set cg->diag at @loc with @hint (may be NULL) and the message; returns
 * -WR_ESEMANTIC. */
int cg_fail(struct cg *cg, struct src_loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
