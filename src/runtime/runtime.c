/* runtime.c - libbpf: the base object with the shared maps and the
 * unwinder step program, probe objects that reuse those maps, uprobe links,
 * and the event reader (ring buffer or perf buffer); the unwinder's own
 * maps are unwind_maps.c's.  Every kernel resource is owned by struct runtime or one of its
 * struct rt_probe, so runtime_free() releases everything on every exit
 * path.
 */
#include "runtime/runtime.h"
#include "protocol/contract.h"
#include "runtime/runtime_priv.h"
#include "runtime/btf_cache.h"
#include "runtime/core_btf.h"
#include "runtime/kbtf.h"
#include "runtime/prearm.h"
#include "runtime/ulink.h"
#include "runtime/uprobe_insn.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define VERIFIER_LOG_SIZE (4u << 20)

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
	struct ulink *links;     /* owned */
	size_t n_links;
	size_t cap_links;
	struct rt_probe *next;
};

/* libbpf talks through our log sink; its warnings are details of failures
 * we report ourselves, so everything goes out at debug level. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;

	(void)level;
	strbuf_vaddf(&msg, fmt, ap);
	runtime_name_errors(&msg);
	if (msg.len && msg.buf[msg.len - 1] == '\n')
		strbuf_setlen(&msg, msg.len - 1);
	wr_debug("%s", msg.buf);
	strbuf_release(&msg);
	return 0;
}

/* libbpf writes an error its strerror() has no text for as
 * "ERROR: strerror_r(-524)=22", glibc as "Unknown error 524": put
 * wraith's words in their place. */
void runtime_name_errors(struct strbuf *msg)
{
	static const char *const forms[] = { "ERROR: strerror_r(-", "Unknown error " };

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		char *at;

		while ((at = strstr(msg->buf, forms[f]))) {
			char *end, *rest;
			long code = strtol(at + strlen(forms[f]), &end, 10);
			struct strbuf out = STRBUF_INIT;

			rest = f == 0 && strncmp(end, ")=", 2) == 0 ? end + 2 : end;
			if (f == 0)
				strtol(rest, &rest, 10);
			strbuf_add(&out, msg->buf, (size_t)(at - msg->buf));
			strbuf_addstr(&out, wr_strerror((int)-code));
			strbuf_addstr(&out, rest);
			strbuf_release(msg);
			*msg = out;
		}
	}
}

static int kernel_error(int err, const char *what)
{
	if (err == -EPERM) {
		wr_error("%s: permission denied: wraith needs root (CAP_SYS_ADMIN, CAP_BPF and "
			 "CAP_PERFMON) to load BPF programs and attach uprobes", what);
		return -WR_EPERM;
	}
	wr_error("%s: %s", what, wr_strerror(err));
	return -WR_ELOAD;
}

/* The base object's map @id (protocol/contract.h), or NULL. */
static struct bpf_map *base_map(struct runtime *rt, enum wr_map_id id)
{
	return bpf_object__find_map_by_name(rt->base, wr_map_names[id]);
}

static int map_fd(struct runtime *rt, enum wr_map_id id)
{
	struct bpf_map *m = base_map(rt, id);

	return m ? bpf_map__fd(m) : -1;
}

static struct bpf_program *base_program(struct runtime *rt, enum wr_program_id id)
{
	return bpf_object__find_program_by_name(rt->base, wr_program_names[id]);
}

/* The verifier's reason, from the end of its log: the last line that is
 * not a statistic, plus the instruction it stopped at ("... (insn 45)"). */
static char *verifier_reason(const char *log)
{
	const char *end = log + strlen(log), *line_end, *line;
	const char *insn = NULL, *reason = NULL;
	size_t reason_len = 0;

	while (end > log) {
		line_end = end;
		while (line_end > log && line_end[-1] == '\n')
			line_end--;
		line = line_end;
		while (line > log && line[-1] != '\n')
			line--;
		end = line;
		if (line == line_end || !strncmp(line, "processed ", 10) ||
		    !strncmp(line, "verification time", 17) || !strncmp(line, "stack depth", 11))
			continue;
		if (!reason) {
			reason = line;
			reason_len = (size_t)(line_end - line);
		} else if (line[0] >= '0' && line[0] <= '9') {
			insn = line;
			break;
		}
	}
	if (!reason)
		return xstrdup("no reason given");
	if (insn)
		return xasprintf("%.*s (at instruction %d)", (int)reason_len, reason, atoi(insn));
	return xstrndup(reason, reason_len);
}

