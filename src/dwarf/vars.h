/* vars.h - the traced program's variables at a pc: where each lives
 * (register, stack slot, global address) and its C type.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 * This header uses plain types so the IR generator and the renderer can
 * read locations and types without seeing libdw.
 *
 * Lookup follows C scoping at the pc: the innermost lexical block or
 * inlined call first, out to the function's parameters, then the
 * compile unit's statics, then the module's globals (declarations are
 * looked through to their definitions).  Types are built once per DIE and
 * cached in the module: every struct dw_type pointer is borrowed and
 * valid until dw_module_free() (or, for a type completed from another
 * module, until that module is freed).
 */
#ifndef WRAITH_DWARF_VARS_H
#define WRAITH_DWARF_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

enum dw_type_kind {
	DW_TYPE_VOID,
	DW_TYPE_INT,      /* integers, char, enum underlying */
	DW_TYPE_BOOL,
	DW_TYPE_FLOAT,
	DW_TYPE_POINTER,  /* also references and pointers to members (see dw_type) */
	DW_TYPE_STRUCT,   /* struct and class */
	DW_TYPE_UNION,
	DW_TYPE_ARRAY,
	DW_TYPE_ENUM,
	DW_TYPE_FUNCTION,
	DW_TYPE_UNKNOWN,
};

struct dw_type;

struct dw_member {
	const char *name;          /* NULL for an anonymous member */
	uint64_t offset;           /* bytes from the start of the aggregate */
	const struct dw_type *type;
	unsigned bit_size;         /* 0 unless a bitfield */
	unsigned bit_offset;       /* from the least significant bit of the storage unit */
};

struct dw_enumerator {
	const char *name;
	int64_t value;
};

/* One variant of a Rust enum with data (a DWARF variant part): its
 * fields are the members of .type, a struct placed at .offset in the
 * enum's bytes (their offsets count from the enum's start). */
struct dw_variant {
	const char *name;          /* "Some", "Rect" */
	const struct dw_type *type;
	uint64_t offset;
	bool is_default;           /* taken when no other variant's value matches (the
				      variant whose data holds the niche) */
	uint64_t value;            /* the discriminant's value that selects it */
};

struct dw_type {
	enum dw_type_kind kind;
	const char *name;          /* C spelling as gdb prints it: "int", "long", "struct request",
				    * "const char *", "int (*)[4]" */
	uint64_t size;             /* bytes (0 when unknown or void) */
	bool is_signed;
	bool is_char;              /* char, signed char, unsigned char (and arrays of them read as text) */
	const struct dw_type *target; /* pointee or array element */
	uint64_t count;            /* array elements (0: unknown) */
	const struct dw_member *members; /* struct/union */
	size_t n_members;
	const struct dw_enumerator *enumerators;
	size_t n_enumerators;
	bool incomplete;           /* a struct/union/enum only declared, defined by no module
				      known (no members, size 0) */
	/* C++ (DW_TYPE_POINTER): a reference, & or && ("int &"): its value is
	 * the referent's address, and in expressions it stands for the
	 * referent, as in C++. */
	bool is_reference;
	/* C++ (DW_TYPE_POINTER): a pointer to a member of class .container
	 * ("int Point::*": its value is the member's offset; a pointer to a
	 * member function, 16 bytes: the function's address, then the
	 * adjustment of `this`). */
	const struct dw_type *container;
	bool scoped;               /* an enum class: gdb names its values Color::green */
	/* From a Rust unit: named ("*mut T", "[u8; 4]") and shown
	 * ("rscopes::Req {id: 1}") as rust-gdb does. */
	bool rust;
	/* A Rust enum with data (DW_TYPE_STRUCT): which variant the value
	 * holds is told by the discriminant, an unsigned integer of
	 * .discr_size bytes at .discr_offset (for a niche layout, bytes of
	 * the data of the default variant). */
	const struct dw_variant *variants;
	size_t n_variants;
	uint64_t discr_offset;
	unsigned discr_size;
	/* C++ struct, class or union: its own name, kept through the
	 * typedefs and qualifiers that rename it ("std::string" and "const
	 * std::string" are both "std::__cxx11::basic_string<char, ...>"),
	 * and its template type arguments, packs flattened (NULL, 0: none). */
	const char *tag_name;
	const struct dw_type *const *targs;
	size_t n_targs;
};

