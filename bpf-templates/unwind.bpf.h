/* unwind.bpf.h - the unwinder: a `bt`'s slot, the searches of a
 * process's mappings and of a module's rows, the rule step from a frame
 * to its caller, the frame cache and runs of recursion, and the frame
 * loop the step program (or a --fault-in probe) runs.
 *
 * A section of wraith.bpf.c, included by it alone, after events.bpf.h.
 */

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
 * the last of the event so far.  The slot then holds only its frames: an
 * item appended after it (the stack copy) could end exactly where the
 * frames given back did, and a second trim (output()) would cut it off. */
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
	s->depth = s->count;
}

/* The word at offset @off (a multiple of 8) of the stack copy.  Indexed
 * as words: through a pointer into a byte array clang assumes no
 * alignment and reads the word a byte at a time. */
WR_INLINE __u64 stack_word(struct wr_bt_state *st, __u64 off)
{
	const __u64 *w = (const __u64 *)st->stack;

	return w[(off / sizeof(*w)) & (WR_BT_STACK_MAX / sizeof(*w) - 1)];
}

/* Nothing is mapped this close below the main thread's stack unless it
 * is that stack: the kernel keeps other mappings a guard gap (1 MiB by
 * default) below it, and mmap()s them far lower still. */
#define WR_MAIN_STACK_NEAR (1ull << 20)

/* How many bytes to copy from @base, just below the word at @addr:
 * @want, but not into the next page: it may be past the end of the
 * stack, and a copy that runs into a page that is not there costs a fault
 * (about a microsecond) before it fails.  With @top (the top of the main
 * thread's stack) and @addr on that stack, up to @top instead: the thread
 * has used every page there, so they are present (above it lie the
 * process's arguments and environment, which no walk reads).  At most
 * WR_BT_STACK_MAX bytes, in a form the verifier bounds. */
WR_INLINE __u32 copy_len(__u64 base, __u64 addr, __u64 top, __u64 want)
{
	__u64 end = (addr | (WR_BT_STACK_PAGE - 1)) + 1, len;

	if (addr < top && top - addr < WR_MAIN_STACK_NEAR)
		end = top;
	len = end - base;
	if (len > want)
		len = want;
	if (len > WR_BT_STACK_MAX)
		len = WR_BT_STACK_MAX;
	WR_BARRIER_VAR(len);
	return (__u32)(len & (2 * WR_BT_STACK_MAX - 1));
}

/* The rule step's read (unwind/step.h): 8 bytes of user memory at @addr,
 * from the copy of the stack in @st when it holds them.  Otherwise copy
 * the stack from just below @addr (the caller frames lie above), as far
 * as copy_len() lets: WR_BT_STACK_FIRST bytes for a walk's first copy,
 * twice the last one's after that.  A copy costs about as much per byte
 * as it costs to start, and most walks read well under a page, so the
 * first is small and its cost does not depend on where in its page the
 * stack happens to lie; a deep walk's copies grow and stay few.  Where a
 * copy fails, the rest of the page; where that fails too, only the 8
 * bytes.  Stack words are aligned; a word that is not is read on its
 * own. */
WR_INLINE int stack_read(struct wr_bt_state *st, __u64 *dst, __u64 addr)
{
	__u64 off = addr - st->stack_base;

	if (addr & 7)
		return user_read(dst, sizeof(*dst), (const void *)addr);
	if (st->stack_len == 0 || off > st->stack_len - sizeof(*dst)) {
		__u64 base = addr - 16, want = st->stack_len ? 2 * st->stack_len : WR_BT_STACK_FIRST;
		__u32 len = copy_len(base, addr, st->stack_top, want);

		STAGE(rule_step);
		if (len < 24 || len > WR_BT_STACK_MAX ||
		    bpf_probe_read_user(st->stack, len, (const void *)base)) {
			len = copy_len(base, addr, 0, WR_BT_STACK_PAGE);
			if (len < 24 || len > WR_BT_STACK_MAX ||
			    bpf_probe_read_user(st->stack, len, (const void *)base)) {
				st->stack_len = 0;
				return user_read(dst, sizeof(*dst), (const void *)addr);
			}
		}
		st->stack_base = base;
		st->stack_len = len;
		off = 16;
		STAGE(stack_copy);
	}
	*dst = stack_word(st, off);
	return 0;
}