static void set_entries(struct runtime *rt, enum wr_map_id id, __u32 n)
{
	struct bpf_map *m = base_map(rt, id);

	if (m)
		bpf_map__set_max_entries(m, n);
}

uint32_t runtime_count_capacity(const struct runtime *rt)
{
	return rt->opt.stack_entries ? rt->opt.stack_entries : WR_COUNT_DEFAULT_STACKS;
}

/* The cut kept by an earlier run in @opt's cache, in a memory file, or -1. */
static int cached_btf_file(const struct rt_options *opt, const struct bpf_blob *base)
{
	struct strbuf why = STRBUF_INIT;
	void *raw;
	size_t len;
	int fd = -1, err = opt->cache_dir ? btf_cache_get(opt->cache_dir, base, &raw, &len, &why)
					   : -ENOENT;

	if (opt->cache_dir && why.len)
		wr_debug("kernel BTF cut: cache %s not used: %s", opt->cache_dir, why.buf);
	if (!err) {
		fd = core_btf_memfd_raw(raw, len);
		free(raw);
	}
	strbuf_release(&why);
	return fd < 0 ? -1 : fd;
}

/* The kernel BTF for the base object's CO-RE relocations, cut down to
 * what they name (core_btf.h), in a memory file; -1 when the kernel has
 * no BTF (libbpf then fails as it always did) or the cut could not be
 * made (libbpf then loads the kernel's whole BTF itself).  *@cached: it
 * came from the disk cache, where a new cut is kept. */
static int core_btf_file(const struct rt_options *opt, const struct bpf_blob *base, bool *cached)
{
	struct kbtf *k;
	struct btf *local, *cut = NULL;
	int fd = cached_btf_file(opt, base), err;
	const void *raw;
	__u32 len;

	*cached = fd >= 0;
	if (fd >= 0)
		return fd;
	err = kbtf_open(NULL, &k);
	if (err) {
		wr_debug("kernel BTF: %s", wr_strerror(err));
		return -1;
	}
	local = core_btf_of_object(base->data, base->size);
	if (local)
		cut = core_btf_build(local, k);
	fd = cut ? core_btf_memfd(cut) : -errno;
	if (fd < 0)
		wr_debug("kernel BTF for the unwinder: %s; libbpf loads all of it",
			 wr_strerror(fd));
	else if (opt->cache_dir && (raw = btf__raw_data(cut, &len)) != NULL)
		(void)btf_cache_put(opt->cache_dir, base, raw, len, NULL);
	btf__free(cut);
	btf__free(local);
	kbtf_close(k);
	return fd;
}

