/* outer.bpf.h - what outer frames' values point to (wire.h: struct
 * wr_outer_recipe), copied after the walk of a bt with frame values.
 *
 * The probe's program is built for frame 0's function; which functions
 * called it, so which of their variables point where, userspace learns
 * only from an event.  Having read an event, it writes for each outer
 * frame j whose values need it a recipe under the hash of frames 0 to
 * j's ips (those frames' code fixes where frame j's values lie from
 * frame 0's sp): where each such value lies and the walk program its
 * printer needs, in a slot it may rewrite for another chain while a
 * probe reads it (wire.h: a seqlock, checked at each root).  Each later
 * event looks up the recipe of each of its
 * frames and runs those it finds: a call chain never seen whose first
 * frames others shared has their values at its first event.  The
 * value's own words come from the event's stack copy when they lie there
 * (a caller's std::string, a Rust String: only their characters are read
 * from the process), else from one copy of the value (a reference's
 * referent on the heap).  The copies go out as WR_ITEM_OUTER after the
 * stack copy.
 *
 * A section of wraith.bpf.c, included by it alone, after handover.bpf.h.
 */

/* The keys of a slot's frames, in a bpf_loop() (the verifier checks one
 * frame; 32 lookups in a row made the step program too large): the
 * frames' payload offset and count, the hash so far, which frames have a
 * recipe (bit j: frame j). */
struct outer_keys_ctx {
	__u64 base, count, hash, hits;
};

/* Frame @i's key (the hash of frames 0 to @i's ips), into the walk
 * state's outer_key[@i], and whether it has a recipe; 1 ends the loop. */
static long outer_key_step(__u64 i, void *arg)
{
	struct outer_keys_ctx *kc = arg;
	struct wr_walk_state *ws;
	__u32 zero = 0, *slot;
	__u8 *buf;

	if (i >= kc->count || i >= WR_OUTER_CHAIN_FRAMES)
		return 1;
	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	buf = event_buf();
	if (!ws || !buf)
		return 1;
	kc->hash = wr_outer_chain_add(kc->hash, *(__u64 *)payload_at(buf, (__u32)(kc->base + i * sizeof(struct wr_bt_frame))));
	ws->outer_key[i & (WR_OUTER_CHAIN_FRAMES - 1)] = kc->hash;
	slot = i ? bpf_map_lookup_elem(&wr_outer_index, &ws->outer_key[i & (WR_OUTER_CHAIN_FRAMES - 1)]) : NULL;
	if (slot) {
		ws->outer_slot[i & (WR_OUTER_CHAIN_FRAMES - 1)] = *slot;
		kc->hits |= 1ull << i;
	}
	return 0;
}

/* Each frame j's key of slot @s, into the walk state; which of frames 1
 * and up have a recipe, a bit each. */
WR_INLINE __u32 outer_keys(struct wr_bt_slot *s)
{
	struct outer_keys_ctx kc = { 0 };

	kc.base = (s->item_off & (WR_EVENT_MAX - 1)) + sizeof(struct wr_bt_header);
	kc.count = s->count;
	bpf_loop(WR_OUTER_CHAIN_FRAMES, outer_key_step, &kc, 0);
	return (__u32)kc.hits;
}

/* Where the recipes run: which frames have one (bit j: frame j), frame
 * 0's sp and registers (at payload offset regs), the stack copy [base,
 * base + len) at payload offset data.  Read only in the loop (a root
 * counter kept here would be a constant the verifier follows through
 * every root), but for the frames whose slot userspace rewrote while
 * the loop read it (bit j: frame j). */
struct outer_ctx {
	__u64 hits;
	__u64 sp, base, len, data, regs;
	__u64 torn;
};

