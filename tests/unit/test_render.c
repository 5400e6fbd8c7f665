/* test_render.c - golden pretty, plain, ANSI and JSON output of decoded
 * events through spans, with canned symbolization; the span list and its
 * writers on their own; and doc/status-codes.md in step with the status
 * and error-code tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include "eventbuf.h"
#include "dwarf/vars.h"
#include "protocol/decode.h"
#include "dwarf/vars.h"
#include "render/render.h"
#include "render/status.h"
#include "script/parser.h"
#include "util/diag.h"
#include "util/strbuf.h"

struct fixture {
	struct ast_script *script;
	struct render_probe probe;
};

static const struct render_probe *hook_probe(void *ctx, uint32_t wire_id)
{
	struct fixture *f = ctx;

	return wire_id == 5 ? &f->probe : NULL;
}

/* cookie 1 = /bin/app with DWARF (pc 0x1139 has an inlined call),
 * cookie 2 = libc without DWARF, cookie 3 = a signal trampoline, 0 = unknown. */
static void hook_frame(void *ctx, const struct wr_bt_frame *f, struct render_frame *out)
{
	static const struct dw_sym_frame leaf_inline[] = {
		{ .function = "helper", .params = "int v", .file = "/src/app.c", .line = 7, .col = 3, .inlined = true },
		{ .function = "leaf", .params = "int x", .file = "/src/app.c", .line = 12, .col = 5 },
	};
	static const struct dw_sym_frame caller[] = {
		{ .function = "main", .params = "int argc, char **argv", .file = "/src/app.c", .line = 30, .col = 9 },
	};
	static const struct dw_sym_frame libc_sym[] = { { .function = "__libc_start_main" } };

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (f->cookie == 1) {
		out->module_path = "/bin/app";
		out->module_name = "app";
		out->sym.frames = f->pc == 0x1139 ? leaf_inline : caller;
		out->sym.n = f->pc == 0x1139 ? 2 : 1;
	} else if (f->cookie == 2) {
		out->module_path = "/lib/libc.so.6";
		out->module_name = "libc.so.6";
		out->sym.frames = libc_sym;
		out->sym.n = 1;
	} else if (f->cookie == 3) {
		out->module_path = "/lib/libc.so.6";
		out->module_name = "libc.so.6";
		out->signal_trampoline = true;
	}
}

/* Between leaf (0x1139) and main (0x1200): `hop` left the stack by a tail call. */
static size_t hook_tail(void *ctx, const struct wr_bt_frame *callee, const struct wr_bt_frame *caller,
			struct render_frame *out, size_t max)
{
	static const struct dw_sym_frame hop = { .function = "hop", .params = "", .file = "/src/app.c",
						 .line = 20, .col = 9 };

	(void)ctx;
	if (callee->pc != 0x1139 || caller->pc != 0x1200 || max < 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->module_path = "/bin/app";
	out->module_name = "app";
	out->sym.frames = &hop;
	out->sym.n = 1;
	out->tail_pc = 0x1150;
	return 1;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct diag d = { 0 };
	const char *text = "trace leaf { print \"x={} ok={} {} hex={:x}\", $pid + 1, true, \"lit\", 255; "
			   "print $tid * 2; bt; }";

	assert_int_equal(script_parse(text, &f->script, &d), 0);
	f->probe.id = 2;
	f->probe.target = "leaf";
	f->probe.ast = f->script->probes[0];
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ast_script_free(f->script);
	free(f);
	return 0;
}

static const struct wr_bt_frame frames[] = {
	{ .cookie = 1, .pc = 0x1139, .ip = 0x555555555139, .flags = WR_FRAME_F_EXACT_IP },
	{ .cookie = 1, .pc = 0x1200, .ip = 0x555555555200 },
	{ .cookie = 2, .pc = 0x27305, .ip = 0x7ffff7dfa305 },
};

/* Decode the event in @b and render it by @r as spans appended to @spans. */
static void render_buf(struct renderer *r, const struct eventbuf *b, struct span_list *spans)
{
	struct event_decoder d;
	struct event ev;

	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b->data, b->len, &ev), 0);
	render_event(r, &ev, spans);
	event_decoder_release(&d);
}

/* @spans written as JSON (format json) or as text. */
static void write_spans(const struct span_list *spans, enum render_format fmt, struct strbuf *out)
{
	if (fmt == RENDER_JSON)
		span_write_json(spans, out);
	else
		span_write_text(spans, SPAN_COLOR_NONE, out);
}

/* The print event in @b of a probe whose script is @script, its
 * arguments of @types (@n of them), rendered as @fmt into @out. */
static void print_event(struct fixture *f, const char *script, struct render_arg_type *types, size_t n,
			const struct eventbuf *b, enum render_format fmt, struct strbuf *out)
{
	struct render_hooks hooks = { hook_probe, hook_frame, hook_tail, f };
	struct ast_script *sc;
	struct diag d = { 0 };
	struct span_list spans;
	struct renderer r;

	assert_int_equal(script_parse(script, &sc, &d), 0);
	f->probe.ast = sc->probes[0];
	f->probe.arg_types = types;
	f->probe.n_arg_types = n;
	renderer_init(&r, fmt, &hooks);
	span_list_init(&spans);
	render_buf(&r, b, &spans);
	write_spans(&spans, fmt, out);
	span_list_release(&spans);
	renderer_release(&r);
	f->probe.ast = NULL;
	ast_script_free(sc);
}

/* Render the canned event as spans into @spans. */
static void render_spans(struct fixture *f, enum render_format fmt, uint8_t bt_flags, uint8_t status,
			 uint16_t error, struct span_list *spans)
{
	struct render_hooks hooks = { hook_probe, hook_frame, hook_tail, f };
	struct renderer r;
	struct eventbuf b;

	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_arg(&b, WR_ARG_I64, 43);
	eb_arg(&b, WR_ARG_BOOL, 1);
	eb_arg(&b, WR_ARG_I64, 255);
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_PRINT, 1);
	eb_arg(&b, WR_ARG_I64, 86);
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_bt(&b, 8, bt_flags, status, error, frames, 3);
	eb_close_item(&b);
	renderer_init(&r, fmt, &hooks);
	r.relative_time = true;
	r.start_ns = 0;
	render_buf(&r, &b, spans);
	renderer_release(&r);
}

/* Render the canned event and write it as JSON (format json) or text. */
static void render(struct fixture *f, enum render_format fmt, uint8_t bt_flags, uint8_t status,
		   uint16_t error, struct strbuf *out)
{
	struct span_list spans;

	span_list_init(&spans);
	render_spans(f, fmt, bt_flags, status, error, &spans);
	write_spans(&spans, fmt, out);
	span_list_release(&spans);
}

static void test_pretty(void **state)
{
	struct strbuf out = STRBUF_INIT;

	render(*state, RENDER_PRETTY, WR_BT_F_INLINE, WR_BT_COMPLETE, 0, &out);
	assert_string_equal(out.buf,
		"[+0.000001] #2 42/43 leaf\n"
		"  x=43 ok=true lit hex=0xff\n"
		"  $tid * 2 = 86\n"
		"  backtrace: complete, 3 frames (max 8)\n"
		"    #0.inline helper(int v) at app.c:7:3\n"
		"    #0 leaf(int x) at app.c:12:5 [app+0x1139]\n"
		"    #0.tail hop() at app.c:20:9 [app+0x1150]\n"
		"    #1 main(int argc, char **argv) at app.c:30:9 [app+0x1200]\n"
		"    #2 __libc_start_main [libc.so.6+0x27305]\n");
	strbuf_release(&out);
}

static void test_plain_stopped_noinline(void **state)
{
	struct strbuf out = STRBUF_INIT;

	render(*state, RENDER_PLAIN, 0, WR_BT_READ_ERROR, WR_BTE_RETURN_ADDRESS_READ, &out);
	assert_string_equal(out.buf,
		"x=43 ok=true lit hex=0xff\n"
		"$tid * 2 = 86\n"
		"backtrace: read-error, 3 frames (max 8)\n"
		"  #0 leaf(int x) at app.c:7:3 [app+0x1139]\n"
		"  #0.tail hop() at app.c:20:9 [app+0x1150]\n"
		"  #1 main(int argc, char **argv) at app.c:30:9 [app+0x1200]\n"
		"  #2 __libc_start_main [libc.so.6+0x27305]\n"
		"stopped: read-error (return-address-read, code=1)\n");
	strbuf_release(&out);
}

static void test_raw(void **state)
{
	struct strbuf out = STRBUF_INIT;
	const char *bt;

	render(*state, RENDER_PLAIN, WR_BT_F_RAW | WR_BT_F_INLINE, WR_BT_TRUNCATED, 0, &out);
	bt = strstr(out.buf, "backtrace:");
	assert_non_null(bt);
	assert_string_equal(bt,
		"backtrace: truncated, 3 frames (max 8) raw\n"
		"  #0 0x1139 [app+0x1139] raw=0x555555555139 cookie=0x0001 flags=0x1\n"
		"  #1 0x1200 [app+0x1200] raw=0x555555555200 cookie=0x0001\n"
		"  #2 0x27305 [libc.so.6+0x27305] raw=0x7ffff7dfa305 cookie=0x0002\n"
		"stopped: truncated\n");
	strbuf_release(&out);
}

