/* kbtf.c - the running kernel's BTF, searched in place (see kbtf.h). */
#include "runtime/kbtf.h"
#include "util/xalloc.h"

#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every KBTF_STEP-th type's offset is kept: finding a type walks at most
 * KBTF_STEP - 1 records from there, and the index stays a few KiB (one per
 * type would be half a megabyte of fresh pages). */
#define KBTF_STEP 64u

struct kbtf {
	void *data;
	size_t size;
	bool mapped;
	const char *types, *strs;
	uint32_t types_len, strs_len;
	/* Made by the first walk over the types (indexed()): most users
	 * search by name first, and that walk is the same one. */
	bool indexed;
	uint32_t count;     /* types, void not included */
	uint32_t *marks;    /* offset of type 1 + i * KBTF_STEP */
	size_t cap_marks;
};

/* Bytes of the record of @t, or 0 for a kind this scanner does not know
 * (the walk then stops: what follows cannot be found). */
static uint32_t record_size(const struct btf_type *t)
{
	uint32_t n = btf_vlen(t), base = sizeof(*t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT: return base + 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return base;
	case BTF_KIND_ARRAY: return base + sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: return base + n * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return base + n * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return base + n * sizeof(struct btf_param);
	case BTF_KIND_VAR: return base + sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return base + n * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return base + sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64: return base + n * sizeof(struct btf_enum64);
	default: return 0;
	}
}

/* Note type number @count (from 0), at @off: every KBTF_STEP-th one's
 * offset is kept. */
static void mark_type(struct kbtf *k, uint32_t count, uint32_t off)
{
	if (count % KBTF_STEP)
		return;
	if (count / KBTF_STEP >= k->cap_marks) {
		k->cap_marks = k->cap_marks ? k->cap_marks * 2 : 4096;
		k->marks = xrealloc(k->marks, k->cap_marks * sizeof(*k->marks));
	}
	k->marks[count / KBTF_STEP] = off;
}

/* Walk the types from the first, indexing them on the first walk, and
 * call @fn (when not NULL) with each and its id.  The index is a cache:
 * @k stays logically constant. */
static void walk_types(const struct kbtf *k, void (*fn)(void *ctx, const struct btf_type *t,
							 uint32_t id), void *ctx)
{
	struct kbtf *mk = (struct kbtf *)k;
	bool index = !k->indexed;
	uint32_t off = 0, n = 0;

	while (off + sizeof(struct btf_type) <= k->types_len && (index || n < k->count)) {
		const struct btf_type *t = (const void *)(k->types + off);
		uint32_t sz = record_size(t);

		if (!sz || off + sz > k->types_len)
			break;
		if (index)
			mark_type(mk, n, off);
		n++;
		if (fn)
			fn(ctx, t, n);
		off += sz;
	}
	if (index) {
		mk->count = n;
		mk->indexed = true;
	}
}

static const struct kbtf *indexed(const struct kbtf *k)
{
	if (!k->indexed)
		walk_types(k, NULL, NULL);
	return k;
}