/* Root @k of recipe @r: its value at frame 0's sp + off (or where a
 * word or register there points, or at an address of static storage),
 * copied unless it lies in the stack
 * copy, then what its op reads outside it: a string's characters (their
 * readable head when the rest is not), a char pointer's string (the
 * root's address itself); or a fat pointer's data (WR_OUTER_F_SPAN),
 * read as a string's characters are.  Only a root's first op runs here: the whole
 * walk (walk_step()) in the step program made the verifier take seconds
 * over it at every start.  A root with a whole walk (WR_OUTER_F_WALK: a
 * local of bt full) is noted, and walked in wr_outer_walks, a program of
 * its own (outer_walks()); @index is its frame's index * WR_OUTER_ROOTS
 * + its own. */
WR_INLINE void outer_root(__u8 *buf, struct wr_walk_state *ws, struct wr_outer_root *root, struct outer_ctx *c,
			  __u64 index)
{
	__u64 at = c->sp + (__s64)root->off, size = root->size, p = 0, n = 0;
	__u32 span;
	long off;

	ws->run_addr = c->base;
	ws->run_end = c->base + c->len;
	ws->run_off = c->data;
	if (root->flags & WR_OUTER_F_ABS)
		at = (__u64)root->hi << 32 | (__u32)root->off;
	if (root->flags & WR_OUTER_F_DEREF)
		at = walk_word(ws, at);
	if ((root->flags & WR_OUTER_F_REG) && (__u32)root->off < sizeof(struct wr_stack_regs))
		at = *(__u64 *)payload_at(buf, (__u32)(c->regs + ((__u32)root->off & ~7u)));
	else if (root->flags & WR_OUTER_F_REG)
		return;
	if (root->flags & (WR_OUTER_F_DEREF | WR_OUTER_F_REG))
		at += (__s64)(__s32)root->hi;
	if (root->op.code == WR_WALK_CSTR && at) {
		walk_copy_str(buf, at, root->op.limit);
		return;
	}
	if (!at || !size || size > WR_WALK_COPY_MAX)
		return;
	span = root->flags & WR_OUTER_F_SPAN;
	if (!span && (at < c->base || at + size > c->base + c->len)) {
		off = walk_copy(buf, at, (__u32)size, 0);
		if (off < 0)
			return;
		remember(ws, at, size, off);
	}
	if (!span && (root->flags & WR_OUTER_F_WALK)) { /* run after the other roots */
		if (WR_STEP_OUTER_WALKS && ws->n_walks < WR_OUTER_WALKS) {
			ws->walk_at[ws->n_walks & (WR_OUTER_WALKS - 1)] = at;
			ws->walk_root[ws->n_walks & (WR_OUTER_WALKS - 1)] = (__u32)index | (__u32)root->first << 16;
			ws->walk_seq[ws->n_walks & (WR_OUTER_WALKS - 1)] = ws->outer_seq[(index / WR_OUTER_ROOTS) &
										 (WR_OUTER_CHAIN_FRAMES - 1)];
			ws->n_walks++;
		}
		return;
	}
	if (span && at >= c->base && at + size <= c->base + c->len)
		return; /* a fat pointer's data in the stack copy */
	if (span) {
		p = at;
		n = size;
	} else if (root->op.code != WR_WALK_STRING || !string_chars(ws, &root->op, at, &p, &n)) {
		return;
	}
	if (walk_copy(buf, p, (__u32)n, 0) == WALK_FAILED)
		walk_copy_head(buf, p, n);
}

/* Root @k of the recipe in @slot, into @out, when the slot holds
 * @chain's recipe, has a root @k and was not rewritten meanwhile
 * (wire.h: a seqlock whose writer is userspace, through the mapping):
 * 1; 0 when it has no root @k; -1 when it was rewritten or holds
 * another chain's recipe. */
