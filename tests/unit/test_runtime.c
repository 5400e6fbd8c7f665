/* test_runtime.c - the kernel BTF read in place (kbtf) and the cut-down
 * copy the base object's CO-RE relocations are resolved against
 * (core_btf), on a made-up kernel BTF written with libbpf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "codegen/codegen.h"
#include "runtime/blob.h"
#include "runtime/core_btf.h"
#include "runtime/kbtf.h"

/* struct outer { int x; union { struct { unsigned long start, end; }; int r; };
 *                struct inner in; struct inner *p; } (size 64)
 * struct inner { int a; unsigned long b; } (size 16), start at byte 8,
 * in at byte 24 (its b at byte 32), p at byte 40; and a second struct
 * inner { unsigned long b; }. */
static struct btf *fake_kernel(void)
{
	struct btf *b = btf__new_empty();
	int i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int ul = btf__add_int(b, "unsigned long", 8, 0);
	int ulong_t = btf__add_typedef(b, "ulong_t", ul);
	int inner = btf__add_struct(b, "inner", 16);
	int anon_s, anon_u, pinner;

	btf__add_field(b, "a", i32, 0, 0);
	btf__add_field(b, "b", ulong_t, 64, 0);
	anon_s = btf__add_struct(b, NULL, 16);
	btf__add_field(b, "start", ul, 0, 0);
	btf__add_field(b, "end", ul, 64, 0);
	anon_u = btf__add_union(b, NULL, 16);
	btf__add_field(b, NULL, anon_s, 0, 0);
	btf__add_field(b, "r", i32, 0, 0);
	pinner = btf__add_ptr(b, inner);
	btf__add_struct(b, "outer", 64);
	btf__add_field(b, "x", i32, 0, 0);
	btf__add_field(b, NULL, anon_u, 64, 0);
	btf__add_field(b, "in", inner, 192, 0);
	btf__add_field(b, "p", pinner, 320, 0);
	/* a second struct inner, as kernels have a few names twice */
	btf__add_struct(b, "inner", 8);
	btf__add_field(b, "b", ul, 0, 0);
	return b;
}

/* The shadows a BPF object would declare: outer___wr { start; in; p;
 * missing; }, inner___wr { b; }, absent___wr { z; }. */
static struct btf *fake_local(void)
{
	struct btf *b = btf__new_empty();
	int ul = btf__add_int(b, "unsigned long", 8, 0);
	int i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int inner = btf__add_struct(b, "inner___wr", 8);
	int pvoid;

	btf__add_field(b, "b", ul, 0, 0);
	pvoid = btf__add_ptr(b, 0);
	btf__add_struct(b, "outer___wr", 32);
	btf__add_field(b, "start", ul, 0, 0);
	btf__add_field(b, "in", inner, 64, 0);
	btf__add_field(b, "p", pvoid, 128, 0);
	btf__add_field(b, "missing", i32, 192, 0);
	btf__add_struct(b, "absent___wr", 4);
	btf__add_field(b, "z", i32, 0, 0);
	return b;
}

