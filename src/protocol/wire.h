/* wire.h - everything the two sides of the BPF boundary agree on: the
 * event wire format, the layout of every BPF map value, and how the code
 * generator passes arguments to the templates' wr_* entry points (whose
 * names, with the maps', are contract.h's).
 *
 * Layer rule: this header is included by the BPF templates (clang -target
 * bpf) and by userspace; it depends only on <linux/types.h> and
 * arch/x86_64.h.  It is the one
 * definition of these layouts: fixed-width fields, explicit padding, no
 * pointers, longs, bools or bitfields, and a _Static_assert on every size
 * and offset so both compilers check the same numbers.  Values that travel
 * packed into one argument are packed and unpacked only by the helpers
 * here, never by shifts written at the call.
 *
 * An event is a struct wr_event_header followed by payload_len bytes of
 * items.  Each item is a struct wr_item_header followed by `length` bytes of
 * payload; items start on 8-byte boundaries and `length` is a multiple of 8.
 */
#ifndef WRAITH_PROTOCOL_WIRE_H
#define WRAITH_PROTOCOL_WIRE_H

#include <linux/types.h>

#include "arch/x86_64.h"

#define WR_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define WR_OFFSETOF(t, m) __builtin_offsetof(t, m)

/* ---- limits shared by both sides ---- */
#define WR_EVENT_MAX        32768u  /* bytes of one event, header included (the perf
				     * buffer's records stop below 64 KiB) */
#define WR_EVENT_BUF_SIZE   65536u  /* per-CPU assembly buffer (2x so masked writes stay in bounds) */
#define WR_BT_MAX_DEPTH     1024u   /* frames of one bt (--backtrace-depth) */
#define WR_BT_DEFAULT_DEPTH 128u
#define WR_BT_MAX_SLOTS     8u      /* bt statements executed per event */
#define WR_MAX_MAPPINGS     512u    /* executable mappings per process */
#define WR_MAX_PROCS        1024u   /* processes with mappings installed */
#define WR_PROC_NONE        0xffffffffu /* wr_bt_state.proc_slot: no mappings */
#define WR_MAX_PROBES       4096u
/* A uprobe's attach cookie: the probe's wire id in the low 32 bits; in the
 * high 32 the process whose hits the probe takes (0: any), or with
 * WR_COOKIE_THREAD set the one thread, or WR_COOKIE_MEMBERS alone: the
 * processes in wr_members (-t PATH, a site outside PATH's own file, whose
 * uprobe fires in every process that maps that file).  Out of the program,
 * a probe's program is the same whatever process it traces (the probe
 * cache keeps it); process ids stay below 2^22, so the bits are free. */
#define WR_COOKIE_THREAD    0x80000000u
#define WR_COOKIE_MEMBERS   0x40000000u
/* wr_members is a bitmap of process ids, one bit a tgid, in 64-bit words:
 * the kernel's largest pid_max (PID_MAX_LIMIT, 2^22) takes this many;
 * userspace sizes it to the running kernel's pid_max. */
#define WR_MEMBER_WORDS     65536u
#define WR_FRAME_CACHE      4096u   /* the unwinder's frame cache, entries per CPU */
#define WR_MAX_MODULES      4096u   /* modules with CFI across the session */
#define WR_MAP_SEARCH_STEPS 10u     /* ceil(log2(WR_MAX_MAPPINGS)) + 1 */
#define WR_ROW_SEARCH_STEPS 25u     /* up to 16M rows per module */
/* The ring buffer wakes its consumer only once it is 1/WR_RING_WAKE_DIVISOR
 * full (the perf buffer: its watermark); below that the consumer reads on
 * a timer of WR_POLL_TICK_MS, which the ring must outlast at full speed. */
#define WR_RING_WAKE_DIVISOR 4u

/* The ring warm-up (runtime/reader.c) writes the ring in records of
 * WR_WARM_CHUNK bytes, WR_WARM_CHUNKS of them a run. */
#define WR_WARM_CHUNK (64u * 1024)
#define WR_WARM_CHUNKS 16
#define WR_POLL_TICK_MS     10u

#define WR_EVENT_MAGIC 0x57524149u /* "WRAI" little-endian in memory as IARW */

/* How events reach userspace.  The base object is compiled once per
 * transport (-DWR_BASE_TRANSPORT=N), and the generator sets the templates'
 * wr_cfg_transport to the session's. */
enum wr_transport {
	WR_TRANSPORT_RINGBUF = 0, /* BPF_MAP_TYPE_RINGBUF */
	WR_TRANSPORT_PERF    = 1, /* BPF_MAP_TYPE_PERF_EVENT_ARRAY */
};

/* ---- event header ---- */
#define WR_EVENT_F_TRUNCATED  0x0001u /* an item did not fit in WR_EVENT_MAX */
#define WR_EVENT_F_DROP_EMPTY 0x0002u /* the probe can emit items: one that emitted none
				       * was filtered out by its conditions and is not sent */

struct wr_event_header {
	__u32 magic;
	__u32 probe_id;
	__u32 pid;          /* tgid */
	__u32 tid;
	__u64 timestamp_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u32 payload_len;  /* bytes of items after this header */
	__u16 flags;        /* WR_EVENT_F_* */
	__u16 n_items;
};
WR_STATIC_ASSERT(sizeof(struct wr_event_header) == 32, "event header size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, probe_id) == 4, "probe_id offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, pid) == 8, "pid offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, tid) == 12, "tid offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, timestamp_ns) == 16, "timestamp offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, payload_len) == 24, "payload_len offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, flags) == 28, "flags offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_event_header, n_items) == 30, "n_items offset");

/* ---- items ---- */
enum wr_item_type {
	WR_ITEM_PRINT     = 0x05, /* formatted print: index = format string, payload = args */
	WR_ITEM_REFS      = 0x06, /* payload = args, as a print's: the referents of frame
				   * 0's references and its strings, each with its address
				   * attached (WR_ARG_ATTACH_REFERENCE), for the backtrace
				   * that follows it (bt args, bt full) */
	WR_ITEM_BACKTRACE = 0x10, /* payload = wr_bt_header + requested_depth frames, or
				   * frame_count frames when it is the event's last item */
	WR_ITEM_STACK     = 0x11, /* payload = wr_stack_header + a copy of the user stack:
				   * the rest of a backtrace, for userspace to unwind */
	WR_ITEM_COUNT     = 0x12, /* a `count bt` stack, as a backtrace; counted in the
				   * kernel, never shown (usually cut off before output) */
	WR_ITEM_OUTER     = 0x13, /* payload = args, as a print's: one WR_ARG_BYTES of no
				   * bytes whose WR_ARG_MEM attachments are what the outer
				   * frames' values point to, copied after the walk by the
				   * recipes of its frames (struct wr_outer_recipe), for
				   * the backtrace the stack copy before it is of; its aux
				   * has bit j set when frame j's recipe ran */
	WR_ITEM_CALLER    = 0x14, /* payload = args, as a print's: frame 0's registers and
				   * the stack around its CFA, for the print before it
				   * (same index), some of whose values are what the
				   * caller passed (an entry value), which only the call
				   * site the return address names says: wr_caller_arg() */
	WR_ITEM_EXPR_ERROR = 0x20, /* payload = wr_expr_error; index = the expression's
				    * number in the probe (ast_probe_expr_index) */
};

struct wr_item_header {
	__u8 type;    /* enum wr_item_type */
	__u8 flags;
	__u16 length; /* payload bytes after this header, multiple of 8 */
	__u16 index;  /* print: format index in the probe; bt: statement index */
	__u16 reserved;
};
WR_STATIC_ASSERT(sizeof(struct wr_item_header) == 8, "item header size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_item_header, length) == 2, "item length offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_item_header, index) == 4, "item index offset");

