/* runtime.c - libbpf: the base object with the shared maps and the
 * unwinder step program, loaded once with the kernel's BTF, and the
 * lifecycle of struct runtime.  The rest of runtime/ builds on it:
 * probes.c (probe objects, uprobe links, the start gate), reader.c (the
 * event reader: ring buffer or perf buffer), counts.c (the probes'
 * counters, counted stacks), unwind_maps.c (the unwinder's rows and the
 * processes' mappings).  Every kernel resource is owned by struct runtime
 * or one of its struct rt_probe, so runtime_free() releases everything on
 * every exit path.
 */
#include "runtime/runtime.h"
#include "protocol/contract.h"
#include "runtime/runtime_priv.h"
#include "runtime/btf_cache.h"
#include "runtime/core_btf.h"
#include "runtime/kbtf.h"
#include "runtime/ulink.h"
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
#include <sys/mman.h>
#include <unistd.h>

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

int rt_kernel_error(int err, const char *what)
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
struct bpf_map *rt_base_map(struct runtime *rt, enum wr_map_id id)
{
	return bpf_object__find_map_by_name(rt->base, wr_map_names[id]);
}

int rt_map_fd(struct runtime *rt, enum wr_map_id id)
{
	struct bpf_map *m = rt_base_map(rt, id);

	return m ? bpf_map__fd(m) : -1;
}

struct bpf_program *rt_base_program(struct runtime *rt, enum wr_program_id id)
{
	return bpf_object__find_program_by_name(rt->base, wr_program_names[id]);
}

/* The verifier's reason, from the end of its log: the last line that is
 * not a statistic, plus the instruction it stopped at ("... (insn 45)"). */
char *rt_verifier_reason(const char *log)
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
	struct bpf_map *m = rt_base_map(rt, id);

	if (m)
		bpf_map__set_max_entries(m, n);
}

uint32_t runtime_count_capacity(const struct runtime *rt)
{
	return rt->opt.stack_entries ? rt->opt.stack_entries : WR_COUNT_DEFAULT_STACKS;
}

/* `count bt`'s slots per CPU (wr_count_slots; see wire.h): a power of
 * two, at most WR_COUNT_SLOTS, and the CPUs' slots together at most a
 * quarter of the counts the maps hold (--stack-entries), the hash map the
 * rest; none in a base object that cannot count.  WRAITH_COUNT_SLOTS sets
 * it (tests that make stacks collide in their slots). */