static char *write_temp(const void *data, size_t size)
{
	char *path = strdup("/tmp/wraith-test-btf-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
	return path;
}

static struct kbtf *open_fake(char **path)
{
	struct btf *kb = fake_kernel();
	__u32 size;
	const void *raw = btf__raw_data(kb, &size);
	struct kbtf *k;

	*path = write_temp(raw, size);
	btf__free(kb);
	assert_int_equal(kbtf_open(*path, &k), 0);
	return k;
}

static void test_kbtf_lookup(void **state)
{
	static const char *const names[] = { "inner", "outer", "nothing", "inner" };
	static const int kinds[] = { BTF_KIND_STRUCT, BTF_KIND_STRUCT, BTF_KIND_STRUCT,
				     BTF_KIND_UNION };
	uint32_t ids[4], off, size, type;
	char *path;
	struct kbtf *k = open_fake(&path);

	(void)state;
	kbtf_find_composites(k, names, kinds, 4, ids);
	assert_true(ids[0] > 0 && ids[1] > 0);
	assert_int_equal(ids[2], 0);
	assert_int_equal(ids[3], 0); /* inner is a struct, not a union */
	assert_string_equal(kbtf_str(k, kbtf_type(k, ids[1])->name_off), "outer");
	/* found through the anonymous union and struct */
	assert_int_equal(kbtf_member(k, ids[1], "end", &off, &size, &type), 0);
	assert_int_equal(off, 128);
	assert_int_equal(kbtf_member(k, ids[1], "in", &off, &size, &type), 0);
	assert_int_equal(off, 192);
	assert_int_equal(type, ids[0]);
	/* b's typedef resolves to the integer */
	assert_int_equal(kbtf_member(k, ids[0], "b", &off, &size, &type), 0);
	assert_true(btf_is_int(kbtf_type(k, kbtf_resolve(k, type))));
	assert_int_equal(kbtf_member(k, ids[1], "missing", &off, &size, &type), -ENOENT);
	assert_null(kbtf_type(k, 0));
	assert_null(kbtf_type(k, 1000));
	kbtf_close(k);
	unlink(path);
	free(path);
}

static const struct btf_member *member(const struct btf *b, const struct btf_type *t,
				       const char *name)
{
	const struct btf_member *m = btf_members(t);

	for (uint32_t i = 0; i < btf_vlen(t); i++, m++)
		if (strcmp(btf__name_by_offset(b, m->name_off), name) == 0)
			return m;
	return NULL;
}

static void test_core_btf_cut(void **state)
{
	char *path;
	struct kbtf *k = open_fake(&path);
	struct btf *local = fake_local(), *cut = core_btf_build(local, k);
	const struct btf_type *outer, *in;
	const struct btf_member *m;
	int id;

	(void)state;
	assert_non_null(cut);
	id = btf__find_by_name_kind(cut, "outer", BTF_KIND_STRUCT);
	assert_true(id > 0);
	outer = btf__type_by_id(cut, id);
	assert_int_equal(outer->size, 64);
	assert_int_equal(btf_vlen(outer), 3); /* start, in, p; not missing */
	m = member(cut, outer, "start");
	assert_non_null(m);
	assert_int_equal(m->offset, 64);
	m = member(cut, outer, "p");
	assert_int_equal(m->offset, 320);
	assert_true(btf_is_ptr(btf__type_by_id(cut, m->type)));
	m = member(cut, outer, "in");
	assert_int_equal(m->offset, 192);
	in = btf__type_by_id(cut, m->type);
	assert_true(btf_is_struct(in));
	assert_int_equal(in->size, 16);
	assert_int_equal(btf_vlen(in), 1);
	assert_int_equal(member(cut, in, "b")->offset, 64);
	assert_null(member(cut, outer, "missing"));
	/* both kernel structs named inner are candidates */
	{
		int inners = 0;

		for (uint32_t i = 1; i < btf__type_cnt(cut); i++) {
			const struct btf_type *t = btf__type_by_id(cut, i);

			inners += btf_is_struct(t) &&
				  strcmp(btf__name_by_offset(cut, t->name_off), "inner") == 0;
		}
		assert_int_equal(inners, 2);
	}
	assert_true(btf__find_by_name_kind(cut, "absent", BTF_KIND_STRUCT) < 0);
	/* what libbpf will read back from the memory file */
	{
		int fd = core_btf_memfd(cut);
		char p[40];
		struct btf *back;

		assert_true(fd >= 0);
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		back = btf__parse(p, NULL);
		assert_non_null(back);
		assert_int_equal(btf__type_cnt(back), btf__type_cnt(cut));
		btf__free(back);
		close(fd);
	}
	btf__free(cut);
	btf__free(local);
	kbtf_close(k);
	unlink(path);
	free(path);
}

static void test_kbtf_errors(void **state)
{
	static const char junk[64] = "not BTF at all";
	struct kbtf *k = (void *)1;
	char *path = write_temp(junk, sizeof(junk));

	(void)state;
	assert_int_equal(kbtf_open("/nonexistent/btf", &k), -ENOENT);
	assert_null(k);
	assert_int_equal(kbtf_open(path, &k), -EPROTO);
	assert_null(k);
	unlink(path);
	free(path);
}

/* The base object's own shadows are found in its .BTF section. */
static void test_core_btf_of_base(void **state)
{
	struct codegen_options co = { 0 };
	struct bpf_blob base;
	struct btf *btf;

	(void)state;
	assert_int_equal(codegen_base(&co, &base), 0);
	btf = core_btf_of_object(base.data, base.size);
	assert_non_null(btf);
	assert_true(btf__find_by_name_kind(btf, "task_struct___wr", BTF_KIND_STRUCT) > 0);
	btf__free(btf);
	assert_null(core_btf_of_object("junk", 4));
	bpf_blob_release(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kbtf_lookup),
		cmocka_unit_test(test_core_btf_cut),
		cmocka_unit_test(test_kbtf_errors),
		cmocka_unit_test(test_core_btf_of_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