/* A print argument: header then `len` bytes, padded to 8.  The generator
 * passes kind and status to wr_arg_scalar() as one wr_arg_kind_status(),
 * and a string's limit and the status of reading its pointer to
 * wr_arg_cstr() as one wr_str_max_status(). */
enum wr_arg_kind {
	WR_ARG_I64  = 1,
	WR_ARG_U64  = 2,
	WR_ARG_BOOL = 3,
	WR_ARG_HEX  = 4, /* unsigned, rendered 0x... */
	WR_ARG_STR  = 5, /* bytes read from the target, NUL-terminated or len-bounded */
	WR_ARG_CHAR = 6,
	WR_ARG_PTR  = 7,
	WR_ARG_BYTES = 8, /* raw bytes of an aggregate or float, rendered with its DWARF type;
			   * with a status, the first 8 bytes (the slot is padded to 8)
			   * are the address whose read failed, 0 when an earlier read
			   * failed */
	WR_ARG_ENUM = 9,  /* an enum value, rendered with its DWARF type */
	WR_ARG_CSTR = 10, /* a char pointer and its string: 8 bytes of pointer, then
			   * the bytes read (NUL-terminated, or cut at the limit; a
			   * wide string's, WR_ARG_AUX_WIDE: to the limit) */
	WR_ARG_ATTACH = 11, /* as WR_ARG_CSTR, for a char pointer inside the previous
			     * argument (aux = the pointer's byte offset in it); it is
			     * part of that argument, not a print argument of its own */
	WR_ARG_DUMP = 12,   /* a memory dump ({:x.N}, {:s.N}, ...): 8 bytes of address,
			     * then the bytes read; aux = the length asked for, which
			     * is more than was read when WR_DUMP_MAX cut it */
	WR_ARG_PIECES = 13, /* an aggregate the probe assembled from registers, memory
			     * and constants (DW_OP_piece, or one register), rendered
			     * with its DWARF type: aux = its size (<= 256) |
			     * WR_PIECES_F_* flags, then n = the size rounded up to 8
			     * bytes of value and n bytes of mask, where a set bit says
			     * that bit of the value was not kept (<optimized out>);
			     * len = 2 * n */
	WR_ARG_MEM = 14,    /* memory a value's walk copied (a container's elements,
			     * a string's characters, see wr_walk_op): as
			     * WR_ARG_ATTACH, part of the argument before it; 8
			     * bytes of address, then the bytes read (none when
			     * status says the read failed); aux = WR_MEM_F_* */
};

#define WR_MEM_F_ROOT 0x1u /* the printed value itself, whole (its argument holds
			    * at most 256 bytes of it) */
#define WR_MEM_F_STATIC 0x4u /* a C++ class's static data member, printed with a value
			      * holding it (wr_arg_static()): its 8 bytes of address
			      * are a tag (bit 63 set, no user address) naming it
			      * (dw_static_tag()); a read that found no variable
			      * (address 0) has status WR_ARG_NULL_DEREF */
#define WR_MEM_F_TORN 0x2u /* a string's characters read up to the first page that
			    * could not be read (the whole read failed: its
			    * failed copy is sent before it) */
#define WR_MEM_F_WALKED 0x8u /* no bytes: an outer frame's value at this address
			      * had its whole walk run (WR_OUTER_F_WALK), so
			      * what it did not copy was cut (`...`) */

#define WR_ARG_STR_MAX 256u    /* bytes of a string argument */
#define WR_ARG_WSTR_MAX 1024u  /* bytes of a wide string argument (wr_arg_wstr) */
/* In the aux of a WR_ARG_CSTR or ATTACH: made by wr_arg_wstr(), the
 * bytes of a wide string, read to the limit and not to a NUL (an
 * ATTACH's offset is in the bits below). */
#define WR_ARG_AUX_WIDE 0x800000u
#define WR_DUMP_MAX 256u       /* bytes of one memory dump (GhostScope's mem_dump_cap) */
#define WR_ARG_ATTACH_MAX 16u  /* strings attached to one argument */
#define WR_ARG_ATTACH_STR 256u /* bytes of an attached string (as a string argument's:
				* 200 characters, gdb's print elements, and room to see
				* that one of 200 ends there) */
/* aux of a WR_ARG_ATTACH with no string after the printed value of a C++
 * reference: its pointer is the address the reference refers to (the
 * argument itself is the referent's value). */
#define WR_ARG_ATTACH_REFERENCE 0xffffffu
/* aux of the WR_ARG_ATTACH scalars after the bytes of a C variable-length
 * array (as many as WR_DUMP_MAX hold; its whole copy, when larger, is a
 * WR_ARG_MEM root after them): the array's address, then the element
 * count of each of its dimensions of variable length, outermost first
 * (WR_ARG_ATTACH_VLA_DIM + k), read at the hit; a count whose read failed
 * has its status.  The renderer shows the array with those lengths. */
#define WR_ARG_ATTACH_VLA_ADDR 0xfffff0u
#define WR_ARG_ATTACH_VLA_DIM 0xfffff1u
#define WR_ARG_ATTACH_VLA_DIMS 4u /* dimensions of variable length sent, at most */

enum wr_arg_status {
	WR_ARG_OK          = 0,
	WR_ARG_NULL_DEREF  = 1,
	WR_ARG_READ_ERROR  = 2,
	WR_ARG_TRUNCATED   = 4,
	WR_ARG_OFFSETS_UNAVAILABLE = 5,
	WR_ARG_OPTIMIZED_OUT = 7,
	WR_ARG_POINTEE_ERROR = 8, /* WR_ARG_CSTR, ATTACH: the pointer is known, its
				   * string could not be read */
	WR_ARG_INDEX_RANGE = 9,   /* a computed index whose byte offset does not fit
				   * in 64 bits: nothing was read */
	WR_ARG_TLS_UNALLOCATED = 10, /* a thread-local variable of a dlopen'ed module
				      * the thread never used: it has no block */
	WR_ARG_SYNTHETIC_POINTER = 11, /* a pointer the compiler optimized away whose
					* target is known (DW_OP_implicit_pointer):
					* it has no value, what it points to has */
	WR_ARG_UNREADABLE = 12,  /* this site of a probe cannot give the value (its
				  * other sites can): the reason was said at start */
	WR_ARG_NO_DEBUG_INFO = 13, /* this site of a probe has no debug info */
	WR_ARG_VARIABLE_LENGTH = 14, /* a C variable-length array whose length the
				      * probe could not read: nothing was read */
	WR_ARG_TOO_LARGE = 15,   /* set by the renderer, never on the wire: a value
				  * larger than gdb reads (its max-value-size, a VLA
				  * whose length is not set yet at the pc, perhaps);
				  * the value holds its size */
	WR_ARG_UNAVAILABLE = 16, /* the value is in a register a probe cannot read
				  * (xmm0): gdb's <unavailable>; why was said at start */
};

struct wr_arg_header {
	__u8 kind;    /* enum wr_arg_kind */
	__u8 status;  /* enum wr_arg_status */
	__u16 len;    /* data bytes that follow (unpadded) */
	__u32 aux;    /* kind-specific: byte size of the source type; for read errors the
		       * low 32 bits of the failing address; WR_ARG_ATTACH: offset.  A
		       * scalar whose own read failed (WR_ARG_READ_ERROR) carries the
		       * address read as its value, 0 when an earlier read failed */
};
WR_STATIC_ASSERT(sizeof(struct wr_arg_header) == 8, "arg header size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_arg_header, len) == 2, "arg len offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_arg_header, aux) == 4, "arg aux offset");

/* kind | status << 8: a status computed at run time is shifted by
 * WR_ARG_STATUS_SHIFT in the generated code. */
#define WR_ARG_STATUS_SHIFT 8
static inline __u32 wr_arg_kind_status(__u32 kind, __u32 status)
{
	return (kind & 0xff) | (status & 0xff) << WR_ARG_STATUS_SHIFT;
}
static inline __u8 wr_arg_kind_of(__u32 kind_status)
{
	return (__u8)kind_status;
}
static inline __u8 wr_arg_status_of(__u32 kind_status)
{
	return (__u8)(kind_status >> WR_ARG_STATUS_SHIFT);
}

