/* test_vars.c - variables and types from DWARF: where each lives at a
 * probe's pc and what its type is, on the vars fixture (gcc and clang
 * builds) and on the value corpus (tests/corpus: a second unit, a
 * library, LTO, DWARF 4): declarations resolved to definitions, types
 * completed from another module, inlined copies, pieces, entry values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/debugfile.h"
#include "dwarf/module.h"
#include "dwarf/module_priv.h" /* dw_module_dwarf(), for the names the check asks */
#include "dwarf/resolve.h"
#include "dwarf/symtab.h"
#include "dwarf/tailcall.h"
#include "dwarf/vars.h"
#include "util/error.h"
#include "util/xalloc.h"

/* The fixture binary @name, opened. */
static struct dw_module *open_module(const char *name)
{
	const char *dir = getenv("WRAITH_FIXTURES");
	struct dw_module *m;
	char path[4096];

	if (!dir)
		fail_msg("WRAITH_FIXTURES is not set: run this test through `make check`");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(dw_module_open(path, &m), 0);
	return m;
}

/* The fixture binary @name, and in *@pc the address of its probe_here(). */
static struct dw_module *open_fixture(const char *name, uint64_t *pc)
{
	struct dw_sites sites = { 0 };
	struct dw_module *m = open_module(name);

	assert_int_equal(dw_resolve_function(m, "probe_here", &sites), 0);
	assert_int_equal(sites.n, 1);
	*pc = sites.v[0].vaddr;
	dw_sites_release(&sites);
	return m;
}

/* ---- the value corpus ---- */

static char *corpus_path(const char *what)
{
	const char *dir = getenv("WRAITH_CORPUS");

	if (!dir)
		fail_msg("WRAITH_CORPUS is not set: run this test through `make check`");
	return xasprintf("%s/%s", dir, what);
}

static struct dw_module *open_corpus(const char *build)
{
	char *name = xasprintf("bin/corpus-%s", build), *path = corpus_path(name);
	struct dw_module *m;

	assert_int_equal(dw_module_open(path, &m), 0);
	free(path);
	free(name);
	return m;
}

static struct dw_module *open_corpus_lib(const char *build)
{
	char *name = xasprintf("bin/libcorpus-%s.so", build), *path = corpus_path(name);
	struct dw_module *m;

	assert_int_equal(dw_module_open(path, &m), 0);
	free(path);
	free(name);
	return m;
}

/* The probe pc of the line marked "P:@marker" in the corpus source. */
static uint64_t marker_pc(struct dw_module *m, const char *file, const char *marker)
{
	char *name = xasprintf("src/%s", file), *path = corpus_path(name), line[512];
	char *want = xasprintf("/* P:%s */", marker);
	struct dw_sites sites = { 0 };
	FILE *f = fopen(path, "r");
	unsigned n = 0, found = 0;
	uint64_t pc;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want))
			found = n;
	}
	fclose(f);
	assert_true(found > 0);
	assert_int_equal(dw_resolve_line(m, file, found, &sites), 0);
	assert_int_equal(sites.n, 1);
	pc = sites.v[0].vaddr;
	dw_sites_release(&sites);
	free(want);
	free(path);
	free(name);
	return pc;
}

static uint64_t function_pc(struct dw_module *m, const char *fn)
{
	struct dw_sites sites = { 0 };
	uint64_t pc;

	assert_int_equal(dw_resolve_function(m, fn, &sites), 0);
	assert_int_equal(sites.n, 1);
	pc = sites.v[0].vaddr;
	dw_sites_release(&sites);
	return pc;
}

/* C++ types as gdb names them, in both compilers' DWARF: references
 * (read through, kept as such), a class without "struct" and with its
 * namespace, pointers to members with their class, an enum class. */
