/* wraith.bpf.c - the fixed BPF machinery every generated probe links with.
 *
 * This file is restricted C compiled by clang-19 to LLVM bitcode at build
 * time and embedded in wraith, once per transport and --fault-in setting
 * (WR_PROBE_TRANSPORT, WR_PROBE_FAULT_IN: clang folds them).  The IR
 * generator (src/codegen/) parses the bitcode, adds one function per probe
 * that calls the wr_* entry points below, sets wr_cfg_has_bt, and
 * optimises the whole module, so these
 * always_inline helpers end up inside each probe program.  Everything here
 * that can be written in C is written in C: the event buffer, print items,
 * and the unwinder with its tail-called step program.  Layouts come from
 * src/protocol/wire.h, shared with userspace.
 *
 * An event is assembled in a per-CPU buffer.  Print items are appended as
 * statements run; a `bt` reserves its whole item (header + requested depth
 * frames) at its place in the event and leaves a per-CPU slot with the
 * probe's registers.  When the probe ends with slots pending, one tail call
 * hands the event to wr_bt_step, which unwinds every frame of every slot in
 * one bpf_loop() and outputs the event; otherwise the probe outputs it.
 * Either way it goes out once, never split or duplicated.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "protocol/wire.h"

#define WR_INLINE static __attribute__((always_inline)) inline

/* Keep the compiler from moving arithmetic on @v above a NULL check: the
 * verifier rejects pointer arithmetic on a maybe-NULL map value. */
#define WR_BARRIER_VAR(v) asm volatile("" : "+r"(v))

/* Internal: an unwind step moved to the caller (not a wire status). */
#define WR_MOVED 0xffu
/* wr_bt_state.proc_slot before the event's process was looked up. */
#define WR_PROC_UNKNOWN (WR_PROC_NONE - 1)
/* Entry points the generator calls: external so they survive -O2 here; the
 * generator makes them internal and they are inlined into each probe.
 * WR_SUBPROG entry points, called once per print argument, stay BPF
 * subprograms instead: inlined, a probe with hundreds of prints outgrows
 * BPF's 16-bit jumps.  They are global functions, which the verifier checks
 * once on their own: what it learns inside one never flows back into the
 * probe, where it would split the states of every later statement (a
 * probe of 100 ifs then exceeded the verifier's 1M-instruction budget).
 * That asks for scalar returns and sized pointer arguments, and for NULL
 * checks of every pointer. */
#ifdef WR_BASE_TRANSPORT
/* Built as the base object (maps and the step program), not as bitcode for
 * the generator: nothing calls the entry points. */
#define WR_API static __attribute__((always_inline)) __attribute__((unused)) inline
#define WR_SUBPROG WR_API
#else
#define WR_API __attribute__((always_inline))
#define WR_SUBPROG __attribute__((noinline))
#endif

char _license[] SEC("license") = "GPL";

/* x86-64 struct pt_regs, as the uprobe context. */
struct wr_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

/* The few kernel structures the step program reads, as CO-RE shadows:
 * libbpf finds each field by name in the running kernel's BTF, so neither
 * their layout nor the kernel version is built in.  Only wr_bt_step reads
 * them; probes never do. */
struct super_block___wr {
	__u32 s_dev;
} __attribute__((preserve_access_index));

struct inode___wr {
	unsigned long i_ino;
	struct super_block___wr *i_sb;
} __attribute__((preserve_access_index));

struct file___wr {
	struct inode___wr *f_inode;
} __attribute__((preserve_access_index));

struct vm_area_struct___wr {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	struct file___wr *vm_file;
} __attribute__((preserve_access_index));

struct xol_area___wr {
	unsigned long vaddr;
} __attribute__((preserve_access_index));

struct uprobes_state___wr {
	struct xol_area___wr *xol_area;
} __attribute__((preserve_access_index));

struct mm_struct___wr {
	struct uprobes_state___wr uprobes_state;
} __attribute__((preserve_access_index));

struct return_instance___wr {
	unsigned long stack;
	unsigned long orig_ret_vaddr;
	struct return_instance___wr *next;
} __attribute__((preserve_access_index));

struct uprobe_task___wr {
	struct return_instance___wr *return_instances;
} __attribute__((preserve_access_index));

struct task_struct___wr {
	struct mm_struct___wr *mm;
	struct uprobe_task___wr *utask;
} __attribute__((preserve_access_index));

/* ---- configuration: fixed at build time (Makefile.am builds one probe
 * template per setting), wr_cfg_has_bt by the generator after lowering ---- */
#ifdef WR_BASE_TRANSPORT
static const __u32 wr_cfg_transport = WR_BASE_TRANSPORT;
#elif defined(WR_PROBE_TRANSPORT)
static const __u32 wr_cfg_transport = WR_PROBE_TRANSPORT;
#else
__u32 wr_cfg_transport = WR_TRANSPORT_RINGBUF; /* enum wr_transport */
#endif
/* 1 (--fault-in): the probe is loaded sleepable, and a read that fails
 * retries with bpf_copy_from_user, which may fault the page in.  That
 * helper exists only in sleepable programs (the verifier refuses it
 * elsewhere, even unreached by a branch it cannot fold), so this is fixed
 * before optimisation and a probe without the option never contains it.
 * The base object's step program never reads in this mode (see
 * wr_event_end), so it keeps 0. */
#ifdef WR_BASE_TRANSPORT
static const __u32 wr_cfg_fault_in = 0;
#elif defined(WR_PROBE_FAULT_IN)
static const __u32 wr_cfg_fault_in = WR_PROBE_FAULT_IN;
#else
__u32 wr_cfg_fault_in = 0;
#endif
/* 1 when the probe has a `bt` (set after lowering): under --fault-in only
 * such a probe carries the unwinder, whose bpf_loop() callback shares the
 * 512 bytes of stack a program and its calls have. */
#ifdef WR_BASE_TRANSPORT
static const __u32 wr_cfg_has_bt = 1;
#else
__u32 wr_cfg_has_bt = 1;
#endif
/* How many `bt` and `count bt` statements the probe has (set after
 * lowering; a script has no loops, so each runs at most once an event):
 * no event of the probe opens more slots, and the probe's own loops over
 * the slots stop there, which leaves one copy of each for `bt;` where
 * there were WR_BT_MAX_SLOTS.  The step program walks them all. */
#ifdef WR_BASE_TRANSPORT
static const __u32 wr_cfg_bt_slots = WR_BT_MAX_SLOTS;
#else
__u32 wr_cfg_bt_slots = WR_BT_MAX_SLOTS;
#endif

/* ---- maps ----
 * All maps are defined here, never by the generator: libbpf needs a map's
 * BTF description, which clang writes from these definitions' debug info
 * (the reason the templates are built with -g). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} wr_ringbuf SEC(".maps");

#ifdef WR_BASE_TRANSPORT
/* Writes one word in every page of the next WR_WARM_CHUNKS chunks of the
 * ring and discards them; user space runs it (BPF_PROG_TEST_RUN) until the
 * whole ring has been written once, before the probes attach (runtime.c,
 * warm_ring: why).  Only the base objects carry it. */
SEC("raw_tp")
int wr_ring_warm(void *ctx)
{
	int n = 0;

	for (int i = 0; i < WR_WARM_CHUNKS; i++) {
		__u64 *p = bpf_ringbuf_reserve(&wr_ringbuf, WR_WARM_CHUNK, 0);

		if (!p)
			break;
		for (int j = 0; j < WR_WARM_CHUNK / 4096; j++)
			p[j * 512] = 0;
		bpf_ringbuf_discard(p, BPF_RB_NO_WAKEUP);
		n++;
	}
	return n;
}
#endif

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} wr_perfbuf SEC(".maps");

struct wr_event_buf {
	__u8 data[WR_EVENT_BUF_SIZE];
};

/* A probe's stack buffer for strings it compares (wr_read_user_str). */
struct wr_text {
	char c[64];
};

/* One assembly buffer per CPU, indexed by CPU: a per-CPU array's values
 * stop at 32 KiB, and a buffer is twice the largest event.  Userspace sizes
 * it to the possible CPUs before loading.  A probe and its step program run
 * on one CPU without migrating, so both find the same buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wr_event_buf);
} wr_event SEC(".maps");

WR_INLINE __u8 *event_buf(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&wr_event, &cpu);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wr_bt_state);
} wr_bt_state SEC(".maps");

/* Each module's rows and rules are maps of their own, created by userspace
 * with their exact size and stored in the module's slot of these two
 * array-of-maps; a library loaded later just gets a new slot. */
struct wr_rows_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	/* Sizes, not types: BTF keeps only a forward declaration of a struct
	 * reached through an inner map definition. */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct wr_cfi_row));
};

struct wr_rules_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct wr_cfi_rule));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, WR_MAX_MODULES);
	__type(key, __u32);
	__array(values, struct wr_rows_inner);
} wr_cfi_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, WR_MAX_MODULES);
	__type(key, __u32);
	__array(values, struct wr_rules_inner);
} wr_cfi_rules SEC(".maps");

/* Each traced process's executable mappings, in a slot of an array (the
 * step programs find it again by index, without hashing), and which slot
 * each process has. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct wr_proc_maps);
} wr_proc_maps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WR_MAX_PROCS);
	__type(key, __u32);   /* tgid */
	__type(value, __u32); /* slot in wr_proc_maps */
} wr_proc_slot SEC(".maps");

/* What the unwinder learnt about an instruction pointer: its module and
 * rule.  A hot function is reached from the same call sites on every hit,
 * so most frames are found here with one array lookup instead of two
 * binary searches.  Per CPU (each CPU's WR_FRAME_CACHE entries in a row,
 * see wr_stats: why not a per-CPU array), direct-mapped; an entry is
 * trusted only for the same process and the same generation of its
 * mappings. */
struct wr_frame_cache_ent {
	__u64 key;        /* ip, bit 63 set when the ip was exact */
	__u32 tgid;
	__u32 generation;
	__u64 word;       /* frame_word() of the frame */
	__u64 hash_in;    /* and what it adds to a stack's identity */
	struct wr_cfi_rule rule;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_FRAME_CACHE);
	__type(key, __u32);
	__type(value, struct wr_frame_cache_ent);
} wr_frame_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} wr_progs SEC(".maps");

