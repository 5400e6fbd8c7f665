/* handover.bpf.h - handing a walk over to userspace: the copy of the
 * stack (with the kernel's view of the mapping the walk stopped in, and
 * frame 0's registers for frame values) that lets userspace finish a walk
 * or read every frame's variables.
 *
 * A section of wraith.bpf.c, included by it alone, after unwind.bpf.h.
 */

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

/* What copy_chunk() works on: the event, where the copy starts, the sp
 * and the bytes copied so far. */
struct copy_state {
	__u8 *buf;
	__u64 base;
	__u64 sp;
	__u32 len;
	__u32 pad;
};

/* One chunk of copy_stack(); 1 ends the copy. */
static long copy_chunk(__u32 i, void *arg)
{
	struct copy_state *c = arg;
	struct wr_event_header *h = (struct wr_event_header *)c->buf;
	__u32 len = c->len, off = h->payload_len;
	__u64 addr = c->base + len;
	__u32 n = WR_STACK_CHUNK - (__u32)(addr & (WR_STACK_CHUNK - 1));

	if (len > WR_STACK_COPY_MAX)
		return 1;
	if (n > WR_STACK_COPY_MAX - len)
		n = WR_STACK_COPY_MAX - len;
	if (n == 0 || off > WR_EVENT_MAX - sizeof(*h) - WR_STACK_CHUNK)
		return 1;
	if (bpf_probe_read_user(payload_at(c->buf, off), n & (2 * WR_STACK_CHUNK - 1),
				(const void *)addr)) {
		if (len || addr + n > c->sp)
			return 1;
		c->base = addr + n;
		return 0;
	}
	h->payload_len = off + n;
	c->len = len + n;
	return 0;
}

/* Append the user stack from *@base up: aligned chunks up to the first
 * that cannot be read (the end of the stack), WR_STACK_COPY_MAX bytes or
 * the end of the event, whichever comes first.  A first chunk that lies
 * wholly below @sp (the red zone, in a page the thread never touched: no
 * chunk crosses a page) is left out, and *@base moves past it.  Returns
 * the bytes copied.  Under bpf_loop(): the verifier checks one chunk, where
 * a loop of them, unrolled, was a sixth of the step program's check and
 * every start-up waited for it. */
WR_INLINE __u32 copy_stack(__u8 *buf, __u64 *base, __u64 sp)
{
	struct copy_state c = { .buf = buf, .base = *base, .sp = sp };

	bpf_loop(WR_STACK_COPY_MAX / WR_STACK_CHUNK + 1, copy_chunk, &c, 0);
	*base = c.base;
	return c.len;
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
	return WR_STEP_VALUES && (bt_header(buf, s)->flags & (WR_BT_F_ARGS | WR_BT_F_FULL));
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
 * from too, when it was handed over).  Returns the payload offset of the
 * copy's header, -1 when there is none. */
WR_INLINE long attach_stack(void *ctx, __u8 *buf, struct wr_bt_state *st, struct wr_bt_slot *s)
{
	int handover = handed_over(s), values = has_values(buf, s);
	__u32 hsize = sizeof(struct wr_stack_header) + (values ? sizeof(struct wr_stack_regs) : 0);
	struct wr_stack_header *sh;
	struct wr_stack_regs *r0;
	struct vma_probe vp = {};
	__u64 base;
	long item;

	trim_bt(buf, s);
	/* The bt says what became of its copy (wire.h): a missing copy is
	 * then explained to the user, never only absent. */
	item = wr_item_open((struct wr_event_buf *)buf, WR_ITEM_STACK, 0);
	if (item >= 0 && reserve(buf, hsize) < 0) {
		((struct wr_event_header *)buf)->payload_len = (__u32)item; /* given back */
		item = -1;
	}
	bt_header(buf, s)->flags |= item < 0 ? WR_BT_F_NO_ROOM : WR_BT_F_STACK;
	if (item < 0)
		return -1;
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
		 * no frame 0 there, shows no values; the copy then starts at
		 * the walk's sp, as a handover's does (from a zero sp its
		 * start would lie above the sp, and the event be refused). */
		r0 = (struct wr_stack_regs *)(sh + 1);
		if (!bpf_probe_read_kernel(r0, sizeof(*r0), ctx)) {
			sh->base = (r0->sp - WR_STACK_RED_ZONE) & ~7ull;
			if (!handover) { /* the copy never starts above sp */
				sh->ip = r0->ip;
				sh->sp = r0->sp;
				sh->bp = r0->bp;
			}
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
	base = sh->base;
	sh->len = copy_stack(buf, &base, sh->sp);
	sh->base = base;
	wr_item_close((struct wr_event_buf *)buf, item);
	return item + sizeof(struct wr_item_header);
}