static int open_base(struct runtime *rt, const struct bpf_blob *base)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "wraith");
	struct bpf_program *prog;
	struct bpf_map *rb, *ev;
	int ncpu = rt->ncpu;
	double c0 = thread_cpu_seconds(), c1, c2;
	bool btf_cached;
	int btf_fd = core_btf_file(&rt->opt, base, &btf_cached);
	char *log, btf_path[40];
	int err;

	if (btf_fd >= 0) {
		snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", btf_fd);
		oo.btf_custom_path = btf_path;
	}
	c1 = thread_cpu_seconds();
	rt->base = bpf_object__open_mem(base->data, base->size, &oo);
	c2 = thread_cpu_seconds();
	if (!rt->base) {
		err = -errno;
		rt->base = NULL;
		if (btf_fd >= 0)
			close(btf_fd);
		return kernel_error(err, "opening the BPF object");
	}
	log = xmalloc(VERIFIER_LOG_SIZE);
	rb = base_map(rt, WR_MAP_RINGBUF);
	if (rb)
		bpf_map__set_max_entries(rb, rt->opt.transport == WR_TRANSPORT_RINGBUF
					 ? (__u32)runtime_buffer_bytes(&rt->opt) : 4096);
	/* One event buffer per CPU (the template indexes it by CPU). */
	ev = base_map(rt, WR_MAP_EVENT);
	if (ev)
		bpf_map__set_max_entries(ev, (__u32)ncpu);
	/* Per CPU, in rows (see wr_stats in the template). */
	set_entries(rt, WR_MAP_STATS, (__u32)ncpu * WR_MAX_PROBES);
	set_entries(rt, WR_MAP_FRAME_CACHE, (__u32)ncpu * WR_FRAME_CACHE);
	set_entries(rt, WR_MAP_STACK_COUNTS, runtime_count_capacity(rt));
	set_entries(rt, WR_MAP_STACKS, runtime_count_capacity(rt));
	set_entries(rt, WR_MAP_PROC_MAPS, runtime_proc_capacity(rt));
	set_entries(rt, WR_MAP_PROC_SLOT, runtime_proc_capacity(rt));
	log[0] = '\0';
	bpf_object__for_each_program(prog, rt->base) {
		bpf_program__set_log_buf(prog, log, VERIFIER_LOG_SIZE);
		/* The probes tail-call these: one kind of link for all. */
		if (bpf_program__type(prog) == BPF_PROG_TYPE_KPROBE)
			bpf_program__set_expected_attach_type(
				prog, (enum bpf_attach_type)ulink_attach_type());
	}
	err = bpf_object__load(rt->base);
	wr_debug("base object: kernel BTF cut %s in %.1f ms of CPU, object opened in %.1f, maps and "
		 "programs loaded in %.1f", btf_cached ? "from the cache" : "made",
		 (c1 - c0) * 1e3, (c2 - c1) * 1e3, (thread_cpu_seconds() - c2) * 1e3);
	if (btf_fd >= 0)
		close(btf_fd);
	if (err && log[0]) {
		char *tail = verifier_reason(log);

		wr_debug("verifier log of the unwinder step program:\n%s", log);
		wr_error("the kernel's verifier rejected the unwinder step program: %s", tail);
		free(tail);
		err = -WR_EVERIFIER;
	} else if (err) {
		err = kernel_error(err, "loading the BPF maps and unwinder");
	}
	free(log);
	return err;
}

static int install_step_program(struct runtime *rt)
{
	struct bpf_program *step = base_program(rt, WR_PROG_BT_STEP);
	int progs = map_fd(rt, WR_MAP_PROGS);
	__u32 zero = 0;
	int fd;

	if (!step || progs < 0)
		return kernel_error(-ENOENT, "finding the unwinder step program");
	fd = bpf_program__fd(step);
	if (bpf_map_update_elem(progs, &zero, &fd, BPF_ANY))
		return kernel_error(-errno, "installing the unwinder step program");
	return 0;
}

/* The probes' counters, mapped into our memory: reading them is then no
 * system call per probe. */
static int map_stats(struct runtime *rt)
{
	size_t len = (size_t)rt->ncpu * WR_MAX_PROBES * sizeof(struct wr_probe_stats);
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd(rt, WR_MAP_STATS),
			 0);

	if (mem == MAP_FAILED)
		return kernel_error(-errno, "mapping the probe counters");
	rt->stats = mem;
	rt->stats_len = len;
	return 0;
}

/* The probes' start gate (wr_gate in the template), mapped: arming a
 * script is then one store. */
static int map_gate(struct runtime *rt)
{
	void *mem = mmap(NULL, WR_MAX_PROBES * sizeof(*rt->gate), PROT_READ | PROT_WRITE, MAP_SHARED,
			 map_fd(rt, WR_MAP_GATE), 0);

	if (mem == MAP_FAILED)
		return kernel_error(-errno, "mapping the probes' start gate");
	rt->gate = mem;
	return 0;
}

/* One poll hands over at most this many events, then returns: libbpf's
 * ring-buffer poll reads until the ring is empty, which never happens when
 * events arrive as fast as they are read (wraith tracing its own malloc
 * with -t libc), and the caller must get to check signals and timeouts.
 * (A perf buffer poll is bounded already: it reads each CPU's buffer up to
 * where its head was when it started.) */