/* max | status << 16, where a non-zero status says reading the string's
 * pointer failed (nothing is read then). */
#define WR_STR_STATUS_SHIFT 16
static inline __u32 wr_str_max_status(__u32 max, __u32 status)
{
	return (max & 0xffff) | (status & 0xff) << WR_STR_STATUS_SHIFT;
}
static inline __u32 wr_str_max_of(__u32 max_status)
{
	return max_status & 0xffff;
}
static inline __u8 wr_str_status_of(__u32 max_status)
{
	return (__u8)(max_status >> WR_STR_STATUS_SHIFT);
}

/* wr_arg_word()'s index_status: the 8-byte word's index in a
 * WR_ARG_PIECES argument | the status of reading it << 8 (a non-zero
 * status becomes the argument's, when it has none yet). */
#define WR_PIECES_MAX 256u /* bytes of a WR_ARG_PIECES value */
#define WR_PIECES_SIZE_MASK 0xffffu /* of its aux: the size; above it, flags */
#define WR_PIECES_F_UNINIT 0x10000u /* a variable DW_OP_GNU_uninit marks: [uninitialized] */
static inline __u32 wr_word_index_status(__u32 index, __u32 status)
{
	return (index & 0xff) | (status & 0xff) << 8;
}
static inline __u32 wr_word_index_of(__u32 index_status)
{
	return index_status & 0xff;
}
static inline __u8 wr_word_status_of(__u32 index_status)
{
	return (__u8)(index_status >> 8);
}

/* ---- walks: what a value's printer needs copied, read in the probe ----
 * A value whose type holds containers (a std::string's characters, a
 * vector's elements, a map's nodes) is printed with the bytes of the
 * value and, attached to it as WR_ARG_MEM arguments, copies of the memory
 * its printer reads.  The generator compiles the value's type into a walk
 * program, a tree of wr_walk_op; wr_walk() runs it in the probe with a
 * bounded loop and copies each block of memory it reaches.  The renderer
 * finds what it needs among the copies by address, so the copies' order
 * does not matter, and what was not copied shows as `...` (cut by a limit
 * or the event's size) or `<unreadable>` (a copy whose read failed).
 *
 * Every op runs at a base address: the root op at the value's, a child
 * at an address its parent computes (an element, a node's value) plus
 * the child's `at`.  Offsets a..d are the op's own, as listed. */
enum wr_walk_code {
	WR_WALK_NONE = 0,
	WR_WALK_FIELDS = 1, /* run each child (first .child, then each .next) at base */
	WR_WALK_STRING = 2, /* pointer at a, length (8 bytes) at b: copy min(length,
			     * limit) characters of 1 << d bytes at the pointer + c.
			     * F_LIBCXX: libc++'s
			     * string, long when byte 0's bit 0 is set (else its
			     * characters are inside the value) */
	WR_WALK_ARRAY = 3,  /* elements of .size bytes from the pointer at a to the
			     * pointer at b (F_COUNT: b holds their count, 8 bytes;
			     * F_INLINE: they start at base + a, d of them; F_BITS:
			     * bits, count at b as for F_COUNT or, without it, the
			     * end pointer at b and bit offset at b + 8): copy at
			     * most limit of them, then run .child at each */
	WR_WALK_LIST = 4,   /* nodes from the pointer at a, each .size bytes copied,
			     * the next at node + b, the element at node + c; ends
			     * at NULL, or F_CIRCULAR at base + d; limit nodes */
	WR_WALK_TREE = 5,   /* a binary search tree in order from the root pointer at
			     * a: nodes of .size bytes, left child at node + b,
			     * right at node + c, the element at node + d */
	WR_WALK_DEQUE = 6,  /* blocks of d bytes of elements: F_LIBCXX: block map at
			     * a, first index at b, count at c (libc++); else
			     * libstdc++'s iterators start (cur, first, last, node)
			     * at a and finish at b */
	WR_WALK_DEREF = 7,  /* pointer at a: copy .size bytes at pointer + b, then run
			     * .child at the pointer */
	WR_WALK_SWITCH = 8, /* read .vsize bytes at a, less the bias c:b (high:low
			     * words); run the child whose .match equals that
			     * (at base + its .at) */
	WR_WALK_CSTR = 9,   /* char pointer at a: copy its string, at most limit bytes */
	WR_WALK_HASH = 10,  /* hashbrown's table (Rust's HashMap): control bytes at
			     * the pointer at a, bucket mask (8 bytes) at b: copy
			     * the control bytes of the mask + 1 buckets (at most
			     * WR_WALK_COPY_MAX), then the element of each full
			     * bucket i (control byte's top bit clear), .size bytes
			     * at ctrl - (i + 1) * size, limit of them, running
			     * .child at each */
	WR_WALK_BTREE = 11, /* a B-tree in order (Rust's BTreeMap): the root node
			     * pointer at a, its height (8 bytes) at b; in a node,
			     * keys at c & 0xffff, values at c >> 16, the count (2
			     * bytes) at d & 0xffff, an internal node's child
			     * pointers at d >> 16; a leaf node is .vsize bytes,
			     * an internal one d >> 16 + 12 pointers; each copied,
			     * then key i (.size & 0xffff bytes each) runs .child
			     * and value i (.size >> 16 bytes) .child's .next,
			     * limit elements */
};

#define WR_WALK_F_LIBCXX   0x01u
#define WR_WALK_F_COUNT    0x02u
#define WR_WALK_F_INLINE   0x04u
#define WR_WALK_F_BITS     0x08u
#define WR_WALK_F_CIRCULAR 0x10u

#define WR_WALK_MAX_OPS 64u     /* ops of one walk program */
#define WR_WALK_DEPTH 8u        /* containers nested in one another, at most */
#define WR_WALK_TREE_STACK 48u  /* a tree's pending nodes (its height, about) */
#define WR_WALK_STEPS 8192u     /* steps of one walk: a step copies a node, a run */
#define WR_WALK_COPY_MAX 8192u  /* bytes of one copy */
#define WR_WALK_OP_WORDS 5u

struct wr_walk_op {
	__u8 code;      /* enum wr_walk_code */
	__u8 flags;     /* WR_WALK_F_* */
	__u16 child;    /* op index of the first child, 0 = none (op 0 is the root) */
	__u16 next;     /* op index of the next sibling, 0 = none */
	__u16 vsize;    /* SWITCH: bytes of the value compared */
	__u32 size;     /* bytes of an element, node or copy */
	__u32 limit;    /* elements (or bytes of a string) copied at most */
	__s32 at;       /* the op's base from its parent's (FIELDS, SWITCH children) */
	__u32 match;    /* SWITCH child: the value it is chosen by */
	__s32 a, b, c, d;
};
WR_STATIC_ASSERT(sizeof(struct wr_walk_op) == 8 * WR_WALK_OP_WORDS, "walk op size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_walk_op, size) == 8, "walk op size offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_walk_op, at) == 16, "walk op at offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_walk_op, a) == 24, "walk op a offset");

/* One container being walked. */
struct wr_walk_frame {
	__u64 base;   /* its op's base address */
	__u64 cur;    /* the element or node it is at */
	__u64 end;    /* ARRAY: the end; LIST: the node it ends at; DEQUE: elements left */
	__u64 aux;    /* DEQUE: the end of cur's block */
	__u64 node;   /* DEQUE: cur's entry in the block map */
	__u32 op;
	__u32 i;      /* elements done; ARRAY of strings: elements left to walk one a step */
	__u32 state;  /* 0 before its first step */
	__u32 sp;     /* TREE: nodes on its stack */
};
WR_STATIC_ASSERT(sizeof(struct wr_walk_frame) == 56, "walk frame size");

