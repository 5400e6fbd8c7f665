/* decode.h - validating and decoding events from the wire.
 *
 * Layer rule: protocol/ depends on util/ only.  The event path is
 * validate (sizes, lengths) → decode into typed values → render; nothing
 * downstream reads raw bytes.  The decoder copies each event into its own
 * aligned buffer first (perf buffer samples may be unaligned), so decoded
 * values point into that copy and stay valid until the next
 * event_decoder_run() or event_decoder_release().
 */
#ifndef WRAITH_PROTOCOL_DECODE_H
#define WRAITH_PROTOCOL_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/wire.h"

struct ev_arg {
	uint8_t kind;        /* enum wr_arg_kind */
	uint8_t status;      /* enum wr_arg_status */
	uint32_t aux;
	uint64_t value;      /* scalars; WR_ARG_CSTR and ATTACH: the pointer; DUMP: the address */
	const uint8_t *data; /* WR_ARG_STR, CSTR, ATTACH, BYTES, PIECES: bytes (not NUL-terminated) */
	size_t len;
	const uint8_t *unavail; /* WR_ARG_PIECES: len bytes, a bit set for each bit of data
				 * not kept; else NULL */
	const struct ev_arg *attach; /* the WR_ARG_ATTACH strings that followed it */
	size_t n_attach;
	size_t first_attach; /* decoder-internal */
};

struct ev_print {
	uint16_t index;      /* format index within the probe */
	struct ev_arg *args; /* borrowed from the decoder */
	size_t n_args;
	size_t first_arg;    /* decoder-internal: index of args[0] */
	/* What a WR_ITEM_CALLER after it captured for its values the
	 * caller passed (wire.h), n_caller arguments; NULL when none. */
	const struct ev_arg *caller;
	size_t n_caller;
	size_t first_caller; /* decoder-internal */
};

/* Why a bt with frame values (args, full) came without the stack copy
 * its values are read from: what the kernel and the event say of it. */
enum ev_no_stack {
	EV_STACK_OK = 0,        /* it has the copy, or wants none */
	EV_STACK_NO_ROOM,       /* the event was at its size limit (WR_BT_F_NO_ROOM; the
				 * event is WR_EVENT_F_TRUNCATED) */
	EV_STACK_OTHER_BT,      /* the event's one copy is another bt's */
	EV_STACK_UNFINISHED,    /* the walk did not end in the kernel (internal error) */
	EV_STACK_LOST,          /* the kernel attached it (WR_BT_F_STACK), the event lacks it */
	EV_STACK_NOT_TRIED,     /* the kernel attached none and says nothing of why */
};

struct ev_backtrace {
	uint16_t index;      /* bt statement index within the probe */
	uint16_t requested_depth;
	uint16_t frame_count;
	uint8_t flags;       /* WR_BT_F_* */
	uint8_t status;      /* enum wr_bt_status */
	uint16_t error;      /* enum wr_bt_error */
	const struct wr_bt_frame *frames; /* frame_count entries, borrowed */
	/* When the kernel handed the rest of the walk over to userspace (status
	 * offsets-unavailable at the last frame, WR_STACK_F_HANDOVER), or the
	 * bt shows frame values: the copy of the stack (stack->len bytes at
	 * stack_data) and where the walk stopped, borrowed; else NULL. */
	const struct wr_stack_header *stack;
	const uint8_t *stack_data;
	/* A bt with frame values (args, full): frame 0's registers; the copy
	 * then starts at frame 0's stack pointer.  Else NULL. */
	const struct wr_stack_regs *regs;
	uint8_t no_stack;    /* enum ev_no_stack: why a bt with frame values has no copy */
	/* The referents of frame 0's references, copied at the hit
	 * (WR_ITEM_REFS before it): print arguments, each with its
	 * WR_ARG_ATTACH_REFERENCE address.  n_refs of them, borrowed. */
	const struct ev_arg *refs;
	size_t n_refs;
	size_t first_ref;    /* decoder-internal: index of refs[0] */
	/* What the outer frames' values point to, copied after the walk by
	 * the chain's recipe (WR_ITEM_OUTER after the stack copy): its
	 * attachments are the copies (WR_ARG_MEM, by address); NULL when the
	 * event has none (the chain's first event).  Borrowed. */
	const struct ev_arg *outer;
};

/* A frame's address as the renderers show it: module-relative when its
 * module is known, the raw ip otherwise. */
static inline uint64_t ev_frame_pc(const struct wr_bt_frame *f)
{
	return f->cookie ? f->pc : f->ip;
}

struct ev_expr_error {
	uint16_t index;      /* the expression's number in the probe (script/walk.h) */
	uint8_t code;        /* enum wr_arg_status */
	uint8_t flags;       /* WR_EXPR_F_* */
	uint64_t addr;       /* the failing address, 0 for NULL */
};

struct ev_item {
	uint8_t type;        /* enum wr_item_type */
	union {
		struct ev_print print;
		struct ev_backtrace bt;
		struct ev_expr_error xerr;
	};
};

struct event {
	struct wr_event_header hdr;
	struct ev_item *items; /* borrowed from the decoder */
	size_t n_items;
};

struct event_decoder {
	uint64_t *copy;        /* owned, aligned copy of the last event */
	size_t copy_cap;       /* in uint64_t units */
	struct ev_item *items; /* owned */
	size_t cap_items;
	struct ev_arg *args;   /* owned, shared by all print items */
	size_t cap_args;
	struct ev_arg *attach; /* owned: WR_ARG_ATTACH strings of all arguments */
	size_t cap_attach;
	size_t n_attach;
};

void event_decoder_init(struct event_decoder *d);
void event_decoder_release(struct event_decoder *d);

/* Decode @size bytes at @data.  Returns 0, or -WR_EPROTO for a malformed
 * event (bad magic, lengths that overrun, unknown item types are skipped
 * but counted as malformed only when their length is wrong).  A stack copy
 * (WR_ITEM_STACK) is not an item of its own: it is attached to the
 * backtrace it continues, and so are the referents before it
 * (WR_ITEM_REFS). */
int event_decode(struct event_decoder *d, const void *data, size_t size, struct event *out);

#endif
