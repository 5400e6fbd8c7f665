/* events.bpf.h - event assembly: starting an event in the per-CPU
 * buffer, reserving room in it, print items and their arguments, memory
 * dumps, comparisons and expression errors.
 *
 * A section of wraith.bpf.c, included by it alone, after reads.bpf.h.
 * Sending the event is wraith.bpf.c's own last part, since it needs the
 * backtrace and count sections too.
 */

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
	__u32 zero = 0;
	__u64 *script, *armed;

	script = bpf_map_lookup_elem(&wr_gate, &probe_id);
	if (!script || !*script)
		return 1;
	armed = bpf_map_lookup_elem(&wr_gate, &zero);
	return armed && *script <= *armed;
}

/* Does the probe use this CPU's wr_bt_state: it has a bt or count bt
 * (its slots), or --fault-in (the buffer's holder)? */
WR_INLINE int uses_state(void)
{
	return wr_cfg_bt_slots || wr_cfg_fault_in;
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
 * the cookie names (or not a -t target's, members.bpf.h), the probe's
 * script is not armed yet, a map is missing, or (under --fault-in) a
 * probe sleeping in a fault holds the buffer. */
WR_API __u8 *wr_event_begin(void *ctx, __u64 cookie)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 probe_id = (__u32)cookie, only = (__u32)(cookie >> 32);
	struct wr_event_header *h;
	struct wr_bt_state *st;
	struct wr_probe_stats *ps;
	__u32 zero = 0;
	__u8 *buf;

	STAGE_START();
	STAGE(timer);
	if (only & WR_COOKIE_MEMBERS ? !is_member((__u32)(pid_tgid >> 32))
	    : only & WR_COOKIE_THREAD ? (__u32)pid_tgid != (only & ~WR_COOKIE_THREAD)
	    : only && (__u32)(pid_tgid >> 32) != only)
		return 0;
	if (!probe_armed(probe_id))
		return 0;
	STAGE(prologue);
	buf = event_buf();
	if (!buf)
		return 0;
	ps = probe_stats(probe_id);
	if (ps)
		ps->hits++;
	/* A probe without a bt or count bt never reads the state: a hit of a
	 * program doing work between hits finds one cache line fewer cold. */
	if (uses_state()) {
		st = bpf_map_lookup_elem(&wr_bt_state, &zero);
		if (!st)
			return 0;
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
	}
	h = (struct wr_event_header *)buf;
	h->magic = WR_EVENT_MAGIC;
	h->probe_id = probe_id;
	h->pid = (__u32)(pid_tgid >> 32);
	h->tid = (__u32)pid_tgid;
	h->timestamp_ns = wr_cfg_sends ? bpf_ktime_get_ns() : 0;
	h->payload_len = 0;
	h->flags = 0;
	h->n_items = 0;
	STAGE(header);
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

/* Open an item of @type; returns its payload offset (to pass to
 * item_close()) or -1 when it did not fit. */
WR_INLINE long item_open(__u8 *buf, __u32 type, __u32 index)
{
	struct wr_item_header *ih;
	long off;

	off = reserve(buf, sizeof(*ih));
	if (off < 0)
		return -1;
	ih = (struct wr_item_header *)payload_at(buf, (__u32)off);
	ih->type = (__u8)type;
	ih->flags = 0;
	ih->length = 0;
	ih->index = (__u16)index;
	ih->reserved = 0;
	return off;
}

/* Close the item opened at @off: its length is everything appended since. */
WR_INLINE void item_close(__u8 *buf, long off)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_item_header *ih;

	if (off < 0)
		return;
	ih = (struct wr_item_header *)payload_at(buf, (__u32)off);
	ih->length = (__u16)(h->payload_len - (__u32)off - sizeof(*ih));
	h->n_items++;
}

/* item_open() and item_close() as the generator's entry points, one
 * subprogram each (called once per print). */
WR_SUBPROG long wr_item_open(struct wr_event_buf *ev, __u32 type, __u32 index)
{
	if (!ev)
		return -1;
	return item_open(ev->data, type, index);
}

WR_SUBPROG long wr_item_close(struct wr_event_buf *ev, long off)
{
	if (ev)
		item_close(ev->data, off);
	return 0;
}

/* Append an item of @type with nothing in it (a print without arguments:
 * wr_item_open() and wr_item_close() at once).  Inlined into the probe,
 * unlike those two: a hit then runs no subprogram for it and touches none
 * of their code. */
WR_API void wr_item_empty(__u8 *buf, __u32 type, __u32 index)
{
	struct wr_item_header *ih;
	long off;

	if (!buf)
		return;
	off = reserve(buf, sizeof(*ih));
	if (off < 0)
		return;
	ih = (struct wr_item_header *)payload_at(buf, (__u32)off);
	/* one store: the type, the index, and 0 for flags, length, reserved */
	*(__u64 *)ih = (__u64)(__u8)type | (__u64)(__u16)index << 32;
	((struct wr_event_header *)buf)->n_items++;
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

/* Open a string argument of @room bytes after the header and pointer
 * @uptr, as wr_arg_cstr() and wr_arg_wstr() write one: NULL when the
 * event has no room. */
WR_INLINE struct wr_arg_header *str_arg_open(__u8 *buf, __u64 uptr, __u32 status, __u32 kind_aux, __u32 room)
{
	struct wr_arg_header *ah;
	long off = reserve(buf, sizeof(*ah) + 8 + room);

	if (off < 0)
		return NULL;
	ah = (struct wr_arg_header *)payload_at(buf, (__u32)off);
	ah->kind = (__u8)kind_aux;
	ah->aux = kind_aux >> 8;
	*(__u64 *)(ah + 1) = uptr;
	/* A NULL pointer is a value (0x0); only a failed read is an error. */
	ah->status = (__u8)status;
	return ah;
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
	long n = 0;

	if (!ev || !(ah = str_arg_open(ev->data, uptr, status, kind_aux, WR_ARG_STR_MAX)))
		return 0;
	max = max > WR_ARG_STR_MAX ? WR_ARG_STR_MAX : max;
	if (!status && uptr) {
		n = user_read_str((__u8 *)(ah + 1) + 8, max & 0x1ff, (const void *)uptr);
		ah->status = n < 0 ? WR_ARG_POINTEE_ERROR : WR_ARG_OK;
		if (n < 0) /* its readable head, when its page ends it */
			n = user_read_str_head((__u8 *)(ah + 1) + 8, max & 0x1ff, (const void *)uptr);
	}
	ah->len = 8 + (n > 0 ? (__u16)n : 0);
	/* Give back what the string did not use. */
	((struct wr_event_header *)ev->data)->payload_len -= 8 + WR_ARG_STR_MAX - ((ah->len + 7) & ~7u);
	return 0;
}

/* @n, at most WR_ARG_WSTR_MAX, bounded for the verifier in all 64 bits. */
WR_INLINE __u64 bounded_wstr(__u32 n)
{
	__u64 v = n;

	WR_BARRIER_VAR(v);
	v &= 2 * WR_ARG_WSTR_MAX - 1;
	return v > WR_ARG_WSTR_MAX ? WR_ARG_WSTR_MAX : v;
}

/* Append a pointer @uptr to a wide string (wchar_t, char16_t, char32_t
 * characters) and the max bytes from there (<= WR_ARG_WSTR_MAX):
 * @max_status and @kind_aux as for wr_arg_cstr().  Its NUL character is
 * not looked for here but by the renderer; the read is cut at the first
 * page that cannot be read (the bytes span two pages at most). */
WR_SUBPROG long wr_arg_wstr(struct wr_event_buf *ev, __u64 uptr, __u32 max_status, __u32 kind_aux)
{
	struct wr_arg_header *ah;
	__u32 max = wr_str_max_of(max_status), status = wr_str_status_of(max_status);
	__u64 first, n = 0;
	__u8 *dst;

	if (!ev || !(ah = str_arg_open(ev->data, uptr, status, kind_aux, WR_ARG_WSTR_MAX)))
		return 0;
	max = max > WR_ARG_WSTR_MAX ? WR_ARG_WSTR_MAX : max;
	dst = (__u8 *)(ah + 1) + 8;
	if (!status && uptr) {
		/* all of it; where that fails, up to the end of its first page */
		n = bounded_wstr(max);
		if (user_read(dst, (__u32)n, (const void *)uptr)) {
			first = 4096 - (uptr & 4095);
			n = first < n ? bounded_wstr((__u32)first) : 0;
			if (!n || user_read(dst, (__u32)n, (const void *)uptr)) {
				n = 0;
				ah->status = WR_ARG_POINTEE_ERROR;
			}
		}
	}
	ah->len = (__u16)(8 + n);
	((struct wr_event_header *)ev->data)->payload_len -= WR_ARG_WSTR_MAX - ((n + 7) & ~7ull);
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

/* This CPU's comparison buffer (NULL only if the map lookup fails). */
WR_API struct wr_cmp_buf *wr_cmp_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&wr_cmp_bufs, &zero);
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
