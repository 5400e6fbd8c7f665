/* reads.bpf.h - what a probe reads: user memory (tried without faulting
 * first, then, under --fault-in, with it) and the values the kernel
 * gives a program (ids, time, the thread pointer, the attach cookie).
 *
 * A section of wraith.bpf.c, included by it alone, after maps.bpf.h.
 */

/* Every read tries bpf_probe_read_user first, which never sleeps and costs
 * the same in both modes; only a read that failed (a page not resident,
 * or no page at all) retries with the faulting helper under --fault-in. */

/* Read @size bytes at @src into @dst; 0 or a negative errno (then @dst is
 * zeroed). */
WR_INLINE long user_read(void *dst, __u32 size, const void *src)
{
	long ret = bpf_probe_read_user(dst, size, src);

	if (ret && wr_cfg_fault_in)
		ret = bpf_copy_from_user(dst, size, src);
	return ret;
}

/* Fault in the page of @src and, when @size bytes from there cross into
 * the next page, that one too (failures ignored: the string may end
 * before an unmapped page).  One byte each, a fixed size the verifier
 * takes in any program state, copied to @dst (which the read that follows
 * overwrites): a byte of stack here would be one too many for a probe
 * whose own stack is nearly the 512 bytes a program and its calls share.
 * Not the bpf_copy_from_user_str kfunc this kernel has: a kfunc needs an
 * extern .ksyms declaration libbpf resolves, these two helper calls not. */
WR_INLINE void fault_in(void *dst, const void *src, __u32 size)
{
	__u64 a = (__u64)src;

	bpf_copy_from_user(dst, 1, src);
	if ((a & 4095) + size > 4096)
		bpf_copy_from_user(dst, 1, (const void *)((a | 4095) + 1));
}

/* bpf_probe_read_user_str, and under --fault-in once more after faulting
 * in the pages @size bytes from @src can touch (<= 2: sizes <= 512). */
WR_INLINE long user_read_str(void *dst, __u32 size, const void *src)
{
	long ret = bpf_probe_read_user_str(dst, size, src);

	if (ret < 0 && wr_cfg_fault_in) {
		fault_in(dst, src, size);
		ret = bpf_probe_read_user_str(dst, size, src);
	}
	return ret;
}

/* A string at @src whose read with user_read_str() of @size (<= 512)
 * bytes failed: bpf_probe_read_user_str() reads a byte at a time where a
 * word would fault, so no NUL lies before the first byte it could not
 * read, and when that is the end of @src's page (the next page is not
 * mapped) the characters up to it are the string's readable head (gdb
 * shows them, then the error at the page's end).  Reads them into @dst:
 * how many, 0 when there are none (or the page's end is not before
 * @size). */
WR_INLINE long user_read_str_head(void *dst, __u32 size, const void *src)
{
	__u64 n = 4096 - ((__u64)src & 4095);

	WR_BARRIER_VAR(n);
	if (n >= size || n > 511)
		return 0;
	return user_read(dst, (__u32)n, src) ? 0 : (long)n;
}

/* @n, at most @limit (<= 255), in a form the verifier bounds in all 64
 * bits: a global function's 32-bit argument arrives with unknown upper
 * bits. */
WR_INLINE __u64 bounded(__u32 n, __u64 limit)
{
	__u64 v = n;

	WR_BARRIER_VAR(v);
	v &= 0xff;
	return v > limit ? limit : v;
}

/* Read @size (1..8) bytes at user address @uptr into *@dst (zero-extended).
 * Returns 0, 1 for a NULL address, or 2 for a failed read (wire statuses). */
WR_SUBPROG long wr_read_user(__u64 *dst, __u32 size, __u64 uptr)
{
	if (!dst)
		return WR_ARG_READ_ERROR;
	*dst = 0;
	if (!uptr)
		return WR_ARG_NULL_DEREF;
	if (user_read(dst, bounded(size, sizeof(*dst)), (const void *)uptr))
		return WR_ARG_READ_ERROR;
	return WR_ARG_OK;
}

/* Read up to @max (<= 64) bytes of a string at @uptr into @dst; returns the
 * bpf_probe_read_user_str result (length with the NUL, or negative). */
WR_SUBPROG long wr_read_user_str(struct wr_text *dst, __u32 max, __u64 uptr)
{
	if (!dst || !uptr)
		return -1;
	return user_read_str(dst->c, bounded(max, sizeof(dst->c)), (const void *)uptr);
}

/* The probe's wire id: the cookie its uprobe was attached with, so the
 * probes whose programs come out the same share one loaded program. */
/* The uprobe's attach cookie: the probe's wire id and the process or
 * thread it traces (WR_COOKIE_THREAD in protocol/wire.h). */
WR_API __u64 wr_probe_cookie(void *ctx)
{
	return bpf_get_attach_cookie(ctx);
}

/* The data of the site this hit is at (wire.h: struct wr_site_params),
 * by the wire id in the hit's @cookie (wr_probe_cookie(): the generator
 * reads it once for this and wr_event_begin(), a helper call of about
 * 20 ns on a host whose every return goes through a thunk): its v[], or
 * NULL when no site wrote the entry of that id. */
WR_API __u64 *wr_site_params_of(__u64 cookie)
{
	__u32 id = (__u32)cookie;
	struct wr_site_params *p = bpf_map_lookup_elem(&wr_site_params, &id);

	if (!p || p->id != (id | WR_SITE_VALID))
		return NULL;
	return p->v;
}

/* The register at byte offset @off of the probe's pt_regs, an offset
 * from the site's data: the verifier takes only constant offsets into the
 * context, so it is copied out (0 for an offset past the registers). */
WR_API __u64 wr_site_reg(void *ctx, __u64 off)
{
	__u64 v = 0;

	if (off > 160)
		return 0;
	bpf_probe_read_kernel(&v, sizeof(v), (const char *)ctx + off);
	return v;
}

WR_API __u64 wr_pid_tgid(void)
{
	return bpf_get_current_pid_tgid();
}

/* Thread group and thread ids as the PID namespace (@dev, @ino) sees
 * them, packed as bpf_get_current_pid_tgid() packs them; the host's ids
 * when the thread is not in that namespace. */
WR_API __u64 wr_ns_pid_tgid(__u64 dev, __u64 ino)
{
	struct bpf_pidns_info ns;

	if (bpf_get_ns_current_pid_tgid(dev, ino, &ns, sizeof(ns)))
		return bpf_get_current_pid_tgid();
	return (__u64)ns.tgid << 32 | ns.pid;
}

WR_API __u64 wr_ktime(void)
{
	return bpf_ktime_get_ns();
}

/* The thread pointer of the current thread (x86-64: the fs base, which
 * the kernel keeps in task_struct.thread.fsbase at @fsbase_off, found in
 * the kernel's BTF); 0 when it cannot be read. */
WR_API __u64 wr_thread_pointer(__u64 fsbase_off)
{
	__u64 fs = 0;

	bpf_probe_read_kernel(&fs, sizeof(fs), (const __u8 *)bpf_get_current_task() + fsbase_off);
	return fs;
}
