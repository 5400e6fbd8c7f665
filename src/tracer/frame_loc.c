/* frame_loc.c - a frame's variable's location evaluated against the
 * frame (see frame_values_priv.h): its registers as the CFI restored
 * them, its CFA, the module's bias and the stack copy.  A register the
 * CFI does not restore (a caller-saved one in an outer frame) is not
 * known, and neither is anything computed from it.
 */
#include "tracer/frame_values_priv.h"
#include "dwarf/vars.h"
#include "tracer/target.h"

#include <string.h>

#define MAX_EXPR_DEPTH 32

static bool reg_of(const struct where *c, int reg, uint64_t *out)
{
	if (reg < 0 || reg >= UW_FRAME_NREGS || !(c->w->regs.known & (1u << reg)))
		return false;
	*out = c->w->regs.v[reg];
	return true;
}

/* Two-operand nodes, as the probe's code computes them (64-bit, wrapping;
 * comparisons signed). */
static bool binop(enum dw_expr_op op, uint64_t a, uint64_t b, uint64_t *out)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	if ((op == DW_EXPR_DIV || op == DW_EXPR_MOD) && b == 0)
		return false;
	switch (op) {
	case DW_EXPR_ADD: *out = a + b; break;
	case DW_EXPR_SUB: *out = a - b; break;
	case DW_EXPR_MUL: *out = a * b; break;
	case DW_EXPR_DIV: *out = sa == INT64_MIN && sb == -1 ? a : (uint64_t)(sa / sb); break;
	case DW_EXPR_MOD: *out = a % b; break;
	case DW_EXPR_AND: *out = a & b; break;
	case DW_EXPR_OR: *out = a | b; break;
	case DW_EXPR_XOR: *out = a ^ b; break;
	case DW_EXPR_SHL: *out = b >= 64 ? 0 : a << b; break;
	case DW_EXPR_SHR: *out = b >= 64 ? 0 : a >> b; break;
	case DW_EXPR_SHRA: *out = (uint64_t)(sa >> (b >= 64 ? 63 : b)); break;
	case DW_EXPR_EQ: *out = sa == sb; break;
	case DW_EXPR_NE: *out = sa != sb; break;
	case DW_EXPR_LT: *out = sa < sb; break;
	case DW_EXPR_GT: *out = sa > sb; break;
	case DW_EXPR_LE: *out = sa <= sb; break;
	case DW_EXPR_GE: *out = sa >= sb; break;
	default: return false;
	}
	return true;
}

/* Whether @e computes a module address alone (the load bias and
 * constants): a static's, whose bytes an outer frame's recipe can copy. */
static bool is_static_address(const struct dw_expr *e, int depth)
{
	if (!e || depth > MAX_EXPR_DEPTH)
		return false;
	switch (e->op) {
	case DW_EXPR_CONST: case DW_EXPR_BIAS: return true;
	case DW_EXPR_ADD: case DW_EXPR_SUB:
		return is_static_address(e->a, depth + 1) && is_static_address(e->b, depth + 1);
	default: return false;
	}
}

/* The @size bytes at @a that a location reads, as they were at the hit:
 * in the stack copy, copied by the probe (frame 0's) or by the chain's
 * recipe (an outer frame's static: wanted for later events), or where
 * they cannot have changed since (a module's read-only data, RELRO: a
 * call site's table of functions, `binary_ops[oparg]`).  False, and the
 * walk's value unavailable, when none holds them. */
static bool read_at(const struct where *c, const struct dw_expr *addr, uint64_t a, unsigned size, uint64_t *out)
{
	static const struct dw_type words[9] = {
		[1] = { .kind = DW_TYPE_INT, .name = "unsigned char", .size = 1 },
		[2] = { .kind = DW_TYPE_INT, .name = "unsigned short", .size = 2 },
		[4] = { .kind = DW_TYPE_INT, .name = "unsigned int", .size = 4 },
		[8] = { .kind = DW_TYPE_INT, .name = "unsigned long", .size = 8 },
	};
	const uint8_t *copy;

	*out = 0;
	if (fv_copy_read((void *)c->w->bt, a, out, size) == 0)
		return true;
	copy = fv_copied_bytes(c->w->bt, a, size);
	if (!copy && is_static_address(addr, 0) && words[size].size) {
		fv_want_static(c->w, a, &words[size]);
		copy = fv_outer_bytes(c->w->bt, a, size);
	}
	if (copy)
		return memcpy(out, copy, size), true;
	if (c->t && (target_read_const(c->t, (pid_t)c->pid, a, out, size) == (long)size ||
		     target_read_stable(c->t, (pid_t)c->pid, a, out, size) == size))
		return true;
	c->w->unread = true;
	return false;
}

