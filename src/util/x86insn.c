/* x86insn.c - see x86insn.h.
 *
 * An x86-64 instruction is: legacy prefixes, then REX, or one of the VEX
 * (c4, c5), EVEX (62) and XOP (8f) prefixes that carry their own map;
 * the opcode (after 0f, 0f 38 or 0f 3a escapes in the legacy encoding);
 * ModRM with its SIB byte and displacement when the opcode takes one;
 * and an immediate whose size the opcode, operand size (66, REX.W) and
 * address size (67, for moffs) decide.  The tables below hold, per
 * opcode, whether ModRM follows and what immediate does.
 */
#include "util/x86insn.h"

#include <errno.h>
#include <string.h>

enum {
	M = 1 << 0,      /* ModRM follows */
	I8 = 1 << 1,     /* 8-bit immediate */
	IZ = 1 << 2,     /* 16- or 32-bit immediate (66 and REX.W decide) */
	IV = 1 << 3,     /* 16-, 32- or 64-bit immediate (mov reg, imm) */
	I16 = 1 << 4,    /* 16-bit immediate */
	ENTER = 1 << 5,  /* 16-bit then 8-bit immediate */
	MOFFS = 1 << 6,  /* an address-sized offset (a0-a3) */
	BAD = 1 << 7,    /* not valid in 64-bit mode */
	GRP3 = 1 << 8,   /* the immediate only for ModRM.reg 0 and 1 */
	REL = 1 << 9,    /* the immediate is a branch displacement */
	MREG = 1 << 10,  /* ModRM is always a register form (mov cr/dr) */
	XIMM2 = 1 << 11, /* two 8-bit immediates with a 66 or f2 prefix */
};

static const uint16_t one_byte[256] = {
	[0x00 ... 0x03] = M, [0x04] = I8, [0x05] = IZ, [0x06 ... 0x07] = BAD,
	[0x08 ... 0x0b] = M, [0x0c] = I8, [0x0d] = IZ, [0x0e] = BAD,
	[0x10 ... 0x13] = M, [0x14] = I8, [0x15] = IZ, [0x16 ... 0x17] = BAD,
	[0x18 ... 0x1b] = M, [0x1c] = I8, [0x1d] = IZ, [0x1e ... 0x1f] = BAD,
	[0x20 ... 0x23] = M, [0x24] = I8, [0x25] = IZ, [0x27] = BAD,
	[0x28 ... 0x2b] = M, [0x2c] = I8, [0x2d] = IZ, [0x2f] = BAD,
	[0x30 ... 0x33] = M, [0x34] = I8, [0x35] = IZ, [0x37] = BAD,
	[0x38 ... 0x3b] = M, [0x3c] = I8, [0x3d] = IZ, [0x3f] = BAD,
	[0x60 ... 0x61] = BAD, [0x63] = M,
	[0x68] = IZ, [0x69] = M | IZ, [0x6a] = I8, [0x6b] = M | I8,
	[0x70 ... 0x7f] = I8 | REL,
	[0x80] = M | I8, [0x81] = M | IZ, [0x82] = BAD, [0x83] = M | I8,
	[0x84 ... 0x8f] = M,
	[0x9a] = BAD,
	[0xa0 ... 0xa3] = MOFFS, [0xa8] = I8, [0xa9] = IZ,
	[0xb0 ... 0xb7] = I8, [0xb8 ... 0xbf] = IV,
	[0xc0 ... 0xc1] = M | I8, [0xc2] = I16, [0xc6] = M | I8, [0xc7] = M | IZ,
	[0xc8] = ENTER, [0xca] = I16, [0xcd] = I8, [0xce] = BAD,
	[0xd0 ... 0xd3] = M, [0xd4 ... 0xd6] = BAD, [0xd8 ... 0xdf] = M,
	[0xe0 ... 0xe3] = I8 | REL, [0xe4 ... 0xe7] = I8, [0xe8 ... 0xe9] = IZ | REL,
	[0xea] = BAD, [0xeb] = I8 | REL,
	[0xf6] = M | I8 | GRP3, [0xf7] = M | IZ | GRP3, [0xfe ... 0xff] = M,
};

/* The 0f map: ModRM everywhere but the listed opcodes. */
static uint16_t two_byte(uint8_t op)
{
	switch (op) {
	case 0x05 ... 0x09: case 0x0b: case 0x0e:
	case 0x30 ... 0x35: case 0x37: case 0x77:
	case 0xa0 ... 0xa2: case 0xa8 ... 0xaa: case 0xc8 ... 0xcf:
		return 0;
	case 0x80 ... 0x8f:
		return IZ | REL;
	case 0x20 ... 0x23:
		return M | MREG;
	case 0x70 ... 0x73: case 0xa4: case 0xac: case 0xba: case 0xc2: case 0xc4 ... 0xc6:
		return M | I8;
	case 0x78:
		return M | XIMM2;
	default:
		return M;
	}
}

