/* members.c - -t PATH: the target's processes as the kernel keeps them
 * (bpf-templates/members.bpf.h): the file watched, the tracepoints that
 * keep the set attached, and processes put in and taken out.  The links
 * belong to struct runtime and go with runtime_free().
 */
#include "runtime/runtime.h"
#include "protocol/contract.h"
#include "runtime/runtime_priv.h"
#include "util/error.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sys/sysmacros.h>

static const struct {
	enum wr_program_id prog;
	const char *tracepoint;
} watchers[3] = {
	{ WR_PROG_MEMBER_FORK, "sched_process_fork" },
	{ WR_PROG_MEMBER_EXIT, "sched_process_exit" },
	{ WR_PROG_MEMBER_EXEC, "sched_process_exec" },
};

int runtime_watch_members(struct runtime *rt, uint64_t dev, uint64_t ino, bool exec)
{
	struct wr_member_watch w = {
		.ino = ino, .dev = (__u32)(major(dev) << 20 | minor(dev)), .exec = exec,
	};
	__u32 zero = 0;
	int fd = rt_map_fd(rt, WR_MAP_WATCH);

	if (!rt->opt.members)
		return rt_kernel_error(-EINVAL, "watching the target's processes");
	if (fd < 0 || bpf_map_update_elem(fd, &zero, &w, BPF_ANY))
		return rt_kernel_error(fd < 0 ? -ENOENT : -errno, "watching the target's processes");
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

int runtime_put_member(struct runtime *rt, uint32_t tgid)
{
	__u32 one = 1;
	int fd = rt_map_fd(rt, WR_MAP_MEMBERS);

	if (fd < 0)
		return -ENOENT;
	return bpf_map_update_elem(fd, &tgid, &one, BPF_ANY) ? -errno : 0;
}

int runtime_del_member(struct runtime *rt, uint32_t tgid)
{
	int fd = rt_map_fd(rt, WR_MAP_MEMBERS);

	if (fd < 0)
		return -ENOENT;
	return bpf_map_delete_elem(fd, &tgid) && errno != ENOENT ? -errno : 0;
}
