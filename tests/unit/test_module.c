/* test_module.c - the module layer's pure helpers: lexical path
 * normalisation (units compiled from relative paths record
 * "/build/dir/../src/x.c"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "dwarf/module.h"

static void check(const char *in, const char *want)
{
	char *got = dw_path_normalize(in);

	assert_string_equal(got, want);
	free(got);
}

static void test_normalize(void **state)
{
	(void)state;
	check("/tmp/build/../../work/src/x.c", "/work/src/x.c");
	check("../../a/./b.c", "../../a/b.c");
	check("a/../../b", "../b");
	check("/./x//y/", "/x/y");
	check("/", "/");
	check("/..", "/");
	check("..", "..");
	check("../..", "../..");
	check("a/..", ".");
	check("./inline.c", "inline.c");
	check("inline.c", "inline.c");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
