/* location.h - where a value of the traced program is at a pc: struct
 * dw_loc (a register, memory at a register, the CFA or a module address
 * plus an offset, a constant, a computed expression over what a probe can
 * see, pieces, an implicit pointer, a caller's entry value), as
 * location.c reduces DWARF location expressions to them.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 * Plain types, so the IR generator and frame values read locations
 * without seeing libdw.  Expression trees and pieces are borrowed like
 * types: valid until dw_module_free().
 */
#ifndef WRAITH_DWARF_LOCATION_H
#define WRAITH_DWARF_LOCATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

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
	DW_EXPR_UNREADABLE,  /* no value: a register a probe cannot read holds it (xmm0):
			      * the whole value is <unavailable> when this is taken */
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
	/* DW_LOC_UNSUPPORTED: the whole value is in DWARF register
	 * unreadable_reg - 1, which a probe cannot read (a vector or x87
	 * register: xmm0 holds a double), or, with unreadable_computed, is
	 * computed from it (GCC's int k = (int)x as x in xmm0 converted);
	 * 0 otherwise.  gdb reads it with ptrace; a probe shows
	 * <unavailable>. */
	unsigned unreadable_reg;
	bool unreadable_computed;
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

#endif
