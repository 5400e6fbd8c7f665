/* test_module.c - the module layer's pure helpers: lexical path
 * normalisation (units compiled from relative paths record
 * "/build/dir/../src/x.c"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

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

/* The dynamic section of this test program: it needs libcmocka (the
 * libraries in order, no search path of its own). */
static void test_dynamic_deps(void **state)
{
	struct dw_module *m = NULL;
	struct dw_dynamic_deps d;
	int cmocka = 0;

	(void)state;
	assert_int_equal(dw_module_open("/proc/self/exe", &m), 0);
	assert_int_equal(dw_module_dynamic_deps(m, &d), 0);
	assert_true(d.n_needed > 0);
	for (size_t i = 0; i < d.n_needed; i++)
		cmocka += strncmp(d.needed[i], "libcmocka.so", 12) == 0;
	assert_int_equal(cmocka, 1);
	dw_dynamic_deps_release(&d);
	assert_null(d.needed);
	dw_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_dynamic_deps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