enum dw_loc_kind {
	DW_LOC_REG,          /* the value is in register .reg */
	DW_LOC_MEM_REG,      /* in memory at register .reg + .offset */
	DW_LOC_MEM_CFA,      /* in memory at the frame's CFA + .offset */
	DW_LOC_MEM_ADDR,     /* in memory at module address .offset (add the load bias) */
	DW_LOC_VALUE_REG,    /* the value is register .reg + .offset (DW_OP_stack_value) */
	DW_LOC_CONST,        /* the value is .offset (a constant) */
	DW_LOC_OPTIMIZED_OUT,
	DW_LOC_UNSUPPORTED,  /* a location this version cannot read; .why says which */
	DW_LOC_MEM_EXPR,     /* in memory at the address .expr computes, + .offset */
	DW_LOC_VALUE_EXPR,   /* the value is what .expr computes */
	DW_LOC_PIECES,       /* assembled from .pieces (DW_OP_piece): a struct split
				into registers, a value partly optimized out */
	DW_LOC_IMPLICIT_PTR, /* a pointer the compiler optimized away whose target is
				known (DW_OP_implicit_pointer): it has no value (gdb's
				<synthetic pointer>); what it points to is .offset bytes
				into the value at .target */
};

/* A computed address or value (DW_LOC_MEM_EXPR, DW_LOC_VALUE_EXPR): a tree
 * over what a probe can see - registers, the frame's CFA, the module's
 * load bias and memory - built from a DWARF expression that does not
 * reduce to one of the simple kinds.  Arithmetic is on 64-bit values,
 * wrapping; comparisons give 1 or 0. */
enum dw_expr_op {
	DW_EXPR_CONST,   /* .value */
	DW_EXPR_REG,     /* DWARF register .reg (0..16) */
	DW_EXPR_CFA,     /* the CFA of the probe's frame */
	DW_EXPR_BIAS,    /* load bias of the module (runtime - ELF address) */
	DW_EXPR_DEREF,   /* .size (1..8) bytes read at .a, zero-extended */
	DW_EXPR_ADD, DW_EXPR_SUB, DW_EXPR_MUL, DW_EXPR_DIV, DW_EXPR_MOD,
	DW_EXPR_AND, DW_EXPR_OR, DW_EXPR_XOR,
	DW_EXPR_SHL, DW_EXPR_SHR, DW_EXPR_SHRA,
	DW_EXPR_EQ, DW_EXPR_NE, DW_EXPR_LT, DW_EXPR_GT, DW_EXPR_LE, DW_EXPR_GE, /* signed */
	DW_EXPR_NEG, DW_EXPR_NOT, DW_EXPR_ABS,   /* of .a */
	DW_EXPR_IF,          /* .a non-zero ? .b : .c (only the branch taken reads memory) */
	DW_EXPR_UNAVAILABLE, /* no value: the whole value is <optimized out> when this is taken */
	DW_EXPR_TLS,     /* the current thread's block of the module's thread-local
			  * variables (DW_OP_form_tls_address adds its operand) */
};

struct dw_expr {
	enum dw_expr_op op;
	int reg;
	unsigned size;
	int64_t value;
	const struct dw_expr *a, *b, *c;
};

struct dw_piece;

