/* test_util.c - strbuf, diag rendering, the error table, the log, files
 * and the clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void test_strbuf_basic(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "hello");
	strbuf_addch(&sb, ' ');
	strbuf_addf(&sb, "%d-%s", 42, "x");
	assert_string_equal(sb.buf, "hello 42-x");
	assert_int_equal(sb.len, 10);
	strbuf_setlen(&sb, 5);
	assert_string_equal(sb.buf, "hello");
	s = strbuf_detach(&sb);
	assert_string_equal(s, "hello");
	assert_string_equal(sb.buf, "");
	free(s);
	strbuf_release(&sb);
}

static void test_strbuf_json(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_json_str(&sb, "a\"b\\c\nd\x01");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
	strbuf_release(&sb);
}

static void test_diag_render(void **state)
{
	struct diag d = { 0 };
	struct strbuf sb = STRBUF_INIT;
	const char *src = "trace main {\n\tprint \"x\" 1;\n}\n";

	(void)state;
	diag_set(&d, (struct src_loc){ .line = 2, .col = 12, .len = 1 }, "separate arguments with ','",
		 "expected ';' or ',' after %s", "the format string");
	diag_render(&d, "t.ws", src, &sb);
	assert_string_equal(sb.buf,
			    "t.ws:2:12: error: expected ';' or ',' after the format string\n"
			    "    \tprint \"x\" 1;\n"
			    "    \t          ^\n"
			    "hint: separate arguments with ','\n");
	diag_release(&d);
	strbuf_release(&sb);
}

static void test_diag_no_location(void **state)
{
	struct diag d = { 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	diag_set(&d, (struct src_loc){ 0 }, NULL, "nothing to trace");
	diag_render(&d, NULL, NULL, &sb);
	assert_string_equal(sb.buf, "<script>: error: nothing to trace\n");
	diag_release(&d);
	strbuf_release(&sb);
}

static void test_error_table(void **state)
{
	(void)state;
	assert_string_equal(wr_strerror(-WR_ESYNTAX), "script syntax error");
	assert_string_equal(wr_strerror(-WR_EUNSUPPORTED), "not supported");
	assert_string_equal(wr_strerror(-2), "No such file or directory");
	assert_string_equal(wr_strerror(0), "success");
}

/* ---- log deferral: a helper thread's messages reach the sink only when
 * the owning thread replays them, in order, with their levels ---- */

struct captured {
	char text[8][64];
	enum wr_log_level level[8];
	int n;
};

static void capture_sink(enum wr_log_level level, const char *msg, void *ctx)
{
	struct captured *c = ctx;

	if (c->n < 8) {
		snprintf(c->text[c->n], sizeof(c->text[0]), "%s", msg);
		c->level[c->n++] = level;
	}
}

static void *log_from_thread(void *arg)
{
	wr_log_defer(arg);
	wr_error("first %d", 1);
	wr_debug("second");
	wr_warn("third\n");
	wr_log_defer(NULL);
	return NULL;
}

static void test_log_deferred(void **state)
{
	struct captured c = { 0 };
	struct wr_log_deferred d = { 0 };
	pthread_t t;

	(void)state;
	wr_log_set_sink(capture_sink, &c);
	wr_log_set_level(WR_LOG_DEBUG);
	assert_int_equal(pthread_create(&t, NULL, log_from_thread, &d), 0);
	pthread_join(t, NULL);
	assert_int_equal(c.n, 0);
	assert_int_equal(d.n, 3);
	wr_info("direct");
	assert_int_equal(c.n, 1);
	wr_log_replay(&d);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.text[1], "first 1");
	assert_int_equal(c.level[1], WR_LOG_ERROR);
	assert_string_equal(c.text[2], "second");
	assert_int_equal(c.level[2], WR_LOG_DEBUG);
	assert_string_equal(c.text[3], "third");
	assert_int_equal(d.n, 0);
	assert_null(d.v);
	wr_log_replay(&d); /* empty: a no-op */
	assert_int_equal(c.n, 4);
	wr_log_set_sink(NULL, NULL);
	wr_log_set_level(WR_LOG_WARN);
}

/* Files are read to their end whatever their size; a missing one says so. */
static void test_file_read(void **state)
{
	char path[] = "/tmp/wr-test-file-XXXXXX";
	char *want = xmalloc(20001), *got = NULL;
	int fd = mkstemp(path);
	size_t len = 0;

	(void)state;
	assert_true(fd >= 0);
	for (size_t i = 0; i < 20000; i++)
		want[i] = (char)('a' + i % 26);
	want[20000] = '\0';
	assert_int_equal(write(fd, want, 20000), 20000);
	close(fd);
	assert_int_equal(file_read(path, &got, &len), 0);
	assert_string_equal(got, want);
	assert_int_equal(len, 20000);
	free(got);
	unlink(path);
	assert_int_equal(file_read(path, &got, NULL), -ENOENT);
	assert_null(got);
	free(want);
}

/* /proc files report size 0 and are read all the same. */
static void test_file_read_proc(void **state)
{
	char *text = NULL;

	(void)state;
	assert_int_equal(file_read("/proc/self/status", &text, NULL), 0);
	assert_non_null(strstr(text, "Name:"));
	free(text);
}

/* The clock moves forward. */
static void test_clock(void **state)
{
	double a = now_seconds(), b = now_seconds();

	(void)state;
	assert_true(a > 0);
	assert_true(b >= a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_basic),
		cmocka_unit_test(test_strbuf_json),
		cmocka_unit_test(test_diag_render),
		cmocka_unit_test(test_diag_no_location),
		cmocka_unit_test(test_error_table),
		cmocka_unit_test(test_log_deferred),
		cmocka_unit_test(test_file_read),
		cmocka_unit_test(test_file_read_proc),
		cmocka_unit_test(test_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
