/* reader.c - the event reader: the ring buffer (or one perf buffer per
 * CPU) the probes send their events through, read in bounded batches,
 * behind one descriptor with a tick timer for front ends, and the ring's
 * warm-up (see rt_reader_plan_warmup()).
 */
#include "protocol/contract.h"
#include "runtime/runtime.h"
#include "runtime/runtime_priv.h"
#include "util/clock.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* One poll hands over at most this many events, or for at most this long,
 * then returns: libbpf's ring-buffer poll reads until the ring is empty,
 * which never happens when events arrive as fast as they are read (wraith
 * tracing its own malloc with -t libc, or events whose `bt full` takes
 * longer to show than the hits take to come), and the caller must get to
 * check signals and timeouts.  (A perf buffer poll is bounded already: it
 * reads each CPU's buffer up to where its head was when it started.) */
#define POLL_BATCH 4096
#define POLL_SECONDS 0.1
#define POLL_BATCH_DONE (-ECANCELED) /* from the callback: stop here */

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct runtime *rt = ctx;

	if (rt->fn)
		rt->fn(data, size, rt->fn_ctx);
	/* the record is consumed either way; a negative return stops the poll */
	return ++rt->polled >= POLL_BATCH || now_seconds() >= rt->poll_until ? POLL_BATCH_DONE : 0;
}

/* The perf buffer's records, read raw: libbpf's plain reader asks the
 * kernel for a wakeup per sample, the raw one lets us set a watermark. */
struct perf_sample_rec {
	struct perf_event_header header;
	__u32 size;
	char data[];
};

struct perf_lost_rec {
	struct perf_event_header header;
	__u64 id;
	__u64 lost;
};

static enum bpf_perf_event_ret on_perf_record(void *ctx, int cpu, struct perf_event_header *ev)
{
	struct runtime *rt = ctx;

	(void)cpu;
	if (ev->type == PERF_RECORD_SAMPLE && rt->fn) {
		struct perf_sample_rec *s = (struct perf_sample_rec *)ev;

		rt->fn(s->data, s->size, rt->fn_ctx);
	} else if (ev->type == PERF_RECORD_LOST) {
		rt->perf_lost += ((struct perf_lost_rec *)ev)->lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

static uint64_t round_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (1ull << 62))
		p <<= 1;
	return p;
}

uint64_t runtime_default_buffer(void)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t bytes = (uint64_t)(ncpu > 0 ? ncpu : 1) * (4u << 20);

	if (bytes < (8u << 20))
		bytes = 8u << 20;
	return bytes > (256u << 20) ? 256u << 20 : bytes;
}

/* Pages per CPU of the perf buffer: a power of two, at least 8. */
static size_t perf_pages(const struct rt_options *opt)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t bytes = opt->buffer_bytes ? opt->buffer_bytes : runtime_default_buffer();
	uint64_t pages = bytes / (uint64_t)(ncpu > 0 ? ncpu : 1) / 4096, p = 8;

	while (p * 2 <= pages)
		p *= 2;
	return (size_t)p;
}

uint64_t runtime_buffer_bytes(const struct rt_options *opt)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t bytes = opt->buffer_bytes ? opt->buffer_bytes : runtime_default_buffer();

	if (opt->transport == WR_TRANSPORT_PERF)
		return (uint64_t)perf_pages(opt) * 4096 * (uint64_t)(ncpu > 0 ? ncpu : 1);
	bytes = round_pow2(bytes < 4096 ? 4096 : bytes);
	return bytes > (1ull << 31) ? 1ull << 31 : bytes;
}

static int open_perf_reader(struct runtime *rt)
{
	size_t pages = perf_pages(&rt->opt);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW, .sample_period = 1, .size = sizeof(attr),
		.watermark = 1, .wakeup_watermark = (__u32)(pages * 4096 / WR_RING_WAKE_DIVISOR),
	};

	rt->perfbuf = perf_buffer__new_raw(rt_map_fd(rt, WR_MAP_PERFBUF), pages, &attr,
					   on_perf_record, rt, NULL);
	if (!rt->perfbuf)
		return rt_kernel_error(-errno, "opening the perf buffer");
	return 0;
}

/* One descriptor for front ends: the reader's, and a timer that ticks
 * every WR_POLL_TICK_MS so what arrived below the wakeup mark is read. */
static int open_wakeups(struct runtime *rt)
{
	struct itimerspec its = { { 0, WR_POLL_TICK_MS * 1000000L }, { 0, WR_POLL_TICK_MS * 1000000L } };
	struct epoll_event ev = { .events = EPOLLIN };
	int reader = rt->ringbuf ? ring_buffer__epoll_fd(rt->ringbuf)
				 : perf_buffer__epoll_fd(rt->perfbuf);

	rt->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	rt->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (rt->epoll_fd < 0 || rt->timer_fd < 0 || timerfd_settime(rt->timer_fd, 0, &its, NULL) ||
	    epoll_ctl(rt->epoll_fd, EPOLL_CTL_ADD, reader, &ev) ||
	    epoll_ctl(rt->epoll_fd, EPOLL_CTL_ADD, rt->timer_fd, &ev))
		return rt_kernel_error(-errno, "setting up the event reader");
	return 0;
}