static void test_cxx_types(void **state)
{
	static const char *const builds[] = { "cxx-O0", "cxx-clang-O0" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct dw_module *m = open_module(builds[i]);
		uint64_t pc = function_pc(m, "refs");
		struct dw_var v;

		assert_int_equal(dw_var_find(m, pc, "r", &v), 0);
		assert_true(v.type->is_reference);
		assert_string_equal(v.type->name, "int &");
		assert_int_equal(dw_var_find(m, pc, "rr", &v), 0);
		assert_string_equal(v.type->name, "int &&");
		assert_int_equal(dw_var_find(m, pc, "p", &v), 0);
		assert_string_equal(v.type->name, "const Pair &");
		assert_string_equal(v.type->target->name, "const Pair");
		assert_int_equal(v.type->target->kind, DW_TYPE_STRUCT);
		assert_int_equal(dw_var_find(m, pc, "sr", &v), 0);
		assert_string_equal(v.type->name, "const char * const&");
		assert_int_equal(dw_var_find(m, pc, "pm", &v), 0);
		assert_false(v.type->is_reference);
		assert_string_equal(v.type->name, "int Pair::*");
		assert_string_equal(v.type->container->name, "Pair");
		assert_int_equal(dw_var_find(m, pc, "pf", &v), 0);
		assert_int_equal(v.type->size, 16);
		assert_string_equal(v.type->name, "int (Pair::*)(const Pair * const)");
		assert_int_equal(dw_var_find(m, pc, "m", &v), 0);
		assert_true(v.type->scoped);
		assert_string_equal(v.type->name, "Mode");
		/* in a namespace: qualified, as gdb names them */
		pc = function_pc(m, "geo::describe");
		assert_int_equal(dw_var_find(m, pc, "color", &v), 0);
		assert_string_equal(v.type->name, "geo::Color");
		assert_int_equal(dw_var_find(m, pc, "member", &v), 0);
		assert_string_equal(v.type->name, "int geo::Point::*");
		assert_string_equal(v.type->container->name, "geo::Point");
		assert_int_equal(dw_var_find(m, pc, "origin", &v), 0);
		assert_string_equal(v.type->name, "const geo::Point *");
		dw_module_free(m);
	}
}

/* Names, blank-separated. */
struct names {
	char buf[256];
	size_t len;
};

static int add_name(const struct dw_var *v, void *ctx)
{
	struct names *n = ctx;

	n->len += (size_t)snprintf(n->buf + n->len, sizeof(n->buf) - n->len, "%s%s", n->len ? " " : "",
				   v->name);
	return n->len >= sizeof(n->buf) - 1;
}

/* A function's own enums: their enumerators are locals, as gdb lists
 * them (an enum class's named by its enum: Dir::up), each the constant
 * of its enum type; and `print L1` there finds the function's. */
static void test_local_enums(void **state)
{
	static const char *const builds[] = { "cxx-O0", "cxx-clang-O0" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct dw_module *m = open_module(builds[i]);
		uint64_t pc = function_pc(m, "local_enums");
		struct names names = { .len = 0 };
		const struct dw_type *t;
		int64_t value = -1;

		dw_frame_vars(m, pc, DW_FRAME_ALL, false, true, add_name, &names);
		assert_non_null(strstr(names.buf, "Dir::up Dir::down"));
		assert_non_null(strstr(names.buf, "L0 L1"));
		assert_non_null(strstr(names.buf, " d"));
		assert_int_equal(dw_enumerator_find(m, pc, "L1", &t, &value), 0);
		assert_int_equal(value, 1);
		assert_int_equal(t->kind, DW_TYPE_ENUM);
		assert_string_equal(t->name, "Level");
		dw_module_free(m);
	}
}

/* clang's DWARF 5: no .debug_aranges, parameters on the frame (frame base
 * rbp), globals through DW_OP_addrx. */
static void test_clang(void **state)
{
	struct dw_module *m = open_corpus("clang-O0");
	uint64_t pc = function_pc(m, "p_scalars");
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "ull", &v), 0);
	assert_int_equal(v.scope, DW_VAR_PARAMETER);
	assert_int_equal(v.loc.kind, DW_LOC_MEM_REG);
	assert_int_equal(v.loc.reg, 6);
	assert_string_equal(v.type->name, "unsigned long long");
	assert_int_equal(dw_var_find(m, pc, "s_count", &v), 0);
	assert_int_equal(v.scope, DW_VAR_GLOBAL);
	assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
	assert_true(v.loc.offset > 0);
	dw_module_free(m);
}