static int map_or_read(struct kbtf *k, int fd)
{
	struct stat st;
	size_t done = 0;

	if (fstat(fd, &st) || st.st_size <= (off_t)sizeof(struct btf_header))
		return -EPROTO;
	k->size = (size_t)st.st_size;
	k->data = mmap(NULL, k->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (k->data != MAP_FAILED) {
		k->mapped = true;
		return 0;
	}
	/* before Linux 6.16 the file cannot be mapped: one read, one buffer */
	k->data = xmalloc(k->size);
	while (done < k->size) {
		ssize_t r = read(fd, (char *)k->data + done, k->size - done);

		if (r <= 0)
			return r < 0 ? -errno : -EPROTO;
		done += (size_t)r;
	}
	return 0;
}

static int parse_header(struct kbtf *k)
{
	const struct btf_header *h = k->data;
	size_t body = k->size - sizeof(*h);

	if (h->magic != BTF_MAGIC || h->version != BTF_VERSION || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > k->size)
		return -EPROTO;
	body = k->size - h->hdr_len;
	if ((uint64_t)h->type_off + h->type_len > body || (uint64_t)h->str_off + h->str_len > body ||
	    h->str_len == 0 || (h->type_off & 3))
		return -EPROTO;
	k->types = (const char *)k->data + h->hdr_len + h->type_off;
	k->types_len = h->type_len;
	k->strs = (const char *)k->data + h->hdr_len + h->str_off;
	k->strs_len = h->str_len;
	if (k->strs[k->strs_len - 1] != '\0' || k->types_len < sizeof(struct btf_type))
		return -EPROTO;
	return 0;
}

int kbtf_open(const char *path, struct kbtf **out)
{
	struct kbtf *k;
	int fd = open(path ? path : "/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	int err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	k = xcalloc(1, sizeof(*k));
	err = map_or_read(k, fd);
	close(fd);
	if (!err)
		err = parse_header(k);
	if (err) {
		kbtf_close(k);
		return err;
	}
	*out = k;
	return 0;
}

void kbtf_close(struct kbtf *k)
{
	if (!k)
		return;
	if (k->mapped)
		munmap(k->data, k->size);
	else
		free(k->data);
	free(k->marks);
	free(k);
}

const struct btf_type *kbtf_type(const struct kbtf *k, uint32_t id)
{
	uint32_t i, off;

	if (id == 0 || id > indexed(k)->count)
		return NULL;
	i = (id - 1) / KBTF_STEP * KBTF_STEP;
	off = k->marks[i / KBTF_STEP];
	for (; i < id - 1; i++)
		off += record_size((const void *)(k->types + off));
	return (const void *)(k->types + off);
}

const char *kbtf_str(const struct kbtf *k, uint32_t off)
{
	return off < k->strs_len ? k->strs + off : "";
}

uint32_t kbtf_resolve(const struct kbtf *k, uint32_t id)
{
	for (int hops = 0; hops < 32; hops++) {
		const struct btf_type *t = kbtf_type(k, id);

		if (!t)
			return 0;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return id;
		id = t->type;
	}
	return 0;
}

struct composite_walk {
	const struct kbtf *k;
	const char *const *names;
	const int *kinds;
	size_t n;
	void (*fn)(void *ctx, size_t i, uint32_t id);
	void *ctx;
};

static void match_composite(void *ctx, const struct btf_type *t, uint32_t id)
{
	struct composite_walk *w = ctx;
	const char *name;

	if (!btf_is_composite(t) || !t->name_off)
		return;
	name = kbtf_str(w->k, t->name_off);
	for (size_t i = 0; i < w->n; i++)
		if (name[0] == w->names[i][0] && (int)btf_kind(t) == w->kinds[i] &&
		    strcmp(name, w->names[i]) == 0)
			w->fn(w->ctx, i, id);
}

void kbtf_each_composite(const struct kbtf *k, const char *const *names, const int *kinds,
			 size_t n, void (*fn)(void *ctx, size_t i, uint32_t id), void *ctx)
{
	struct composite_walk w = { k, names, kinds, n, fn, ctx };

	walk_types(k, match_composite, &w);
}

static void keep_first(void *ctx, size_t i, uint32_t id)
{
	uint32_t *ids = ctx;

	if (!ids[i])
		ids[i] = id;
}

void kbtf_find_composites(const struct kbtf *k, const char *const *names, const int *kinds,
			  size_t n, uint32_t *ids)
{
	memset(ids, 0, n * sizeof(*ids));
	kbtf_each_composite(k, names, kinds, n, keep_first, ids);
}

int kbtf_member(const struct kbtf *k, uint32_t id, const char *name, uint32_t *bit_off,
		uint32_t *bit_size, uint32_t *type)
{
	const struct btf_type *t = kbtf_type(k, kbtf_resolve(k, id));
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t off = btf_member_bit_offset(t, i);

		if (m->name_off && strcmp(kbtf_str(k, m->name_off), name) == 0) {
			*bit_off = off;
			*bit_size = btf_member_bitfield_size(t, i);
			*type = m->type;
			return 0;
		}
		/* an anonymous struct or union: its members are the parent's */
		if (!m->name_off && kbtf_member(k, m->type, name, bit_off, bit_size, type) == 0) {
			*bit_off += off;
			return 0;
		}
	}
	return -ENOENT;
}
