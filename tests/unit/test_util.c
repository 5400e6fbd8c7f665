/* test_util.c - strbuf, diag rendering and the error table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/error.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_basic),
		cmocka_unit_test(test_strbuf_json),
		cmocka_unit_test(test_diag_render),
		cmocka_unit_test(test_diag_no_location),
		cmocka_unit_test(test_error_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
