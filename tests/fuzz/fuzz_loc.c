/* fuzz_loc.c - libFuzzer harness for the DWARF location-expression
 * evaluator (dwarf/location.c), which runs a variable's DW_OP_*
 * expression symbolically into the place the probe reads it from.  The
 * input is a list of operations, 17 bytes each (atom, then two
 * little-endian 64-bit operands), after one byte choosing the frame base
 * (none, the CFA, or a register).  There is no DWARF
 * attribute behind them, so the operations that read operands through
 * one are refused, as for a damaged attribute. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/vars_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OP_BYTES 17
#define MAX_OPS 64

static uint64_t walk(const struct dw_expr *e, int depth)
{
	if (!e || depth > 200)
		return 0;
	return (uint64_t)e->op + (uint64_t)e->value + walk(e->a, depth + 1) + walk(e->b, depth + 1) +
	       walk(e->c, depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static volatile uint64_t sink;
	static const struct dw_expr cfa = { .op = DW_EXPR_CFA };
	static const struct dw_expr rbp = { .op = DW_EXPR_REG, .reg = 6 };
	struct vars_cache c;
	struct vars_frame f = { .cfa = &cfa };
	Dwarf_Op ops[MAX_OPS];
	struct dw_loc out;
	size_t n = 0;

	if (size < 1)
		return 0;
	memset(&c, 0, sizeof(c));
	for (size_t off = 1; off + OP_BYTES <= size && n < MAX_OPS; off += OP_BYTES, n++) {
		memset(&ops[n], 0, sizeof(ops[n]));
		ops[n].atom = data[off];
		memcpy(&ops[n].number, data + off + 1, 8);
		memcpy(&ops[n].number2, data + off + 9, 8);
		ops[n].offset = off;
	}
	f.fb = data[0] % 3 == 0 ? NULL : data[0] % 3 == 1 ? &cfa : &rbp;
	vars_evaluate(&c, NULL, ops, n, &f, &out);
	sink += (uint64_t)out.kind + (uint64_t)out.reg + (uint64_t)out.offset + walk(out.expr, 0) +
		(out.why ? strlen(out.why) : 0);
	for (size_t i = 0; i < c.n_owned; i++)
		free(c.owned[i]);
	free(c.owned);
	return 0;
}