/* Each CPU's counters of every probe id, CPU after CPU: userspace sizes
 * it to the possible CPUs before loading, and reads it through a mapping.
 * Not a per-CPU array: the kernel allocates each value of those on its
 * own, which cost 1.2-1.4 ms at every start for 4,096 values (about the
 * same for the frame cache), against 0.2 ms for one array of them all;
 * the lookup, inlined either way, costs the same. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_MAX_PROBES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct wr_probe_stats);
} wr_stats SEC(".maps");

/* When each probe starts: a probe's hits are taken only once the script
 * that added it is armed, so all the probes of a script start at one
 * instant, however far apart their uprobes were attached.  Entry 0 holds
 * the last script armed, entry WIRE_ID the script of that probe id (0:
 * not gated).  Userspace writes it through a mapping; arming a script is
 * one store to entry 0. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_MAX_PROBES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u32);
} wr_gate SEC(".maps");

/* `count bt`: hits by (probe, stack, key), and each stack's frames once
 * (see wire.h).  Userspace sizes both before loading (--stack-entries);
 * entries are allocated as stacks first appear, so a large map costs
 * memory only for the stacks a run really sees, and a session that
 * counts nothing does not pay at start-up for preallocating them. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WR_COUNT_DEFAULT_STACKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct wr_count_key);
	__type(value, __u64);
} wr_stack_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WR_COUNT_DEFAULT_STACKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct wr_count_stack);
} wr_stacks SEC(".maps");

/* ---- reads of user memory ----
 * Every read tries bpf_probe_read_user first, which never sleeps and costs
 * the same in both modes; only a read that failed (a page not resident,
 * or no page at all) retries with the faulting helper under --fault-in. */

/* Read @size bytes at @src into @dst; 0 or a negative errno (then @dst is
 * zeroed). */
WR_INLINE long user_read(void *dst, __u32 size, const void *src)
{
	long ret = bpf_probe_read_user(dst, size, src);

	if (ret && wr_cfg_fault_in)
		ret = bpf_copy_from_user(dst, size, src);
	return ret;
}

/* Fault in the page of @src and, when @size bytes from there cross into
 * the next page, that one too (failures ignored: the string may end
 * before an unmapped page).  One byte each, a fixed size the verifier
 * takes in any program state, copied to @dst (which the read that follows
 * overwrites): a byte of stack here would be one too many for a probe
 * whose own stack is nearly the 512 bytes a program and its calls share.
 * Not the bpf_copy_from_user_str kfunc this kernel has: a kfunc needs an
 * extern .ksyms declaration libbpf resolves, these two helper calls not. */
WR_INLINE void fault_in(void *dst, const void *src, __u32 size)
{
	__u64 a = (__u64)src;

	bpf_copy_from_user(dst, 1, src);
	if ((a & 4095) + size > 4096)
		bpf_copy_from_user(dst, 1, (const void *)((a | 4095) + 1));
}

/* bpf_probe_read_user_str, and under --fault-in once more after faulting
 * in the pages @size bytes from @src can touch (<= 2: sizes <= 512). */
WR_INLINE long user_read_str(void *dst, __u32 size, const void *src)
{
	long ret = bpf_probe_read_user_str(dst, size, src);

	if (ret < 0 && wr_cfg_fault_in) {
		fault_in(dst, src, size);
		ret = bpf_probe_read_user_str(dst, size, src);
	}
	return ret;
}

/* ---- event assembly ---- */

WR_INLINE struct wr_probe_stats *probe_stats(__u32 probe_id)
{
	__u32 i = bpf_get_smp_processor_id() * WR_MAX_PROBES + probe_id;

	if (probe_id >= WR_MAX_PROBES)
		return 0;
	return bpf_map_lookup_elem(&wr_stats, &i);
}

/* True when the script of probe @probe_id is armed (see wr_gate). */
WR_INLINE int probe_armed(__u32 probe_id)
{
	__u32 zero = 0, *script, *armed;

	script = bpf_map_lookup_elem(&wr_gate, &probe_id);
	if (!script || !*script)
		return 1;
	armed = bpf_map_lookup_elem(&wr_gate, &zero);
	return armed && *script <= *armed;
}

/* --fault-in: take this CPU's event buffer for thread @tid.  A sleepable
 * probe keeps its CPU but may sleep in a page fault, and another thread's
 * hit on that CPU meanwhile would reuse the buffer under it; such a hit is
 * dropped (counted lost) instead.  A holder that never let go (a probe
 * ending without output) is forgotten after about a second. */
WR_INLINE int claim_buffer(struct wr_bt_state *st, __u32 tid)
{
	__u32 now = (__u32)(bpf_ktime_get_ns() >> 20);

	if (st->holder && st->holder != tid && now - st->held_since < 1000)
		return 0;
	st->holder = tid;
	st->held_since = now;
	return 1;
}

/* Start an event for the probe of @cookie (wr_probe_cookie()).  Returns the
 * per-CPU buffer, or NULL when the current process or thread is not the one
 * the cookie names, the probe's script is not armed yet, a map is missing, or (under --fault-in) a probe
 * sleeping in a fault holds the buffer. */
WR_API __u8 *wr_event_begin(void *ctx, __u64 cookie)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 probe_id = (__u32)cookie, only = (__u32)(cookie >> 32);
	struct wr_event_header *h;
	struct wr_bt_state *st;
	struct wr_probe_stats *ps;
	__u32 zero = 0;
	__u8 *buf;

	if (only & WR_COOKIE_THREAD ? (__u32)pid_tgid != (only & ~WR_COOKIE_THREAD)
	    : only && (__u32)(pid_tgid >> 32) != only)
		return 0;
	if (!probe_armed(probe_id))
		return 0;
	buf = event_buf();
	st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	if (!buf || !st)
		return 0;
	ps = probe_stats(probe_id);
	if (ps)
		ps->hits++;
	if (wr_cfg_fault_in && !claim_buffer(st, (__u32)pid_tgid)) {
		if (ps)
			ps->lost++;
		return 0;
	}
	st->n_slots = 0;
	st->n_count = 0;
	st->cur = 0;
	st->stack_len = 0;
	st->proc_slot = WR_PROC_UNKNOWN;
	h = (struct wr_event_header *)buf;
	h->magic = WR_EVENT_MAGIC;
	h->probe_id = probe_id;
	h->pid = (__u32)(pid_tgid >> 32);
	h->tid = (__u32)pid_tgid;
	h->timestamp_ns = bpf_ktime_get_ns();
	h->payload_len = 0;
	h->flags = 0;
	h->n_items = 0;
	return buf;
}

/* The probe has statements that emit items: an event that ends with none
 * was filtered out by the probe's conditions and is counted, not sent. */
WR_API void wr_event_drop_empty(__u8 *buf)
{
	((struct wr_event_header *)buf)->flags |= WR_EVENT_F_DROP_EMPTY;
}

/* Reserve @size bytes (a multiple of 8) at the end of the payload.
 * Returns the payload offset, or -1 when the event would overflow (the
 * event is then flagged truncated). */
WR_INLINE long reserve(__u8 *buf, __u32 size)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	__u32 off = h->payload_len;

	if (off > WR_EVENT_MAX - sizeof(*h) || size > WR_EVENT_MAX - sizeof(*h) - off) {
		h->flags |= WR_EVENT_F_TRUNCATED;
		return -1;
	}
	h->payload_len = off + size;
	return off;
}

/* Pointer to payload offset @off; the mask keeps the verifier's bounds. */
WR_INLINE __u8 *payload_at(__u8 *buf, __u32 off)
{
	return buf + ((sizeof(struct wr_event_header) + off) & (WR_EVENT_MAX - 1));
}

/* @n, at most @limit (<= 255), in a form the verifier bounds in all 64
 * bits: a global function's 32-bit argument arrives with unknown upper
 * bits. */
WR_INLINE __u64 bounded(__u32 n, __u64 limit)
{
	__u64 v = n;

	WR_BARRIER_VAR(v);
	v &= 0xff;
	return v > limit ? limit : v;
}

/* Open an item of @type; returns its payload offset (to pass to
 * wr_item_close) or -1 when it did not fit. */
WR_SUBPROG long wr_item_open(struct wr_event_buf *ev, __u32 type, __u32 index)
{
	struct wr_item_header *ih;
	long off;

	if (!ev)
		return -1;
	off = reserve(ev->data, sizeof(*ih));
	if (off < 0)
		return -1;
	ih = (struct wr_item_header *)payload_at(ev->data, (__u32)off);
	ih->type = (__u8)type;
	ih->flags = 0;
	ih->length = 0;
	ih->index = (__u16)index;
	ih->reserved = 0;
	return off;
}

/* Close the item opened at @off: its length is everything appended since. */
WR_SUBPROG long wr_item_close(struct wr_event_buf *ev, long off)
{
	struct wr_event_header *h;
	struct wr_item_header *ih;

	if (!ev || off < 0)
		return 0;
	h = (struct wr_event_header *)ev->data;
	ih = (struct wr_item_header *)payload_at(ev->data, (__u32)off);
	ih->length = (__u16)(h->payload_len - (__u32)off - sizeof(*ih));
	h->n_items++;
	return 0;
}

/* Append a scalar print argument; @kind_status = wr_arg_kind_status(). */
WR_SUBPROG long wr_arg_scalar(struct wr_event_buf *ev, __u32 kind_status, __u32 size, __u64 value)
{
	struct wr_arg_header *ah;
	long off;

	if (!ev)
		return 0;
	off = reserve(ev->data, sizeof(*ah) + 8);
	if (off < 0)
		return 0;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	ah->kind = wr_arg_kind_of(kind_status);
	ah->status = wr_arg_status_of(kind_status);
	ah->len = 8;
	ah->aux = size;
	*(__u64 *)(ah + 1) = value;
	return 0;
}

/* Append a char pointer @uptr and the string it points to, at most max
 * bytes (<= 256); @max_status = wr_str_max_status(max, status), where a
 * non-zero status says reading the pointer itself failed (nothing is read
 * then).  @kind_aux: the argument kind (WR_ARG_CSTR or WR_ARG_ATTACH) |
 * aux << 8. */
WR_SUBPROG long wr_arg_cstr(struct wr_event_buf *ev, __u64 uptr, __u32 max_status, __u32 kind_aux)
{
	struct wr_arg_header *ah;
	__u32 max = wr_str_max_of(max_status), status = wr_str_status_of(max_status);
	long off, n = 0;

	if (!ev)
		return 0;
	max = max > WR_ARG_STR_MAX ? WR_ARG_STR_MAX : max;
	off = reserve(ev->data, sizeof(*ah) + 8 + WR_ARG_STR_MAX);
	if (off < 0)
		return 0;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	ah->kind = (__u8)kind_aux;
	ah->aux = kind_aux >> 8;
	*(__u64 *)(ah + 1) = uptr;
	/* A NULL pointer is a value (0x0); only a failed read is an error. */
	ah->status = (__u8)status;
	if (!status && uptr) {
		n = user_read_str((__u8 *)(ah + 1) + 8, max & 0x1ff, (const void *)uptr);
		ah->status = n < 0 ? WR_ARG_POINTEE_ERROR : WR_ARG_OK;
	}
	ah->len = 8 + (n > 0 ? (__u16)n : 0);
	/* Give back what the string did not use. */
	((struct wr_event_header *)ev->data)->payload_len -= 8 + WR_ARG_STR_MAX - ((ah->len + 7) & ~7u);
	return 0;
}