static void test_json(void **state)
{
	struct strbuf out = STRBUF_INIT;

	render(*state, RENDER_JSON, WR_BT_F_INLINE, WR_BT_COMPLETE, 0, &out);
	assert_string_equal(out.buf,
		"{\"version\":1,\"seq\":1,\"probe\":2,\"target\":\"leaf\",\"pid\":42,\"tid\":43,\"timestamp_ns\":1000,"
		"\"items\":[{\"type\":\"print\",\"text\":\"x=43 ok=true lit hex=0xff\",\"args\":["
		"{\"expr\":\"$pid + 1\",\"type\":\"long\",\"value\":43,\"error\":null},"
		"{\"expr\":\"true\",\"type\":\"bool\",\"value\":true,\"error\":null},"
		"{\"expr\":\"\\\"lit\\\"\",\"type\":\"string\",\"value\":\"lit\",\"error\":null},"
		"{\"expr\":\"255\",\"type\":\"long\",\"value\":255,\"error\":null}]},"
		"{\"type\":\"print\",\"text\":\"$tid * 2 = 86\",\"args\":["
		"{\"expr\":\"$tid * 2\",\"type\":\"long\",\"value\":86,\"error\":null}]},"
		"{\"type\":\"backtrace\",\"status\":\"complete\",\"status_code\":0,\"error\":\"none\","
		"\"error_code\":0,\"max_depth\":8,\"frame_count\":3,\"frames\":["
		"{\"index\":0,\"function\":\"helper\",\"params\":\"int v\",\"file\":\"app.c\",\"path\":\"/src/app.c\","
		"\"line\":7,\"column\":3,\"module\":\"/bin/app\",\"offset\":\"0x1139\",\"ip\":\"0x555555555139\",\"inline\":true,\"tailcall\":false},"
		"{\"index\":0,\"function\":\"leaf\",\"params\":\"int x\",\"file\":\"app.c\",\"path\":\"/src/app.c\","
		"\"line\":12,\"column\":5,\"module\":\"/bin/app\",\"offset\":\"0x1139\",\"ip\":\"0x555555555139\",\"inline\":false,\"tailcall\":false},"
		"{\"index\":0,\"function\":\"hop\",\"params\":\"\",\"file\":\"app.c\",\"path\":\"/src/app.c\","
		"\"line\":20,\"column\":9,\"module\":\"/bin/app\",\"offset\":\"0x1150\",\"ip\":null,\"inline\":false,\"tailcall\":true},"
		"{\"index\":1,\"function\":\"main\",\"params\":\"int argc, char **argv\",\"file\":\"app.c\",\"path\":\"/src/app.c\","
		"\"line\":30,\"column\":9,\"module\":\"/bin/app\",\"offset\":\"0x1200\",\"ip\":\"0x555555555200\",\"inline\":false,\"tailcall\":false},"
		"{\"index\":2,\"function\":\"__libc_start_main\",\"params\":null,\"file\":null,\"path\":null,"
		"\"line\":null,\"column\":null,\"module\":\"/lib/libc.so.6\",\"offset\":\"0x27305\",\"ip\":\"0x7ffff7dfa305\",\"inline\":false,\"tailcall\":false}"
		"]}]}\n");
	strbuf_release(&out);
}

/* The backtrace of @fr (@n frames) rendered by @r and written as its
 * format shows it, appended to @out. */
static void render_bt_with(struct renderer *r, const struct wr_bt_frame *fr, uint16_t n,
			   uint8_t bt_flags, struct strbuf *out)
{
	struct span_list spans;
	struct eventbuf b;

	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_bt(&b, 8, bt_flags, WR_BT_COMPLETE, 0, fr, n);
	eb_close_item(&b);
	span_list_init(&spans);
	render_buf(r, &b, &spans);
	write_spans(&spans, r->format, out);
	span_list_release(&spans);
}

/* Frame lines come from the renderer's cache once it has shown them: a
 * renderer that has rendered many stacks writes each exactly as a new
 * one does, in text and in JSON, whatever changed between them (a
 * frame's ip but not its pc, the caller that decides a tail call, the
 * bt's options); and so does one that hands the JSON writer each frame's
 * JSON alone (json_only). */
static void test_line_cache(void **state)
{
	static const struct wr_bt_frame moved[] = {
		{ .cookie = 1, .pc = 0x1139, .ip = 0x555555555139, .flags = WR_FRAME_F_EXACT_IP },
		{ .cookie = 1, .pc = 0x1200, .ip = 0x565555555200 }, /* another process's ip */
		{ .cookie = 2, .pc = 0x27305, .ip = 0x7ffff7dfa305 },
	};
	static const struct wr_bt_frame other_caller[] = {
		{ .cookie = 1, .pc = 0x1139, .ip = 0x555555555139, .flags = WR_FRAME_F_EXACT_IP },
		{ .cookie = 1, .pc = 0x1300, .ip = 0x555555555300 },
	};
	const struct { const struct wr_bt_frame *fr; uint16_t n; uint8_t flags; } cases[] = {
		{ frames, 3, WR_BT_F_INLINE }, { moved, 3, WR_BT_F_INLINE }, { other_caller, 2, WR_BT_F_INLINE },
		{ frames, 3, 0 }, { frames, 3, WR_BT_F_RAW | WR_BT_F_INLINE }, { frames, 2, WR_BT_F_INLINE },
		{ frames + 1, 2, WR_BT_F_INLINE },
	};
	struct render_hooks hooks = { hook_probe, hook_frame, hook_tail, *state };
	const enum render_format formats[] = { RENDER_PRETTY, RENDER_JSON, RENDER_JSON };
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;

	for (size_t fmt = 0; fmt < 3; fmt++) {
		struct renderer warm;

		renderer_init(&warm, formats[fmt], &hooks);
		warm.json_only = fmt == 2;
		for (int round = 0; round < 3; round++) {
			for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
				struct renderer cold;

				renderer_init(&cold, formats[fmt], &hooks);
				cold.start_ns = warm.start_ns;
				cold.mono_to_real_ns = warm.mono_to_real_ns;
				cold.seq = warm.seq;
				strbuf_reset(&want);
				strbuf_reset(&got);
				render_bt_with(&cold, cases[c].fr, cases[c].n, cases[c].flags, &want);
				render_bt_with(&warm, cases[c].fr, cases[c].n, cases[c].flags, &got);
				assert_string_equal(got.buf, want.buf);
				renderer_release(&cold);
			}
		}
		renderer_release(&warm);
	}
	/* hop tail-called between 0x1139 and 0x1200 only; each event its own ip */
	{
		struct renderer r;
		const char *line2, *line3;

		renderer_init(&r, RENDER_JSON, &hooks);
		strbuf_reset(&got);
		render_bt_with(&r, frames, 3, WR_BT_F_INLINE, &got);
		render_bt_with(&r, other_caller, 2, WR_BT_F_INLINE, &got);
		render_bt_with(&r, moved, 3, WR_BT_F_INLINE, &got);
		line2 = strchr(got.buf, '\n') + 1;
		line3 = strchr(line2, '\n') + 1;
		assert_true(strstr(got.buf, "\"hop\"") < line2);
		assert_true(strstr(line2, "\"hop\"") > line3);
		assert_true(strstr(got.buf, "\"ip\":\"0x565555555200\"") > line3);
		renderer_release(&r);
	}
	strbuf_release(&got);
	strbuf_release(&want);
}

/* Why main's values are not known, when a test says they are not. */
static const char *main_unavailable;

/* Frame values, canned: helper (frame 0, level 0) v unknown; leaf (level
 * 1) x=3 and with locals y=4; main (frame 1) argc=2, argv, no locals, or
 * main_unavailable; libc's frame: none known. */
static long hook_values(void *ctx, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
			unsigned level, bool locals, struct render_var *out, size_t max)
{
	(void)ctx;
	(void)bt;
	assert_int_equal(pid, 42); /* the event's process */
	assert_true(max >= 3);
	if (i == 0 && level == 0) {
		out[0] = (struct render_var){ "v", "<optimized out>", true };
		return 1;
	}
	if (i == 0) {
		out[0] = (struct render_var){ "x", "3", true };
		out[1] = (struct render_var){ "y", "4", false };
		return locals ? 2 : 1;
	}
	if (i == 1 && main_unavailable) {
		out[0].value = main_unavailable;
		return -1;
	}
	if (i == 1) {
		out[0] = (struct render_var){ "argc", "2", true };
		out[1] = (struct render_var){ "argv", "0x7ffd10", true };
		return 2;
	}
	return -1;
}

static void render_values(struct fixture *f, enum render_format fmt, uint8_t bt_flags,
			  struct strbuf *out)
{
	struct render_hooks hooks = { .probe = hook_probe, .frame = hook_frame, .tailcalls = hook_tail, .ctx = f,
				      .values = hook_values };
	struct event_decoder d;
	struct span_list spans;
	struct renderer r;
	struct eventbuf b;
	struct event ev;

	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_bt(&b, 8, bt_flags, WR_BT_COMPLETE, 0, frames, 3);
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	renderer_init(&r, fmt, &hooks);
	span_list_init(&spans);
	render_event(&r, &ev, &spans);
	if (fmt == RENDER_JSON)
		span_write_json(&spans, out);
	else
		span_write_text(&spans, SPAN_COLOR_NONE, out);
	span_list_release(&spans);
	renderer_release(&r);
	event_decoder_release(&d);
}

/* bt args: parameters with values in place of their types; bt full: and
 * locals under each frame; a frame without values as always; no values
 * without the options, even when the hook knows them. */
static void test_frame_values(void **state)
{
	struct strbuf out = STRBUF_INIT;

	render_values(*state, RENDER_PLAIN, WR_BT_F_INLINE | WR_BT_F_FULL, &out);
	assert_string_equal(out.buf,
		"backtrace: complete, 3 frames (max 8)\n"
		"  #0.inline helper(v=<optimized out>) at app.c:7:3\n"
		"        No locals.\n"
		"  #0 leaf(x=3) at app.c:12:5 [app+0x1139]\n"
		"        y = 4\n"
		"  #0.tail hop() at app.c:20:9 [app+0x1150]\n"
		"  #1 main(argc=2, argv=0x7ffd10) at app.c:30:9 [app+0x1200]\n"
		"        No locals.\n"
		"  #2 __libc_start_main [libc.so.6+0x27305]\n");
	strbuf_reset(&out);
	render_values(*state, RENDER_PLAIN, WR_BT_F_ARGS, &out);
	assert_string_equal(out.buf,
		"backtrace: complete, 3 frames (max 8)\n"
		"  #0 leaf(x=3) at app.c:7:3 [app+0x1139]\n"
		"  #0.tail hop() at app.c:20:9 [app+0x1150]\n"
		"  #1 main(argc=2, argv=0x7ffd10) at app.c:30:9 [app+0x1200]\n"
		"  #2 __libc_start_main [libc.so.6+0x27305]\n");
	strbuf_reset(&out);
	render_values(*state, RENDER_PLAIN, 0, &out);
	assert_non_null(strstr(out.buf, "#1 main(int argc, char **argv) at"));
	strbuf_reset(&out);
	render_values(*state, RENDER_JSON, WR_BT_F_FULL, &out);
	assert_non_null(strstr(out.buf,
		"\"params\":\"int x\",\"args\":[{\"name\":\"x\",\"value\":\"3\"}],\"file\""));
	assert_non_null(strstr(out.buf,
		"\"tailcall\":false,\"locals\":[{\"name\":\"y\",\"value\":\"4\"}]}"));
	assert_non_null(strstr(out.buf, "\"tailcall\":false,\"locals\":[]}"));
	strbuf_release(&out);
}

