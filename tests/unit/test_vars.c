/* test_vars.c - variables and types from DWARF on the vars fixture: where
 * each lives at the probe's pc and what its type is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/module.h"
#include "dwarf/resolve.h"
#include "dwarf/vars.h"
#include "util/error.h"

static struct dw_module *open_fixture(const char *name, uint64_t *pc)
{
	const char *dir = getenv("WRAITH_FIXTURES");
	struct dw_sites sites = { 0 };
	struct dw_module *m;
	char path[4096];

	if (!dir)
		fail_msg("WRAITH_FIXTURES is not set: run this test through `make check`");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(dw_module_open(path, &m), 0);
	assert_int_equal(dw_resolve_function(m, "probe_here", &sites), 0);
	assert_int_equal(sites.n, 1);
	*pc = sites.v[0].vaddr;
	dw_sites_release(&sites);
	return m;
}

static void test_types_O0(void **state)
{
	uint64_t pc, off;
	struct dw_module *m = open_fixture("vars-O0", &pc);
	const struct dw_member *mb;
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "req", &v), 0);
	assert_int_equal(v.scope, DW_VAR_PARAMETER);
	assert_int_equal(v.loc.kind, DW_LOC_MEM_CFA); /* -O0 spills to the frame */
	assert_int_equal(v.type->kind, DW_TYPE_POINTER);
	assert_string_equal(v.type->name, "struct request *");
	assert_int_equal(v.type->target->kind, DW_TYPE_STRUCT);
	assert_int_equal(v.type->target->size, 64);
	mb = dw_type_member(v.type->target, "name", &off);
	assert_non_null(mb);
	assert_int_equal(off, 8);
	assert_int_equal(mb->type->kind, DW_TYPE_ARRAY);
	assert_true(mb->type->is_char);
	assert_int_equal(mb->type->count, 16);
	mb = dw_type_member(v.type->target, "high", &off);
	assert_null(mb); /* inside the anonymous struct `bits`, which is named */
	mb = dw_type_member(v.type->target, "bits", &off);
	assert_non_null(mb);
	assert_int_equal(mb->type->members[1].bit_size, 5);
	assert_int_equal(dw_var_find(m, pc, "color", &v), 0);
	assert_int_equal(v.type->kind, DW_TYPE_ENUM);
	assert_int_equal(v.type->n_enumerators, 3);
	assert_string_equal(v.type->enumerators[2].name, "BLUE");
	assert_int_equal(dw_var_find(m, pc, "small", &v), 0);
	assert_int_equal(v.type->size, 2);
	assert_true(v.type->is_signed);
	assert_int_equal(dw_var_find(m, pc, "sum", &v), 0);
	assert_int_equal(v.scope, DW_VAR_LOCAL);
	dw_module_free(m);
}

static void test_globals_and_misses(void **state)
{
	uint64_t pc;
	struct dw_module *m = open_fixture("vars-O2", &pc);
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "counter", &v), 0);
	assert_int_equal(v.scope, DW_VAR_GLOBAL);
	assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
	assert_int_equal(dw_var_find(m, pc, "global_req", &v), 0); /* static in the same unit */
	assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
	assert_string_equal(v.type->name, "struct request");
	assert_int_equal(dw_var_find(m, pc, "label", &v), 0);
	assert_string_equal(v.type->name, "char *");
	assert_int_equal(dw_var_find(m, pc, "nope", &v), -ENOENT);
	/* At -O2 the first parameter is still in rdi at the probe. */
	assert_int_equal(dw_var_find(m, pc, "n", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_REG);
	assert_int_equal(v.loc.reg, 5);
	/* A double parameter lives in xmm0: not readable, and said so. */
	assert_int_equal(dw_var_find(m, pc, "ratio", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_UNSUPPORTED);
	assert_non_null(strstr(v.loc.why, "vector"));
	dw_module_free(m);
}

static void test_type_by_name(void **state)
{
	uint64_t pc;
	struct dw_module *m = open_fixture("vars-O0", &pc);
	const struct dw_type *t;

	(void)state;
	t = dw_type_find(m, "struct point *");
	assert_non_null(t);
	assert_int_equal(t->kind, DW_TYPE_POINTER);
	assert_string_equal(t->target->name, "struct point");
	t = dw_type_find(m, "long");
	assert_non_null(t);
	assert_int_equal(t->size, 8);
	assert_null(dw_type_find(m, "struct nothing"));
	dw_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_O0),
		cmocka_unit_test(test_globals_and_misses),
		cmocka_unit_test(test_type_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
