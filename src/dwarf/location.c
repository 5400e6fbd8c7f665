/* location.c - where a variable is at a pc: DWARF location expressions
 * turned into the shapes a probe can read (see location.h).
 *
 * A location expression is run symbolically: the DWARF stack holds trees
 * (struct dw_expr) over the probe's registers, the frame's CFA, the
 * module's load bias and memory reads instead of numbers, so whatever the
 * expression computes, the probe can compute too.  The result is then
 * reduced to the simple kinds older code knows (a register, memory at
 * register + offset, at CFA + offset, at a module address, a constant)
 * when it has one of those shapes, and handed out as a tree otherwise.
 *
 * Operands are read through libdw, which resolves DWARF 5's indirect
 * forms (DW_OP_addrx, DW_OP_constx through .debug_addr; location lists in
 * any form through dwarf_getlocation_addr).  What a probe cannot see is
 * reported precisely rather than guessed: vector and x87 registers (a
 * uprobe's pt_regs has only the general-purpose ones), thread-local
 * storage, and the operations this version does not evaluate yet.
 */
#include "arch/x86_64.h"
#include "dwarf/location.h"
#include "dwarf/tailcall.h"
#include "dwarf/vars_priv.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACK 64

struct eval {
	struct vars_cache *c;
	const struct dw_loc *implicit_ptr; /* DW_OP_implicit_pointer: the target; offset in imm */
	Dwarf_Attribute *attr;      /* NULL for CFI expressions */
	const struct vars_frame *f; /* what registers, the CFA and the frame base mean */
	const struct dw_expr *stack[MAX_STACK];
	int sp;
	int reg;            /* DW_OP_regN: the value is in this register; -1 */
	bool value;         /* DW_OP_stack_value: the top is the value, not its address */
	bool implicit;      /* DW_OP_implicit_value: the value is .imm */
	int64_t imm;
	const char *why;    /* set when the expression cannot be evaluated */
	bool gone;          /* the value is known to be lost: optimized out */
	const struct dw_loc *implicit_whole; /* DW_OP_implicit_value of more than 8 bytes */
	unsigned entry_reg; /* the first operation is DW_OP_entry_value(DW_OP_regN): N + 1 */
	unsigned unreadable_reg; /* a register the probe cannot read was named: N + 1 */
	unsigned nesting;   /* implicit pointers followed to get here */
};

/* ---- trees ---- */

