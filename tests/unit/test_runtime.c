/* test_runtime.c - the kernel BTF read in place (kbtf) and the cut-down
 * copy the base object's CO-RE relocations are resolved against
 * (core_btf), on a made-up kernel BTF written with libbpf; that cut kept
 * on disk (btf_cache), on the running kernel's BTF; (as root) the probes'
 * start gate in a loaded base object, and modules' unwind tables put into
 * arrays of maps the base object takes; and which instructions the kernel's
 * uprobes take (uprobe_insn), checked against the running kernel when
 * root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "codegen/codegen.h"
#include "protocol/blob.h"
#include "runtime/btf_cache.h"
#include "runtime/core_btf.h"
#include "runtime/kbtf.h"
#include "runtime/runtime.h"
#include "runtime/uprobe_insn.h"
#include "util/buildid.h"
#include "util/strbuf.h"

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

/* A fresh cut of the running kernel's BTF for @base, as raw bytes. */
static void *fresh_cut(const struct bpf_blob *base, size_t *len)
{
	struct btf *local = core_btf_of_object(base->data, base->size), *cut;
	struct kbtf *k;
	const void *raw;
	void *copy;
	__u32 n;

	assert_non_null(local);
	assert_int_equal(kbtf_open(NULL, &k), 0);
	cut = core_btf_build(local, k);
	assert_non_null(cut);
	raw = btf__raw_data(cut, &n);
	assert_non_null(raw);
	copy = malloc(n);
	memcpy(copy, raw, n);
	*len = n;
	btf__free(cut);
	btf__free(local);
	kbtf_close(k);
	return copy;
}

/* The cut kept on disk is byte for byte a fresh cut of this kernel's BTF
 * (which a cut made again also is); the other transport's base object,
 * whose shadows may differ, does not find it. */
