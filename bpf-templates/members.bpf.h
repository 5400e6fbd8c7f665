/* members.bpf.h - -t PATH: which processes are the target's.  A uprobe on
 * a library's file fires in every process that maps the library, so a
 * site outside PATH's own file (its cookie says WR_COOKIE_MEMBERS) takes
 * the hits of the processes in wr_members only.  Userspace puts in the
 * processes it finds running PATH; three tracepoints of the base object,
 * attached in -t mode only, keep the set current from the kernel itself,
 * with no window: a member's fork adds the child before it runs, an
 * exec() of the program adds the process before its first instruction
 * (and an exec() of another program removes it), and the exit of its
 * last thread removes it.
 *
 * A section of wraith.bpf.c, included by it alone, after maps.bpf.h.
 */

/* Is process @tgid one of the target's?  One inlined array lookup and a
 * bit test: the only cost a site's filter adds to a hit, in the target's
 * processes or not. */
WR_INLINE int is_member(__u32 tgid)
{
	__u32 word = tgid >> 6;
	__u64 *w = bpf_map_lookup_elem(&wr_members, &word);

	return w && (*w >> (tgid & 63)) & 1;
}

#ifdef WR_BASE_TRANSPORT
/* Make process @tgid a member (@on) or not, atomically: another CPU may
 * change another bit of the word at the same time. */
WR_INLINE void member_set(__u32 tgid, int on)
{
	__u32 word = tgid >> 6;
	__u64 *w = bpf_map_lookup_elem(&wr_members, &word), bit = 1ull << (tgid & 63);

	if (!w)
		return;
	if (on)
		__sync_fetch_and_or(w, bit);
	else
		__sync_fetch_and_and(w, ~bit);
}

WR_INLINE struct wr_member_watch *member_watch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&wr_watch, &zero);
}

/* sched_process_exec(task, old_pid, bprm), in the process after its new
 * image is in place: the file it runs now decides. */
SEC("raw_tp/sched_process_exec")
int wr_member_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct linux_binprm___wr *bprm = (struct linux_binprm___wr *)ctx->args[2];
	struct wr_member_watch *w = member_watch();
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	__u64 ino;
	__u32 dev;

	if (!w || !w->exec)
		return 0;
	ino = BPF_CORE_READ(bprm, file, f_inode, i_ino);
	dev = BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev);
	member_set(tgid, ino == w->ino && dev == w->dev);
	return 0;
}

/* sched_process_fork(parent, child), in the parent: a new process (not a
 * thread) of a member is a member. */
SEC("raw_tp/sched_process_fork")
int wr_member_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___wr *child = (struct task_struct___wr *)ctx->args[1];
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), child_tgid;

	if (!is_member(tgid))
		return 0;
	child_tgid = (__u32)BPF_CORE_READ(child, tgid);
	if (child_tgid != tgid)
		member_set(child_tgid, 1);
	return 0;
}

/* sched_process_exit(task), in the exiting thread: the process is gone
 * when no thread of it is live any more (the kernel counted this one out
 * before the tracepoint). */
SEC("raw_tp/sched_process_exit")
int wr_member_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___wr *task = (struct task_struct___wr *)ctx->args[0];
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	if (is_member(tgid) && BPF_CORE_READ(task, signal, live.counter) == 0)
		member_set(tgid, 0);
	return 0;
}
#endif