#define POLL_BATCH 4096
#define POLL_BATCH_DONE (-ECANCELED) /* from the callback: stop here */

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct runtime *rt = ctx;

	if (rt->fn)
		rt->fn(data, size, rt->fn_ctx);
	/* the record is consumed either way; a negative return stops the poll */
	return ++rt->polled >= POLL_BATCH ? POLL_BATCH_DONE : 0;
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

	rt->perfbuf = perf_buffer__new_raw(map_fd(rt, WR_MAP_PERFBUF), pages, &attr,
					   on_perf_record, rt, NULL);
	if (!rt->perfbuf)
		return kernel_error(-errno, "opening the perf buffer");
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
		return kernel_error(-errno, "setting up the event reader");
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

static void warm_plan(struct runtime *rt)
{
	struct bpf_map *map = base_map(rt, WR_MAP_RINGBUF);
	struct bpf_program *prog = base_program(rt, WR_PROG_RING_WARM);
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

static int open_reader(struct runtime *rt)
{
	int err;

	if (rt->opt.transport == WR_TRANSPORT_RINGBUF) {
		rt->ringbuf = ring_buffer__new(map_fd(rt, WR_MAP_RINGBUF), on_ringbuf, rt, NULL);
		err = rt->ringbuf ? 0 : kernel_error(-errno, "opening the ring buffer");
	} else {
		err = open_perf_reader(rt);
	}
	return err ? err : open_wakeups(rt);
}

/* --fault-in: ask the kernel to load the smallest sleepable uprobe
 * program that faults a user page in (bpf_copy_from_user into its stack),
 * so that a kernel without sleepable uprobes (before Linux 6.1) or without
 * the helper refuses the option at start, not probe by probe.  Returns 0,
 * or -WR_ELOAD / -WR_EPERM (message logged). */
static int check_sleepable(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_1, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_copy_from_user },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[512] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, po, .prog_flags = BPF_F_SLEEPABLE, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, wr_own_names[WR_OWN_FAULT_IN_CHECK], "GPL",
			       insns, sizeof(insns) / sizeof(insns[0]), &po);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EPERM)
		return kernel_error(-EPERM, "--fault-in");
	{
		char *why = log[0] ? verifier_reason(log) : xstrdup(wr_strerror(-errno));

		wr_error("--fault-in: this kernel does not load sleepable uprobe programs (Linux 6.1 "
			 "or later, with bpf_copy_from_user): %s", why);
		free(why);
	}
	return -WR_ELOAD;
}

int runtime_new(const struct rt_options *opt, const struct bpf_blob *base, struct runtime **out)
{
	struct runtime *rt = xcalloc(1, sizeof(*rt));
	int err = opt->fault_in ? check_sleepable() : 0;

	*out = NULL;
	libbpf_set_print(libbpf_print);
	rt->opt = *opt;
	rt->epoll_fd = rt->timer_fd = rt->warm_fd = -1;
	rt->idle = true;
	rt->ncpu = libbpf_num_possible_cpus();
	if (rt->ncpu <= 0)
		rt->ncpu = 1;
	double c0 = thread_cpu_seconds(), c1 = c0, c2 = c0;

	if (!err)
		err = open_base(rt, base);
	c1 = thread_cpu_seconds();
	if (!err)
		err = install_step_program(rt);
	if (!err)
		err = map_stats(rt);
	if (!err)
		err = map_gate(rt);
	if (!err)
		err = open_reader(rt);
	c2 = thread_cpu_seconds();
	if (!err)
		warm_plan(rt);
	wr_debug("base object: loaded in %.1f ms of CPU, its reader set up in %.1f",
		 (c1 - c0) * 1e3, (c2 - c1) * 1e3);
	if (err) {
		runtime_free(rt);
		return err;
	}
	rt->proc_maps_fd = map_fd(rt, WR_MAP_PROC_MAPS);
	rt->proc_slot_fd = map_fd(rt, WR_MAP_PROC_SLOT);
	rt->rows_outer_fd = map_fd(rt, WR_MAP_CFI_ROWS);
	rt->rules_outer_fd = map_fd(rt, WR_MAP_CFI_RULES);
	rt->counts_fd = map_fd(rt, WR_MAP_STACK_COUNTS);
	rt->stacks_fd = map_fd(rt, WR_MAP_STACKS);
	*out = rt;
	return 0;
}

