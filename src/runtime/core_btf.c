/* core_btf.c - the cut-down kernel BTF for the base object's CO-RE
 * relocations (see core_btf.h).
 *
 * What libbpf compares when it matches a shadow's field (relo_core.c):
 * the struct's name without its ___flavor and kind, then each member on
 * the access path by name, anonymous members searched through; a member's
 * type only by kind class (any pointer matches any pointer, any struct any
 * struct, integers by not being old-style bitfields), except a struct
 * embedded on the path, whose members are matched in turn.  So the copy
 * keeps names, offsets, sizes and kinds, points every pointer at void and
 * flattens anonymous members into their parent at their real offsets.
 */
#include "runtime/core_btf.h"
#include "runtime/kbtf.h"
#include "util/xalloc.h"

#include <bpf/btf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_NESTING 8

struct built {
	uint32_t lid, kid; /* local and kernel type */
	int oid;           /* its id in the copy */
};

struct builder {
	const struct btf *local;
	const struct kbtf *k;
	struct btf *out;
	int index_type;    /* "unsigned int" for arrays, once */
	struct built *done;
	size_t n_done, cap_done;
	int depth;
};

static int emit_composite(struct builder *b, uint32_t lid, uint32_t kid);

static uint32_t local_resolve(const struct btf *btf, uint32_t id)
{
	for (int hops = 0; hops < 32; hops++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || (!btf_is_typedef(t) && !btf_is_mod(t)))
			return t ? id : 0;
		id = t->type;
	}
	return 0;
}

static const char *name_or_null(const struct kbtf *k, uint32_t off)
{
	const char *s = kbtf_str(k, off);

	return *s ? s : NULL;
}

static int emit_type(struct builder *b, uint32_t lid, uint32_t kid);

static int emit_array(struct builder *b, uint32_t lid, const struct btf_type *kt)
{
	const struct btf_type *lt = btf__type_by_id(b->local, lid);
	uint32_t lelem = lt && btf_is_array(lt) ? btf_array(lt)->type : 0;
	uint32_t kelem = btf_array(kt)->type, nelems = btf_array(kt)->nelems;
	int elem;

	if (!b->index_type)
		b->index_type = btf__add_int(b->out, "unsigned int", 4, 0);
	if (b->index_type < 0)
		return b->index_type;
	elem = emit_type(b, lelem, kelem);
	return elem < 0 ? elem : btf__add_array(b->out, b->index_type, elem, nelems);
}

/* The copy of kernel type @kid for a member the local type @lid declares;
 * -ENOENT when the member is best left out. */
static int emit_type(struct builder *b, uint32_t lid, uint32_t kid)
{
	const struct btf_type *kt, *lt;
	const char *name;

	kid = kbtf_resolve(b->k, kid);
	lid = local_resolve(b->local, lid);
	kt = kbtf_type(b->k, kid);
	lt = btf__type_by_id(b->local, lid);
	if (!kt)
		return -ENOENT;
	name = name_or_null(b->k, kt->name_off);
	switch (btf_kind(kt)) {
	case BTF_KIND_INT:
		return btf__add_int(b->out, name ? name : "int", (size_t)kt->size, btf_int_encoding(kt));
	case BTF_KIND_PTR:
		return btf__add_ptr(b->out, 0);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (lt && btf_is_composite(lt))
			return emit_composite(b, lid, kid);
		return btf_is_struct(kt) ? btf__add_struct(b->out, name, kt->size)
					 : btf__add_union(b->out, name, kt->size);
	case BTF_KIND_ENUM:
		return btf__add_enum(b->out, name, kt->size);
	case BTF_KIND_ENUM64:
		return btf__add_enum64(b->out, name, kt->size, btf_kflag(kt));
	case BTF_KIND_FLOAT:
		return btf__add_float(b->out, name ? name : "float", kt->size);
	case BTF_KIND_ARRAY:
		return emit_array(b, lid, kt);
	default:
		return -ENOENT;
	}
}

struct member_copy {
	const char *name;
	uint32_t bit_off, bit_size;
	int type;
};

/* The copies of the local composite @lid's members that kernel type @kid
 * has, their types emitted first (a struct's fields must follow it). */
static size_t copy_members(struct builder *b, const struct btf_type *lt, uint32_t kid,
			   struct member_copy *mc)
{
	const struct btf_member *m = btf_members(lt);
	size_t n = 0;

	for (uint32_t i = 0; i < btf_vlen(lt); i++, m++) {
		const char *name = btf__name_by_offset(b->local, m->name_off);
		uint32_t ktype;

		if (!name || !*name ||
		    kbtf_member(b->k, kid, name, &mc[n].bit_off, &mc[n].bit_size, &ktype))
			continue;
		mc[n].name = name;
		mc[n].type = emit_type(b, m->type, ktype);
		if (mc[n].type >= 0)
			n++;
	}
	return n;
}