struct dw_loc {
	enum dw_loc_kind kind;
	int reg;             /* DWARF register number (x86-64: 0 rax ... 16 rip) */
	int64_t offset;
	const char *why;     /* static text for DW_LOC_UNSUPPORTED */
	const struct dw_expr *expr; /* DW_LOC_*_EXPR; borrowed like types */
	/* DW_LOC_REG, DW_LOC_VALUE_*, DW_LOC_CONST: the value starts this many
	 * bits up (a member of a struct held in a register); DW_LOC_PIECES:
	 * the value starts at this bit of what the pieces assemble. */
	uint64_t bit_shift;
	const struct dw_piece *pieces; /* DW_LOC_PIECES, by bit_offset; borrowed */
	size_t n_pieces;
	/* DW_LOC_*_EXPR: the module whose thread-local block DW_EXPR_TLS
	 * means, when it is not the probe's own (a thread-local variable of
	 * another module); NULL for the probe's module. */
	const struct dw_module *tls_module;
	/* GCC marked the value as perhaps not initialized yet
	 * (DW_OP_GNU_uninit): gdb prints a variable's whole value so with
	 * `[uninitialized] ` before it. */
	bool uninit;
	/* DW_LOC_IMPLICIT_PTR: where the pointed-to value is; borrowed */
	const struct dw_loc *target;
	/* The whole value is what the function's caller passed in DWARF
	 * register entry_reg - 1 (DW_OP_entry_value(DW_OP_regN)); 0
	 * otherwise.  The location says it as the callers this module names
	 * (DW_LOC_OPTIMIZED_OUT when none); a frame's return address finds
	 * the one call that did (dw_call_site_value()). */
	unsigned entry_reg;
};

struct dw_piece {
	struct dw_loc loc;       /* any kind but DW_LOC_PIECES; DW_LOC_OPTIMIZED_OUT for
				    bits the compiler did not keep */
	uint64_t bit_offset;     /* the first bit of the value this piece fills */
	uint64_t bit_size;
};

/* Where bits [@bit_pos, @bit_pos + @bit_size) of a value located at
 * @whole are, into @out: the location of a member or element.  Memory
 * locations move by bytes (@bit_pos a multiple of 8 for them); values in
 * registers shift; of pieces, the one piece that holds the bits, or the
 * pieces seen from @bit_pos when several share them, or
 * DW_LOC_OPTIMIZED_OUT when none does.  Borrows from @whole. */
void dw_loc_select(const struct dw_loc *whole, uint64_t bit_pos, uint64_t bit_size, struct dw_loc *out);
/* Which of bits [@lo, @lo + @n) (@n <= 64) of the value at @loc were not
 * kept, bit i for bit @lo + i: between or in empty pieces
 * (DW_OP_piece with no location), or beyond the 64 bits a register or a
 * computed value holds.  0 for memory. */
uint64_t dw_loc_unavailable(const struct dw_loc *loc, uint64_t lo, unsigned n);

enum dw_var_scope {
	DW_VAR_PARAMETER,
	DW_VAR_LOCAL,
	DW_VAR_GLOBAL,
};

struct dw_var {
	const char *name;           /* borrowed from libdw */
	enum dw_var_scope scope;
	struct dw_loc loc;          /* valid at the pc asked for */
	const struct dw_type *type; /* borrowed from the module's type cache */
	bool external;              /* DW_AT_external: other units may name it */
	/* The function whose variable it is when that is not the one the
	 * probe stands in: a call inlined there at the pc, or a function the
	 * probe's is inlined into (dw_var_find_outer); NULL otherwise.
	 * Borrowed from libdw. */
	const char *frame;
	/* dw_frame_vars(), a parameter of a function (not of an inlined
	 * call): the DWARF register it is in at the function's entry, by its
	 * location there, +1; 0 when none (a caller's call site may say what
	 * was passed in it: dw_call_site_value()). */
	unsigned entry_reg;
};

/* Where a probe stands, for the names it sees. */
struct dw_at {
	uint64_t pc;
	/* The DIE offset of the function instance the probe stands in (a
	 * DW_TAG_subprogram or DW_TAG_inlined_subroutine: dw_site.scope), or
	 * 0 for the innermost at pc.  It need not hold pc by its address
	 * ranges: an inlined call may be there at some location views only. */
	uint64_t scope;
	/* The location view at pc (GCC's -gvariable-location-views) the probe
	 * stands at, when known (dw_site.view): variables' location lists
	 * are read at that view. */
	bool has_view;
	unsigned view;
};

