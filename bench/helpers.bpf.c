/* helpers.bpf.c - what each piece of a hit costs inside BPF on this host:
 * tiny uprobe programs, each doing one thing the templates do (a helper
 * call, a map lookup, a read of user memory, sending an event), run by
 * bench/helpers.py one at a time on bench/hotloop's wr_bench_hot and timed
 * with kernel.bpf_stats_enabled.  The first, `empty`, is the floor every
 * program pays (the statistics' own clock reads included); the last few
 * put together what every wraith event needs.
 *
 * Built by bench/helpers.py with clang-19 -target bpf; loaded for
 * multi-uprobe links, as wraith's probes are (bench/helpers.c).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct task_struct {
	int tgid;
} __attribute__((preserve_access_index));

/* The uprobe context: x86-64 struct pt_regs, as far as sp. */
struct regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs,
		flags, sp;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sinks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} percpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16);
	__type(key, __u64);
	__type(value, __u64);
} counts SEC(".maps");

struct buf {
	__u8 d[8192];
};

/* An event buffer per CPU, indexed by CPU, as the templates' wr_event
 * (bench/helpers.c sizes it to the possible CPUs). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct buf);
} bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} progs SEC(".maps");

/* Keep @v alive: one inlined array lookup and an add. */
static __always_inline void sink(__u64 v)
{
	__u32 k = 0;
	__u64 *p = bpf_map_lookup_elem(&sinks, &k);

	if (p)
		*p += v;
}

static __always_inline __u8 *cpu_buf(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&bufs, &cpu);
}

static __always_inline void *user_sp(void *ctx)
{
	return (void *)((struct regs *)ctx)->sp;
}

SEC("uprobe") int empty(void *ctx) { return 0; }
SEC("uprobe") int array_lookup(void *ctx) { sink(1); return 0; }
SEC("uprobe") int smp_processor_id(void *ctx) { sink(bpf_get_smp_processor_id()); return 0; }
SEC("uprobe") int attach_cookie(void *ctx) { sink(bpf_get_attach_cookie(ctx)); return 0; }
SEC("uprobe") int current_pid_tgid(void *ctx) { sink(bpf_get_current_pid_tgid()); return 0; }
SEC("uprobe") int ktime_get_ns(void *ctx) { sink(bpf_ktime_get_ns()); return 0; }

SEC("uprobe") int ktime_get_ns_x2(void *ctx)
{
	sink(bpf_ktime_get_ns());
	sink(bpf_ktime_get_ns());
	return 0;
}

SEC("uprobe") int current_task_btf(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	sink(t->tgid);
	return 0;
}

SEC("uprobe") int percpu_array_lookup(void *ctx)
{
	__u32 k = 0;
	__u64 *p = bpf_map_lookup_elem(&percpu, &k);

	if (p)
		*p += 1;
	return 0;
}

SEC("uprobe") int hash_lookup(void *ctx)
{
	__u32 k = 1, *p = bpf_map_lookup_elem(&hash, &k);

	sink(p ? *p : 0);
	return 0;
}

/* bpftrace's `@h = count()`. */
SEC("uprobe") int percpu_hash_count(void *ctx)
{
	__u64 k = 0, one = 1, *p = bpf_map_lookup_elem(&counts, &k);

	if (p)
		*p += 1;
	else
		bpf_map_update_elem(&counts, &k, &one, BPF_ANY);
	return 0;
}

SEC("uprobe") int ringbuf_query(void *ctx) { sink(bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA)); return 0; }

SEC("uprobe") int ringbuf_query_x2(void *ctx)
{
	sink(bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) + bpf_ringbuf_query(&ring, BPF_RB_RING_SIZE));
	return 0;
}

/* The ring's positions and size read from its map's kernel structures
 * (CO-RE, as bpf-templates/wraith.bpf.c's wake-up test reads them): what
 * the two queries above give, with no helper call. */
struct bpf_ringbuf___h {
	__u64 mask;
	unsigned long consumer_pos;
	unsigned long producer_pos;
} __attribute__((preserve_access_index));

struct bpf_ringbuf_map___h {
	struct bpf_ringbuf___h *rb;
} __attribute__((preserve_access_index));

SEC("uprobe") int ringbuf_fields(void *ctx)
{
	struct bpf_ringbuf___h *rb = ((struct bpf_ringbuf_map___h *)&ring)->rb;

	sink(rb->producer_pos - rb->consumer_pos + rb->mask);
	return 0;
}

static __always_inline void output(__u32 size)
{
	__u8 *b = cpu_buf();

	if (b) {
		*(__u64 *)b = 1;
		bpf_ringbuf_output(&ring, b, size, BPF_RB_NO_WAKEUP);
	}
}

SEC("uprobe") int ringbuf_output_32(void *ctx) { output(32); return 0; }
SEC("uprobe") int ringbuf_output_256(void *ctx) { output(256); return 0; }

SEC("uprobe") int ringbuf_reserve_submit_32(void *ctx)
{
	__u64 *p = bpf_ringbuf_reserve(&ring, 32, 0);

	if (p) {
		p[0] = 1;
		p[1] = 2;
		p[2] = 3;
		p[3] = 4;
		bpf_ringbuf_submit(p, BPF_RB_NO_WAKEUP);
	}
	return 0;
}