/* VEX and EVEX: ModRM always (but vzeroupper/vzeroall), an 8-bit
 * immediate in map 3 and for the map-1 opcodes that had one in 0f. */
static int vex_flags(unsigned map, uint8_t op, uint16_t *flags)
{
	switch (map) {
	case 1:
		*flags = op == 0x77 ? 0 : M | (two_byte(op) & I8);
		return 0;
	case 2: case 5: case 6:
		*flags = M;
		return 0;
	case 3:
		*flags = M | I8;
		return 0;
	default:
		return -EINVAL;
	}
}

struct cursor {
	const uint8_t *code;
	size_t n, at;
};

static int take(struct cursor *c, uint8_t *b)
{
	if (c->at >= c->n)
		return -ENODATA;
	*b = c->code[c->at++];
	return 0;
}

static int skip(struct cursor *c, size_t k)
{
	if (c->at + k > c->n)
		return -ENODATA;
	c->at += k;
	return 0;
}

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

/* Legacy prefixes and REX (a REX followed by a legacy prefix is ignored,
 * as the processor ignores it); the first byte after them in *@b. */
static int prefixes(struct cursor *c, struct x86insn *in, uint8_t *b)
{
	int err;

	while (!(err = take(c, b))) {
		if (is_legacy_prefix(*b)) {
			in->prefixes[in->n_prefixes++] = *b;
			in->rex = 0;
		} else if ((*b & 0xf0) == 0x40) {
			in->rex = *b;
		} else {
			break;
		}
		if (in->n_prefixes >= sizeof(in->prefixes))
			return -ENODATA;
	}
	return err;
}

/* ModRM, then SIB and displacement (64- and 32-bit addressing share the
 * format). */