void runtime_free(struct runtime *rt)
{
	if (!rt)
		return;
	while (rt->probes)
		runtime_unload(rt, rt->probes);
	runtime_settle(rt);
	free(rt->closing);
	ring_buffer__free(rt->ringbuf);
	perf_buffer__free(rt->perfbuf);
	if (rt->epoll_fd >= 0)
		close(rt->epoll_fd);
	if (rt->timer_fd >= 0)
		close(rt->timer_fd);
	if (rt->stats)
		munmap(rt->stats, rt->stats_len);
	if (rt->gate)
		munmap(rt->gate, WR_MAX_PROBES * sizeof(*rt->gate));
	bpf_object__close(rt->base);
	free(rt);
}

/* ---- probes ---- */

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
		return kernel_error(err, "sharing the maps with a probe");
	o->prog = bpf_object__next_program(o->obj, NULL);
	if (!o->prog)
		return kernel_error(-ENOENT, "finding the probe program");
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
			*why = verifier_reason(log);
		return -WR_EVERIFIER;
	}
	return kernel_error(err, "loading a probe");
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
		err = kernel_error(-errno, "opening a probe object");
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

int runtime_load_probe(struct runtime *rt, const struct bpf_blob *obj, uint64_t cookie,
		       struct rt_probe **out, char **why)
{
	struct rt_probe *p = xcalloc(1, sizeof(*p));
	int err;

	*out = NULL;
	if (why)
		*why = NULL;
	err = get_object(rt, obj, &p->o, why);
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
			return kernel_error(err, "attaching a uprobe");
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

int runtime_gate_get(struct runtime *rt, uint32_t id, uint64_t *out)
{
	return bpf_map_lookup_elem(map_fd(rt, WR_MAP_GATE), &id, out) ? -errno : 0;
}

/* ---- counters and events ---- */

void runtime_reset_probe_stats(struct runtime *rt, uint32_t id)
{
	if (id >= WR_MAX_PROBES)
		return;
	for (int c = 0; c < rt->ncpu; c++)
		memset(&rt->stats[(size_t)c * WR_MAX_PROBES + id], 0, sizeof(*rt->stats));
}

int runtime_probe_stats(struct runtime *rt, uint32_t id, struct wr_probe_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (id >= WR_MAX_PROBES)
		return -EINVAL;
	for (int c = 0; c < rt->ncpu; c++) {
		const struct wr_probe_stats *one = &rt->stats[(size_t)c * WR_MAX_PROBES + id];

		out->hits += one->hits;
		out->lost += one->lost;
		out->truncated += one->truncated;
		out->bt_errors += one->bt_errors;
		out->filtered += one->filtered;
		out->counted += one->counted;
		out->count_dropped += one->count_dropped;
	}
	return 0;
}

uint64_t runtime_transport_lost(const struct runtime *rt)
{
	return rt->perf_lost;
}

/* ---- counted stacks ---- */

#define COUNT_BATCH 1024

/* Read the counts in batches of COUNT_BATCH (one system call each);
 * kernels without batch lookups fall back to walking the keys. */
static int counts_batch(struct runtime *rt, rt_count_fn fn, void *ctx)
{
	struct wr_count_key *keys = xcalloc(COUNT_BATCH, sizeof(*keys));
	uint64_t *vals = xcalloc(COUNT_BATCH, sizeof(*vals)), in = 0, out = 0;
	bool first = true, done = false;
	int err = 0;

	while (!done && !err) {
		__u32 n = COUNT_BATCH;

		err = bpf_map_lookup_batch(rt->counts_fd, first ? NULL : &in, &out, keys, vals, &n, NULL);
		if (err && errno == ENOENT) {
			done = true; /* the last batch: n holds what it returned */
			err = 0;
		} else if (err) {
			err = -errno;
			break;
		}
		for (__u32 i = 0; i < n && !err; i++)
			if (fn(&keys[i], vals[i], ctx))
				done = true;
		in = out;
		first = false;
	}
	free(keys);
	free(vals);
	return err;
}

static int counts_walk(struct runtime *rt, rt_count_fn fn, void *ctx)
{
	struct wr_count_key key, next;
	const void *prev = NULL;
	uint64_t val;

	while (bpf_map_get_next_key(rt->counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rt->counts_fd, &key, &val))
			continue; /* deleted meanwhile */
		if (fn(&key, val, ctx))
			break;
	}
	return 0;
}

