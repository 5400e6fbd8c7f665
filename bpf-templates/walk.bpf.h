/* walk.bpf.h - copies of the memory a value's printer reads: a
 * std::string's characters, a vector's elements, a map's nodes, read in
 * the probe at the hit (wire.h: walks).
 *
 * The probe writes the walk program the generator compiled from the
 * value's type (wr_walk_op(), one call per op) and calls wr_walk(), which
 * copies the value itself and then runs the program in one bpf_loop():
 * each step does one piece of work of the innermost container being
 * walked (a run of elements, one node), so the verifier checks one step,
 * not one per element, and a container of any size costs steps, not
 * instructions.  Each copy is a WR_ARG_MEM argument attached to the
 * printed value.  A walk stops when the event has no room left (the rest
 * is missing, which the renderer shows as `...`); a copy whose read
 * fails is sent as such (`<unreadable>`) and the walk goes on.
 *
 * A section of wraith.bpf.c, included by it alone, after events.bpf.h.
 */

#define WALK_STOP 1
#define WALK_GO 0
#define WALK_NO_ROOM (-1)
#define WALK_FAILED (-2)

/* Write op @index of the walk program (wire.h: struct wr_walk_op, as
 * WR_WALK_OP_WORDS words). */
WR_API void wr_walk_op(__u32 index, __u64 w0, __u64 w1, __u64 w2, __u64 w3, __u64 w4)
{
	__u32 zero = 0;
	struct wr_walk_state *st = bpf_map_lookup_elem(&wr_walk_states, &zero);
	__u64 *w;

	if (!st || index >= WR_WALK_MAX_OPS)
		return;
	w = &st->ops[index * WR_WALK_OP_WORDS];
	w[0] = w0;
	w[1] = w1;
	w[2] = w2;
	w[3] = w3;
	w[4] = w4;
}

/* The last copy of elements or of a node, at payload offset @off: the
 * words of @len bytes at @addr are read from it (walk_word()). */
WR_INLINE void remember(struct wr_walk_state *st, __u64 addr, __u64 len, long off)
{
	st->run_addr = addr;
	st->run_end = addr + len;
	st->run_off = (__u64)off;
}

/* The word at user address @addr, 0 when it cannot be read; at
 * WR_WALK_LOCAL, of the value wr_walk_pieces() holds in @st. */
WR_INLINE __u64 walk_word(struct wr_walk_state *st, __u64 addr)
{
	__u64 off = addr - WR_WALK_LOCAL, i = off / 8, sh = (off & 7) * 8, hi;

	if (off < WR_PIECES_MAX) {
		hi = sh && i + 1 < WR_PIECES_MAX / 8 ? st->local[(i + 1) & (WR_PIECES_MAX / 8 - 1)] << (64 - sh) : 0;
		return st->local[i & (WR_PIECES_MAX / 8 - 1)] >> sh | hi;
	}
	if (addr >= st->run_addr && addr + 8 <= st->run_end) {
		__u8 *buf = event_buf();

		if (buf)
			return *(__u64 *)payload_at(buf, (__u32)(st->run_off + (addr - st->run_addr)));
	}
	st->word[0] = 0;
	if (addr)
		user_read(&st->word[0], 8, (const void *)addr);
	return st->word[0];
}

/* Copy @size bytes at @addr as a WR_ARG_MEM argument (@flags: its aux).
 * Returns the payload offset of the copy, WALK_FAILED when the read
 * failed (sent as such), WALK_NO_ROOM when the event is full. */
WR_INLINE long walk_copy(__u8 *buf, __u64 addr, __u32 size, __u32 flags)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_arg_header *ah;
	__u64 n = size;
	long off;

	WR_BARRIER_VAR(n);
	n &= 2 * WR_WALK_COPY_MAX - 1;
	n = n > WR_WALK_COPY_MAX ? WR_WALK_COPY_MAX : n;
	off = reserve(buf, sizeof(*ah) + 8 + ((n + 7) & ~7ull));
	if (off < 0)
		return WALK_NO_ROOM;
	ah = (struct wr_arg_header *)payload_at(buf, (__u32)off);
	ah->kind = WR_ARG_MEM;
	ah->aux = flags;
	*(__u64 *)(ah + 1) = addr;
	if (!addr || user_read((__u8 *)(ah + 1) + 8, n, (const void *)addr)) {
		ah->status = addr ? WR_ARG_READ_ERROR : WR_ARG_NULL_DEREF;
		ah->len = 8;
		h->payload_len -= (n + 7) & ~7ull;
		return WALK_FAILED;
	}
	ah->status = WR_ARG_OK;
	ah->len = (__u16)(8 + n);
	return off + sizeof(*ah) + 8;
}

