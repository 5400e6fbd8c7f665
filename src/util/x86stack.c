/* x86stack.c - see x86stack.h.
 *
 * Facts from the Intel and AMD opcode maps.  The one-byte map is read
 * opcode by opcode: which ModRM field each instruction writes (a
 * register numbered 4 or 5 there is rsp or rbp), and the implicit
 * writers (push, pop, call, ret, enter, leave).  In the 0f maps and
 * under VEX and EVEX, the instructions known to touch only vector,
 * mask, x87 or flag registers, or to only read a general register, leave
 * both alone; every other one is taken to write both of its ModRM
 * fields.  A form this file does not know is unknown, never neutral.
 */
#include "util/x86stack.h"
#include "util/x86insn.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum { REG = 1, RM = 2 }; /* the ModRM fields an instruction writes */

/* ModRM's register fields with REX (none under VEX/EVEX: see the header);
 * rm only in the register form, else 0 (no register written). */
static unsigned reg_of(const struct x86insn *in)
{
	return x86insn_modrm_reg(in) | (in->enc == X86_LEGACY && in->rex & 4 ? 8 : 0);
}

static bool rm_is_reg(const struct x86insn *in)
{
	return in->has_modrm && in->modrm >> 6 == 3;
}

static unsigned rm_of(const struct x86insn *in)
{
	return (in->modrm & 7) | (in->enc == X86_LEGACY && in->rex & 1 ? 8 : 0);
}

/* The effect of writing the ModRM fields @fields: unknown when one is
 * rsp (4), rbp lost when one is rbp (5). */
static enum x86stack_kind writes(const struct x86insn *in, unsigned fields)
{
	bool sp = false, bp = false;

	if (fields & REG && in->has_modrm) {
		sp |= reg_of(in) == 4;
		bp |= reg_of(in) == 5;
	}
	if (fields & RM && rm_is_reg(in)) {
		sp |= rm_of(in) == 4;
		bp |= rm_of(in) == 5;
	}
	return sp ? X86STACK_UNKNOWN : bp ? X86STACK_RBP_LOST : X86STACK_NONE;
}

/* A register named by an opcode's low bits (push, pop, xchg, mov imm,
 * bswap), written. */
static enum x86stack_kind writes_opreg(const struct x86insn *in)
{
	unsigned r = (in->opcode & 7) | (in->rex & 1 ? 8 : 0);

	return r == 4 ? X86STACK_UNKNOWN : r == 5 ? X86STACK_RBP_LOST : X86STACK_NONE;
}

/* The signed immediate of @size bytes that ends @in. */
static int64_t imm_at_end(const struct x86insn *in, const uint8_t *code, unsigned size)
{
	int32_t i32;

	if (size == 1)
		return (int8_t)code[in->len - 1];
	memcpy(&i32, code + in->len - 4, 4);
	return i32;
}

/* For a one-byte-map instruction with a memory operand of the form
 * [base + disp] (no index, no RIP, 64-bit addressing): the base register
 * and the displacement. */
static bool base_disp(const struct x86insn *in, const uint8_t *code, unsigned *base, int64_t *disp)
{
	size_t at = in->modrm_at + 1u;
	unsigned mod = in->modrm >> 6, rm = in->modrm & 7, b = rm;

	if (mod == 3 || x86insn_has_prefix(in, 0x67) || (mod == 0 && rm == 5))
		return false;
	if (rm == 4) {
		uint8_t sib = code[at++];

		if (((sib >> 3) & 7) != 4 || in->rex & 2 || (mod == 0 && (sib & 7) == 5))
			return false; /* an index, or no base */
		b = sib & 7;
	}
	*base = b | (in->rex & 1 ? 8 : 0);
	if (mod == 1) {
		*disp = (int8_t)code[at];
	} else if (mod == 2) {
		int32_t d;

		memcpy(&d, code + at, 4);
		*disp = d;
	} else {
		*disp = 0;
	}
	return at + (mod == 1 ? 1 : mod == 2 ? 4 : 0) == in->len;
}

