/* lower.h - the script's values (struct cg_value) and the functions that
 * lower them, shared by codegen.c (LLVM set-up and emission), lower.c
 * (statements), expr.c, ops.c and floats.c (expressions) and
 * locations.c, values.c and print_args.c (the traced program's values);
 * all of them build on ir.h.
 *
 * Layer rule: private to src/codegen.
 */
#ifndef WRAITH_CODEGEN_LOWER_H
#define WRAITH_CODEGEN_LOWER_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <stdbool.h>
#include <stdint.h>

#include "codegen/ctype.h"
#include "codegen/ir.h"
#include "codegen/plan.h"
#include "protocol/contract.h"
#include "protocol/wire.h"

struct diag;

struct dw_type;

/* A script value.  Everything but a string literal has a C type: the
 * program's own (from DWARF) or a builtin one (codegen/ctype.h). */
enum cg_kind {
	CG_STRING, /* a string literal, known at compile time (.str) */
	CG_VALUE,  /* a value of C type .dt */
};

struct cg_value {
	enum cg_kind kind;
	LLVMValueRef v;            /* rvalue: i64 (a float: its bits); lvalue: the address */
	const char *str;           /* STRING: borrowed from the AST */
	const struct dw_type *dt;  /* VALUE: borrowed (module type cache or ctype.h) */
	bool lvalue;               /* v is the value's address in the target */
	bool optimized_out;        /* no value at this pc */
	unsigned bit_size;         /* lvalue bitfield: width and shift */
	unsigned bit_offset;
	LLVMValueRef status;       /* i32 wire status of a failed read so far, or NULL */
	bool composed;             /* an aggregate assembled from .loc's pieces
				      (DW_OP_piece), read member by member */
	struct dw_loc loc;         /* composed: where its pieces are */
	LLVMValueRef fail_addr;    /* i64 address that read failed at (with status) */
	const struct ast_expr *maker; /* a boolean made by a builtin call (for hints), or NULL */
	/* A value this site of the probe cannot give (plan.lenient): the
	 * wire status printed instead (WR_ARG_UNREADABLE, WR_ARG_NO_DEBUG_INFO);
	 * 0 otherwise. */
	unsigned marker;
	/* A pointer the compiler optimized away (DW_LOC_IMPLICIT_PTR in .loc):
	 * no value of its own, what it points to is at .loc.target. */
	bool synthetic;
	/* The C++ reference this referent was reached through (dt is its
	 * target), for print to show it as gdb does; NULL otherwise. */
	const struct dw_type *ref;
	/* A parameter or local of the probe's own frame whose whole value is what
	 * its caller passed in DWARF register entry_reg - 1 (dw_loc's
	 * entry_reg): print captures the caller's frame for userspace,
	 * should no call site the probe knows match (WR_ITEM_CALLER).  0
	 * otherwise. */
	unsigned entry_reg;
	/* A C variable-length array (dw_type_is_vla(dt)) or a pointer to
	 * one, read from a variable whose lengths the pc has: the element
	 * count of each of its dimensions of variable length, outermost
	 * first (i64s read at the hit), and the status of reading them
	 * (NULL: none failed).  n_vla 0: not known here (print shows
	 * <variable length array>, an element of variable size is refused). */
	LLVMValueRef vla_count[DW_VLA_DIMS];
	unsigned n_vla;
	LLVMValueRef vla_status;
};

struct cg_binding {
	const char *name;   /* borrowed from the AST */
	struct cg_value val;
	unsigned depth;     /* scope depth it was bound at */
};

/* Build the body of cg->fn from cg->plan.  Returns 0, or -WR_ESEMANTIC with
 * cg->diag set. */
int lower_probe(struct cg *cg);
/* Build the body of cg->fn from the @n plans @plans, forms of one probe
 * (sites whose code differs in more than their site table entry): each
 * form's code, run at a site whose entry's form (wire.h: WR_SITE_FORM)
 * is its index.  Returns as lower_probe(). */
int lower_forms(struct cg *cg, const struct probe_plan *const *plans, size_t n);
void lower_release(struct cg *cg);
/* Open and close cg->fn around expressions lowered alone (codegen_eval()). */
void lower_eval_begin(struct cg *cg);
void lower_eval_end(struct cg *cg);

/* cgvalue.c: script values. */
/* A pointer type to @target (from the module's type cache), or NULL
 * without debug info. */