/* A walk in progress (per CPU): the program the probe wrote, the frames,
 * each tree's stack of (node, right child) pairs. */
struct wr_walk_state {
	__u64 ops[WR_WALK_MAX_OPS * WR_WALK_OP_WORDS];
	struct wr_walk_frame f[WR_WALK_DEPTH];
	__u64 stack[WR_WALK_DEPTH][WR_WALK_TREE_STACK * 2];
	__u64 word[8]; /* what a step reads of the value */
	__u64 local[WR_PIECES_MAX / 8]; /* wr_walk_pieces(): the value's words */
	/* The last run of elements copied: [run_addr, run_end) of the
	 * process, at payload offset run_off of the event; a step reads the
	 * words of an element there from the copy, not the process again. */
	__u64 run_addr, run_end, run_off;
	__u32 depth;   /* frames in use */
	__u32 n_ops;
	/* The outer frames' recipes (struct wr_outer_recipe): frame j's
	 * key, the hash of frames 0 to j's ips, for j < WR_OUTER_CHAIN_FRAMES,
	 * and its slot in wr_outer_slots when it has one */
	__u64 outer_key[32];
	__u32 outer_slot[32];
	/* frame j's recipe's number when its last root was taken */
	__u32 outer_seq[32];
	/* The outer frames' whole walks (WR_OUTER_F_WALK), run after their
	 * recipes' other roots: each value's address, its root (frame index
	 * * WR_OUTER_ROOTS + root index | its first op << 16) and the number
	 * of the recipe it was taken from; the next to run; the frame whose
	 * recipe's ops are in ops[] (+ 1; 0: none) and that recipe's number */
	__u64 walk_at[32];
	__u32 walk_root[32];
	__u32 walk_seq[32];
	__u32 n_walks, next_walk, ops_of, ops_seq;
	/* for wr_outer_walks, tail-called: the stack copy [base, end) at
	 * payload offset off, and the open WR_ITEM_OUTER's offset */
	__u64 walk_run[3];
	__u64 walk_item;
};

/* The base a walk runs at for a value the probe assembled from pieces
 * (WR_ARG_PIECES: a &str in two registers): its words are not in the
 * process's memory but in the walk state, read there for the addresses
 * [WR_WALK_LOCAL, WR_WALK_LOCAL + WR_PIECES_MAX), which no user address
 * reaches (the renderer looks the value up at the same base). */
#define WR_WALK_LOCAL 0x8000000000000000ull

/* ---- expression error item ---- */
/* An expression (a condition, a builtin) whose reads failed: it is false,
 * the statements it guards did not run, and the event says why. */
#define WR_EXPR_F_FIRST_ARG   0x01u /* memcmp's first argument (strncmp's string) failed */
#define WR_EXPR_F_SECOND_ARG  0x02u /* memcmp's second argument failed */
#define WR_EXPR_F_LEN_CLAMPED 0x04u /* the length was negative or above WR_CMP_MAX */
#define WR_EXPR_F_LEN_ZERO    0x08u /* the length was 0: nothing was read */

struct wr_expr_error {
	__u64 addr;     /* the address that failed; 0 for a NULL pointer */
	__u8 code;      /* enum wr_arg_status */
	__u8 flags;     /* WR_EXPR_F_* */
	__u16 reserved0;
	__u32 reserved;
};
WR_STATIC_ASSERT(sizeof(struct wr_expr_error) == 16, "expr error size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_expr_error, code) == 8, "expr error code offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_expr_error, flags) == 9, "expr error flags offset");

/* Bytes memcmp, strncmp and starts_with compare at most. */
#define WR_CMP_MAX 64u
#define WR_CMP_A_HELD 0x1u /* the first side's bytes are in the buffer already */
#define WR_CMP_B_HELD 0x2u /* the second side's bytes are in the buffer already */

/* A comparison, set up by the probe on its stack and made by
 * wr_mem_equal(): both sides' bytes meet here.  Everything that depends on
 * values known only at run time (the length, a side that failed earlier)
 * is decided inside that one BPF function, so a probe with many
 * comparisons gives the verifier no extra paths to walk. */
struct wr_cmp_buf {
	__u8 a[WR_CMP_MAX];
	__u8 b[WR_CMP_MAX];
	__s64 len;      /* the length asked for (negative compares nothing) */
	__u64 at_a;     /* where finding side a failed (with status_a) */
	__u64 at_b;
	__u32 limit;    /* at most this many bytes: WR_CMP_MAX or a literal's length */
	__u16 flags;    /* WR_CMP_*_HELD */
	__u16 index;    /* the expression's number, for its error item */
	__u8 status_a;  /* enum wr_arg_status of finding side a's address */
	__u8 status_b;
	__u8 reserved[6];
};
WR_STATIC_ASSERT(sizeof(struct wr_cmp_buf) == 2 * WR_CMP_MAX + 40, "cmp buffer size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, len) == 128, "cmp len offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, at_a) == 136, "cmp at_a offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, at_b) == 144, "cmp at_b offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, limit) == 152, "cmp limit offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, flags) == 156, "cmp flags offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, index) == 158, "cmp index offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, status_a) == 160, "cmp status_a offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cmp_buf, status_b) == 161, "cmp status_b offset");

/* ---- caller item (WR_ITEM_CALLER) ----
 * A print's value that is what the function's caller passed in a
 * register (DW_OP_entry_value) is known, when no call site of the
 * probe's own module matched at run time, only to the caller's call
 * site, in whatever module the return address lies in; userspace finds
 * it and evaluates what it passed in the caller's frame as seen at the
 * hit.  The item's arguments: WR_CALLER_REGS WR_ARG_U64 (DWARF registers
 * 0..16 of frame 0 as the kernel saved them), WR_CALLER_DUMPS
 * WR_ARG_DUMP of WR_DUMP_MAX bytes each (the stack from frame 0's CFA -
 * WR_CALLER_BELOW up: the registers frame 0 saved, its return address,
 * and the caller's frame), then one WR_ARG_U64 per such print argument,
 * wr_caller_arg(). */
#define WR_CALLER_REGS 17u
#define WR_CALLER_DUMPS 5u
#define WR_CALLER_BELOW 256u

/* Print argument @wire's value is what the caller passed in DWARF
 * register @reg. */
static inline __u64 wr_caller_arg(__u32 wire, __u32 reg)
{
	return (__u64)(wire & 0xffff) | (__u64)(reg & 0xff) << 16;
}
static inline __u32 wr_caller_wire_of(__u64 arg)
{
	return (__u32)(arg & 0xffff);
}
static inline __u32 wr_caller_reg_of(__u64 arg)
{
	return (__u32)(arg >> 16 & 0xff);
}

/* ---- backtrace item ---- */
/* Statuses and error codes; numbered as GhostScope numbers them. */
enum wr_bt_status {
	WR_BT_COMPLETE            = 0,
	WR_BT_TRUNCATED           = 1,
	WR_BT_DWARF_UNAVAILABLE   = 2,
	WR_BT_UNSUPPORTED_CFI     = 3,
	WR_BT_OFFSETS_UNAVAILABLE = 4,
	WR_BT_READ_ERROR          = 5,
	WR_BT_INTERNAL_ERROR      = 6,
	WR_BT_INVALID_FRAME       = 7,
	WR_BT_NO_ROWS_FOR_PC      = 8,
	WR_BT_STATUS_COUNT_
};

enum wr_bt_error {
	WR_BTE_NONE                 = 0,
	WR_BTE_RETURN_ADDRESS_READ  = 1,
	WR_BTE_FRAME_POINTER_READ   = 2,
	WR_BTE_NEXT_IP_BELOW_USER   = 3,
	WR_BTE_NEXT_IP_KERNEL_LIKE  = 4,
	WR_BTE_NEXT_CFA_ZERO        = 5,
	WR_BTE_NEXT_CFA_NOT_ADVANCING = 6,
	WR_BTE_COUNT_
};