static int emit_composite(struct builder *b, uint32_t lid, uint32_t kid)
{
	const struct btf_type *lt = btf__type_by_id(b->local, lid), *kt = kbtf_type(b->k, kid);
	const char *name = name_or_null(b->k, kt->name_off);
	struct member_copy *mc;
	size_t n;
	int id;

	for (size_t i = 0; i < b->n_done; i++)
		if (b->done[i].lid == lid && b->done[i].kid == kid)
			return b->done[i].oid;
	if (b->depth >= MAX_NESTING)
		return -ELOOP;
	mc = xcalloc(btf_vlen(lt) + 1u, sizeof(*mc));
	b->depth++;
	n = copy_members(b, lt, kid, mc);
	b->depth--;
	id = btf_is_union(lt) ? btf__add_union(b->out, name, kt->size)
			      : btf__add_struct(b->out, name, kt->size);
	for (size_t i = 0; i < n && id >= 0; i++) {
		int err = btf__add_field(b->out, mc[i].name, mc[i].type, mc[i].bit_off, mc[i].bit_size);

		if (err)
			id = err;
	}
	free(mc);
	if (id >= 0) {
		b->done = xgrow(b->done, &b->cap_done, b->n_done + 1, sizeof(*b->done));
		b->done[b->n_done++] = (struct built){ lid, kid, id };
	}
	return id;
}

/* The local composites named NAME___FLAVOR, and NAME of each. */
static size_t find_shadows(const struct btf *local, uint32_t **ids, char ***names, int **kinds)
{
	uint32_t count = btf__type_cnt(local);
	size_t n = 0;

	*ids = xcalloc(count, sizeof(**ids));
	*names = xcalloc(count, sizeof(**names));
	*kinds = xcalloc(count, sizeof(**kinds));
	for (uint32_t id = 1; id < count; id++) {
		const struct btf_type *t = btf__type_by_id(local, id);
		const char *name = btf__name_by_offset(local, t->name_off), *flavor;

		if (!btf_is_composite(t) || !name || !(flavor = strstr(name, "___")) || flavor == name)
			continue;
		(*ids)[n] = id;
		(*names)[n] = xstrndup(name, (size_t)(flavor - name));
		(*kinds)[n] = (int)btf_kind(t);
		n++;
	}
	return n;
}

struct shadow_find {
	struct { size_t i; uint32_t kid; } *v;
	size_t n, cap;
};

/* Every kernel struct of a shadow's name is copied, as libbpf would try
 * each of them as a candidate: after the walk that finds them, which also
 * indexes the types the copies look up (kbtf.c). */
static void note_found(void *ctx, size_t i, uint32_t kid)
{
	struct shadow_find *f = ctx;

	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof(*f->v));
	f->v[f->n].i = i;
	f->v[f->n++].kid = kid;
}

struct btf *core_btf_build(const struct btf *local, const struct kbtf *k)
{
	struct builder b = { .local = local, .k = k, .out = btf__new_empty() };
	struct shadow_find f = { 0 };
	uint32_t *lids;
	char **names;
	int *kinds, err = 0;
	size_t n;

	if (!b.out)
		return NULL;
	n = find_shadows(local, &lids, &names, &kinds);
	kbtf_each_composite(k, (const char *const *)names, kinds, n, note_found, &f);
	for (size_t j = 0; j < f.n && !err; j++) {
		int id = emit_composite(&b, lids[f.v[j].i], f.v[j].kid);

		err = id < 0 ? id : 0;
	}
	free(f.v);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(kinds);
	free(lids);
	free(b.done);
	if (err) {
		btf__free(b.out);
		errno = -err;
		return NULL;
	}
	return b.out;
}

struct btf *core_btf_of_object(const void *data, size_t size)
{
	struct btf *btf = NULL;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	elf_version(EV_CURRENT);
	/* libelf only reads the image (ELF_C_READ semantics of elf_memory) */
	elf = elf_memory((char *)(uintptr_t)data, size);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		errno = EPROTO;
		return NULL;
	}
	errno = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".BTF") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		btf = d && d->d_buf ? btf__new(d->d_buf, d->d_size) : NULL;
		break;
	}
	elf_end(elf);
	if (!btf && !errno)
		errno = ENOENT;
	return btf;
}

int core_btf_memfd(const struct btf *btf)
{
	__u32 size;
	const char *raw = btf__raw_data(btf, &size);

	return raw ? core_btf_memfd_raw(raw, size) : -ENOMEM;
}

int core_btf_memfd_raw(const void *data, size_t size)
{
	const char *raw = data;
	int fd = memfd_create("wraith-core-btf", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < size) {
		ssize_t w = write(fd, raw + done, size - done);

		if (w <= 0) {
			int err = w < 0 ? -errno : -EIO;

			close(fd);
			return err;
		}
		done += (size_t)w;
	}
	return fd;
}