const struct dw_type *cg_pointer_to(struct cg *cg, const struct dw_type *target);
/* @out becomes an rvalue of type @t with value @v (an i64). */
void cg_set_value(struct cg_value *out, const struct dw_type *t, LLVMValueRef v);
/* @out becomes an lvalue of type @t at address @addr (an i64). */
void cg_set_lvalue(struct cg_value *out, const struct dw_type *t, LLVMValueRef addr);
/* @out inherits the read status and optimized-out mark of @a and @b
 * (@b may be NULL). */
void cg_merge(struct cg *cg, struct cg_value *out, const struct cg_value *a,
	      const struct cg_value *b);
/* A read of @v failed with status @st at @addr (an i32 and an i64, the
 * status 0 when it did not): the first failed read wins, its status and
 * the address it failed at (for expression errors). */
void cg_merge_status(struct cg *cg, struct cg_value *v, LLVMValueRef st, LLVMValueRef addr);
/* Read @size bytes (at most 8) of user memory at @addr, zero-extended to
 * an i64; a failure goes into @v's status (cg_merge_status()). */
LLVMValueRef cg_read_u64(struct cg *cg, LLVMValueRef addr, unsigned size, struct cg_value *v);
/* How @v reads in a message ("a pointer (char *)"), in @buf. */
const char *cg_describe(const struct cg_value *v, char *buf, size_t size);
/* Print argument @arg of print @print has type @t; it reads a variable
 * of function @frame, not the probe's own (for the renderer:
 * codegen_probe()'s @args). */
void cg_note_arg(struct cg *cg, unsigned print, unsigned arg, const struct dw_type *t);
void cg_note_frame(struct cg *cg, unsigned print, unsigned arg, const char *frame);
/* The print argument at @loc prints a marker at this lenient site: @why
 * (copied) is its error here. */
void cg_note_marker(struct cg *cg, struct src_loc loc, const char *why);
/* locations.c: the name of DWARF register @reg ("xmm0") into @buf. */
const char *cg_reg_name(unsigned reg, char *buf, size_t size);

/* expr.c: expressions. */
int cg_lower_expr(struct cg *cg, const struct ast_expr *e, struct cg_value *out);
/* Make @v an operand of C's operators: an array decays to a pointer to its
 * first element and a scalar lvalue is read (@e locates errors).  Other
 * values are left as they are.  Returns 0 or -WR_ESEMANTIC. */
int cg_operand(struct cg *cg, const struct ast_expr *e, struct cg_value *v);
/* The truth of @v as an i1, for `if`, `!`, `&&`, `||`: @v must be a
 * scalar; @what names the user for messages ("an if condition"). */
int cg_truth(struct cg *cg, const struct ast_expr *e, struct cg_value *v, const char *what,
	     LLVMValueRef *out);

/* builtins.c: strncmp, starts_with, memcmp (hex() inside it). */
int cg_lower_builtin(struct cg *cg, const struct ast_expr *e, struct cg_value *out);
/* The user address of the bytes @v stands for: a pointer's value, else
 * where an array, aggregate or scalar lives.  Returns 0 (read failures in
 * v->status), or -WR_ESEMANTIC when it has none. */
int cg_bytes_address(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		     LLVMValueRef *addr);
/* Emit value @v of @e as memory dump @pc ({:x.N}, {:s.*}, {:X.name$}),
 * print argument @wire of print @print; for {:x.*} @len_e and @len are
 * the length argument.  Returns 0 or -WR_ESEMANTIC. */
int cg_print_dump(struct cg *cg, const struct ast_fmt_piece *pc, const struct ast_expr *e,
		  struct cg_value *v, const struct ast_expr *len_e, struct cg_value *len,
		  unsigned print, unsigned wire);
/* The `let` binding @name in scope, or NULL. */
const struct cg_value *cg_binding(struct cg *cg, const char *name);
/* Append an expression-error item for @e: @code (wire status) and @addr
 * are i64 values. */
void cg_expr_error(struct cg *cg, const struct ast_expr *e, LLVMValueRef code, LLVMValueRef addr);

/* ops.c: binary operators other than && and ||, on values (not string
 * literals). */
int cg_binary_op(struct cg *cg, const struct ast_expr *e, struct cg_value *a, struct cg_value *b,
		 struct cg_value *out);

