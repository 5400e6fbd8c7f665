/* status.h - labels and explanations of backtrace statuses and error codes.
 *
 * Layer rule: render/ depends on util/, protocol/ and dwarf/ (types only).
 * One X-macro table per code family; the label, the number, the tone and
 * the explanation shown in output, in the diagnosis view and in
 * doc/status-codes.md all come from here.  Unknown numbers get "unknown".
 */
#ifndef WRAITH_RENDER_STATUS_H
#define WRAITH_RENDER_STATUS_H

#include <stdint.h>

#include "render/span.h"

/* enum value, label, how it went (the colour of its lines), explanation,
 * what would fix it */
#define WR_BT_STATUS_TABLE(X) \
	X(WR_BT_COMPLETE,            "complete",             SPAN_TONE_GOOD, "the stack was walked to its outermost frame (_start, clone or an undefined return address)", "nothing: the backtrace is whole") \
	X(WR_BT_TRUNCATED,           "truncated",            SPAN_TONE_WARN, "the requested depth (--backtrace-depth) was reached first", "raise --backtrace-depth (at most 1024) if the outer frames matter") \
	X(WR_BT_DWARF_UNAVAILABLE,   "dwarf-unavailable",    SPAN_TONE_WARN, "the module of this frame has no call frame information (.eh_frame or .debug_frame) at all", "rebuild the module with -fasynchronous-unwind-tables, or install its debug info") \
	X(WR_BT_UNSUPPORTED_CFI,     "unsupported-cfi",      SPAN_TONE_WARN, "the unwind rule at this pc is a DWARF expression or uses a register the in-kernel unwinder does not track", "none in wraith yet; the rule is shown by `info cfi PC`") \
	X(WR_BT_OFFSETS_UNAVAILABLE, "offsets-unavailable",  SPAN_TONE_WARN, "the frame's address is in no file-backed mapping of the process, even after wraith re-read its mappings (JIT code, anonymous executable memory), or its mapping changed before wraith could read it", "JIT code cannot be unwound from CFI; a library unloaded right after the event cannot be read any more") \
	X(WR_BT_READ_ERROR,          "read-error",           SPAN_TONE_BAD,  "reading the target's stack failed (paged out or unmapped memory)", "usually transient (a stack page paged out); --fault-in faults it in") \
	X(WR_BT_INTERNAL_ERROR,      "internal-error",       SPAN_TONE_BAD,  "the unwinder's state was missing, its tail call failed, or a rule its row names was missing from the kernel's maps", "report a bug with `wraith -v` output") \
	X(WR_BT_INVALID_FRAME,       "invalid-frame",        SPAN_TONE_BAD,  "the next frame failed validation, so it was not reported", "the stack may be corrupt, or the CFI wrong for this code") \
	X(WR_BT_NO_ROWS_FOR_PC,      "no-unwind-rows-for-pc", SPAN_TONE_WARN, "the module has call frame information, but none covers this pc", "hand-written assembly without CFI directives; add .cfi_* directives")

#define WR_BT_ERROR_TABLE(X) \
	X(WR_BTE_NONE,                  "none",                       "no error") \
	X(WR_BTE_RETURN_ADDRESS_READ,   "return-address-read",        "the return address could not be read from the stack") \
	X(WR_BTE_FRAME_POINTER_READ,    "frame-pointer-read",         "the CFA needed rbp, whose read from the stack failed at an earlier frame, or reading the CFA itself failed (a CFA stored on the stack, as after stack realignment)") \
	X(WR_BTE_NEXT_IP_BELOW_USER,    "next-ip-below-user",         "the recovered return address is below 0x1000, which no user code occupies") \
	X(WR_BTE_NEXT_IP_KERNEL_LIKE,   "next-ip-kernel-like",        "the recovered return address has its top byte set, like a kernel address") \
	X(WR_BTE_NEXT_CFA_ZERO,         "next-cfa-zero",              "the computed canonical frame address is zero") \
	X(WR_BTE_NEXT_CFA_NOT_ADVANCING, "next-cfa-not-advancing",    "the caller's frame is not above this one on the stack, so the walk would loop")

/* Label of a status ("complete", ...); "unknown" for other values. */
const char *bt_status_label(unsigned status);
const char *bt_status_explain(unsigned status);
const char *bt_status_fix(unsigned status);
/* Good for complete, a warning where the stack ended for a known reason
 * (depth, missing or unsupported CFI, an unknown module), bad for errors. */
enum span_tone bt_status_tone(unsigned status);
/* Label of an error code ("return-address-read",        ...). */
const char *bt_error_label(unsigned error);
const char *bt_error_explain(unsigned error);
/* Status by label, or -1. */
int bt_status_from_label(const char *label);

#endif
