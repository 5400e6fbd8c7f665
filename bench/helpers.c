/* helpers.c - loads bench/helpers.bpf.o for multi-uprobe links (as
 * wraith's probes are attached) and serves bench/helpers.py, one command
 * a line on stdin, one answer a line on stdout:
 *   attach PROG PATH OFFSET PID  attach program PROG at file offset OFFSET
 *                                (hex) of PATH in process PID: "ok" or
 *                                "err ERRNO"
 *   detach                       detach it: "ok"
 *   stats PROG                   "RUN_CNT RUN_TIME_NS" of the program
 * A thread consumes the ring buffer all along, as wraith's reader does, so
 * the programs that send find room and pay for a ring being read. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's values (Linux 6.6 and later); the system's headers may be
 * older, like libbpf 1.1 which has no wrapper for these links. */
#define TRACE_UPROBE_MULTI 48u
#define CMD_LINK_CREATE 28

struct multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, multi_flags, pid, pad;
};

static int link_multi(int prog_fd, int pid, const char *path, uint64_t offset)
{
	uint64_t cookie = (uint64_t)pid << 32 | 1;
	struct multi_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)&offset;
	a.cookies = (uint64_t)(uintptr_t)&cookie;
	a.cnt = 1;
	a.pid = (uint32_t)pid;
	return (int)syscall(SYS_bpf, CMD_LINK_CREATE, &a, sizeof(a));
}

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* The programs send without waking the reader: it looks every 5 ms. */
static void *consume(void *arg)
{
	struct ring_buffer *rb = arg;

	for (;;) {
		ring_buffer__poll(rb, 5);
		ring_buffer__consume(rb);
	}
	return NULL;
}

static int prog_fd(struct bpf_object *o, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(o, name);

	return p ? bpf_program__fd(p) : -1;
}

static void serve(struct bpf_object *o)
{
	char line[512], name[128], path[256];
	unsigned long long off;
	int link = -1, pid;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "attach %127s %255s %llx %d", name, path, &off, &pid) == 4) {
			link = link_multi(prog_fd(o, name), pid, path, off);
			if (link >= 0)
				printf("ok\n");
			else
				printf("err %d\n", errno);
		} else if (strncmp(line, "detach", 6) == 0) {
			if (link >= 0)
				close(link);
			link = -1;
			printf("ok\n");
		} else if (sscanf(line, "stats %127s", name) == 1) {
			struct bpf_prog_info info;
			__u32 len = sizeof(info);

			memset(&info, 0, sizeof(info));
			bpf_obj_get_info_by_fd(prog_fd(o, name), &info, &len);
			printf("%llu %llu\n", (unsigned long long)info.run_cnt,
			       (unsigned long long)info.run_time_ns);
		} else {
			printf("err %d\n", EINVAL);
		}
	}
}

int main(int argc, char **argv)
{
	struct bpf_object *o;
	struct bpf_program *p;
	struct ring_buffer *rb;
	pthread_t t;
	int key = 0, callee;

	if (argc != 2) {
		fprintf(stderr, "usage: %s helpers.bpf.o\n", argv[0]);
		return 2;
	}
	o = bpf_object__open_file(argv[1], NULL);
	if (!o)
		return 1;
	bpf_object__for_each_program(p, o)
		bpf_program__set_expected_attach_type(p, (enum bpf_attach_type)TRACE_UPROBE_MULTI);
	/* One event buffer per possible CPU. */
	bpf_map__set_max_entries(bpf_object__find_map_by_name(o, "bufs"),
				 (__u32)libbpf_num_possible_cpus());
	if (bpf_object__load(o)) {
		fprintf(stderr, "helpers: loading %s failed\n", argv[1]);
		return 1;
	}
	callee = prog_fd(o, "tail_callee");
	bpf_map_update_elem(bpf_object__find_map_fd_by_name(o, "progs"), &key, &callee, BPF_ANY);
	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(o, "ring"), on_event, NULL, NULL);
	if (!rb || pthread_create(&t, NULL, consume, rb))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	serve(o);
	return 0;
}