static void test_btf_cache(void **state)
{
	struct codegen_options ring = { .transport = WR_TRANSPORT_RINGBUF };
	struct codegen_options perf = { .transport = WR_TRANSPORT_PERF };
	char dir[] = "/tmp/wraith-test-btfcache.XXXXXX", *rm;
	struct bpf_blob base, other;
	struct strbuf key = STRBUF_INIT;
	const unsigned char *id;
	void *a, *b, *kept;
	size_t la, lb, lk;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0 || build_id_kernel(&id, &la) != 0) {
		print_message("no kernel BTF or kernel build-id here: nothing to cache\n");
		return;
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(codegen_base(&ring, &base), 0);
	assert_int_equal(codegen_base(&perf, &other), 0);
	assert_int_equal(btf_cache_key(&base, &key), 0);
	a = fresh_cut(&base, &la);
	assert_int_equal(btf_cache_get(dir, &base, &kept, &lk, NULL), -ENOENT);
	assert_int_equal(btf_cache_put(dir, &base, a, la, NULL), 0);
	b = fresh_cut(&base, &lb);
	assert_int_equal(btf_cache_get(dir, &base, &kept, &lk, NULL), 0);
	assert_int_equal(lk, lb);
	assert_memory_equal(kept, b, lb);
	free(kept);
	if (other.size != base.size || memcmp(other.data, base.data, base.size))
		assert_int_equal(btf_cache_get(dir, &other, &kept, &lk, NULL), -ENOENT);
	free(a);
	free(b);
	strbuf_release(&key);
	bpf_blob_release(&base);
	bpf_blob_release(&other);
	rm = malloc(64 + sizeof(dir));
	snprintf(rm, 64 + sizeof(dir), "rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
}

/* The start gate: what userspace writes through its mapping is what the
 * probes read, entry by entry (an array map's values lie 8 bytes apart
 * in its memory: 32-bit values written as a plain array missed every
 * other probe id). */
static void test_gate(void **state)
{
	struct codegen_options co = { 0 };
	struct rt_options ro = { .stack_entries = 1, .max_procs = 1 };
	struct runtime *rt;
	struct bpf_blob base;
	uint64_t v;

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: no BPF map to check the gate in\n");
		return;
	}
	assert_int_equal(codegen_base(&co, &base), 0);
	assert_int_equal(runtime_new(&ro, &base, &rt), 0);
	for (uint32_t id = 1; id < 8; id++)
		runtime_gate_set(rt, id, 100 + id);
	runtime_gate_set(rt, WR_MAX_PROBES - 1, 7);
	runtime_gate_arm(rt, 5);
	assert_int_equal(runtime_gate_get(rt, 0, &v), 0);
	assert_int_equal(v, 5);
	for (uint32_t id = 1; id < 8; id++) {
		assert_int_equal(runtime_gate_get(rt, id, &v), 0);
		assert_int_equal(v, 100 + id);
	}
	assert_int_equal(runtime_gate_get(rt, WR_MAX_PROBES - 1, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(runtime_gate_get(rt, 8, &v), 0);
	assert_int_equal(v, 0);
	runtime_free(rt);
	bpf_blob_release(&base);
}

/* The id of the map in slot @slot of array of maps @outer, or 0. */
static uint32_t inner_id(int outer, uint32_t slot)
{
	uint32_t id = 0;

	return bpf_map_lookup_elem(outer, &slot, &id) ? 0 : id;
}

/* The first row of the map whose id is @id. */
static struct wr_cfi_row first_row(uint32_t id)
{
	struct wr_cfi_row row = { 0 };
	uint32_t zero = 0;
	int fd = bpf_map_get_fd_by_id(id);

	assert_true(fd >= 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &zero, &row), 0);
	close(fd);
	return row;
}

/* Modules' unwind tables put in at once, into arrays of maps made before
 * the runtime, which its base object then takes as its own: a module put
 * in through the runtime lands in the same maps. */
static void test_cfi_outer(void **state)
{
	struct codegen_options co = { 0 };
	struct rt_options ro = { .stack_entries = 1, .max_procs = 1 };
	struct wr_cfi_row rows[3][2];
	struct wr_cfi_rule rule = { 0 };
	struct rt_cfi_put put[3];
	int outer[2], fds[3][2];
	struct runtime *rt;
	struct bpf_blob base;

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: no BPF map to put unwind tables in\n");
		return;
	}
	assert_int_equal(runtime_cfi_outer_new(outer), 0);
	for (int i = 0; i < 3; i++) {
		rows[i][0] = (struct wr_cfi_row){ .pc = 0x1000u * (unsigned)(i + 1) };
		rows[i][1] = (struct wr_cfi_row){ .pc = 0x1000u * (unsigned)(i + 1) + 8 };
		/* the second module has rows and no rules */
		assert_int_equal(runtime_cfi_maps_new(rows[i], 2, &rule, i == 1 ? 0 : 1, fds[i]), 0);
		put[i] = (struct rt_cfi_put){ .slot = (uint32_t)(10 + i) };
		memcpy(put[i].fds, fds[i], sizeof(put[i].fds));
	}
	assert_int_equal(runtime_put_cfi_maps_at(outer, put, 3), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(first_row(inner_id(outer[1], 10u + (uint32_t)i)).pc, 0x1000u * (unsigned)(i + 1));
		assert_int_equal(inner_id(outer[0], 10u + (uint32_t)i) != 0, i != 1);
		runtime_cfi_maps_close(fds[i]);
	}
	assert_int_equal(inner_id(outer[1], 9), 0);
	ro.cfi_outer = outer;
	assert_int_equal(codegen_base(&co, &base), 0);
	assert_int_equal(runtime_new(&ro, &base, &rt), 0);
	assert_int_equal(runtime_put_module_cfi(rt, 7, rows[2], 2, &rule, 1), 0);
	assert_int_equal(first_row(inner_id(outer[1], 7)).pc, 0x3000);
	assert_int_not_equal(inner_id(outer[0], 7), 0);
	runtime_free(rt);
	bpf_blob_release(&base);
	runtime_cfi_maps_close(outer);
}