/* Append @size (<= 256) raw bytes read from user memory at @uptr;
 * @kind_status = kind | status << 8, where a non-zero status says finding
 * the address failed (nothing is read then).  When the bytes cannot be
 * given, their first 8 say the address whose read failed (0: none). */
WR_SUBPROG long wr_arg_user_bytes(struct wr_event_buf *ev, __u64 uptr, __u32 size, __u32 kind_status)
{
	struct wr_arg_header *ah;
	long off;

	if (!ev)
		return 0;
	size = size > 256 ? 256 : size;
	off = reserve(ev->data, sizeof(*ah) + ((size + 7) & ~7u));
	if (off < 0)
		return 0;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	ah->kind = (__u8)kind_status;
	ah->len = (__u16)size;
	ah->aux = (__u32)uptr;
	/* A failed read says where (wire.h), so user space may read it again;
	 * the slot holds 8 bytes for any size but 0, and the buffer has room
	 * after it. */
	if (kind_status >> 8) {
		ah->status = (__u8)(kind_status >> 8);
		*(__u64 *)(ah + 1) = 0;
	} else if (!uptr) {
		ah->status = WR_ARG_NULL_DEREF;
		*(__u64 *)(ah + 1) = 0;
	} else if (user_read(ah + 1, size & 0x1ff, (const void *)uptr)) {
		ah->status = WR_ARG_READ_ERROR;
		*(__u64 *)(ah + 1) = uptr;
	} else {
		ah->status = WR_ARG_OK;
	}
	return 0;
}

/* Open a WR_ARG_PIECES argument of @size_flags & WR_PIECES_SIZE_MASK
 * (<= WR_PIECES_MAX) bytes, with the WR_PIECES_F_* flags above: the
 * probe assembled the value itself (pieces in registers, memory,
 * constants) and fills it with one wr_arg_word() per 8 bytes, each
 * with its mask of bits not kept.  Returns the argument's payload offset
 * for wr_arg_word(), or -1 when it did not fit. */
WR_SUBPROG long wr_arg_pieces(struct wr_event_buf *ev, __u32 size_flags)
{
	struct wr_arg_header *ah;
	__u32 n, size = size_flags & WR_PIECES_SIZE_MASK;
	long off;

	if (!ev)
		return -1;
	size = size > WR_PIECES_MAX ? WR_PIECES_MAX : size;
	n = (size + 7) & ~7u;
	off = reserve(ev->data, sizeof(*ah) + 2 * n);
	if (off < 0)
		return -1;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	ah->kind = WR_ARG_PIECES;
	ah->status = WR_ARG_OK;
	ah->len = (__u16)(2 * n);
	ah->aux = size | (size_flags & ~WR_PIECES_SIZE_MASK);
	return off;
}

/* Word @index_status (wr_word_index_status()) of the WR_ARG_PIECES
 * argument at @off: its @value and @unavail, the mask of its bits not
 * kept.  A failed read's status becomes the argument's. */
WR_SUBPROG long wr_arg_word(struct wr_event_buf *ev, long off, __u32 index_status, __u64 value,
			    __u64 unavail)
{
	struct wr_arg_header *ah;
	__u32 index = wr_word_index_of(index_status), n;
	__u8 status = wr_word_status_of(index_status);

	if (!ev || off < 0 || off >= WR_EVENT_MAX)
		return 0;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	n = ((ah->aux & 0x1ff) + 7) / 8;
	if (index >= n)
		return 0;
	*(__u64 *)payload_at(ev->data, (__u32)off + 8 + index * 8) = value;
	*(__u64 *)payload_at(ev->data, (__u32)off + 8 + (n + index) * 8) = unavail;
	if (status && !ah->status)
		ah->status = status;
	return 0;
}

/* Append a memory dump: the address @uptr, then @len bytes read there (a
 * negative length reads nothing, one above WR_DUMP_MAX is cut to it, and
 * the length asked for goes in aux so the cut shows).  A non-zero @status
 * says finding the address failed (nothing is read then). */
WR_SUBPROG long wr_arg_dump(struct wr_event_buf *ev, __u64 uptr, __s64 len, __u32 status)
{
	struct wr_arg_header *ah;
	__u64 n;
	long off;

	if (!ev)
		return 0;
	n = len < 0 ? 0 : (__u64)len;
	n = n > WR_DUMP_MAX ? WR_DUMP_MAX : n;
	off = reserve(ev->data, sizeof(*ah) + 8 + WR_DUMP_MAX);
	if (off < 0)
		return 0;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	ah->kind = WR_ARG_DUMP;
	ah->aux = len < 0 ? 0 : len > 0xffffffffll ? 0xffffffffu : (__u32)len;
	*(__u64 *)(ah + 1) = uptr;
	ah->status = (__u8)status;
	WR_BARRIER_VAR(n);
	n &= 0x1ff;
	if (status || !n) {
		n = 0;
	} else if (!uptr) {
		n = 0;
		ah->status = WR_ARG_NULL_DEREF;
	} else if (user_read((__u8 *)(ah + 1) + 8, n > WR_DUMP_MAX ? WR_DUMP_MAX : n,
			     (const void *)uptr)) {
		n = 0;
		ah->status = WR_ARG_READ_ERROR;
	}
	ah->len = (__u16)(8 + n);
	/* Give back what the dump did not use. */
	((struct wr_event_header *)ev->data)->payload_len -= 8 + WR_DUMP_MAX - ((ah->len + 7) & ~7u);
	return 0;
}

/* Read @size (1..8) bytes at user address @uptr into *@dst (zero-extended).
 * Returns 0, 1 for a NULL address, or 2 for a failed read (wire statuses). */
WR_SUBPROG long wr_read_user(__u64 *dst, __u32 size, __u64 uptr)
{
	if (!dst)
		return WR_ARG_READ_ERROR;
	*dst = 0;
	if (!uptr)
		return WR_ARG_NULL_DEREF;
	if (user_read(dst, bounded(size, sizeof(*dst)), (const void *)uptr))
		return WR_ARG_READ_ERROR;
	return WR_ARG_OK;
}

/* Read up to @max (<= 64) bytes of a string at @uptr into @dst; returns the
 * bpf_probe_read_user_str result (length with the NUL, or negative). */
WR_SUBPROG long wr_read_user_str(struct wr_text *dst, __u32 max, __u64 uptr)
{
	if (!dst || !uptr)
		return -1;
	return user_read_str(dst->c, bounded(max, sizeof(dst->c)), (const void *)uptr);
}

/* The probe's wire id: the cookie its uprobe was attached with, so the
 * probes whose programs come out the same share one loaded program. */
/* The uprobe's attach cookie: the probe's wire id and the process or
 * thread it traces (WR_COOKIE_THREAD in protocol/wire.h). */
WR_API __u64 wr_probe_cookie(void *ctx)
{
	return bpf_get_attach_cookie(ctx);
}

WR_INLINE void expr_error(struct wr_event_buf *ev, __u32 index, __u32 code, __u32 flags, __u64 addr)
{
	struct wr_item_header *ih;
	struct wr_expr_error *x;
	long off = reserve(ev->data, sizeof(*ih) + sizeof(*x));

	if (off < 0)
		return;
	ih = (struct wr_item_header *)payload_at(ev->data, (__u32)off);
	ih->type = WR_ITEM_EXPR_ERROR;
	ih->flags = 0;
	ih->length = sizeof(*x);
	ih->index = (__u16)index;
	ih->reserved = 0;
	x = (struct wr_expr_error *)(ih + 1);
	x->addr = addr;
	x->code = (__u8)code;
	x->flags = (__u8)flags;
	x->reserved0 = 0;
	x->reserved = 0;
	((struct wr_event_header *)ev->data)->n_items++;
}

/* Read @len bytes of one side into @dst unless they are held already;
 * returns 0 or a wire status. */
WR_INLINE __u32 cmp_side(__u8 *dst, __u64 len, __u64 uptr, __u32 held, __u32 status)
{
	if (held)
		return 0;
	if (status)
		return status;
	if (!uptr)
		return WR_ARG_NULL_DEREF;
	return user_read(dst, len, (const void *)uptr) ? WR_ARG_READ_ERROR : 0;
}

/* Make the comparison @c describes between user addresses @a and @b
 * (see struct wr_cmp_buf): 1 when the bytes are equal, else 0.  A length
 * of 0 is equal without a read.  A side that cannot be read makes it 0 and
 * appends an expression-error item to @ev. */
WR_SUBPROG long wr_mem_equal(struct wr_event_buf *ev, struct wr_cmp_buf *c, __u64 a, __u64 b)
{
	__u64 len, limit, diff = 0;
	__u32 flags = 0, st;

	if (!ev || !c)
		return 0;
	limit = c->limit > WR_CMP_MAX ? WR_CMP_MAX : c->limit;
	len = c->len < 0 ? 0 : (__u64)c->len;
	if (c->len < 0 || len > limit)
		flags |= WR_EXPR_F_LEN_CLAMPED;
	len = len > limit ? limit : len;
	WR_BARRIER_VAR(len);
	len &= 0x7f;
	len = len > WR_CMP_MAX ? WR_CMP_MAX : len;
	if (!len)
		return 1;
	st = cmp_side(c->a, len, a, c->flags & WR_CMP_A_HELD, c->status_a);
	if (st) {
		expr_error(ev, c->index, st, flags | WR_EXPR_F_FIRST_ARG, c->status_a ? c->at_a : a);
		return 0;
	}
	st = cmp_side(c->b, len, b, c->flags & WR_CMP_B_HELD, c->status_b);
	if (st) {
		expr_error(ev, c->index, st, flags | WR_EXPR_F_SECOND_ARG, c->status_b ? c->at_b : b);
		return 0;
	}
	/* Every byte is visited: one path for the verifier, whatever the length. */
	for (__u32 i = 0; i < WR_CMP_MAX; i++)
		diff |= (__u64)(c->a[i] ^ c->b[i]) & (i < len ? 0xff : 0);
	return diff == 0;
}

/* Append an expression error item: @index_code = the expression's number
 * | status << 16; @addr the failing address. */
WR_SUBPROG long wr_expr_error(struct wr_event_buf *ev, __u32 index_code, __u64 addr)
{
	if (ev)
		expr_error(ev, index_code & 0xffff, (index_code >> 16) & 0xff, 0, addr);
	return 0;
}

WR_API __u64 wr_pid_tgid(void)
{
	return bpf_get_current_pid_tgid();
}

/* Thread group and thread ids as the PID namespace (@dev, @ino) sees
 * them, packed as bpf_get_current_pid_tgid() packs them; the host's ids
 * when the thread is not in that namespace. */
