/* probes.c - probe objects and their uprobes: each object the code
 * generator made, opened with the base object's maps in place of its own,
 * verified and loaded once however many probes share its bytes, attached
 * once per site with the probe's cookie (a multi-uprobe link, or a perf
 * event link taking over the uprobe registered early, prearm.h), links
 * closed together (ulink.h), and the start gate that lets a script's
 * probes run from one instant.
 */
#include "runtime/runtime.h"
#include "runtime/prearm.h"
#include "runtime/runtime_priv.h"
#include "runtime/ulink.h"
#include "runtime/uprobe_insn.h"
#include "util/error.h"
#include "util/log.h"
#include "util/xalloc.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A loaded probe object, shared by every probe whose object has the same
 * bytes (the code generator gives probes of one shape the same object):
 * loaded and verified once, attached once per probe with its cookie. */
struct rt_object {
	struct bpf_object *obj;
	struct bpf_program *prog;
	void *bytes;             /* owned copy of the ELF object, to compare */
	size_t size;
	unsigned refs;
	struct rt_object *next;
};

struct rt_probe {
	struct rt_object *o;
	uint64_t cookie;         /* the probe's wire id, as its programs read it */
	bool site_entry;         /* wrote the entry of its wire id in wr_site_params */
	struct ulink *links;     /* owned */
	size_t n_links;
	size_t cap_links;
	struct rt_probe *next;
};

static int reuse_maps(struct runtime *rt, struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		struct bpf_map *base = bpf_object__find_map_by_name(rt->base, bpf_map__name(map));
		int fd = base ? bpf_map__fd(base) : -1;

		if (fd < 0)
			continue; /* an internal map of the probe itself */
		if (bpf_map__reuse_fd(map, fd))
			return -errno;
	}
	return 0;
}

static int load_probe_object(struct runtime *rt, struct rt_object *o, char *log, char **why)
{
	int err = reuse_maps(rt, o->obj);

	if (err)
		return rt_kernel_error(err, "sharing the maps with a probe");
	o->prog = bpf_object__next_program(o->obj, NULL);
	if (!o->prog)
		return rt_kernel_error(-ENOENT, "finding the probe program");
	bpf_program__set_type(o->prog, BPF_PROG_TYPE_KPROBE);
	bpf_program__set_expected_attach_type(o->prog, (enum bpf_attach_type)ulink_attach_type());
	/* --fault-in: the program was generated for this (no tail call, no
	 * perf event array, bpf_copy_from_user on failed reads). */
	if (rt->opt.fault_in)
		bpf_program__set_flags(o->prog, bpf_program__flags(o->prog) | BPF_F_SLEEPABLE);
	bpf_program__set_log_buf(o->prog, log, VERIFIER_LOG_SIZE);
	log[0] = '\0';
	err = bpf_object__load(o->obj);
	if (!err)
		return 0;
	if (log[0]) {
		wr_debug("verifier log for %s:\n%s", bpf_program__name(o->prog), log);
		if (why)
			*why = rt_verifier_reason(log);
		return -WR_EVERIFIER;
	}
	return rt_kernel_error(err, "loading a probe");
}

static struct rt_object *find_object(struct runtime *rt, const struct bpf_blob *obj)
{
	for (struct rt_object *o = rt->objects; o; o = o->next)
		if (o->size == obj->size && memcmp(o->bytes, obj->data, obj->size) == 0)
			return o;
	return NULL;
}

static void put_object(struct runtime *rt, struct rt_object *o)
{
	struct rt_object **pp;

	if (!o || --o->refs)
		return;
	for (pp = &rt->objects; *pp; pp = &(*pp)->next) {
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	}
	bpf_object__close(o->obj);
	free(o->bytes);
	free(o);
}

/* The loaded object with @obj's bytes: one already loaded, or a new one. */
static int get_object(struct runtime *rt, const struct bpf_blob *obj, struct rt_object **out,
		      char **why)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "wraith_probe");
	struct rt_object *o = find_object(rt, obj);
	char *log;
	int err;

	if (o) {
		o->refs++;
		*out = o;
		return 0;
	}
	o = xcalloc(1, sizeof(*o));
	o->obj = bpf_object__open_mem(obj->data, obj->size, &oo);
	if (!o->obj) {
		err = rt_kernel_error(-errno, "opening a probe object");
		free(o);
		return err;
	}
	log = xmalloc(VERIFIER_LOG_SIZE);
	err = load_probe_object(rt, o, log, why);
	free(log);
	if (err) {
		bpf_object__close(o->obj);
		free(o);
		return err;
	}
	o->bytes = xmalloc(obj->size);
	memcpy(o->bytes, obj->data, obj->size);
	o->size = obj->size;
	o->refs = 1;
	o->next = rt->objects;
	rt->objects = o;
	*out = o;
	return 0;
}