/* The build-id note among others, and one cut short. */
static void test_build_id_notes(void **state)
{
	static const unsigned char notes[] = {
		4, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 'X', 'e', 'n', 0, 0xaa, 0xbb, 0, 0,
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef,
	};
	const unsigned char *id;
	size_t len;

	(void)state;
	assert_int_equal(build_id_in_notes(notes, sizeof(notes), &id, &len), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(id, "\xde\xad\xbe\xef", 4);
	assert_int_equal(build_id_in_notes(notes, sizeof(notes) - 1, &id, &len), -ENOENT);
	assert_int_equal(build_id_in_notes(notes, 20, &id, &len), -ENOENT);
	assert_int_equal(build_id_self(&id, &len), 0);
}

/* Instructions and what the kernel makes of a uprobe on each. */
static const struct insn_case {
	const char *bytes;
	enum uprobe_verdict want;
	const char *why; /* a part of the reason, for REFUSED and MISRUN */
} insn_cases[] = {
	{ "90", UPROBE_INSN_OK, NULL },
	{ "0f 1f 44 00 00", UPROBE_INSN_OK, NULL },
	{ "66 0f 1f 44 00 00", UPROBE_INSN_OK, NULL },
	{ "f3 0f 1e fa", UPROBE_INSN_OK, NULL },
	{ "48 89 e5", UPROBE_INSN_OK, NULL },
	{ "64 48 8b 04 25 28 00 00 00", UPROBE_INSN_OK, NULL },
	{ "e8 00 00 00 00", UPROBE_INSN_OK, NULL },
	{ "0f 84 00 00 00 00", UPROBE_INSN_OK, NULL },
	{ "f3 48 ab", UPROBE_INSN_OK, NULL },
	{ "0f a2", UPROBE_INSN_OK, NULL },
	{ "0f 01 d0", UPROBE_INSN_OK, NULL },
	{ "0f 0b", UPROBE_INSN_OK, NULL },
	{ "9b", UPROBE_INSN_OK, NULL },
	{ "62 f1 7c 48 10 07", UPROBE_INSN_OK, NULL },
	{ "c5 fe 6f 07", UPROBE_INSN_REFUSED, "opcode byte (6f)" },
	{ "c5 f9 ef c0", UPROBE_INSN_REFUSED, "opcode byte (ef)" },
	{ "62 f1 fe 48 6f 07", UPROBE_INSN_REFUSED, "opcode byte (6f)" },
	{ "66 2e 0f 1f 84 00 00 00 00 00", UPROBE_INSN_REFUSED, "CS segment-override prefix (2e)" },
	{ "66 66 66 66 2e 0f 1f 84 00 00 00 00 00", UPROBE_INSN_REFUSED, "CS segment" },
	{ "f0 ff 05 00 00 00 00", UPROBE_INSN_REFUSED, "LOCK prefix (f0)" },
	{ "f0 48 0f b1 0e", UPROBE_INSN_REFUSED, "LOCK" },
	{ "3e ff e0", UPROBE_INSN_REFUSED, "DS segment-override" },
	{ "26 8b 00", UPROBE_INSN_REFUSED, "ES segment-override" },
	{ "36 8b 00", UPROBE_INSN_REFUSED, "SS segment-override" },
	{ "cc", UPROBE_INSN_REFUSED, "opcode cc (int3)" },
	{ "cd 80", UPROBE_INSN_REFUSED, "(int)" },
	{ "f4", UPROBE_INSN_REFUSED, "(hlt)" },
	{ "d6", UPROBE_INSN_REFUSED, "invalid in 64-bit mode" },
	{ "8e d0", UPROBE_INSN_REFUSED, "loads SS" },
	{ "66 e8 00 00", UPROBE_INSN_REFUSED, "operand-size prefix (66)" },
	{ "66 0f 84 00 00", UPROBE_INSN_REFUSED, "operand-size prefix (66)" },
	{ "c5 f9 74 c1", UPROBE_INSN_MISRUN, "takes for a jump" },
	{ "c5 f8 77", UPROBE_INSN_MISRUN, "takes for a jump" },
	{ "c5 fe 7f 07", UPROBE_INSN_MISRUN, "takes for a jump" },
	{ "c5 f8 c2 c1 00", UPROBE_INSN_MISRUN, "takes for a return" },
	{ "c4 e2 79 9d c1", UPROBE_INSN_MISRUN, "popf" },
	{ "66 90", UPROBE_INSN_UNKNOWN, NULL },
};

static size_t parse_hex(const char *text, uint8_t *out)
{
	size_t n = 0;
	unsigned v;
	int used;

	while (sscanf(text, " %2x%n", &v, &used) == 1) {
		out[n++] = (uint8_t)v;
		text += used;
	}
	return n;
}

static void test_uprobe_insn_judge(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(insn_cases) / sizeof(insn_cases[0]); i++) {
		const struct insn_case *c = &insn_cases[i];
		uint8_t code[16];
		size_t n = parse_hex(c->bytes, code);
		struct x86insn in;
		const char *why;
		char buf[256];
		enum uprobe_verdict v = uprobe_insn_judge(code, n, &in, &why, buf, sizeof(buf));

		if (v != c->want || in.len != n)
			fail_msg("%s: verdict %d (want %d), length %u (want %zu)", c->bytes, v, c->want,
				 in.len, n);
		if (c->why && (!why || !strstr(why, c->why)))
			fail_msg("%s: reason '%s' lacks '%s'", c->bytes, why ? why : "(none)", c->why);
	}
	assert_non_null(uprobe_insn_error(-524));
	{
		struct strbuf msg = STRBUF_INIT;

		strbuf_addstr(&msg, "failed to create uprobe 'x:0x10' perf event: ERROR: "
			      "strerror_r(-524)=22; then Unknown error 524.");
		runtime_name_errors(&msg);
		assert_string_equal(msg.buf, "failed to create uprobe 'x:0x10' perf event: not supported "
			            "by the kernel; then not supported by the kernel.");
		strbuf_release(&msg);
	}
	assert_non_null(uprobe_insn_error(-ENOEXEC));
	assert_null(uprobe_insn_error(-ENOENT));
}