/* A global declared in a header (the unit has a declaration without a
 * location) is found at its definition in another unit; one only the
 * library defines is not the program's, but the library's. */
static void test_declarations(void **state)
{
	const char *builds[] = { "gcc-O0", "clang-O2", "gcc-O2-dwarf4", "gcc-O2-lto" };

	(void)state;
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		struct dw_module *m = open_corpus(builds[i]), *lib = open_corpus_lib(builds[i]);
		uint64_t pc = marker_pc(m, "corpus.c", "globals");
		struct dw_var v;

		assert_int_equal(dw_var_find(m, pc, "part_counter", &v), 0);
		assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
		assert_string_equal(v.type->name, "int");
		assert_int_equal(dw_var_find(m, pc, "part_outer", &v), 0);
		assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
		assert_int_equal(v.type->kind, DW_TYPE_STRUCT);
		assert_int_equal(dw_var_find(m, pc, "lib_counter", &v), -ENOENT);
		assert_int_equal(dw_var_find_global(lib, "lib_counter", &v), 0);
		assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
		assert_int_equal(dw_var_find_global(lib, "lib_banner", &v), 0);
		assert_int_equal(v.type->kind, DW_TYPE_ARRAY);
		dw_module_free(lib);
		dw_module_free(m);
	}
}

/* What the dynamic linker binds a global to: the library exports
 * lib_counter but not its statics; gcc's program holds its own copy of it
 * (a copy relocation, in its .bss), clang's reaches it through the GOT. */
static void test_dynamic_objects(void **state)
{
	const char *builds[] = { "gcc-O2", "clang-O2" };

	(void)state;
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		struct dw_module *m = open_corpus(builds[i]), *lib = open_corpus_lib(builds[i]);
		uint64_t addr = 0, lib_addr = 0;
		struct dw_var v;

		assert_true(dw_module_dynamic_object(lib, "lib_counter", &lib_addr));
		assert_int_equal(dw_var_find_global(lib, "lib_counter", &v), 0);
		assert_true(v.external);
		assert_int_equal((uint64_t)v.loc.offset, lib_addr);
		assert_false(dw_module_dynamic_object(lib, "lib_static", &addr));
		assert_false(dw_module_dynamic_object(lib, "lib_point", &addr)); /* a function */
		/* which a call through the PLT reaches, where its symbol says */
		assert_true(dw_module_dynamic_function(lib, "lib_point", &addr));
		assert_int_equal(addr, dw_function_entry(lib, "lib_point"));
		assert_false(dw_module_dynamic_function(lib, "lib_counter", &addr));
		assert_false(dw_module_dynamic_function(m, "lib_point", &addr)); /* only called */
		assert_int_equal(dw_var_find(lib, marker_pc(lib, "libcorpus.c", "lib_point"), "lib_static", &v), 0);
		assert_false(v.external);
		assert_int_equal(dw_module_dynamic_object(m, "lib_counter", &addr), i == 0);
		dw_module_free(lib);
		dw_module_free(m);
	}
}

/* Bitfields sit where they do whichever way the DWARF says it: DWARF 5's
 * DW_AT_data_bit_offset, or DWARF 4's DW_AT_bit_offset from the most
 * significant bit of the storage unit (gcc -gdwarf-4). */
static void test_bitfields(void **state)
{
	const char *builds[] = { "gcc-O2", "gcc-O2-dwarf4", "clang-O2-dwarf4" };
	/* struct bits: s3:3, u5:5, w40:40 (an unsigned long long), b1:1, sc4:4, c2:2 */
	const struct { const char *name; uint64_t offset; unsigned bit_offset, bit_size; } want[] = {
		{ "s3", 0, 0, 3 }, { "u5", 0, 3, 5 }, { "w40", 1, 0, 40 },
		{ "b1", 6, 0, 1 }, { "sc4", 6, 1, 4 }, { "c2", 6, 5, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		struct dw_module *m = open_corpus(builds[i]);
		const struct dw_type *t = dw_type_named(m, "struct bits");

		assert_non_null(t);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			uint64_t off;
			const struct dw_member *mb = dw_type_member(t, want[k].name, &off);

			assert_non_null(mb);
			assert_int_equal(mb->offset * 8 + mb->bit_offset,
					 want[k].offset * 8 + want[k].bit_offset);
			assert_int_equal(mb->bit_size, want[k].bit_size);
		}
		dw_module_free(m);
	}
}