/* A frame whose values cannot be known says why, in its parameters'
 * place and its locals', and in JSON; never an empty list that reads as
 * a function without parameters.  A frame without debug info (libc's)
 * stays as a plain bt shows it. */
static void test_frame_values_unavailable(void **state)
{
	struct strbuf out = STRBUF_INIT;

	main_unavailable = "this frame's registers could not be recovered";
	render_values(*state, RENDER_PLAIN, WR_BT_F_INLINE | WR_BT_F_FULL, &out);
	assert_non_null(strstr(out.buf,
		"  #1 main(<unavailable: this frame's registers could not be recovered>) at app.c:30:9 [app+0x1200]\n"
		"        <unavailable: this frame's registers could not be recovered>\n"
		"  #2 __libc_start_main [libc.so.6+0x27305]\n"));
	strbuf_reset(&out);
	render_values(*state, RENDER_JSON, WR_BT_F_ARGS, &out);
	assert_non_null(strstr(out.buf,
		"\"params\":\"int argc, char **argv\",\"args\":[],"
		"\"values_unavailable\":\"this frame's registers could not be recovered\",\"file\""));
	assert_null(strstr(strstr(out.buf, "__libc_start_main"), "values_unavailable"));
	main_unavailable = NULL;
	strbuf_release(&out);
}

/* Unknown module, signal trampoline, unknown probe. */
static void test_unknown_parts(void **state)
{
	struct render_hooks hooks = { hook_probe, hook_frame, hook_tail, *state };
	struct wr_bt_frame fr[2] = {
		{ .cookie = 3, .pc = 0x3e9f0, .ip = 0x7ffff7e0d9f0 },
		{ .cookie = 0, .pc = 0, .ip = 0x7f0000001000 },
	};
	struct strbuf out = STRBUF_INIT;
	struct span_list spans;
	struct event_decoder d;
	struct renderer r;
	struct eventbuf b;
	struct event ev;

	eb_begin(&b, 9, 1, 1, 5);
	eb_item(&b, WR_ITEM_BACKTRACE, 0);
	eb_bt(&b, 4, WR_BT_F_INLINE, WR_BT_OFFSETS_UNAVAILABLE, 0, fr, 2);
	eb_close_item(&b);
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	renderer_init(&r, RENDER_PLAIN, &hooks);
	span_list_init(&spans);
	render_event(&r, &ev, &spans);
	span_write_text(&spans, SPAN_COLOR_NONE, &out);
	span_list_release(&spans);
	renderer_release(&r);
	assert_string_equal(out.buf,
		"backtrace: offsets-unavailable, 2 frames (max 4)\n"
		"  #0 <signal handler called> [libc.so.6+0x3e9f0]\n"
		"  #1 0x7f0000001000 [0x7f0000001000]\n"
		"stopped: offsets-unavailable\n");
	event_decoder_release(&d);
	strbuf_release(&out);
}

/* Pretty text in colour: the time cyan, a backtrace's header and stop line
 * in its status's tone, one escape pair per run. */
static void test_ansi(void **state)
{
	struct span_list spans;
	struct strbuf out = STRBUF_INIT;

	span_list_init(&spans);
	render_spans(*state, RENDER_PRETTY, 0, WR_BT_READ_ERROR, WR_BTE_RETURN_ADDRESS_READ, &spans);
	span_write_text(&spans, SPAN_COLOR_ANSI, &out);
	assert_non_null(strstr(out.buf, "\033[36m[+0.000001]\033[0m #2 42/43 leaf\n"));
	assert_non_null(strstr(out.buf, "  \033[31mbacktrace: read-error, 3 frames (max 8)\033[0m\n"));
	assert_non_null(strstr(out.buf, "  \033[31mstopped: read-error (return-address-read, code=1)"
				       "\033[0m\n"));
	assert_non_null(strstr(out.buf, "    #1 main(int argc, char **argv) at app.c:30:9 [app+0x1200]\n"));
	span_list_reset(&spans);
	strbuf_reset(&out);
	render_spans(*state, RENDER_PRETTY, WR_BT_F_INLINE, WR_BT_TRUNCATED, 0, &spans);
	span_write_text(&spans, SPAN_COLOR_ANSI, &out);
	assert_non_null(strstr(out.buf, "  \033[33mbacktrace: truncated, 3 frames (max 8)\033[0m\n"));
	strbuf_release(&out);
	span_list_release(&spans);
}

/* The shown text of every span of @role, joined with '|'. */
static void shown_of(const struct span_list *l, enum span_role role, struct strbuf *out)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].role == role && (l->v[i].flags & SPAN_F_SHOW))
			strbuf_addf(out, "%s%s", out->len ? "|" : "", span_show(l, &l->v[i]));
}

/* What front ends style by: each piece has the role of what it is, the
 * header's pieces sit in a SPAN_HEADER group, each frame line in a
 * SPAN_FRAME group, and a backtrace's lines carry its tone. */
static void test_span_roles(void **state)
{
	static const struct { enum span_role role; const char *want; } cases[] = {
		{ SPAN_TIME, "[+0.000001]" },
		{ SPAN_PROBE, "#2" },
		{ SPAN_TARGET, "leaf" },
		{ SPAN_VALUE, "43|true|0xff|86" },
		{ SPAN_EXPR, "$tid * 2" },
		{ SPAN_FRAME_NO, "#0.inline|#0|#0.tail|#1|#2" },
		{ SPAN_FUNCTION, "helper|leaf|hop|main|__libc_start_main" },
		{ SPAN_PARAMS, "(int v)|(int x)|()|(int argc, char **argv)" },
		{ SPAN_LINE, "7|12|20|30" },
		{ SPAN_WHERE, " [app+0x1139]| [app+0x1150]| [app+0x1200]| [libc.so.6+0x27305]" },
		{ SPAN_STATUS, "complete" },
	};
	struct span_list spans;
	struct strbuf got = STRBUF_INIT;
	size_t frames = 0, toned = 0, in_header = 0, depth = 0, header_depth = 0;

	span_list_init(&spans);
	render_spans(*state, RENDER_PRETTY, WR_BT_F_INLINE, WR_BT_COMPLETE, 0, &spans);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&got);
		shown_of(&spans, cases[i].role, &got);
		assert_string_equal(got.buf, cases[i].want);
	}
	for (size_t i = 0; i < spans.n; i++) {
		const struct span *s = &spans.v[i];

		if (s->flags & SPAN_F_OPEN) {
			depth++;
			if (s->role == SPAN_HEADER)
				header_depth = depth;
			frames += s->role == SPAN_FRAME;
		} else if (s->flags & SPAN_F_CLOSE) {
			if (depth-- == header_depth)
				header_depth = 0;
		} else {
			in_header += header_depth && (s->role == SPAN_TIME || s->role == SPAN_PID);
			toned += s->tone == SPAN_TONE_GOOD;
		}
	}
	assert_int_equal(depth, 0);
	assert_int_equal(frames, 5);
	assert_int_equal(in_header, 2 + 1); /* TIME, PID shown and PID data */
	assert_true(toned >= 2);            /* "backtrace: " and the status at least */
	strbuf_release(&got);
	span_list_release(&spans);
}

/* The JSON writer on its own: nesting, display-only groups, nulls, escapes,
 * numbers and literals, one line per top-level group. */
static void test_span_json(void **state)
{
	struct span_list l;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	span_list_init(&l);
	for (int round = 0; round < 2; round++) {
		span_list_reset(&l);
		span_open(&l, SPAN_EVENT);
		span_open(&l, SPAN_HEADER);
		span_dataf(&l, SPAN_SEQ, "%d", 7);
		span_add(&l, SPAN_TEXT, SPAN_TONE_NONE, "shown only", NULL);
		span_close(&l);
		span_add(&l, SPAN_TARGET, SPAN_TONE_NONE, "t", "a \"q\"\n");
		span_open(&l, SPAN_ITEMS);
		span_open(&l, SPAN_ITEM);
		span_null(&l, SPAN_FUNCTION);
		span_add(&l, SPAN_INLINE, SPAN_TONE_NONE, NULL, "true");
		/* a value shaped at run time: {"pos": {"x": 1, "tag": "a"}, "v": [2, null]} */
		span_add(&l, SPAN_KEY, SPAN_TONE_NONE, NULL, "pos");
		span_open(&l, SPAN_OBJECT);
		span_add(&l, SPAN_KEY, SPAN_TONE_NONE, "x: ", "x");
		span_add(&l, SPAN_NUMBER, SPAN_TONE_NONE, "1", "1");
		span_add(&l, SPAN_KEY, SPAN_TONE_NONE, NULL, "tag");
		span_add(&l, SPAN_STRING, SPAN_TONE_NONE, NULL, "a");
		span_close(&l);
		span_add(&l, SPAN_KEY, SPAN_TONE_NONE, NULL, "v");
		span_open(&l, SPAN_ARRAY);
		span_add(&l, SPAN_NUMBER, SPAN_TONE_NONE, NULL, "2");
		span_null(&l, SPAN_LITERAL);
		span_close(&l);
		span_close(&l);
		span_open(&l, SPAN_ITEM);
		span_close(&l);
		span_close(&l);
		span_close(&l);
		span_close(&l); /* nothing open: ignored */
		span_open(&l, SPAN_EVENT);
		span_close(&l);
	}
	span_write_json(&l, &out);
	assert_string_equal(out.buf, "{\"seq\":7,\"target\":\"a \\\"q\\\"\\n\",\"items\":["
				     "{\"function\":null,\"inline\":true,\"pos\":{\"x\":1,\"tag\":\"a\"},"
				     "\"v\":[2,null]},{}]}\n{}\n");
	strbuf_reset(&out);
	span_write_text(&l, SPAN_COLOR_ANSI, &out);
	assert_string_equal(out.buf, "shown onlytx: 1");
	assert_string_equal(span_role_key(SPAN_FRAME_NO), "index");
	assert_int_equal(span_role_json(SPAN_LINE), SPAN_JSON_NUMBER);
	assert_null(span_role_key(SPAN_TEXT));
	strbuf_release(&out);
	span_list_release(&l);
}

