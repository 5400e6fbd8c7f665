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
#include "dwarf/vars.h"

struct diag;

struct dw_type;

enum cg_type {
	CG_INT,    /* i64, signed */
	CG_BOOL,   /* i1 */
	CG_STRING, /* a string literal, known at compile time (.str) */
	CG_DW,     /* a value of the traced program, with its DWARF type */
};

struct cg_value {
	enum cg_type type;
	LLVMValueRef v;            /* INT/BOOL: the value; DW: the address (lvalue) or value */
	const char *str;           /* borrowed from the AST */
	const struct dw_type *dt;  /* DW: borrowed from the module's type cache */
	bool lvalue;               /* DW: v is the address in the target */
	bool optimized_out;        /* DW: no value at this pc */
	unsigned bit_size;         /* DW lvalue bitfield: width and shift */
	unsigned bit_offset;
	LLVMValueRef status;       /* i32 wire status of a failed read so far, or NULL */
	bool composed;             /* DW: an aggregate assembled from .loc's pieces
				      (DW_OP_piece), read member by member */
	struct dw_loc loc;         /* DW, composed: where its pieces are */
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
	LLVMBasicBlockRef entry;     /* allocas and register reads go here */
	LLVMValueRef regs[17];       /* registers read so far, by DWARF number */
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

/* The templates' wr_* entry points the generator calls, with their
 * parameter counts (NULL-terminated).  Every parsed template is checked
 * against this list before anything is generated, and cg_call() calls
 * nothing else, so a renamed or changed entry point is a clean error, not
 * a crash in the middle of a probe. */
struct cg_entry {
	const char *name;
	unsigned n_params;
};
extern const struct cg_entry cg_entry_points[];

/* Shared by lower.c and values.c. */
/* Call entry point @name (one of cg_entry_points) with @n arguments.  A
 * name or count not in the list is an internal error: logged, counted in
 * llvm_errors, and a poison value is returned so lowering can finish. */
LLVMValueRef cg_call(struct cg *cg, const char *name, LLVMValueRef *args, unsigned n);
LLVMValueRef cg_alloca(struct cg *cg, LLVMTypeRef type, const char *name);
LLVMValueRef cg_i32(struct cg *cg, unsigned long long v);
LLVMValueRef cg_i64(struct cg *cg, unsigned long long v);
int cg_fail(struct cg *cg, struct src_loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* values.c: the traced program's values. */
LLVMValueRef values_reg(struct cg *cg, int dwarf_reg);
int values_ident(struct cg *cg, const struct ast_expr *e, struct cg_value *out);
int values_member(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		  struct cg_value *out);
int values_index(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		 struct cg_value *index, struct cg_value *out);
int values_deref(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		 struct cg_value *out);
int values_address_of(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		      struct cg_value *out);
/* The scalar value of @v as i64 (loads an lvalue); records read failures
 * in v->status.  Returns NULL with cg->diag set when @v is not scalar. */
LLVMValueRef values_scalar(struct cg *cg, const struct ast_expr *e, struct cg_value *v);
/* Emit @v as print argument @wire_index of print @print_index. */
int values_print_arg(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		     enum ast_fmt_spec spec, unsigned print_index, unsigned wire_index);
/* Compare a string of the program (char *, char[N]) with literal @lit. */
int values_string_eq(struct cg *cg, const struct ast_expr *e, struct cg_value *v, const char *lit,
		     bool negate, struct cg_value *out);
/* True when the string at @v starts with @prefix. */
int values_string_prefix(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
			 const char *prefix, struct cg_value *out);

#endif