WR_API __u64 wr_ns_pid_tgid(__u64 dev, __u64 ino)
{
	struct bpf_pidns_info ns;

	if (bpf_get_ns_current_pid_tgid(dev, ino, &ns, sizeof(ns)))
		return bpf_get_current_pid_tgid();
	return (__u64)ns.tgid << 32 | ns.pid;
}

WR_API __u64 wr_ktime(void)
{
	return bpf_ktime_get_ns();
}

/* The thread pointer of the current thread (x86-64: the fs base, which
 * the kernel keeps in task_struct.thread.fsbase at @fsbase_off, found in
 * the kernel's BTF); 0 when it cannot be read. */
WR_API __u64 wr_thread_pointer(__u64 fsbase_off)
{
	__u64 fs = 0;

	bpf_probe_read_kernel(&fs, sizeof(fs), (const __u8 *)bpf_get_current_task() + fsbase_off);
	return fs;
}

/* ---- the unwinder ---- */

/* Both binary searches run under bpf_loop(): the verifier checks the
 * callback once instead of walking every iteration of every search of every
 * frame, which no bounded loop of this shape survives. */

struct map_search {
	struct wr_proc_maps *pm;
	__u64 ip;
	__u32 lo;
	__u32 hi;
	__u32 found; /* index + 1, 0 = not found */
	__u32 pad;
};

static long map_search_step(__u32 i, void *arg)
{
	struct map_search *ms = arg;
	struct wr_mapping *m;
	__u32 mid;

	if (ms->lo >= ms->hi)
		return 1;
	mid = (ms->lo + ms->hi) / 2;
	m = &ms->pm->m[mid & (WR_MAX_MAPPINGS - 1)];
	if (ms->ip < m->start) {
		ms->hi = mid;
	} else if (ms->ip >= m->end) {
		ms->lo = mid + 1;
	} else {
		ms->found = mid + 1;
		return 1;
	}
	return 0;
}

/* The mapping of @pm that holds @ip, or NULL. */
WR_INLINE struct wr_mapping *find_mapping(struct wr_proc_maps *pm, __u64 ip)
{
	struct map_search ms = { .pm = pm, .ip = ip, .hi = pm->count };

	if (ms.hi > WR_MAX_MAPPINGS)
		ms.hi = WR_MAX_MAPPINGS;
	bpf_loop(WR_MAP_SEARCH_STEPS, map_search_step, &ms, 0);
	if (!ms.found)
		return 0;
	return &pm->m[(ms.found - 1) & (WR_MAX_MAPPINGS - 1)];
}

struct row_search {
	void *rows;  /* the module's row map, looked up once per search */
	__u64 pc;
	__u32 lo;
	__u32 hi;
	__u32 found; /* rule index */
	__u32 pad;
};

static long row_search_step(__u32 i, void *arg)
{
	struct row_search *rs = arg;
	struct wr_cfi_row *row;
	__u32 mid;

	if (rs->lo >= rs->hi)
		return 1;
	mid = rs->lo + (rs->hi - rs->lo) / 2;
	row = bpf_map_lookup_elem(rs->rows, &mid);
	if (!row)
		return 1;
	/* Greatest row with row.pc <= pc. */
	if (row->pc <= rs->pc) {
		rs->found = row->rule;
		rs->lo = mid + 1;
	} else {
		rs->hi = mid;
	}
	return 0;
}

/* Index of the rule covering @pc among the @count rows of module slot
 * @slot, or WR_CFI_RULE_NONE. */
WR_INLINE __u32 find_rule(__u32 slot, __u32 count, __u64 pc)
{
	struct row_search rs = { .pc = pc, .hi = count, .found = WR_CFI_RULE_NONE };

	rs.rows = bpf_map_lookup_elem(&wr_cfi_rows, &slot);
	if (!rs.rows || pc > 0xffffffffull)
		return WR_CFI_RULE_NONE;
	bpf_loop(WR_ROW_SEARCH_STEPS, row_search_step, &rs, 0);
	return rs.found;
}

WR_INLINE struct wr_bt_header *bt_header(__u8 *buf, struct wr_bt_slot *s)
{
	return (struct wr_bt_header *)payload_at(buf, s->item_off);
}

/* Stop unwinding slot @s with @status and @error and write its header. */
WR_INLINE void slot_finish(__u8 *buf, struct wr_bt_slot *s, __u32 status, __u32 error)
{
	struct wr_bt_header *bh = bt_header(buf, s);

	s->flags &= ~WR_SLOT_F_PENDING;
	s->status = (__u8)status;
	s->error = (__u16)error;
	bh->frame_count = s->count;
	bh->status = (__u8)status;
	bh->error_code = (__u16)error;
}

/* The end of slot @s's item while it still holds every frame it reserved. */
WR_INLINE __u32 slot_end(struct wr_bt_slot *s)
{
	return s->item_off + sizeof(struct wr_bt_header) + s->depth * sizeof(struct wr_bt_frame);
}

/* Give back the frames slot @s reserved and did not use, when its item is
 * the last of the event so far. */
WR_INLINE void trim_bt(__u8 *buf, struct wr_bt_slot *s)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_item_header *ih;
	__u32 used;

	if (slot_end(s) != h->payload_len || s->item_off < sizeof(*ih))
		return;
	used = sizeof(struct wr_bt_header) + s->count * sizeof(struct wr_bt_frame);
	ih = (struct wr_item_header *)payload_at(buf, s->item_off - sizeof(*ih));
	ih->length = (__u16)used;
	h->payload_len = s->item_off + used;
}

/* The word at offset @off (a multiple of 8) of the stack copy.  Indexed
 * as words: through a pointer into a byte array clang assumes no
 * alignment and reads the word a byte at a time. */
WR_INLINE __u64 stack_word(struct wr_bt_state *st, __u64 off)
{
	const __u64 *w = (const __u64 *)st->stack;

	return w[(off / sizeof(*w)) & (WR_BT_STACK_MAX / sizeof(*w) - 1)];
}

/* Read 8 bytes of user memory at @addr, from the copy of the stack in @st
 * when it holds them.  Otherwise copy the stack from just below @addr (the
 * caller frames lie above): WR_BT_STACK_CHUNK bytes the first time in an
 * event, then four times the last copy each time a walk has used one up
 * (it is deep: fewer, larger copies), up to WR_BT_STACK_MAX, or, where
 * that fails (the end of a mapping), WR_BT_STACK_CHUNK bytes, or only the
 * 8.  Stack words are aligned; a word that is not is read on its own. */
WR_INLINE int read_u64(struct wr_bt_state *st, __u64 *dst, __u64 addr)
{
	__u64 off = addr - st->stack_base;

	if (addr & 7)
		return user_read(dst, sizeof(*dst), (const void *)addr);
	if (st->stack_len == 0 || off > st->stack_len - sizeof(*dst)) {
		__u64 base = addr - 16;
		__u32 len = st->stack_len * 4;

		if (len < WR_BT_STACK_CHUNK || len > WR_BT_STACK_MAX)
			len = len ? WR_BT_STACK_MAX : WR_BT_STACK_CHUNK;
		if (bpf_probe_read_user(st->stack, len, (const void *)base)) {
			if (len == WR_BT_STACK_CHUNK ||
			    bpf_probe_read_user(st->stack, WR_BT_STACK_CHUNK, (const void *)base)) {
				st->stack_len = 0;
				return user_read(dst, sizeof(*dst), (const void *)addr);
			}
			len = WR_BT_STACK_CHUNK;
		}
		st->stack_base = base;
		st->stack_len = len;
		off = 16;
	}
	*dst = stack_word(st, off);
	return 0;
}

/* The second word of the frame record at @ip (pc, cookie and flags, as
 * struct wr_bt_frame lays them out) in the module of @cookie loaded at
 * @bias (@cookie 0: unknown module; so is a pc beyond the frame's 32 bits),
 * and in *@hash_in what the frame adds to a stack's identity for `count
 * bt`: module and pc where the module is known (the same in every
 * process), the raw ip where it is not. */
WR_INLINE __u64 frame_word(__u64 ip, __u32 exact, __u64 cookie, __u64 bias, __u64 *hash_in)
{
	__u64 pc = ip - bias;

	if (pc > 0xffffffffull)
		cookie = 0;
	*hash_in = cookie ? cookie << 32 | pc : ip;
	return (cookie ? pc : 0) | (cookie & 0xffff) << 32 |
	       (__u64)(exact ? WR_FRAME_F_EXACT_IP : 0) << 48;
}

/* Record the frame at s->ip as frame s->count: its record is s->ip and
 * @word (frame_word()), two stores. */
WR_INLINE void put_frame(__u8 *buf, struct wr_bt_slot *s, __u64 word, __u64 hash_in)
{
	__u32 off = (s->item_off & (WR_EVENT_MAX - 1)) + sizeof(struct wr_bt_header) +
		    (s->count & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame);
	__u64 *f = (__u64 *)(buf + sizeof(struct wr_event_header) + off);

	if (s->flags & WR_SLOT_F_COUNT) {
		s->hash = (s->hash ^ hash_in) * 0x9e3779b97f4a7c15ull;
		s->hash ^= s->hash >> 29;
	}
	f[0] = s->ip;
	f[1] = word;
	s->count++;
}

/* Record the frame at s->ip, in the module of @cookie loaded at @bias. */
WR_INLINE void emit_frame(__u8 *buf, struct wr_bt_slot *s, __u64 cookie, __u64 bias)
{
	__u64 hash_in, word = frame_word(s->ip, s->flags & WR_SLOT_F_EXACT, cookie, bias, &hash_in);

	put_frame(buf, s, word, hash_in);
}

/* Another tool's uretprobe replaces a return address on the stack with the
 * kernel's return trampoline and keeps the real one in the task's list of
 * return instances, newest first; the instance whose stack pointer is the
 * slot the address was read from (the function's entry sp) holds it.  The
 * list belongs to the current task and changes only in its own context,
 * so it is stable while the probe runs.  Returns the real address, or @ra
 * when no instance matches (the frame then stops as unknown). */
#define WR_URETPROBE_MAX 64 /* the kernel's MAX_URETPROBE_DEPTH */

struct uretprobe_search {
	struct return_instance___wr *ri; /* the next instance to look at */
	__u64 slot;
	__u64 ra;
};

/* The list is read with bpf_probe_read_kernel(), not loaded through
 * pointers: the verifier checks a load of a pointer through one it trusts
 * (the current task) by searching the kernel's whole BTF by name, about
 * 1 ms each time it walks the load here; and under bpf_loop() it checks
 * the step once, not once per instance as in a bounded loop. */