/* wr_walk_memo.reads of a walk that cannot be kept: far above
 * WR_WALK_MEMO_READS, and far below what the reads of the deepest walk
 * would take it to. */
#define WR_WALK_UNKEPT 0x8000u

/* The walk being recorded (st->walk) read @val at @addr.  A walk that
 * reads more words than the record holds is not kept. */
WR_INLINE void walk_log(struct wr_bt_state *st, __u64 addr, __u64 val)
{
	struct wr_walk_memo *m = &st->walk;
	__u32 n = m->reads, i = n & (WR_WALK_MEMO_READS - 1);

	/* Without a branch (the verifier walks this once per frame of a run
	 * of recursion): past the end, the walk is not kept, so what the
	 * stores overwrite is never used. */
	m->read_addr[i] = addr;
	m->read_val[i] = val;
	m->reads = (__u16)(n + 1);
}

/* The word at offset @off of the stack copy at @base, recorded. */
WR_INLINE __u64 walk_logged(struct wr_bt_state *st, __u64 base, __u64 off)
{
	__u64 w = stack_word(st, off);

	walk_log(st, base + off, w);
	return w;
}

/* The walk being recorded cannot be replayed: it depends on more than
 * the words it read. */
WR_INLINE void walk_unkept(struct wr_bt_state *st)
{
	st->walk.reads = WR_WALK_UNKEPT;
}

/* The step's read: stack_read(), recorded (a failed read is not: the walk
 * is then not kept). */