/* Statement options, as flags on the wire. */
#define WR_BT_F_RAW      0x01u
#define WR_BT_F_FULL     0x02u  /* frame values: parameters and locals (gdb's bt full) */
#define WR_BT_F_INLINE   0x04u
#define WR_BT_F_ARGS     0x08u  /* frame values: parameters */
/* Set by the kernel, never by a statement: what became of the event's
 * one copy of the stack for this bt (handover.bpf.h, attach_stack()).
 * A bt that has neither and wants the copy tells userspace the kernel
 * did not try to attach it. */
#define WR_BT_F_STACK    0x40u  /* the WR_ITEM_STACK of the event is this bt's */
#define WR_BT_F_NO_ROOM  0x80u  /* its copy did not fit: the event was at its size limit */

struct wr_bt_header {
	__u16 requested_depth;
	__u16 frame_count;
	__u8 flags;       /* WR_BT_F_* */
	__u8 status;      /* enum wr_bt_status */
	__u16 error_code; /* enum wr_bt_error */
};
WR_STATIC_ASSERT(sizeof(struct wr_bt_header) == 8, "bt header size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_header, frame_count) == 2, "bt frame count offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_header, flags) == 4, "bt flags offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_header, status) == 5, "bt status offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_header, error_code) == 6, "bt error offset");
WR_STATIC_ASSERT(WR_BT_MAX_DEPTH <= 0xffffu, "a depth fits the header's 16 bits");
WR_STATIC_ASSERT((WR_BT_MAX_DEPTH & (WR_BT_MAX_DEPTH - 1)) == 0, "the depth mask is a power of two");

/* wr_bt()'s flags_index argument: the statement's WR_BT_F_* flags and
 * its index among the probe's bt statements (the item header's index):
 * flags | index << 8. */
static inline __u32 wr_bt_flags_index(__u32 flags, __u32 index)
{
	return (flags & 0xff) | (index & 0xffff) << 8;
}
static inline __u8 wr_bt_flags_of(__u32 flags_index)
{
	return (__u8)flags_index;
}
static inline __u16 wr_bt_index_of(__u32 flags_index)
{
	return (__u16)(flags_index >> 8);
}

/* Frame flags */
#define WR_FRAME_F_EXACT_IP 0x0001u /* ip is not a return address (frame 0, or interrupted by a signal) */
#define WR_FRAME_F_SIGNAL   0x0002u /* this frame is a signal trampoline */

/* 16 bytes: a backtrace's bytes are most of an event's, and what an event
 * costs to output grows with its size. */
struct wr_bt_frame {
	__u64 ip;     /* raw runtime instruction pointer */
	__u32 pc;     /* module-relative (ELF virtual address); 0 when cookie is 0 */
	__u16 cookie; /* module cookie; 0 = unknown module */
	__u8 flags;   /* WR_FRAME_F_* */
	__u8 reserved;
};
WR_STATIC_ASSERT(sizeof(struct wr_bt_frame) == 16, "bt frame size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_frame, pc) == 8, "frame pc offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_frame, cookie) == 12, "frame cookie offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_frame, flags) == 14, "frame flags offset");
WR_STATIC_ASSERT(WR_MAX_MODULES < 0xffffu, "a module cookie fits a frame's 16 bits");

/* Where the in-kernel walk of one bt stopped because the frame's address is
 * in no mapping it knows (a library mapped since the last refresh, or a
 * process it has not seen yet), followed by the user stack from that
 * frame's sp up: userspace learns the mapping and finishes the walk with
 * the same CFI rows.  The kernel's own view of the mapping (bpf_find_vma)
 * lets userspace check it names the same file, so no frame is ever taken
 * from a mapping that has changed since the event. */
#define WR_STACK_COPY_MAX   16384u  /* bytes of stack copied at most */
#define WR_STACK_CHUNK      1024u   /* copied in aligned chunks up to the first unreadable one */

#define WR_STACK_RED_ZONE   128u    /* below sp, a leaf function's own (x86-64 ABI): copied
				     * too for frame values */

#define WR_STACK_F_VMA      0x01u   /* the vma_* fields are filled */
#define WR_STACK_F_HANDOVER 0x02u   /* the walk stopped at ip/sp/bp: userspace finishes it */
#define WR_STACK_F_REGS     0x04u   /* frame 0's registers (wr_stack_regs) follow the header,
				     * before the stack: a bt with frame values (args, full) */

struct wr_stack_header {
	__u64 ip;         /* the frame the walk stopped at (its frame is the bt's last) */
	__u64 sp;         /* its stack pointer */
	__u64 bp;         /* its rbp (valid with WR_SLOT_F_BP_VALID in slot_flags) */
	__u64 base;       /* user address of the copy's first byte (sp rounded down to 8;
			   * for frame values the red zone below it, or what of it
			   * lies in a page that is there) */
	__u64 vma_start;  /* the kernel's mapping of ip: start, end, file offset, */
	__u64 vma_end;
	__u64 vma_pgoff;  /* in bytes */
	__u64 vma_ino;    /* and the file's inode (0: anonymous) */
	__u32 vma_dev;    /* kernel dev_t of that file: major << 20 | minor */
	__u16 bt_index;   /* which bt item of the event (0 = the first) it continues */
	__u8 slot_flags;  /* WR_SLOT_F_* of the walk at that frame */
	__u8 flags;       /* WR_STACK_F_* */
	__u32 len;        /* bytes of stack that follow */
	__u32 reserved;
};
WR_STATIC_ASSERT(sizeof(struct wr_stack_header) == 80, "stack header size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_stack_header, vma_start) == 32, "stack vma_start offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_stack_header, vma_dev) == 64, "stack vma_dev offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_stack_header, len) == 72, "stack len offset");
WR_STATIC_ASSERT((WR_STACK_CHUNK & (WR_STACK_CHUNK - 1)) == 0, "stack chunk is a power of two");

/* Frame 0's registers as the kernel saved them at the probe (x86-64
 * struct pt_regs): what a frame's variables are read from, and, unwound
 * by the CFI in userspace, its callers'. */
struct wr_stack_regs {
	X86_PT_REGS_MEMBERS
};
WR_STATIC_ASSERT(sizeof(struct wr_stack_regs) == 168, "stack regs size");

WR_STATIC_ASSERT(sizeof(struct wr_bt_header) + WR_BT_MAX_DEPTH * sizeof(struct wr_bt_frame)
		 < WR_EVENT_MAX - sizeof(struct wr_event_header), "one full bt fits an event");
WR_STATIC_ASSERT((WR_EVENT_MAX & (WR_EVENT_MAX - 1)) == 0, "event max is a power of two");
WR_STATIC_ASSERT(WR_EVENT_BUF_SIZE >= 2 * WR_EVENT_MAX, "masked writes stay in the buffer");

/* ======================================================================
 * BPF map values (filled by userspace, read by the templates)
 * ====================================================================== */

/* What a bt with frame values copies for its outer frames (frame 1 and
 * up), whose functions the probe's program does not know: userspace,
 * having read an event whose frames 0 to j it had not seen together,
 * writes where frame j's values lie that point outside the stack (a
 * caller's std::string, a reference's referent, a char pointer's
 * string), as offsets from frame 0's sp (fixed by frames 0 to j's code),
 * each with the first op of the walk its printer runs (wire.h: walks;
 * only a STRING or CSTR op reads further; a local gdb's bt full shows
 * whole has its whole walk, WR_OUTER_F_WALK, run after the others by
 * wr_outer_walks, which the step program tail-calls, each walk's copies
 * after a WR_MEM_F_WALKED record of its value), into a slot of wr_outer_slots for
 * the hash of frames 0 to j's ips (wr_outer_chain_add() over them; j <
 * WR_OUTER_CHAIN_FRAMES).  Each later event runs, after its stack copy
 * (WR_ITEM_OUTER), the recipe of each of its frames that has one: a new
 * call chain's frames that other chains share with it from frame 0 have
 * their values at its first event.  The renderer finds the copies by
 * address, so a recipe that does not fit a stack copies what no variable
 * names and is never shown.
 *
 * The recipes lie in slots of an array userspace writes through a
 * mapping (wr_outer_slots), each under a sequence number odd while it
 * writes; wr_outer_index gives a chain's slot.  Userspace writes a new
 * or changed recipe into a spare slot, points the chain's key to it,
 * and keeps the slot it replaces (of the same chain, or of the least
 * recently seen chain when the table is full) as the next spare: a
 * probe on another CPU may still be reading it, and may be when it is
 * written in turn.  So the probe copies each
 * root, then checks the slot's number did not change and its chain is
 * the one it looked up, else it takes nothing from the recipe and
 * leaves the frame's bit of WR_ITEM_OUTER's aux clear.  A frame whose
 * bit is set ran roots of its own recipe only. */