static struct dw_module *resolver_lib;

static const struct dw_type *from_lib(void *ctx, struct dw_module *asking, const char *spelling)
{
	(void)ctx;
	(void)asking;
	return dw_type_find_complete(resolver_lib, spelling);
}

/* A struct the program only declares is incomplete there, and complete
 * through the resolver that asks the library defining it. */
static void test_declared_types(void **state)
{
	struct dw_module *m = open_corpus("gcc-O2"), *lib = open_corpus_lib("gcc-O2");
	uint64_t pc = marker_pc(m, "corpus.c", "globals"), off;
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "g_state", &v), 0);
	assert_true(v.type->target->incomplete);
	dw_module_free(m);

	m = open_corpus("gcc-O2");
	resolver_lib = lib;
	dw_module_set_type_resolver(m, from_lib, NULL);
	assert_int_equal(dw_var_find(m, pc, "g_state", &v), 0);
	assert_false(v.type->target->incomplete);
	assert_string_equal(v.type->target->name, "struct lib_state");
	assert_non_null(dw_type_member(v.type->target, "stack", &off));
	assert_int_equal(off, 16);
	assert_non_null(dw_type_member(v.type->target->members[3].type->target, "top", &off));
	assert_non_null(dw_type_find_complete(lib, "struct lib_state"));
	assert_null(dw_type_find_complete(m, "struct lib_state"));
	dw_module_free(m);
	dw_module_free(lib);
}

/* An inlined copy's parameters and locals, through abstract origins in
 * another unit under LTO; one clang dropped from the copy is found in the
 * abstract instance, optimized out. */
static void test_inlined(void **state)
{
	const char *builds[] = { "gcc-O0", "gcc-O2", "clang-O2", "gcc-O2-lto", "clang-O2-dwarf4" };

	(void)state;
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		struct dw_module *m = open_corpus(builds[i]);
		uint64_t pc = marker_pc(m, "corpus.c", "inlined");
		struct dw_sites sites = { 0 };
		struct dw_var v;

		assert_int_equal(dw_resolve_address(m, pc, &sites), 0);
		assert_string_equal(sites.v[0].function, "inl_helper");
		assert_true(sites.v[0].inlined);
		dw_sites_release(&sites);
		assert_int_equal(dw_var_find(m, pc, "a", &v), 0);
		assert_int_equal(v.scope, DW_VAR_PARAMETER);
		assert_int_equal(dw_var_find(m, pc, "tag", &v), 0);
		assert_string_equal(v.type->name, "const char *"); /* as gdb names it */
		assert_int_equal(dw_var_find(m, pc, "sq", &v), 0);
		assert_int_equal(v.scope, DW_VAR_LOCAL);
		/* the caller's local is not visible inside the inlined function */
		assert_int_equal(dw_var_find(m, pc, "local", &v), -ENOENT);
		dw_module_free(m);
	}
}

/* GCC's scalar replacement splits a struct into pieces; a member is in one
 * piece, or optimized out where the compiler kept nothing. */
static void test_pieces(void **state)
{
	struct dw_module *m = open_corpus("gcc-O2");
	uint64_t pc = marker_pc(m, "corpus.c", "locals");
	struct dw_loc x, y;
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "pt", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_PIECES);
	assert_int_equal(v.loc.n_pieces, 2);
	assert_int_equal(v.loc.pieces[1].bit_offset, 32);
	dw_loc_select(&v.loc, 0, 32, &x);
	dw_loc_select(&v.loc, 32, 32, &y);
	assert_int_not_equal(x.kind, DW_LOC_OPTIMIZED_OUT);
	assert_int_not_equal(x.kind, DW_LOC_PIECES);
	assert_int_equal(y.kind, DW_LOC_OPTIMIZED_OUT);
	/* printed whole, its second half is <optimized out> */
	assert_true(dw_loc_unavailable(&v.loc, 0, 64) == 0xffffffff00000000ull);
	assert_true(dw_loc_unavailable(&v.loc, 0, 32) == 0);
	dw_module_free(m);
}