WR_INLINE int uw_read(struct wr_bt_state *st, __u64 *dst, __u64 addr)
{
	int err = stack_read(st, dst, addr);

	/* Without a branch, which would double the verifier's paths through
	 * the step: a failure (a negative errno) sets WR_WALK_UNKEPT. */
	walk_log(st, addr, *dst);
	st->walk.reads |= (__u16)(((__u32)err >> 31) * WR_WALK_UNKEPT);
	return err;
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

/* What a walk needs of the current process's memory map: the address
 * of its uretprobe return trampoline (the start of its [uprobes] area;
 * 0 when it has none yet) and the top of its main thread's stack. */
WR_INLINE void walk_mm(struct wr_bt_state *st)
{
	struct task_struct___wr *task = (void *)bpf_get_current_task_btf();
	struct mm_struct___wr *mm = task->mm;
	struct xol_area___wr *area = mm->uprobes_state.xol_area;

	st->uretprobe_tramp = area ? area->vaddr : 0;
	st->stack_top = mm->start_stack;
}

/* The rule step, src/unwind/step.h (the one definition, shared with
 * userspace): a slot's frame, read through the event's copy of the stack,
 * with a return address that is another tool's uretprobe trampoline
 * replaced by the real one. */
#define UW_STEP_REGS struct wr_bt_slot
#define UW_STEP_MEM struct wr_bt_state

WR_INLINE __u64 uw_return_address(struct wr_bt_state *st, __u64 at, __u64 ra)
{
	if (ra == st->uretprobe_tramp && ra) {
		ra = uretprobe_return(at, ra);
		walk_unkept(st); /* the address came from the kernel's list */
	}
	return ra;
}

#include "unwind/step.h"

/* A `count bt` stack's identity @hash once a frame adding @hash_in
 * (uw_frame_word()) is recorded. */
WR_INLINE __u64 stack_hash_add(__u64 hash, __u64 hash_in)
{
	hash = (hash ^ hash_in) * 0x9e3779b97f4a7c15ull;
	return hash ^ hash >> 29;
}

/* Record the frame at s->ip as frame s->count: its record is s->ip and
 * @word (uw_frame_word()), two stores. */
WR_INLINE void put_frame(__u8 *buf, struct wr_bt_slot *s, __u64 word, __u64 hash_in)
{
	__u32 off = (s->item_off & (WR_EVENT_MAX - 1)) + sizeof(struct wr_bt_header) +
		    (s->count & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame);
	__u64 *f = (__u64 *)(buf + sizeof(struct wr_event_header) + off);

	if (slot_counts(s))
		s->hash = stack_hash_add(s->hash, hash_in);
	f[0] = s->ip;
	f[1] = word;
	s->count++;
}

/* Record the frame at s->ip, in the module of @cookie loaded at @bias. */
WR_INLINE void emit_frame(__u8 *buf, struct wr_bt_slot *s, __u64 cookie, __u64 bias)
{
	__u64 hash_in, word = uw_frame_word(s->ip, s->flags & WR_SLOT_F_EXACT, cookie, bias, &hash_in);

	put_frame(buf, s, word, hash_in);
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
	if (s->count == 1 && rule0 != WR_RULE_LOOKUP) {
		idx = rule0;
	} else {
		idx = find_rule(m->slot, m->row_count, uw_row_pc(pc, s->flags & WR_SLOT_F_EXACT));
		STAGE(row_search);
	}
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

/* The cache entry for @key in process @tgid: a multiplicative hash, whose
 * high bits depend on every bit of the key.  Not a few of the key's own
 * bits: libraries built alike have their call sites at the same offsets,
 * a page multiple apart, and an index made of shifted bits of the address
 * put them on the same entries (a chain through three such libraries
 * missed 6 of its 22 frames on every hit). */
WR_INLINE struct wr_frame_cache_ent *cache_slot(__u64 key, __u32 tgid)
{
	__u32 i = (__u32)(((key ^ tgid) * 0x9e3779b97f4a7c15ull) >> 32) & (WR_FRAME_CACHE - 1);

	i += bpf_get_smp_processor_id() * WR_FRAME_CACHE;
	return bpf_map_lookup_elem(&wr_frame_cache, &i);
}

/* The short form of @r plain_run() takes, as WR_MEMO_* bits (wire.h), or
 * 0 when it has none. */
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
		STAGE(frame_cache);
		return &st->memo_rule;
	}
	m = find_mapping(pm, s->ip);
	STAGE(module_search);
	word = uw_frame_word(s->ip, key >> 63, m ? m->cookie : 0, m ? m->bias : 0, &hash_in);
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
	STAGE(miss_fill);
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
	__u64 hash = s->hash, hash_in = st->memo_hash, base = st->stack_base;
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
		if (n >= room || off >= len)
			break;
		if (walk_logged(st, base, off) != ip)
			break;
		f = (__u64 *)(frames + ((count + n) & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame));
		f[0] = ip;
		f[1] = word;
		hash = stack_hash_add(hash, hash_in);
		off += size;
	}
	if (!n)
		return 0;
	if (slot_counts(s))
		s->hash = hash;
	if (plain & WR_MEMO_BP_SAVED) {
		s->bp = walk_logged(st, base, off - size - bp_below);
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
	__u64 base = st->stack_base, hash = s->hash, hash_in = st->memo_hash;
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
		if (walk_logged(st, base, off) != ip)
			break;
		bp = walk_logged(st, base, bp_off);
		off = (count & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame);
		((__u64 *)(frames + off))[0] = ip;
		((__u64 *)(frames + off))[1] = word;
		hash = stack_hash_add(hash, hash_in);
		sp = cfa;
		count++;
	}
	if (!n)
		return 0;
	if (slot_counts(s))
		s->hash = hash;
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
 * walk's last frame (so a run never ends a walk).  A `count bt` stack's
 * identity takes each frame of the run in the loop, as put_frame() does:
 * a hash after the loop would be walked by the verifier once per frame
 * count the loop can end with. */
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
		STAGE(frame_memo);
	} else {
		r = lookup_frame(buf, st, s, pm, key, rule0);
		if (!r)
			return;
	}
	status = uw_step(st, s, r, &error);
	STAGE(rule_step);
	if (status != UW_MOVED)
		slot_finish(buf, s, status, error);
	else if (s->count >= s->depth)
		slot_finish(buf, s, WR_BT_TRUNCATED, 0);
}