#define WR_OUTER_ROOTS 16u         /* values of one frame (a power of 2) */
#define WR_OUTER_CHAIN_FRAMES 32u  /* frames with a recipe, at most (a power of 2) */
#define WR_OUTER_RECIPES 1024u     /* recipes, at most */
#define WR_OUTER_SLOTS (WR_OUTER_RECIPES + 1u) /* and a spare slot to write the next in */
#define WR_OUTER_F_DEREF 0x1u      /* the word at the root is the value's address */
#define WR_OUTER_F_REG 0x2u        /* the value's address is frame 0's register at
				    * byte off of struct wr_stack_regs */
#define WR_OUTER_F_ABS 0x4u        /* the value is at the address hi << 32 | (__u32)off
				    * (static storage: a caller's static) */
#define WR_OUTER_F_WALK 0x8u       /* the value's whole walk, as print's (a local gdb's
				    * bt full shows whole: a container's elements too):
				    * the program in the recipe's ops from op `first`,
				    * not the root's op */
#define WR_OUTER_F_SPAN 0x10u      /* F_DEREF, F_REG: the value is the size bytes at the
				    * address found (a fat pointer's data: a Rust &str
				    * in registers, its length elsewhere), or where they
				    * cannot all be read their readable head; no op */
#define WR_OUTER_OPS 64u           /* ops of a recipe's walks, all its values' together
				    * (a power of 2, at most WR_WALK_MAX_OPS) */
#define WR_OUTER_WALKS 32u         /* walks an event runs for its outer frames, at most */

struct wr_outer_root {
	__s32 off;      /* from frame 0's sp: the value, or its address (F_DEREF);
			 * F_REG: the register's offset; F_ABS: the lower 32 bits
			 * of the value's address */
	__u16 flags;    /* WR_OUTER_F_* */
	__u8 first;     /* F_WALK: the index of its walk's first op in the recipe's
			 * ops (its ops name each other by index there) */
	__u8 reserved;
	__u32 size;     /* bytes of the value; 0 for a CSTR op's string (its
			 * address is the root's) */
	__u32 hi;       /* F_ABS: the upper 32 bits of the value's address;
			 * F_DEREF, F_REG: a signed addend to the address found
			 * (a pointer computed from the one kept) */
	struct wr_walk_op op; /* the first op of the value's walk (not F_WALK) */
};
WR_STATIC_ASSERT(sizeof(struct wr_outer_root) == 16 + 8 * WR_WALK_OP_WORDS, "outer root size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_outer_root, op) == 16, "outer root op offset");

struct wr_outer_recipe {
	__u32 seq;      /* odd while userspace writes the slot */
	__u32 n_roots;
	__u64 chain;    /* the key the recipe is of */
	struct wr_outer_root roots[WR_OUTER_ROOTS];
	/* The walk programs of its F_WALK roots, one after another: a
	 * child's index is its index here (op 0, a first program's root,
	 * is no one's child) */
	struct wr_walk_op ops[WR_OUTER_OPS];
};
WR_STATIC_ASSERT(sizeof(((struct wr_walk_state *)0)->outer_key) == 8 * WR_OUTER_CHAIN_FRAMES,
		 "a key for each frame a recipe may be of");
WR_STATIC_ASSERT(sizeof(((struct wr_walk_state *)0)->outer_slot) == 4 * WR_OUTER_CHAIN_FRAMES,
		 "a slot for each frame a recipe may be of");
WR_STATIC_ASSERT(sizeof(((struct wr_walk_state *)0)->outer_seq) == 4 * WR_OUTER_CHAIN_FRAMES,
		 "a recipe number for each frame a recipe may be of");
WR_STATIC_ASSERT(sizeof(((struct wr_walk_state *)0)->walk_at) == 8 * WR_OUTER_WALKS &&
		 sizeof(((struct wr_walk_state *)0)->walk_root) == 4 * WR_OUTER_WALKS &&
		 (WR_OUTER_WALKS & (WR_OUTER_WALKS - 1)) == 0, "an event's outer walks, a power of 2");
WR_STATIC_ASSERT(sizeof(struct wr_outer_recipe) ==
		 16 + (16 + 8 * WR_WALK_OP_WORDS) * WR_OUTER_ROOTS + 8 * WR_WALK_OP_WORDS * WR_OUTER_OPS,
		 "outer recipe size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_outer_recipe, ops) == 16 + (16 + 8 * WR_WALK_OP_WORDS) * WR_OUTER_ROOTS,
		 "outer recipe ops offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_outer_root, first) == 6, "outer root first offset");
WR_STATIC_ASSERT(WR_OUTER_OPS <= WR_WALK_MAX_OPS && (WR_OUTER_OPS & (WR_OUTER_OPS - 1)) == 0,
		 "a recipe's ops fit the walk state's, a power of 2");
WR_STATIC_ASSERT(WR_OUTER_OPS <= 256, "a root's first op fits its 8 bits");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_outer_recipe, chain) == 8, "outer recipe chain offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_outer_recipe, roots) == 16, "outer recipe roots offset");

static inline __u64 wr_outer_chain_add(__u64 hash, __u64 ip)
{
	hash = (hash ^ ip) * 0x9e3779b97f4a7c15ull;
	return hash ^ hash >> 29;
}

/* One compact CFI row: the rule that applies from `pc` (module-relative) up
 * to the next row's pc.  Rows of a module are sorted by pc; a row whose rule
 * is WR_CFI_RULE_NONE marks a gap no FDE covers.  Each module's rows and
 * rules live in maps of their own, sized exactly, reached through the
 * module's slot in two array-of-maps; `rule` indexes the module's rules. */
#define WR_CFI_RULE_NONE 0xffffffffu
/* A probe's own rule (wr_bt()'s rule0, wr_bt_slot.rule0) when it was not
 * known at compile time: the unwinder searches the rows at run time. */
#define WR_RULE_LOOKUP (WR_CFI_RULE_NONE - 1)

struct wr_cfi_row {
	__u32 pc;
	__u32 rule; /* index into the rule table, or WR_CFI_RULE_NONE */
};
WR_STATIC_ASSERT(sizeof(struct wr_cfi_row) == 8, "cfi row size");

/* How the CFA is computed. */
enum wr_cfa_kind {
	WR_CFA_REG_OFF   = 0, /* CFA = reg + off */
	WR_CFA_DEREF     = 1, /* CFA = *(u64 *)(reg + off) (stack realignment) */
};

/* How the return address or rbp of the caller is recovered. */
enum wr_reg_rule {
	WR_RULE_UNDEFINED  = 0, /* no value: for the return address, the stack ends */
	WR_RULE_AT_CFA     = 1, /* value = *(u64 *)(CFA + off) */
	WR_RULE_VAL_CFA    = 2, /* value = CFA + off */
	WR_RULE_SAME_VALUE = 3, /* unchanged (rbp only) */
	WR_RULE_REGISTER   = 4, /* value = another register (reg in `off`) */
	WR_RULE_AT_RBP     = 5, /* value = *(u64 *)(rbp + off), rbp of this frame (rbp only) */
};

/* Row kinds. */
enum wr_row_kind {
	WR_ROW_NORMAL      = 0,
	WR_ROW_SIGNAL      = 1, /* signal trampoline: registers from the ucontext at rsp */
	WR_ROW_UNSUPPORTED = 2, /* a rule that has no compact form (expression, other register) */
};

/* DWARF register numbers used by rules (arch/x86_64.h). */
#define WR_DWARF_RBP X86_DWARF_rbp
#define WR_DWARF_RSP X86_DWARF_rsp
#define WR_DWARF_RIP X86_DWARF_rip

/* Offsets that do not fit these widths make the row unsupported. */
struct wr_cfi_rule {
	__s32 cfa_off;
	__s16 ra_off;
	__s16 rbp_off;  /* for WR_RULE_REGISTER: the DWARF register number */
	__u8 cfa_reg;   /* WR_DWARF_RSP or WR_DWARF_RBP */
	__u8 cfa_kind;  /* enum wr_cfa_kind */
	__u8 ra_rule;   /* enum wr_reg_rule */
	__u8 rbp_rule;  /* enum wr_reg_rule */
	__u8 kind;      /* enum wr_row_kind */
	__u8 reserved[3];
};
WR_STATIC_ASSERT(sizeof(struct wr_cfi_rule) == 16, "cfi rule size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cfi_rule, ra_off) == 4, "ra_off offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cfi_rule, rbp_off) == 6, "rbp_off offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cfi_rule, cfa_reg) == 8, "cfa_reg offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_cfi_rule, kind) == 12, "rule kind offset");