/* The leaves built without printf, and values nested deeper than the JSON
 * writer's first stack of levels. */
static void test_span_numbers_and_depth(void **state)
{
	struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;
	struct span_list l;
	size_t at;

	(void)state;
	span_list_init(&l);
	span_open(&l, SPAN_EVENT);
	span_data_u64(&l, SPAN_SEQ, UINT64_MAX);
	span_data_hex(&l, SPAN_IP, 0x7ffd1234abcdull);
	span_show_u64(&l, SPAN_PID, SPAN_TONE_NONE, 0);
	span_addn(&l, SPAN_PROBE, SPAN_TONE_NONE, "#12", 3, "12", 2);
	at = span_text_begin(&l);
	strbuf_addstr(&l.text, " [m+");
	strbuf_add_hex(&l.text, 0x40);
	span_show_end(&l, SPAN_WHERE, SPAN_TONE_NONE, at);
	at = span_text_begin(&l);
	strbuf_addstr(&l.text, "t\"");
	span_data_end(&l, SPAN_TARGET, at);
	span_add(&l, SPAN_KEY, SPAN_TONE_NONE, NULL, "deep");
	for (int i = 0; i < 40; i++)
		span_open(&l, i % 2 ? SPAN_OBJECT : SPAN_ARRAY);
	span_data_u64(&l, SPAN_NUMBER, 5);
	for (int i = 0; i < 40; i++)
		span_close(&l);
	span_close(&l);
	span_write_json(&l, &out);
	strbuf_addstr(&want, "{\"seq\":18446744073709551615,\"ip\":\"0x7ffd1234abcd\","
			     "\"probe\":12,\"target\":\"t\\\"\",\"deep\":");
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&want, i % 2 ? "{\"\":" : "[");
	strbuf_addch(&want, '5');
	for (int i = 40; i-- > 0;)
		strbuf_addch(&want, i % 2 ? '}' : ']');
	strbuf_addstr(&want, "}\n");
	assert_string_equal(out.buf, want.buf);
	strbuf_reset(&out);
	span_write_text(&l, SPAN_COLOR_NONE, &out);
	assert_string_equal(out.buf, "0#12 [m+0x40");
	/* a number's leaf keeps the number for readers of the spans */
	assert_true(l.v[1].role == SPAN_SEQ && l.v[1].value == UINT64_MAX);
	assert_true(l.v[2].role == SPAN_IP && l.v[2].value == 0x7ffd1234abcdull);
	assert_true(l.v[4].role == SPAN_PROBE && l.v[4].value == 0);
	strbuf_release(&out);
	strbuf_release(&want);
	span_list_release(&l);
}

/* ---- typed values as JSON ---- */

static const struct dw_type t_int = { .kind = DW_TYPE_INT, .name = "int", .size = 4, .is_signed = true };
static const struct dw_type t_uint = { .kind = DW_TYPE_INT, .name = "unsigned int", .size = 4 };
static const struct dw_type t_double = { .kind = DW_TYPE_FLOAT, .name = "double", .size = 8 };
static const struct dw_type t_char = { .kind = DW_TYPE_INT, .name = "char", .size = 1, .is_signed = true,
				       .is_char = true };
static const struct dw_type t_name = { .kind = DW_TYPE_ARRAY, .name = "char [8]", .size = 8,
				       .target = &t_char, .count = 8 };
static const struct dw_type t_arr = { .kind = DW_TYPE_ARRAY, .name = "int [3]", .size = 12,
				      .target = &t_int, .count = 3 };
static const struct dw_enumerator colors[] = { { "RED", 0 }, { "GREEN", 1 } };
static const struct dw_type t_enum = { .kind = DW_TYPE_ENUM, .name = "enum color", .size = 4,
				       .enumerators = colors, .n_enumerators = 2 };
static const struct dw_type t_ptr = { .kind = DW_TYPE_POINTER, .name = "struct s *", .size = 8 };
static const struct dw_member s_members[] = {
	{ "a", 0, &t_int, 0, 0 },      { "name", 4, &t_name, 0, 0 }, { "arr", 12, &t_arr, 0, 0 },
	{ "d", 24, &t_double, 0, 0 }, { "p", 32, &t_ptr, 0, 0 },    { "bits", 40, &t_uint, 3, 0 },
	{ "neg", 40, &t_int, 4, 3 },  { "c", 44, &t_enum, 0, 0 },   { "nan", 48, &t_double, 0, 0 },
	{ "cut", 56, &t_int, 0, 0 },
};
static const struct dw_type t_struct = { .kind = DW_TYPE_STRUCT, .name = "struct s", .size = 60,
					 .members = s_members, .n_members = 10 };

/* An argument as the probe sends it: kind, status and @n bytes. */
static void eb_raw_arg(struct eventbuf *b, uint8_t kind, uint8_t status, const void *data, size_t n)
{
	struct wr_arg_header ah = { .kind = kind, .status = status, .len = (uint16_t)n };
	size_t pad = (n + 7) / 8 * 8;

	eb_put(b, &ah, sizeof(ah));
	memset(b->data + b->len, 0, pad);
	memcpy(b->data + b->len, data, n);
	b->len += pad;
}

/* The struct's 56 bytes (its last member was not read). */
static void struct_bytes(uint8_t *raw)
{
	int32_t a = -5, arr[3] = { 1, 2, 3 }, c = 1;
	double d = 0.5, nan = __builtin_nan("");
	uint64_t p = 0x1000;
	uint32_t bits = 5u | 14u << 3; /* bits 5, neg 0b1110 = -2 */

	memset(raw, 0, 56);
	memcpy(raw, &a, 4);
	memcpy(raw + 4, "ab\xff", 3);
	memcpy(raw + 12, arr, 12);
	memcpy(raw + 24, &d, 8);
	memcpy(raw + 32, &p, 8);
	memcpy(raw + 40, &bits, 4);
	memcpy(raw + 44, &c, 4);
	memcpy(raw + 48, &nan, 8);
}

/* Each print argument as data beside the text: a struct by member names
 * (arrays, a char array as a string with a byte that is not UTF-8,
 * bitfields signed and not, an enum by name, a float and a NaN, a pointer,
 * a member not read), a NULL pointer, an enum without a name for its
 * value, a value optimized out, a string. */
static void test_typed_args(void **state)
{
	struct render_arg_type types[] = { { 0, 0, &t_struct }, { 0, 1, &t_ptr }, { 0, 2, &t_enum } };
	struct strbuf out = STRBUF_INIT;
	struct eventbuf b;
	uint8_t raw[56];
	uint64_t zero = 0, seven = 7;

	struct_bytes(raw);
	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_raw_arg(&b, WR_ARG_BYTES, WR_ARG_OK, raw, sizeof(raw));
	eb_raw_arg(&b, WR_ARG_PTR, WR_ARG_OK, &zero, 8);
	eb_raw_arg(&b, WR_ARG_ENUM, WR_ARG_OK, &seven, 8);
	eb_raw_arg(&b, WR_ARG_I64, WR_ARG_OPTIMIZED_OUT, &zero, 8);
	eb_str(&b, "hi");
	eb_close_item(&b);
	print_event(*state, "trace leaf { print \"{} {} {} {} {}\", s, p, c, q, name; }", types, 3, &b,
		    RENDER_JSON, &out);
	assert_non_null(strstr(out.buf,
		"\"args\":["
		"{\"expr\":\"s\",\"type\":\"struct s\",\"value\":{\"a\":-5,\"name\":\"ab\\\\xff\","
		"\"arr\":[1,2,3],\"d\":0.5,\"p\":\"0x1000\",\"bits\":5,\"neg\":-2,\"c\":\"GREEN\","
		"\"nan\":\"nan\",\"cut\":null},\"error\":null},"
		"{\"expr\":\"p\",\"type\":\"struct s *\",\"value\":null,\"error\":null},"
		"{\"expr\":\"c\",\"type\":\"enum color\",\"value\":7,\"error\":null},"
		"{\"expr\":\"q\",\"type\":\"long\",\"value\":null,\"error\":\"optimized-out\"},"
		"{\"expr\":\"name\",\"type\":\"string\",\"value\":\"hi\",\"error\":null}]}]}\n"));
	strbuf_release(&out);
}

static void test_status_tables(void **state)
{
	(void)state;
	assert_string_equal(bt_status_label(WR_BT_COMPLETE), "complete");
	assert_string_equal(bt_status_label(WR_BT_NO_ROWS_FOR_PC), "no-unwind-rows-for-pc");
	assert_string_equal(bt_status_label(99), "unknown");
	assert_string_equal(bt_error_label(WR_BTE_NEXT_CFA_ZERO), "next-cfa-zero");
	assert_int_equal(bt_status_from_label("read-error"), WR_BT_READ_ERROR);
	assert_int_equal(bt_status_from_label("nope"), -1);
	assert_int_equal(bt_status_tone(WR_BT_COMPLETE), SPAN_TONE_GOOD);
	assert_int_equal(bt_status_tone(WR_BT_TRUNCATED), SPAN_TONE_WARN);
	assert_int_equal(bt_status_tone(WR_BT_READ_ERROR), SPAN_TONE_BAD);
	assert_int_equal(bt_status_tone(99), SPAN_TONE_BAD);
}

/* doc/status-codes.md names every status and error code with its number
 * and explanation, exactly as the tables say. */
