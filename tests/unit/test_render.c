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

#include "eventbuf.h"
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

/* Render the canned event as spans into @spans. */
static void render_spans(struct fixture *f, enum render_format fmt, uint8_t bt_flags, uint8_t status,
			 uint16_t error, struct span_list *spans)
{
	struct render_hooks hooks = { hook_probe, hook_frame, hook_tail, f };
	struct event_decoder d;
	struct renderer r;
	struct eventbuf b;
	struct event ev;

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
	event_decoder_init(&d);
	assert_int_equal(event_decode(&d, b.data, b.len, &ev), 0);
	renderer_init(&r, fmt, &hooks);
	r.relative_time = true;
	r.start_ns = 0;
	render_event(&r, &ev, spans);
	renderer_release(&r);
	event_decoder_release(&d);
}

/* Render the canned event and write it as JSON (format json) or text. */
static void render(struct fixture *f, enum render_format fmt, uint8_t bt_flags, uint8_t status,
		   uint16_t error, struct strbuf *out)
{
	struct span_list spans;

	span_list_init(&spans);
	render_spans(f, fmt, bt_flags, status, error, &spans);
	if (fmt == RENDER_JSON)
		span_write_json(&spans, out);
	else
		span_write_text(&spans, SPAN_COLOR_NONE, out);
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
	uint8_t raw[56];
	uint64_t zero = 0, seven = 7;

	assert_int_equal(script_parse("trace leaf { print \"{} {} {} {} {}\", s, p, c, q, name; }",
				      &script, &d), 0);
	f->probe.ast = script->probes[0];
	f->probe.arg_types = types;
	f->probe.n_arg_types = 3;
	struct_bytes(raw);
	eb_begin(&b, 5, 42, 43, 1000);
	eb_item(&b, WR_ITEM_PRINT, 0);
	eb_raw_arg(&b, WR_ARG_BYTES, WR_ARG_OK, raw, sizeof(raw));
	eb_raw_arg(&b, WR_ARG_PTR, WR_ARG_OK, &zero, 8);
	eb_raw_arg(&b, WR_ARG_ENUM, WR_ARG_OK, &seven, 8);
	eb_raw_arg(&b, WR_ARG_I64, WR_ARG_OPTIMIZED_OUT, &zero, 8);
	eb_str(&b, "hi");
	eb_close_item(&b);
	event_decoder_init(&dec);
	assert_int_equal(event_decode(&dec, b.data, b.len, &ev), 0);
	renderer_init(&r, RENDER_JSON, &hooks);
	span_list_init(&spans);
	render_event(&r, &ev, &spans);
	span_write_json(&spans, &out);
	assert_non_null(strstr(out.buf,
		"\"args\":["
		"{\"expr\":\"s\",\"type\":\"struct s\",\"value\":{\"a\":-5,\"name\":\"ab\\\\xff\","
		"\"arr\":[1,2,3],\"d\":0.5,\"p\":\"0x1000\",\"bits\":5,\"neg\":-2,\"c\":\"GREEN\","
		"\"nan\":\"nan\",\"cut\":null},\"error\":null},"
		"{\"expr\":\"p\",\"type\":\"struct s *\",\"value\":null,\"error\":null},"
		"{\"expr\":\"c\",\"type\":\"enum color\",\"value\":7,\"error\":null},"
		"{\"expr\":\"q\",\"type\":\"long\",\"value\":null,\"error\":\"optimized-out\"},"
		"{\"expr\":\"name\",\"type\":\"string\",\"value\":\"hi\",\"error\":null}]}]}\n"));
	span_list_release(&spans);
	renderer_release(&r);
	event_decoder_release(&dec);
	ast_script_free(script);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pretty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_stopped_noinline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ansi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_span_roles, setup, teardown),
		cmocka_unit_test(test_span_json),
		cmocka_unit_test_setup_teardown(test_typed_args, setup, teardown),
		cmocka_unit_test(test_status_tables),
		cmocka_unit_test(test_status_doc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
