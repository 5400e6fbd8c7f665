/* unwind_maps.c - the kernel's copy of what the unwinder reads (see
 * runtime.h): each module's rows and rules, in maps of their own reached
 * through its slot of two array-of-maps, and each traced process's
 * executable mappings, in a slot of an array the unwinder finds by tgid.
 * The rows themselves are unwind/'s (unwind/cfi.h); the step that reads
 * them is bpf-templates/unwind.bpf.h's.
 */
#include "runtime/runtime.h"
#include "protocol/contract.h"
#include "runtime/runtime_priv.h"
#include "util/error.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint32_t runtime_proc_capacity(const struct runtime *rt)
{
	uint32_t n = rt->opt.max_procs;

	return n && n < WR_MAX_PROCS ? n : WR_MAX_PROCS;
}

/* ---- each module's rows and rules ---- */

/* One array map named @name of exactly @n values, filled through a
 * shared mapping of its memory (far faster than an update per element). */
static int make_filled_array(enum wr_own_name name, const void *values, size_t size, size_t n)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	size_t bytes = size * n, map_len = (bytes + 4095) & ~(size_t)4095;
	void *mem;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, wr_own_names[name], sizeof(__u32), (__u32)size,
			    (__u32)n, &mo);
	if (fd < 0)
		return -errno;
	mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	memcpy(mem, values, bytes);
	munmap(mem, map_len);
	return fd;
}

/* Point @slot of @outer at the map @fd, or empty it (@fd < 0). */
static int put_inner_fd(int outer, uint32_t slot, int fd)
{
	if (fd < 0) {
		bpf_map_delete_elem(outer, &slot);
		return 0;
	}
	return bpf_map_update_elem(outer, &slot, &fd, BPF_ANY) ? -errno : 0;
}

void runtime_cfi_maps_close(int fds[2])
{
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int runtime_cfi_maps_new(const struct wr_cfi_row *rows, size_t n_rows,
			 const struct wr_cfi_rule *rules, size_t n_rules, int fds[2])
{
	fds[0] = fds[1] = -1;
	if (n_rules) {
		fds[0] = make_filled_array(WR_OWN_RULES_MAP, rules, sizeof(*rules), n_rules);
		if (fds[0] < 0)
			return fds[0];
	}
	if (n_rows) {
		fds[1] = make_filled_array(WR_OWN_ROWS_MAP, rows, sizeof(*rows), n_rows);
		if (fds[1] < 0) {
			int err = fds[1];

			fds[1] = -1;
			runtime_cfi_maps_close(fds);
			return err;
		}
	}
	return 0;
}

/* One array of maps whose values are maps shaped like a module's @name
 * maps of @value_size bytes (the template's inner map definition). */
static int make_outer(enum wr_map_id outer, enum wr_own_name inner, __u32 value_size)
{
	LIBBPF_OPTS(bpf_map_create_opts, io, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, oo);
	int fd, ifd = bpf_map_create(BPF_MAP_TYPE_ARRAY, wr_own_names[inner], sizeof(__u32),
				     value_size, 1, &io);

	if (ifd < 0)
		return -errno;
	oo.inner_map_fd = (__u32)ifd;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, wr_map_names[outer], sizeof(__u32),
			    sizeof(__u32), WR_MAX_MODULES, &oo);
	if (fd < 0)
		fd = -errno;
	close(ifd);
	return fd;
}

int runtime_cfi_outer_new(int outer[2])
{
	outer[0] = make_outer(WR_MAP_CFI_RULES, WR_OWN_RULES_MAP, sizeof(struct wr_cfi_rule));
	outer[1] = outer[0] < 0 ? -1 : make_outer(WR_MAP_CFI_ROWS, WR_OWN_ROWS_MAP,
						   sizeof(struct wr_cfi_row));
	if (outer[1] < 0) {
		int err = outer[0] < 0 ? outer[0] : outer[1];

		outer[1] = -1;
		runtime_cfi_maps_close(outer);
		return err;
	}
	return 0;
}

/* One outer map's share of runtime_put_cfi_maps_at(). */
struct outer_put {
	int outer, which;
	const struct rt_cfi_put *v;
	size_t n;
	int err;
	pthread_t thread;
};

/* The kernel waits for a grace period after every write into an array
 * of maps (synchronize_rcu(), 5-20 ms here), but once a batch: one
 * batch, then the maps the batch did not take one by one (a kernel
 * without batches on arrays of maps). */