static void test_status_doc(void **state)
{
	const char *srcdir = getenv("WRAITH_SRCDIR");
	char path[4096], line[1024];
	struct strbuf doc = STRBUF_INIT, want = STRBUF_INIT;
	FILE *f;

	(void)state;
	assert_non_null(srcdir);
	snprintf(path, sizeof(path), "%s/doc/status-codes.md", srcdir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		strbuf_addstr(&doc, line);
	fclose(f);
	for (unsigned i = 0; i < WR_BT_STATUS_COUNT_; i++) {
		strbuf_reset(&want);
		strbuf_addf(&want, "| %u | `%s` | %s |", i, bt_status_label(i), bt_status_explain(i));
		if (!strstr(doc.buf, want.buf))
			fail_msg("doc/status-codes.md lacks the row: %s", want.buf);
	}
	for (unsigned i = 0; i < WR_BTE_COUNT_; i++) {
		strbuf_reset(&want);
		strbuf_addf(&want, "| %u | `%s` | %s |", i, bt_error_label(i), bt_error_explain(i));
		if (!strstr(doc.buf, want.buf))
			fail_msg("doc/status-codes.md lacks the row: %s", want.buf);
	}
	strbuf_release(&doc);
	strbuf_release(&want);
}

/* ---- values, as gdb prints them ---- */

#define T_INT(n, sz, sg) { .kind = DW_TYPE_INT, .name = n, .size = sz, .is_signed = sg }
static const struct dw_type v_int = T_INT("int", 4, true);
static const struct dw_type v_uint = T_INT("unsigned int", 4, false);
static const struct dw_type v_short = T_INT("short", 2, true);
static const struct dw_type v_long = T_INT("long", 8, true);
static const struct dw_type v_char = { .kind = DW_TYPE_INT, .name = "char", .size = 1, .is_signed = true,
				       .is_char = true };
static const struct dw_type v_schar = { .kind = DW_TYPE_INT, .name = "signed char", .size = 1,
					.is_signed = true, .is_char = true };
static const struct dw_type v_uchar = { .kind = DW_TYPE_INT, .name = "unsigned char", .size = 1,
					.is_char = true };
static const struct dw_type v_bool = { .kind = DW_TYPE_BOOL, .name = "_Bool", .size = 1 };
static const struct dw_type v_float = { .kind = DW_TYPE_FLOAT, .name = "float", .size = 4 };
static const struct dw_type v_double = { .kind = DW_TYPE_FLOAT, .name = "double", .size = 8 };
static const struct dw_type v_ldouble = { .kind = DW_TYPE_FLOAT, .name = "long double", .size = 16 };
static const struct dw_type v_quad = { .kind = DW_TYPE_FLOAT, .name = "__float128", .size = 16 };
static const struct dw_type v_f128 = { .kind = DW_TYPE_FLOAT, .name = "_Float128", .size = 16 };
static const struct dw_type v_half = { .kind = DW_TYPE_FLOAT, .name = "_Float16", .size = 2 };
static const struct dw_type v_cdouble = { .kind = DW_TYPE_COMPLEX, .name = "complex double", .size = 16 };
static const struct dw_type v_cfloat = { .kind = DW_TYPE_COMPLEX, .name = "complex float", .size = 8 };
static const struct dw_type v_dec32 = { .kind = DW_TYPE_DECIMAL, .name = "_Decimal32", .size = 4 };
static const struct dw_type v_dec64 = { .kind = DW_TYPE_DECIMAL, .name = "_Decimal64", .size = 8 };
static const struct dw_type v_cquad = { .kind = DW_TYPE_COMPLEX, .name = "complex _Float128", .size = 32 };
static const struct dw_type v_bf16 = { .kind = DW_TYPE_FLOAT, .name = "__bf16", .size = 2 };
static const struct dw_enumerator big_values[] = { { "SMALL", 1 }, { "BIG", -294967296 } };
static const struct dw_type v_big = { .kind = DW_TYPE_ENUM, .name = "enum big", .size = 4,
				      .enumerators = big_values, .n_enumerators = 2 };
static const struct dw_enumerator flag_values[] = { { "F_A", 1 }, { "F_B", 2 }, { "F_C", 4 } };
static const struct dw_type v_byte = { .kind = DW_TYPE_ENUM, .name = "std::byte", .size = 1 };
static const struct dw_type v_flags = { .kind = DW_TYPE_ENUM, .name = "enum flags", .size = 4,
					.enumerators = flag_values, .n_enumerators = 3 };
static const struct dw_enumerator color_values[] = { { "RED", 0 }, { "GREEN", 1 }, { "BLUE", 2 } };
static const struct dw_type v_color = { .kind = DW_TYPE_ENUM, .name = "enum color", .size = 4,
					.enumerators = color_values, .n_enumerators = 3 };
static const struct dw_enumerator multi_values[] = { { "M_LOW", 3 }, { "M_HIGH", 12 } };
static const struct dw_type v_multi = { .kind = DW_TYPE_ENUM, .name = "enum multi", .size = 4,
					.enumerators = multi_values, .n_enumerators = 2 };
static const struct dw_type v_int_p = { .kind = DW_TYPE_POINTER, .name = "int *", .size = 8,
					.target = &v_int };
static const struct dw_type v_cchar = { .kind = DW_TYPE_INT, .name = "const char", .size = 1,
					.is_signed = true, .is_char = true };
static const struct dw_type v_str = { .kind = DW_TYPE_POINTER, .name = "const char *", .size = 8,
				      .target = &v_cchar };
static const struct dw_type v_ustr = { .kind = DW_TYPE_POINTER, .name = "unsigned char *", .size = 8,
				       .target = &v_uchar };
static const struct dw_type v_char8 = { .kind = DW_TYPE_ARRAY, .name = "char[8]", .size = 8,
					.target = &v_char, .count = 8, .is_char = true };
static const struct dw_type v_char20 = { .kind = DW_TYPE_ARRAY, .name = "char[20]", .size = 20,
					 .target = &v_char, .count = 20, .is_char = true };
static const struct dw_type v_char40 = { .kind = DW_TYPE_ARRAY, .name = "char[40]", .size = 40,
					 .target = &v_char, .count = 40, .is_char = true };
static const struct dw_type v_int20 = { .kind = DW_TYPE_ARRAY, .name = "int[20]", .size = 80,
					.target = &v_int, .count = 20 };
static const struct dw_member bits_members[] = {
	{ .name = "flags", .offset = 0, .type = &v_int, .bit_size = 3, .bit_offset = 0 },
	{ .name = "u", .offset = 0, .type = &v_uint, .bit_size = 3, .bit_offset = 3 },
	{ .name = "x", .offset = 4, .type = &v_int },
	{ .name = "on", .offset = 8, .type = &v_bool, .bit_size = 1, .bit_offset = 0 },
	{ .name = "c", .offset = 8, .type = &v_color, .bit_size = 2, .bit_offset = 1 },
};
static const struct dw_type v_bits = { .kind = DW_TYPE_STRUCT, .name = "struct bits", .size = 12,
				       .members = bits_members, .n_members = 5 };
/* gdb's char of a char bitfield is its sign-extended value: sc4 = -1 is
 * '\377', and the neighbours' bits are not part of it (7 '\a'). */
static const struct dw_member cbits_members[] = {
	{ .name = "sc4", .offset = 0, .type = &v_schar, .bit_size = 4, .bit_offset = 0 },
	{ .name = "c3", .offset = 0, .type = &v_schar, .bit_size = 4, .bit_offset = 4 },
	{ .name = "u4", .offset = 1, .type = &v_uchar, .bit_size = 4, .bit_offset = 0 },
};
static const struct dw_type v_cbits = { .kind = DW_TYPE_STRUCT, .name = "struct cbits", .size = 2,
					.members = cbits_members, .n_members = 3 };
static const struct dw_member pair_members[] = {
	{ .name = "b", .offset = 0, .type = &v_int }, { .name = "c", .offset = 4, .type = &v_int },
};
static const struct dw_type v_pair = { .kind = DW_TYPE_STRUCT, .name = "struct <anonymous>", .size = 8,
				       .members = pair_members, .n_members = 2 };
static const struct dw_member outer_members[] = {
	{ .name = "a", .offset = 0, .type = &v_int }, { .name = NULL, .offset = 4, .type = &v_pair },
	{ .name = "p", .offset = 16, .type = &v_int_p }, { .name = "s", .offset = 24, .type = &v_str },
	{ .name = "n", .offset = 32, .type = &v_str },
};
static const struct dw_type v_outer = { .kind = DW_TYPE_STRUCT, .name = "struct outer", .size = 40,
					.members = outer_members, .n_members = 5 };

/* A value the probe assembled from pieces (WR_ARG_PIECES): members whose
 * bits were not all kept are <optimized out>, as gdb shows them, bitfields
 * by their own bits; a struct inside it none of whose bits were kept shows
 * its members so, but a whole value none of whose bits were kept is one
 * <optimized out>; {:x} shows a byte not kept as ??; the JSON value has
 * null there; a variable GCC marked as perhaps not initialized yet shows
 * gdb's [uninitialized] before it.  Decoded from the wire: value, then mask, each padded. */
static void test_pieces_args(void **state)
{
	struct render_arg_type types[] = { { 0, 0, &v_bits }, { 0, 1, &v_bits }, { 0, 2, &v_outer },
					   { 0, 3, &v_pair } };
	struct fixture *f = *state;
	struct render_hooks hooks = { hook_probe, hook_frame, hook_tail, f };
	struct ast_script *script;
	struct diag d = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct span_list spans;
	struct event_decoder dec;
	struct renderer r;
	struct eventbuf b;
	struct event ev;
	/* flags -4, u 5 (not kept), x 9, on (not kept), c BLUE */
	uint8_t bits[32] = { 0x2c, 0, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0,
			     0x38, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0 };
	/* a 1, its anonymous pair not kept at all, p and s kept, n half */
	uint8_t outer[80] = { 1 }, pair[16] = { 1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct wr_arg_header ah = { .kind = WR_ARG_PIECES, .len = 32, .aux = 12 };

	memset(outer + 40 + 4, 0xff, 8);
	memset(outer + 40 + 36, 0xff, 4);
	outer[16] = 0x10;
	assert_int_equal(script_parse("trace leaf { print \"{} {:x} {} {}\", s, s, o, q; }", &script, &d), 0);
	f->probe.ast = script->probes[0];
	f->probe.arg_types = types;
	f->probe.n_arg_types = 4;
	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_PRINT, 0);
	for (int i = 0; i < 2; i++) {
		eb_put(&b, &ah, sizeof(ah));
		eb_put(&b, bits, sizeof(bits));
	}
	ah.len = 80;
	ah.aux = 40 | WR_PIECES_F_UNINIT;
	eb_put(&b, &ah, sizeof(ah));
	eb_put(&b, outer, sizeof(outer));
	ah.len = 16;
	ah.aux = 8;
	eb_put(&b, &ah, sizeof(ah));
	eb_put(&b, pair, sizeof(pair));
	eb_close_item(&b);
	event_decoder_init(&dec);
	assert_int_equal(event_decode(&dec, b.data, b.len, &ev), 0);
	renderer_init(&r, RENDER_PLAIN, &hooks);
	span_list_init(&spans);
	render_event(&r, &ev, &spans);
	span_write_text(&spans, SPAN_COLOR_NONE, &out);
	assert_non_null(strstr(out.buf, "{flags: -4, u: <optimized out>, x: 9, on: <optimized out>, c: BLUE} "
				"?? 00 00 00 09 00 00 00 ?? 00 00 00 "
				"[uninitialized] {a: 1, {b: <optimized out>, c: <optimized out>}, p: 0x10, s: 0x0, n: <optimized out>} "
				"<optimized out>"));
	renderer_release(&r);
	span_list_release(&spans);
	strbuf_reset(&out);
	renderer_init(&r, RENDER_JSON, &hooks);
	span_list_init(&spans);
	render_event(&r, &ev, &spans);
	span_write_json(&spans, &out);
	assert_non_null(strstr(out.buf, "\"value\":{\"flags\":-4,\"u\":null,\"x\":9,\"on\":null,\"c\":"));
	assert_non_null(strstr(out.buf, "\"value\":{\"a\":1,\"b\":null,\"c\":null,\"p\":\"0x10\",\"s\":null,"
				"\"n\":null}"));
	span_list_release(&spans);
	renderer_release(&r);
	assert_non_null(strstr(out.buf, "{\"expr\":\"q\",\"type\":\"struct <anonymous>\",\"value\":null,"));
	/* a mask that does not match the value's size is malformed */
	ah.len = 8;
	memcpy(b.data + b.len - sizeof(pair) - sizeof(ah), &ah, sizeof(ah));
	assert_int_not_equal(event_decode(&dec, b.data, b.len, &ev), 0);
	event_decoder_release(&dec);
	ast_script_free(script);
	strbuf_release(&out);
}

/* What the caller passed, by DWARF register, as the session's hook
 * would find it by the capture. */
static bool hook_caller(void *ctx, uint32_t pid, const struct ev_arg *cap, size_t n, unsigned reg,
			uint64_t *value)
{
	(void)ctx;
	(void)pid;
	assert_int_equal(n, WR_CALLER_REGS + WR_CALLER_DUMPS + 4);
	assert_int_equal(cap[0].value, 100); /* rax, as captured */
	*value = reg == 5 ? 0xffffffffull : reg == 4 ? 0x5000 : 0x6000;
	return reg != 2;
}

/* A print whose values the probe could not read (<optimized out>) but
 * its caller item (WR_ITEM_CALLER) says: each gets the value the caller
 * passed, cut to its type's size; a char pointer's string, which only
 * the hit could have read, and one the hook does not know, stay
 * <optimized out>. */
static void test_caller_values(void **state)
{
	static const struct dw_type t_long = { .kind = DW_TYPE_INT, .name = "long", .size = 8, .is_signed = true };
	static const struct dw_type t_longp = { .kind = DW_TYPE_POINTER, .name = "long *", .size = 8,
						.target = &t_long };
	static const struct dw_type t_str = { .kind = DW_TYPE_POINTER, .name = "char *", .size = 8,
					      .target = &t_char };
	struct render_arg_type types[] = { { 0, 0, &t_int }, { 0, 1, &t_longp }, { 0, 2, &t_str }, { 0, 3, &t_long } };
	struct fixture *f = *state;
	struct render_hooks hooks = { .probe = hook_probe, .frame = hook_frame, .tailcalls = hook_tail, .ctx = f,
				      .caller_value = hook_caller };
	struct wr_arg_header dump = { .kind = WR_ARG_DUMP, .len = 8, .aux = WR_DUMP_MAX };
	struct wr_arg_header oo = { .kind = WR_ARG_I64, .status = WR_ARG_OPTIMIZED_OUT, .len = 8 };
	const unsigned regs[] = { 5, 4, 1, 2 };
	struct ast_script *script;
	struct diag d = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct span_list spans;
	struct renderer r;
	struct eventbuf b;
	uint64_t zero = 0;

	assert_int_equal(script_parse("trace leaf { print \"{} {} {} {}\", i, p, s, l; }", &script, &d), 0);
	f->probe.ast = script->probes[0];
	f->probe.arg_types = types;
	f->probe.n_arg_types = 4;
	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_PRINT, 0);
	for (int i = 0; i < 4; i++) {
		eb_put(&b, &oo, sizeof(oo));
		eb_put(&b, &zero, sizeof(zero));
	}
	eb_close_item(&b);
	eb_item(&b, WR_ITEM_CALLER, 0);
	for (unsigned k = 0; k < WR_CALLER_REGS; k++)
		eb_arg(&b, WR_ARG_U64, 100 + k);
	for (unsigned k = 0; k < WR_CALLER_DUMPS; k++) {
		eb_put(&b, &dump, sizeof(dump));
		eb_put(&b, &zero, sizeof(zero));
	}
	for (unsigned k = 0; k < 4; k++)
		eb_arg(&b, WR_ARG_U64, wr_caller_arg(k, regs[k]));
	eb_close_item(&b);
	renderer_init(&r, RENDER_PLAIN, &hooks);
	span_list_init(&spans);
	render_buf(&r, &b, &spans);
	span_write_text(&spans, SPAN_COLOR_NONE, &out);
	assert_non_null(strstr(out.buf, "-1 (long *) 0x5000 <optimized out> <optimized out>"));
	renderer_release(&r);
	span_list_release(&spans);
	ast_script_free(script);
	strbuf_release(&out);
}