static const struct dw_expr *node(struct vars_cache *c, enum dw_expr_op op, const struct dw_expr *a,
				  const struct dw_expr *b)
{
	struct dw_expr *e = vars_own(c, xcalloc(1, sizeof(*e)));

	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

static const struct dw_expr *konst(struct vars_cache *c, int64_t v)
{
	struct dw_expr *e = vars_own(c, xcalloc(1, sizeof(*e)));

	e->op = DW_EXPR_CONST;
	e->value = v;
	return e;
}

static const struct dw_expr *reg_node(struct vars_cache *c, int reg)
{
	struct dw_expr *e = vars_own(c, xcalloc(1, sizeof(*e)));

	e->op = DW_EXPR_REG;
	e->reg = reg;
	return e;
}

const struct dw_expr *vars_expr_const(struct vars_cache *c, int64_t v)
{
	return konst(c, v);
}

const struct dw_expr *vars_expr_reg(struct vars_cache *c, int reg)
{
	return reg_node(c, reg);
}

const struct dw_expr *vars_expr_cfa(struct vars_cache *c)
{
	return node(c, DW_EXPR_CFA, NULL, NULL);
}

const struct dw_expr *vars_expr_deref(struct vars_cache *c, const struct dw_expr *addr, unsigned size)
{
	struct dw_expr *e = vars_own(c, xcalloc(1, sizeof(*e)));

	e->op = DW_EXPR_DEREF;
	e->size = size;
	e->a = addr;
	return e;
}

/* @e as base + constant offset (base NULL for a plain constant). */
static const struct dw_expr *split_offset(const struct dw_expr *e, int64_t *off)
{
	*off = 0;
	if (e->op == DW_EXPR_CONST) {
		*off = e->value;
		return NULL;
	}
	if (e->op == DW_EXPR_ADD && e->b->op == DW_EXPR_CONST) {
		*off = e->b->value;
		return e->a;
	}
	return e;
}

/* a + b, folding constants so simple shapes stay recognisable. */
static const struct dw_expr *add(struct vars_cache *c, const struct dw_expr *a, const struct dw_expr *b)
{
	int64_t ka, kb;
	const struct dw_expr *ba, *bb;

	if (a->op == DW_EXPR_CONST && b->op != DW_EXPR_CONST) {
		const struct dw_expr *t = a;

		a = b;
		b = t;
	}
	ba = split_offset(a, &ka);
	bb = split_offset(b, &kb);
	if (!bb) {
		int64_t k = (int64_t)((uint64_t)ka + (uint64_t)kb);

		if (!ba)
			return konst(c, k);
		return k ? node(c, DW_EXPR_ADD, ba, konst(c, k)) : ba;
	}
	return node(c, DW_EXPR_ADD, a, b);
}

const struct dw_expr *vars_expr_add(struct vars_cache *c, const struct dw_expr *a, int64_t k)
{
	return add(c, a, konst(c, k));
}

const struct dw_expr *vars_expr_if(struct vars_cache *c, const struct dw_expr *cond,
				   const struct dw_expr *then, const struct dw_expr *otherwise)
{
	struct dw_expr *e = vars_own(c, xcalloc(1, sizeof(*e)));

	e->op = DW_EXPR_IF;
	e->a = cond;
	e->b = then;
	e->c = otherwise;
	return e;
}

/* ---- registers ---- */

/* What a probe cannot read, by DWARF register number (x86-64 psABI). */
static const char *unreadable_register(int reg)
{
	if ((reg >= X86_DWARF_XMM0 && reg <= X86_DWARF_XMM15) ||
	    (reg >= X86_DWARF_XMM16 && reg <= X86_DWARF_XMM31))
		return "the value is in a vector register (xmm/ymm), which a uprobe cannot read: "
		       "a probe sees only the general-purpose registers";
	if (reg >= X86_DWARF_ST0 && reg <= X86_DWARF_ST7)
		return "the value is in an x87 floating-point register, which a uprobe cannot read";
	if (reg >= X86_DWARF_MM0 && reg <= X86_DWARF_MM7)
		return "the value is in an MMX register, which a uprobe cannot read";
	return "the value is in a register a uprobe cannot read";
}

static bool readable(struct eval *ev, int reg)
{
	if (reg >= 0 && reg < X86_DWARF_NREGS)
		return true;
	ev->why = unreadable_register(reg);
	if (reg >= 0)
		ev->unreadable_reg = (unsigned)reg + 1;
	return false;
}

/* ---- the stack machine ---- */

static bool push(struct eval *ev, const struct dw_expr *e)
{
	if (ev->sp == MAX_STACK) {
		ev->why = "the location expression is too deep";
		return false;
	}
	ev->stack[ev->sp++] = e;
	return true;
}

static const struct dw_expr *pop(struct eval *ev)
{
	if (ev->sp == 0) {
		ev->why = "the location expression is malformed (stack underflow)";
		return NULL;
	}
	return ev->stack[--ev->sp];
}

static bool binary(struct eval *ev, enum dw_expr_op op)
{
	const struct dw_expr *b = pop(ev), *a = b ? pop(ev) : NULL;

	if (!a)
		return false;
	return push(ev, op == DW_EXPR_ADD ? add(ev->c, a, b) : node(ev->c, op, a, b));
}

static bool unary(struct eval *ev, enum dw_expr_op op)
{
	const struct dw_expr *a = pop(ev);

	return a && push(ev, node(ev->c, op, a, NULL));
}

static bool deref(struct eval *ev, unsigned size)
{
	const struct dw_expr *a = pop(ev);

	if (!a)
		return false;
	if (size == 0 || size > 8) {
		ev->why = "the location expression reads an unusual size";
		return false;
	}
	return push(ev, vars_expr_deref(ev->c, a, size));
}

/* @depth is DW_OP_pick's operand as read: any 64-bit value (found by
 * tests/fuzz/fuzz_loc). */
static bool pick(struct eval *ev, uint64_t depth)
{
	if (ev->sp <= 0 || depth >= (uint64_t)ev->sp) {
		ev->why = "the location expression is malformed (stack underflow)";
		return false;
	}
	return push(ev, ev->stack[ev->sp - 1 - (int)depth]);
}

/* The operand of an indexed operation (DW_OP_addrx, DW_OP_constx), which
 * lives in .debug_addr. */
static bool indexed(struct eval *ev, Dwarf_Op *op, Dwarf_Addr *out)
{
	Dwarf_Attribute a;

	if (dwarf_getlocation_attr(ev->attr, op, &a) != 0 || dwarf_formaddr(&a, out) != 0) {
		ev->why = "an address index of the location cannot be resolved";
		return false;
	}
	return true;
}

static bool implicit_value(struct eval *ev, Dwarf_Op *op)
{
	Dwarf_Block b;
	uint64_t v = 0;

	if (dwarf_getlocation_implicit_value(ev->attr, op, &b) != 0) {
		ev->why = "the constant value of the location cannot be read";
		return false;
	}
	if (b.length > 8) { /* a whole value of its own: pieces */
		struct dw_loc *t = vars_own(ev->c, xcalloc(1, sizeof(*t)));

		vars_const_bytes(ev->c, b.data, b.length, t);
		ev->implicit_whole = t;
		ev->implicit = true;
		return true;
	}
	for (size_t i = b.length; i-- > 0;)
		v = v << 8 | b.data[i];
	ev->implicit = true;
	ev->imm = (int64_t)v;
	return true;
}

/* Implicit pointers followed while locating their targets (a target may
 * be an implicit pointer in turn). */
static __thread unsigned implicit_depth;

/* DW_OP_implicit_pointer: a pointer optimized away, to the value of the
 * DIE it names (its location or constant value, at the same pc), at the
 * operation's byte offset into it. */
static bool implicit_pointer(struct eval *ev, Dwarf_Op *op)
{
	struct dw_loc *t;
	Dwarf_Die die;

	if (!ev->attr || implicit_depth >= 4 || dwarf_getlocation_die(ev->attr, op, &die) != 0) {
		ev->why = "it points to a value that has no address (DW_OP_implicit_pointer), "
			  "whose target cannot be found";
		return false;
	}
	t = vars_own(ev->c, xcalloc(1, sizeof(*t)));
	implicit_depth++;
	vars_locate_die(ev->c, &die, ev->f->pc, ev->f, t);
	implicit_depth--;
	ev->implicit_ptr = t;
	ev->imm = (int64_t)op->number2;
	ev->implicit = true;
	return true;
}

void vars_const_bytes(struct vars_cache *c, const uint8_t *data, size_t len, struct dw_loc *out)
{
	struct dw_piece *p;
	size_t n = (len + 7) / 8;

	memset(out, 0, sizeof(*out));
	if (len <= 8) {
		uint64_t v = 0;

		for (size_t i = len; i-- > 0;)
			v = v << 8 | data[i];
		out->kind = DW_LOC_CONST;
		out->offset = (int64_t)v;
		return;
	}
	p = vars_own(c, xcalloc(n, sizeof(*p)));
	for (size_t k = 0; k < n; k++) {
		size_t at = k * 8, m = len - at < 8 ? len - at : 8;

		vars_const_bytes(c, data + at, m, &p[k].loc);
		p[k].bit_offset = at * 8;
		p[k].bit_size = m * 8;
	}
	out->kind = DW_LOC_PIECES;
	out->pieces = p;
	out->n_pieces = n;
}

/* ---- typed values (DWARF 5 DW_OP_convert and its kin) ---- */

/* The base type an operation names: its size and signedness.  Type 0 is
 * the generic type (an address-sized integer).  False for a float, whose
 * conversions a probe does not do. */
static bool op_type(struct eval *ev, Dwarf_Op *op, Dwarf_Word type_off, unsigned *size, bool *sign)
{
	Dwarf_Die die;
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned, bytes = 8;

	*size = 8;
	*sign = false;
	if (type_off == 0)
		return true;
	if (dwarf_getlocation_die(ev->attr, op, &die) != 0) {
		ev->why = "the location names a type that cannot be read";
		return false;
	}
	dwarf_formudata(dwarf_attr(&die, DW_AT_encoding, &a), &enc);
	dwarf_formudata(dwarf_attr(&die, DW_AT_byte_size, &a), &bytes);
	if (enc == DW_ATE_float || bytes == 0 || bytes > 8) {
		ev->why = "the value is computed in floating point or wider than 64 bits, which a probe "
			  "does not do";
		return false;
	}
	*size = (unsigned)bytes;
	*sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return true;
}

/* @x seen as a @size-byte integer, widened back to 64 bits. */
static const struct dw_expr *narrow(struct vars_cache *c, const struct dw_expr *x, unsigned size, bool sign)
{
	unsigned shift = 64 - 8 * size;

	if (size >= 8)
		return x;
	if (!sign)
		return node(c, DW_EXPR_AND, x, konst(c, (int64_t)((1ull << (8 * size)) - 1)));
	return node(c, DW_EXPR_SHRA, node(c, DW_EXPR_SHL, x, konst(c, shift)), konst(c, shift));
}

static bool convert(struct eval *ev, Dwarf_Op *op, Dwarf_Word type_off)
{
	unsigned size;
	bool sign;
	const struct dw_expr *x;

	if (!op_type(ev, op, type_off, &size, &sign) || !(x = pop(ev)))
		return false;
	return push(ev, narrow(ev->c, x, size, sign));
}

static bool regval_type(struct eval *ev, Dwarf_Op *op)
{
	return readable(ev, (int)op->number) && push(ev, reg_node(ev->c, (int)op->number)) &&
	       convert(ev, op, op->number2);
}

/* DW_OP_const_type: a constant of a base type, its bytes as they are (a
 * double 2.5 a call site passes in xmm0 is the bits of 2.5, which the
 * variable's own type reads).  libdw leaves the constant's block (its
 * length byte, then the bytes) in the attribute's data, which operand 2
 * points to: without the attribute there is no block to trust. */
static bool const_type(struct eval *ev, Dwarf_Op *op)
{
	const unsigned char *block = (const unsigned char *)(uintptr_t)op->number2;
	uint64_t bits = 0;

	if (!ev->attr || !block) {
		ev->why = "the location's typed constant cannot be read";
		return false;
	}
	if (block[0] == 0 || block[0] > 8) {
		ev->why = "the location holds a typed constant wider than 64 bits, which a probe "
			  "does not do";
		return false;
	}
	memcpy(&bits, block + 1, block[0]); /* little-endian, as the target */
	return push(ev, konst(ev->c, (int64_t)bits));
}

static bool deref_type(struct eval *ev, Dwarf_Op *op)
{
	unsigned size;
	bool sign;

	return op_type(ev, op, op->number2, &size, &sign) && deref(ev, (unsigned)op->number) &&
	       push(ev, narrow(ev->c, pop(ev), (unsigned)op->number, sign));
}

/* Register @reg's value, as the frame sees it: the probe's own register,
 * or (evaluating what a caller passed) the caller's. */
static const struct dw_expr *reg_value(struct eval *ev, int reg)
{
	const struct dw_expr *r;

	if (!readable(ev, reg))
		return NULL;
	if (!ev->f->caller_reg)
		return reg_node(ev->c, reg);
	r = ev->f->caller_reg(ev->c, ev->f, reg);
	if (!r)
		ev->why = "the caller kept it in a register the call does not preserve";
	return r;
}

static bool reg_location(struct eval *ev, int reg)
{
	const struct dw_expr *r;

	if (!ev->f->caller_reg) {
		if (!readable(ev, reg))
			return false;
		ev->reg = reg;
		return true;
	}
	r = reg_value(ev, reg); /* a caller's value: the register's contents */
	ev->value = true;
	return r && push(ev, r);
}

static bool breg(struct eval *ev, int reg, int64_t off)
{
	const struct dw_expr *r = reg_value(ev, reg);

	return r && push(ev, add(ev->c, r, konst(ev->c, off)));
}

static bool frame_relative(struct eval *ev, int64_t off)
{
	if (!ev->f->fb) {
		ev->why = "the function's frame base cannot be computed";
		return false;
	}
	return push(ev, add(ev->c, ev->f->fb, konst(ev->c, off)));
}

static bool frame_cfa(struct eval *ev)
{
	if (!ev->f->cfa) {
		ev->why = "the caller's frame cannot be found from here";
		return false;
	}
	return push(ev, ev->f->cfa);
}

/* Address @a of the frame's module: the probe's load bias locates it,
 * plus how far the frame's module lies from the probe's. */
static bool address(struct eval *ev, Dwarf_Addr a)
{
	return push(ev, add(ev->c, node(ev->c, DW_EXPR_BIAS, NULL, NULL),
			    konst(ev->c, (int64_t)(a + (uint64_t)ev->f->bias_delta))));
}

static bool constant(Dwarf_Op *op, int64_t *v)
{
	switch (op->atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu: case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		*v = (int64_t)op->number;
		return true;
	default:
		if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
			*v = op->atom - DW_OP_lit0;
			return true;
		}
		return false;
	}
}