/* GCC marks a union held in a register as perhaps not initialized yet
 * (DW_OP_GNU_uninit, which libdw does not know): the location says so,
 * for gdb's [uninitialized]; a struct beside it is not marked. */
static void test_uninit(void **state)
{
	struct dw_module *m = open_corpus("gcc-O2");
	uint64_t pc = marker_pc(m, "corpus.c", "aggregates");
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "n", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_REG);
	assert_true(v.loc.uninit);
	assert_int_equal(dw_var_find(m, pc, "pt", &v), 0);
	assert_false(v.loc.uninit);
	dw_module_free(m);
}

/* Which bits of a value assembled from pieces were not kept: a register
 * piece, an empty one, a bit piece, memory, and a gap after the last. */
static void test_unavailable_bits(void **state)
{
	struct dw_piece p[4] = {
		{ .loc = { .kind = DW_LOC_REG, .reg = 5 }, .bit_offset = 0, .bit_size = 32 },
		{ .loc = { .kind = DW_LOC_OPTIMIZED_OUT }, .bit_offset = 32, .bit_size = 32 },
		{ .loc = { .kind = DW_LOC_REG, .reg = 4, .bit_shift = 60 }, .bit_offset = 64, .bit_size = 8 },
		{ .loc = { .kind = DW_LOC_MEM_CFA, .offset = -16 }, .bit_offset = 72, .bit_size = 40 },
	};
	struct dw_loc whole = { .kind = DW_LOC_PIECES, .pieces = p, .n_pieces = 4 }, member;
	struct dw_loc reg = { .kind = DW_LOC_REG, .reg = 0 };

	(void)state;
	assert_true(dw_loc_unavailable(&whole, 0, 64) == 0xffffffff00000000ull);
	/* the bit piece starts 60 bits up its register: only 4 bits are there */
	assert_true(dw_loc_unavailable(&whole, 64, 64) == (0xf0ull | ~0ull << 48));
	assert_true(dw_loc_unavailable(&whole, 72, 40) == 0);
	assert_true(dw_loc_unavailable(&whole, 16, 8) == 0);
	assert_true(dw_loc_unavailable(&whole, 0, 0) == 0);
	/* a member: the selection keeps the pieces, seen from its first bit */
	dw_loc_select(&whole, 32, 64, &member);
	assert_int_equal(member.kind, DW_LOC_PIECES);
	assert_true(dw_loc_unavailable(&member, 0, 64) == (0xffffffffull | 0xf0ull << 32));
	/* one register holds 64 bits; a struct of 12 bytes in it lacks 4 */
	assert_true(dw_loc_unavailable(&reg, 64, 32) == 0xffffffffull);
	assert_true(dw_loc_unavailable(&reg, 32, 32) == 0);
}

/* A parameter whose register was reused: its value on entry, from the
 * caller's call site (DW_AT_call_value), chosen by the return address. */
static void test_entry_values(void **state)
{
	struct dw_module *m = open_corpus("clang-O2");
	uint64_t pc = marker_pc(m, "corpus.c", "pointers");
	struct dw_var v;

	(void)state;
	assert_int_equal(dw_var_find(m, pc, "null_outer", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_VALUE_EXPR);
	assert_int_equal(v.loc.expr->op, DW_EXPR_IF);
	assert_int_equal(v.loc.expr->b->op, DW_EXPR_CONST);
	assert_int_equal(v.loc.expr->b->value, 0);
	assert_int_equal(v.loc.expr->c->op, DW_EXPR_UNAVAILABLE);
	dw_module_free(m);
}

/* The line of "LINE:@marker" in fixture source @source. */
static unsigned fixture_line(const char *source, const char *marker)
{
	const char *dir = getenv("WRAITH_SRCDIR");
	char *path, *want = xasprintf("LINE:%s", marker), line[512];
	unsigned n = 0, found = 0;
	FILE *f;

	if (!dir)
		fail_msg("WRAITH_SRCDIR is not set: run this test through `make check`");
	path = xasprintf("%s/tests/fixtures/%s", dir, source);
	f = fopen(path, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want))
			found = n;
	}
	fclose(f);
	free(path);
	free(want);
	assert_true(found > 0);
	return found;
}

