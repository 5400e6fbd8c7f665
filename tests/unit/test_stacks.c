/* test_stacks.c - counted stacks written out (render/stacks.h): golden
 * folded stacks, listing and NDJSON, rows of the live view (sorted and
 * collapsed), and a pprof profile decoded again
 * with protobuf-c, all with canned symbolization. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "render/profile.pb-c.h"
#include "protocol/wire.h"
#include "render/render.h"
#include "render/stacks.h"
#include "util/strbuf.h"

/* cookie 1 = /bin/app: pc 0x1139 is leaf with helper inlined, 0x1200 is
 * main; cookie 2 = libc without debug info names only its symbol; cookie
 * 3 = a signal trampoline; cookie 0 = no known module. */
static void hook_frame(void *ctx, const struct wr_bt_frame *f, struct render_frame *out)
{
	static const struct dw_sym_frame leaf_inline[] = {
		{ .function = "helper", .file = "/src/app.c", .line = 7, .inlined = true },
		{ .function = "leaf", .file = "/src/app.c", .line = 12 },
	};
	static const struct dw_sym_frame caller[] = { { .function = "main", .file = "/src/app.c", .line = 30 } };
	static const struct dw_sym_frame libc_sym[] = { { .function = "__libc_start_main" } };

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (f->cookie == 1 || f->cookie == 2 || f->cookie == 3) {
		out->module_path = f->cookie == 1 ? "/bin/app" : "/lib/libc.so.6";
		out->module_name = f->cookie == 1 ? "app" : "libc.so.6";
	}
	if (f->cookie == 1 && f->pc != 0x4444) {
		out->sym.frames = f->pc == 0x1139 ? leaf_inline : caller;
		out->sym.n = f->pc == 0x1139 ? 2 : 1;
	} else if (f->cookie == 2) {
		out->sym.frames = libc_sym;
		out->sym.n = 1;
	} else if (f->cookie == 3) {
		out->signal_trampoline = true;
	}
}

/* Between leaf (0x1139) and main (0x1200), `hop` left by a tail call. */
static size_t hook_tail(void *ctx, const struct wr_bt_frame *callee, const struct wr_bt_frame *caller,
			struct render_frame *out, size_t max)
{
	static const struct dw_sym_frame hop = { .function = "hop", .file = "/src/app.c", .line = 20 };

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

static const struct render_hooks hooks = { NULL, hook_frame, hook_tail, NULL };

static struct wr_count_stack *stack_of(uint8_t flags, const struct wr_bt_frame *fr, unsigned n)
{
	struct wr_count_stack *st = calloc(1, sizeof(*st));

