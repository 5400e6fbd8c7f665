/* x86stack.h - what one decoded x86-64 instruction does to rsp and rbp,
 * and where control goes after it: enough to follow a function's stack
 * pointer from its entry (dwarf/fnstack.h).
 *
 * Layer rule: util/ depends on nothing else in wraith.  64-bit mode only.
 *
 * The classification errs one way only: an instruction it does not know
 * to leave rsp alone is X86STACK_UNKNOWN, one it does not know to leave
 * rbp alone at least X86STACK_RBP_LOST.  So are the forms a compiler does
 * not emit for the stack pointer (a 32- or 16-bit operand, `enter`, `and`
 * for realignment, an alloca's `sub %rax,%rsp`).  An operand in memory
 * never counts (writing the stack leaves rsp alone); an 8-bit register
 * numbered 4 or 5 counts as rsp or rbp even without REX (ah, ch), and
 * under VEX or EVEX so do 12 and 13 (the prefix's inverted bits are not
 * read).
 */
#ifndef WRAITH_UTIL_X86STACK_H
#define WRAITH_UTIL_X86STACK_H

#include <stdint.h>

struct x86insn;

enum x86stack_kind {
	X86STACK_NONE,         /* neither changes (a call returns with rsp as it was) */
	X86STACK_RSP_ADD,      /* rsp += delta (push -8, pop 8, add/sub/lea of a constant) */
	X86STACK_POP_RBP,      /* rsp += 8, rbp no longer known */
	X86STACK_RBP_FROM_RSP, /* rbp = rsp + delta (mov %rsp,%rbp: 0) */
	X86STACK_RSP_FROM_RBP, /* rsp = rbp + delta (mov %rbp,%rsp; lea -0x28(%rbp),%rsp) */
	X86STACK_LEAVE,        /* rsp = rbp + 8, rbp no longer known */
	X86STACK_RBP_LOST,     /* rbp written otherwise, rsp left alone */
	X86STACK_UNKNOWN,      /* rsp (and rbp) written in some other way */
};

/* Where control goes after the instruction. */
enum x86stack_flow {
	X86FLOW_NEXT,   /* the next instruction (calls included) */
	X86FLOW_JUMP,   /* the branch target only (jmp rel) */
	X86FLOW_BRANCH, /* the next instruction or the branch target (jcc, loop, xbegin) */
	X86FLOW_END,    /* nowhere known: ret, an indirect jump, ud2, hlt, int3 */
};

struct x86stack_effect {
	enum x86stack_kind kind;
	enum x86stack_flow flow;
	int64_t delta;  /* bytes, as the kind says */
};

/* Classify @in, decoded from the bytes at @code (at least in->len of
 * them: a displacement and an immediate are read from there).  A call
 * is X86FLOW_NEXT: whether its target lies inside the function (code
 * that calls to push its own address, not to return) is the caller's to
 * check, with x86insn_branch_target(). */
void x86stack_classify(const struct x86insn *in, const uint8_t *code, struct x86stack_effect *out);

#endif