/* ---- whole walks again (struct wr_walk_memo) ---- */

/* Where slot @s's frame records lie in the event. */
WR_INLINE __u64 *slot_frame(__u8 *buf, struct wr_bt_slot *s, __u32 i)
{
	__u32 off = (s->item_off & (WR_EVENT_MAX - 1)) + sizeof(struct wr_bt_header) +
		    (i & (WR_BT_MAX_DEPTH - 1)) * sizeof(struct wr_bt_frame);

	return (__u64 *)(buf + sizeof(struct wr_event_header) + off);
}

/* What a walk leaves in its slot, from @from to @to: the rest of a slot
 * (its item, depth, rule, key) is the statement's. */
WR_INLINE void walk_end(struct wr_bt_slot *to, const struct wr_bt_slot *from)
{
	to->ip = from->ip;
	to->sp = from->sp;
	to->bp = from->bp;
	to->flags = from->flags;
	to->hash = from->hash;
	to->count = from->count;
	to->status = from->status;
	to->error = from->error;
}

/* Start recording the walk of slot @s, at its first frame: what it
 * starts from, and no word read yet. */
WR_INLINE void walk_record(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s,
			   struct wr_proc_maps *pm)
{
	struct wr_walk_memo *m = &st->walk;

	/* The long way reads what walk_mm() finds; a replay reads neither. */
	walk_mm(st);
	m->valid = 0;
	m->ip = s->ip;
	m->sp = s->sp;
	m->bp = s->bp;
	m->tgid = ((struct wr_event_header *)buf)->pid;
	m->generation = pm->generation;
	m->rule0 = s->rule0;
	m->depth = s->depth;
	m->flags = s->flags;
	m->reads = 0;
}

/* What walk_keep()'s loops work on: under bpf_loop(), which the
 * verifier checks once, not once per iteration of one loop for each way
 * out of the loop before it (a walk is kept only the first time, so the
 * calls cost nothing that matters). */
struct keep_ctx {
	__u8 *buf;
	struct wr_bt_state *st;
	struct wr_bt_slot *s;
	__u64 lo;
	__u64 hi;
	__u32 aligned;
};

/* Word @i the walk read: into the span; an unaligned one was read on its
 * own, not from a copy, and a replay could not check it. */
static long keep_word(__u32 i, void *arg)
{
	struct keep_ctx *k = arg;
	__u64 a = k->st->walk.read_addr[i & (WR_WALK_MEMO_READS - 1)];

	if (a & 7) {
		k->aligned = 0;
		return 1;
	}
	if (a < k->lo)
		k->lo = a;
	if (a + 8 > k->hi)
		k->hi = a + 8;
	return 0;
}

static long keep_frame(__u32 i, void *arg)
{
	struct keep_ctx *k = arg;
	struct wr_walk_memo *m = &k->st->walk;
	__u64 *f = slot_frame(k->buf, k->s, i);

	m->frames[(2 * i) & (2 * WR_WALK_MEMO_FRAMES - 1)] = f[0];
	m->frames[(2 * i + 1) & (2 * WR_WALK_MEMO_FRAMES - 1)] = f[1];
	return 0;
}

/* Keep the walk of slot @s, which has just ended, when it was recorded
 * whole and ended where a walk is a function of what it read: complete,
 * or at its depth.  Every other stop (a read that failed, a frame in no
 * mapping, no rows) is unwound again the next time. */
