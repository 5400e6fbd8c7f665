/* lower.h - the code generator's state, shared by codegen.c (LLVM set-up
 * and emission) and lower.c (statements and expressions to IR).
 *
 * Layer rule: private to src/codegen.
 */
#ifndef WRAITH_CODEGEN_LOWER_H
#define WRAITH_CODEGEN_LOWER_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <stdbool.h>

#include "codegen/plan.h"

struct diag;

enum cg_type {
	CG_INT,    /* i64, signed */
	CG_BOOL,   /* i1 */
	CG_STRING, /* a string literal, known at compile time (.str) */
};

struct cg_value {
	enum cg_type type;
	LLVMValueRef v;   /* NULL for CG_STRING */
	const char *str;  /* borrowed from the AST */
};

struct cg_binding {
	const char *name;   /* borrowed from the AST */
	struct cg_value val;
	unsigned depth;     /* scope depth it was bound at */
};

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
	struct diag *diag;
	LLVMValueRef fn;             /* the probe function */
	LLVMValueRef ctx_arg;
	LLVMValueRef buf;            /* the event buffer */
	struct cg_binding *vars;     /* owned array: `let` bindings in scope */
	size_t n_vars, cap_vars;
	unsigned depth;
};

/* Build the body of cg->fn from cg->plan.  Returns 0, or -WR_ESEMANTIC with
 * cg->diag set. */
int lower_probe(struct cg *cg);
void lower_release(struct cg *cg);

#endif