static int binary_op(uint8_t atom)
{
	switch (atom) {
	case DW_OP_plus: return DW_EXPR_ADD;
	case DW_OP_minus: return DW_EXPR_SUB;
	case DW_OP_mul: return DW_EXPR_MUL;
	case DW_OP_div: return DW_EXPR_DIV;
	case DW_OP_mod: return DW_EXPR_MOD;
	case DW_OP_and: return DW_EXPR_AND;
	case DW_OP_or: return DW_EXPR_OR;
	case DW_OP_xor: return DW_EXPR_XOR;
	case DW_OP_shl: return DW_EXPR_SHL;
	case DW_OP_shr: return DW_EXPR_SHR;
	case DW_OP_shra: return DW_EXPR_SHRA;
	case DW_OP_eq: return DW_EXPR_EQ;
	case DW_OP_ne: return DW_EXPR_NE;
	case DW_OP_lt: return DW_EXPR_LT;
	case DW_OP_gt: return DW_EXPR_GT;
	case DW_OP_le: return DW_EXPR_LE;
	case DW_OP_ge: return DW_EXPR_GE;
	default: return -1;
	}
}

/* Why an operation this evaluator does not run is refused. */
static const char *refusal(uint8_t atom)
{
	(void)atom;
	return "a DWARF location expression this version cannot evaluate";
}

/* Whether a caller may say what the function of ev's frame had on entry:
 * not when its tail calls could lead back to it, as gdb rules
 * (dw_tailcall_entry_values()). */
static bool tail_calls_allow(struct eval *ev)
{
	Dwarf_Addr entry;

	return dw_die_entry_pc(ev->f->fn, &entry) && dw_tailcall_entry_values(ev->c->m, entry);
}

/* DW_OP_entry_value(DW_OP_regN) of a frame whose entry values its
 * caller gives (vars_frame.entry). */
