/* frame.c - a frame's caller's registers by the module's full CFI (see
 * frame.h).
 *
 * libdw computes the row at a pc (dwarf_cfi_addrframe) and hands each
 * rule over as a small DWARF expression; this file evaluates those
 * expressions against the frame's registers and the memory callback.
 * Only what CFI rules use is evaluated: registers and offsets, the CFA,
 * constants, addition, dereference (the signal trampoline's ucontext and
 * stack realignment); anything else makes the register unknown rather than
 * guessed.
 */
#include "unwind/frame.h"
#include "dwarf/module_cfi.h"
#include "unwind/step.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 8

struct eval {
	const struct uw_frame_regs *regs;
	uint64_t cfa;
	bool cfa_known;
	uw_mem_fn mem;
	void *ctx;
	uint64_t stack[STACK_MAX];
	int n;
	int in_reg;    /* the result is this register's value (DW_OP_regN), or -1 */
	bool is_value; /* DW_OP_stack_value: the result is a value, not an address */
};

static bool push(struct eval *e, uint64_t v)
{
	if (e->n >= STACK_MAX)
		return false;
	e->stack[e->n++] = v;
	return true;
}

static bool reg_value(const struct eval *e, unsigned reg, uint64_t *out)
{
	if (reg >= UW_FRAME_NREGS || !(e->regs->known & (1u << reg)))
		return false;
	*out = e->regs->v[reg];
	return true;
}

/* Operations that push a number. */
static bool eval_push(struct eval *e, const Dwarf_Op *op, bool *handled)
{
	uint8_t a = op->atom;
	uint64_t v;

	*handled = true;
	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return push(e, (uint64_t)(a - DW_OP_lit0));
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return reg_value(e, a - DW_OP_breg0, &v) && push(e, v + op->number);
	switch (a) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		return push(e, op->number);
	case DW_OP_bregx:
		return reg_value(e, (unsigned)op->number, &v) && push(e, v + op->number2);
	case DW_OP_call_frame_cfa:
		return e->cfa_known && push(e, e->cfa);
	}
	*handled = false;
	return true;
}

/* Operations on the stack. */
static bool eval_op(struct eval *e, const Dwarf_Op *op)
{
	uint8_t a = op->atom;
	bool handled, ok;
	uint64_t v;

	/* A push that failed (an unknown register, a full stack) fails the
	 * expression: going on would take whatever lies below for its value. */
	ok = eval_push(e, op, &handled);
	if (handled)
		return ok;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		e->in_reg = a - DW_OP_reg0;
		return true;
	}
	switch (a) {
	case DW_OP_regx:
		e->in_reg = (int)op->number;
		return true;
	case DW_OP_stack_value:
		e->is_value = true;
		return true;
	case DW_OP_plus_uconst:
		if (e->n < 1)
			return false;
		e->stack[e->n - 1] += op->number;
		return true;
	case DW_OP_plus:
	case DW_OP_minus:
	case DW_OP_and:
		if (e->n < 2)
			return false;
		v = e->stack[--e->n];
		e->stack[e->n - 1] = a == DW_OP_plus ? e->stack[e->n - 1] + v :
				     a == DW_OP_minus ? e->stack[e->n - 1] - v : e->stack[e->n - 1] & v;
		return true;
	case DW_OP_deref:
		return e->n >= 1 && e->mem(e->ctx, e->stack[e->n - 1], &e->stack[e->n - 1], 8) == 0;
	}
	return false;
}

/* Evaluate @ops: a location (address, or register with in_reg) or, with
 * DW_OP_stack_value, a value.  Returns false when it cannot be. */
static bool eval(struct eval *e, const Dwarf_Op *ops, size_t n)
{
	e->n = 0;
	e->in_reg = -1;
	e->is_value = false;
	for (size_t i = 0; i < n; i++)
		if (!eval_op(e, &ops[i]))
			return false;
	return e->in_reg >= 0 || e->n >= 1;
}

/* The caller's value of register @reg under @frame's rule for it. */
static bool caller_reg(Dwarf_Frame *frame, struct eval *e, unsigned reg, uint64_t *out)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t n = 0;
	uint64_t v;

	if (dw_cfi_register(frame, (int)reg, mem, &ops, &n) != 0)
		return false;
	if (n == 0 && ops == NULL) /* same value */
		return reg == WR_DWARF_RSP ? (*out = e->cfa, true) : reg_value(e, reg, out);
	if (n == 0) /* undefined: the stack pointer is the CFA by definition */
		return reg == WR_DWARF_RSP && (*out = e->cfa, true);
	if (!eval(e, ops, n))
		return false;
	if (e->in_reg >= 0)
		return reg_value(e, (unsigned)e->in_reg, out);
	v = e->stack[e->n - 1];
	if (e->is_value) {
		*out = v;
		return true;
	}
	return e->mem(e->ctx, v, out, 8) == 0;
}

int uw_frame_step(struct dw_module *m, uint64_t pc, bool exact, const struct uw_frame_regs *regs,
		  uw_mem_fn mem, void *ctx, uint64_t *cfa, struct uw_frame_regs *caller,
		  bool *caller_exact)
{
	struct eval e = { .regs = regs, .mem = mem, .ctx = ctx };
	Dwarf_CFI *cfi = dw_module_cfi(m);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	Dwarf_Addr start, end;
	size_t n;
	int err = -ENOTSUP;

	memset(caller, 0, sizeof(*caller));
	*caller_exact = false;
	if (!cfi || dwarf_cfi_addrframe(cfi, uw_row_pc(pc, exact), &frame) != 0)
		return -ENOENT;
	if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0 || !eval(&e, ops, n) || e.in_reg >= 0)
		goto out_free;
	e.cfa = *cfa = e.stack[e.n - 1];
	e.cfa_known = true;
	dwarf_frame_info(frame, &start, &end, caller_exact);
	for (unsigned r = 0; r < UW_FRAME_NREGS; r++)
		if (caller_reg(frame, &e, r, &caller->v[r]))
			caller->known |= 1u << r;
	err = 0;

out_free:
	free(frame);
	return err;
}
