/* x86_64.h - the facts of the machine wraith traces, in one place: the
 * DWARF numbers of its registers (System V x86-64 psABI), their names,
 * where a uprobe's struct pt_regs keeps each, and where a signal frame's
 * ucontext keeps the ones the unwinder reads.
 *
 * Layer rule: arch/ depends on nothing but <linux/types.h>, so every
 * folder may use it, and the BPF templates (clang -target bpf) include it
 * through protocol/wire.h, as userspace does: both sides read the same
 * numbers.  Only what the code uses is here.
 */
#ifndef WRAITH_ARCH_X86_64_H
#define WRAITH_ARCH_X86_64_H

#include <linux/types.h>

/* X(DWARF number, name, struct pt_regs member): the general-purpose
 * registers and rip, the ones a uprobe's pt_regs holds, in DWARF order. */
#define X86_DWARF_REGS(X) \
	X(0, rax, ax) X(1, rdx, dx) X(2, rcx, cx) X(3, rbx, bx) \
	X(4, rsi, si) X(5, rdi, di) X(6, rbp, bp) X(7, rsp, sp) \
	X(8, r8, r8) X(9, r9, r9) X(10, r10, r10) X(11, r11, r11) \
	X(12, r12, r12) X(13, r13, r13) X(14, r14, r14) X(15, r15, r15) \
	X(16, rip, ip)

#define X86_DWARF_REG_ENUM(n, name, field) X86_DWARF_##name = n,
enum x86_dwarf_reg {
	X86_DWARF_REGS(X86_DWARF_REG_ENUM)
	X86_DWARF_NREGS,             /* 17: registers 0..16 are a probe's to read */
};
#undef X86_DWARF_REG_ENUM

/* Ranges of DWARF numbers a uprobe cannot read (its pt_regs holds none of
 * them): the vector registers xmm0-15 and xmm16-31, the x87 stack, MMX. */
#define X86_DWARF_XMM0   17
#define X86_DWARF_XMM15  32
#define X86_DWARF_ST0    33
#define X86_DWARF_ST7    40
#define X86_DWARF_MM0    41
#define X86_DWARF_MM7    48
#define X86_DWARF_XMM16  67
#define X86_DWARF_XMM31  82

/* The members of the kernel's struct pt_regs (arch/x86/include/asm/
 * ptrace.h), in its order: what a uprobe hands its program, and what the
 * template copies for userspace to unwind from (struct wr_stack_regs). */
#define X86_PT_REGS_MEMBERS \
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8; \
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;

struct x86_pt_regs {
	X86_PT_REGS_MEMBERS
};
_Static_assert(sizeof(struct x86_pt_regs) == 168, "pt_regs size");

/* The byte offset in struct pt_regs of DWARF register @reg (< NREGS). */
static inline unsigned x86_pt_regs_offset(unsigned reg)
{
	switch (reg) {
#define X86_PT_REGS_CASE(n, name, field) \
	case n: return __builtin_offsetof(struct x86_pt_regs, field);
	X86_DWARF_REGS(X86_PT_REGS_CASE)
#undef X86_PT_REGS_CASE
	}
	return 0;
}

/* Whether a call leaves DWARF register @reg as it was (the psABI's
 * callee-saved rbx, rbp, rsp and r12-r15); every other one, the vector
 * registers included, a callee may change. */
static inline int x86_call_preserves(unsigned reg)
{
	return reg == X86_DWARF_rbx || reg == X86_DWARF_rbp || reg == X86_DWARF_rsp ||
	       (reg >= X86_DWARF_r12 && reg <= X86_DWARF_r15);
}

/* The name of DWARF register @reg ("rbp"), or "r?" for one the probe
 * cannot read. */
static inline const char *x86_dwarf_reg_name(unsigned reg)
{
	switch (reg) {
#define X86_DWARF_NAME_CASE(n, name, field) \
	case n: return #name;
	X86_DWARF_REGS(X86_DWARF_NAME_CASE)
#undef X86_DWARF_NAME_CASE
	}
	return "r?";
}

/* Offsets into the ucontext_t the kernel pushes for a signal handler, as
 * seen from rsp at the trampoline (uc_mcontext at 40; gregs in the
 * REG_R8.. order). */
#define X86_UCTX_RBP 120
#define X86_UCTX_RSP 160
#define X86_UCTX_RIP 168

#endif
