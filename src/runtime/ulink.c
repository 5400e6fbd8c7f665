/* ulink.c - see ulink.h. */
#include "runtime/ulink.h"
#include "protocol/contract.h"
#include "util/log.h"
#include "util/thread.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's values (include/uapi/linux/bpf.h, Linux 6.6); this
 * system's headers may be older. */
#define ULINK_TRACE_UPROBE_MULTI 48u
#define ULINK_CMD_LINK_CREATE 28

/* BPF_LINK_CREATE's attribute for a multi-uprobe link: the common head,
 * then the uprobe_multi member of the union. */
struct ulink_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad;
};

static int link_create(int prog_fd, pid_t pid, const char *path, const uint64_t *offset,
		       const uint64_t *cookie)
{
	struct ulink_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = ULINK_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offset;
	a.cookies = (uint64_t)(uintptr_t)cookie;
	a.cnt = 1;
	a.pid = pid > 0 ? (uint32_t)pid : 0;
	fd = (int)syscall(SYS_bpf, ULINK_CMD_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

/* Whether the kernel makes multi-uprobe links: a program loaded for them
 * and a link to a path that does not exist.  A kernel that has them looks
 * the path up (ENOENT); one that has not refuses the attach type first. */
static bool kernel_has_multi(void)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = (enum bpf_attach_type)ULINK_TRACE_UPROBE_MULTI);
	uint64_t offset = 0, cookie = 0;
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, wr_own_names[WR_OWN_ULINK_CHECK], "GPL", ret0,
				 2, &lo);
	int fd;

	if (prog < 0)
		return false;
	fd = link_create(prog, 0, "/nonexistent/wraith-multi-uprobe-check", &offset, &cookie);
	if (fd >= 0)
		close(fd);
	close(prog);
	return fd == -ENOENT;
}

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static bool multi;

static void decide(void)
{
	const char *want = getenv("WRAITH_UPROBE_LINKS");

	multi = !(want && strcmp(want, "perf") == 0) && kernel_has_multi();
	wr_debug("uprobes: attached as %s", multi ? "multi-uprobe links" : "perf event links");
}

bool ulink_multi(void)
{
	pthread_once(&decided, decide);
	return multi;
}

unsigned ulink_attach_type(void)
{
	return ulink_multi() ? ULINK_TRACE_UPROBE_MULTI : 0;
}

int ulink_attach_multi(int prog_fd, pid_t pid, const char *path, uint64_t file_offset,
		       uint64_t cookie)
{
	return link_create(prog_fd, pid, path, &file_offset, &cookie);
}

static void close_one(struct ulink *l)
{
	if (l->link)
		bpf_link__destroy(l->link);
	else if (l->fd >= 0)
		close(l->fd);
	l->link = NULL;
	l->fd = -1;
}

/* Enough closers for each one's grace periods to be shared by the rest. */
#define CLOSERS 256
#define CLOSER_STACK (64u << 10)

struct closing {
	struct ulink *v;
	size_t n;
	size_t next; /* the next link to close, taken atomically */
};

static void *closer_main(void *arg)
{
	struct closing *c = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->n)
		close_one(&c->v[i]);
	return NULL;
}

void ulink_close_all(struct ulink *v, size_t n)
{
	struct closing c = { .v = v, .n = n, .next = 0 };
	pthread_t threads[CLOSERS];
	size_t helpers = (n < CLOSERS ? n : CLOSERS) - (n > 0), made = 0;

	while (made < helpers &&
	       thread_start_unsignalled_stack(&threads[made], closer_main, &c, CLOSER_STACK))
		made++;
	closer_main(&c); /* this thread too, and alone when no thread was made */
	for (size_t i = 0; i < made; i++)
		pthread_join(threads[i], NULL);
}