/* A string's characters, at most @max bytes (their length is unknown);
 * where they cannot all be read, their readable head, its status
 * WR_ARG_READ_ERROR. */
WR_INLINE long walk_copy_str(__u8 *buf, __u64 addr, __u32 max)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_arg_header *ah;
	long off, n;

	if (!addr)
		return 0;
	off = reserve(buf, sizeof(*ah) + 8 + WR_ARG_STR_MAX);
	if (off < 0)
		return WALK_NO_ROOM;
	ah = (struct wr_arg_header *)payload_at(buf, (__u32)off);
	ah->kind = WR_ARG_MEM;
	ah->aux = 0;
	*(__u64 *)(ah + 1) = addr;
	n = user_read_str((__u8 *)(ah + 1) + 8, bounded(max, WR_ARG_STR_MAX - 1) + 1, (const void *)addr);
	ah->status = n < 0 ? WR_ARG_READ_ERROR : WR_ARG_OK;
	if (n < 0) /* its readable head, when its page ends it */
		n = user_read_str_head((__u8 *)(ah + 1) + 8, bounded(max, WR_ARG_STR_MAX - 1) + 1,
				       (const void *)addr);
	ah->len = (__u16)(8 + n);
	h->payload_len -= WR_ARG_STR_MAX - ((n + 7) & ~7);
	return 0;
}

/* The word at @off of a copy in the event. */
WR_INLINE __u64 copied_word(__u8 *buf, long off)
{
	return *(__u64 *)payload_at(buf, (__u32)off);
}

WR_INLINE struct wr_walk_op *walk_op(struct wr_walk_state *st, __u32 index)
{
	return (struct wr_walk_op *)&st->ops[(index & (WR_WALK_MAX_OPS - 1)) * WR_WALK_OP_WORDS];
}

/* Start op @index at @base in frame @f. */
WR_INLINE void frame_set(struct wr_walk_frame *f, __u32 index, __u64 base)
{
	f->op = index;
	f->base = base;
	f->cur = 0;
	f->end = 0;
	f->aux = 0;
	f->node = 0;
	f->i = 0;
	f->state = 0;
	f->sp = 0;
}

/* Walk child op @index at @base inside the current frame (a container
 * nested deeper than WR_WALK_DEPTH is not walked: its contents show as
 * missing). */
WR_INLINE void frame_push(struct wr_walk_state *st, __u32 index, __u64 base)
{
	struct wr_walk_op *op = walk_op(st, index);
	__u32 d = st->depth;

	if (!index || d >= WR_WALK_DEPTH)
		return;
	frame_set(&st->f[d & (WR_WALK_DEPTH - 1)], index, base + op->at);
	st->depth = d + 1;
}

WR_INLINE long frame_pop(struct wr_walk_state *st)
{
	st->depth--;
	return st->depth ? WALK_GO : WALK_STOP;
}

/* A copy's result as the step's: the walk ends when the event is full. */
WR_INLINE long copied(long off)
{
	return off == WALK_NO_ROOM ? WALK_STOP : WALK_GO;
}

/* The characters of string op @sop's value at @base that lie outside
 * it: their address in *@p and length (at most the op's limit) in *@n;
 * false when there are none (empty, or libc++'s and libstdc++'s short
 * string, whose characters are inside the value). */
WR_INLINE int string_chars(struct wr_walk_state *st, struct wr_walk_op *sop, __u64 base, __u64 *p, __u64 *n)
{
	if ((sop->flags & WR_WALK_F_LIBCXX) && !(walk_word(st, base) & 1))
		return 0;
	*p = walk_word(st, base + sop->a) + sop->c;
	*n = walk_word(st, base + sop->b);
	*n = (*n > sop->limit ? sop->limit : *n) << (sop->d & 3);
	return *n && *p && *p + *n > *p && (*p < base || *p >= base + sop->size);
}