struct value_case {
	const struct dw_type *t;
	const char *bytes; /* little-endian bytes as C escapes */
	size_t len;
	const char *want;
};

#define V(t, b, w) { &t, b, sizeof(b) - 1, w }

static void test_scalars(void **state)
{
	static const struct value_case cases[] = {
		V(v_uint, "\xff\xff\xff\xff", "4294967295"), V(v_int, "\xfb\xff\xff\xff", "-5"),
		V(v_short, "\xff\xff", "-1"), V(v_long, "\xfb\xff\xff\xff\xff\xff\xff\xff", "-5"),
		V(v_schar, "\xfd", "-3 '\\375'"), V(v_char, "A", "65 'A'"), V(v_uchar, "\xc8", "200 '\\310'"),
		V(v_char, "\n", "10 '\\n'"), V(v_char, "'", "39 '\\''"), V(v_char, "\"", "34 '\"'"),
		V(v_char, "\\", "92 '\\\\'"), V(v_char, "\x7f", "127 '\\177'"), V(v_char, "\0", "0 '\\000'"),
		V(v_char, "\x07", "7 '\\a'"), V(v_bool, "\1", "true"), V(v_bool, "\0", "false"),
		V(v_bool, "\2", "2"),
		V(v_double, "\0\0\0\0\x04\x24\xfe\x40", "123456.25"),
		V(v_double, "\x55\x55\x55\x55\x55\x55\xd5\x3f", "0.33333333333333331"),
		V(v_double, "\xf1\x68\xe3\x88\xb5\xf8\xe4\x3e", "1.0000000000000001e-05"),
		V(v_double, "\0\0\0\0\x84\xd7\x97\x41", "100000000"),
		V(v_double, "\0\0\0\0\0\0\0\x80", "-0"),
		V(v_double, "\0\0\0\0\0\0\xf8\xff", "-nan(0x8000000000000)"),
		V(v_double, "\x23\x01\0\0\0\0\xf8\x7f", "nan(0x8000000000123)"),
		V(v_double, "\0\0\0\0\0\0\xf0\x7f", "inf"), V(v_double, "\0\0\0\0\0\0\xf0\xff", "-inf"),
		V(v_float, "\xcd\xcc\xcc\x3d", "0.100000001"), V(v_float, "\xf9\x02\x15\x50", "1e+10"),
		V(v_float, "\0\0\xc0\x7f", "nan(0x400000)"),
		V(v_ldouble, "\0\0\0\0\0\0\0\xc0\xff\x3f\0\0\0\0\0\0", "1.5"),
		V(v_ldouble, "\xcd\xcc\xcc\xcc\xcc\xcc\xcc\xcc\xfb\x3f\0\0\0\0\0\0", "0.100000000000000000001"),
		V(v_ldouble, "\0\0\0\0\0\0\0\xc0\xff\xff\0\0\0\0\0\0", "-nan(0xc000000000000000)"),
		V(v_ldouble, "\0\0\0\0\0\0\0\x80\xff\x7f\0\0\0\0\0\0", "inf"),
		/* x87 patterns the FPU refuses: gdb's <invalid float value> */
		V(v_ldouble, "\0\0\0\0\0\0\0\x40\xff\x3f\0\0\0\0\0\0", "<invalid float value>"),
		V(v_ldouble, "\1\0\0\0\0\0\0\x80\0\0\0\0\0\0\0\0", "<invalid float value>"),
		V(v_ldouble, "\0\0\0\0\0\0\0\0\xff\x7f\0\0\0\0\0\0", "<invalid float value>"),
		/* IEEE quads, as gdb prints them (36 digits) */
		V(v_quad, "\0\0\0\0\0\0\0\0\0\0\0\0\0\x80\xff\x3f", "1.5"),
		V(v_quad, "\x9a\x99\x99\x99\x99\x99\x99\x99\x99\x99\x99\x99\x99\x99\xfb\x3f",
		  "0.100000000000000000000000000000000005"),
		V(v_f128, "\0\0\0\0\0\0\0\0\0\0\0\0\0\x20\0\xc0", "-2.25"),
		V(v_quad, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x80", "-0"),
		V(v_quad, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xff\x7f", "inf"),
		V(v_quad, "\5\0\0\0\0\0\0\0\0\0\0\0\0\x80\xff\xff", "-nan(0x8000000000000000000000000005)"),
		V(v_quad, "\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", "6.47517511943802511092443895822764655e-4966"),
		V(v_quad, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x3f\x40", "18446744073709551616"),
		V(v_half, "\x66\x2e", "0.099976"), V(v_half, "\xff\xfb", "-65504"), V(v_half, "\0\x7e", "nan(0x200)"),
		V(v_bf16, "\x49\x40", "3.141"),
		/* complex: the real part, then the imaginary one, as gdb writes them */
		V(v_cdouble, "\0\0\0\0\0\0\xf8\x3f\0\0\0\0\0\0\x04\xc0", "1.5 + -2.5i"),
		V(v_cfloat, "\0\0\x80\x3e\0\0\xc0\x7f", "0.25 + nan(0x400000)i"),
		V(v_cquad, "\0\0\0\0\0\0\0\0\0\0\0\0\0\x80\xff\x3f\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x80",
		  "1.5 + -0i"),
		/* decimal floats (BID), as gdb: the cohort's trailing zeros kept */
		V(v_dec64, "\x96\0\0\0\0\0\x80\x31", "1.50"), V(v_dec64, "\1\0\0\0\0\0\x40\x34", "1E+20"),
		V(v_dec64, "\1\0\0\0\0\0\xe0\x30", "1E-7"), V(v_dec64, "\0\0\0\0\0\0\x80\x31", "0.00"),
		V(v_dec64, "\0\0\0\0\0\0\0\xf8", "-Infinity"), V(v_dec64, "\0\0\0\0\0\0\0\x7c", "NaN"),
		V(v_dec32, "\1\0\x80\xaf", "-0.000001"),
		V(v_big, "\x00\x28\x6b\xee", "BIG"), V(v_big, "\7\0\0\0", "7"),
		V(v_flags, "\5\0\0\0", "(F_A | F_C)"), V(v_flags, "\x09\0\0\0", "(F_A | unknown: 0x8)"),
		V(v_flags, "\x08\0\0\0", "(unknown: 0x8)"), V(v_flags, "\0\0\0\0", "0"),
		/* no enumerators at all (std::byte): a flag enum to gdb */
		V(v_byte, "\xf0", "(unknown: 0xf0)"), V(v_byte, "\0", "0"),
		V(v_flags, "\2\0\0\0", "F_B"), V(v_color, "\7\0\0\0", "(GREEN | BLUE | unknown: 0x4)"),
		V(v_multi, "\x0f\0\0\0", "15"),
		V(v_bits, "\x2c\0\0\0\x09\0\0\0\x05\0\0\0", "{flags: -4, u: 5, x: 9, on: true, c: BLUE}"),
		V(v_bits, "\x2c\0\0\0\x09\0\0\0\xfb\0\0\0", "{flags: -4, u: 5, x: 9, on: true, c: GREEN}"),
		V(v_cbits, "\x2f\xaf", "{sc4: -1 '\\377', c3: 2 '\\002', u4: 15 '\\017'}"),
		V(v_cbits, "\x27\xf7", "{sc4: 7 '\\a', c3: 2 '\\002', u4: 7 '\\a'}"),
	};
	struct strbuf out = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&out);
		render_value(cases[i].t, (const uint8_t *)cases[i].bytes, cases[i].len, true, NULL, &out);
		if (strcmp(out.buf, cases[i].want))
			fail_msg("case %zu (%s): got %s, want %s", i, cases[i].t->name, out.buf, cases[i].want);
	}
	strbuf_release(&out);
}

static void test_strings_and_arrays(void **state)
{
	static const struct value_case cases[] = {
		V(v_char8, "abc\0\0\0\0\0", "\"abc\\000\\000\\000\\000\""),
		V(v_char20, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", "'\\000' <repeats 19 times>"),
		V(v_char8, "\"\\'\n\x01\x1b\xff\0", "\"\\\"\\\\'\\n\\001\\033\\377\""),
		V(v_char40, "ab\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0c\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
		  "\"ab\", '\\000' <repeats 18 times>, \"c\", '\\000' <repeats 18 times>"),
		V(v_char8, "DCBAxyzw", "\"DCBAxyzw\""),
		V(v_int20, "\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0"
			   "\1\0\0\0\2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
		  "[1 <repeats 11 times>, 2, 0, 0, 0, 0, 0, 0, 0, 0]"),
		V(v_int20, "\7\0\0\0\7\0\0\0", "[7, 7, ...]"),
	};
	struct strbuf out = STRBUF_INIT;
	uint8_t many[300];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&out);
		render_value(cases[i].t, (const uint8_t *)cases[i].bytes, cases[i].len, true, NULL, &out);
		if (strcmp(out.buf, cases[i].want))
			fail_msg("case %zu (%s): got %s, want %s", i, cases[i].t->name, out.buf, cases[i].want);
	}
	/* gdb shows 200 characters of a longer string, then "..." */
	memset(many, 'x', sizeof(many));
	for (size_t i = 0; i < sizeof(many); i += 2)
		many[i] = 'y';
	strbuf_reset(&out);
	render_text(many, 200, true, &out);
	assert_int_equal(out.len, 200 + 2 + 3);
	assert_string_equal(out.buf + 200 + 2, "...");
	strbuf_release(&out);
}

