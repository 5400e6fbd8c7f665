/* members.c - -t PATH: the target's processes as the kernel keeps them
 * (bpf-templates/members.bpf.h): the file watched, the tracepoints that
 * keep the set attached, and processes put in and taken out, as bits of
 * the map mapped into our memory (no system call a process).  The links
 * and the mapping belong to struct runtime and go with runtime_free().
 */
#include "runtime/runtime.h"
#include "protocol/contract.h"
#include "runtime/runtime_priv.h"
#include "util/error.h"
#include "util/file.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

static const struct {
	enum wr_program_id prog;
	const char *tracepoint;
} watchers[3] = {
	{ WR_PROG_MEMBER_FORK, "sched_process_fork" },
	{ WR_PROG_MEMBER_EXIT, "sched_process_exit" },
	{ WR_PROG_MEMBER_EXEC, "sched_process_exec" },
};

size_t rt_member_words(void)
{
	char *text = NULL;
	long pid_max = 0;

	if (file_read("/proc/sys/kernel/pid_max", &text, NULL) == 0)
		pid_max = atol(text);
	free(text);
	if (pid_max <= 0 || (unsigned long)pid_max > WR_MEMBER_WORDS * 64ul)
		return WR_MEMBER_WORDS;
	return ((size_t)pid_max + 63) / 64;
}

static int map_members(struct runtime *rt)
{
	void *mem;

	if (rt->members)
		return 0;
	mem = mmap(NULL, rt->member_words * sizeof(*rt->members), PROT_READ | PROT_WRITE, MAP_SHARED,
		   rt_map_fd(rt, WR_MAP_MEMBERS), 0);
	if (mem == MAP_FAILED)
		return -errno;
	rt->members = mem;
	return 0;
}

int runtime_watch_members(struct runtime *rt, uint64_t dev, uint64_t ino, bool exec)
{
	struct wr_member_watch w = {
		.ino = ino, .dev = (__u32)(major(dev) << 20 | minor(dev)), .exec = exec,
	};
	__u32 zero = 0;
	int fd = rt_map_fd(rt, WR_MAP_WATCH), err = rt->opt.members ? 0 : -EINVAL;

	if (!err && (fd < 0 || bpf_map_update_elem(fd, &zero, &w, BPF_ANY)))
		err = fd < 0 ? -ENOENT : -errno;
	if (!err)
		err = map_members(rt);
	if (err)
		return rt_kernel_error(err, "watching the target's processes");
	for (size_t i = 0; i < (exec ? 3u : 2u); i++) {
		struct bpf_program *p = rt_base_program(rt, watchers[i].prog);
		struct bpf_link *l = NULL;

		if (rt->member_links[i])
			continue;
		l = p ? bpf_program__attach_raw_tracepoint(p, watchers[i].tracepoint) : NULL;
		if (!l)
			return rt_kernel_error(p ? -errno : -ENOENT, "attaching the tracepoints that "
					       "follow the target's processes");
		rt->member_links[i] = l;
	}
	return 0;
}

/* Set or clear the bit of @tgid; another CPU may change the word's other
 * bits at the same time. */
static int set_member(struct runtime *rt, uint32_t tgid, bool on)
{
	uint64_t bit = 1ull << (tgid & 63);

	if (!rt->members || tgid / 64 >= rt->member_words)
		return -ENOENT;
	if (on)
		__atomic_fetch_or(&rt->members[tgid / 64], bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&rt->members[tgid / 64], ~bit, __ATOMIC_RELAXED);
	return 0;
}

int runtime_put_member(struct runtime *rt, uint32_t tgid)
{
	return set_member(rt, tgid, true);
}

int runtime_del_member(struct runtime *rt, uint32_t tgid)
{
	return set_member(rt, tgid, false);
}