static int modrm(struct cursor *c, struct x86insn *in, uint16_t flags)
{
	uint8_t mod, rm, sib;
	int err;

	in->modrm_at = (uint8_t)c->at;
	err = take(c, &in->modrm);
	if (err)
		return err;
	in->has_modrm = true;
	mod = in->modrm >> 6;
	rm = in->modrm & 7;
	if (mod == 3 || flags & MREG)
		return 0;
	if (rm == 4) {
		err = take(c, &sib);
		if (err)
			return err;
		if (mod == 0 && (sib & 7) == 5)
			return skip(c, 4);
	}
	if (mod == 0 && rm == 5)
		return skip(c, 4);
	return skip(c, mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

static size_t imm_size(const struct x86insn *in, uint16_t flags)
{
	bool w = in->rex & 8, o16 = x86insn_has_prefix(in, 0x66);

	if ((flags & GRP3) && x86insn_modrm_reg(in) > 1)
		return 0;
	if (flags & I8)
		return 1;
	if (flags & IZ)
		return w ? 4 : o16 ? 2 : 4;
	if (flags & IV)
		return w ? 8 : o16 ? 2 : 4;
	if (flags & I16)
		return 2;
	if (flags & ENTER)
		return 3;
	if (flags & MOFFS)
		return x86insn_has_prefix(in, 0x67) ? 4 : 8;
	if (flags & XIMM2)
		return x86insn_has_prefix(in, 0x66) || x86insn_has_prefix(in, 0xf2) ? 2 : 0;
	return 0;
}

/* The immediate; a branch's displacement into in->rel_disp. */
static int immediate(struct cursor *c, struct x86insn *in, uint16_t flags)
{
	size_t k = imm_size(in, flags);
	const uint8_t *p = c->code + c->at;
	int err = skip(c, k);

	if (err || !(flags & REL))
		return err;
	in->rel = true;
	in->rel_disp = k == 1 ? (int8_t)p[0] : k == 2 ? (int16_t)(p[0] | p[1] << 8)
		       : (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				   (uint32_t)p[3] << 24);
	return 0;
}

/* VEX (c4, c5), EVEX (62) and XOP (8f): their payload bytes, then the
 * opcode; *@flags for the rest. */
static int vex_like(struct cursor *c, struct x86insn *in, uint8_t first, uint16_t *flags)
{
	int payload = first == 0xc5 ? 1 : first == 0x62 ? 3 : 2;
	uint8_t p[3] = { 0 };
	int err = 0;

	for (int i = 0; !err && i < payload; i++)
		err = take(c, &p[i]);
	if (!err)
		err = take(c, &in->opcode);
	if (err)
		return err;
	in->enc = first == 0x62 ? X86_EVEX : first == 0x8f ? X86_XOP : X86_VEX;
	in->map = first == 0xc5 ? 1 : first == 0x62 ? p[0] & 7 : p[0] & 0x1f;
	if (in->enc != X86_XOP)
		return vex_flags(in->map, in->opcode, flags);
	*flags = in->map == 8 ? M | I8 : in->map == 9 ? M : in->map == 10 ? M | IZ : 0;
	return *flags ? 0 : -EINVAL;
}

/* The legacy encoding's opcode after its prefixes: @b, and the escapes. */
static int legacy_opcode(struct cursor *c, struct x86insn *in, uint8_t b, uint16_t *flags)
{
	int err;

	in->opcode = b;
	if (b != 0x0f) {
		*flags = one_byte[b];
		in->invalid = *flags & BAD;
		return 0;
	}
	in->map = X86_MAP_0F;
	err = take(c, &in->opcode);
	if (err)
		return err;
	if (in->opcode == 0x38 || in->opcode == 0x3a) {
		in->map = in->opcode == 0x38 ? X86_MAP_0F38 : X86_MAP_0F3A;
		*flags = in->opcode == 0x38 ? M : M | I8;
		return take(c, &in->opcode);
	}
	*flags = in->opcode == 0x0f ? M | I8 : two_byte(in->opcode); /* 3DNow!: suffix byte */
	return 0;
}

int x86insn_decode(const uint8_t *code, size_t n, struct x86insn *out)
{
	struct cursor c = { .code = code, .n = n < X86_MAX_INSN ? n : X86_MAX_INSN };
	uint16_t flags = 0;
	uint8_t b;
	int err;

	memset(out, 0, sizeof(*out));
	err = prefixes(&c, out, &b);
	if (err)
		return err;
	if ((b == 0xc4 || b == 0xc5 || b == 0x62) ||
	    (b == 0x8f && c.at < c.n && (code[c.at] & 0x1f) >= 8))
		err = vex_like(&c, out, b, &flags);
	else
		err = legacy_opcode(&c, out, b, &flags);
	if (!err && out->invalid) {
		out->len = (uint8_t)c.at;
		return 0;
	}
	if (!err && (flags & M))
		err = modrm(&c, out, flags);
	if (!err && out->map == X86_MAP_ONE && out->enc == X86_LEGACY && b == 0xc7 &&
	    out->modrm == 0xf8)
		flags |= REL; /* xbegin: its abort path is a branch target */
	if (!err)
		err = immediate(&c, out, flags);
	if (err)
		return err;
	out->len = (uint8_t)c.at;
	return 0;
}

bool x86insn_has_prefix(const struct x86insn *in, uint8_t p)
{
	return memchr(in->prefixes, p, in->n_prefixes) != NULL;
}

unsigned x86insn_modrm_reg(const struct x86insn *in)
{
	return in->has_modrm ? (in->modrm >> 3) & 7 : 0;
}

bool x86insn_is_nop(const struct x86insn *in)
{
	if (in->enc != X86_LEGACY || in->invalid || x86insn_has_prefix(in, 0xf0))
		return false;
	if (in->map == X86_MAP_ONE)
		return in->opcode == 0x90 && !(in->rex & 1);
	if (in->map != X86_MAP_0F)
		return false;
	if (in->opcode == 0x1f)
		return x86insn_modrm_reg(in) == 0;
	return in->opcode == 0x1e && x86insn_has_prefix(in, 0xf3) &&
	       (in->modrm == 0xfa || in->modrm == 0xfb);
}

bool x86insn_branch_target(const struct x86insn *in, uint64_t addr, uint64_t *target)
{
	if (!in->rel)
		return false;
	*target = addr + in->len + (int64_t)in->rel_disp;
	return true;
}

bool x86insn_is_indirect_jump(const struct x86insn *in)
{
	unsigned reg = x86insn_modrm_reg(in);

	return in->enc == X86_LEGACY && in->map == X86_MAP_ONE && in->opcode == 0xff &&
	       (reg == 4 || reg == 5);
}

/* Only prefixes that change no register an instruction writes: operand
 * and address size, and segment overrides (%fs:0x28, the stack
 * protector's canary). */
static bool plain_prefixes(const struct x86insn *in)
{
	for (unsigned i = 0; i < in->n_prefixes; i++)
		switch (in->prefixes[i]) {
		case 0x66: case 0x67: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
			break;
		default:
			return false;
		}
	return true;
}

/* Whether @in operates on bytes through ModRM's or the opcode's
 * register numbers: without REX, numbers 4-7 are then ah, ch, dh and bh,
 * parts of rax, rcx, rdx and rbx. */
static bool byte_registers(const struct x86insn *in)
{
	uint8_t op = in->opcode;

	if (in->map == X86_MAP_0F)
		return op >= 0x90 && op <= 0x9f;
	return (op < 0x40 && !(op & 1)) || (op >= 0xb0 && op <= 0xb7) || op == 0x80 || op == 0x84 ||
	       op == 0x86 || op == 0x88 || op == 0x8a || op == 0xc0 || op == 0xc6 || op == 0xd0 || op == 0xd2 ||
	       op == 0xf6 || op == 0xfe;
}

static bool gpr_writes(const struct x86insn *in, uint16_t *mask);

bool x86insn_gpr_writes(const struct x86insn *in, uint16_t *mask)
{
	if (!gpr_writes(in, mask))
		return false;
	if (!in->rex && in->enc == X86_LEGACY && byte_registers(in))
		*mask |= (*mask >> 4) & 0xf;
	return true;
}

static bool gpr_writes(const struct x86insn *in, uint16_t *mask)
{
	unsigned reg = x86insn_modrm_reg(in) | ((in->rex & 4u) << 1);
	unsigned rm = (in->modrm & 7u) | ((in->rex & 1u) << 3);
	/* the register the ModRM's r/m names, when it names one */
	uint16_t rm_reg = in->has_modrm && (in->modrm >> 6) == 3 ? (uint16_t)(1u << rm) : 0;
	uint8_t op = in->opcode;

	*mask = 0;
	if (x86insn_is_nop(in))
		return true;
	if (in->enc != X86_LEGACY || in->invalid || !plain_prefixes(in))
		return false;
	if (in->map == X86_MAP_0F) {
		if (op >= 0x40 && op <= 0x4f) /* cmovcc */
			*mask = (uint16_t)(1u << reg);
		else if (op >= 0x90 && op <= 0x9f) /* setcc */
			*mask = rm_reg;
		else if (op == 0xaf || op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf) /* imul, movzx, movsx */
			*mask = (uint16_t)(1u << reg);
		else if ((op == 0x11 || op == 0x29 || op == 0x7f || op == 0xd6) && !rm_reg)
			; /* a vector register stored to memory */
		else
			return false;
		return true;
	}
	if (in->map != X86_MAP_ONE)
		return false;
	if (op < 0x40 && (op & 7) < 6) { /* add, or, adc, sbb, and, sub, xor, cmp */
		if (op >> 3 == 7)
			return true; /* cmp */
		*mask = (op & 7) < 2 ? rm_reg : (op & 7) < 4 ? (uint16_t)(1u << reg) : 1u;
		return true;
	}
	switch (op) {
	case 0x50 ... 0x57: case 0x68: case 0x6a: /* push */
		*mask = 1u << 4;
		return true;
	case 0x63: case 0x69: case 0x6b: case 0x8a: case 0x8b: case 0x8d: /* movsxd, imul, mov, lea */
		*mask = (uint16_t)(1u << reg);
		return true;
	case 0x80: case 0x81: case 0x83: /* the ALU operations with an immediate; /7 is cmp */
		*mask = x86insn_modrm_reg(in) == 7 ? 0 : rm_reg;
		return true;
	case 0x84: case 0x85: case 0xa8: case 0xa9: /* test */
		return true;
	case 0x86: case 0x87: /* xchg */
		*mask = (uint16_t)(rm_reg | (1u << reg));
		return true;
	case 0xc6: case 0xc7: /* mov r/m, imm (c7 f8 is xbegin) */
		*mask = rm_reg;
		return x86insn_modrm_reg(in) == 0;
	case 0x88: case 0x89: case 0xc0: case 0xc1: case 0xd0 ... 0xd3: /* mov, shifts */
		*mask = rm_reg;
		return true;
	case 0x98: /* cltq */
		*mask = 1u;
		return true;
	case 0x99: /* cqto */
		*mask = 1u << 2;
		return true;
	case 0xb0 ... 0xbf: /* mov reg, imm */
		*mask = (uint16_t)(1u << ((op & 7u) | ((in->rex & 1u) << 3)));
		return true;
	case 0xf6: case 0xf7: /* test, not, neg; mul and div write rax and rdx */
		*mask = x86insn_modrm_reg(in) < 2 ? 0 : x86insn_modrm_reg(in) < 4 ? rm_reg : (1u | 1u << 2);
		return true;
	case 0xfe: case 0xff: /* inc, dec; push */
		if (x86insn_modrm_reg(in) < 2)
			*mask = rm_reg;
		else if (op == 0xff && x86insn_modrm_reg(in) == 6)
			*mask = 1u << 4;
		else
			return false;
		return true;
	default:
		return false;
	}
}