WR_INLINE int outer_take(__u32 slot, __u64 chain, __u64 k, struct wr_outer_root *out, __u32 *seen)
{
	struct wr_outer_recipe *r = bpf_map_lookup_elem(&wr_outer_slots, &slot);
	__u32 seq, n;
	__u64 of;

	if (!r)
		return -1;
	seq = *(volatile __u32 *)&r->seq;
	asm volatile("" ::: "memory");
	n = r->n_roots;
	of = r->chain;
	__builtin_memcpy(out, &r->roots[k & (WR_OUTER_ROOTS - 1)], sizeof(*out));
	asm volatile("" ::: "memory");
	if ((seq & 1) || *(volatile __u32 *)&r->seq != seq || of != chain)
		return -1;
	*seen = seq;
	return k < n && k < WR_OUTER_ROOTS;
}

/* One root of a frame's recipe, in one bpf_loop() (the verifier checks
 * one): root index % WR_OUTER_ROOTS of frame index / WR_OUTER_ROOTS; 1
 * ends the loop. */
static long outer_step(__u64 index, void *arg)
{
	struct outer_ctx *c = arg;
	struct wr_outer_root root;
	struct wr_walk_state *ws;
	__u64 j = (index / WR_OUTER_ROOTS) & (WR_OUTER_CHAIN_FRAMES - 1), k = index % WR_OUTER_ROOTS;
	__u32 zero = 0;
	__u8 *buf;
	int took;

	if (index >= WR_OUTER_CHAIN_FRAMES * WR_OUTER_ROOTS || !(c->hits >> j))
		return 1; /* no frame above has a recipe */
	if (!(c->hits & (1ull << j)) || (c->torn & (1ull << j)))
		return 0;
	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	buf = event_buf();
	if (!ws || !buf)
		return 1;
	took = outer_take(ws->outer_slot[j], ws->outer_key[j], k, &root, &ws->outer_seq[j]);
	if (took < 0)
		c->torn |= 1ull << j;
	if (took > 0)
		outer_root(buf, ws, &root, c, index);
	return 0;
}

/* Start the next of the event's whole walks (outer_root() noted them):
 * its recipe's ops into the walk state, when its frame's are not there
 * yet and the recipe is still the one its roots were taken from (else
 * it is left out: its value shows short), then a record that it ran
 * (WR_MEM_F_WALKED: what it did not copy was cut), then the walk at the
 * value, whose words the stack copy holds.  1 ends the loop: no walk
 * left, or no room. */
WR_INLINE long outer_walk_next(__u8 *buf, struct wr_walk_state *ws)
{
	__u32 i = ws->next_walk & (WR_OUTER_WALKS - 1), idx, j, seq, slot;
	struct wr_outer_recipe *r;
	struct wr_arg_header *ah;
	__u64 at;
	long off;

	if (ws->next_walk >= ws->n_walks || ws->next_walk >= WR_OUTER_WALKS)
		return 1;
	ws->next_walk++;
	idx = ws->walk_root[i];
	at = ws->walk_at[i];
	seq = ws->walk_seq[i];
	j = ((idx & 0xffff) / WR_OUTER_ROOTS) & (WR_OUTER_CHAIN_FRAMES - 1);
	if (ws->ops_of != j + 1 || ws->ops_seq != seq) {
		slot = ws->outer_slot[j];
		r = bpf_map_lookup_elem(&wr_outer_slots, &slot);
		if (!r)
			return 0;
		ws->ops_of = 0;
		for (__u32 w = 0; w < WR_OUTER_OPS * WR_WALK_OP_WORDS; w++)
			ws->ops[w] = ((__u64 *)r->ops)[w];
		asm volatile("" ::: "memory");
		if (*(volatile __u32 *)&r->seq != seq || r->chain != ws->outer_key[j])
			return 0; /* rewritten since its root was taken */
		ws->ops_of = j + 1;
		ws->ops_seq = seq;
	}
	off = reserve(buf, sizeof(*ah) + 8);
	if (off < 0)
		return 1;
	ah = (struct wr_arg_header *)payload_at(buf, (__u32)off);
	ah->kind = WR_ARG_MEM;
	ah->status = WR_ARG_OK;
	ah->len = 8;
	ah->aux = WR_MEM_F_WALKED;
	*(__u64 *)(ah + 1) = at;
	ws->run_addr = ws->walk_run[0];
	ws->run_end = ws->walk_run[1];
	ws->run_off = ws->walk_run[2];
	frame_set(&ws->f[0], (idx >> 16) & (WR_OUTER_OPS - 1), at);
	ws->depth = 1;
	return 0;
}