SEC("uprobe") int tail_callee(void *ctx) { return 0; }
SEC("uprobe") int tail_call(void *ctx) { bpf_tail_call(ctx, &progs, 0); return 0; }

static long one_iteration(__u32 i, void *c) { sink(i); return 0; }
SEC("uprobe") int bpf_loop_1(void *ctx) { bpf_loop(1, one_iteration, 0, 0); return 0; }

SEC("uprobe") int probe_read_kernel_8(void *ctx)
{
	__u64 v = 0, k = 1;

	bpf_probe_read_kernel(&v, 8, &k);
	sink(v);
	return 0;
}

SEC("uprobe") int probe_read_user_8(void *ctx)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, 8, user_sp(ctx));
	sink(v);
	return 0;
}

SEC("uprobe") int probe_read_user_8_x2(void *ctx)
{
	__u64 v = 0, w = 0;

	bpf_probe_read_user(&v, 8, user_sp(ctx));
	bpf_probe_read_user(&w, 8, user_sp(ctx) + 64);
	sink(v + w);
	return 0;
}

static __always_inline void read_block(void *ctx, __u32 size)
{
	__u8 *b = cpu_buf();

	if (b)
		bpf_probe_read_user(b, size, user_sp(ctx));
}

SEC("uprobe") int probe_read_user_1k(void *ctx) { read_block(ctx, 1024); return 0; }
SEC("uprobe") int probe_read_user_4k(void *ctx) { read_block(ctx, 4096); return 0; }

SEC("uprobe") int probe_read_user_fails(void *ctx)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, 8, (void *)16);
	sink(v);
	return 0;
}

/* What every event needs: the probe's cookie (its id and process), pid
 * and tid, a timestamp, and 32 bytes sent from the CPU's buffer. */
SEC("uprobe") int event_floor(void *ctx)
{
	__u64 *p = (__u64 *)cpu_buf();

	if (p) {
		p[0] = bpf_get_attach_cookie(ctx);
		p[1] = bpf_get_current_pid_tgid();
		p[2] = bpf_ktime_get_ns();
		p[3] = 4;
		bpf_ringbuf_output(&ring, p, 32, BPF_RB_NO_WAKEUP);
	}
	return 0;
}

/* The same reserved in the ring and written in place. */
SEC("uprobe") int event_floor_in_place(void *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx), pt = bpf_get_current_pid_tgid();
	__u64 t = bpf_ktime_get_ns(), *p = bpf_ringbuf_reserve(&ring, 32, 0);

	if (p) {
		p[0] = c;
		p[1] = pt;
		p[2] = t;
		p[3] = 4;
		bpf_ringbuf_submit(p, BPF_RB_NO_WAKEUP);
	}
	return 0;
}

/* The floor with wraith's wakeup test (two ring queries). */
SEC("uprobe") int event_floor_wakeup(void *ctx)
{
	__u64 *p = (__u64 *)cpu_buf(), avail, mark;

	if (p) {
		p[0] = bpf_get_attach_cookie(ctx);
		p[1] = bpf_get_current_pid_tgid();
		p[2] = bpf_ktime_get_ns();
		p[3] = 4;
		avail = bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA);
		mark = bpf_ringbuf_query(&ring, BPF_RB_RING_SIZE) / 4;
		bpf_ringbuf_output(&ring, p, 32, avail < mark && avail + 32 >= mark ? BPF_RB_FORCE_WAKEUP
										     : BPF_RB_NO_WAKEUP);
	}
	return 0;
}

/* What a `count bt` and a `bt` of the hot loop's stack must do at the
 * least, as wraith does them when the walk is the last one again
 * (bpf-templates/unwind.bpf.h: walk_replay()): the cookie and the pid,
 * then one copy of the span of stack the walk reads (at the hot loop's own
 * depth, 11 words over 584 bytes from the stack pointer).  `count bt`
 * then adds one to a counter in an array; `bt` takes a timestamp and
 * sends its event (176 bytes: the header, the item and 8 frames).  Their
 * ratio is the least `count bt` can cost against `bt` on this host. */
#define HOT_SPAN 584

SEC("uprobe") int count_floor(void *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx), pt = bpf_get_current_pid_tgid();
	__u8 *b = cpu_buf();
	__u32 k = 0;
	__u64 *n;

	if (!b || bpf_probe_read_user(b, HOT_SPAN, user_sp(ctx)))
		return 0;
	n = bpf_map_lookup_elem(&sinks, &k);
	if (n && *(__u64 *)b != c + pt)
		__sync_fetch_and_add(n, 1);
	return 0;
}

SEC("uprobe") int bt_floor(void *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx), pt = bpf_get_current_pid_tgid();
	__u64 *b = (__u64 *)cpu_buf();

	if (!b || bpf_probe_read_user(b + 512, HOT_SPAN, user_sp(ctx)))
		return 0;
	b[0] = c;
	b[1] = pt;
	b[2] = bpf_ktime_get_ns();
	b[3] = b[512];
	bpf_ringbuf_output(&ring, b, 176, BPF_RB_NO_WAKEUP);
	return 0;
}