static bool entry_given(struct eval *ev, int reg)
{
	uint64_t v;

	if (!ev->f->entry->value(ev->f->entry->ctx, reg, &v)) {
		ev->why = "only the value it had on entry to the function is known, and no caller says it";
		ev->gone = true;
		return false;
	}
	return push(ev, konst(ev->c, (int64_t)v));
}

/* The register DW_OP_entry_value's operand @op names: DW_OP_regN, or
 * GCC's DW_OP_regval_type of a float in an SSE register (the register's
 * low bits, which is what a call site passes there); -1 for another. */
static int entry_register(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx || op->atom == DW_OP_regval_type || op->atom == DW_OP_GNU_regval_type)
		return op->number <= 31 ? (int)op->number : -1;
	return -1;
}

static bool push_passed(struct eval *ev, struct vars_call_site *sites, size_t ns,
			const struct dw_expr *none);

/* The value is known to be lost, for @why: false, as a step that fails. */
static bool lost(struct eval *ev, const char *why)
{
	ev->why = why;
	ev->gone = true;
	return false;
}

/* DW_OP_entry_value(DW_OP_regN): what the function's callers passed in
 * register N (entryval.c).  When no caller says, the value is gone. */
static bool entry_value(struct eval *ev, Dwarf_Op *op)
{
	int reg;
	struct vars_call_site *sites;
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n, ns;

	if (!ev->f->fn || !ev->attr || dwarf_getlocation_attr(ev->attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1 || (reg = entry_register(&ops[0])) < 0) {
		ev->why = "only the value it had on entry to the function is known, and that is gone";
		ev->gone = true;
		return false;
	}
	/* what userspace finds from a copy of the general-purpose registers */
	if (ev->sp == 0 && reg < X86_DWARF_NREGS)
		ev->entry_reg = (unsigned)reg + 1;
	if (ev->f->entry) /* the frame's caller says (or nothing does) */
		return entry_given(ev, reg);
	if (!tail_calls_allow(ev))
		return lost(ev, "only the value it had on entry to the function is known, and its tail "
				"calls could lead back to it, so no caller can say it");
	/* a caller's entry values fan out once more per call site: fewer */
	sites = xcalloc(MAX_CALLERS, sizeof(*sites));
	ns = vars_call_sites(ev->c, ev->f->fn, reg, sites,
			     ev->f->depth ? MAX_NESTED_CALLERS : MAX_CALLERS);
	/* the probe's own callers in the other modules of its process */
	if (!ev->f->depth)
		ns = vars_foreign_call_sites(ev->c, ev->f->fn, reg, sites, ns, MAX_CALLERS);
	return push_passed(ev, sites, ns, node(ev->c, DW_EXPR_UNAVAILABLE, NULL, NULL));
}

/* What the one of call sites @sites (@ns of them, freed here) that made
 * the frame's call passed, pushed: a tree that takes the frame's return
 * address, at its CFA - 8, to the call site of that return address, and
 * is @none when none is.  False (gone) when no call site says. */
static bool push_passed(struct eval *ev, struct vars_call_site *sites, size_t ns,
			const struct dw_expr *none)
{
	const struct dw_expr *r = NULL, *ra;

	ra = ev->f->cfa ? vars_expr_deref(ev->c, add(ev->c, ev->f->cfa, konst(ev->c, -8)), 8) : NULL;
	for (size_t i = ns; ra && i-- > 0;) {
		const struct dw_expr *v = vars_caller_value(ev->c, &sites[i], ev->f), *here;

		if (!v)
			continue;
		here = node(ev->c, DW_EXPR_EQ, ra,
			    add(ev->c, node(ev->c, DW_EXPR_BIAS, NULL, NULL),
				konst(ev->c, (int64_t)(sites[i].return_pc + (uint64_t)sites[i].bias_delta))));
		r = vars_expr_if(ev->c, here, v, r ? r : none);
	}
	free(sites);
	if (!r) {
		ev->why = "only the value it had on entry to the function is known, and no caller says it";
		ev->gone = true;
		return false;
	}
	return push(ev, r);
}

/* DW_OP_GNU_parameter_ref: what the callers passed for a parameter of a
 * clone GCC made (.constprop.0, .part.0) that is passed in no register:
 * each call site names the parameter's DIE (DW_AT_call_parameter) and
 * gives its value, as gdb reads it (an entry value keyed by the DIE).
 * The probe's own module only: a clone is local to it. */
static bool parameter_ref(struct eval *ev, Dwarf_Op *op)
{
	struct vars_call_site *sites;
	Dwarf_Die param;

	if (!ev->f->fn || !ev->attr || ev->f->entry || dwarf_getlocation_die(ev->attr, op, &param) != 0)
		return lost(ev, "the function was compiled without this parameter "
				"(DW_OP_GNU_parameter_ref), and no caller says it");
	if (!tail_calls_allow(ev))
		return lost(ev, "only the value its callers passed is known, and its tail calls could "
				"lead back to it, so no caller can say it");
	sites = xcalloc(MAX_CALLERS, sizeof(*sites));
	return push_passed(ev, sites,
			   vars_call_sites_param(ev->c, ev->f->fn, dwarf_dieoffset(&param), sites,
						 ev->f->depth ? MAX_NESTED_CALLERS : MAX_CALLERS),
			   node(ev->c, DW_EXPR_UNAVAILABLE, NULL, NULL));
}

/* A value wholly in DWARF register @reg, which a probe cannot read (xmm0),
 * at the first instruction of the probe's own function: nothing of the
 * function ran (no jump of its own lands there: a loop's head), so the
 * register still holds what the call that entered it passed there,
 * which that call site says (gdb reads the register).
 * Into @out as the callers' values, <unavailable> where no caller says;
 * false when none can (the value stays a register it cannot read). */
static bool unreadable_at_entry(struct eval *ev, int reg, struct dw_loc *out)
{
	struct vars_call_site *sites;
	Dwarf_Addr entry;
	size_t ns;

	if (!ev->f->fn || ev->f->depth || ev->f->entry || ev->f->module || !dw_die_entry_pc(ev->f->fn, &entry) ||
	    entry != ev->f->pc || !dw_entry_only_called(ev->c->m, entry) || !tail_calls_allow(ev))
		return false;
	sites = xcalloc(MAX_CALLERS, sizeof(*sites));
	ns = vars_call_sites(ev->c, ev->f->fn, reg, sites, MAX_CALLERS);
	ns = vars_foreign_call_sites(ev->c, ev->f->fn, reg, sites, ns, MAX_CALLERS);
	ev->sp = 0;
	if (!push_passed(ev, sites, ns, node(ev->c, DW_EXPR_UNREADABLE, NULL, NULL)))
		return false;
	memset(out, 0, sizeof(*out));
	out->kind = DW_LOC_VALUE_EXPR;
	out->expr = ev->stack[0];
	out->unreadable_reg = (unsigned)reg + 1;
	return true;
}

/* Runs one operation; false (with ev->why) when it cannot. */
static bool step(struct eval *ev, Dwarf_Op *op)
{
	uint8_t a = op->atom;
	int64_t v;
	int bop;
	Dwarf_Addr addr;
	const struct dw_expr *x, *y, *z;

	if (constant(op, &v))
		return push(ev, konst(ev->c, v));
	if ((bop = binary_op(a)) >= 0)
		return binary(ev, (enum dw_expr_op)bop);
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		return reg_location(ev, a - DW_OP_reg0);
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return breg(ev, a - DW_OP_breg0, (int64_t)op->number);
	switch (a) {
	case DW_OP_regx: return reg_location(ev, (int)op->number);
	case DW_OP_bregx: return breg(ev, (int)op->number, (int64_t)op->number2);
	case DW_OP_fbreg: return frame_relative(ev, (int64_t)op->number);
	case DW_OP_call_frame_cfa: return frame_cfa(ev);
	case DW_OP_addr: return address(ev, op->number);
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index: return indexed(ev, op, &addr) && address(ev, addr);
	case DW_OP_constx:
	case DW_OP_GNU_const_index: return indexed(ev, op, &addr) && push(ev, konst(ev->c, (int64_t)addr));
	case DW_OP_form_tls_address:
	case DW_OP_GNU_push_tls_address:
		x = pop(ev);
		return x && push(ev, add(ev->c, node(ev->c, DW_EXPR_TLS, NULL, NULL), x));
	case DW_OP_plus_uconst: return push(ev, konst(ev->c, (int64_t)op->number)) && binary(ev, DW_EXPR_ADD);
	case DW_OP_neg: return unary(ev, DW_EXPR_NEG);
	case DW_OP_not: return unary(ev, DW_EXPR_NOT);
	case DW_OP_abs: return unary(ev, DW_EXPR_ABS);
	case DW_OP_deref: return deref(ev, 8);
	case DW_OP_deref_size: return deref(ev, (unsigned)op->number);
	case DW_OP_dup: return pick(ev, 0);
	case DW_OP_over: return pick(ev, 1);
	case DW_OP_pick: return pick(ev, op->number);
	case DW_OP_drop: return pop(ev) != NULL;
	case DW_OP_swap:
		x = pop(ev);
		y = x ? pop(ev) : NULL;
		return y && push(ev, x) && push(ev, y);
	case DW_OP_rot:
		x = pop(ev);
		y = x ? pop(ev) : NULL;
		z = y ? pop(ev) : NULL;
		return z && push(ev, x) && push(ev, z) && push(ev, y);
	case DW_OP_convert:
	case DW_OP_GNU_convert: return convert(ev, op, op->number);
	case DW_OP_reinterpret:
	case DW_OP_GNU_reinterpret: return convert(ev, op, op->number);
	case DW_OP_regval_type:
	case DW_OP_GNU_regval_type: return regval_type(ev, op);
	case DW_OP_deref_type:
	case DW_OP_GNU_deref_type: return deref_type(ev, op);
	case DW_OP_const_type:
	case DW_OP_GNU_const_type: return const_type(ev, op);
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value: return entry_value(ev, op);
	case DW_OP_GNU_parameter_ref: return parameter_ref(ev, op);
	case DW_OP_stack_value: ev->value = true; return true;
	case DW_OP_implicit_value: return implicit_value(ev, op);
	case DW_OP_implicit_pointer:
	case DW_OP_GNU_implicit_pointer: return implicit_pointer(ev, op);
	case DW_OP_nop:
	case DW_OP_GNU_uninit: return true;
	default:
		ev->why = refusal(a);
		return false;
	}
}

static void unsupported(struct dw_loc *out, const char *why)
{
	out->kind = DW_LOC_UNSUPPORTED;
	out->why = why;
}

/* The result of a finished evaluation, in the simplest kind that says it. */
static void finish(struct eval *ev, struct dw_loc *out)
{
	const struct dw_expr *top, *base;
	int64_t off;

	if (ev->implicit_whole) {
		*out = *ev->implicit_whole;
		return;
	}
	if (ev->implicit_ptr) {
		out->kind = DW_LOC_IMPLICIT_PTR;
		out->target = ev->implicit_ptr;
		out->offset = ev->imm;
		return;
	}
	if (ev->reg >= 0 || ev->implicit) {
		out->kind = ev->reg >= 0 ? DW_LOC_REG : DW_LOC_CONST;
		out->reg = ev->reg;
		out->offset = ev->imm;
		return;
	}
	if (ev->sp == 0) {
		out->kind = DW_LOC_OPTIMIZED_OUT;
		return;
	}
	top = ev->stack[ev->sp - 1];
	base = split_offset(top, &off);
	out->offset = off;
	if (ev->value) {
		out->kind = !base ? DW_LOC_CONST : base->op == DW_EXPR_REG ? DW_LOC_VALUE_REG : DW_LOC_VALUE_EXPR;
	} else if (base && base->op == DW_EXPR_REG) {
		out->kind = DW_LOC_MEM_REG;
	} else if (base && base->op == DW_EXPR_CFA) {
		out->kind = DW_LOC_MEM_CFA;
	} else if (base && base->op == DW_EXPR_BIAS) {
		out->kind = DW_LOC_MEM_ADDR;
	} else {
		out->kind = DW_LOC_MEM_EXPR;
	}
	if (base && base->op == DW_EXPR_REG)
		out->reg = base->reg;
	if (out->kind == DW_LOC_MEM_EXPR || out->kind == DW_LOC_VALUE_EXPR) {
		out->expr = top;
		out->offset = 0;
	}
}

static bool is_piece(const Dwarf_Op *op)
{
	return op->atom == DW_OP_piece || op->atom == DW_OP_bit_piece;
}

/* Ends the piece @op closes: what was evaluated since the last piece
 * becomes piece @p (an empty piece is bits the compiler did not keep). */
static bool end_piece(struct eval *ev, const Dwarf_Op *op, uint64_t *pos, struct dw_piece *p)
{
	uint64_t bits = op->atom == DW_OP_piece ? op->number * 8 : op->number;

	memset(p, 0, sizeof(*p));
	finish(ev, &p->loc);
	if (op->atom == DW_OP_bit_piece && op->number2)
		dw_loc_select(&p->loc, op->number2, bits, &p->loc);
	p->bit_offset = *pos;
	p->bit_size = bits;
	*pos += bits;
	ev->sp = 0;
	ev->reg = -1;
	ev->value = ev->implicit = false;
	ev->implicit_whole = ev->implicit_ptr = NULL;
	return bits > 0;
}

/* A location made of pieces: every piece is evaluated on its own. */
static void evaluate_pieces(struct eval *ev, Dwarf_Op *ops, size_t n, struct dw_loc *out)
{
	struct dw_piece *v = NULL;
	size_t np = 0, cap = 0;
	uint64_t pos = 0;

	for (size_t i = 0; i < n; i++) {
		if (is_piece(&ops[i])) {
			v = xgrow(v, &cap, np + 1, sizeof(*v));
			if (!end_piece(ev, &ops[i], &pos, &v[np++]))
				goto refuse;
			continue;
		}
		if (!step(ev, &ops[i]) || ((ev->reg >= 0 || ev->implicit) && i + 1 < n && !is_piece(&ops[i + 1])))
			goto refuse;
	}
	if (ev->sp || ev->reg >= 0 || ev->implicit || np == 0) { /* ops after the last piece */
		ev->why = "the location's pieces are malformed";
		goto refuse;
	}
	if (np == 1 && v[0].loc.kind != DW_LOC_OPTIMIZED_OUT && v[0].bit_size == 80) {
		/* one piece is the whole value (x87's long double: 10 of its 16
		 * bytes); any other single piece leaves the rest of the value
		 * unknown (a Rust (i32, char) whose char is gone: 4 of 8 bytes) */
		*out = v[0].loc;
		free(v);
		return;
	}
	out->kind = DW_LOC_PIECES;
	out->pieces = vars_own(ev->c, v);
	out->n_pieces = np;
	return;

refuse:
	free(v);
	unsupported(out, ev->why ? ev->why : "a DWARF location expression this version cannot evaluate");
}

/* ---- branches ----
 * DW_OP_skip and DW_OP_bra jump forward by a signed 16-bit count of
 * bytes past their own 3 bytes (GCC writes `x ? a : b` in a call site's
 * value so: DW_OP_bra over a DW_OP_swap).  A conditional branch runs the
 * rest of the expression both ways, and each slot of the stacks they end
 * with becomes DW_EXPR_IF(condition, taken, not taken); both must end
 * alike (as values or as addresses, with as many slots).  Backward jumps
 * (loops) are refused. */
#define MAX_BRANCHES 8

static bool run_ops(struct eval *ev, Dwarf_Op *ops, size_t n, size_t i, unsigned *branches);

/* The index of the operation @op jumps to, or 0 (never a forward target)
 * when there is none: past the end, backward, or into an operation. */
static size_t jump_target(Dwarf_Op *ops, size_t n, size_t i)
{
	Dwarf_Word to = ops[i].offset + 3 + (Dwarf_Word)(int64_t)(int16_t)ops[i].number;

	for (size_t j = i + 1; j < n; j++)
		if (ops[j].offset == to)
			return j;
	return 0;
}

/* DW_OP_bra at @i, to @to: both ways, then the stacks joined. */
static bool branch(struct eval *ev, Dwarf_Op *ops, size_t n, size_t i, size_t to,
		   unsigned *branches)
{
	const struct dw_expr *cond = pop(ev);
	struct eval taken;

	if (!cond)
		return false;
	taken = *ev;
	if (!run_ops(&taken, ops, n, to, branches)) {
		ev->why = taken.why;
		ev->gone = taken.gone;
		return false;
	}
	if (!run_ops(ev, ops, n, i + 1, branches))
		return false;
	if (ev->sp != taken.sp || ev->value != taken.value || ev->reg >= 0 || taken.reg >= 0 ||
	    ev->implicit || taken.implicit || ev->implicit_ptr || taken.implicit_ptr ||
	    ev->implicit_whole || taken.implicit_whole) {
		ev->why = "the two ways of a DWARF expression's branch (DW_OP_bra) end differently";
		return false;
	}
	for (int k = 0; k < ev->sp; k++)
		if (ev->stack[k] != taken.stack[k])
			ev->stack[k] = vars_expr_if(ev->c, cond, taken.stack[k], ev->stack[k]);
	return true;
}

/* Operations @i.. of @ops, following branches. */
static bool run_ops(struct eval *ev, Dwarf_Op *ops, size_t n, size_t i, unsigned *branches)
{
	for (; i < n; i++) {
		uint8_t a = ops[i].atom;

		if (a == DW_OP_skip || a == DW_OP_bra) {
			size_t to = jump_target(ops, n, i);

			if (!to || ++*branches > MAX_BRANCHES) {
				ev->why = "a DWARF expression's branch this version cannot follow "
					  "(backward, past the end, or too many)";
				return false;
			}
			if (a == DW_OP_bra)
				return branch(ev, ops, n, i, to, branches);
			i = to - 1;
			continue;
		}
		if (!step(ev, &ops[i]))
			return false;
		/* a register or implicit value ends a location */
		if ((ev->reg >= 0 || ev->implicit) && i + 1 < n) {
			ev->why = refusal(ops[i + 1].atom);
			return false;
		}
	}
	return true;
}

void vars_evaluate(struct vars_cache *c, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n,
		   const struct vars_frame *f, struct dw_loc *out)
{
	struct eval ev = { .c = c, .attr = attr, .f = f, .reg = -1 };
	unsigned branches = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (is_piece(&ops[i])) {
			evaluate_pieces(&ev, ops, n, out);
			return;
		}
	}
	if (!run_ops(&ev, ops, n, 0, &branches)) {
		unsupported(out, ev.why);
		if (ev.gone)
			out->kind = DW_LOC_OPTIMIZED_OUT;
		/* the whole value is in the register at the function's entry:
		 * what the call passed there */
		else if (ev.unreadable_reg && n == 1 && unreadable_at_entry(&ev, (int)ev.unreadable_reg - 1, out))
			return;
		/* the whole value is in the register, or computed from it */
		else if (ev.unreadable_reg) {
			out->unreadable_reg = ev.unreadable_reg;
			out->unreadable_computed = n != 1;
		}
		if (ev.entry_reg && n == 2 && ops[1].atom == DW_OP_stack_value)
			out->entry_reg = ev.entry_reg;
		return;
	}
	finish(&ev, out);
	/* only the entry value: [DW_OP_entry_value(DW_OP_regN), DW_OP_stack_value] */
	if (ev.entry_reg && n == 2 && ops[1].atom == DW_OP_stack_value)
		out->entry_reg = ev.entry_reg;
}