static uint32_t count_slots_per_cpu(const struct runtime *rt)
{
	const char *env = getenv("WRAITH_COUNT_SLOTS");
	uint64_t want = runtime_count_capacity(rt) / 4 / (uint64_t)rt->ncpu;
	uint32_t n = 1;

	if (rt->opt.base_omits & WR_BASE_NO_COUNT)
		return 0;
	if (env && *env)
		want = strtoul(env, NULL, 10);
	if (want > WR_COUNT_SLOTS)
		want = WR_COUNT_SLOTS;
	if (!want || (uint64_t)rt->ncpu * want >= runtime_count_capacity(rt))
		return 0;
	while (2 * n <= want)
		n *= 2;
	return n;
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

/* rt_options.cfi_outer: the arrays of maps made already, for the base
 * object to take. */
static int reuse_cfi_outer(struct runtime *rt)
{
	static const enum wr_map_id id[2] = { WR_MAP_CFI_RULES, WR_MAP_CFI_ROWS };

	for (int i = 0; rt->opt.cfi_outer && i < 2; i++) {
		struct bpf_map *m = rt_base_map(rt, id[i]);
		int err = m ? bpf_map__reuse_fd(m, rt->opt.cfi_outer[i]) : -ENOENT;

		if (err)
			return rt_kernel_error(err, "taking the unwinder's maps");
	}
	return 0;
}

/* A probe of the session may tail-call the step program: one with `bt`
 * or `count bt` that is not sleepable (--fault-in probes unwind
 * themselves). */
static bool wants_step(const struct runtime *rt)
{
	return !rt->opt.fault_in && !(rt->opt.base_omits & WR_BASE_NO_STEP);
}

/* The step program may tail-call the outer frames' whole walks: a
 * session that may run a `bt full` (not one whose base object is lean). */
static bool wants_walks(const struct runtime *rt)
{
	return wants_step(rt) && !(rt->opt.base_omits & (WR_BASE_NO_VALUES | WR_BASE_NO_WALKS));
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
		return rt_kernel_error(err, "opening the BPF object");
	}
	log = xmalloc(VERIFIER_LOG_SIZE);
	rb = rt_base_map(rt, WR_MAP_RINGBUF);
	if (rb)
		bpf_map__set_max_entries(rb, rt->opt.transport == WR_TRANSPORT_RINGBUF
					 ? (__u32)runtime_buffer_bytes(&rt->opt) : 4096);
	/* One event buffer per CPU (the template indexes it by CPU). */
	ev = rt_base_map(rt, WR_MAP_EVENT);
	if (ev)
		bpf_map__set_max_entries(ev, (__u32)ncpu);
	/* Per CPU, in rows (see wr_stats in the template). */
	set_entries(rt, WR_MAP_STATS, (__u32)ncpu * WR_MAX_PROBES);
	set_entries(rt, WR_MAP_FRAME_CACHE, (__u32)ncpu * WR_FRAME_CACHE);
	set_entries(rt, WR_MAP_STACK_COUNTS,
		    runtime_count_capacity(rt) - (__u32)rt->ncpu * rt->count_per_cpu);
	set_entries(rt, WR_MAP_COUNT_SLOTS, 1 + (__u32)rt->ncpu * rt->count_per_cpu);
	set_entries(rt, WR_MAP_STACKS, runtime_count_capacity(rt));
	set_entries(rt, WR_MAP_PROC_MAPS, runtime_proc_capacity(rt));
	set_entries(rt, WR_MAP_PROC_SLOT, runtime_proc_capacity(rt));
	rt->member_words = rt->opt.members ? rt_member_words() : 1;
	set_entries(rt, WR_MAP_MEMBERS, (__u32)rt->member_words);
	err = reuse_cfi_outer(rt);
	if (err) {
		free(log);
		if (btf_fd >= 0)
			close(btf_fd);
		return err;
	}
	/* The tracepoints that keep a -t target's processes: only for -t. */
	for (int id = WR_PROG_MEMBER_EXEC; id <= WR_PROG_MEMBER_EXIT && !rt->opt.members; id++)
		if (rt_base_program(rt, (enum wr_program_id)id))
			bpf_program__set_autoload(rt_base_program(rt, (enum wr_program_id)id), false);
	/* The step program only where a probe can tail-call it: its check is
	 * most of what the kernel does for the base object. */
	if (!wants_step(rt) && rt_base_program(rt, WR_PROG_BT_STEP))
		bpf_program__set_autoload(rt_base_program(rt, WR_PROG_BT_STEP), false);
	/* and the whole walks only where a `bt full` may run them */
	if (!wants_walks(rt) && rt_base_program(rt, WR_PROG_OUTER_WALKS))
		bpf_program__set_autoload(rt_base_program(rt, WR_PROG_OUTER_WALKS), false);
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
		char *tail = rt_verifier_reason(log);

		wr_debug("verifier log of the unwinder step program:\n%s", log);
		wr_error("the kernel's verifier rejected the unwinder step program: %s", tail);
		free(tail);
		err = -WR_EVERIFIER;
	} else if (err) {
		err = rt_kernel_error(err, "loading the BPF maps and unwinder");
	}
	free(log);
	return err;
}

static int install_step_program(struct runtime *rt)
{
	struct bpf_program *step = rt_base_program(rt, WR_PROG_BT_STEP);
	struct bpf_program *walks = rt_base_program(rt, WR_PROG_OUTER_WALKS);
	int progs = rt_map_fd(rt, WR_MAP_PROGS);
	__u32 key = WR_TAIL_STEP;
	int fd;

	if (!wants_step(rt))
		return 0;
	if (!step || progs < 0)
		return rt_kernel_error(-ENOENT, "finding the unwinder step program");
	fd = bpf_program__fd(step);
	if (bpf_map_update_elem(progs, &key, &fd, BPF_ANY))
		return rt_kernel_error(-errno, "installing the unwinder step program");
	if (!wants_walks(rt))
		return 0;
	key = WR_TAIL_OUTER_WALKS;
	fd = walks ? bpf_program__fd(walks) : -1;
	if (fd < 0 || bpf_map_update_elem(progs, &key, &fd, BPF_ANY))
		return rt_kernel_error(fd < 0 ? -ENOENT : -errno, "installing the outer frames' walks program");
	return 0;
}