/* Find variable @name visible at @pc.  Returns 0, -ENOENT when no variable
 * of that name is visible, or -WR_ENODWARF without debug info.  A global
 * the module only declares (an extern from a header) is -ENOENT: its
 * definition is in another module (dw_var_find_global). */
int dw_var_find(struct dw_module *m, uint64_t pc, const char *name, struct dw_var *out);

/* The same for a probe standing at @at: the names of the function
 * instance it stands in first (its blocks innermost first, then its
 * parameters and locals), then those of the calls inlined into it at the
 * pc (innermost first; out->frame names the call), then its unit's
 * statics and the module's globals. */
int dw_var_find_at(struct dw_module *m, const struct dw_at *at, const char *name, struct dw_var *out);

/* Variable @name of a function the probe's function is inlined into, at
 * @at: the innermost such function that has it (out->frame names it).
 * gdb needs `up` for these.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_var_find_outer(struct dw_module *m, const struct dw_at *at, const char *name, struct dw_var *out);

/* The definition of global variable @name in @m (one with a location or a
 * constant value), as a DW_VAR_GLOBAL; its DW_LOC_MEM_ADDR is relative
 * to @m's load bias.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_var_find_global(struct dw_module *m, const char *name, struct dw_var *out);

/* Names visible at @pc (locals and parameters, innermost first), for
 * error hints and completion.  Calls @fn for each; stops early when it
 * returns non-zero. */
void dw_var_foreach(struct dw_module *m, uint64_t pc, int (*fn)(const struct dw_var *v, void *ctx),
		    void *ctx);
/* The same, in dw_var_find_at()'s order. */
void dw_var_foreach_at(struct dw_module *m, const struct dw_at *at,
		       int (*fn)(const struct dw_var *v, void *ctx), void *ctx);

/* The enumerator @name (an enum constant, as `BLUE` in C), looked up in
 * the compile unit of @pc first, then in every unit: its enum type and its
 * value.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_enumerator_find(struct dw_module *m, uint64_t pc, const char *name, const struct dw_type **type,
		       int64_t *value);

/* The function @name defined in the module (the unit of @pc first): its
 * type (DW_TYPE_FUNCTION, named as gdb names it: "int (int, char **)")
 * and its ELF address.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_function_find(struct dw_module *m, uint64_t pc, const char *name, const struct dw_type **type,
		     uint64_t *vaddr);
/* The variables of one frame's function at @pc, for a backtrace with
 * frame values: @level counts function scopes from the innermost, as
 * dw_symbolize orders a frame's inline chain (0 = the innermost inlined
 * call, the last = the function itself); DW_FRAME_ALL: every one of
 * them, innermost first.  Calls @fn with its parameters
 * (when @params) in declaration order, then its locals (when @locals),
 * innermost block first; stops early when @fn returns non-zero. */
#define DW_FRAME_ALL (~0u)
void dw_frame_vars(struct dw_module *m, uint64_t pc, unsigned level, bool params, bool locals,
		   int (*fn)(const struct dw_var *v, void *ctx), void *ctx);

/* ---- types by name, for cast() ---- */

/* C's arithmetic types and void as x86-64 lays them out, by the names
 * gdb gives them ("unsigned long", "long double", "_Bool", "bool") or
 * the short ones of kernel code (u8 ... u64, i8 ... i64): static, so
 * that a cast to one needs no debug info.  NULL for any other name. */
const struct dw_type *dw_type_builtin(const char *name);

/* The type module @m itself defines as @name: a struct, union, enum or
 * class spelled with its keyword ("struct node"; C++ names it without),
 * or a typedef, base type or C++ class by its name ("uint32_t").  Only
 * a definition counts (a type @m merely declares is NULL); NULL too
 * without debug info. */
const struct dw_type *dw_type_named(struct dw_module *m, const char *name);