static bool eval(const struct where *c, const struct dw_expr *e, int depth, uint64_t *out)
{
	uint64_t a = 0, b = 0;

	if (!e || depth > MAX_EXPR_DEPTH)
		return false;
	switch (e->op) {
	case DW_EXPR_CONST: *out = (uint64_t)e->value; return true;
	case DW_EXPR_REG: return reg_of(c, e->reg, out);
	case DW_EXPR_CFA: *out = c->w->cfa; return c->w->have_cfa;
	case DW_EXPR_BIAS: *out = c->bias; return true;
	case DW_EXPR_UNAVAILABLE:
	case DW_EXPR_UNREADABLE: return false;
	default: break;
	}
	if (!eval(c, e->a, depth + 1, &a))
		return false;
	if (e->op == DW_EXPR_IF) /* only the branch taken reads memory */
		return eval(c, a ? e->b : e->c, depth + 1, out);
	switch (e->op) {
	case DW_EXPR_DEREF:
		*out = 0;
		return e->size >= 1 && e->size <= 8 && read_at(c, e->a, a, e->size, out);
	case DW_EXPR_NEG: *out = -a; return true;
	case DW_EXPR_NOT: *out = ~a; return true;
	case DW_EXPR_ABS: *out = (int64_t)a < 0 ? -a : a; return true;
	default: break;
	}
	return eval(c, e->b, depth + 1, &b) && binop(e->op, a, b, out);
}

bool fv_loc_address(const struct where *c, const struct dw_loc *l, bool *is_mem, uint64_t *out)
{
	uint64_t r;

	*is_mem = true;
	switch (l->kind) {
	case DW_LOC_MEM_REG:
		return reg_of(c, l->reg, &r) && (*out = r + (uint64_t)l->offset, true);
	case DW_LOC_MEM_CFA:
		return c->w->have_cfa && (*out = c->w->cfa + (uint64_t)l->offset, true);
	case DW_LOC_MEM_ADDR:
		*out = (uint64_t)l->offset + c->bias;
		return true;
	case DW_LOC_MEM_EXPR:
		return eval(c, l->expr, 0, out) && (*out += (uint64_t)l->offset, true);
	default:
		*is_mem = false;
		return false;
	}
}

bool fv_loc_value(const struct where *c, const struct dw_loc *l, uint64_t *out)
{
	switch (l->kind) {
	case DW_LOC_REG: return reg_of(c, l->reg, out);
	case DW_LOC_VALUE_REG: return reg_of(c, l->reg, out) && (*out += (uint64_t)l->offset, true);
	case DW_LOC_CONST: *out = (uint64_t)l->offset; return true;
	case DW_LOC_VALUE_EXPR: return eval(c, l->expr, 0, out);
	default: return false;
	}
}

/* ---- values in pieces (DW_OP_piece) ---- */

/* Bits [@from, @from + @n) of @buf (as the value's own bits, little
 * endian) set from @bits, and marked kept in @gone. */
static void put_bits(uint8_t *buf, uint8_t *gone, size_t size, uint64_t from, uint64_t bits,
		     unsigned n)
{
	for (unsigned i = 0; i < n && from + i < size * 8; i++) {
		uint64_t at = from + i;
		uint8_t m = (uint8_t)(1u << (at % 8));

		buf[at / 8] = (uint8_t)((bits >> i) & 1 ? buf[at / 8] | m : buf[at / 8] & ~m);
		gone[at / 8] &= (uint8_t)~m;
	}
}

/* Piece @p's bits at their place in the value (whose bit 0 is bit @base
 * of what the pieces assemble), when this frame knows them. */
static void put_piece(struct where *c, const struct dw_piece *p, uint64_t base, uint8_t *buf,
		      uint8_t *gone, size_t size)
{
	uint64_t addr, scalar, chunk;
	bool is_mem;

	if (p->bit_offset + p->bit_size <= base || p->bit_offset >= base + size * 8)
		return;
	if (fv_loc_address(c, &p->loc, &is_mem, &addr)) {
		for (uint64_t k = 0; k < p->bit_size; k += 64) {
			unsigned n = p->bit_size - k < 64 ? (unsigned)(p->bit_size - k) : 64;

			chunk = 0;
			if (fv_copy_read((void *)c->w->bt, addr + k / 8, &chunk, (n + 7) / 8) != 0)
				return;
			if (p->bit_offset + k >= base)
				put_bits(buf, gone, size, p->bit_offset + k - base, chunk, n);
		}
	} else if (!is_mem && p->bit_size <= 64 && p->loc.bit_shift < 64 &&
		   fv_loc_value(c, &p->loc, &scalar) && p->bit_offset >= base) {
		put_bits(buf, gone, size, p->bit_offset - base, scalar >> p->loc.bit_shift,
			 (unsigned)p->bit_size);
	}
}

void fv_loc_pieces(struct where *c, const struct dw_loc *l, uint8_t *buf, uint8_t *gone, size_t size)
{
	memset(buf, 0, size);
	memset(gone, 0xff, size);
	for (size_t i = 0; i < l->n_pieces; i++)
		put_piece(c, &l->pieces[i], l->bit_shift, buf, gone, size);
}

bool fv_loc_piece_address(const struct where *c, const struct dw_loc *l, size_t byte, uint64_t *out)
{
	uint64_t bit = l->bit_shift + byte * 8, addr;
	bool is_mem;

	for (size_t i = 0; i < l->n_pieces; i++) {
		const struct dw_piece *p = &l->pieces[i];

		if (p->bit_offset > bit || p->bit_offset + p->bit_size < bit + 64 || (bit - p->bit_offset) % 8)
			continue;
		if (!fv_loc_address(c, &p->loc, &is_mem, &addr) || !is_mem)
			return false;
		*out = addr + (bit - p->bit_offset) / 8;
		return true;
	}
	return false;
}