/* The entry of @cookie's wire id in wr_site_params: @n values of @v with
 * the id that marks it written, or (@v NULL) cleared. */
static int put_site_params(struct runtime *rt, uint64_t cookie, const uint64_t *v, unsigned n)
{
	struct wr_site_params e = { 0 };
	__u32 id = (__u32)cookie;

	if (v) {
		e.id = id | WR_SITE_VALID;
		memcpy(e.v, v, (n < WR_SITE_PARAMS ? n : WR_SITE_PARAMS) * sizeof(*v));
	}
	if (bpf_map_update_elem(rt_map_fd(rt, WR_MAP_SITE_PARAMS), &id, &e, BPF_ANY))
		return rt_kernel_error(-errno, "writing a probe site's data");
	return 0;
}

int runtime_load_probe(struct runtime *rt, const struct bpf_blob *obj, uint64_t cookie,
		       struct rt_probe **out, char **why)
{
	struct rt_probe *p = xcalloc(1, sizeof(*p));
	int err;

	*out = NULL;
	if (why)
		*why = NULL;
	err = get_object(rt, obj, &p->o, why);
	if (!err && obj->site_table) {
		static const uint64_t none;

		err = put_site_params(rt, cookie, obj->site_params ? obj->site_params : &none,
				      obj->n_site_params);
		if (err)
			put_object(rt, p->o);
		p->site_entry = !err;
	}
	if (err) {
		free(p);
		return err;
	}
	p->cookie = cookie;
	p->next = rt->probes;
	rt->probes = p;
	*out = p;
	return 0;
}

/* A perf event link of @p at the site, on the uprobe registered while
 * the probe compiled (prearm.h) if there is one: the link owns its fd
 * from here on.  NULL with errno set when it fails. */
static struct bpf_link *attach_perf(struct rt_probe *p, pid_t pid, const char *path,
				    uint64_t file_offset)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = false, .bpf_cookie = p->cookie);
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = p->cookie);
	int armed = uprobe_prearmed(pid, path, file_offset);
	struct bpf_link *link = NULL;

	if (armed >= 0) {
		link = bpf_program__attach_perf_event_opts(p->o->prog, armed, &po);
		if (!link)
			close(armed);
	}
	if (!link)
		link = bpf_program__attach_uprobe_opts(p->o->prog, pid, path, (size_t)file_offset,
						       &uo);
	return link;
}

int runtime_attach(struct runtime *rt, struct rt_probe *p, pid_t pid, const char *path,
		   uint64_t file_offset)
{
	struct ulink l = { .link = NULL, .fd = -1 };
	int err = 0;

	(void)rt;
	if (ulink_multi()) {
		l.fd = ulink_attach_multi(bpf_program__fd(p->o->prog), pid, path, file_offset,
					 p->cookie);
		err = l.fd < 0 ? l.fd : 0;
	} else {
		l.link = attach_perf(p, pid, path, file_offset);
		err = l.link ? 0 : -errno;
	}
	if (err) {
		if (err == -EPERM || err == -EACCES)
			return rt_kernel_error(err, "attaching a uprobe");
		if (uprobe_insn_error(err))
			return err;
		wr_error("attaching a uprobe to %s at file offset 0x%llx: %s", path,
			 (unsigned long long)file_offset, wr_strerror(err));
		return -WR_EATTACH;
	}
	p->links = xgrow(p->links, &p->cap_links, p->n_links + 1, sizeof(*p->links));
	p->links[p->n_links++] = l;
	return 0;
}

void runtime_detach(struct runtime *rt, struct rt_probe *p)
{
	if (!p || !p->n_links)
		return; /* p->links may be NULL: no memcpy() from it */
	rt->closing = xgrow(rt->closing, &rt->cap_closing, rt->n_closing + p->n_links,
			    sizeof(*rt->closing));
	memcpy(rt->closing + rt->n_closing, p->links, p->n_links * sizeof(*p->links));
	rt->n_closing += p->n_links;
	p->n_links = 0;
}