/* floats.c: floating-point values without an FPU. */
bool cg_float_constants(const struct cg_value *a, const struct cg_value *b);
int cg_fold_floats(struct cg *cg, const struct ast_expr *e, struct cg_value *a, struct cg_value *b,
		   struct cg_value *out);
int cg_fold_float_cast(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		       const struct dw_type *t, struct cg_value *out);
int cg_compare_floats(struct cg *cg, const struct ast_expr *e, struct cg_value *a,
		      struct cg_value *b, struct cg_value *out);
LLVMValueRef cg_float_truth(struct cg *cg, const struct cg_value *v);
LLVMValueRef cg_float_negate(struct cg *cg, const struct cg_value *v);

/* locations.c: a value at its DWARF location. */
/* The value of type @t at @loc (@e names it in errors) into @out: an
 * lvalue when it is in memory, an rvalue when in a register or
 * computed, marked composed (pieces, or an aggregate in a register),
 * optimized out or synthetic.  Returns 0 or -WR_ESEMANTIC. */
int locations_value(struct cg *cg, const struct ast_expr *e, const struct dw_type *t,
		    const struct dw_loc *loc, struct cg_value *out);
/* Bits [@lo, @lo + @n) (@n <= 64) of the value at @loc - pieces, or an
 * aggregate in one register - into *@x, each piece's bits in place; the
 * status of its reads into *@st (NULL: none).  Bits no piece kept
 * (dw_loc_unavailable()) are 0.  Returns 0 or -WR_ESEMANTIC. */
int locations_window(struct cg *cg, const struct ast_expr *e, const struct dw_loc *loc,
		     uint64_t lo, unsigned n, LLVMValueRef *x, LLVMValueRef *st);

/* values.c: the traced program's values in expressions. */
int values_ident(struct cg *cg, const struct ast_expr *e, struct cg_value *out);
int values_member(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		  struct cg_value *out);
int values_index(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		 struct cg_value *index, struct cg_value *out);
int values_deref(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		 struct cg_value *out);
int values_address_of(struct cg *cg, const struct ast_expr *e, struct cg_value *base,
		      struct cg_value *out);
/* The bytes of VLA @v (cg_value.vla_count known) as an i64: its
 * lengths times its constant ones and its element's size, at most
 * 2^40 (a length not set yet at the pc can be anything). */
LLVMValueRef values_vla_bytes(struct cg *cg, const struct cg_value *v);
/* The scalar value of @v as i64, reduced to its type's width and
 * extended by its signedness (loads an lvalue; a float is its bits);
 * records read failures in v->status.  An optimized-out value reads as 0
 * and stays marked.  Returns NULL with cg->diag set when @v is not
 * scalar. */
LLVMValueRef values_scalar(struct cg *cg, const struct ast_expr *e, struct cg_value *v);
/* Member or element @t at byte @offset of composed value @base (held in
 * pieces: registers, stack slots); a bitfield's bits follow (@bit_size,
 * @bit_offset). */
int values_composed_part(struct cg *cg, const struct ast_expr *e, const struct cg_value *base,
			 const struct dw_type *t, uint64_t offset, unsigned bit_size, unsigned bit_offset,
			 struct cg_value *out);
/* @v has an address: not optimized out, not in a register (@what names
 * it in the error).  Returns 0 or -WR_ESEMANTIC. */
int values_need_lvalue(struct cg *cg, const struct ast_expr *e, const struct cg_value *v,
		       const char *what);
/* A C++ reference stands for its referent, as in C++: @v (of any other
 * type left as it is) becomes the referent, an lvalue, with v->ref the
 * reference's type, for print.  Returns 0 or -WR_ESEMANTIC. */
int values_through_reference(struct cg *cg, const struct ast_expr *e, struct cg_value *v);

/* print_args.c: program values on the wire. */
/* Emit @v as print argument @wire_index of print @print_index, as @spec
 * shows it (a value reached through a C++ reference: the referent's
 * value with its address attached, for gdb's `(int &) @0x7ffe...: 5`).
 * Returns 0 or -WR_ESEMANTIC. */
int print_args_lower(struct cg *cg, const struct ast_expr *e, struct cg_value *v,
		     enum ast_fmt_spec spec, unsigned print_index, unsigned wire_index);
