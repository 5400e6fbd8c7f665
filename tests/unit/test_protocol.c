/* test_protocol.c - the wire format: layouts as both sides see them, the
 * packing of entry-point arguments, and the decoder on good, truncated and
 * corrupted events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "eventbuf.h"
#include "protocol/decode.h"
#include "util/error.h"

static void build_sample(struct eventbuf *b)
{
	struct wr_bt_frame fr[2] = {
		{ .cookie = 1, .pc = 0x1139, .ip = 0x555555555139, .flags = WR_FRAME_F_EXACT_IP },
		{ .cookie = 2, .pc = 0x2724a, .ip = 0x7ffff7dfa24a },
	};

	eb_begin(b, 7, 100, 101, 123456789);
	eb_item(b, WR_ITEM_PRINT, 3);
	eb_arg(b, WR_ARG_I64, (uint64_t)-5);
	eb_str(b, "hello");
	eb_arg(b, WR_ARG_BOOL, 1);
	eb_close_item(b);
	eb_item(b, WR_ITEM_BACKTRACE, 0);
	eb_bt(b, 4, WR_BT_F_INLINE, WR_BT_TRUNCATED, 0, fr, 2);
	eb_close_item(b);
}

static void test_decode_good(void **state)
{
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	build_sample(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.hdr.probe_id, 7);
	assert_int_equal(ev.hdr.pid, 100);
	assert_int_equal(ev.hdr.tid, 101);
	assert_int_equal(ev.hdr.timestamp_ns, 123456789);
	assert_int_equal(ev.n_items, 2);
	assert_int_equal(ev.items[0].type, WR_ITEM_PRINT);
	assert_int_equal(ev.items[0].print.index, 3);
	assert_int_equal(ev.items[0].print.n_args, 3);
	assert_int_equal((int64_t)ev.items[0].print.args[0].value, -5);
	assert_int_equal(ev.items[0].print.args[1].kind, WR_ARG_STR);
	assert_int_equal(ev.items[0].print.args[1].len, 6);
	assert_memory_equal(ev.items[0].print.args[1].data, "hello", 6);
	assert_int_equal(ev.items[0].print.args[2].value, 1);
	assert_int_equal(ev.items[1].type, WR_ITEM_BACKTRACE);
	assert_int_equal(ev.items[1].bt.requested_depth, 4);
	assert_int_equal(ev.items[1].bt.frame_count, 2);
	assert_int_equal(ev.items[1].bt.status, WR_BT_TRUNCATED);
	assert_int_equal(ev.items[1].bt.frames[1].pc, 0x2724a);
	assert_int_equal(ev.items[1].bt.frames[0].flags, WR_FRAME_F_EXACT_IP);
	event_decoder_release(&d);
}

/* Perf buffer samples can start at any byte: the decoder copies first. */
static void test_decode_unaligned(void **state)
{
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;
	uint8_t *raw = malloc(WR_EVENT_MAX + 8);

	(void)state;
	build_sample(&b);
	memcpy(raw + 3, b.data, b.len);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, raw + 3, b.len, &ev), 0);
	assert_int_equal(ev.items[1].bt.frames[0].ip, 0x555555555139);
	event_decoder_release(&d);
	free(raw);
}

static int decode_mutated(size_t offset, const void *bytes, size_t n, size_t size_delta)
{
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;
	int err;

	build_sample(&b);
	memcpy(b.data + offset, bytes, n);
	event_decoder_init(&d);
	err = event_decode(&d, b.data, b.len - size_delta, &ev);
	event_decoder_release(&d);
	return err;
}

