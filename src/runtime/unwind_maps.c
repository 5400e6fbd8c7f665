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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
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

int runtime_put_module_cfi_maps(struct runtime *rt, uint32_t slot, const int fds[2])
{
	int err;

	if (slot >= WR_MAX_MODULES)
		return -WR_ELIMIT;
	err = put_inner_fd(rt->rules_outer_fd, slot, fds[0]);
	if (!err)
		err = put_inner_fd(rt->rows_outer_fd, slot, fds[1]);
	if (err)
		wr_error("storing unwind rows in the kernel: %s", wr_strerror(err));
	return err;
}

int runtime_put_module_cfi(struct runtime *rt, uint32_t slot, const struct wr_cfi_row *rows,
			   size_t n_rows, const struct wr_cfi_rule *rules, size_t n_rules)
{
	int fds[2], err;

	if (slot >= WR_MAX_MODULES)
		return -WR_ELIMIT;
	err = runtime_cfi_maps_new(rows, n_rows, rules, n_rules, fds);
	if (err) {
		wr_error("storing unwind rows in the kernel: %s", wr_strerror(err));
		return err;
	}
	err = runtime_put_module_cfi_maps(rt, slot, fds);
	runtime_cfi_maps_close(fds); /* the outer maps hold their own references */
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
	uint32_t key;

	if (slot < 0)
		return -WR_ELIMIT;
	key = (uint32_t)slot;
	/* The slot is filled before the process is pointed at it. */
	if (bpf_map_update_elem(rt->proc_maps_fd, &key, pm, BPF_ANY) ||
	    bpf_map_update_elem(rt->proc_slot_fd, &tgid, &key, BPF_ANY))
		return -errno;
	rt->proc_slot_tgid[slot] = tgid;
	return 0;
}

int runtime_del_proc_maps(struct runtime *rt, uint32_t tgid)
{
	int slot = proc_slot(rt, tgid, false);

	if (slot < 0)
		return 0;
	if (bpf_map_delete_elem(rt->proc_slot_fd, &tgid) && errno != ENOENT)
		return -errno;
	rt->proc_slot_tgid[slot] = 0;
	return 0;
}