/* Where a signal frame keeps the registers a signal row recovers
 * (arch/x86_64.h). */
#define WR_UCTX_RBP X86_UCTX_RBP
#define WR_UCTX_RSP X86_UCTX_RSP
#define WR_UCTX_RIP X86_UCTX_RIP

/* One executable mapping of a traced process. */
struct wr_mapping {
	__u64 start;
	__u64 end;
	__u64 bias;      /* runtime address - ELF virtual address */
	__u64 cookie;    /* module identity */
	__u32 slot;      /* the module's slot in the row and rule map arrays */
	__u32 row_count; /* 0: the module has no CFI */
};
WR_STATIC_ASSERT(sizeof(struct wr_mapping) == 40, "mapping size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_mapping, cookie) == 24, "mapping cookie offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_mapping, slot) == 32, "mapping slot offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_mapping, row_count) == 36, "mapping row_count offset");

/* The executable mappings of one process, sorted by start. */
struct wr_proc_maps {
	__u32 count;
	__u32 generation; /* changes with every update, so cached frames go stale */
	__u32 tgid;       /* the process whose they are; 0 once the slot is freed */
	__u32 reserved;
	struct wr_mapping m[WR_MAX_MAPPINGS];
};
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_proc_maps, tgid) == 8, "proc maps tgid offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_proc_maps, m) == 16, "proc maps array offset");
WR_STATIC_ASSERT(sizeof(struct wr_proc_maps) == 16 + 40 * WR_MAX_MAPPINGS, "proc maps size");

/* What a session's base object may leave out (rt_options.base_omits,
 * codegen_options.base_omits): the kernel's verifier checks what is
 * loaded at every start, and a session in script mode knows that its one
 * script never reaches these.  0 (the shell, --batch): keep everything. */
#define WR_BASE_NO_STEP   0x1u /* the step program: no `bt` or `count bt` */
#define WR_BASE_NO_COUNT  0x2u /* counting stacks: no `count bt` */
#define WR_BASE_NO_VALUES 0x4u /* outer frames' copies: no `bt args` or `bt full` */
#define WR_BASE_NO_WALKS  0x8u /* outer frames' whole walks (wr_outer_walks): no `bt full` */

/* The programs the probes and the step program tail-call (wr_progs). */
#define WR_TAIL_STEP 0u        /* wr_bt_step, from a probe with pending backtraces */
#define WR_TAIL_OUTER_WALKS 1u /* wr_outer_walks, from wr_bt_step: outer frames' whole walks */

/* Per-CPU unwinding state for one bt statement of the event being built. */
#define WR_SLOT_F_PENDING  0x01u /* more frames to unwind */
#define WR_SLOT_F_BP_VALID 0x02u /* bp holds the frame's real rbp */
#define WR_SLOT_F_EXACT    0x04u /* ip is exact (do not look up ip - 1) */
#define WR_SLOT_F_BP_READ_FAILED 0x08u /* rbp is unknown because reading it failed */
#define WR_SLOT_F_COUNT    0x10u /* a `count bt`: counted in wr_stack_counts, not sent */
#define WR_SLOT_F_UNCOPIED 0x20u /* a `count bt` taken again from the last walk
				  * (walk_replay()): its frames are still only there */

struct wr_bt_slot {
	__u64 ip;
	__u64 sp;
	__u64 bp;
	__u32 item_off;  /* offset of the wr_bt_header in the event buffer */
	__u16 depth;     /* requested depth (the frames held, once trimmed) */
	__u16 count;     /* frames emitted */
	__u8 status;
	__u8 flags;      /* WR_SLOT_F_* */
	__u16 error;
	__u32 rule0;     /* rule of the probe's own pc, resolved at compile time */
	__u64 hash;      /* of the frames emitted so far (a stack's identity) */
	__u64 key;       /* `count bt, KEY`: the key's value */
};
WR_STATIC_ASSERT(sizeof(struct wr_bt_slot) == 56, "bt slot size");

/* The user stack the unwinder copies at once: one copy serves the
 * return addresses and saved registers of several frames.  A copy runs
 * from just below the word a walk needs, WR_BT_STACK_FIRST bytes for a
 * walk's first copy and twice the last one's for each after it, at most
 * WR_BT_STACK_MAX bytes, up to the top of the main thread's stack or
 * elsewhere to the end of the word's page (WR_BT_STACK_PAGE), never into
 * the next (bpf-templates/unwind.bpf.h: why). */
#define WR_BT_STACK_PAGE  4096u
#define WR_BT_STACK_FIRST 1024u
#define WR_BT_STACK_MAX   8192u
WR_STATIC_ASSERT(WR_BT_STACK_FIRST >= 24 && WR_BT_STACK_FIRST <= WR_BT_STACK_MAX, "first stack copy");

/* The last walk a CPU finished, with every word of user memory it read:
 * a walk is a function of the frame's registers, the process's mappings
 * (their generation) and the words it reads, so a walk that starts from
 * the same registers and finds the same words where this one read them
 * ends as this one did, and takes its frames from here instead of
 * unwinding them again (bpf-templates/unwind.bpf.h: walk_replay()).  A
 * hot function is reached through the same stack on every hit, and a
 * walk's words are a few per frame. */
#define WR_WALK_MEMO_FRAMES 32u /* frames of a walk kept, at most */
#define WR_WALK_MEMO_READS  64u /* words it read, at most */
struct wr_walk_memo {
	/* What the walk started from (an open slot's registers and flags). */
	__u64 ip;
	__u64 sp;
	__u64 bp;
	__u32 tgid;
	__u32 generation; /* of the process's mappings */
	__u32 rule0;
	__u16 depth;
	__u8 flags;
	__u8 valid;       /* 0: no walk kept (a walk being recorded) */
	/* Where it ended: the slot's registers, flags, frames, hash, status
	 * and error (walk_end()). */
	struct wr_bt_slot end;
	__u16 reads;      /* words read; more than WR_WALK_MEMO_READS: not kept */
	__u16 pad[3];
	__u64 span_lo;    /* the lowest word read */
	__u64 span_hi;    /* the end of the highest */
	__u64 read_addr[WR_WALK_MEMO_READS];
	__u64 read_val[WR_WALK_MEMO_READS];
	__u64 frames[2 * WR_WALK_MEMO_FRAMES]; /* the records (struct wr_bt_frame) */
};