int runtime_counts_foreach(struct runtime *rt, rt_count_fn fn, void *ctx)
{
	int err = counts_batch(rt, fn, ctx);

	return err == -EINVAL || err == -EOPNOTSUPP ? counts_walk(rt, fn, ctx) : err;
}

int runtime_count_stack(struct runtime *rt, uint64_t stack_id, struct wr_count_stack *out)
{
	return bpf_map_lookup_elem(rt->stacks_fd, &stack_id, out) ? -ENOENT : 0;
}

static void clear_map(int fd, size_t key_size)
{
	char key[32];

	while (key_size <= sizeof(key) && bpf_map_get_next_key(fd, NULL, key) == 0)
		if (bpf_map_delete_elem(fd, key))
			break;
}

struct delete_ctx {
	bool (*match)(const struct wr_count_key *k, void *ctx);
	void *ctx;
	struct wr_count_key *keys;
	size_t n, cap;
};

static int collect_match(const struct wr_count_key *k, uint64_t count, void *arg)
{
	struct delete_ctx *dc = arg;

	(void)count;
	if (dc->match(k, dc->ctx)) {
		dc->keys = xgrow(dc->keys, &dc->cap, dc->n + 1, sizeof(*dc->keys));
		dc->keys[dc->n++] = *k;
	}
	return 0;
}

size_t runtime_counts_delete(struct runtime *rt, bool (*match)(const struct wr_count_key *k, void *ctx),
			     void *ctx)
{
	struct delete_ctx dc = { match, ctx, NULL, 0, 0 };
	size_t n = 0;

	if (!match) {
		clear_map(rt->counts_fd, sizeof(struct wr_count_key));
		clear_map(rt->stacks_fd, sizeof(uint64_t));
		return 0;
	}
	/* Keys first, deletions after: deleting under a key walk restarts it. */
	runtime_counts_foreach(rt, collect_match, &dc);
	for (size_t i = 0; i < dc.n; i++)
		n += bpf_map_delete_elem(rt->counts_fd, &dc.keys[i]) == 0;
	free(dc.keys);
	return n;
}

/* Hand over what the buffer holds, at most POLL_BATCH events of it. */
static int consume(struct runtime *rt, rt_event_fn fn, void *ctx)
{
	int n;

	rt->fn = fn;
	rt->fn_ctx = ctx;
	rt->polled = 0;
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

/* ---- the kernel's layout ---- */

/* Byte offset of member @name of struct @id, and its type; -ENOENT. */
static uint32_t fsbase_offset;

/* task_struct.thread.fsbase, from the kernel's BTF read in place. */
static void find_fsbase(void)
{
	static const char *const name[] = { "task_struct" };
	static const int kind[] = { BTF_KIND_STRUCT };
	uint32_t task, thread_off, fs_off, size, type;
	struct kbtf *k;

	if (kbtf_open(NULL, &k))
		return;
	kbtf_find_composites(k, name, kind, 1, &task);
	if (task && !kbtf_member(k, task, "thread", &thread_off, &size, &type) &&
	    !kbtf_member(k, type, "fsbase", &fs_off, &size, &type))
		fsbase_offset = (thread_off + fs_off) / 8;
	kbtf_close(k);
}

uint32_t runtime_fsbase_offset(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_fsbase);
	return fsbase_offset;
}