static void test_decode_malformed(void **state)
{
	uint32_t bad_magic = 0x12345678, huge = 60000;
	uint16_t long_item = 5000;
	uint16_t count_over_depth = 9, deep = WR_BT_MAX_DEPTH + 1;

	(void)state;
	assert_int_equal(decode_mutated(0, &bad_magic, 4, 0), -WR_EPROTO);
	assert_int_equal(decode_mutated(offsetof(struct wr_event_header, payload_len), &huge, 4, 0),
			 -WR_EPROTO);
	/* truncated: the last bytes of the backtrace are missing */
	assert_int_equal(decode_mutated(0, "\x49\x41\x52\x57", 4, 16), -WR_EPROTO);
	/* the first item claims more bytes than the event has */
	assert_int_equal(decode_mutated(32 + 2, &long_item, 2, 0), -WR_EPROTO);
	/* frame_count beyond the requested depth */
	{
		struct eventbuf b;
		size_t bt_off;

		build_sample(&b);
		bt_off = b.item + sizeof(struct wr_item_header);
		assert_int_equal(decode_mutated(bt_off + offsetof(struct wr_bt_header, frame_count),
						&count_over_depth, 2, 0), -WR_EPROTO);
		assert_int_equal(decode_mutated(bt_off, &deep, 2, 0), -WR_EPROTO);
	}
	/* too short to hold a header */
	{
		struct event_decoder d;
		struct event ev;
		uint8_t tiny[8] = { 0 };

		event_decoder_init(&d);
		assert_int_equal(event_decode(&d, tiny, sizeof(tiny), &ev), -WR_EPROTO);
		event_decoder_release(&d);
	}
}

/* An expression error item, and a memory dump (its address first). */
static void test_decode_expr_error_and_dump(void **state)
{
	struct wr_expr_error x = { .addr = 0x10, .code = WR_ARG_READ_ERROR,
				   .flags = WR_EXPR_F_FIRST_ARG | WR_EXPR_F_LEN_CLAMPED };
	struct wr_arg_header ah = { .kind = WR_ARG_DUMP, .len = 8 + 4, .aux = 300 };
	uint8_t dump[16] = { 0x34, 0x12, 0, 0, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef };
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	eb_begin(&b, 1, 2, 3, 4);
	eb_item(&b, WR_ITEM_EXPR_ERROR, 9);
	eb_put(&b, &x, sizeof(x));
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_put(&b, &ah, sizeof(ah));
	eb_put(&b, dump, sizeof(dump));
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.n_items, 2);
	assert_int_equal(ev.items[0].type, WR_ITEM_EXPR_ERROR);
	assert_int_equal(ev.items[0].xerr.index, 9);
	assert_int_equal(ev.items[0].xerr.code, WR_ARG_READ_ERROR);
	assert_int_equal(ev.items[0].xerr.flags, 0x05);
	assert_int_equal(ev.items[0].xerr.addr, 0x10);
	assert_int_equal(ev.items[1].print.args[0].kind, WR_ARG_DUMP);
	assert_int_equal(ev.items[1].print.args[0].value, 0x1234);
	assert_int_equal(ev.items[1].print.args[0].len, 4);
	assert_int_equal(ev.items[1].print.args[0].aux, 300);
	assert_memory_equal(ev.items[1].print.args[0].data, "\xde\xad\xbe\xef", 4);
	/* an expression error item of another size is malformed */
	eb_begin(&b, 1, 2, 3, 4);
	eb_item(&b, WR_ITEM_EXPR_ERROR, 9);
	eb_put(&b, &x, 8);
	eb_close_item(&b);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	event_decoder_release(&d);
}

/* A print argument whose length runs past its item. */
static void test_decode_arg_overrun(void **state)
{
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;
	struct wr_arg_header ah = { .kind = WR_ARG_STR, .len = 64 };

	(void)state;
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_put(&b, &ah, sizeof(ah));
	eb_put(&b, "abcdefgh", 8);
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	event_decoder_release(&d);
}

/* The last bt of an event is trimmed to the frames it used. */
static void test_decode_trimmed_bt(void **state)
{
	struct wr_bt_frame fr[2] = { { .cookie = 1, .pc = 0x10 }, { .cookie = 1, .pc = 0x20 } };
	struct wr_bt_header bh = { .requested_depth = 128, .frame_count = 2 };
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_put(&b, &bh, sizeof(bh));
	eb_put(&b, fr, sizeof(fr));
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.items[0].bt.requested_depth, 128);
	assert_int_equal(ev.items[0].bt.frames[1].pc, 0x20);
	/* one frame short of frame_count: malformed */
	bh.frame_count = 3;
	memcpy(b.data + b.item + sizeof(struct wr_item_header), &bh, sizeof(bh));
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	event_decoder_release(&d);
}

