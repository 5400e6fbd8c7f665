/* x86insn.h - one x86-64 instruction decoded far enough to say what it
 * is: its length, legacy prefixes, encoding (legacy, VEX, EVEX, XOP),
 * opcode map and byte, ModRM, and the displacement of a direct branch.
 * What the instruction does is not decoded.
 *
 * Layer rule: util/ depends on nothing else in wraith.  64-bit mode only.
 * Facts from the Intel and AMD manuals' opcode maps; used to tell where
 * the kernel's uprobes can go (runtime/uprobe_insn.h) and to step through
 * a function's code (tracer/place.c).
 */
#ifndef WRAITH_UTIL_X86INSN_H
#define WRAITH_UTIL_X86INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_MAX_INSN 15

enum x86_encoding {
	X86_LEGACY,
	X86_VEX,  /* c4, c5 */
	X86_EVEX, /* 62 */
	X86_XOP,  /* 8f with a map select of 8 or more (AMD) */
};

/* Opcode maps: the one-byte map, then the escapes; for VEX, EVEX and XOP
 * the map number their prefix selects (1 = 0f, 2 = 0f 38, 3 = 0f 3a). */
enum x86_map {
	X86_MAP_ONE = 0,
	X86_MAP_0F = 1,
	X86_MAP_0F38 = 2,
	X86_MAP_0F3A = 3,
};

struct x86insn {
	uint8_t len;               /* bytes, 1..15 */
	uint8_t prefixes[11];      /* legacy prefix bytes, in order */
	uint8_t n_prefixes;
	uint8_t rex;               /* 0 when none */
	enum x86_encoding enc;
	uint8_t map;               /* enum x86_map, or the VEX/EVEX/XOP map */
	uint8_t opcode;            /* the byte in its map */
	bool has_modrm;
	uint8_t modrm;
	uint8_t modrm_at;          /* its offset in the instruction (SIB, displacement follow) */
	bool invalid;              /* an opcode that is not valid in 64-bit mode */
	bool rel;                  /* a direct jump or call: rel is its displacement */
	int32_t rel_disp;
};

/* Decode the instruction at @code (@n bytes readable).  Returns 0,
 * -ENODATA when it runs past @n bytes (or past 15), or -EINVAL for an
 * encoding this decoder does not know (then *@out is partly filled).
 * An opcode invalid in 64-bit mode decodes (1 byte plus prefixes) with
 * invalid set. */
int x86insn_decode(const uint8_t *code, size_t n, struct x86insn *out);

/* True when legacy prefix @p is among the instruction's prefixes. */
bool x86insn_has_prefix(const struct x86insn *in, uint8_t p);
/* ModRM's reg field (bits 5:3); 0 without ModRM. */
unsigned x86insn_modrm_reg(const struct x86insn *in);

/* True for an instruction that changes nothing but the instruction
 * pointer: nop and pause (90 without REX.B), the long nop 0f 1f /0, and
 * endbr64/endbr32 (f3 0f 1e fa/fb); with any prefixes but lock (which
 * makes them #UD). */
bool x86insn_is_nop(const struct x86insn *in);

/* The general registers instruction @in writes, in *@mask (bit n:
 * register n in the hardware's numbering, rax 0, rcx 1, rdx 2, rbx 3,
 * rsp 4, rbp 5, rsi 6, rdi 7, r8 8 ... r15 15), for the instructions a
 * function's first ones are made of: push, mov, movzx/movsx, lea, the
 * ALU operations, shifts, cmov/setcc, imul, test/cmp, nops and stores
 * of vector registers.  False for any other instruction - a branch or
 * call, a pop, string and multiply/divide forms with implicit
 * registers, anything writing a vector register, VEX/EVEX/XOP - whose
 * effect on the registers is not known here.
 *
 * util/x86stack.c asks a narrower question of the same opcode maps
 * (can this write rsp or rbp?) and answers it the other way round: a
 * ModRM form it does not know writes both fields, and the registers an
 * instruction writes without naming them (cpuid, rdtsc, cmpxchg's rax,
 * string operations) are no concern of it, since none is rsp or rbp
 * outside the stack operations it decodes itself.  Here every register
 * written must be known, so a form not listed is refused. */
bool x86insn_gpr_writes(const struct x86insn *in, uint16_t *mask);

/* For a direct jump, conditional jump, loop or call at address @addr:
 * true, with the target in *@target. */
bool x86insn_branch_target(const struct x86insn *in, uint64_t addr, uint64_t *target);
/* True for an indirect jump (ff /4, ff /5): it may go anywhere. */
bool x86insn_is_indirect_jump(const struct x86insn *in);

#endif
