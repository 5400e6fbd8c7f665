/* counts.bpf.h - `count bt`: a backtrace counted in the kernel by its
 * stack's identity instead of being sent.
 *
 * A section of wraith.bpf.c, included by it alone, after unwind.bpf.h.
 */

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

/* This CPU's slot of wr_count_slots for stack identity @stack_id (by
 * its high bits, which depend on every bit of the stack's hash), or NULL
 * when the map has none. */
WR_INLINE struct wr_count_slot *count_slot(__u64 stack_id)
{
	__u32 zero = 0, per_cpu, i;
	struct wr_count_slot *head = bpf_map_lookup_elem(&wr_count_slots, &zero);

	if (!head || !head->count || head->count > WR_COUNT_SLOTS)
		return 0;
	per_cpu = (__u32)head->count;
	i = 1 + bpf_get_smp_processor_id() * per_cpu + ((__u32)(stack_id >> 32) & (per_cpu - 1));
	return bpf_map_lookup_elem(&wr_count_slots, &i);
}

/* Whether slot @c counts key @k (a free slot counts none). */
WR_INLINE int slot_holds(struct wr_count_slot *c, struct wr_count_key *k)
{
	return c->count && c->k.stack_id == k->stack_id && c->k.key == k->key &&
	       c->k.probe_id == k->probe_id && c->k.index == k->index;
}

/* Add one to the count of slot @s's stack under its key, this CPU's: in
 * the CPU's slot for the stack (count_slot()) when it holds the key or
 * is free, else in wr_stack_counts.  The stack is stored first, so a
 * count never names a stack the maps do not hold.  A slot's count is
 * added to atomically: userspace zeroes it to clear the counts, and a
 * plain add racing with that would give back the count it took away (the
 * hash map's own count is this CPU's alone: a plain add). */
WR_INLINE void count_stack(__u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s,
			   struct wr_probe_stats *ps)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_item_header *ih = (struct wr_item_header *)payload_at(buf, s->item_off - sizeof(*ih));
	struct wr_count_key k = {
		.stack_id = (s->hash ^ ((__u64)s->status << 56 | s->error)) * 0xff51afd7ed558ccdull,
		.key = s->key, .probe_id = h->probe_id, .index = ih->index,
	};
	struct wr_count_slot *slot = count_slot(k.stack_id);
	__u64 one = 1, *count;
	long err;

	if (slot && slot_holds(slot, &k)) {
		__sync_fetch_and_add(&slot->count, 1);
		ps->counted++;
		return;
	}
	count = bpf_map_lookup_elem(&wr_stack_counts, &k);
	if (count) {
		(*count)++;
		ps->counted++;
		return;
	}
	if (s->flags & WR_SLOT_F_UNCOPIED)
		walk_frames(buf, st, s);
	err = bpf_map_update_elem(&wr_stacks, &k.stack_id, bt_header(buf, s), BPF_NOEXIST);
	if ((!err || err == -17 /* EEXIST: known, or being stored by another CPU */) && slot &&
	    !slot->count) {
		/* The key, then its count: a reader that sees the count sees
		 * the key whole (x86's stores are seen in order). */
		slot->k = k;
		asm volatile("" ::: "memory");
		slot->count = 1;
		ps->counted++;
		return;
	}
	if (!err || err == -17)
		err = bpf_map_update_elem(&wr_stack_counts, &k, &one, BPF_NOEXIST);
	if (err == -17) {
		count = bpf_map_lookup_elem(&wr_stack_counts, &k);
		if (count)
			(*count)++;
		err = count ? 0 : err;
	}
	if (err)
		ps->count_dropped++;
	else
		ps->counted++;
}
