/* outer.bpf.h - what outer frames' values point to (wire.h: struct
 * wr_outer_recipe), copied after the walk of a bt with frame values.
 *
 * The probe's program is built for frame 0's function; which functions
 * called it, so which of their variables point where, userspace learns
 * only from an event.  Having read the first event of a call chain, it
 * writes a recipe under the chain's hash: where each such value lies
 * (from frame 0's sp) and the walk program its printer needs.  Each later
 * event of the chain looks its recipe up and runs it: the value's own
 * words come from the event's stack copy when they lie there (a caller's
 * std::string, a Rust String: only their characters are read from the
 * process), else from one copy of the value (a reference's referent on
 * the heap).  The copies go out as WR_ITEM_OUTER after the stack copy.
 *
 * A section of wraith.bpf.c, included by it alone, after handover.bpf.h.
 */

/* The hash of slot @s's chain: its first WR_OUTER_CHAIN_FRAMES frames' ips. */
WR_INLINE __u64 outer_chain(__u8 *buf, struct wr_bt_slot *s)
{
	__u32 base = (s->item_off & (WR_EVENT_MAX - 1)) + sizeof(struct wr_bt_header);
	__u64 hash = 0;

	for (__u32 i = 0; i < WR_OUTER_CHAIN_FRAMES; i++) {
		if (i >= s->count)
			break;
		hash = wr_outer_chain_add(hash, *(__u64 *)payload_at(buf, base + i * sizeof(struct wr_bt_frame)));
	}
	return hash;
}

/* Where a chain's recipe runs: its hash, frame 0's sp and registers (at
 * payload offset regs), the stack copy [base, base + len) at payload
 * offset data.  Read only in the loop (a root counter kept here would be
 * a constant the verifier follows through every root). */
struct outer_ctx {
	__u64 hash;
	__u64 sp, base, len, data, regs;
};

/* Root @k of recipe @r: its value at frame 0's sp + off (or where a
 * word or register there points, or at an address of static storage),
 * copied unless it lies in the stack
 * copy, then what its op reads outside it: a string's characters (their
 * readable head when the rest is not), a char pointer's string (the
 * root's address itself).  Only a root's first op runs: the whole walk
 * (walk_step()) in the step program made the verifier take seconds over
 * it at every start. */
WR_INLINE void outer_root(__u8 *buf, struct wr_walk_state *ws, struct wr_outer_recipe *r, __u64 k,
			  struct outer_ctx *c)
{
	struct wr_outer_root *root = &r->roots[k & (WR_OUTER_ROOTS - 1)];
	__u64 at = c->sp + (__s64)root->off, size = root->size, p = 0, n = 0;
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
	if (root->op.code == WR_WALK_CSTR && at) {
		walk_copy_str(buf, at, root->op.limit);
		return;
	}
	if (!at || !size || size > WR_WALK_COPY_MAX)
		return;
	if (at < c->base || at + size > c->base + c->len) {
		off = walk_copy(buf, at, (__u32)size, 0);
		if (off < 0)
			return;
		remember(ws, at, size, off);
	}
	if (root->op.code != WR_WALK_STRING || !string_chars(ws, &root->op, at, &p, &n))
		return;
	if (walk_copy(buf, p, (__u32)n, 0) == WALK_FAILED)
		walk_copy_head(buf, p, n);
}

/* One root of the recipe, in one bpf_loop() (the verifier checks one);
 * 1 ends the loop. */
static long outer_step(__u64 index, void *arg)
{
	struct outer_ctx *c = arg;
	struct wr_outer_recipe *r;
	struct wr_walk_state *ws;
	__u32 zero = 0;
	__u8 *buf;

	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	buf = event_buf();
	if (!ws || !buf)
		return 1;
	r = bpf_map_lookup_elem(&wr_outer_recipes, &c->hash);
	if (!r || index >= r->n_roots || index >= WR_OUTER_ROOTS)
		return 1;
	outer_root(buf, ws, r, index, c);
	return 0;
}

/* After slot @s's stack copy (its header at payload offset @sh_off, -1
 * when there is none): its chain's recipe, run, as WR_ITEM_OUTER. */
WR_INLINE void copy_outer(__u8 *buf, struct wr_bt_slot *s, long sh_off)
{
	struct outer_ctx c = { 0 };
	struct wr_stack_header *sh;
	struct wr_outer_recipe *r;
	struct wr_walk_state *ws;
	struct wr_arg_header *ah;
	__u32 zero = 0;
	long item, off;

	if (sh_off < 0 || sh_off >= WR_EVENT_MAX)
		return;
	sh = (struct wr_stack_header *)payload_at(buf, (__u32)sh_off);
	if ((sh->flags & (WR_STACK_F_REGS | WR_STACK_F_HANDOVER)) != WR_STACK_F_REGS)
		return;
	c.hash = outer_chain(buf, s);
	r = bpf_map_lookup_elem(&wr_outer_recipes, &c.hash);
	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	if (!r || !ws)
		return;
	c.sp = sh->sp;
	c.base = sh->base;
	c.len = sh->len;
	c.regs = (__u64)sh_off + sizeof(*sh);
	c.data = c.regs + sizeof(struct wr_stack_regs);
	item = wr_item_open((struct wr_event_buf *)buf, WR_ITEM_OUTER, 0);
	off = item < 0 ? -1 : reserve(buf, sizeof(*ah));
	if (off < 0)
		return;
	ah = (struct wr_arg_header *)payload_at(buf, (__u32)off);
	ah->kind = WR_ARG_BYTES;
	ah->status = WR_ARG_OK;
	ah->len = 0;
	ah->aux = 0;
	bpf_loop(WR_OUTER_ROOTS, outer_step, &c, 0);
	wr_item_close((struct wr_event_buf *)buf, item);
}