/* Text in a UTF-8 locale: printable characters as themselves, the rest
 * escaped; a sequence the text ends in marked (gdb marks it too, but
 * drops the character before it: wraith keeps it). */
static void test_text_utf8(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xc2\x85\xff", "\"\\302\\205\\377\"" },
		{ "ab\xe2", "\"ab\", <incomplete sequence \\342>" },
		{ "\xe2\x82", "<incomplete sequence \\342\\202>" },
		{ "\xe2\x82x", "\"\\342\\202x\"" },
		{ "\xc0\x80", "\"\\300\\200\"" },                     /* overlong */
		/* as glibc's iconv (gdb's) judges the end: the old 5- and 6-byte
		 * lead bytes begin a character, \300 and \376 none */
		{ "ab\xfd\xa0", "\"ab\", <incomplete sequence \\375\\240>" },
		{ "ab\xf8\x80\x80", "\"ab\", <incomplete sequence \\370\\200\\200>" },
		{ "ab\xc0", "\"ab\\300\"" },
		{ "ab\xfe", "\"ab\\376\"" },
		{ "\xed\xa0\x80", "\"\\355\\240\\200\"" },          /* a surrogate */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9z",
		  "'\xc3\xa9' <repeats 11 times>, \"z\"" },
	};
	struct strbuf out = STRBUF_INIT;

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	render_set_utf8(true);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&out);
		render_text((const uint8_t *)cases[i].in, strlen(cases[i].in), false, &out);
		if (strcmp(out.buf, cases[i].want))
			fail_msg("case %zu: got %s, want %s", i, out.buf, cases[i].want);
	}
	render_set_utf8(false);
	setlocale(LC_CTYPE, "C");
	strbuf_reset(&out);
	render_text((const uint8_t *)"caf\xc3\xa9", 5, false, &out);
	assert_string_equal(out.buf, "\"caf\\303\\251\"");
	strbuf_release(&out);
}

/* A fake symbol table: g at 0x1000 (size 64), f at 0x4000 (size 32). */
static void fake_symbol(void *ctx, uint64_t addr, struct strbuf *out)
{
	(void)ctx;
	if (addr >= 0x1000 && addr < 0x1040)
		strbuf_addf(out, addr == 0x1000 ? " <g>" : " <g+%u>", (unsigned)(addr - 0x1000));
}

static void test_pointers(void **state)
{
	struct render_value_ctx vc = { .symbol = fake_symbol };
	struct ev_arg strs[2] = {
		{ .kind = WR_ARG_ATTACH, .aux = 24, .value = 0x2000, .data = (const uint8_t *)"hello", .len = 6 },
		{ .kind = WR_ARG_ATTACH, .aux = 32, .status = WR_ARG_POINTEE_ERROR, .value = 0x10 },
	};
	struct ev_arg torn = { .kind = WR_ARG_CSTR, .status = WR_ARG_POINTEE_ERROR, .value = 0x2ffc,
			       .data = (const uint8_t *)"tear", .len = 4 };
	uint8_t outer[40] = { 0 }, raw[8];
	struct strbuf out = STRBUF_INIT;
	uint64_t v;

	(void)state;
	v = 0x1014;
	memcpy(raw, &v, 8);
	render_value(&v_int_p, raw, 8, true, &vc, &out);
	assert_string_equal(out.buf, "(int *) 0x1014 <g+20>");
	strbuf_reset(&out);
	v = 0;
	memcpy(raw, &v, 8);
	render_value(&v_int_p, raw, 8, true, &vc, &out);
	assert_string_equal(out.buf, "(int *) 0x0");
	strbuf_reset(&out);
	render_pointer(&v_str, 0x2000, &strs[0], true, &vc, &out);
	assert_string_equal(out.buf, "0x2000 \"hello\"");
	strbuf_reset(&out);
	render_pointer(&v_ustr, 0x1000, &strs[0], true, &vc, &out);
	assert_string_equal(out.buf, "(unsigned char *) 0x1000 <g> \"hello\"");
	/* a string that runs into a page that cannot be read: its head (no
	 * NUL), then the error where the page starts, as gdb shows it */
	strbuf_reset(&out);
	render_pointer(&v_str, 0x2ffc, &torn, true, &vc, &out);
	assert_string_equal(out.buf, "0x2ffc \"tear\"<error: Cannot access memory at address 0x3000>");
	strbuf_reset(&out);
	torn.status = WR_ARG_READ_ERROR; /* a walk's copy of it (WR_ARG_MEM) */
	torn.kind = WR_ARG_MEM;
	render_pointer(&v_str, 0x2ffc, &torn, true, &vc, &out);
	assert_string_equal(out.buf, "0x2ffc \"tear\"<error: Cannot access memory at address 0x3000>");
	/* inside a struct: no types; strings from the attachments by offset */
	outer[0] = 1;
	outer[4] = 2;
	outer[8] = 3;
	v = 0x1000;
	memcpy(outer + 16, &v, 8);
	v = 0x2000;
	memcpy(outer + 24, &v, 8);
	v = 0x10;
	memcpy(outer + 32, &v, 8);
	vc.attach = strs;
	vc.n_attach = 2;
	strbuf_reset(&out);
	render_value(&v_outer, outer, sizeof(outer), true, &vc, &out);
	assert_string_equal(out.buf, "{a: 1, {b: 2, c: 3}, p: 0x1000 <g>, s: 0x2000 \"hello\", "
				     "n: 0x10 <error: Cannot access memory at address 0x10>}");
	strbuf_release(&out);
}

/* gdb's print max-depth comes with the value's context (the session's
 * --print-depth): nested as deep as the limit, a struct is {...}. */
