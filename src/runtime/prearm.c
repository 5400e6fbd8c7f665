/* prearm.c - see prearm.h.
 *
 * One queue of uprobes, opened in order by one thread at a time; the
 * thread ends when the queue is drained and the next uprobe_prearm()
 * starts another.  Every field below is under arm.lock.
 */
#include "runtime/prearm.h"
#include "runtime/ulink.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum arm_state { ARM_QUEUED, ARM_OPENED, ARM_TAKEN };

struct armed {
	pid_t pid;
	char *path;
	uint64_t offset;
	int fd; /* -1: the open failed (or not done yet) */
	enum arm_state state;
	bool used; /* an attach took it open */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed; /* an entry opened, or the thread ended */
	struct armed *v;
	size_t n, cap;
	size_t next;      /* the first entry not yet opened */
	bool active;      /* the thread is working through the queue */
	bool joinable;    /* a thread was started and not joined */
	pthread_t thread;
} arm = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

/* The uprobe PMU's type (perf_event_attr.type), -1 without one. */
static int uprobe_pmu_type(void)
{
	static int type = -2;
	char buf[32] = { 0 };
	int fd;
	ssize_t n;

	if (type != -2)
		return type;
	fd = open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	type = n > 0 ? atoi(buf) : -1;
	return type;
}

/* The event libbpf's uprobe attach opens: a uprobe PMU event for the file
 * and offset, on every CPU for @pid, or on CPU 0 for every process. */
static int open_uprobe(int type, pid_t pid, const char *path, uint64_t offset)
{
	struct perf_event_attr attr;
	int fd;

	if (type < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = offset;
	fd = (int)syscall(SYS_perf_event_open, &attr, pid < 0 ? -1 : pid, pid < 0 ? 0 : -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : fd;
}

static void *arm_main(void *unused)
{
	int type = uprobe_pmu_type();

	(void)unused;
	pthread_mutex_lock(&arm.lock);
	while (arm.next < arm.n) {
		size_t i = arm.next++;
		pid_t pid = arm.v[i].pid;
		const char *path = arm.v[i].path; /* stays while the entry is queued */
		uint64_t offset = arm.v[i].offset;
		int fd;

		pthread_mutex_unlock(&arm.lock);
		fd = open_uprobe(type, pid, path, offset);
		pthread_mutex_lock(&arm.lock);
		arm.v[i].fd = fd;
		arm.v[i].state = ARM_OPENED;
		pthread_cond_broadcast(&arm.changed);
	}
	arm.active = false;
	pthread_cond_broadcast(&arm.changed);
	pthread_mutex_unlock(&arm.lock);
	return NULL;
}

void uprobe_prearm(pid_t pid, const char *path, uint64_t file_offset)
{
	struct armed *a;

	if (ulink_multi()) /* a multi-uprobe link registers in microseconds */
		return;
	pthread_mutex_lock(&arm.lock);
	arm.v = xgrow(arm.v, &arm.cap, arm.n + 1, sizeof(*arm.v));
	a = &arm.v[arm.n++];
	a->pid = pid;
	a->path = xstrdup(path);
	a->offset = file_offset;
	a->fd = -1;
	a->state = ARM_QUEUED;
	a->used = false;
	if (arm.active) {
		pthread_mutex_unlock(&arm.lock);
		return;
	}
	pthread_mutex_unlock(&arm.lock);
	/* The last thread has drained the queue and is ending, or never ran. */
	if (arm.joinable)
		pthread_join(arm.thread, NULL);
	arm.joinable = false;
	pthread_mutex_lock(&arm.lock);
	arm.active = thread_start_unsignalled(&arm.thread, arm_main, NULL);
	arm.joinable = arm.active;
	if (!arm.active) /* opened at attach time instead */
		for (; arm.next < arm.n; arm.next++)
			arm.v[arm.next].state = ARM_OPENED;
	pthread_mutex_unlock(&arm.lock);
}

int uprobe_prearmed(pid_t pid, const char *path, uint64_t file_offset)
{
	struct armed *a = NULL;
	int fd = -1;

	pthread_mutex_lock(&arm.lock);
	for (size_t i = 0; i < arm.n && !a; i++)
		if (arm.v[i].state != ARM_TAKEN && arm.v[i].pid == pid &&
		    arm.v[i].offset == file_offset && strcmp(arm.v[i].path, path) == 0)
			a = &arm.v[i];
	if (a) {
		size_t i = (size_t)(a - arm.v);

		while (arm.v[i].state == ARM_QUEUED)
			pthread_cond_wait(&arm.changed, &arm.lock);
		fd = arm.v[i].fd;
		arm.v[i].fd = -1;
		arm.v[i].state = ARM_TAKEN;
		arm.v[i].used = fd >= 0;
	}
	pthread_mutex_unlock(&arm.lock);
	return fd;
}

size_t uprobe_prearm_release(size_t *queued)
{
	size_t taken = 0;

	pthread_mutex_lock(&arm.lock);
	/* What is still queued is not opened any more. */
	for (; arm.next < arm.n; arm.next++)
		arm.v[arm.next].state = ARM_OPENED;
	while (arm.active)
		pthread_cond_wait(&arm.changed, &arm.lock);
	if (queued)
		*queued = arm.n;
	for (size_t i = 0; i < arm.n; i++) {
		taken += arm.v[i].used;
		if (arm.v[i].fd >= 0)
			close(arm.v[i].fd);
		free(arm.v[i].path);
	}
	free(arm.v);
	arm.v = NULL;
	arm.n = arm.cap = arm.next = 0;
	pthread_mutex_unlock(&arm.lock);
	if (arm.joinable)
		pthread_join(arm.thread, NULL);
	arm.joinable = false;
	return taken;
}