/* The probes' counters, mapped into our memory: reading them is then no
 * system call per probe. */
static int map_stats(struct runtime *rt)
{
	size_t len = (size_t)rt->ncpu * WR_MAX_PROBES * sizeof(struct wr_probe_stats);
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rt_map_fd(rt, WR_MAP_STATS),
			 0);

	if (mem == MAP_FAILED)
		return rt_kernel_error(-errno, "mapping the probe counters");
	rt->stats = mem;
	rt->stats_len = len;
	return 0;
}

/* `count bt`'s slots (wr_count_slots), mapped: the counts are read and
 * cleared with no system call.  Entry 0 says how many each CPU has. */
static int map_count_slots(struct runtime *rt)
{
	size_t len = (1 + (size_t)rt->ncpu * rt->count_per_cpu) * sizeof(struct wr_count_slot);
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 rt_map_fd(rt, WR_MAP_COUNT_SLOTS), 0);

	if (mem == MAP_FAILED)
		return rt_kernel_error(-errno, "mapping the counted stacks' slots");
	rt->count_slots = mem;
	rt->count_slots_len = len;
	rt->count_slots[0].count = rt->count_per_cpu;
	return 0;
}

/* The probes' start gate (wr_gate in the template), mapped: arming a
 * script is then one store. */
static int map_gate(struct runtime *rt)
{
	void *mem = mmap(NULL, WR_MAX_PROBES * sizeof(*rt->gate), PROT_READ | PROT_WRITE, MAP_SHARED,
			 rt_map_fd(rt, WR_MAP_GATE), 0);

	if (mem == MAP_FAILED)
		return rt_kernel_error(-errno, "mapping the probes' start gate");
	rt->gate = mem;
	return 0;
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
		return rt_kernel_error(-EPERM, "--fault-in");
	{
		char *why = log[0] ? rt_verifier_reason(log) : xstrdup(wr_strerror(-errno));

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
	rt->count_per_cpu = count_slots_per_cpu(rt);
	double c0 = thread_cpu_seconds(), c1 = c0, c2 = c0;

	if (!err)
		err = open_base(rt, base);
	rt->opt.cfi_outer = NULL; /* the caller's, and taken now */
	c1 = thread_cpu_seconds();
	if (!err)
		err = install_step_program(rt);
	if (!err)
		err = map_stats(rt);
	if (!err)
		err = map_gate(rt);
	if (!err)
		err = map_count_slots(rt);
	if (!err)
		err = rt_reader_open(rt);
	c2 = thread_cpu_seconds();
	if (!err)
		rt_reader_plan_warmup(rt);
	wr_debug("base object: loaded in %.1f ms of CPU, its reader set up in %.1f",
		 (c1 - c0) * 1e3, (c2 - c1) * 1e3);
	if (err) {
		runtime_free(rt);
		return err;
	}
	rt->proc_maps_fd = rt_map_fd(rt, WR_MAP_PROC_MAPS);
	rt->proc_slot_fd = rt_map_fd(rt, WR_MAP_PROC_SLOT);
	rt->rows_outer_fd = rt_map_fd(rt, WR_MAP_CFI_ROWS);
	rt->rules_outer_fd = rt_map_fd(rt, WR_MAP_CFI_RULES);
	rt->counts_fd = rt_map_fd(rt, WR_MAP_STACK_COUNTS);
	rt->stacks_fd = rt_map_fd(rt, WR_MAP_STACKS);
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
	for (size_t i = 0; i < sizeof(rt->member_links) / sizeof(rt->member_links[0]); i++)
		bpf_link__destroy(rt->member_links[i]);
	if (rt->members)
		munmap(rt->members, rt->member_words * sizeof(*rt->members));
	free(rt->closing);
	rt_reader_close(rt);
	if (rt->stats)
		munmap(rt->stats, rt->stats_len);
	if (rt->count_slots)
		munmap(rt->count_slots, rt->count_slots_len);
	if (rt->gate)
		munmap(rt->gate, WR_MAX_PROBES * sizeof(*rt->gate));
	if (rt->outer_slots)
		munmap(rt->outer_slots, WR_OUTER_SLOTS * sizeof(*rt->outer_slots));
	bpf_object__close(rt->base);
	free(rt);
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