static long uretprobe_step(__u32 i, void *arg)
{
	struct uretprobe_search *us = arg;
	struct return_instance___wr *ri = us->ri;

	if (!ri || BPF_CORE_READ(ri, stack) != us->slot) {
		us->ri = ri ? BPF_CORE_READ(ri, next) : 0;
		return !us->ri;
	}
	us->ra = BPF_CORE_READ(ri, orig_ret_vaddr);
	return 1;
}

WR_INLINE __u64 uretprobe_return(__u64 slot, __u64 ra)
{
	struct task_struct___wr *task = (void *)bpf_get_current_task();
	struct uretprobe_search us = {
		.ri = BPF_CORE_READ(task, utask, return_instances), .slot = slot, .ra = ra,
	};

	bpf_loop(WR_URETPROBE_MAX, uretprobe_step, &us, 0);
	return us.ra;
}

/* The address of the current process's uretprobe return trampoline (the
 * start of its [uprobes] area), or 0 when it has none yet. */
WR_INLINE __u64 uretprobe_trampoline(void)
{
	struct task_struct___wr *task = (void *)bpf_get_current_task_btf();
	struct xol_area___wr *area = task->mm->uprobes_state.xol_area;

	return area ? area->vaddr : 0;
}

/* Apply a signal-trampoline row: the interrupted context is the ucontext
 * the kernel pushed at the trampoline's rsp.  Returns WR_MOVED or a stop
 * status with *error set. */
WR_INLINE __u32 unwind_signal(struct wr_bt_state *st, struct wr_bt_slot *s, __u32 *error)
{
	__u64 ip, sp, bp;

	if (read_u64(st, &ip, s->sp + WR_UCTX_RIP) || read_u64(st, &sp, s->sp + WR_UCTX_RSP)) {
		*error = WR_BTE_RETURN_ADDRESS_READ;
		return WR_BT_READ_ERROR;
	}
	if (ip < 0x1000) {
		*error = WR_BTE_NEXT_IP_BELOW_USER;
		return WR_BT_INVALID_FRAME;
	}
	if (read_u64(st, &bp, s->sp + WR_UCTX_RBP))
		s->flags &= ~WR_SLOT_F_BP_VALID;
	else
		s->flags |= WR_SLOT_F_BP_VALID;
	s->ip = ip;
	s->sp = sp;
	s->bp = bp;
	s->flags |= WR_SLOT_F_EXACT;
	return WR_MOVED;
}

/* Recover the caller's rbp under @r; clears BP_VALID when unknown. */
WR_INLINE void recover_bp(struct wr_bt_state *st, struct wr_bt_slot *s, struct wr_cfi_rule *r,
			    __u64 cfa)
{
	__u64 bp = s->bp;

	if (r->rbp_rule == WR_RULE_AT_CFA || r->rbp_rule == WR_RULE_AT_RBP) {
		__u64 at = r->rbp_rule == WR_RULE_AT_CFA ? cfa : s->bp;

		if (r->rbp_rule == WR_RULE_AT_RBP && !(s->flags & WR_SLOT_F_BP_VALID)) {
			s->flags &= ~WR_SLOT_F_BP_READ_FAILED;
		} else if (read_u64(st, &bp, at + r->rbp_off)) {
			s->flags &= ~WR_SLOT_F_BP_VALID;
			s->flags |= WR_SLOT_F_BP_READ_FAILED;
		} else {
			s->flags |= WR_SLOT_F_BP_VALID;
			s->flags &= ~WR_SLOT_F_BP_READ_FAILED;
		}
	} else if (r->rbp_rule == WR_RULE_VAL_CFA) {
		bp = cfa + r->rbp_off;
		s->flags |= WR_SLOT_F_BP_VALID;
	} else if (r->rbp_rule == WR_RULE_REGISTER && r->rbp_off == WR_DWARF_RSP) {
		bp = s->sp; /* the caller's rbp is this frame's rsp */
		s->flags |= WR_SLOT_F_BP_VALID;
	} else if (r->rbp_rule != WR_RULE_SAME_VALUE) {
		s->flags &= ~(WR_SLOT_F_BP_VALID | WR_SLOT_F_BP_READ_FAILED);
	}
	s->bp = bp;
}

/* Move slot @s from its frame to the caller under rule @r.  Returns
 * WR_MOVED, WR_BT_COMPLETE when the stack ends here, or a stop status with
 * *error set. */
WR_INLINE __u32 unwind_normal(struct wr_bt_state *st, struct wr_bt_slot *s,
			       struct wr_cfi_rule *r, __u32 *error)
{
	__u64 cfa, ra;

	/* The CFA needs rbp, which is unknown: because reading it failed, or
	 * because an earlier frame's rule for it had no compact form. */
	if (r->cfa_reg == WR_DWARF_RBP && !(s->flags & WR_SLOT_F_BP_VALID)) {
		if (!(s->flags & WR_SLOT_F_BP_READ_FAILED)) {
			*error = 0;
			return WR_BT_UNSUPPORTED_CFI;
		}
		*error = WR_BTE_FRAME_POINTER_READ;
		return WR_BT_READ_ERROR;
	}
	cfa = (r->cfa_reg == WR_DWARF_RBP ? s->bp : s->sp) + (__s64)r->cfa_off;
	if (r->cfa_kind == WR_CFA_DEREF && read_u64(st, &cfa, cfa)) {
		*error = WR_BTE_FRAME_POINTER_READ;
		return WR_BT_READ_ERROR;
	}
	if (r->ra_rule == WR_RULE_UNDEFINED)
		return WR_BT_COMPLETE; /* the outermost frame: _start, clone */
	if (r->ra_rule != WR_RULE_AT_CFA)
		return WR_BT_UNSUPPORTED_CFI;
	if (read_u64(st, &ra, cfa + r->ra_off)) {
		*error = WR_BTE_RETURN_ADDRESS_READ;
		return WR_BT_READ_ERROR;
	}
	if (ra == st->uretprobe_tramp && ra)
		ra = uretprobe_return(cfa + r->ra_off, ra);
	if (ra == 0)
		return WR_BT_COMPLETE;
	if (ra < 0x1000) {
		*error = WR_BTE_NEXT_IP_BELOW_USER;
		return WR_BT_INVALID_FRAME;
	}
	if (ra >> 56) {
		*error = WR_BTE_NEXT_IP_KERNEL_LIKE;
		return WR_BT_INVALID_FRAME;
	}
	if (cfa == 0) {
		*error = WR_BTE_NEXT_CFA_ZERO;
		return WR_BT_INVALID_FRAME;
	}
	if (cfa <= s->sp) {
		*error = WR_BTE_NEXT_CFA_NOT_ADVANCING;
		return WR_BT_INVALID_FRAME;
	}
	recover_bp(st, s, r, cfa);
	s->ip = ra;
	s->sp = cfa;
	s->flags &= ~WR_SLOT_F_EXACT;
	return WR_MOVED;
}

/* The rule for the current frame of @s in mapping @m; @rule0 is the
 * compile-time rule of the probe's own pc, used for frame 0 unless it is
 * WR_RULE_LOOKUP.  Returns a rule, or NULL with *status set. */
WR_INLINE struct wr_cfi_rule *frame_rule(struct wr_bt_slot *s, struct wr_mapping *m,
					 __u32 rule0, __u32 *status)
{
	__u64 pc = s->ip - m->bias;
	struct wr_cfi_rule *r;
	void *rules;
	__u32 idx;

	if (m->row_count == 0) {
		*status = WR_BT_DWARF_UNAVAILABLE;
		return 0;
	}
	if (s->count == 1 && rule0 != WR_RULE_LOOKUP)
		idx = rule0;
	else
		idx = find_rule(m->slot, m->row_count, (s->flags & WR_SLOT_F_EXACT) ? pc : pc - 1);
	if (idx == WR_CFI_RULE_NONE) {
		*status = WR_BT_NO_ROWS_FOR_PC;
		return 0;
	}
	rules = bpf_map_lookup_elem(&wr_cfi_rules, &m->slot);
	r = rules ? bpf_map_lookup_elem(rules, &idx) : 0;
	if (!r)
		*status = WR_BT_INTERNAL_ERROR;
	return r;
}

/* Move @s to its caller under @r; returns WR_MOVED or a stop status. */
WR_INLINE __u32 apply_rule(struct wr_bt_state *st, struct wr_bt_slot *s, struct wr_cfi_rule *r,
			    __u32 *error)
{
	if (r->kind == WR_ROW_SIGNAL)
		return unwind_signal(st, s, error);
	if (r->kind == WR_ROW_NORMAL)
		return unwind_normal(st, s, r, error);
	return WR_BT_UNSUPPORTED_CFI;
}

/* ---- handing a walk over to userspace ---- */

struct vma_probe {
	__u64 start;
	__u64 end;
	__u64 pgoff;
	__u64 ino;
	__u32 dev;
	__u32 found;
};

static long vma_found(void *task, struct vm_area_struct___wr *vma, void *data)
{
	struct vma_probe *vp = data;
	/* Read, not loaded (see uretprobe_step()): @vma is trusted. */
	struct file___wr *f = BPF_CORE_READ(vma, vm_file);

	vp->start = vma->vm_start;
	vp->end = vma->vm_end;
	vp->pgoff = (__u64)vma->vm_pgoff << 12;
	if (f) {
		vp->ino = BPF_CORE_READ(f, f_inode, i_ino);
		vp->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	}
	vp->found = 1;
	return 0;
}

/* Append the user stack from @base up: aligned chunks up to the first
 * that cannot be read (the end of the stack), WR_STACK_COPY_MAX bytes or
 * the end of the event, whichever comes first.  Returns the bytes copied. */
WR_INLINE __u32 copy_stack(__u8 *buf, __u64 base)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	__u32 len = 0;

	for (int i = 0; i <= WR_STACK_COPY_MAX / WR_STACK_CHUNK; i++) {
		__u64 addr = base + len;
		__u32 n = WR_STACK_CHUNK - (__u32)(addr & (WR_STACK_CHUNK - 1)), off = h->payload_len;

		if (n > WR_STACK_COPY_MAX - len)
			n = WR_STACK_COPY_MAX - len;
		if (n == 0 || off > WR_EVENT_MAX - sizeof(*h) - WR_STACK_CHUNK)
			break;
		if (bpf_probe_read_user(payload_at(buf, off), n & (2 * WR_STACK_CHUNK - 1),
					(const void *)addr))
			break;
		h->payload_len = off + n;
		len += n;
	}
	return len;
}

/* The walk of slot @s stopped at a frame in no mapping the kernel knows
 * (the only stop with this status): userspace finishes it. */
WR_INLINE int handed_over(struct wr_bt_slot *s)
{
	return s->status == WR_BT_OFFSETS_UNAVAILABLE;
}

/* Slot @s is a bt with frame values (args, full). */
WR_INLINE int has_values(__u8 *buf, struct wr_bt_slot *s)
{
	return bt_header(buf, s)->flags & (WR_BT_F_ARGS | WR_BT_F_FULL);
}