/* push, pop and the instructions that name rsp and rbp themselves. */
static bool stack_ops(const struct x86insn *in, const uint8_t *code, struct x86stack_effect *out)
{
	unsigned op = in->opcode, reg = x86insn_modrm_reg(in);
	bool w = in->rex & 8, o16 = x86insn_has_prefix(in, 0x66);
	unsigned base;
	int64_t disp;

	out->kind = X86STACK_RSP_ADD;
	if ((op >= 0x50 && op <= 0x57) || op == 0x68 || op == 0x6a || op == 0x9c || (op == 0xff && reg == 6)) {
		out->delta = -8;
	} else if ((op >= 0x58 && op <= 0x5f) || op == 0x9d || (op == 0x8f && reg == 0)) {
		unsigned r = op == 0x8f ? (rm_is_reg(in) ? rm_of(in) : 0) : (op & 7) | (in->rex & 1 ? 8 : 0);

		out->delta = 8;
		if (op != 0x9d && r == 4)
			out->kind = X86STACK_UNKNOWN;
		else if (op != 0x9d && r == 5)
			out->kind = X86STACK_POP_RBP;
	} else if ((op == 0x81 || op == 0x83) && w && rm_is_reg(in) && rm_of(in) == 4 && (reg == 0 || reg == 5)) {
		int64_t imm = imm_at_end(in, code, op == 0x83 ? 1 : 4);

		out->delta = reg == 0 ? imm : -imm;
	} else if ((op == 0x89 || op == 0x8b) && w && rm_is_reg(in) &&
		   (reg_of(in) == 4 || reg_of(in) == 5) && (rm_of(in) == 4 || rm_of(in) == 5) &&
		   reg_of(in) != rm_of(in)) {
		unsigned dst = op == 0x89 ? rm_of(in) : reg_of(in);

		out->kind = dst == 5 ? X86STACK_RBP_FROM_RSP : X86STACK_RSP_FROM_RBP;
		out->delta = 0;
	} else if (op == 0x8d && w && (reg_of(in) == 4 || reg_of(in) == 5) && base_disp(in, code, &base, &disp) &&
		   (base == 4 || base == 5)) {
		out->delta = disp;
		if (reg_of(in) == 5)
			out->kind = base == 4 ? X86STACK_RBP_FROM_RSP : X86STACK_RBP_LOST;
		else if (base == 5)
			out->kind = X86STACK_RSP_FROM_RBP;
	} else if (op == 0xc9) {
		out->kind = X86STACK_LEAVE;
	} else {
		return false;
	}
	if (o16 && out->kind != X86STACK_RBP_LOST)
		out->kind = X86STACK_UNKNOWN; /* a 16-bit push or pop */
	return true;
}

/* The ModRM fields a one-byte-map instruction writes. */
static unsigned one_byte_writes(const struct x86insn *in)
{
	unsigned op = in->opcode, reg = x86insn_modrm_reg(in);

	if (op < 0x40 && (op & 7) < 4) /* add ... cmp */
		return op >= 0x38 ? 0 : (op & 2) ? REG : RM;
	switch (op) {
	case 0x63: case 0x69: case 0x6b: case 0x8a: case 0x8b: case 0x8d:
		return REG;
	case 0x80: case 0x81: case 0x83:
		return reg == 7 ? 0 : RM;
	case 0x84: case 0x85: case 0x8e: case 0xd8 ... 0xdf:
		return 0; /* test; mov to a segment register; x87 */
	case 0x86: case 0x87:
		return REG | RM;
	case 0x88: case 0x89: case 0x8c: case 0xc0: case 0xc1: case 0xc6: case 0xc7: case 0xd0 ... 0xd3:
		return RM;
	case 0xf6: case 0xf7:
		return reg == 2 || reg == 3 ? RM : 0; /* not, neg; test, mul, div read it */
	case 0xfe: case 0xff:
		return reg <= 1 ? RM : 0;
	default:
		return REG | RM;
	}
}

static void one_byte(const struct x86insn *in, const uint8_t *code, struct x86stack_effect *out)
{
	unsigned op = in->opcode, reg = x86insn_modrm_reg(in);

	if (stack_ops(in, code, out))
		return;
	out->kind = X86STACK_NONE;
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
		out->flow = X86FLOW_BRANCH;
	} else if (op == 0xe9 || op == 0xeb) {
		out->flow = X86FLOW_JUMP;
	} else if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb || op == 0xcf || op == 0xcc ||
		   op == 0xf1 || op == 0xf4 || (op == 0xff && (reg == 4 || reg == 5))) {
		out->flow = X86FLOW_END;
	} else if (op == 0xc7 && in->modrm == 0xf8) {
		out->flow = X86FLOW_BRANCH; /* xbegin */
	} else if (op == 0xc8 || op == 0xcd || op == 0xce || (op == 0xff && (reg == 3 || reg == 7)) || in->invalid) {
		out->kind = X86STACK_UNKNOWN; /* enter; int (a system call); a far call */
		out->flow = X86FLOW_END;
	} else if ((op >= 0x91 && op <= 0x97) || (op >= 0xb0 && op <= 0xbf)) {
		out->kind = writes_opreg(in); /* xchg with rax; mov of an immediate */
	} else if (in->has_modrm && !(op == 0xc7 && in->modrm == 0xf8) && !(op == 0xff && (reg == 2 || reg == 6))) {
		out->kind = writes(in, one_byte_writes(in));
	}
}

