/* uprobe_insn.h - which x86-64 instructions the kernel's uprobes take.
 *
 * Layer rule: runtime/ (the kernel side); no libbpf here, only facts of
 * the kernel's arch/x86/kernel/uprobes.c (the same from Linux 4.x to
 * 6.18 unless said otherwise), checked against the running kernel by
 * test_runtime.
 *
 * A uprobe replaces an instruction's first byte with int3 and, on a hit,
 * runs the instruction single-stepped from a copy, or emulates it.
 * Registering one fails with ENOTSUPP (errno 524) when the instruction
 * has an ES, CS, SS or DS segment-override prefix (26 2e 36 3e, as in the
 * long no-ops compilers pad loops with: 66 2e 0f 1f 84 ...) or a LOCK
 * prefix (f0); when its opcode byte is one the kernel will not single-step
 * (int3, int, into, iret, hlt, cli, sti, in, out, ins, outs, int1, or one
 * invalid in 64-bit mode); when it loads SS (mov to SS, pop ss); or when
 * a jump or call (e8 e9 eb, 70-7f, 0f 80-8f) has an operand-size prefix
 * (66).  It fails with ENOEXEC when the kernel's decoder cannot decode it.
 * The opcode check looks at the byte after the prefixes for the legacy
 * encoding (0f: every two- and three-byte opcode passes), but for AVX
 * (VEX, EVEX) instructions it looks at the opcode byte of their own map
 * as if it were a one-byte opcode: vmovdqu (c5 fe 6f) and vpxor (c5 f9 ef)
 * are refused.
 *
 * The same confusion makes the kernel accept AVX instructions it then
 * runs wrongly: one whose opcode byte is a jump's (70-7f, e8, e9, eb) or
 * nop's (90) is emulated as that jump or call - the instruction never
 * runs (vpcmpeqb c5 f9 74, vmovdqa stores c5 f9 7f, vzeroupper c5 f8 77),
 * or a call pushes a return address; popf's (9d) leaves the thread
 * single-stepping; a return's (c2 c3 ca cb) leaves the instruction
 * pointer in the kernel's copy (vcmpps c5 f8 c2).  Kernels from late
 * 2025 on also emulate what they take for a nop (mov, lea, xchg of a
 * register to itself: opcode bytes 87 89 8b 8d).  wraith places no probe
 * on those.
 */
#ifndef WRAITH_RUNTIME_UPROBE_INSN_H
#define WRAITH_RUNTIME_UPROBE_INSN_H

#include <stddef.h>
#include <stdint.h>

#include "util/x86insn.h"

enum uprobe_verdict {
	UPROBE_INSN_OK,       /* the kernel takes it */
	UPROBE_INSN_REFUSED,  /* registering a uprobe there fails */
	UPROBE_INSN_MISRUN,   /* it registers, but the kernel runs the instruction wrongly */
	UPROBE_INSN_UNKNOWN,  /* not decoded here, or kernels differ: the kernel decides */
};

/* Judge the instruction at @code (@n bytes readable, 16 are enough).
 * *@in is the instruction decoded (len 0 when it does not decode).  For
 * REFUSED and MISRUN, *@why says what about it, in words ("its CS
 * segment-override prefix (2e)"); a static string or one in @buf
 * (@size bytes). */
enum uprobe_verdict uprobe_insn_judge(const uint8_t *code, size_t n, struct x86insn *in,
				      const char **why, char *buf, size_t size);

/* What a uprobe attach's error @err (negative errno) means, for a user:
 * "the kernel's uprobes cannot single-step this instruction" for
 * -ENOTSUPP; NULL for errors that are not about the instruction. */
const char *uprobe_insn_error(int err);

#endif
