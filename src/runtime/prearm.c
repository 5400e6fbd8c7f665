/* prearm.c - see prearm.h. */
#include "runtime/prearm.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	bool started;   /* once a process: the first uprobe is the one that waits */
	bool running;   /* the thread is to be joined */
	pthread_t thread;
	pid_t pid;
	char *path;
	uint64_t offset;
	int fd;
} arm = { .fd = -1 };

/* The uprobe PMU's type (perf_event_attr.type), -1 without one. */
static int uprobe_pmu_type(void)
{
	char buf[32] = { 0 };
	int fd = open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* The event libbpf's uprobe attach opens: a uprobe PMU event for the file
 * and offset, on every CPU for @pid, or on CPU 0 for every process. */
static void *arm_main(void *unused)
{
	struct perf_event_attr attr;
	int type = uprobe_pmu_type();

	(void)unused;
	if (type < 0)
		return NULL;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)arm.path;
	attr.config2 = arm.offset;
	arm.fd = (int)syscall(SYS_perf_event_open, &attr, arm.pid < 0 ? -1 : arm.pid,
			      arm.pid < 0 ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (arm.fd < 0)
		arm.fd = -1;
	return NULL;
}

static void arm_join(void)
{
	if (arm.running)
		pthread_join(arm.thread, NULL);
	arm.running = false;
}

bool uprobe_prearm(pid_t pid, const char *path, uint64_t file_offset)
{
	if (arm.started)
		return false;
	arm.started = true;
	arm.pid = pid;
	arm.path = xstrdup(path);
	arm.offset = file_offset;
	arm.running = thread_start_unsignalled(&arm.thread, arm_main, NULL);
	return arm.running;
}

int uprobe_prearmed(pid_t pid, const char *path, uint64_t file_offset)
{
	int fd;

	if (!arm.path || arm.pid != pid || arm.offset != file_offset || strcmp(arm.path, path))
		return -1;
	arm_join();
	fd = arm.fd;
	arm.fd = -1;
	free(arm.path);
	arm.path = NULL;
	return fd;
}

void uprobe_prearm_release(void)
{
	arm_join();
	if (arm.fd >= 0)
		close(arm.fd);
	arm.fd = -1;
	free(arm.path);
	arm.path = NULL;
}