/* One step of the event's whole walks, in one bpf_loop(): a walk's
 * (walk_step(), as print's), or the start of the next when one ended;
 * 1 ends the loop. */
static long outer_walk_step(__u64 index, void *arg)
{
	struct wr_walk_state *ws;
	__u32 zero = 0;
	__u8 *buf;

	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	buf = event_buf();
	if (!ws || !buf)
		return 1;
	if (!ws->depth)
		return outer_walk_next(buf, ws);
	if (walk_step(index, 0) == WALK_STOP && ws->depth)
		return 1; /* the event is full */
	return 0;
}

/* The event's whole walks (outer_walk_step()), then the end of its
 * WR_ITEM_OUTER (copy_outer() left it open). */
WR_INLINE void outer_walks(__u8 *buf, struct wr_walk_state *ws)
{
	if (WR_STEP_OUTER_WALKS) {
		ws->next_walk = 0;
		ws->ops_of = 0;
		ws->depth = 0;
		bpf_loop(WR_WALK_STEPS, outer_walk_step, 0, 0);
	}
	wr_item_close((struct wr_event_buf *)buf, (long)ws->walk_item);
}

/* After slot @s's stack copy (its header at payload offset @sh_off, -1
 * when there is none): its chain's recipe, run, as WR_ITEM_OUTER.  1
 * when whole walks are left to run (outer_walks()), the item open. */
WR_INLINE int copy_outer(__u8 *buf, struct wr_bt_slot *s, long sh_off)
{
	struct outer_ctx c = { 0 };
	struct wr_stack_header *sh;
	struct wr_walk_state *ws;
	struct wr_arg_header *ah;
	__u32 zero = 0, hits;
	long item, off;

	if (sh_off < 0 || sh_off >= WR_EVENT_MAX)
		return 0;
	sh = (struct wr_stack_header *)payload_at(buf, (__u32)sh_off);
	if ((sh->flags & (WR_STACK_F_REGS | WR_STACK_F_HANDOVER)) != WR_STACK_F_REGS)
		return 0;
	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	if (!ws)
		return 0;
	hits = outer_keys(s);
	if (!hits)
		return 0;
	c.hits = hits;
	c.sp = sh->sp;
	c.base = sh->base;
	c.len = sh->len;
	c.regs = (__u64)sh_off + sizeof(*sh);
	c.data = c.regs + sizeof(struct wr_stack_regs);
	item = wr_item_open((struct wr_event_buf *)buf, WR_ITEM_OUTER, 0);
	off = item < 0 ? -1 : reserve(buf, sizeof(*ah));
	if (off < 0)
		return 0;
	ah = (struct wr_arg_header *)payload_at(buf, (__u32)off);
	ah->kind = WR_ARG_BYTES;
	ah->status = WR_ARG_OK;
	ah->len = 0;
	ah->aux = hits;
	ws->n_walks = 0;
	bpf_loop(WR_OUTER_CHAIN_FRAMES * WR_OUTER_ROOTS, outer_step, &c, 0);
	ah->aux = hits & ~c.torn; /* a frame whose slot was rewritten did not run its recipe */
	ws->walk_item = (__u64)item;
	if (WR_STEP_OUTER_WALKS && ws->n_walks) {
		ws->walk_run[0] = c.base;
		ws->walk_run[1] = c.base + c.len;
		ws->walk_run[2] = c.data;
		return 1;
	}
	wr_item_close((struct wr_event_buf *)buf, item);
	return 0;
}