#define TORN_PAGES 3 /* page ends a torn string's head is tried at: a copy
		      * (WR_WALK_COPY_MAX) crosses at most three */

/* A string of @n characters at @addr whose read failed (its record is
 * sent): the head that can be read, up to the first page that cannot,
 * as a copy of its own flagged WR_MEM_F_TORN (gdb shows that head, then
 * the error).  The longest head is tried first; a failed try's record is
 * taken back. */
WR_INLINE long walk_copy_head(__u8 *buf, __u64 addr, __u64 n)
{
	__u64 end = (addr + n - 1) & ~4095ull;
	long off = WALK_FAILED;

	for (int k = 0; k < TORN_PAGES && end > addr && off == WALK_FAILED; k++, end -= 4096) {
		off = walk_copy(buf, addr, (__u32)(end - addr), WR_MEM_F_TORN);
		if (off == WALK_FAILED)
			((struct wr_event_header *)buf)->payload_len -= sizeof(struct wr_arg_header) + 8;
	}
	return off;
}

WR_INLINE long step_string(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			   struct wr_walk_frame *f)
{
	__u64 p = 0, n = 0;
	long off = 0;

	if (string_chars(st, op, f->base, &p, &n))
		off = walk_copy(buf, p, (__u32)n, 0);
	if (off == WALK_FAILED)
		off = walk_copy_head(buf, p, n);
	return off == WALK_NO_ROOM ? WALK_STOP : frame_pop(st);
}

WR_INLINE long step_cstr(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			 struct wr_walk_frame *f)
{
	if (walk_copy_str(buf, walk_word(st, f->base + op->a), op->limit) == WALK_NO_ROOM)
		return WALK_STOP;
	return frame_pop(st);
}

/* ARRAY, first step: where the elements are and how many are copied. */
WR_INLINE long array_start(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			   struct wr_walk_frame *f)
{
	__u64 base = f->base, begin, n, size = op->size;

	if (!size)
		return frame_pop(st);
	if (op->flags & WR_WALK_F_INLINE) {
		begin = base + op->a;
		n = (__u32)op->d;
	} else {
		begin = walk_word(st, base + op->a);
		n = walk_word(st, base + op->b);
		if (op->flags & WR_WALK_F_BITS) {
			if (!(op->flags & WR_WALK_F_COUNT))
				n = (n - begin) * 8 + (__u32)walk_word(st, base + op->b + 8);
			n = n > op->limit ? op->limit : n;
			n = (n + 63) / 64 * 8;
			if (n && walk_copy(buf, begin, (__u32)n, 0) == WALK_NO_ROOM)
				return WALK_STOP;
			return frame_pop(st);
		}
		if (!(op->flags & WR_WALK_F_COUNT))
			n = (n - begin) / size;
	}
	n = n > op->limit ? op->limit : n;
	f->aux = begin;
	f->cur = begin;
	f->end = begin + n * size;
	f->state = op->flags & WR_WALK_F_INLINE ? 2 : 1;
	return WALK_GO;
}

#define STRING_BATCH 8   /* strings' characters copied in one read, at most (the
			  * verifier checks the loop unrolled: 16 exceed its budget) */