/* Two backtraces, the second handed over with a copy of the stack. */
static void build_handover(struct eventbuf *b, struct wr_stack_header *sh, size_t copy)
{
	struct wr_bt_frame fr[2] = { { .cookie = 1, .pc = 0x10, .ip = 0x1010 }, { .ip = 0x7f00 } };
	uint8_t bytes[64];

	eb_begin(b, 1, 1, 1, 1);
	eb_item(b, WR_ITEM_BACKTRACE, 0);
	eb_bt(b, 2, 0, WR_BT_COMPLETE, 0, fr, 1);
	eb_close_item(b);
	eb_item(b, WR_ITEM_BACKTRACE, 1);
	eb_bt(b, 4, 0, WR_BT_OFFSETS_UNAVAILABLE, 0, fr, 2);
	eb_close_item(b);
	eb_item(b, WR_ITEM_STACK, 0);
	eb_put(b, sh, sizeof(*sh));
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)i;
	eb_put(b, bytes, copy);
	eb_close_item(b);
}

static void test_decode_stack(void **state)
{
	struct wr_stack_header sh = { .ip = 0x7f00, .sp = 0x7ffd1004, .base = 0x7ffd1000, .bt_index = 1,
				      .len = 64 };
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	event_decoder_init(&d);
	build_handover(&b, &sh, 64);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	/* not an item of its own: attached to the backtrace it continues */
	assert_int_equal(ev.n_items, 2);
	assert_null(ev.items[0].bt.stack);
	assert_non_null(ev.items[1].bt.stack);
	assert_int_equal(ev.items[1].bt.stack->ip, 0x7f00);
	assert_int_equal(ev.items[1].bt.stack_data[63], 63);
	/* the copy claims more than the item holds */
	sh.len = 72;
	build_handover(&b, &sh, 64);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	/* a backtrace that is not there */
	sh.len = 64;
	sh.bt_index = 2;
	build_handover(&b, &sh, 64);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	/* a copy that does not start at or just below sp */
	sh.bt_index = 0;
	sh.base = 0x7ffd0ff0;
	build_handover(&b, &sh, 64);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	event_decoder_release(&d);
}

/* A copy for frame values: frame 0's registers, then @copy bytes of the
 * stack from below its sp (the red zone), the first 0xab. */
static void build_values(struct eventbuf *b, struct wr_stack_header *sh, size_t copy)
{
	struct wr_bt_frame fr[1] = { { .cookie = 1, .pc = 0x10, .ip = 0x1010 } };
	struct wr_stack_regs regs = { .ip = 0x1010, .sp = 0x7ffd1080, .di = 3 };
	uint8_t bytes[64] = { 0xab };

	eb_begin(b, 1, 1, 1, 1);
	eb_item(b, WR_ITEM_BACKTRACE, 0);
	eb_bt(b, 2, WR_BT_F_ARGS, WR_BT_COMPLETE, 0, fr, 1);
	eb_close_item(b);
	eb_item(b, WR_ITEM_STACK, 0);
	eb_put(b, sh, sizeof(*sh));
	eb_put(b, &regs, sizeof(regs));
	eb_put(b, bytes, copy);
	eb_close_item(b);
}

/* One bt with frame values of status @status and bt flags @flags, no
 * copy of the stack; with @other, a plain handed-over bt before it that
 * has the event's copy. */