static void test_depth_limit(void **state)
{
	struct render_limits lim = { .elements = 200, .depth = 1 };
	struct render_value_ctx vc = { .limits = &lim };
	uint8_t outer[40] = { 1, 0, 0, 0, 2, 0, 0, 0, 3 };
	struct strbuf out = STRBUF_INIT;

	(void)state;
	render_value(&v_outer, outer, sizeof(outer), true, &vc, &out);
	assert_string_equal(out.buf, "{a: 1, {...}, p: 0x0, s: 0x0, n: 0x0}");
	lim.depth = 0;
	strbuf_reset(&out);
	render_value(&v_outer, outer, sizeof(outer), true, &vc, &out);
	assert_string_equal(out.buf, "{...}");
	strbuf_reset(&out);
	render_value(&v_outer, outer, sizeof(outer), true, NULL, &out); /* gdb's 20 */
	assert_string_equal(out.buf, "{a: 1, {b: 2, c: 3}, p: 0x0, s: 0x0, n: 0x0}");
	strbuf_release(&out);
}

/* struct D : A, B { int c; } */
static const struct dw_member a_members[] = { { .name = "a", .offset = 0, .type = &v_int } };
static const struct dw_type v_base_a = { .kind = DW_TYPE_STRUCT, .name = "A", .size = 4,
					 .members = a_members, .n_members = 1 };
static const struct dw_member b_members[] = { { .name = "b", .offset = 0, .type = &v_int } };
static const struct dw_type v_base_b = { .kind = DW_TYPE_STRUCT, .name = "ns::B", .size = 4,
					 .members = b_members, .n_members = 1 };
static const struct dw_member d_members[] = {
	{ .name = "<base>", .offset = 0, .type = &v_base_a },
	{ .name = "<base>", .offset = 4, .type = &v_base_b },
	{ .name = "c", .offset = 8, .type = &v_int },
};
static const struct dw_type v_derived = { .kind = DW_TYPE_STRUCT, .name = "D", .size = 12,
					  .members = d_members, .n_members = 3 };

/* JSON keys an object's members uniquely: each base class by its name,
 * an anonymous struct's members in line; and a char pointer member is
 * its string, as in the text. */
static void test_json_members(void **state)
{
	struct render_arg_type types[] = { { 0, 0, &v_derived }, { 0, 1, &v_outer } };
	uint8_t derived[16] = { 1, 0, 0, 0, 2, 0, 0, 0, 3 }, outer[40] = { 1, 0, 0, 0, 2, 0, 0, 0, 3 };
	struct wr_arg_header ah = { .kind = WR_ARG_BYTES, .len = 12, .aux = 12 };
	struct strbuf out = STRBUF_INIT;
	struct eventbuf b;
	uint64_t v;

	v = 0x2000;
	memcpy(outer + 24, &v, 8);
	v = 0x10;
	memcpy(outer + 32, &v, 8);
	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_put(&b, &ah, sizeof(ah));
	eb_put(&b, derived, 16);
	ah.len = ah.aux = 40;
	eb_put(&b, &ah, sizeof(ah));
	eb_put(&b, outer, sizeof(outer));
	/* s (at 24) points to "hello"; n (at 32) could not be read */
	ah = (struct wr_arg_header){ .kind = WR_ARG_ATTACH, .len = 14, .aux = 24 };
	eb_put(&b, &ah, sizeof(ah));
	v = 0x2000;
	eb_put(&b, &v, 8);
	eb_put(&b, "hello\0\0\0", 8);
	ah = (struct wr_arg_header){ .kind = WR_ARG_ATTACH, .status = WR_ARG_POINTEE_ERROR, .len = 8,
				     .aux = 32 };
	eb_put(&b, &ah, sizeof(ah));
	v = 0x10;
	eb_put(&b, &v, 8);
	eb_close_item(&b);
	print_event(*state, "trace leaf { print \"{} {}\", dd, o; }", types, 2, &b, RENDER_JSON, &out);
	assert_non_null(strstr(out.buf, "\"value\":{\"<A>\":{\"a\":1},\"<ns::B>\":{\"b\":2},\"c\":3}"));
	assert_non_null(strstr(out.buf, "\"value\":{\"a\":1,\"b\":2,\"c\":3,\"p\":null,\"s\":\"hello\","
				"\"n\":\"0x10\"}"));
	assert_non_null(strstr(out.buf, "\"text\":\"{<A>: {a: 1}, <ns::B>: {b: 2}, c: 3} {a: 1, {b: 2, c: 3}, "
				"p: 0x0, s: 0x2000 \\\"hello\\\", n: 0x10 <error: Cannot access memory at "
				"address 0x10>}\""));
	strbuf_release(&out);
}

/* A function is shown as gdb shows it: its type in braces, its address. */
static void test_functions(void **state)
{
	static const struct dw_type fn = { .kind = DW_TYPE_FUNCTION, .name = "void (int)" };
	struct render_value_ctx vc = { .symbol = fake_symbol };
	struct strbuf out = STRBUF_INIT;
	uint64_t v = 0x1000;
	uint8_t raw[8];

	(void)state;
	memcpy(raw, &v, 8);
	render_value(&fn, raw, 8, true, &vc, &out);
	assert_string_equal(out.buf, "{void (int)} 0x1000 <g>");
	strbuf_reset(&out);
	render_value(&fn, raw, 8, true, NULL, &out);
	assert_string_equal(out.buf, "{void (int)} 0x1000");
	strbuf_release(&out);
}

/* C++ values as gdb prints them: a reference with its referent (the
 * address attached), inside a value its address alone; a pointer to a
 * data member by the member's name; an enum class value qualified. */
static void test_cxx(void **state)
{
	static const struct dw_member pair_members[] = {
		{ .name = "x", .offset = 0, .type = &v_int },
		{ .name = "y", .offset = 4, .type = &v_int },
	};
	static const struct dw_type pair = { .kind = DW_TYPE_STRUCT, .name = "Pair", .size = 8,
					      .members = pair_members, .n_members = 2 };
	static const struct dw_type ref = { .kind = DW_TYPE_POINTER, .name = "const Pair &", .size = 8,
					    .target = &pair, .is_reference = true };
	static const struct dw_type mptr = { .kind = DW_TYPE_POINTER, .name = "int Pair::*", .size = 8,
					     .target = &v_int, .container = &pair };
	static const struct dw_enumerator modes[] = { { "off", 0 }, { "on", 5 } };
	static const struct dw_type mode = { .kind = DW_TYPE_ENUM, .name = "Mode", .size = 1,
					     .enumerators = modes, .n_enumerators = 2, .scoped = true };
	uint8_t bytes[8] = { 1, 0, 0, 0, 2, 0, 0, 0 }, raw[8];
	struct ev_arg addr = { .kind = WR_ARG_ATTACH, .aux = WR_ARG_ATTACH_REFERENCE, .value = 0x7ff0 };
	struct ev_arg a = { .kind = WR_ARG_BYTES, .data = bytes, .len = 8, .attach = &addr, .n_attach = 1 };
	struct strbuf out = STRBUF_INIT;
	uint64_t v;

	(void)state;
	assert_true(render_arg(&a, AST_FMT_DEFAULT, &ref, NULL, &out));
	assert_string_equal(out.buf, "(const Pair &) @0x7ff0: {x: 1, y: 2}");
	strbuf_reset(&out);
	v = 0x7ff0;
	memcpy(raw, &v, 8);
	render_value(&ref, raw, 8, false, NULL, &out);
	assert_string_equal(out.buf, "@0x7ff0");
	strbuf_reset(&out);
	v = 4;
	memcpy(raw, &v, 8);
	render_value(&mptr, raw, 8, true, NULL, &out);
	assert_string_equal(out.buf, "&Pair::y");
	strbuf_reset(&out);
	v = 5;
	memcpy(raw, &v, 8);
	render_value(&mode, raw, 1, true, NULL, &out);
	assert_string_equal(out.buf, "Mode::on");
	strbuf_release(&out);
}

/* Memory dumps: hex either case, text up to a NUL with escapes, the cap
 * said, and memory that could not be read said instead of bytes. */
static void test_dumps(void **state)
{
	static const uint8_t bytes[] = { 0xde, 0xad, 'G', '\\', '\n', 0, 'x' };
	struct ev_arg a = { .kind = WR_ARG_DUMP, .value = 0x1000, .data = bytes, .len = sizeof(bytes),
			    .aux = sizeof(bytes) };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_true(render_dump_text(&a, AST_FMT_HEX, &sb));
	assert_string_equal(sb.buf, "de ad 47 5c 0a 00 78");
	strbuf_reset(&sb);
	assert_true(render_dump_text(&a, AST_FMT_HEX_UPPER, &sb));
	assert_string_equal(sb.buf, "DE AD 47 5C 0A 00 78");
	strbuf_reset(&sb);
	assert_true(render_dump_text(&a, AST_FMT_STR, &sb));
	assert_string_equal(sb.buf, "\\xde\\xadG\\\\\\x0a");
	strbuf_reset(&sb);
	a.len = 2;
	a.aux = 300;
	assert_true(render_dump_text(&a, AST_FMT_HEX, &sb));
	assert_string_equal(sb.buf, "de ad ... (2 of 300 bytes: a dump shows at most 256)");
	strbuf_reset(&sb);
	a.len = 0;
	a.status = WR_ARG_READ_ERROR;
	assert_false(render_dump_text(&a, AST_FMT_HEX, &sb));
	assert_string_equal(sb.buf, "<error: Cannot access memory at address 0x1000>");
	strbuf_reset(&sb);
	a.status = WR_ARG_NULL_DEREF;
	assert_false(render_dump_text(&a, AST_FMT_STR, &sb));
	assert_string_equal(sb.buf, "<error: null pointer>");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_utf8),
		cmocka_unit_test_setup_teardown(test_pretty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_stopped_noinline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_values_unavailable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ansi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_span_roles, setup, teardown),
		cmocka_unit_test(test_span_json),
		cmocka_unit_test(test_span_numbers_and_depth),
		cmocka_unit_test_setup_teardown(test_typed_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pieces_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caller_values, setup, teardown),
		cmocka_unit_test(test_status_tables),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_strings_and_arrays),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test_setup_teardown(test_json_members, setup, teardown),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_status_doc),
		cmocka_unit_test(test_dumps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