/* A constant's number as gdb reads it: DW_FORM_sdata (and implicit_const)
 * signed, the fixed-size forms and udata as the bits they hold (GCC
 * writes size_t 128 as data1 0x80, which libdw's dwarf_formsdata takes
 * for -128); the variable's type then cuts it to its size and sign. */
static bool const_number(Dwarf_Attribute *a, Dwarf_Sword *v)
{
	Dwarf_Word u;

	if (dwarf_whatform(a) == DW_FORM_sdata || dwarf_whatform(a) == DW_FORM_implicit_const)
		return dwarf_formsdata(a, v) == 0;
	if (dwarf_formudata(a, &u) != 0)
		return false;
	*v = (Dwarf_Sword)u;
	return true;
}

void vars_locate_die(struct vars_cache *c, Dwarf_Die *var, uint64_t pc, const struct vars_frame *f,
		     struct dw_loc *out)
{
	Dwarf_Attribute a, views;
	Dwarf_Block b;
	Dwarf_Sword v = 0;
	const char *s;

	memset(out, 0, sizeof(*out));
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		if (const_number(&a, &v)) {
			out->kind = DW_LOC_CONST;
			out->offset = v;
		} else if (dwarf_formblock(&a, &b) == 0) {
			vars_const_bytes(c, b.data, b.length, out); /* a string, a struct */
		} else if ((s = dwarf_formstring(&a)) != NULL) {
			/* a char array's text (GCC's __PRETTY_FUNCTION__), its NUL included */
			vars_const_bytes(c, (const uint8_t *)s, strlen(s) + 1, out);
		} else {
			out->kind = DW_LOC_UNSUPPORTED;
			out->why = "a constant this version cannot read";
		}
		return;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a)) {
		out->kind = DW_LOC_OPTIMIZED_OUT;
		return;
	}
	vars_locate(c, &a, dwarf_attr_integrate(var, DW_AT_GNU_locviews, &views), pc, f, out);
}