WR_INLINE void walk_keep(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s)
{
	struct wr_walk_memo *m = &st->walk;
	__u32 count = s->count, n = m->reads;
	struct keep_ctx k = { .buf = buf, .st = st, .s = s, .lo = ~0ull, .hi = 0, .aligned = 1 };

	if (m->valid || n > WR_WALK_MEMO_READS || count > WR_WALK_MEMO_FRAMES ||
	    (s->status != WR_BT_COMPLETE && s->status != WR_BT_TRUNCATED))
		return;
	/* The span of stack the words lie in, which a replay copies. */
	bpf_loop(n, keep_word, &k, 0);
	if (!k.aligned || (n && k.hi - k.lo > WR_BT_STACK_MAX))
		return;
	m->span_lo = k.lo;
	m->span_hi = k.hi;
	bpf_loop(count, keep_frame, &k, 0);
	walk_end(&m->end, s);
	m->valid = 1;
}

/* Whether the event's copy of the stack holds [@lo, @hi). */
WR_INLINE int walk_in_copy(struct wr_bt_state *st, __u64 lo, __u64 hi)
{
	return st->stack_len && lo >= st->stack_base && hi <= st->stack_base + st->stack_len;
}

/* Copy the stack's [@lo, @hi) for a replay (the walk read it whole, from
 * one copy).  Returns whether the copy holds it. */
WR_INLINE int walk_copy_span(struct wr_bt_state *st, __u64 lo, __u64 hi)
{
	__u64 len = hi - lo;

	if (len > WR_BT_STACK_MAX || len < 8)
		return 0;
	WR_BARRIER_VAR(len);
	len &= 2 * WR_BT_STACK_MAX - 1;
	if (len > WR_BT_STACK_MAX || bpf_probe_read_user(st->stack, (__u32)len, (const void *)lo)) {
		st->stack_len = 0;
		return 0;
	}
	st->stack_base = lo;
	st->stack_len = (__u32)len;
	STAGE(stack_copy);
	return 1;
}

/* The frames of the walk kept in @st, into slot @s's item (which has
 * room for them: the kept walk had the slot's depth).  Plain stores,
 * unrolled: bpf_probe_read_kernel() of the records cost a helper call,
 * 30-45 ns a replay on a host where every call returns through a thunk,
 * and a bpf_loop() callback per frame about 4 ns a frame.  The loop's
 * exits reach only the end of the walk, so the verifier walks little
 * once per frame count. */
WR_INLINE void walk_frames(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s)
{
	struct wr_walk_memo *m = &st->walk;
	__u64 *f = slot_frame(buf, s, 0);
	__u32 n = m->end.count;

	for (__u32 i = 0; i < WR_WALK_MEMO_FRAMES; i++) {
		if (i >= n)
			break;
		f[2 * i] = m->frames[2 * i];
		f[2 * i + 1] = m->frames[2 * i + 1];
	}
	s->flags &= ~WR_SLOT_F_UNCOPIED;
}

/* Slot @s's whole walk from the one kept, when it starts from the same
 * registers in the same generation of the same process's mappings and
 * every word the kept walk read holds the same value now: the walk would
 * read those words in that order and end as that one did.  Returns 1
 * when the slot is done so. */
WR_INLINE int walk_replay(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s,
			  struct wr_proc_maps *pm)
{
	struct wr_walk_memo *m = &st->walk;
	__u32 n = m->reads;
	__u64 base, len, off;