/* An entry value passed on: gcc's hop(depth) only had depth on entry, and
 * mid passed it its own entry value, so the value comes from top's call
 * site, one call further out: the branch mid's call site takes is itself
 * a choice by mid's return address. */
static void test_entry_values_passed_on(void **state)
{
	struct dw_module *m;
	struct dw_sites sites = { 0 };
	struct dw_var v;

	(void)state;
	m = open_module("fvals-O2");
	assert_int_equal(dw_resolve_line(m, "fvals.c", fixture_line("fvals.c", "hop-after"), &sites), 0);
	assert_int_equal(sites.n, 1);
	assert_int_equal(dw_var_find(m, sites.v[0].vaddr, "depth", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_VALUE_EXPR);
	assert_int_equal(v.loc.expr->op, DW_EXPR_IF);       /* mid's call site of hop */
	assert_int_equal(v.loc.expr->b->op, DW_EXPR_IF);    /* top's call site of mid */
	assert_int_equal(v.loc.expr->c->op, DW_EXPR_UNAVAILABLE);
	dw_sites_release(&sites);
	dw_module_free(m);
}

/* Bytes of read-only segments come from the file (frame values' string
 * literals); writable data may have changed in the process: refused. */
static void test_read_const(void **state)
{
	char buf[8];
	struct dw_module *m;
	struct dw_sites sites = { 0 };
	struct dw_var v;

	(void)state;
	m = open_module("fvals-O0");
	assert_int_equal(dw_module_read_const(m, 0, buf, 4), 4); /* the ELF header's page */
	assert_memory_equal(buf, "\177ELF", 4);
	assert_int_equal(dw_resolve_function(m, "leaf", &sites), 0);
	assert_int_equal(dw_var_find(m, sites.v[0].vaddr, "g_pair", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_MEM_ADDR);
	assert_int_equal(dw_module_read_const(m, (uint64_t)v.loc.offset, buf, 4), -1);
	dw_sites_release(&sites);
	dw_module_free(m);
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
	assert_string_equal(v.type->name, "const char *"); /* qualifiers kept, as gdb shows them */
	assert_int_equal(v.type->target->kind, DW_TYPE_INT);
	assert_true(v.type->target->is_char);
	assert_int_equal(dw_var_find(m, pc, "nope", &v), -ENOENT);
	/* At -O2 the first parameter is still in rdi at the probe. */
	assert_int_equal(dw_var_find(m, pc, "n", &v), 0);
	assert_string_equal(v.type->name, "long"); /* gdb's name for GCC's "long int" */
	assert_int_equal(v.loc.kind, DW_LOC_REG);
	assert_int_equal(v.loc.reg, 5);
	/* A double parameter lives in xmm0: not readable, and said so. */
	assert_int_equal(dw_var_find(m, pc, "ratio", &v), 0);
	assert_int_equal(v.loc.kind, DW_LOC_UNSUPPORTED);
	assert_non_null(strstr(v.loc.why, "vector"));
	assert_int_equal(v.loc.unreadable_reg, 17 + 1); /* xmm0, wholly: <unavailable> */
	dw_module_free(m);
}

static void test_type_by_name(void **state)
{
	uint64_t pc;
	struct dw_module *m = open_fixture("vars-O0", &pc);
	struct dw_module *other = open_fixture("vars-clang-O2", &pc);
	const struct dw_type *t, *p;

	(void)state;
	t = dw_type_named(m, "struct point");
	assert_non_null(t);
	assert_int_equal(t->kind, DW_TYPE_STRUCT);
	assert_string_equal(t->name, "struct point");
	assert_null(dw_type_named(m, "union point"));   /* the tag must fit */
	assert_null(dw_type_named(m, "point"));         /* C names it with its keyword */
	assert_null(dw_type_named(m, "struct nothing"));
	assert_int_equal(dw_type_named(m, "enum color")->kind, DW_TYPE_ENUM);
	assert_int_equal(dw_type_named(m, "int")->size, 4); /* a base type by its DWARF name */
	/* the same definition in another build of the program is the same type */
	assert_true(dw_type_same(t, dw_type_named(other, "struct point")));
	assert_true(dw_type_same(dw_type_named(m, "struct request"), dw_type_named(other, "struct request")));
	assert_false(dw_type_same(t, dw_type_named(m, "struct request")));
	/* builtins need no debug info */
	assert_int_equal(dw_type_builtin("unsigned long")->size, 8);
	assert_false(dw_type_builtin("unsigned long")->is_signed);
	assert_int_equal(dw_type_builtin("bool")->kind, DW_TYPE_BOOL);
	assert_string_equal(dw_type_builtin("u32")->name, "unsigned int");
	assert_int_equal(dw_type_builtin("void")->kind, DW_TYPE_VOID);
	assert_null(dw_type_builtin("uint32_t"));
	/* types made for a cast, and a pointer type made once */
	p = dw_type_derived(m, DW_TYPE_ARRAY, t, 3, "struct point [3]");
	assert_int_equal(p->size, 3 * t->size);
	assert_ptr_equal(p->target, t);
	assert_string_equal(dw_type_renamed(m, t, "const struct point")->name, "const struct point");
	assert_int_equal(dw_type_renamed(m, t, "const struct point")->n_members, t->n_members);
	t = dw_type_builtin("int");
	assert_ptr_equal(dw_type_pointer(m, t), dw_type_pointer(m, t));
	assert_string_equal(dw_type_pointer(m, t)->name, "int *");
	dw_module_free(other);
	dw_module_free(m);
}

static void test_enumerators(void **state)
{
	uint64_t pc;
	struct dw_module *m = open_fixture("vars-O2", &pc);
	const struct dw_type *t = NULL;
	int64_t v = -1;

	(void)state;
	assert_int_equal(dw_enumerator_find(m, pc, "BLUE", &t, &v), 0);
	assert_int_equal(v, 2);
	assert_string_equal(t->name, "enum color");
	assert_int_equal(dw_enumerator_find(m, pc, "PURPLE", &t, &v), -ENOENT);
	dw_module_free(m);
}

/* A function as a value: its type as gdb names it and its address. */
static void test_functions(void **state)
{
	uint64_t pc, addr = 0;
	struct dw_module *m = open_fixture("vars-O0", &pc);
	const struct dw_type *t = NULL;

	(void)state;
	assert_int_equal(dw_function_find(m, pc, "main", &t, &addr), 0);
	assert_int_equal(t->kind, DW_TYPE_FUNCTION);
	assert_string_equal(t->name, "int (int, char **)");
	assert_string_equal(dw_type_pointer(m, t)->name, "int (*)(int, char **)");
	assert_true(addr != 0);
	assert_int_equal(dw_function_find(m, pc, "no_such_function", &t, &addr), -ENOENT);
	dw_module_free(m);
}

/* ---- the names of a module's globals kept between runs (globalnames.c) ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_names(Dwarf_Die *die, char ***v, size_t *n, size_t *cap, int depth)
{
	Dwarf_Die child;

	if (depth > 3 || dwarf_child(die, &child) != 0)
		return;
	do {
		const char *name = dwarf_diename(&child);

		if (name && !strchr(name, ':')) {
			*v = xgrow(*v, cap, *n + 1, sizeof(**v));
			(*v)[(*n)++] = xstrdup(name);
		}
		collect_names(&child, v, n, cap, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* Every name a DIE of @path's units has down to the depth of a
 * function's locals (globals, functions, types, parameters, locals):
 * sorted, each once, in *@n. */
static char **die_names(const char *path, size_t *n)
{
	struct dw_module *m;
	char **v = NULL;
	size_t cap = 0, k = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw;

	*n = 0;
	assert_int_equal(dw_module_open(path, &m), 0);
	dw = dw_module_has_dwarf(m) ? dw_module_dwarf(m) : NULL;
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			collect_names(&cu, &v, n, &cap, 0);
		off = next;
	}
	v = xgrow(v, &cap, *n + 2, sizeof(*v));
	v[(*n)++] = xstrdup("wr_no_such_global_anywhere");
	v[(*n)++] = xstrdup("len");
	qsort(v, *n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < *n; i++) {
		if (k && !strcmp(v[k - 1], v[i]))
			free(v[i]);
		else
			v[k++] = v[i];
	}
	*n = k;
	dw_module_free(m);
	return v;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".wpc") != NULL;
	closedir(d);
	return n;
}