/* Write every page of the ring once (see wr_ring_warm in the template).
 * On a virtual machine whose host backs guest memory on its first write,
 * each page of a new ring costs about 12 us the first time an event lands
 * in it, paid by the traced thread: a depth-1024 backtrace cost 45 ns a
 * frame in BPF in a fresh ring and 4.5 ns once the ring had been written.
 * The writing is not on the way to attaching the probes (8 MiB took about
 * 20 ms there): runtime_poll() does it a slice at a time on the thread
 * that consumes the ring, libbpf's reader not being safe with two, and
 * only while the ring is idle (its last read found no events), so the
 * discarded records never take the place of real ones; under steady
 * traffic the events write the ring themselves.  Each slice writes and
 * discards up to 1 MiB, which the consumer then skips.  At most WARM_MAX
 * bytes, so a large --buffer-size does not add work without bound; a
 * kernel that cannot run the program only loses the warm-up. */
#define WARM_MAX (64u << 20)

void rt_reader_plan_warmup(struct runtime *rt)
{
	struct bpf_map *map = rt_base_map(rt, WR_MAP_RINGBUF);
	struct bpf_program *prog = rt_base_program(rt, WR_PROG_RING_WARM);
	size_t size;

	if (!map || !rt->ringbuf || !prog || bpf_program__fd(prog) < 0)
		return;
	size = bpf_map__max_entries(map);
	rt->warm_left = (size > WARM_MAX ? WARM_MAX : size) + WR_WARM_CHUNK;
	rt->warm_fd = bpf_program__fd(prog);
}

static void warm_slice(struct runtime *rt)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	size_t done;

	if (bpf_prog_test_run_opts(rt->warm_fd, &topts) || (int)topts.retval <= 0) {
		rt->warm_left = 0;
		return;
	}
	done = (size_t)topts.retval * WR_WARM_CHUNK;
	rt->warm_left = done >= rt->warm_left ? 0 : rt->warm_left - done;
}

int rt_reader_open(struct runtime *rt)
{
	int err;

	if (rt->opt.transport == WR_TRANSPORT_RINGBUF) {
		rt->ringbuf = ring_buffer__new(rt_map_fd(rt, WR_MAP_RINGBUF), on_ringbuf, rt, NULL);
		err = rt->ringbuf ? 0 : rt_kernel_error(-errno, "opening the ring buffer");
	} else {
		err = open_perf_reader(rt);
	}
	return err ? err : open_wakeups(rt);
}

/* Hand over what the buffer holds, at most POLL_BATCH events of it. */
static int consume(struct runtime *rt, rt_event_fn fn, void *ctx)
{
	int n;

	rt->fn = fn;
	rt->fn_ctx = ctx;
	rt->polled = 0;
	rt->poll_until = now_seconds() + POLL_SECONDS;
	if (rt->ringbuf)
		n = ring_buffer__consume(rt->ringbuf);
	else
		n = perf_buffer__consume(rt->perfbuf);
	if (n == POLL_BATCH_DONE)
		n = (int)rt->polled;
	rt->idle = rt->polled == 0;
	rt->fn = NULL;
	rt->fn_ctx = NULL;
	return n;
}

int runtime_poll(struct runtime *rt, int timeout_ms, rt_event_fn fn, void *ctx)
{
	struct epoll_event ev[2];
	uint64_t ticks;
	int n;

	if (rt->warm_left && rt->idle)
		warm_slice(rt);
	n = epoll_wait(rt->epoll_fd, ev, 2, rt->warm_left ? 0 : timeout_ms);
	if (n < 0)
		return -errno;
	if (read(rt->timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	/* Read whatever is there, woken or not: below the wakeup mark the
	 * kernel does not say. */
	return consume(rt, fn, ctx);
}

/* No warm-up slice here: at the end of a run it would only cost time. */
int runtime_read_buffered(struct runtime *rt, rt_event_fn fn, void *ctx)
{
	return consume(rt, fn, ctx);
}

int runtime_event_fd(const struct runtime *rt)
{
	return rt->epoll_fd;
}

uint64_t runtime_transport_lost(const struct runtime *rt)
{
	return rt->perf_lost;
}

void rt_reader_close(struct runtime *rt)
{
	ring_buffer__free(rt->ringbuf);
	perf_buffer__free(rt->perfbuf);
	if (rt->epoll_fd >= 0)
		close(rt->epoll_fd);
	if (rt->timer_fd >= 0)
		close(rt->timer_fd);
	rt->ringbuf = NULL;
	rt->perfbuf = NULL;
	rt->epoll_fd = rt->timer_fd = -1;
}