/* Attach the event's one copy of the stack (it is large) for the slot @s
 * finish_one() chose, the event's backtrace item st->stack_bt (a `count
 * bt` is never sent, so nothing could finish it), in two cases.  Handed
 * over: the copy starts at the frame the walk stopped at and
 * carries its registers and the kernel's own view of its mapping, so
 * userspace can learn the mapping and finish the walk.  A bt with frame
 * values: the copy starts below frame 0's sp (a leaf function keeps its
 * variables in the red zone there), after frame 0's registers, for
 * userspace to read every frame's variables from (and to finish the walk
 * from too, when it was handed over). */
WR_INLINE void attach_stack(void *ctx, __u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s)
{
	int handover = handed_over(s), values = has_values(buf, s);
	__u32 hsize = sizeof(struct wr_stack_header) + (values ? sizeof(struct wr_stack_regs) : 0);
	struct wr_stack_header *sh;
	struct wr_stack_regs *r0;
	struct vma_probe vp = {};
	long item;

	trim_bt(buf, s);
	item = wr_item_open((struct wr_event_buf *)buf, WR_ITEM_STACK, 0);
	if (item < 0)
		return;
	if (reserve(buf, hsize) < 0) {
		((struct wr_event_header *)buf)->payload_len = (__u32)item;
		return;
	}
	if (handover)
		bpf_find_vma(bpf_get_current_task_btf(), s->ip, vma_found, &vp, 0);
	sh = (struct wr_stack_header *)payload_at(buf, (__u32)item + sizeof(struct wr_item_header));
	sh->ip = s->ip;
	sh->sp = s->sp;
	sh->bp = s->bp;
	sh->base = s->sp & ~7ull;
	if (values) {
		/* The registers as the kernel saved them, in one read: the
		 * step program may not dereference its context at a computed
		 * offset.  On failure they read as zero and userspace, seeing
		 * no frame 0 there, shows no values. */
		r0 = (struct wr_stack_regs *)(sh + 1);
		bpf_probe_read_kernel(r0, sizeof(*r0), ctx);
		sh->base = (r0->sp - WR_STACK_RED_ZONE) & ~7ull;
		if (!handover) { /* the copy never starts above sp */
			sh->ip = r0->ip;
			sh->sp = r0->sp;
			sh->bp = r0->bp;
		}
	}
	sh->vma_start = vp.start;
	sh->vma_end = vp.end;
	sh->vma_pgoff = vp.pgoff;
	sh->vma_ino = vp.ino;
	sh->vma_dev = vp.dev;
	sh->bt_index = (__u16)st->stack_bt;
	sh->slot_flags = s->flags;
	sh->flags = (vp.found ? WR_STACK_F_VMA : 0) | (handover ? WR_STACK_F_HANDOVER : 0) |
		    (values ? WR_STACK_F_REGS : 0);
	sh->reserved = 0;
	sh->len = 0;
	sh->len = copy_stack(buf, sh->base);
	wr_item_close((struct wr_event_buf *)buf, item);
}

WR_INLINE struct wr_frame_cache_ent *cache_slot(__u64 key, __u32 tgid)
{
	__u32 i = (__u32)((key >> 4) ^ (key >> 20) ^ tgid) & (WR_FRAME_CACHE - 1);

	i += bpf_get_smp_processor_id() * WR_FRAME_CACHE;
	return bpf_map_lookup_elem(&wr_frame_cache, &i);
}

/* memo_plain: the remembered rule has the short form plain_run() takes
 * (the CFA from rsp or rbp plus an offset, the return address at the CFA,
 * rbp kept or saved at the CFA); with these bits for its variants. */
#define WR_MEMO_PLAIN    0x1u
#define WR_MEMO_CFA_RBP  0x2u /* the CFA is rbp-based */
#define WR_MEMO_BP_SAVED 0x4u /* the caller's rbp is saved at the CFA */
#define WR_MEMO_SKIP     0x8u /* the next frame takes the general path */

WR_INLINE __u32 plain_form(struct wr_cfi_rule *r)
{
	if (r->kind != WR_ROW_NORMAL || r->cfa_kind != WR_CFA_REG_OFF || r->ra_rule != WR_RULE_AT_CFA)
		return 0;
	if (r->cfa_reg != WR_DWARF_RSP && r->cfa_reg != WR_DWARF_RBP)
		return 0;
	if (r->rbp_rule != WR_RULE_SAME_VALUE && r->rbp_rule != WR_RULE_AT_CFA)
		return 0;
	return WR_MEMO_PLAIN | (r->cfa_reg == WR_DWARF_RBP ? WR_MEMO_CFA_RBP : 0) |
	       (r->rbp_rule == WR_RULE_AT_CFA ? WR_MEMO_BP_SAVED : 0);
}

/* Remember @rule of the frame at @key, whose record's second word is
 * @word, for the rest of the walk. */
WR_INLINE void memo_set(struct wr_bt_state *st, __u64 key, __u64 word, __u64 hash_in,
			struct wr_cfi_rule *rule)
{
	st->memo_key = key;
	st->memo_word = word;
	st->memo_hash = hash_in;
	st->memo_rule = *rule;
	st->memo_plain = plain_form(&st->memo_rule);
}

/* The rule of the frame at s->ip from the frame cache or the maps, after
 * recording the frame; NULL when the walk stopped there. */
WR_INLINE struct wr_cfi_rule *lookup_frame(__u8 *buf, struct wr_bt_state *st,
					   struct wr_bt_slot *s, struct wr_proc_maps *pm,
					   __u64 key, __u32 rule0)
{
	__u32 tgid = ((struct wr_event_header *)buf)->pid, status = WR_BT_INTERNAL_ERROR;
	struct wr_frame_cache_ent *c = cache_slot(key, tgid);
	struct wr_mapping *m;
	struct wr_cfi_rule *r;
	__u64 word, hash_in;

	if (c && c->key == key && c->tgid == tgid && c->generation == pm->generation) {
		memo_set(st, key, c->word, c->hash_in, &c->rule);
		put_frame(buf, s, st->memo_word, st->memo_hash);
		return &st->memo_rule;
	}
	m = find_mapping(pm, s->ip);
	word = frame_word(s->ip, key >> 63, m ? m->cookie : 0, m ? m->bias : 0, &hash_in);
	put_frame(buf, s, word, hash_in);
	if (!m) {
		slot_finish(buf, s, WR_BT_OFFSETS_UNAVAILABLE, 0); /* handed over */
		return 0;
	}
	r = frame_rule(s, m, rule0, &status);
	if (!r) {
		slot_finish(buf, s, status, 0);
		return 0;
	}
	memo_set(st, key, word, hash_in, r);
	if (c) {
		c->key = key;
		c->tgid = tgid;
		c->generation = pm->generation;
		c->word = word;
		c->hash_in = hash_in;
		c->rule = *r;
	}
	return &st->memo_rule;
}

/* Frames plain_run() unwinds in one go at most: the verifier walks its
 * loop once per frame of it. */
#define WR_PLAIN_RUN 8

/* plain_run() of an rsp-based rule: every frame of the run has the same
 * size (the CFA offset), so where each one's return address lies in the
 * copy is known before the loop, which then only checks that the copy
 * holds it, compares it with the frame's own and stores the frame.  rbp
 * is either kept or saved below the return address, where only the run's
 * last frame's copy matters. */
WR_INLINE __u32 plain_run_sp(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s, __u32 plain)
{
	__s64 size = st->memo_rule.cfa_off, ra_off = st->memo_rule.ra_off;
	__s64 bp_below = ra_off - st->memo_rule.rbp_off;
	__u64 ip = s->ip, word = st->memo_word, len = st->stack_len, room;
	__u64 off = s->sp + size + ra_off - st->stack_base, bp_at = off - bp_below;
	__u32 n, count = s->count;
	__u8 *frames = buf + sizeof(struct wr_event_header) + sizeof(struct wr_bt_header) +
		       (s->item_off & (WR_EVENT_MAX - 1));
	__u64 *f;

	/* The copy's base and length are multiples of 8: an aligned offset
	 * below the length has all 8 bytes. */
	if (size <= 0 || (size & 7) || (off & 7) || off >= len)
		return 0;
	if ((plain & WR_MEMO_BP_SAVED) && (bp_below <= 0 || (bp_below & 7) || bp_at >= len))
		return 0;
	/* The last frame stops the walk: the general path's. */
	room = (__u64)s->depth - count - 1;
	for (n = 0; n < WR_PLAIN_RUN; n++) {
		if (n >= room || off >= len || stack_word(st, off) != ip)
			break;
		f = (__u64 *)(frames + ((count + n) & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame));
		f[0] = ip;
		f[1] = word;
		off += size;
	}
	if (!n)
		return 0;
	if (plain & WR_MEMO_BP_SAVED) {
		s->bp = stack_word(st, off - size - bp_below);
		s->flags = (s->flags | WR_SLOT_F_BP_VALID) & ~WR_SLOT_F_BP_READ_FAILED;
	}
	s->sp += n * size;
	s->count = (__u16)(count + n);
	return n;
}

/* plain_run() of an rbp-based rule (frame pointers): the CFA comes from
 * the rbp each frame saved, so each frame is checked on its own. */
WR_INLINE __u32 plain_run_bp(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s, __u32 plain)
{
	__u32 n, count = s->count, depth = s->depth, len = st->stack_len;
	__u64 ip = s->ip, sp = s->sp, bp = s->bp, cfa, off, bp_off, word = st->memo_word;
	__u64 base = st->stack_base;
	__s64 cfa_off = st->memo_rule.cfa_off, ra_off = st->memo_rule.ra_off;
	__s64 rbp_off = st->memo_rule.rbp_off;
	__u8 *frames = buf + sizeof(struct wr_event_header) + sizeof(struct wr_bt_header) +
		       (s->item_off & (WR_EVENT_MAX - 1));

	/* rbp must be known, and stays so only when each frame saved it. */
	if (!(s->flags & WR_SLOT_F_BP_VALID) || !(plain & WR_MEMO_BP_SAVED))
		return 0;
	for (n = 0; n < WR_PLAIN_RUN; n++) {
		if (count + 1 >= depth)
			break;
		cfa = bp + cfa_off;
		off = cfa + ra_off - base;
		bp_off = cfa + rbp_off - base;
		if (((off | bp_off) & 7) || off >= len || bp_off >= len || cfa <= sp)
			break;
		if (stack_word(st, off) != ip)
			break;
		bp = stack_word(st, bp_off);
		off = (count & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame);
		((__u64 *)(frames + off))[0] = ip;
		((__u64 *)(frames + off))[1] = word;
		sp = cfa;
		count++;
	}
	if (!n)
		return 0;
	s->sp = sp;
	s->bp = bp;
	s->flags = (s->flags | WR_SLOT_F_BP_VALID) & ~WR_SLOT_F_BP_READ_FAILED;
	s->count = (__u16)count;
	return n;
}