/* The @index-th entry of location list @attr, as libdw decodes it. */
static bool nth_entry(Dwarf_Attribute *attr, size_t index, Dwarf_Op **ops, size_t *n)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	for (size_t i = 0; (off = dwarf_getlocations(attr, off, &base, &start, &end, ops, n)) > 0; i++)
		if (i == index)
			return true;
	return false;
}

/* The location at @pc by the list's location views; false when it has
 * none (libdw's address ranges then say). */
static bool locate_by_view(struct vars_cache *c, Dwarf_Attribute *attr, Dwarf_Attribute *views,
			   uint64_t pc, const struct vars_frame *f, struct dw_loc *out)
{
	Dwarf_Op *ops, raw[MAX_STACK];
	bool uninit = false;
	size_t index = 0, n;
	int n_raw = -1;
	int got = vars_view_entry(attr, views, pc, f->has_view ? (int)f->view : -1, &index, raw,
				  MAX_STACK, &n_raw, &uninit);

	if (got < 0)
		return false;
	if (got == 0) {
		out->kind = DW_LOC_OPTIMIZED_OUT;
		return true;
	}
	if (!uninit && nth_entry(attr, index, &ops, &n))
		vars_evaluate(c, attr, ops, n, f, out);
	else if (n_raw >= 0)
		vars_evaluate(c, NULL, raw, (size_t)n_raw, f, out);
	else
		unsupported(out, "a DWARF location expression this version cannot evaluate");
	out->uninit = uninit;
	return true;
}

