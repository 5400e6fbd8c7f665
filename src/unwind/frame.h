/* frame.h - a frame's registers and its caller's, by the module's full
 * call frame information: every register the rules restore, not only what
 * the compact rows and the walk carry (rip, rsp, rbp: step.h).  This is
 * what a frame's variables need: a caller's values live in the
 * callee-saved registers (rbx, rbp, r12-r15) its callees pushed, and in
 * its own stack slots through its CFA; and only userspace has the full
 * CFI (libdw evaluates it, DWARF expressions included).  Frame values use
 * a frame's registers only where they lead to the frame the walk found.
 *
 * Layer rule: unwind/ (see cfi.h); memory comes through a callback, so
 * this works on a copy of a stack as well as on a live one.
 */
#ifndef WRAITH_UNWIND_FRAME_H
#define WRAITH_UNWIND_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire.h"

struct dw_module;

/* Registers by their DWARF numbers on x86-64 (arch/x86_64.h): rax 0 ...
 * rip 16. */
#define UW_FRAME_NREGS X86_DWARF_NREGS

struct uw_frame_regs {
	uint64_t v[UW_FRAME_NREGS]; /* runtime values */
	uint32_t known;             /* bit n: v[n] holds register n */
};

/* Read @len bytes of the process's memory at @addr into @buf.  Returns 0
 * or -1 when they are not available. */
typedef int (*uw_mem_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* @regs are the registers of a frame in @m whose module address is @pc
 * (@exact: pc is not a return address; else the row of pc - 1 applies).
 * Fills *@cfa with the frame's canonical frame address and @caller with
 * its caller's registers: rip is the return address, rsp the CFA, each
 * register by its rule (a register the rules leave undefined is unknown).
 * *@caller_exact is true when the caller was interrupted by a signal (its
 * pc is then exact).  Returns 0, -ENOENT when no row covers pc, or
 * -ENOTSUP for a rule that needs what is not known (a register or memory
 * beyond the copy). */
int uw_frame_step(struct dw_module *m, uint64_t pc, bool exact, const struct uw_frame_regs *regs,
		  uw_mem_fn mem, void *ctx, uint64_t *cfa, struct uw_frame_regs *caller,
		  bool *caller_exact);

#endif