	if (!m->valid || m->ip != s->ip || m->sp != s->sp || m->bp != s->bp || m->flags != s->flags ||
	    m->rule0 != s->rule0 || m->depth != s->depth || m->generation != pm->generation ||
	    m->tgid != ((struct wr_event_header *)buf)->pid)
		return 0;
	/* The words, from the event's copy of the stack when it holds them
	 * all, else from a copy of just the span they lie in (a copy costs
	 * by its size). */
	if (n && !walk_in_copy(st, m->span_lo, m->span_hi) && !walk_copy_span(st, m->span_lo, m->span_hi))
		return 0;
	base = st->stack_base;
	len = st->stack_len;
	for (__u32 i = 0; i < WR_WALK_MEMO_READS; i++) {
		if (i >= *(volatile __u16 *)&m->reads)
			break;
		off = m->read_addr[i] - base;
		if (len < 8 || off > len - 8 || (off & 7) || stack_word(st, off) != m->read_val[i])
			return 0;
	}
	walk_end(s, &m->end);
	/* A `count bt` needs its frames only to store a stack not counted
	 * yet (count_stack()); as the event's last slot, no walk after it
	 * replaces the kept one before then. */
	if (slot_counts(s) && st->cur + 1 >= st->n_slots)
		s->flags |= WR_SLOT_F_UNCOPIED;
	else
		walk_frames(buf, st, s);
	slot_finish(buf, s, s->status, s->error);
	return 1;
}

/* The mappings of the event's process: found by tgid once per event, by
 * slot after that. */
WR_INLINE struct wr_proc_maps *proc_maps_of(__u8 *buf, struct wr_bt_state *st)
{
	__u32 tgid = ((struct wr_event_header *)buf)->pid, *slot, idx;
	struct wr_proc_maps *pm;

	if (st->proc_slot == WR_PROC_UNKNOWN) {
		/* The slot this CPU's last walk used, when it says it is this
		 * process's (an inlined array lookup); else the hash lookup, a
		 * helper call of about 45 ns a hit on an AMD EPYC host.
		 * Userspace writes the owner into a slot before pointing the
		 * hash at it and clears it when the process goes, so a slot
		 * that names the process holds its mappings, as one the hash
		 * gives does (runtime/unwind_maps.c). */
		idx = st->proc_hint;
		pm = idx < WR_MAX_PROCS ? bpf_map_lookup_elem(&wr_proc_maps, &idx) : 0;
		if (pm && pm->tgid == tgid && tgid) {
			st->proc_slot = idx;
			return pm;
		}
		slot = bpf_map_lookup_elem(&wr_proc_slot, &tgid);
		st->proc_slot = slot ? *slot : WR_PROC_NONE;
		st->proc_hint = st->proc_slot;
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
	/* In line, not the entry points' subprograms: a call and its return
	 * cost 5-10 ns each on a host whose every return goes through a
	 * thunk (SRSO safe RET), and a probe has few bt statements. */
	item = item_open(buf, type, wr_bt_index_of(flags_index));
	if (item < 0)
		return 0;
	if (reserve(buf, sizeof(*bh) + depth * sizeof(struct wr_bt_frame)) < 0) {
		/* Give the item header back: a bt that does not fit is dropped. */
		((struct wr_event_header *)buf)->payload_len = (__u32)item;
		return 0;
	}
	item_close(buf, item);
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
	/* A slot done moves the loop on, and ends it after the last slot: an
	 * iteration of it, a callback's call and return, costs about 10 ns on
	 * a host whose every return goes through a thunk (SRSO safe RET). */
	if (!(s->flags & WR_SLOT_F_PENDING)) {
		walk_keep(buf, st, s);
		STAGE(walk_keep);
		st->cur++;
		return st->cur >= st->n_slots;
	}
	/* A walk's first frame: the whole walk again (the kept walk stays
	 * as it is), or record it. */
	if (s->count == 0) {
		if (walk_replay(buf, st, s, pm)) {
			STAGE(walk_replay);
			st->cur++;
			return st->cur >= st->n_slots;
		}
		walk_record(buf, st, s, pm);
		STAGE(walk_replay);
	}
	/* A run of recursion, or (when the last run could not start) the
	 * frame it left to the general path: each call does one or the other,
	 * so the verifier walks the general path from one state only. */
	if (s->ip == st->memo_key && !(s->flags & WR_SLOT_F_EXACT) &&
	    (st->memo_plain & (WR_MEMO_PLAIN | WR_MEMO_SKIP)) == WR_MEMO_PLAIN) {
		if (!plain_run(buf, st, s))
			st->memo_plain |= WR_MEMO_SKIP;
		STAGE(plain_run);
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