void vars_locate(struct vars_cache *c, Dwarf_Attribute *attr, Dwarf_Attribute *views, uint64_t pc,
		 const struct vars_frame *f, struct dw_loc *out)
{
	Dwarf_Op *ops, raw[MAX_STACK];
	bool uninit = false;
	size_t n;
	int got;

	memset(out, 0, sizeof(*out));
	if (dwarf_whatform(attr) == DW_FORM_sec_offset && locate_by_view(c, attr, views, pc, f, out))
		return;
	got = dwarf_getlocation_addr(attr, pc, &ops, &n, 1);
	if (got < 0 && (got = vars_raw_location(attr, pc, raw, MAX_STACK, &uninit)) > 0) {
		/* only an operation libdw does not know (DW_OP_GNU_uninit) */
		vars_evaluate(c, NULL, raw, (size_t)got, f, out);
		out->uninit = uninit;
		return;
	}
	if (got <= 0) {
		out->kind = DW_LOC_OPTIMIZED_OUT; /* no location covers this pc */
		return;
	}
	vars_evaluate(c, attr, ops, n, f, out);
}

/* The value at @loc as a tree (8 bytes of memory at a memory location),
 * plus @k; NULL when it has none a tree can say. */
static const struct dw_expr *value_plus(struct vars_cache *c, const struct dw_loc *loc, int64_t k)
{
	const struct dw_expr *addr = vars_loc_address(c, loc);

	if (addr)
		return add(c, vars_expr_deref(c, addr, 8), konst(c, k));
	switch (loc->kind) {
	case DW_LOC_REG:
		return loc->bit_shift ? NULL : add(c, reg_node(c, loc->reg), konst(c, k));
	case DW_LOC_VALUE_REG:
		return add(c, reg_node(c, loc->reg), konst(c, loc->offset + k));
	case DW_LOC_CONST:
		return konst(c, loc->offset + k);
	case DW_LOC_VALUE_EXPR:
		return add(c, loc->expr, konst(c, k));
	default:
		return NULL;
	}
}

void vars_vla_length(struct vars_cache *c, Dwarf_Die *sub, uint64_t pc, const struct vars_frame *f,
		     struct dw_loc *out)
{
	bool count = dwarf_hasattr(sub, DW_AT_count);
	Dwarf_Attribute a;
	Dwarf_Die var;
	Dwarf_Op *ops;
	size_t n;
	struct dw_loc at;
	const struct dw_expr *e = NULL;