static void build_no_copy(struct eventbuf *b, uint8_t flags, uint8_t status, bool other)
{
	struct wr_bt_frame fr[1] = { { .cookie = 1, .pc = 0x10, .ip = 0x1010 } };
	struct wr_stack_header sh = { .ip = 0x1010, .sp = 0x7ffd1000, .base = 0x7ffd1000 };

	eb_begin(b, 1, 1, 1, 1);
	if (other) {
		eb_item(b, WR_ITEM_BACKTRACE, 0);
		eb_bt(b, 2, WR_BT_F_STACK, WR_BT_OFFSETS_UNAVAILABLE, 0, fr, 1);
		eb_close_item(b);
	}
	eb_item(b, WR_ITEM_BACKTRACE, 1);
	eb_bt(b, 2, WR_BT_F_FULL | flags, status, 0, fr, 1);
	eb_close_item(b);
	if (other) {
		eb_item(b, WR_ITEM_STACK, 0);
		eb_put(b, &sh, sizeof(sh));
		eb_close_item(b);
	}
}

/* Why a bt with frame values has no copy: what its flags, the other bts
 * and its walk say, and that nothing says it (the case to look into). */
static void test_decode_no_stack(void **state)
{
	static const struct {
		uint8_t flags, status;
		bool other;
		uint8_t why;
	} cases[] = {
		{ WR_BT_F_NO_ROOM, WR_BT_COMPLETE, false, EV_STACK_NO_ROOM },
		{ WR_BT_F_STACK, WR_BT_COMPLETE, false, EV_STACK_LOST },
		{ 0, WR_BT_COMPLETE, true, EV_STACK_OTHER_BT },
		{ 0, WR_BT_INTERNAL_ERROR, false, EV_STACK_UNFINISHED },
		{ 0, WR_BT_COMPLETE, false, EV_STACK_NOT_TRIED },
	};
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	event_decoder_init(&d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		build_no_copy(&b, cases[i].flags, cases[i].status, cases[i].other);
		assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
		assert_int_equal(ev.items[ev.n_items - 1].bt.no_stack, cases[i].why);
		assert_int_equal(ev.items[0].bt.no_stack, cases[i].other ? EV_STACK_OK : cases[i].why);
	}
	/* wanting none, nothing is missing (with its copy: below) */
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_bt(&b, 2, 0, WR_BT_COMPLETE, 0, NULL, 0);
	eb_close_item(&b);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.items[0].bt.no_stack, EV_STACK_OK);
	event_decoder_release(&d);
}

static void test_decode_stack_regs(void **state)
{
	struct wr_stack_header sh = { .ip = 0x1010, .sp = 0x7ffd1080, .base = 0x7ffd1000, .len = 32,
				      .flags = WR_STACK_F_REGS };
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	event_decoder_init(&d);
	build_values(&b, &sh, 32);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_non_null(ev.items[0].bt.regs);
	assert_int_equal(ev.items[0].bt.no_stack, EV_STACK_OK);
	assert_int_equal(ev.items[0].bt.regs->di, 3);
	assert_int_equal(ev.items[0].bt.stack_data[0], 0xab);
	/* the registers are not part of the copy: 16 bytes are too few */
	build_values(&b, &sh, 16);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	/* without the flag the copy must start at sp: malformed */
	sh.flags = 0;
	build_values(&b, &sh, 32);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	event_decoder_release(&d);
}

/* Frame 0's referents (WR_ITEM_REFS) are not an item of their own:
 * they belong to the backtrace after them, with their attachments. */
static void test_decode_refs(void **state)
{
	struct wr_bt_frame fr[1] = { { .cookie = 1, .pc = 0x10, .ip = 0x1010 } };
	struct wr_arg_header ref = { .kind = WR_ARG_ATTACH, .len = 8, .aux = WR_ARG_ATTACH_REFERENCE };
	uint64_t at = 0x5000;
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_arg(&b, WR_ARG_I64, 9);
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_REFS, 0);
	eb_arg(&b, WR_ARG_I64, 5);
	eb_put(&b, &ref, sizeof(ref));
	eb_put(&b, &at, sizeof(at));
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_bt(&b, 1, WR_BT_F_ARGS, WR_BT_COMPLETE, 0, fr, 1);
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.n_items, 2);
	assert_int_equal(ev.items[0].print.n_args, 1);
	assert_int_equal(ev.items[0].print.args[0].value, 9);
	assert_int_equal(ev.items[1].type, WR_ITEM_BACKTRACE);
	assert_int_equal(ev.items[1].bt.n_refs, 1);
	assert_int_equal(ev.items[1].bt.refs[0].value, 5);
	assert_int_equal(ev.items[1].bt.refs[0].n_attach, 1);
	assert_int_equal(ev.items[1].bt.refs[0].attach[0].value, 0x5000);
	event_decoder_release(&d);
}

