/* maps.bpf.h - wraith.bpf.c's data: the probe's registers and the kernel
 * structures the step program reads, the configuration fixed at build
 * time or by the generator, and every map.
 *
 * A section of wraith.bpf.c, included by it alone, first: every other
 * section reads these.  Nothing here runs but the ring's warm-up program.
 */

/* x86-64 struct pt_regs, as the uprobe context (arch/x86_64.h). */
struct wr_regs {
	X86_PT_REGS_MEMBERS
};

/* The few kernel structures the step program reads, as CO-RE shadows:
 * libbpf finds each field by name in the running kernel's BTF, so neither
 * their layout nor the kernel version is built in.  Only the base
 * object's programs read them (wr_bt_step, the -t tracepoints of
 * members.bpf.h); probes never do. */
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
	unsigned long start_stack;
} __attribute__((preserve_access_index));

struct return_instance___wr {
	unsigned long stack;
	unsigned long orig_ret_vaddr;
	struct return_instance___wr *next;
} __attribute__((preserve_access_index));

struct uprobe_task___wr {
	struct return_instance___wr *return_instances;
} __attribute__((preserve_access_index));

struct signal_struct___wr {
	struct {
		int counter;
	} live;
} __attribute__((preserve_access_index));

struct task_struct___wr {
	struct mm_struct___wr *mm;
	struct uprobe_task___wr *utask;
	int tgid;
	struct signal_struct___wr *signal;
} __attribute__((preserve_access_index));

struct linux_binprm___wr {
	struct file___wr *file;
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
/* 0 when the probe's event is never sent (set after lowering): its only
 * items are `count bt` stacks, which are counted and cut off, so the hit
 * takes no timestamp (a clock read costs such a hit about 20 ns). */
#ifdef WR_BASE_TRANSPORT
static const __u32 wr_cfg_sends = 1;
#else
__u32 wr_cfg_sends = 1;
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

/* The parts of the step program a session reaches.  The base object
 * built with WR_BASE_LEAN (codegen_base(): for a script without `count bt`
 * and without frame values) leaves out counting stacks and copying what
 * outer frames' values point to, and the verifier, which every start
 * waits for, has that much less to check; probes and the full base object
 * keep both. */
#if defined(WR_BASE_TRANSPORT) && defined(WR_BASE_LEAN)
#define WR_STEP_COUNTS 0
#define WR_STEP_VALUES 0
#else
#define WR_STEP_COUNTS 1
#define WR_STEP_VALUES 1
#endif
/* Outer frames' whole walks (outer.bpf.h: a bt full's container locals)
 * run in the step program alone: a --fault-in probe, which unwinds
 * itself, would carry the whole walk in every probe with a bt, and its
 * outer frames' containers show short, as their recipes' roots alone
 * copy. */
#define WR_STEP_OUTER_WALKS (WR_STEP_VALUES && !wr_cfg_fault_in)

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
 * whole ring has been written once (runtime/reader.c,
 * rt_reader_plan_warmup(): why and when).  Only the base objects carry it. */
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

/* A value's walk in progress (walk.bpf.h): its program and frames. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wr_walk_state);
} wr_walk_states SEC(".maps");

/* A comparison's operands (memcmp(), starts_with(), strncmp(): struct
 * wr_cmp_buf), here rather than on the probe's 512-byte stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wr_cmp_buf);
} wr_cmp_bufs SEC(".maps");

/* Slot @s is a `count bt` (never in a lean base object). */
WR_INLINE int slot_counts(const struct wr_bt_slot *s)
{
	return WR_STEP_COUNTS && (s->flags & WR_SLOT_F_COUNT);
}

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
	__u64 word;       /* uw_frame_word() of the frame */
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
	__uint(max_entries, 2); /* WR_TAIL_* */
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
 * one store to entry 0.  64-bit values: an array map's values lie 8 bytes
 * apart in its memory, so the mapping is then a plain array of them. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_MAX_PROBES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} wr_gate SEC(".maps");

/* What a call chain's outer frames copy (wire.h: struct wr_outer_recipe),
 * in slots userspace writes through a mapping (outer.bpf.h), and each
 * chain's slot by the chain's hash. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_OUTER_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct wr_outer_recipe);
} wr_outer_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WR_OUTER_RECIPES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u32);
} wr_outer_index SEC(".maps");

/* Each site's data (wire.h: struct wr_site_params), by wire id: a probe of
 * several sites runs one program, which reads its site's constants and
 * registers here (wr_site_params_of()).  Userspace writes an entry before
 * attaching its site. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct wr_site_params);
} wr_site_params SEC(".maps");

/* `count bt`: hits by (probe, stack, key), and each stack's frames once
 * (see wire.h).  Userspace sizes both before loading (--stack-entries);
 * entries are allocated as stacks first appear, so a large map costs
 * memory only for the stacks a run really sees, and a session that
 * counts nothing does not pay at start-up for preallocating them.  The
 * counts are per CPU: a hit adds one to its own CPU's without an atomic
 * operation, and userspace sums them (runtime/counts.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
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

/* `count bt`'s slots, each CPU's own (wire.h: struct wr_count_slot): a
 * hit finds its stack's count here with inlined array lookups, where the
 * hash map above costs a helper call (about 50 ns on the AMD host).
 * Userspace sizes it (1 + CPUs x slots per CPU), writes entry 0 before
 * any probe attaches, and reads and clears the counts through a mapping
 * (runtime/counts.c). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct wr_count_slot);
} wr_count_slots SEC(".maps");

/* -t PATH: the processes of the target, for the sites whose cookie says
 * WR_COOKIE_MEMBERS: bit tgid % 64 of word tgid / 64 (an array lookup,
 * which the verifier inlines, where a hash lookup was a helper call of
 * 40-55 ns a hit).  Userspace sets and clears the bits of the processes
 * it finds and loses, through a mapping; the tracepoints of
 * members.bpf.h set a member's children's at fork and the program's
 * processes' at exec(), so a process is in from its first instruction.
 * Userspace sizes it to pid_max words / 64, to 1 outside -t. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WR_MEMBER_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} wr_members SEC(".maps");

/* -t PATH: what those tracepoints watch for (wire.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wr_member_watch);
} wr_watch SEC(".maps");