/* The 0f map without VEX: which fields the instruction writes. */
static unsigned map_0f_writes(const struct x86insn *in)
{
	unsigned op = in->opcode;

	switch (op) {
	case 0x0d: case 0x10 ... 0x1d: case 0x1f: case 0x28 ... 0x2b: case 0x2e: case 0x2f:
	case 0x51 ... 0x6f: case 0x70 ... 0x7d: case 0x7f: case 0xa3: case 0xc2 ... 0xc4: case 0xc6:
	case 0xd0 ... 0xd6: case 0xd8 ... 0xfe:
		return 0; /* vector registers and memory; bt, prefetch, movnti read */
	case 0x1e:
		return x86insn_is_nop(in) ? 0 : RM; /* endbr64; rdsspq */
	case 0xae: /* fences, fxsave, ldmxcsr...; rdfsbase, rdgsbase */
		return rm_is_reg(in) && x86insn_has_prefix(in, 0xf3) ? RM : 0;
	default:
		return REG | RM;
	}
}

static void map_0f(const struct x86insn *in, struct x86stack_effect *out)
{
	unsigned op = in->opcode;

	out->kind = X86STACK_NONE;
	if (op >= 0x80 && op <= 0x8f) {
		out->flow = X86FLOW_BRANCH;
	} else if (op == 0x0b || op == 0xb9 || op == 0xff) {
		out->flow = X86FLOW_END; /* ud2, ud1, ud0 */
	} else if (op >= 0xc8 && op <= 0xcf) {
		out->kind = writes_opreg(in); /* bswap */
	} else if (op == 0xa0 || op == 0xa1 || op == 0xa8 || op == 0xa9 || op == 0x05 || op == 0x07 ||
		   op == 0x34 || op == 0x35) {
		/* push/pop fs/gs; a system call (clone's child returns on
		 * another stack, rt_sigreturn loads another rsp); sysret ... */
		out->kind = X86STACK_UNKNOWN;
	} else if (in->has_modrm) {
		out->kind = writes(in, map_0f_writes(in));
	}
}

/* The 0f 38 and 0f 3a maps, legacy or VEX/EVEX (@vex), and VEX/EVEX
 * map 1 and EVEX map 5: the few that write a general register. */
static void vector(const struct x86insn *in, bool vex, struct x86stack_effect *out)
{
	unsigned op = in->opcode;
	unsigned fields = REG | RM;
	bool gpr;

	switch (in->map) {
	case X86_MAP_0F: /* VEX/EVEX only: cvt*2si, movmsk, movd/q out, pextrw, pmovmskb, kmov, cvt*2usi */
		gpr = op == 0x2c || op == 0x2d || op == 0x50 || op == 0x7e || op == 0xc5 || op == 0xd7 ||
		      op == 0x93 || op == 0x78 || op == 0x79;
		fields = op == 0x7e ? RM : REG;
		break;
	case X86_MAP_0F38: /* BMI, movbe, crc32, adcx/adox; andn ... shrx; mulx and blsr write vvvv */
		if (vex && (op == 0xf3 || op == 0xf6)) {
			out->kind = X86STACK_UNKNOWN;
			return;
		}
		gpr = op >= 0xf0;
		break;
	case X86_MAP_0F3A: /* pextrb/w/d/q, extractps; rorx */
		gpr = (op >= 0x14 && op <= 0x17) || op >= 0xf0;
		fields = op >= 0xf0 ? REG | RM : RM;
		break;
	case 5: /* EVEX AVX512-FP16 */
		gpr = op == 0x2c || op == 0x2d || op == 0x78 || op == 0x79 || op == 0x7e;
		fields = op == 0x7e ? RM : REG;
		break;
	case 6:
		gpr = false;
		break;
	default:
		out->kind = X86STACK_UNKNOWN;
		return;
	}
	out->kind = gpr ? writes(in, fields) : X86STACK_NONE;
}

void x86stack_classify(const struct x86insn *in, const uint8_t *code, struct x86stack_effect *out)
{
	*out = (struct x86stack_effect){ .kind = X86STACK_NONE, .flow = X86FLOW_NEXT };
	if (in->enc == X86_XOP) {
		out->kind = X86STACK_UNKNOWN; /* AMD's TBM writes a register its prefix names */
	} else if (in->enc != X86_LEGACY) {
		vector(in, true, out);
	} else if (in->map == X86_MAP_ONE) {
		one_byte(in, code, out);
	} else if (in->map == X86_MAP_0F) {
		map_0f(in, out);
	} else {
		vector(in, false, out);
	}
}