/* What a print captured for values its caller passed (WR_ITEM_CALLER)
 * is not an item of its own: it belongs to the print before it, of the
 * same index; anywhere else the event is malformed. */
static void test_decode_caller(void **state)
{
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	event_decoder_init(&d);
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_PRINT, 2);
	eb_arg(&b, WR_ARG_I64, 9);
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_CALLER, 2);
	eb_arg(&b, WR_ARG_U64, 0x1234);
	eb_arg(&b, WR_ARG_U64, wr_caller_arg(0, 4));
	eb_close_item(&b);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.n_items, 1);
	assert_int_equal(ev.items[0].print.n_args, 1);
	assert_int_equal(ev.items[0].print.args[0].value, 9);
	assert_int_equal(ev.items[0].print.n_caller, 2);
	assert_int_equal(ev.items[0].print.caller[0].value, 0x1234);
	assert_int_equal(wr_caller_wire_of(ev.items[0].print.caller[1].value), 0);
	assert_int_equal(wr_caller_reg_of(ev.items[0].print.caller[1].value), 4);
	/* another print's index: malformed */
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_PRINT, 2);
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_CALLER, 3);
	eb_close_item(&b);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	/* first in the event: malformed */
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_CALLER, 0);
	eb_close_item(&b);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), -WR_EPROTO);
	event_decoder_release(&d);
}

/* The outer frames' copies (WR_ITEM_OUTER, after the stack copy) belong
 * to the backtrace the stack copy is of: its attachments, by address. */
static void test_decode_outer(void **state)
{
	struct wr_stack_header sh = { .ip = 0x1010, .sp = 0x7ffd1080, .base = 0x7ffd1000, .len = 32,
				      .flags = WR_STACK_F_REGS };
	struct wr_arg_header none = { .kind = WR_ARG_BYTES, .len = 0 };
	struct wr_arg_header mem = { .kind = WR_ARG_MEM, .len = 8 + 6 };
	uint64_t at = 0x5000;
	char text[8] = "apple";
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	event_decoder_init(&d);
	build_values(&b, &sh, 32);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_null(ev.items[0].bt.outer); /* the chain's first event */
	eb_item(&b, WR_ITEM_OUTER, 0);
	eb_put(&b, &none, sizeof(none));
	eb_put(&b, &mem, sizeof(mem));
	eb_put(&b, &at, sizeof(at));
	eb_put(&b, text, sizeof(text));
	eb_close_item(&b);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.n_items, 1);
	assert_non_null(ev.items[0].bt.outer);
	assert_int_equal(ev.items[0].bt.outer->n_attach, 1);
	assert_int_equal(ev.items[0].bt.outer->attach[0].kind, WR_ARG_MEM);
	assert_int_equal(ev.items[0].bt.outer->attach[0].value, 0x5000);
	assert_int_equal(ev.items[0].bt.outer->attach[0].len, 6);
	assert_string_equal((const char *)ev.items[0].bt.outer->attach[0].data, "apple");
	event_decoder_release(&d);
}

/* A `count bt` item left in the middle of an event (the kernel cuts off
 * only trailing ones) is skipped: it was counted, not sent to be shown. */
static void test_decode_skips_count(void **state)
{
	struct wr_bt_frame fr = { .cookie = 1, .pc = 0x10 };
	struct event_decoder d;
	struct eventbuf b;
	struct event ev;

	(void)state;
	eb_begin(&b, 1, 1, 1, 1);
	eb_item(&b, WR_ITEM_COUNT, 0);
	eb_bt(&b, 4, WR_BT_F_INLINE, WR_BT_COMPLETE, 0, &fr, 1);
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_arg(&b, WR_ARG_I64, 7);
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	assert_int_equal(ev.n_items, 1);
	assert_int_equal(ev.items[0].type, WR_ITEM_PRINT);
	assert_int_equal(ev.items[0].print.args[0].value, 7);
	event_decoder_release(&d);
}