#define STRING_SPAN 1024 /* bytes of that read, at most */
#define STRING_GAP 32    /* bytes between two strings' characters it takes
			  * in (an allocator's header and rounding) */

/* Whether @size more bytes of copy fit in the event. */
WR_INLINE int copy_fits(__u8 *buf, __u64 size)
{
	__u32 used = ((struct wr_event_header *)buf)->payload_len;

	return used + sizeof(struct wr_arg_header) + 8 + size + 8 <= WR_EVENT_MAX - sizeof(struct wr_event_header);
}

/* The word at @addr of the run of elements remembered in @st (the
 * caller checked it lies inside). */
WR_INLINE __u64 run_word(struct wr_walk_state *st, __u8 *buf, __u64 addr)
{
	return copied_word(buf, (long)(st->run_off + (addr - st->run_addr)));
}

/* ARRAY of strings, state 2: the characters of the next strings in one
 * copy where they lie close together, as an allocator hands out the
 * buffers of strings made one after another: one read of user memory
 * costs more than copying a few hundred bytes.  The strings' words are
 * read from the run of elements copied last, not by walk_word() (whose
 * fallback read of the process, unrolled 8 times, would cost the verifier
 * too much); a string outside that run is walked as before.  The renderer
 * finds each string's characters in the
 * copy by address.  Where that read fails or does not fit, the f->i
 * strings it spanned are walked one a step: a dangling string leaves its
 * neighbours readable. */
WR_INLINE long array_strings(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			     struct wr_walk_frame *f)
{
	struct wr_walk_op *sop = walk_op(st, op->child);
	__u64 at = f->cur, size = op->size, lo = 0, hi = 0, sum = 0, p, n, l, h, base;
	__u32 k = 0;
	long off;

	for (; k < STRING_BATCH && !f->i && at < f->end && at >= st->run_addr && at + size <= st->run_end;
	     k++, at += size) {
		base = at + sop->at;
		if ((sop->flags & WR_WALK_F_LIBCXX) && !(run_word(st, buf, base) & 1))
			continue;
		p = run_word(st, buf, base + sop->a) + sop->c;
		n = run_word(st, buf, base + sop->b);
		n = (n > sop->limit ? sop->limit : n) << (sop->d & 3);
		if (!n || !p || p + n < p || (p >= base && p < base + sop->size))
			continue;
		l = hi && lo < p ? lo : p;
		h = hi > p + n ? hi : p + n;
		WR_BARRIER_VAR(l);
		WR_BARRIER_VAR(h);
		if (hi && (h - l > STRING_SPAN || h - l > sum + n + STRING_GAP * (k + 1)))
			break;
		lo = l;
		hi = h;
		sum += n;
	}
	if (!k) { /* one string walked as any element is */
		f->i -= f->i ? 1 : 0;
		f->cur += size;
		frame_push(st, op->child, f->cur - size);
		return WALK_GO;
	}
	off = !hi ? 0 : copy_fits(buf, hi - lo) ? walk_copy(buf, lo, (__u32)(hi - lo), 0) : WALK_NO_ROOM;
	if (off == WALK_FAILED)
		/* its record goes: the strings are walked again one by one */
		((struct wr_event_header *)buf)->payload_len -= sizeof(struct wr_arg_header) + 8;
	if (off < 0) {
		f->i = k;
		return WALK_GO;
	}
	f->cur = at;
	return WALK_GO;
}

/* ARRAY: copy a run of elements (state 1), then walk each (state 2). */
WR_INLINE long step_array(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			  struct wr_walk_frame *f)
{
	__u64 run, size = op->size;
	long off;

	if (f->state == 0)
		return array_start(st, buf, op, f);
	if (f->state == 1) {
		run = f->end - f->cur;
		if (run > WR_WALK_COPY_MAX)
			run = WR_WALK_COPY_MAX / size * size;
		off = run ? walk_copy(buf, f->cur, (__u32)run, 0) : WALK_FAILED;
		if (off == WALK_NO_ROOM)
			return WALK_STOP;
		if (off >= 0)
			remember(st, f->cur, run, off);
		f->cur += run;
		if (f->cur < f->end && run)
			return WALK_GO;
		if (!op->child)
			return frame_pop(st);
		f->cur = f->aux;
		f->state = 2;
		return WALK_GO;
	}
	if (f->cur >= f->end || !op->child)
		return frame_pop(st);
	if (walk_op(st, op->child)->code == WR_WALK_STRING)
		return array_strings(st, buf, op, f);
	f->cur += size;
	frame_push(st, op->child, f->cur - size);
	return WALK_GO;
}

/* HASH: copy the control bytes (state 0), then at each step scan up to
 * 8 buckets for the next full one and copy its element. */
WR_INLINE long step_hash(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			 struct wr_walk_frame *f)
{
	__u64 ctrl, byte, at;
	long off;

	if (f->state == 0) {
		f->node = walk_word(st, f->base + op->a);
		f->end = walk_word(st, f->base + op->b) + 1;
		if (!f->node || !op->size)
			return frame_pop(st);
		f->end = f->end > WR_WALK_COPY_MAX ? WR_WALK_COPY_MAX : f->end;
		off = walk_copy(buf, f->node, (__u32)f->end, 0);
		if (off < 0)
			return off == WALK_NO_ROOM ? WALK_STOP : frame_pop(st);
		f->aux = (__u64)off;
		f->cur = 0;
		f->state = 1;
		return WALK_GO;
	}
	ctrl = f->node;
	for (int k = 0; k < 8; k++) {
		if (f->cur >= f->end || f->i >= op->limit)
			return frame_pop(st);
		byte = copied_word(buf, (long)(f->aux + (f->cur & ~7ull))) >> ((f->cur & 7) * 8);
		f->cur++;
		if (byte & 0x80)
			continue;
		at = ctrl - f->cur * op->size;
		off = walk_copy(buf, at, op->size, 0);
		if (off == WALK_NO_ROOM)
			return WALK_STOP;
		f->i++;
		if (off >= 0) {
			remember(st, at, op->size, off);
			frame_push(st, op->child, at);
		}
		return WALK_GO;
	}
	return WALK_GO;
}

WR_INLINE long step_list(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			 struct wr_walk_frame *f)
{
	long off;
	__u64 node;

	if (f->state == 0) {
		f->cur = walk_word(st, f->base + op->a);
		f->end = op->flags & WR_WALK_F_CIRCULAR ? f->base + op->d : 0;
		f->state = 1;
	}
	node = f->cur;
	if (!node || node == f->end || f->i >= op->limit)
		return frame_pop(st);
	off = walk_copy(buf, node, op->size, 0);
	if (off < 0)
		return off == WALK_NO_ROOM ? WALK_STOP : frame_pop(st);
	f->cur = copied_word(buf, off + op->b);
	f->i++;
	remember(st, node, op->size, off);
	frame_push(st, op->child, node + op->c);
	return WALK_GO;
}

/* TREE: in order, with a stack of (node, right child) pairs: a step
 * either copies the next node down a left spine or takes the next node
 * in order off the stack. */
WR_INLINE long step_tree(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			 struct wr_walk_frame *f, __u32 level)
{
	__u64 *stack = st->stack[level & (WR_WALK_DEPTH - 1)];
	__u64 node;
	__u32 sp;
	long off;

	if (f->state == 0) {
		f->cur = walk_word(st, f->base + op->a);
		f->state = 1;
	}
	sp = f->sp;
	if (f->cur) {
		if (sp >= WR_WALK_TREE_STACK)
			return frame_pop(st); /* deeper than a balanced tree: not one */
		off = walk_copy(buf, f->cur, op->size, 0);
		if (off < 0)
			return off == WALK_NO_ROOM ? WALK_STOP : frame_pop(st);
		stack[(2 * sp) & (2 * WR_WALK_TREE_STACK - 1)] = f->cur;
		stack[(2 * sp + 1) & (2 * WR_WALK_TREE_STACK - 1)] = copied_word(buf, off + op->c);
		f->sp = sp + 1;
		f->cur = copied_word(buf, off + op->b);
		return WALK_GO;
	}
	if (!sp || f->i >= op->limit)
		return frame_pop(st);
	sp--;
	f->sp = sp;
	node = stack[(2 * sp) & (2 * WR_WALK_TREE_STACK - 1)];
	f->cur = stack[(2 * sp + 1) & (2 * WR_WALK_TREE_STACK - 1)];
	f->i++;
	frame_push(st, op->child, node + op->d);
	return WALK_GO;
}

/* DEQUE, first step: the first element, the end of its block, its entry
 * in the block map, and how many elements are copied. */
/* A deque's block pointer at @entry of its block map, copied too: the
 * renderer follows the map as the walk does. */
WR_INLINE __u64 map_entry(struct wr_walk_state *st, __u8 *buf, __u64 entry)
{
	long off = walk_copy(buf, entry, 8, 0);

	return off < 0 ? 0 : copied_word(buf, off);
}

WR_INLINE long deque_start(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			   struct wr_walk_frame *f)
{
	__u64 size = op->size, per = size ? (__u64)(__u32)op->d / size : 0, n, blk, first;

	if (!per)
		return frame_pop(st);
	if (op->flags & WR_WALK_F_LIBCXX) {
		first = walk_word(st, f->base + op->b);
		n = walk_word(st, f->base + op->c);
		f->node = walk_word(st, f->base + op->a) + first / per * 8;
		blk = map_entry(st, buf, f->node);
		f->cur = blk + first % per * size;
		f->aux = blk + per * size;
	} else {
		__u64 scur = walk_word(st, f->base + op->a), slast = walk_word(st, f->base + op->a + 16);
		__u64 snode = walk_word(st, f->base + op->a + 24), fcur = walk_word(st, f->base + op->b);
		__u64 ffirst = walk_word(st, f->base + op->b + 8), fnode = walk_word(st, f->base + op->b + 24);

		n = fnode == snode ? (fcur - scur) / size
				   : ((fnode - snode) / 8 - 1) * per + (fcur - ffirst) / size + (slast - scur) / size;
		f->cur = scur;
		f->aux = slast;
		f->node = snode;
	}
	f->end = n > op->limit ? op->limit : n;
	f->state = 1;
	return WALK_GO;
}

WR_INLINE long step_deque(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			  struct wr_walk_frame *f)
{
	__u64 size = op->size, run, blk;

	if (f->state == 0)
		return deque_start(st, buf, op, f);
	if (!f->end || !size)
		return frame_pop(st);
	run = f->cur < f->aux ? (f->aux - f->cur) / size : 0;
	run = run > f->end ? f->end : run;
	run = run > WR_WALK_COPY_MAX / size ? WR_WALK_COPY_MAX / size : run;
	if (op->child && run)
		run = 1;
	if (run) {
		if (walk_copy(buf, f->cur, (__u32)(run * size), 0) == WALK_NO_ROOM)
			return WALK_STOP;
		frame_push(st, op->child, f->cur);
		f->cur += run * size;
		f->end -= run;
	}
	if (f->cur >= f->aux) {
		f->node += 8;
		blk = map_entry(st, buf, f->node);
		if (!blk)
			return frame_pop(st);
		f->cur = blk;
		f->aux = blk + (__u64)(__u32)op->d / size * size;
	}
	return WALK_GO;
}

WR_INLINE long step_deref(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			  struct wr_walk_frame *f)
{
	__u64 p = walk_word(st, f->base + op->a);

	if (p && op->size && walk_copy(buf, p + op->b, op->size, 0) == WALK_NO_ROOM)
		return WALK_STOP;
	if (!p || !op->child)
		return frame_pop(st);
	frame_set(f, op->child, p + walk_op(st, op->child)->at);
	return WALK_GO;
}

/* SWITCH: the child chosen by the value (an optional's flag, a variant's
 * index) replaces the frame. */
WR_INLINE long step_switch(struct wr_walk_state *st, struct wr_walk_op *op, struct wr_walk_frame *f)
{
	__u64 v = walk_word(st, f->base + op->a);
	__u32 c = op->child;

	if (op->vsize < 8)
		v &= (1ull << (op->vsize * 8 & 63)) - 1;
	v -= (__u64)(__u32)op->c << 32 | (__u32)op->b;
	for (int k = 0; k < 16 && c; k++) {
		struct wr_walk_op *cop = walk_op(st, c);

		if (cop->match == v) {
			frame_set(f, c, f->base + cop->at);
			return WALK_GO;
		}
		c = cop->next;
	}
	return frame_pop(st);
}

WR_INLINE long step_fields(struct wr_walk_state *st, struct wr_walk_op *op, struct wr_walk_frame *f)
{
	__u32 c;

	if (f->state == 0) {
		f->cur = op->child;
		f->state = 1;
	}
	c = (__u32)f->cur;
	if (!c)
		return frame_pop(st);
	f->cur = walk_op(st, c)->next;
	frame_push(st, c, f->base);
	return WALK_GO;
}

#define BTREE_EDGES 12 /* a node's child pointers: twice Rust's B */

/* BTREE: in order, with a stack of (node, next key index | height << 32):
 * a step either copies the next node down the leftmost path of a subtree
 * or takes the next key off the node on top of the stack. */
WR_INLINE long step_btree(struct wr_walk_state *st, __u8 *buf, struct wr_walk_op *op,
			  struct wr_walk_frame *f, __u32 level)
{
	__u64 *stack = st->stack[level & (WR_WALK_DEPTH - 1)];
	__u64 node, top, idx, h, edges = (__u32)op->d >> 16;
	__u32 sp, c;
	long off;

	if (f->state == 0) {
		f->cur = walk_word(st, f->base + op->a);
		f->aux = walk_word(st, f->base + op->b);
		f->state = 1;
	}
	sp = f->sp;
	if (f->cur) {
		if (sp >= WR_WALK_TREE_STACK || f->aux > 32)
			return frame_pop(st); /* deeper than a B-tree of any size */
		off = walk_copy(buf, f->cur, f->aux ? (__u32)(edges + 8 * BTREE_EDGES) : op->vsize, 0);
		if (off < 0)
			return off == WALK_NO_ROOM ? WALK_STOP : frame_pop(st);
		stack[(2 * sp) & (2 * WR_WALK_TREE_STACK - 1)] = f->cur;
		stack[(2 * sp + 1) & (2 * WR_WALK_TREE_STACK - 1)] = f->aux << 32;
		f->sp = sp + 1;
		f->cur = f->aux ? copied_word(buf, off + (long)edges) : 0;
		f->aux = f->aux ? f->aux - 1 : 0;
		return WALK_GO;
	}
	if (!sp || f->i >= op->limit)
		return frame_pop(st);
	node = stack[(2 * (sp - 1)) & (2 * WR_WALK_TREE_STACK - 1)];
	top = stack[(2 * (sp - 1) + 1) & (2 * WR_WALK_TREE_STACK - 1)];
	idx = top & 0xffffffff;
	h = top >> 32;
	if (idx >= (walk_word(st, node + ((__u32)op->d & 0xffff)) & 0xffff)) {
		f->sp = sp - 1; /* this node is done */
		return WALK_GO;
	}
	stack[(2 * (sp - 1) + 1) & (2 * WR_WALK_TREE_STACK - 1)] = top + 1;
	f->i++;
	if (h) {
		f->cur = walk_word(st, node + edges + 8 * (idx + 1));
		f->aux = h - 1;
	}
	c = op->child;
	if (c) {
		__u32 v = walk_op(st, c)->next;

		/* the value runs after the key: pushed first */
		frame_push(st, v, node + ((__u32)op->c >> 16) + idx * ((__u32)op->size >> 16));
		frame_push(st, c, node + ((__u32)op->c & 0xffff) + idx * ((__u32)op->size & 0xffff));
	}
	return WALK_GO;
}

static long walk_step(__u64 index, void *data)
{
	__u32 zero = 0, d;
	struct wr_walk_state *st = bpf_map_lookup_elem(&wr_walk_states, &zero);
	__u8 *buf = event_buf();
	struct wr_walk_frame *f;
	struct wr_walk_op *op;

	if (!st || !buf)
		return WALK_STOP;
	d = st->depth;
	if (!d || d > WR_WALK_DEPTH)
		return WALK_STOP;
	d = (d - 1) & (WR_WALK_DEPTH - 1);
	f = &st->f[d];
	op = walk_op(st, f->op);
	switch (op->code) {
	case WR_WALK_FIELDS: return step_fields(st, op, f);
	case WR_WALK_STRING: return step_string(st, buf, op, f);
	case WR_WALK_ARRAY: return step_array(st, buf, op, f);
	case WR_WALK_LIST: return step_list(st, buf, op, f);
	case WR_WALK_TREE: return step_tree(st, buf, op, f, d);
	case WR_WALK_DEQUE: return step_deque(st, buf, op, f);
	case WR_WALK_DEREF: return step_deref(st, buf, op, f);
	case WR_WALK_SWITCH: return step_switch(st, op, f);
	case WR_WALK_CSTR: return step_cstr(st, buf, op, f);
	case WR_WALK_HASH: return step_hash(st, buf, op, f);
	case WR_WALK_BTREE: return step_btree(st, buf, op, f, d);
	default: return frame_pop(st);
	}
}

/* Run the walk program the probe wrote (wr_walk_op()) at @base. */
WR_INLINE void walk_run(struct wr_walk_state *st, __u64 base)
{
	st->run_addr = st->run_end = 0;
	st->depth = 1;
	frame_set(&st->f[0], 0, base);
	bpf_loop(WR_WALK_STEPS, walk_step, 0, 0);
}

/* A C++ static data member printed with a value (WR_MEM_F_STATIC): the
 * @size bytes (at most 256) of the variable at @addr, tagged @tag; with
 * @text 1 (a char pointer), the string it points to too, copied at its
 * address as a container's char pointer's is; with @text 2, only that
 * string, of the char pointer at @addr (a member of a static member of
 * class type).  @addr 0: no variable. */
WR_SUBPROG long wr_arg_static(struct wr_event_buf *ev, __u64 addr, __u32 size, __u64 tag, __u32 text)
{
	struct wr_event_header *h;
	struct wr_arg_header *ah;
	__u64 n = size > 256 ? 256 : size, ptr = 0;
	long off;

	if (!ev)
		return 0;
	if (text == 2) {
		if (addr && !user_read(&ptr, 8, (const void *)addr))
			walk_copy_str(ev->data, ptr, WR_ARG_ATTACH_STR - 1);
		return 0;
	}
	h = (struct wr_event_header *)ev->data;
	WR_BARRIER_VAR(n);
	n &= 0x1ff;
	n = n > 256 ? 256 : n;
	off = reserve(ev->data, sizeof(*ah) + 8 + ((n + 7) & ~7ull));
	if (off < 0)
		return 0;
	ah = (struct wr_arg_header *)payload_at(ev->data, (__u32)off);
	ah->kind = WR_ARG_MEM;
	ah->aux = WR_MEM_F_STATIC;
	*(__u64 *)(ah + 1) = tag;
	if (!addr || user_read((__u8 *)(ah + 1) + 8, n, (const void *)addr)) {
		ah->status = addr ? WR_ARG_READ_ERROR : WR_ARG_NULL_DEREF;
		ah->len = 8;
		h->payload_len -= (n + 7) & ~7ull;
		return 0;
	}
	ah->status = WR_ARG_OK;
	ah->len = (__u16)(8 + n);
	if (text && n == 8) {
		ptr = *(__u64 *)((__u8 *)(ah + 1) + 8);
		walk_copy_str(ev->data, ptr, WR_ARG_ATTACH_STR - 1);
	}
	return 0;
}

/* Copy the @size bytes of the value at @addr (WR_MEM_F_ROOT), then run
 * the walk program the probe wrote (wr_walk_op()) at it. */
WR_SUBPROG long wr_walk(struct wr_event_buf *ev, __u64 addr, __u32 size)
{
	__u32 zero = 0;
	struct wr_walk_state *st = bpf_map_lookup_elem(&wr_walk_states, &zero);

	if (!ev || !st)
		return 0;
	if (walk_copy(ev->data, addr, size, WR_MEM_F_ROOT) < 0)
		return 0;
	walk_run(st, addr);
	return 0;
}

/* Run the walk program at the value the WR_ARG_PIECES argument at
 * payload offset @off holds (@size bytes, its words filled): its words
 * go to the walk state, the program runs at WR_WALK_LOCAL. */
WR_SUBPROG long wr_walk_pieces(struct wr_event_buf *ev, long off, __u32 size)
{
	__u32 zero = 0;
	struct wr_walk_state *st = bpf_map_lookup_elem(&wr_walk_states, &zero);

	if (!ev || !st || off < 0 || off >= WR_EVENT_MAX)
		return 0;
	for (__u32 i = 0; i < WR_PIECES_MAX / 8; i++)
		st->local[i] = i * 8 < size ? *(__u64 *)payload_at(ev->data, (__u32)off + 8 + i * 8) : 0;
	walk_run(st, WR_WALK_LOCAL);
	return 0;
}