void runtime_settle(struct runtime *rt)
{
	if (!rt || !rt->n_closing)
		return;
	ulink_close_all(rt->closing, rt->n_closing);
	rt->n_closing = 0;
}

void runtime_unload(struct runtime *rt, struct rt_probe *p)
{
	struct rt_probe **pp;

	if (!p)
		return;
	runtime_detach(rt, p);
	for (pp = &rt->probes; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	free(p->links);
	if (p->site_entry)
		put_site_params(rt, p->cookie, NULL, 0);
	put_object(rt, p->o);
	free(p);
}

/* ---- the start gate ---- */

void runtime_gate_set(struct runtime *rt, uint32_t id, uint32_t script)
{
	if (id && id < WR_MAX_PROBES)
		__atomic_store_n(&rt->gate[id], script, __ATOMIC_RELEASE);
}

void runtime_gate_arm(struct runtime *rt, uint32_t script)
{
	__atomic_store_n(&rt->gate[0], script, __ATOMIC_RELEASE);
}

/* ---- outer frames' recipes ---- */

/* wr_outer_slots, mapped on first need (a session without frame values
 * writes none). */
static struct wr_outer_recipe *outer_slots(struct runtime *rt)
{
	void *mem;

	if (rt->outer_slots)
		return rt->outer_slots;
	mem = mmap(NULL, WR_OUTER_SLOTS * sizeof(struct wr_outer_recipe), PROT_READ | PROT_WRITE, MAP_SHARED,
		   rt_map_fd(rt, WR_MAP_OUTER_SLOTS), 0);
	rt->outer_slots = mem == MAP_FAILED ? NULL : mem;
	return rt->outer_slots;
}

/* Slot @dst holds @chain's recipe @r already. */
static bool outer_same(const struct wr_outer_recipe *dst, uint64_t chain, const struct wr_outer_recipe *r)
{
	return !(__atomic_load_n(&dst->seq, __ATOMIC_RELAXED) & 1) && dst->chain == chain &&
	       dst->n_roots == r->n_roots && !memcmp(dst->roots, r->roots, sizeof(r->roots)) &&
	       !memcmp(dst->ops, r->ops, sizeof(r->ops));
}

int runtime_outer_recipe_put(struct runtime *rt, uint32_t slot, uint64_t chain, const struct wr_outer_recipe *r)
{
	struct wr_outer_recipe *mem = outer_slots(rt), *dst;
	__u32 seq;

	if (!mem)
		return -errno;
	if (slot >= WR_OUTER_SLOTS)
		return -EINVAL;
	dst = &mem[slot];
	if (!outer_same(dst, chain, r)) {
		/* a seqlock: a probe that reads the slot meanwhile sees an odd
		 * or another number after its copy, and takes nothing (x86's
		 * stores are seen in order: the fences only keep the compiler's) */
		seq = __atomic_load_n(&dst->seq, __ATOMIC_RELAXED);
		__atomic_store_n(&dst->seq, seq | 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		dst->n_roots = r->n_roots;
		dst->chain = chain;
		memcpy(dst->roots, r->roots, sizeof(r->roots));
		memcpy(dst->ops, r->ops, sizeof(r->ops));
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&dst->seq, (seq | 1) + 1, __ATOMIC_RELAXED);
	}
	return bpf_map_update_elem(rt_map_fd(rt, WR_MAP_OUTER_INDEX), &chain, &slot, BPF_ANY) ? -errno : 0;
}

bool runtime_outer_recipe_holds(struct runtime *rt, uint32_t slot, uint64_t chain, const struct wr_outer_recipe *r)
{
	struct wr_outer_recipe *mem = outer_slots(rt);

	return mem && slot < WR_OUTER_SLOTS && outer_same(&mem[slot], chain, r);
}

int runtime_outer_recipe_del(struct runtime *rt, uint64_t chain)
{
	return bpf_map_delete_elem(rt_map_fd(rt, WR_MAP_OUTER_INDEX), &chain) ? -errno : 0;
}

int runtime_gate_get(struct runtime *rt, uint32_t id, uint64_t *out)
{
	return bpf_map_lookup_elem(rt_map_fd(rt, WR_MAP_GATE), &id, out) ? -errno : 0;
}