/* The layouts the BPF side writes: checked here by the host compiler too
 * (wire.h's _Static_asserts), plus the numbers userspace relies on. */
static void test_layouts(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct wr_event_header), 32);
	assert_int_equal(sizeof(struct wr_bt_frame), 16);
	assert_int_equal(sizeof(struct wr_cfi_row), 8);
	assert_int_equal(sizeof(struct wr_cfi_rule), 16);
	assert_int_equal(sizeof(struct wr_count_key), 24);
	assert_int_equal(sizeof(struct wr_count_slot), 32);
	assert_int_equal(WR_COUNT_SLOTS & (WR_COUNT_SLOTS - 1), 0);
	assert_int_equal(sizeof(struct wr_count_stack), 8 + 16 * WR_COUNT_MAX_DEPTH);
	assert_int_equal(sizeof(struct wr_probe_stats), 64);
	assert_int_equal(WR_BT_COMPLETE, 0);
	assert_int_equal(WR_BT_NO_ROWS_FOR_PC, 8);
	assert_int_equal(WR_BTE_NEXT_CFA_NOT_ADVANCING, 6);
}

/* What the generator packs, the templates unpack unchanged, at the limits
 * of every field. */
static void test_packed_arguments(void **state)
{
	uint32_t ks = wr_arg_kind_status(WR_ARG_BYTES, WR_ARG_OPTIMIZED_OUT);
	uint32_t ms = wr_str_max_status(256, WR_ARG_READ_ERROR);
	uint32_t fi = wr_bt_flags_index(WR_BT_F_RAW | WR_BT_F_INLINE, 0xffff);

	(void)state;
	assert_int_equal(wr_arg_kind_of(ks), WR_ARG_BYTES);
	assert_int_equal(wr_arg_status_of(ks), WR_ARG_OPTIMIZED_OUT);
	/* A status computed at run time is or-ed in at the agreed shift. */
	assert_int_equal(wr_arg_kind_status(WR_ARG_I64, WR_ARG_OK) |
			 (uint32_t)WR_ARG_NULL_DEREF << WR_ARG_STATUS_SHIFT,
			 wr_arg_kind_status(WR_ARG_I64, WR_ARG_NULL_DEREF));
	assert_int_equal(wr_str_max_of(ms), 256);
	assert_int_equal(wr_str_status_of(ms), WR_ARG_READ_ERROR);
	assert_int_equal(wr_str_max_status(64, WR_ARG_OK) | (uint32_t)WR_ARG_NULL_DEREF << WR_STR_STATUS_SHIFT,
			 wr_str_max_status(64, WR_ARG_NULL_DEREF));
	assert_int_equal(wr_bt_flags_of(fi), WR_BT_F_RAW | WR_BT_F_INLINE);
	assert_int_equal(wr_bt_index_of(fi), 0xffff);
	assert_int_equal(wr_bt_index_of(wr_bt_flags_index(0, 3)), 3);
	assert_int_not_equal(WR_RULE_LOOKUP, WR_CFI_RULE_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_good),
		cmocka_unit_test(test_decode_unaligned),
		cmocka_unit_test(test_decode_malformed),
		cmocka_unit_test(test_decode_arg_overrun),
		cmocka_unit_test(test_decode_expr_error_and_dump),
		cmocka_unit_test(test_decode_trimmed_bt),
		cmocka_unit_test(test_decode_stack),
		cmocka_unit_test(test_decode_stack_regs),
		cmocka_unit_test(test_decode_no_stack),
		cmocka_unit_test(test_decode_skips_count),
		cmocka_unit_test(test_decode_refs),
		cmocka_unit_test(test_decode_outer),
		cmocka_unit_test(test_decode_caller),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_packed_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