/* Recursion: frames at the walk's previous address (not exact), each
 * returning to that same address, under a rule of the plain form, every
 * word they need already in the stack copy.  Unwinds up to WR_PLAIN_RUN
 * of them in one loop that keeps the walk in locals and checks only what
 * can differ from frame to frame (a return address that is the frame's
 * own is a valid one).  Returns the frames unwound; 0 (nothing changed)
 * leaves the frame to unwind_one()'s general path, which knows every
 * other case and every error, as do the frame a run stops at and the
 * walk's last frame (so a run never ends a walk).  Not for `count bt`,
 * whose stack identity is hashed frame by frame: a hash after the loop
 * would be walked by the verifier once per frame count the loop can end
 * with. */
WR_INLINE __u32 plain_run(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s)
{
	__u32 plain = st->memo_plain;

	if (plain & WR_MEMO_CFA_RBP)
		return plain_run_bp(buf, st, s, plain);
	return plain_run_sp(buf, st, s, plain);
}

/* Unwind one frame of slot @s in the process's mappings @pm: record it
 * and move to its caller.  A frame at the address of the walk's previous
 * one (recursion) takes the rule remembered from it; the others go through
 * the frame cache. */
WR_INLINE void unwind_one(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s,
			    struct wr_proc_maps *pm, __u32 rule0)
{
	__u64 key = s->ip | ((__u64)!!(s->flags & WR_SLOT_F_EXACT) << 63);
	__u32 status, error = 0;
	struct wr_cfi_rule *r;

	if (key == st->memo_key) {
		put_frame(buf, s, st->memo_word, st->memo_hash);
		r = &st->memo_rule;
	} else {
		r = lookup_frame(buf, st, s, pm, key, rule0);
		if (!r)
			return;
	}
	status = apply_rule(st, s, r, &error);
	if (status != WR_MOVED)
		slot_finish(buf, s, status, error);
	else if (s->count >= s->depth)
		slot_finish(buf, s, WR_BT_TRUNCATED, 0);
}

/* The mappings of the event's process: found by tgid once per event, by
 * slot after that. */
WR_INLINE struct wr_proc_maps *proc_maps_of(__u8 *buf, struct wr_bt_state *st)
{
	__u32 tgid = ((struct wr_event_header *)buf)->pid, *slot, idx;

	if (st->proc_slot == WR_PROC_UNKNOWN) {
		slot = bpf_map_lookup_elem(&wr_proc_slot, &tgid);
		st->proc_slot = slot ? *slot : WR_PROC_NONE;
	}
	idx = st->proc_slot;
	if (idx >= WR_MAX_PROCS)
		return 0;
	return bpf_map_lookup_elem(&wr_proc_maps, &idx);
}

/* Open a backtrace slot: reserve its item of @type (header + @depth
 * frames) and take the registers.  Returns the slot, or NULL when the
 * event has no room or every slot is used. */
WR_INLINE struct wr_bt_slot *open_slot(void *ctx, __u8 *buf, __u32 type, __u32 depth,
				       __u32 flags_index, __u32 rule0)
{
	struct wr_regs *regs = ctx;
	struct wr_bt_header *bh;
	struct wr_bt_state *st;
	struct wr_bt_slot *s;
	__u32 zero = 0, n;
	long item;

	st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	if (!st || st->n_slots >= WR_BT_MAX_SLOTS)
		return 0;
	if (depth == 0 || depth > WR_BT_MAX_DEPTH)
		depth = WR_BT_MAX_DEPTH;
	item = wr_item_open((struct wr_event_buf *)buf, type, wr_bt_index_of(flags_index));
	if (item < 0)
		return 0;
	if (reserve(buf, sizeof(*bh) + depth * sizeof(struct wr_bt_frame)) < 0) {
		/* Give the item header back: a bt that does not fit is dropped. */
		((struct wr_event_header *)buf)->payload_len = (__u32)item;
		return 0;
	}
	wr_item_close((struct wr_event_buf *)buf, item);
	n = st->n_slots & (WR_BT_MAX_SLOTS - 1);
	st->n_slots++;
	s = &st->slot[n];
	s->item_off = (__u32)item + sizeof(struct wr_item_header);
	s->ip = regs->ip;
	s->sp = regs->sp;
	s->bp = regs->bp;
	s->depth = (__u16)depth;
	s->count = 0;
	s->flags = WR_SLOT_F_PENDING | WR_SLOT_F_BP_VALID | WR_SLOT_F_EXACT;
	s->status = WR_BT_TRUNCATED;
	s->error = 0;
	s->hash = 0;
	s->key = 0;
	bh = bt_header(buf, s);
	bh->requested_depth = (__u16)depth;
	bh->frame_count = 0;
	bh->flags = wr_bt_flags_of(flags_index);
	bh->status = WR_BT_TRUNCATED;
	bh->error_code = 0;
	s->rule0 = rule0;
	return s;
}

/* A `bt` statement: reserve its item and take the registers; the step
 * program unwinds every frame, so no probe carries the unwinder.
 * @depth = frames wanted (1..WR_BT_MAX_DEPTH); @flags_index =
 * wr_bt_flags_index(flags, statement index); @rule0 = the rule index of
 * the probe's own pc, WR_CFI_RULE_NONE if no row covers it, or
 * WR_RULE_LOOKUP to search at run time. */
WR_API void wr_bt(void *ctx, __u8 *buf, __u32 depth, __u32 flags_index, __u32 rule0)
{
	open_slot(ctx, buf, WR_ITEM_BACKTRACE, depth, flags_index, rule0);
}

/* A `count bt [, KEY]` statement: a bt of at most WR_COUNT_MAX_DEPTH
 * frames whose stack the step program counts under @key instead of
 * sending it. */
WR_API void wr_count_bt(void *ctx, __u8 *buf, __u32 depth, __u32 flags_index, __u32 rule0,
			__u64 key)
{
	struct wr_bt_state *st;
	struct wr_bt_slot *s;
	__u32 zero = 0;

	if (depth == 0 || depth > WR_COUNT_MAX_DEPTH)
		depth = WR_COUNT_MAX_DEPTH;
	s = open_slot(ctx, buf, WR_ITEM_COUNT, depth, flags_index, rule0);
	st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	if (!s || !st)
		return;
	s->flags |= WR_SLOT_F_COUNT;
	s->key = key;
	st->n_count++;
}

/* `count bt` items at the end of the event are not sent: cut them off. */
WR_INLINE void cut_count_items(__u8 *buf, struct wr_bt_state *st)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;

	for (__u32 i = WR_BT_MAX_SLOTS; i-- > 0;) {
		struct wr_bt_slot *s = &st->slot[i];

		if (i >= wr_cfg_bt_slots || i >= st->n_slots)
			continue;
		if (!(s->flags & WR_SLOT_F_COUNT) || slot_end(s) != h->payload_len ||
		    s->item_off < sizeof(struct wr_item_header))
			break;
		h->payload_len = s->item_off - sizeof(struct wr_item_header);
		h->n_items--;
	}
}

/* A bt reserves room for its whole requested depth; when it is the last
 * item of the event (the common `print ...; bt;`), give back what its
 * frames did not use, so a 7-frame backtrace costs ~130 bytes, not 2 KiB. */
WR_INLINE void trim_last_bt(__u8 *buf, struct wr_bt_state *st)
{
	/* The last bt still holding every frame it reserved, if it ends the
	 * event (count bt items after it are cut off already). */
	for (__u32 i = 0; i < WR_BT_MAX_SLOTS; i++) {
		struct wr_bt_slot *s = &st->slot[i];

		if (i >= wr_cfg_bt_slots || i >= st->n_slots)
			break;
		if (slot_end(s) == ((struct wr_event_header *)buf)->payload_len) {
			trim_bt(buf, s);
			break;
		}
	}
}

/* Wake the consumer only when the ring is filling up.  The kernel's own
 * policy wakes it for every event it has not yet caught up with, and when
 * it keeps up that is every event: the wakeup then runs on the traced
 * thread, which pays for it on every hit.  Below the mark the consumer
 * finds the events on its next timer tick instead (runtime.c).  Only the
 * event that crosses the mark wakes it: a consumer behind the mark is
 * awake and reading already (its epoll descriptor stays ready while data
 * is left), and waking it again for every event above the mark made the
 * traced thread pay exactly when the consumer fell behind.  A crossing two
 * CPUs both miss is caught by the next tick. */
WR_INLINE __u64 ringbuf_wakeup(__u32 size)
{
	__u64 avail = bpf_ringbuf_query(&wr_ringbuf, BPF_RB_AVAIL_DATA);
	__u64 mark = bpf_ringbuf_query(&wr_ringbuf, BPF_RB_RING_SIZE) / WR_RING_WAKE_DIVISOR;

	return avail < mark && avail + size >= mark ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Send the event, unless it holds nothing to send: only `count bt`
 * stacks (counted already), or no items at all from a probe whose
 * conditions chose to emit none (counted as filtered). */
WR_INLINE void output(void *ctx, __u8 *buf)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_probe_stats *ps;
	struct wr_bt_state *st;
	__u32 size, zero = 0;
	long ret;

	st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	if (st && st->n_count)
		cut_count_items(buf, st);
	if (h->n_items == 0 && (h->flags & WR_EVENT_F_DROP_EMPTY)) {
		ps = probe_stats(h->probe_id);
		if (ps && (!st || !st->n_count))
			ps->filtered++;
		if (wr_cfg_fault_in && st)
			st->holder = 0; /* --fault-in: the buffer is free again */
		return;
	}
	if (st && st->n_slots)
		trim_last_bt(buf, st);
	size = sizeof(*h) + h->payload_len;

	if (size > WR_EVENT_MAX)
		size = WR_EVENT_MAX;
	if (wr_cfg_transport == WR_TRANSPORT_RINGBUF)
		ret = bpf_ringbuf_output(&wr_ringbuf, buf, size, ringbuf_wakeup(size));
	else
		ret = bpf_perf_event_output(ctx, &wr_perfbuf, BPF_F_CURRENT_CPU, buf, size);
	if (ret) {
		ps = probe_stats(h->probe_id);
		if (ps)
			ps->lost++;
	}
	if (h->flags & WR_EVENT_F_TRUNCATED) {
		ps = probe_stats(h->probe_id);
		if (ps)
			ps->truncated++;
	}
	if (wr_cfg_fault_in && st)
		st->holder = 0;
}