/* A module opened once builds its globals' index from its DWARF and
 * stores their names; opened again, it answers from that list for a name
 * it lacks, without its DWARF.  Both answers must be the same for every
 * name its DIEs have (and two they have not): found or not, and found,
 * the same definition. */
static void check_names_cache(const char *path, const char *dir)
{
	size_t n, entries = count_entries(dir);
	char **names = die_names(path, &n);
	struct dw_module *built, *cached;
	struct dw_var a, b;

	assert_int_equal(dw_module_open(path, &built), 0);
	for (size_t i = 0; i < n; i++)
		(void)dw_var_find_global(built, names[i], &a);
	assert_int_equal(count_entries(dir), entries + (dw_module_has_dwarf(built) ? 1 : 0));
	assert_int_equal(dw_module_open(path, &cached), 0);
	for (size_t i = 0; i < n; i++) {
		int ea = dw_var_find_global(built, names[i], &a), eb = dw_var_find_global(cached, names[i], &b);

		if (ea != eb)
			fail_msg("%s: global %s: %d without the list, %d with it", path, names[i], ea, eb);
		if (ea == 0) {
			assert_int_equal(a.loc.kind, b.loc.kind);
			assert_int_equal(a.loc.offset, b.loc.offset);
			assert_int_equal(a.external, b.external);
			assert_string_equal(a.type ? a.type->name : "", b.type ? b.type->name : "");
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	dw_module_free(cached);
	dw_module_free(built);
}

static void test_global_names_cache(void **state)
{
	const char *builds[] = { "gcc-O2", "clang-O2", "gcc-O2-dwarf4", "gcc-O2-lto" };
	char dir[] = "/tmp/wr-test-vars-XXXXXX", *cmd;
	const char *fixtures = getenv("WRAITH_FIXTURES");
	struct dw_module *libc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dw_debug_configure(&(struct dw_debug_config){ .index_dir = dir }); /* /usr/lib/debug */
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		char *name = xasprintf("bin/corpus-%s", builds[i]), *path = corpus_path(name);
		char *lib_name = xasprintf("bin/libcorpus-%s.so", builds[i]), *lib = corpus_path(lib_name);

		check_names_cache(path, dir);
		check_names_cache(lib, dir);
		free(lib);
		free(lib_name);
		free(path);
		free(name);
	}
	assert_non_null(fixtures);
	cmd = xasprintf("%s/vars-O2", fixtures);
	check_names_cache(cmd, dir);
	free(cmd);
	/* libc, with its separate debug file when the system has one */
	assert_int_equal(dw_module_open("/lib/x86_64-linux-gnu/libc.so.6", &libc), 0);
	if (!dw_module_debug_path(libc))
		print_message("no debug file for libc: its part checks a module without DWARF\n");
	dw_module_free(libc);
	check_names_cache("/lib/x86_64-linux-gnu/libc.so.6", dir);
	dw_debug_config_release();
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_O0),
		cmocka_unit_test(test_globals_and_misses),
		cmocka_unit_test(test_type_by_name),
		cmocka_unit_test(test_clang),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_dynamic_objects),
		cmocka_unit_test(test_bitfields),
		cmocka_unit_test(test_declared_types),
		cmocka_unit_test(test_inlined),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_unavailable_bits),
		cmocka_unit_test(test_uninit),
		cmocka_unit_test(test_entry_values),
		cmocka_unit_test(test_entry_values_passed_on),
		cmocka_unit_test(test_read_const),
		cmocka_unit_test(test_enumerators),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_cxx_types),
		cmocka_unit_test(test_local_enums),
		cmocka_unit_test(test_global_names_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