	st->h.frame_count = (uint16_t)n;
	st->h.requested_depth = 128;
	st->h.flags = flags;
	memcpy(st->frames, fr, n * sizeof(*fr));
	return st;
}

static const struct wr_bt_frame app_frames[] = {
	{ .cookie = 1, .pc = 0x1139, .ip = 0x555555555139, .flags = WR_FRAME_F_EXACT_IP },
	{ .cookie = 1, .pc = 0x1200, .ip = 0x555555555200 },
	{ .cookie = 2, .pc = 0x27305, .ip = 0x7ffff7dfa305 },
};

static const struct wr_bt_frame odd_frames[] = {
	{ .cookie = 1, .pc = 0x4444, .ip = 0x555555554444, .flags = WR_FRAME_F_EXACT_IP },
	{ .cookie = 3, .pc = 0x3e000, .ip = 0x7ffff7e0e000, .flags = WR_FRAME_F_EXACT_IP },
	{ .cookie = 0, .pc = 0, .ip = 0x7fffdeadbeef },
};

struct fixture {
	struct wr_count_stack *inl, *noinl, *odd;
	struct stack_sample v[5];
	struct stack_set set;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->inl = stack_of(WR_BT_F_INLINE, app_frames, 3);
	f->noinl = stack_of(0, app_frames, 3);
	f->odd = stack_of(WR_BT_F_INLINE, odd_frames, 3);
	/* Probes 1 and 2 count the same stack: folded merges them. */
	f->v[0] = (struct stack_sample){ .probe = 1, .target = "leaf", .count = 40, .stack_id = 7, .stack = f->inl };
	f->v[1] = (struct stack_sample){ .probe = 2, .target = "leaf", .count = 30, .stack_id = 7, .stack = f->inl };
	f->v[2] = (struct stack_sample){ .probe = 3, .target = "app.c:12", .key_text = "$tid", .key = 42,
					 .count = 20, .stack_id = 8, .stack = f->noinl };
	f->v[3] = (struct stack_sample){ .probe = 3, .target = "app.c:12", .key_text = "$tid", .key = 0,
					 .count = 9, .stack_id = 9, .stack = f->odd };
	f->v[4] = (struct stack_sample){ .probe = 1, .target = "leaf", .count = 1, .stack_id = 10 };
	f->set = (struct stack_set){ .v = f->v, .n = 5, .total = 100, .dropped = 3,
				     .start_ns = 1000000000000ull, .duration_ns = 2000000000ull };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	free(f->inl);
	free(f->noinl);
	free(f->odd);
	free(f);
	return 0;
}

static void test_folded(void **state)
{
	struct fixture *f = *state;
	struct strbuf out = STRBUF_INIT;

	stacks_write_folded(&f->set, &hooks, &out);
	assert_string_equal(out.buf,
			    "$tid=0;0x7fffdeadbeef;<signal handler called>;app+0x4444 9\n"
			    "$tid=42;__libc_start_main;main;hop;leaf 20\n"
			    "[stack not kept] 1\n"
			    "__libc_start_main;main;hop;leaf;helper 70\n");
	strbuf_release(&out);
}

static void test_top(void **state)
{
	struct fixture *f = *state;
	struct strbuf out = STRBUF_INIT;

	stacks_write_top(&f->set, &hooks, 2, &out);
	assert_string_equal(out.buf,
			    "counted stacks: 5 distinct, 100 hits; 3 not counted: the stack maps were "
			    "full (--stack-entries)\n"
			    "40 (40.0%) #1 leaf\n"
			    "  helper\n  leaf\n  hop\n  main\n  __libc_start_main\n"
			    "30 (30.0%) #2 leaf\n"
			    "  helper\n  leaf\n  hop\n  main\n  __libc_start_main\n"
			    "... and 3 more stacks\n");
	strbuf_release(&out);
}

static void test_json(void **state)
{
	struct fixture *f = *state;
	struct stack_set one = f->set;
	struct strbuf out = STRBUF_INIT;

	one.v = &f->v[2];
	one.n = 1;
	stacks_write_json(&one, &hooks, &out);
	assert_string_equal(out.buf,
			    "{\"type\":\"stack\",\"version\":1,\"probe\":3,\"target\":\"app.c:12\","
			    "\"key_expr\":\"$tid\",\"key\":42,\"count\":20,\"share\":0.200000,"
			    "\"status\":\"complete\",\"status_code\":0,\"error\":\"none\",\"error_code\":0,"
			    "\"frames\":[\"leaf\",\"hop\",\"main\",\"__libc_start_main\"]}\n");
	strbuf_release(&out);
}

/* A stack whose walk stopped says so: one more frame outermost in the
 * folded and listed stacks, its status and error in NDJSON. */
static void test_stopped(void **state)
{
	struct fixture *f = *state;
	struct stack_set one = f->set;
	struct strbuf out = STRBUF_INIT;

	f->noinl->h.status = WR_BT_READ_ERROR;
	f->noinl->h.error_code = WR_BTE_RETURN_ADDRESS_READ;
	one.v = &f->v[2];
	one.n = 1;
	stacks_write_folded(&one, &hooks, &out);
	assert_string_equal(out.buf, "$tid=42;[stopped: read-error, return-address-read];"
			    "__libc_start_main;main;hop;leaf 20\n");
	strbuf_reset(&out);
	stacks_write_json(&one, &hooks, &out);
	assert_string_equal(out.buf,
			    "{\"type\":\"stack\",\"version\":1,\"probe\":3,\"target\":\"app.c:12\","
			    "\"key_expr\":\"$tid\",\"key\":42,\"count\":20,\"share\":0.200000,"
			    "\"status\":\"read-error\",\"status_code\":5,"
			    "\"error\":\"return-address-read\",\"error_code\":1,"
			    "\"frames\":[\"leaf\",\"hop\",\"main\",\"__libc_start_main\"]}\n");
	f->odd->h.status = WR_BT_TRUNCATED;
	one.v = &f->v[3];
	strbuf_reset(&out);
	stacks_write_folded(&one, &hooks, &out);
	assert_string_equal(out.buf, "$tid=0;[stopped: truncated];0x7fffdeadbeef;"
			    "<signal handler called>;app+0x4444 9\n");
	strbuf_release(&out);
}

/* ---- rows of the live view ---- */

static void test_rows(void **state)
{
	struct fixture *f = *state;
	struct stack_rows r = { 0 };

	stack_rows_build(&f->set, &hooks, STACKS_BY_COUNT, false, &r);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.total, 100);
	assert_int_equal(r.dropped, 3);
	assert_int_equal(r.v[0].count, 40);
	assert_int_equal(r.v[0].probe, 1);
	assert_string_equal(r.v[0].frames, "helper\nleaf\nhop\nmain\n__libc_start_main");
	assert_int_equal(r.v[3].count, 9);
	assert_string_equal(r.v[3].frames, "app+0x4444\n<signal handler called>\n0x7fffdeadbeef");