static void *outer_put_main(void *arg)
{
	struct outer_put *op = arg;
	__u32 *keys = xmalloc((op->n ? op->n : 1) * sizeof(*keys));
	int *vals = xmalloc((op->n ? op->n : 1) * sizeof(*vals));
	__u32 k = 0, done;
	LIBBPF_OPTS(bpf_map_batch_opts, bo);

	for (size_t i = 0; i < op->n; i++) {
		if (op->v[i].fds[op->which] < 0)
			continue;
		keys[k] = op->v[i].slot;
		vals[k++] = op->v[i].fds[op->which];
	}
	done = k;
	if (k && bpf_map_update_batch(op->outer, keys, vals, &done, &bo))
		done = 0;
	for (__u32 i = done; i < k && !op->err; i++)
		op->err = put_inner_fd(op->outer, keys[i], vals[i]);
	/* A module without rules or rows leaves its slot empty. */
	for (size_t i = 0; i < op->n; i++)
		if (op->v[i].fds[op->which] < 0)
			put_inner_fd(op->outer, op->v[i].slot, -1);
	free(keys);
	free(vals);
	return NULL;
}

int runtime_put_cfi_maps_at(const int outer[2], const struct rt_cfi_put *v, size_t n)
{
	struct outer_put op[2];
	bool threaded;

	for (size_t i = 0; i < n; i++)
		if (v[i].slot >= WR_MAX_MODULES)
			return -WR_ELIMIT;
	for (int w = 0; w < 2; w++)
		op[w] = (struct outer_put){ .outer = outer[w], .which = w, .v = v, .n = n };
	/* The two grace periods side by side. */
	threaded = thread_start_unsignalled(&op[0].thread, outer_put_main, &op[0]);
	if (!threaded)
		outer_put_main(&op[0]);
	outer_put_main(&op[1]);
	if (threaded)
		pthread_join(op[0].thread, NULL);
	return op[0].err ? op[0].err : op[1].err;
}

int runtime_put_cfi_maps(struct runtime *rt, const struct rt_cfi_put *v, size_t n)
{
	int outer[2] = { rt->rules_outer_fd, rt->rows_outer_fd };
	int err = runtime_put_cfi_maps_at(outer, v, n);

	if (err)
		wr_error("storing unwind rows in the kernel: %s", wr_strerror(err));
	return err;
}

int runtime_put_module_cfi(struct runtime *rt, uint32_t slot, const struct wr_cfi_row *rows,
			   size_t n_rows, const struct wr_cfi_rule *rules, size_t n_rules)
{
	struct rt_cfi_put put = { .slot = slot };
	int err = runtime_cfi_maps_new(rows, n_rows, rules, n_rules, put.fds);

	if (err) {
		wr_error("storing unwind rows in the kernel: %s", wr_strerror(err));
		return err;
	}
	err = runtime_put_cfi_maps(rt, &put, 1);
	runtime_cfi_maps_close(put.fds); /* the outer maps hold their own references */
	return err;
}

/* ---- each process's mappings ---- */

/* The slot of @tgid, a free one when it has none (@add), or -1. */
static int proc_slot(struct runtime *rt, uint32_t tgid, bool add)
{
	int free_slot = -1;

	for (int i = 0; i < (int)runtime_proc_capacity(rt); i++) {
		if (rt->proc_slot_tgid[i] == tgid)
			return i;
		if (!rt->proc_slot_tgid[i] && free_slot < 0)
			free_slot = i;
	}
	return add ? free_slot : -1;
}

int runtime_put_proc_maps(struct runtime *rt, uint32_t tgid, const struct wr_proc_maps *pm)
{
	int slot = proc_slot(rt, tgid, true);
	struct wr_proc_maps *own;
	uint32_t key;
	int err = 0;

	if (slot < 0)
		return -WR_ELIMIT;
	key = (uint32_t)slot;
	/* The slot names its process (the unwinder takes a slot that names
	 * the event's process without asking the hash), and is filled
	 * before the process is pointed at it. */
	own = xmalloc(sizeof(*own));
	*own = *pm;
	own->tgid = tgid;
	own->reserved = 0;
	if (bpf_map_update_elem(rt->proc_maps_fd, &key, own, BPF_ANY) ||
	    bpf_map_update_elem(rt->proc_slot_fd, &tgid, &key, BPF_ANY))
		err = -errno;
	else
		rt->proc_slot_tgid[slot] = tgid;
	free(own);
	return err;
}

int runtime_del_proc_maps(struct runtime *rt, uint32_t tgid)
{
	int slot = proc_slot(rt, tgid, false);
	struct wr_proc_maps *none;
	uint32_t key = (uint32_t)slot;
	int err = 0;

	if (slot < 0)
		return 0;
	if (bpf_map_delete_elem(rt->proc_slot_fd, &tgid) && errno != ENOENT)
		return -errno;
	/* Emptied, so that it no longer names the process: a new process
	 * given the same pid must not find the old one's mappings here. */
	none = xcalloc(1, sizeof(*none));
	if (bpf_map_update_elem(rt->proc_maps_fd, &key, none, BPF_ANY))
		err = -errno;
	free(none);
	rt->proc_slot_tgid[slot] = 0;
	return err;
}