/* For a bt with frame values: what a bt shows of frame 0's variable @var
 * (@e names it) that the stack copy may not hold, copied at the hit: the
 * referent of a reference to a scalar or to one of the library's values,
 * or a string or wrapper of the library held in memory with what it
 * points to; emitted as a print argument with its address attached
 * (WR_ARG_ATTACH_REFERENCE).  -ENOENT, nothing emitted, otherwise. */
int print_args_frame_referent(struct cg *cg, const struct ast_expr *e, const struct dw_var *var);
/* For a bt with frame values: the strings of the char pointers inside
 * frame 0's struct or array variable @var (or a reference's referent),
 * which may lie off the stack (the heap): each copied at the hit as a
 * WR_ARG_CSTR of its own, found by the pointer's value, at most *@budget
 * of them (each one taken off it).  -ENOENT, nothing emitted, when it has
 * none. */
int print_args_frame_strings(struct cg *cg, const struct ast_expr *e, const struct dw_var *var, unsigned *budget);
/* For a bt with frame values: the C++ static data members that frame 0's
 * variables of types @types (@n of them; a reference's referent type)
 * show, copied at the hit as a print copies them (WR_MEM_F_STATIC), all
 * attached to one argument of their own (a U64 0).  Nothing when they
 * show none. */
void print_args_frame_statics(struct cg *cg, const struct ast_expr *e, const struct dw_type *const *types,
			      size_t n);
/* After print @print_index whose arguments @args (wr_caller_arg(), @n of
 * them) are what the caller passed: the caller's frame as the hit sees
 * it, for userspace to find the call site by the return address and read
 * what it passed (WR_ITEM_CALLER).  Nothing without an unwind row at the
 * probe (no CFA). */
void print_args_caller(struct cg *cg, unsigned print_index, const uint64_t *args, size_t n);
/* walks.c: the memory a value's printer needs beyond its own bytes
 * (containers: wire.h's walks).  True when values of @t have any. */
bool walks_needed(const struct dw_type *t);
/* Append @t's walk program (@raw: the root alone) to @ops, *@n of them in
 * use: the index of its first op, or -1 when it does not fit or nothing
 * of @t needs walking. */
int walks_append(const struct dw_type *t, bool raw, unsigned print_elements, struct wr_walk_op *ops,
		 unsigned *n);
/* Copy the value of type @t at @addr whole and walk it (@raw: only the
 * value, whole, for {:r}), as arguments attached to the one just
 * emitted. */
void walks_emit(struct cg *cg, LLVMValueRef addr, const struct dw_type *t, bool raw);
/* Copy the @size bytes (an i32 computed at the hit, at most
 * WR_WALK_COPY_MAX) at @addr whole, as a walk's root attached to the
 * argument just emitted (a variable-length array's). */
void walks_emit_sized(struct cg *cg, LLVMValueRef addr, LLVMValueRef size);
/* Walk the value of type @t the probe assembled from pieces, the
 * WR_ARG_PIECES argument at payload offset @off just emitted (a &str in
 * two registers: its characters), as arguments attached to it. */
void walks_emit_pieces(struct cg *cg, LLVMValueRef off, const struct dw_type *t);
/* library.c: the C++ standard library's values in expressions.  Each
 * cg_library_*() returning bool says whether @v was one it takes (then
 * *@err is 0 or -WR_ESEMANTIC, and @v is replaced). */
/* A unique_ptr or shared_ptr as its pointer. */
bool cg_library_pointer(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err);
/* A std::string as a char pointer to its characters. */
bool cg_library_text(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err);
/* An optional as whether it holds a value, a smart pointer as its pointer. */
bool cg_library_truth(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int *err);
/* @base[@index] of a vector, span or string (*@done; else nothing is
 * done): the element, index-out-of-range past its size. */
int cg_library_index(struct cg *cg, const struct ast_expr *e, struct cg_value *base, struct cg_value *index,
		     struct cg_value *out, bool *done);
/* Method call @e (`v.size()`) on @obj.  Returns 0 or -WR_ESEMANTIC. */
int cg_library_method(struct cg *cg, const struct ast_expr *e, struct cg_value *obj, struct cg_value *out);
/* strings.c: compare a string of the program (char *, char[N]) with
 * literal @lit (== or, @negate, !=). */
int strings_equal(struct cg *cg, const struct ast_expr *e, struct cg_value *v, const char *lit,
		  bool negate, struct cg_value *out);

#endif