	/* By names, innermost first; equal names by count. */
	stack_rows_build(&f->set, &hooks, STACKS_BY_NAME, false, &r);
	assert_int_equal(r.n, 5);
	assert_string_equal(r.v[0].frames, "[stack not kept]");
	assert_string_equal(r.v[1].frames, "app+0x4444\n<signal handler called>\n0x7fffdeadbeef");
	assert_int_equal(r.v[2].count, 40);
	assert_int_equal(r.v[3].count, 30);
	assert_string_equal(r.v[4].frames, "leaf\nhop\nmain\n__libc_start_main");

	/* Collapsed: probes 1 and 2's stacks are one row; addresses go. */
	stack_rows_build(&f->set, &hooks, STACKS_BY_COUNT, true, &r);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.v[0].count, 70);
	assert_int_equal(r.v[0].merged, 2);
	assert_int_equal(r.v[0].probe, 0);
	assert_null(r.v[0].target);
	assert_int_equal(r.v[1].count, 20);
	assert_int_equal(r.v[1].probe, 3);
	assert_string_equal(r.v[1].key_text, "$tid");
	assert_int_equal(r.v[1].key, 42);
	assert_int_equal(r.v[2].merged, 1);
	assert_string_equal(r.v[2].frames, "app\n<signal handler called>\n??");
	assert_string_equal(r.v[3].frames, "[stack not kept]");
	stack_rows_release(&r);
	assert_int_equal(r.n, 0);
}

/* ---- pprof ---- */

static Perftools__Profiles__Profile *decode(const struct strbuf *gz)
{
	uint8_t *raw = malloc(1 << 20);
	z_stream z;
	Perftools__Profiles__Profile *p;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz->buf;
	z.avail_in = (uInt)gz->len;
	z.next_out = raw;
	z.avail_out = 1 << 20;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	free(raw);
	assert_non_null(p);
	return p;
}

static const char *fn_of(const Perftools__Profiles__Profile *p, uint64_t loc, size_t line)
{
	const Perftools__Profiles__Location *l = p->location[loc - 1];

	assert_int_equal(l->id, loc);
	assert_true(line < l->n_line);
	return p->string_table[p->function[l->line[line]->function_id - 1]->name];
}

static const char *label(const Perftools__Profiles__Profile *p, size_t sample, const char *key)
{
	for (size_t i = 0; i < p->sample[sample]->n_label; i++)
		if (!strcmp(p->string_table[p->sample[sample]->label[i]->key], key))
			return p->string_table[p->sample[sample]->label[i]->str];
	return NULL;
}

static void test_pprof(void **state)
{
	struct fixture *f = *state;
	struct strbuf out = STRBUF_INIT;
	Perftools__Profiles__Profile *p;
	const Perftools__Profiles__Sample *s;

	assert_int_equal(stacks_write_pprof(&f->set, &hooks, &out), 0);
	assert_true(out.len > 18 && (uint8_t)out.buf[0] == 0x1f && (uint8_t)out.buf[1] == 0x8b);
	p = decode(&out);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 1);
	assert_string_equal(p->string_table[p->sample_type[0]->type], "hits");
	assert_int_equal(p->n_sample, 5);
	assert_int_equal(p->time_nanos, 1000000000000ll);
	assert_int_equal(p->duration_nanos, 2000000000ll);
	/* The first stack: leaf (helper inlined) first, then hop, main, libc. */
	s = p->sample[0];
	assert_int_equal(s->value[0], 40);
	assert_int_equal(s->n_location_id, 4);
	assert_string_equal(fn_of(p, s->location_id[0], 0), "helper");
	assert_string_equal(fn_of(p, s->location_id[0], 1), "leaf");
	assert_string_equal(fn_of(p, s->location_id[1], 0), "hop");
	assert_string_equal(fn_of(p, s->location_id[2], 0), "main");
	assert_string_equal(fn_of(p, s->location_id[3], 0), "__libc_start_main");
	assert_string_equal(label(p, 0, "probe"), "#1 leaf");
	/* The same stack from another probe shares its locations. */
	assert_memory_equal(p->sample[1]->location_id, s->location_id, 4 * sizeof(uint64_t));
	/* noinline: leaf alone at that pc; a key is a string label. */
	assert_int_equal(p->location[p->sample[2]->location_id[0] - 1]->n_line, 1);
	assert_string_equal(label(p, 2, "$tid"), "42");
	assert_string_equal(label(p, 3, "$tid"), "0");
	assert_string_equal(fn_of(p, p->sample[3]->location_id[0], 0), "app+0x4444");
	assert_string_equal(fn_of(p, p->sample[3]->location_id[1], 0), "<signal handler called>");
	assert_string_equal(fn_of(p, p->sample[3]->location_id[2], 0), "0x7fffdeadbeef");
	assert_int_equal(p->location[p->sample[3]->location_id[2] - 1]->mapping_id, 0);
	assert_int_equal(p->sample[4]->n_location_id, 0);
	assert_int_equal(p->n_mapping, 2);
	assert_string_equal(p->string_table[p->mapping[0]->filename], "/bin/app");
	perftools__profiles__profile__free_unpacked(p, NULL);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_folded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