/* Mark every still-pending slot with @status (budget or internal error). */
WR_INLINE void finish_pending(__u8 *buf, struct wr_bt_state *st, __u32 status)
{
	for (__u32 i = 0; i < WR_BT_MAX_SLOTS; i++) {
		struct wr_bt_slot *s = &st->slot[i];

		if (i >= wr_cfg_bt_slots || i >= st->n_slots)
			break;
		if (s->flags & WR_SLOT_F_PENDING)
			slot_finish(buf, s, status, 0);
	}
}

WR_INLINE int any_pending(struct wr_bt_state *st)
{
	for (__u32 i = 0; i < WR_BT_MAX_SLOTS; i++) {
		if (i >= wr_cfg_bt_slots || i >= st->n_slots)
			break;
		if (st->slot[i].flags & WR_SLOT_F_PENDING)
			return 1;
	}
	return 0;
}

/* What the frame loop of the step program works on: the probe's context
 * stays out of it (every stack is attached after the loop). */
struct step_ctx {
	__u8 *buf;
	struct wr_bt_state *st;
	struct wr_proc_maps *pm;
};

/* This CPU's event buffer and backtrace state, for a program or a
 * bpf_loop() callback that has no pointer to them (the step program, and
 * the callbacks of a probe that unwinds itself: see step_frame_self()).
 * Returns whether both are there. */
WR_INLINE int own_state(__u8 **buf, struct wr_bt_state **st)
{
	__u32 zero = 0;

	*buf = event_buf();
	*st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	return *buf && *st;
}

/* One frame of the first pending slot; 1 (stop the loop) when none is left. */
WR_INLINE long step_one(__u8 *buf, struct wr_bt_state *st, struct wr_proc_maps *pm)
{
	struct wr_bt_slot *s;

	if (st->cur >= st->n_slots || st->cur >= WR_BT_MAX_SLOTS)
		return 1;
	s = &st->slot[st->cur & (WR_BT_MAX_SLOTS - 1)];
	if (!(s->flags & WR_SLOT_F_PENDING)) {
		st->cur++;
		return 0;
	}
	/* A run of recursion, or (when the last run could not start) the
	 * frame it left to the general path: each call does one or the other,
	 * so the verifier walks the general path from one state only. */
	if (s->ip == st->memo_key && !(s->flags & (WR_SLOT_F_EXACT | WR_SLOT_F_COUNT)) &&
	    (st->memo_plain & (WR_MEMO_PLAIN | WR_MEMO_SKIP)) == WR_MEMO_PLAIN) {
		if (!plain_run(buf, st, s))
			st->memo_plain |= WR_MEMO_SKIP;
		return 0;
	}
	st->memo_plain &= ~WR_MEMO_SKIP;
	unwind_one(buf, st, s, pm, s->count == 0 ? s->rule0 : WR_RULE_LOOKUP);
	return 0;
}

static long step_frame(__u32 i, void *arg)
{
	struct step_ctx *c = arg;

	return step_one(c->buf, c->st, c->pm);
}

/* The same for a probe that unwinds itself (--fault-in), without a
 * context on the probe's stack: a bpf_loop() callback's stack adds to its
 * caller's, and a probe with string comparisons and a `bt` then went past
 * the 512 bytes they share.  Each frame looks its maps up again. */
static long step_frame_self(__u32 i, void *arg)
{
	struct wr_proc_maps *pm;
	struct wr_bt_state *st;
	__u8 *buf;

	if (!own_state(&buf, &st))
		return 1;
	pm = proc_maps_of(buf, st);
	if (!pm)
		return 1;
	WR_BARRIER_VAR(pm);
	return step_one(buf, st, pm);
}

/* ---- counting stacks ---- */

/* Add one to the count of slot @s's stack under its key: the stack is
 * stored first, so a count never names a stack the maps do not hold. */
WR_INLINE void count_stack(__u8 *buf, struct wr_bt_slot *s, struct wr_probe_stats *ps)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_item_header *ih = (struct wr_item_header *)payload_at(buf, s->item_off - sizeof(*ih));
	struct wr_count_key k = {
		.stack_id = (s->hash ^ ((__u64)s->status << 56 | s->error)) * 0xff51afd7ed558ccdull,
		.key = s->key, .probe_id = h->probe_id, .index = ih->index,
	};
	__u64 one = 1, *count = bpf_map_lookup_elem(&wr_stack_counts, &k);
	long err;

	if (count) {
		__sync_fetch_and_add(count, 1);
		ps->counted++;
		return;
	}
	err = bpf_map_update_elem(&wr_stacks, &k.stack_id, bt_header(buf, s), BPF_NOEXIST);
	if (!err || err == -17 /* EEXIST: known, or being stored by another CPU */)
		err = bpf_map_update_elem(&wr_stack_counts, &k, &one, BPF_NOEXIST);
	if (err == -17) {
		count = bpf_map_lookup_elem(&wr_stack_counts, &k);
		if (count)
			__sync_fetch_and_add(count, 1);
		err = count ? 0 : err;
	}
	if (err)
		ps->count_dropped++;
	else
		ps->counted++;
}

/* ---- after the walks ---- */

/* Slot @i of the event once the walks are done.  A walk still pending
 * stops: where the process has no mappings here (wraith does not trace
 * it), at its frame 0, handed over to userspace as a frame in no known
 * mapping is; otherwise the loop ran out (an internal error).  The first
 * slot whose walk ended and that wants the event's one stack copy
 * (attach_stack()) is noted in st->cur, the backtrace items before it in
 * st->stack_bt; a `count bt` stack is counted.
 * Under bpf_loop(), like the walks: the verifier checks one slot, not
 * each slot once for every way the slots before it went. */
WR_INLINE long finish_one(__u32 i, __u8 *buf, struct wr_bt_state *st)
{
	struct wr_probe_stats *ps;
	struct wr_bt_slot *s;
	int ran_out = 0;

	if (i >= st->n_slots || i >= WR_BT_MAX_SLOTS)
		return 1;
	s = &st->slot[i];
	if (s->flags & WR_SLOT_F_PENDING) {
		if (st->proc_slot == WR_PROC_NONE) { /* step_all() found no mappings */
			emit_frame(buf, s, 0, 0);
			slot_finish(buf, s, WR_BT_OFFSETS_UNAVAILABLE, 0);
		} else {
			slot_finish(buf, s, WR_BT_INTERNAL_ERROR, 0);
			ran_out = 1;
		}
	}
	if (s->flags & WR_SLOT_F_COUNT) {
		ps = probe_stats(((struct wr_event_header *)buf)->probe_id);
		if (ps)
			count_stack(buf, s, ps);
	} else if (st->cur >= WR_BT_MAX_SLOTS) {
		if (!ran_out && (handed_over(s) || has_values(buf, s)))
			st->cur = i;
		else
			st->stack_bt++;
	}
	return 0;
}

static long finish_slot(__u32 i, void *arg)
{
	struct step_ctx *c = arg;

	return finish_one(i, c->buf, c->st);
}

/* The same without a context on the probe's stack (--fault-in: see
 * step_frame_self()). */
static long finish_slot_self(__u32 i, void *arg)
{
	struct wr_bt_state *st;
	__u8 *buf;

	if (!own_state(&buf, &st))
		return 1;
	return finish_one(i, buf, st);
}

/* Every remaining frame of every pending slot, in one bpf_loop() (the
 * verifier checks the frame once, and no frame pays for a tail call), then
 * every slot's end in another, then the event goes out. */
WR_INLINE void step_all(void *ctx, __u8 *buf, struct wr_bt_state *st)
{
	struct wr_proc_maps *pm;
	struct step_ctx c;

	/* First, before any branch: the verifier checks its loads through
	 * the task (see uretprobe_step()) once for every path to them. */
	st->uretprobe_tramp = uretprobe_trampoline();
	st->memo_key = 0; /* nothing remembered from another event's walk */
	st->memo_plain = 0;
	pm = proc_maps_of(buf, st);
	if (!pm)
		st->proc_slot = WR_PROC_NONE; /* what finish_one() goes by */
	/* Not on the stack of a probe that unwinds itself (--fault-in folds it) */
	c.buf = buf;
	c.st = st;
	c.pm = pm;
	/* The process's mappings are checked here, not in the loop: a check
	 * there made the verifier walk the whole frame step once with them
	 * unknown, once without and once with them.  Each slot: its frames,
	 * each at most twice (a run of recursion that could not start, then
	 * the general path), plus one iteration to move past it. */
	if (pm && wr_cfg_fault_in)
		bpf_loop(WR_BT_MAX_SLOTS * (2 * WR_BT_MAX_DEPTH + 1), step_frame_self, 0, 0);
	else if (pm)
		bpf_loop(WR_BT_MAX_SLOTS * (2 * WR_BT_MAX_DEPTH + 1), step_frame, &c, 0);
	st->cur = WR_BT_MAX_SLOTS; /* no slot has the stack copy yet */
	st->stack_bt = 0;
	if (wr_cfg_fault_in)
		bpf_loop(WR_BT_MAX_SLOTS, finish_slot_self, 0, 0);
	else
		bpf_loop(WR_BT_MAX_SLOTS, finish_slot, &c, 0);
	/* Read back from memory, which the slot number went through: one
	 * state for the verifier here, however the slots ended. */
	if (st->cur < WR_BT_MAX_SLOTS)
		attach_stack(ctx, buf, st, &st->slot[st->cur]);
	output(ctx, buf);
}

/* End the probe: hand pending backtraces to the step program, or output.
 * A sleepable probe (--fault-in) unwinds itself: the verifier lets
 * sleepable programs use only array, hash, ring-buffer and storage maps,
 * so no tail call through a program array (nor a perf event array). */
WR_API int wr_event_end(void *ctx, __u8 *buf)
{
	struct wr_bt_state *st;
	struct wr_probe_stats *ps;
	__u32 zero = 0;

	if (wr_cfg_fault_in && !wr_cfg_has_bt) {
		output(ctx, buf); /* no slot can be pending */
		return 0;
	}
	st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	if (st && any_pending(st)) {
		if (wr_cfg_fault_in) {
			step_all(ctx, buf, st);
			return 0;
		}
		bpf_tail_call(ctx, &wr_progs, 0);
		/* Only reached when the tail call failed. */
		finish_pending(buf, st, WR_BT_INTERNAL_ERROR);
		ps = probe_stats(((struct wr_event_header *)buf)->probe_id);
		if (ps) {
			ps->bt_errors++;
			ps->count_dropped += st->n_count;
		}
	}
	output(ctx, buf);
	return 0;
}

/* The step program, tail-called by a probe with pending backtraces; only
 * the base objects carry it. */
#ifndef WR_PROBE_TRANSPORT
SEC("uprobe")
int wr_bt_step(void *ctx)
{
	struct wr_bt_state *st;
	__u8 *buf;

	if (!own_state(&buf, &st))
		return 0;
	step_all(ctx, buf, st);
	return 0;
}
#endif