struct wr_bt_state {
	__u32 n_slots;   /* slots used by this event */
	__u32 holder;    /* --fault-in: the thread assembling an event here, 0 = none */
	__u32 cur;       /* the slot the step program is working on */
	__u32 stack_len; /* bytes of stack[] valid for this event, 0 = none */
	__u32 proc_slot; /* this event's process in wr_proc_maps, or WR_PROC_NONE */
	__u32 n_count;   /* of the slots, `count bt` ones (in the first cache line, which
			  * is all of the state a hit reaches before its first bt;
			  * a probe without one touches none) */
	struct wr_bt_slot slot[WR_BT_MAX_SLOTS];
	__u32 stack_bt;    /* after the walks: the backtrace item the stack copy goes with */
	__u32 held_since;  /* --fault-in: when holder took the buffer, ktime >> 20 (~ms) */
	__u64 stack_base; /* user address of stack[0] */
	__u64 uretprobe_tramp; /* the process's uretprobe return trampoline, 0 = none */
	__u64 stack_top;  /* the top of the process's main stack (mm->start_stack) */
	__u8 stack[WR_BT_STACK_MAX];
	/* The walk's last frame rule: recursion returns to one address frame
	 * after frame, and the next frame there needs only a compare.  Valid
	 * for one walk (memo_key 0 = none): the maps it came from are the
	 * ones the walk's earlier frames used. */
	__u64 memo_key;    /* as the frame cache's key */
	__u64 memo_word;   /* the frame record's second word (pc, cookie, flags) */
	__u64 memo_hash;   /* what the frame adds to a `count bt` stack's identity */
	struct wr_cfi_rule memo_rule;
	__u32 memo_plain;  /* WR_MEMO_* (below) when memo_rule has the short form, else 0 */
	/* The slot in wr_proc_maps of the last process this CPU unwound, kept
	 * from event to event: a slot that says it is the event's process is
	 * taken without the hash lookup of wr_proc_slot (bpf-templates/
	 * unwind.bpf.h, proc_maps_of()). */
	__u32 proc_hint;
	struct wr_walk_memo walk; /* the last walk finished on this CPU */
};
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_state, slot) == 24, "bt state slot offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_bt_state, n_count) < 64, "bt state: a hit's fields in one line");

/* wr_bt_state.memo_plain: the remembered rule has the short form the
 * unwinder's runs of recursion take (the CFA from rsp or rbp plus an
 * offset, the return address at the CFA, rbp kept or saved at the CFA;
 * bpf-templates/unwind.bpf.h, plain_run()); with these bits for its
 * variants. */
#define WR_MEMO_PLAIN    0x1u
#define WR_MEMO_CFA_RBP  0x2u /* the CFA is rbp-based */
#define WR_MEMO_BP_SAVED 0x4u /* the caller's rbp is saved at the CFA */
#define WR_MEMO_SKIP     0x8u /* the next frame takes the general path */

/* Per-probe counters (per-CPU array indexed by probe id). */
/* One site's data, for a probe of several sites whose programs differ only
 * in it (codegen/plan.h: site_table): the constants of its locations
 * (offsets, constant values, its pc) and the pt_regs offsets of the
 * registers they are in, in the order the code generator asked for them.
 * Entry WIRE_ID of wr_site_params; .id is that wire id | WR_SITE_VALID,
 * so an entry no site wrote reads as none (the probe drops the hit). */
#define WR_SITE_PARAMS 31u
#define WR_SITE_VALID  0x100000000ull
/* The last entry of v[] is the site's form: which of the bodies of a
 * program compiled for several forms (codegen_forms()) runs at the site;
 * the others hold its data. */
#define WR_SITE_FORM   (WR_SITE_PARAMS - 1u)
struct wr_site_params {
	__u64 id;
	__u64 v[WR_SITE_PARAMS];
};
WR_STATIC_ASSERT(sizeof(struct wr_site_params) == 256, "site params size");

/* -t PATH: what the kernel's tracepoints keep wr_members up to date by
 * (bpf-templates/members.bpf.h).  A process's fork adds its child; an
 * exec() of the file (dev, ino) adds the process and of any other file
 * removes it, when @exec is 1 (PATH is a program); the last thread's exit
 * removes it. */
struct wr_member_watch {
	__u64 ino;
	__u32 dev;   /* kernel dev_t of the file: major << 20 | minor */
	__u32 exec;
};
WR_STATIC_ASSERT(sizeof(struct wr_member_watch) == 16, "member watch size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_member_watch, dev) == 8, "member watch dev offset");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_member_watch, exec) == 12, "member watch exec offset");

struct wr_probe_stats {
	__u64 hits;
	__u64 lost;       /* output helper failed: buffer full */
	__u64 truncated;  /* event did not fit */
	__u64 bt_errors;  /* tail call failed or state missing */
	__u64 filtered;   /* the probe's conditions chose to emit nothing: not sent */
	__u64 counted;    /* `count bt` stacks counted */
	__u64 count_dropped; /* `count bt` stacks not counted: the stack maps were full */
	__u64 reserved;
};
WR_STATIC_ASSERT(sizeof(struct wr_probe_stats) == 64, "probe stats size");

/* ---- counting stacks in the kernel (`count bt`) ----
 * A hit of `count bt [, KEY]` unwinds as a bt does, then adds one to the
 * count of (probe, stack, key) in wr_stack_counts; the stack's frames are
 * stored once, under its identity, in wr_stacks.  The identity is a 64-bit
 * hash of the frames (module and module-relative pc, or the raw ip of an
 * unknown module) and the walk's status; nothing is sent per hit.  A
 * stack keeps at most WR_COUNT_MAX_DEPTH frames. */
#define WR_COUNT_MAX_DEPTH     128u
#define WR_COUNT_DEFAULT_STACKS 65536u /* entries of each map (--stack-entries) */

struct wr_count_key {
	__u64 stack_id;
	__u64 key;        /* 0 without a KEY */
	__u32 probe_id;   /* the wire id of the probe site */
	__u32 index;      /* the statement's index among the probe's `count bt` */
};
WR_STATIC_ASSERT(sizeof(struct wr_count_key) == 24, "count key size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_count_key, probe_id) == 16, "count key probe offset");

/* A slot of wr_count_slots: one CPU's count of one (probe, stack, key),
 * the first place a hit looks, in line, before the hash map
 * wr_stack_counts (a helper call): each CPU's slots are a direct-mapped
 * table indexed by the stack's identity, and a stack whose slot holds
 * another is counted in wr_stack_counts instead, so a key never shares a
 * count with another; userspace adds up a key's counts from every slot
 * and the hash map.  count first: 0 in a free slot, and the kernel
 * writes the key before it, so a reader that sees it non-zero sees the
 * key whole.  Entry 0 of the map is no slot: its count is the number of
 * slots each CPU has (a power of two, or 0 for none), CPU c's starting at
 * entry 1 + c * that number. */
struct wr_count_slot {
	__u64 count;
	struct wr_count_key k;
};
WR_STATIC_ASSERT(sizeof(struct wr_count_slot) == 32, "count slot size");
WR_STATIC_ASSERT(WR_OFFSETOF(struct wr_count_slot, k) == 8, "count slot key offset");
#define WR_COUNT_SLOTS 256u /* slots per CPU at most (a power of two) */

/* Exactly the payload of a backtrace item of that depth, so the step
 * program stores the item as it stands. */
struct wr_count_stack {
	struct wr_bt_header h;
	struct wr_bt_frame frames[WR_COUNT_MAX_DEPTH];
};
WR_STATIC_ASSERT(sizeof(struct wr_count_stack) == 8 + 16 * WR_COUNT_MAX_DEPTH, "count stack size");
WR_STATIC_ASSERT(WR_COUNT_MAX_DEPTH <= WR_BT_MAX_DEPTH, "a counted stack is a backtrace");

#endif