/* A type made for a cast and kept in @m's cache: a pointer to @target
 * (@kind DW_TYPE_POINTER), an array of @count @target
 * (DW_TYPE_ARRAY), or a function returning @target
 * (DW_TYPE_FUNCTION, its parameters in its name only); named @name
 * (copied). */
const struct dw_type *dw_type_derived(struct dw_module *m, enum dw_type_kind kind,
				      const struct dw_type *target, uint64_t count, const char *name);
/* @t under the name @name (copied), kept in @m's cache: a qualified
 * type, "const volatile struct node". */
const struct dw_type *dw_type_renamed(struct dw_module *m, const struct dw_type *t, const char *name);

/* Are @a and @b the same type: kind, size, signedness, name, and member
 * by member (names, offsets, bitfields, types), enumerator by enumerator,
 * element by element?  What pointers point to compares by name.  Two
 * modules' definitions of one type name compare so. */
bool dw_type_same(const struct dw_type *a, const struct dw_type *b);

/* The call that returns to @return_pc (an address of @m: a frame's
 * return address less the module's bias), by its call site
 * (DW_TAG_call_site): what it calls and what it passed in one register.
 * Locations are in the caller's frame (its registers and CFA). */
struct dw_call_site {
	/* A direct call: the called function's linkage name, else its name
	 * (borrowed); NULL for a call through a pointer. */
	const char *callee;
	/* A call through a pointer: the address it called, as a value;
	 * DW_LOC_OPTIMIZED_OUT when the call site does not say. */
	struct dw_loc target;
	struct dw_loc value;   /* what it passed in the register */
};
/* The call site returning to @return_pc and what it passed in DWARF
 * register @reg.  Returns 0, or -ENOENT when no call site there says. */
int dw_call_site_value(struct dw_module *m, uint64_t return_pc, int reg, struct dw_call_site *out);

/* The function (not an inlined call) whose code holds @pc: its linkage
 * name, else its name (borrowed), and its entry address.  False when
 * none does. */
bool dw_function_at(struct dw_module *m, uint64_t pc, const char **key, uint64_t *entry);

/* The complete definition of aggregate @spelling ("struct lua_State",
 * "union u", "enum e") in @m itself, or NULL. */
const struct dw_type *dw_type_find_complete(struct dw_module *m, const char *spelling);

/* How a module completes a type it only declares when it has no
 * definition of its own: @fn looks in other modules (of the same process)
 * and returns a complete type, or NULL.  It must not call back into
 * @asking.  Set once, before any type is built. */
typedef const struct dw_type *(*dw_type_resolver)(void *ctx, struct dw_module *asking,
						  const char *spelling);
void dw_module_set_type_resolver(struct dw_module *m, dw_type_resolver fn, void *ctx);

/* The type "pointer to @target", made once per target and cached in @m
 * (valid until dw_module_free()).  @target must be a type of @m or a
 * static one.  Named as C spells it: "int *", "int (*)[4]". */
const struct dw_type *dw_type_pointer(struct dw_module *m, const struct dw_type *target);

/* The variant Rust enum @t holds in its bytes @data (@len of them), or NULL
 * when the discriminant is not within them or selects none. */
const struct dw_variant *dw_type_variant(const struct dw_type *t, const uint8_t *data, size_t len);

/* Whether @t is a Rust tuple or tuple struct: its members are __0, __1... */
bool dw_type_is_tuple(const struct dw_type *t);

/* The member @name of struct/union @t (looking into anonymous members), or
 * NULL.  *offset receives its offset from the start of @t. */
const struct dw_member *dw_type_member(const struct dw_type *t, const char *name, uint64_t *offset);

/* Typedefs and const/volatile types are stored as copies of the type
 * underneath that only differ in name ("uint32_t", "const char"), so
 * nothing needs stripping.  True for types whose value is an integer in
 * the script (int, bool, enum, char, pointer). */
bool dw_type_is_scalar(const struct dw_type *t);

#endif
