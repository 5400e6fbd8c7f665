/* walk.h - finishing in userspace a backtrace the kernel handed over.
 *
 * Layer rule: unwind/ (see unwind/step.h for the step it shares with the
 * kernel); this file depends on protocol/wire.h only (rows, rules,
 * frames): the caller supplies the lookup of an instruction pointer
 * (module, bias and rule), so it knows nothing of processes or modules
 * and is tested with canned rows and memory.
 *
 * When the in-kernel walk reaches a frame whose address is in no mapping
 * the kernel knows (a library mapped since the last refresh, a process not
 * seen yet), it stops there and hands over the frame's registers and a
 * copy of the stack above it (struct wr_stack_header).  Userspace learns
 * the mapping and continues here, with the same rows and the kernel's own
 * step (unwind/step.h), reading only the copy: the frames it adds are the
 * frames the stack held when the probe fired.
 */
#ifndef WRAITH_UNWIND_WALK_H
#define WRAITH_UNWIND_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire.h"

/* The registers of the frame being unwound. */
struct uw_regs {
	uint64_t ip;
	uint64_t sp;
	uint64_t bp;
	uint8_t flags;      /* WR_SLOT_F_BP_VALID, WR_SLOT_F_EXACT, WR_SLOT_F_BP_READ_FAILED */
};

/* A copy of user memory: @len bytes that were at @base. */
struct uw_memory {
	uint64_t base;
	const uint8_t *data; /* borrowed */
	size_t len;
};

/* What the caller knows about an instruction pointer. */
struct uw_where {
	uint64_t cookie;                 /* module cookie, 0 = in no known module */
	uint64_t bias;                   /* runtime address - ELF address */
	const struct wr_cfi_rule *rule;  /* borrowed; NULL with status set */
	uint8_t status;                  /* when rule is NULL: why (a wr_bt_status) */
};

/* Finds the module and rule of @ip; @exact: ip is not a return address
 * (look up ip itself, not ip - 1).  Fills @out and returns 0. */
typedef int (*uw_lookup_fn)(void *ctx, uint64_t ip, bool exact, struct uw_where *out);

/* Walk from @regs, appending one frame per step to @frames (which holds
 * *@n frames already and room for @depth), until the stack ends, a frame
 * cannot be unwound, or @depth frames are there.  Returns the walk's
 * status (a wr_bt_status) and sets *@error (a wr_bt_error). */
uint8_t uw_walk(uw_lookup_fn lookup, void *ctx, struct uw_regs *regs, const struct uw_memory *mem,
		struct wr_bt_frame *frames, size_t *n, size_t depth, uint16_t *error);

#endif