/* Every case at its own offset of a file this process maps executable,
 * a uprobe registered (and dropped) on each through perf_event_open:
 * the kernel must refuse exactly the REFUSED ones. */
static void test_uprobe_insn_kernel(void **state)
{
	size_t n_cases = sizeof(insn_cases) / sizeof(insn_cases[0]), size = n_cases * 64;
	char path[] = "wraith-test-uprobe-XXXXXX", type_text[32] = { 0 };
	uint8_t *image = calloc(1, size);
	int fd, tfd = open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY);
	void *map;
	size_t wrong = 0;

	(void)state;
	if (geteuid() != 0 || tfd < 0 || read(tfd, type_text, sizeof(type_text) - 1) <= 0) {
		free(image);
		if (tfd >= 0)
			close(tfd);
		skip();
	}
	close(tfd);
	memset(image, 0x90, size);
	for (size_t i = 0; i < n_cases; i++)
		parse_hex(insn_cases[i].bytes, image + i * 64);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, image, size), (ssize_t)size);
	map = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	for (size_t i = 0; i < n_cases; i++) {
		struct perf_event_attr attr = { .size = sizeof(attr), .type = (uint32_t)atoi(type_text),
						.config1 = (uint64_t)(uintptr_t)path,
						.config2 = i * 64 };
		int ev = (int)syscall(SYS_perf_event_open, &attr, getpid(), -1, -1, 0);
		int err = ev < 0 ? errno : 0;

		if (ev >= 0)
			close(ev);
		if (insn_cases[i].want == UPROBE_INSN_UNKNOWN) {
			print_message("%s: the kernel says %s\n", insn_cases[i].bytes,
				      err ? "no" : "registered");
			continue;
		}
		if ((insn_cases[i].want == UPROBE_INSN_REFUSED) != (err == 524 || err == ENOEXEC)) {
			print_message("%s: the kernel says %s (%d)\n", insn_cases[i].bytes,
				      err ? strerror(err) : "registered", err);
			wrong++;
		}
	}
	munmap(map, size);
	close(fd);
	unlink(path);
	free(image);
	assert_int_equal(wrong, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kbtf_lookup),
		cmocka_unit_test(test_core_btf_cut),
		cmocka_unit_test(test_kbtf_errors),
		cmocka_unit_test(test_core_btf_of_base),
		cmocka_unit_test(test_btf_cache),
		cmocka_unit_test(test_build_id_notes),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_cfi_outer),
		cmocka_unit_test(test_uprobe_insn_judge),
		cmocka_unit_test(test_uprobe_insn_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