	memset(out, 0, sizeof(*out));
	out->kind = DW_LOC_OPTIMIZED_OUT;
	if (!dwarf_attr(sub, count ? DW_AT_count : DW_AT_upper_bound, &a))
		return;
	if (dwarf_formref_die(&a, &var)) {
		vars_locate_die(c, &var, pc, f, &at);
		e = value_plus(c, &at, count ? 0 : 1);
	} else if (dwarf_getlocation(&a, &ops, &n) == 0) {
		/* a DWARF expression whose result is the bound: as a
		 * location, its address */
		vars_evaluate(c, &a, ops, n, f, &at);
		e = vars_loc_address(c, &at);
		e = e ? add(c, e, konst(c, count ? 0 : 1)) : value_plus(c, &at, count ? 0 : 1);
	}
	if (!e)
		return;
	out->kind = DW_LOC_VALUE_EXPR;
	out->expr = e;
}

const struct dw_expr *vars_loc_address(struct vars_cache *c, const struct dw_loc *loc)
{
	switch (loc->kind) {
	case DW_LOC_MEM_REG:
		return add(c, reg_node(c, loc->reg), konst(c, loc->offset));
	case DW_LOC_MEM_CFA:
		return add(c, node(c, DW_EXPR_CFA, NULL, NULL), konst(c, loc->offset));
	case DW_LOC_MEM_ADDR:
		return add(c, node(c, DW_EXPR_BIAS, NULL, NULL), konst(c, loc->offset));
	case DW_LOC_MEM_EXPR:
		return add(c, loc->expr, konst(c, loc->offset));
	default:
		return NULL;
	}
}

const struct dw_expr *vars_frame_base(struct vars_cache *c, Dwarf_Die *fn, uint64_t pc,
				      const struct vars_frame *f, const char **why)
{
	Dwarf_Attribute a;
	struct vars_frame bare = *f;
	struct dw_loc loc;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &a)) {
		*why = "the function has no frame base";
		return NULL;
	}
	bare.fb = NULL;
	bare.fn = NULL;
	vars_locate(c, &a, NULL, pc, &bare, &loc);
	switch (loc.kind) {
	case DW_LOC_REG: /* the base is the register's value */
		return reg_node(c, loc.reg);
	case DW_LOC_VALUE_REG:
	case DW_LOC_VALUE_EXPR: /* a caller's register, already its value */
		return loc.kind == DW_LOC_VALUE_REG ? add(c, reg_node(c, loc.reg), konst(c, loc.offset))
						    : loc.expr;
	case DW_LOC_UNSUPPORTED:
		*why = loc.why;
		return NULL;
	default:
		if (vars_loc_address(c, &loc))
			return vars_loc_address(c, &loc);
		*why = "the function has no frame base at this pc";
		return NULL;
	}
}

/* ---- parts of a located value ---- */

static void select_piece(const struct dw_loc *whole, uint64_t pos, uint64_t size, struct dw_loc *out)
{
	const struct dw_piece *hit = NULL;
	size_t overlaps = 0;

	for (size_t i = 0; i < whole->n_pieces; i++) {
		const struct dw_piece *p = &whole->pieces[i];

		if (p->bit_offset < pos + size && pos < p->bit_offset + p->bit_size) {
			overlaps++;
			hit = p;
		}
	}
	if (overlaps == 1 && hit->bit_offset <= pos && pos + size <= hit->bit_offset + hit->bit_size) {
		dw_loc_select(&hit->loc, pos - hit->bit_offset, size, out);
		return;
	}
	*out = *whole;
	out->bit_shift = pos;
	if (overlaps == 0) {
		memset(out, 0, sizeof(*out));
		out->kind = DW_LOC_OPTIMIZED_OUT; /* between pieces: not kept */
	}
}

void dw_loc_select(const struct dw_loc *whole, uint64_t bit_pos, uint64_t bit_size, struct dw_loc *out)
{
	struct dw_loc w = *whole;

	switch (w.kind) {
	case DW_LOC_REG:
	case DW_LOC_VALUE_REG:
	case DW_LOC_VALUE_EXPR:
	case DW_LOC_CONST:
		w.bit_shift += bit_pos;
		break;
	case DW_LOC_MEM_REG:
	case DW_LOC_MEM_CFA:
	case DW_LOC_MEM_ADDR:
	case DW_LOC_MEM_EXPR:
		/* an address: wraps like one (any bit position a piece names;
		 * found by tests/fuzz/fuzz_loc) */
		w.offset = (int64_t)((uint64_t)w.offset + bit_pos / 8);
		break;
	case DW_LOC_PIECES:
		select_piece(whole, whole->bit_shift + bit_pos, bit_size, &w);
		break;
	default:
		break;
	}
	*out = w;
}

/* Of bits [@from, @from + @n) of the value at @l (not pieces), how many
 * it holds from @from on: all of memory, the 64 bits of a register or a
 * computed value from its bit_shift on, none of an empty piece. */
static uint64_t held_bits(const struct dw_loc *l, uint64_t from, uint64_t n)
{
	uint64_t start;

	switch (l->kind) {
	case DW_LOC_MEM_REG:
	case DW_LOC_MEM_CFA:
	case DW_LOC_MEM_ADDR:
	case DW_LOC_MEM_EXPR:
	case DW_LOC_UNSUPPORTED: /* kept, where a probe cannot read it: not <optimized out> */
		return n;
	case DW_LOC_REG:
	case DW_LOC_VALUE_REG:
	case DW_LOC_VALUE_EXPR:
	case DW_LOC_CONST:
		start = l->bit_shift + from;
		if (start < l->bit_shift || start >= 64)
			return 0;
		return n < 64 - start ? n : 64 - start;
	default:
		return 0;
	}
}

static uint64_t low_bits(uint64_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

uint64_t dw_loc_unavailable(const struct dw_loc *loc, uint64_t lo, unsigned n)
{
	uint64_t held = 0, all = low_bits(n), at;

	if (n == 0)
		return 0;
	if (loc->kind != DW_LOC_PIECES)
		return all & ~low_bits(held_bits(loc, lo, n));
	at = loc->bit_shift + lo;
	for (size_t i = 0; i < loc->n_pieces; i++) {
		const struct dw_piece *p = &loc->pieces[i];
		uint64_t end = p->bit_offset + p->bit_size;
		uint64_t from = p->bit_offset > at ? p->bit_offset : at;
		uint64_t to = end < at + n ? end : at + n;

		if (from >= to)
			continue;
		held |= low_bits(held_bits(&p->loc, from - p->bit_offset, to - from)) << (from - at);
	}
	return all & ~held;
}
