/* ulink.h - the links that bind a probe's program to a uprobe.
 *
 * Two kinds.  Where the kernel has multi-uprobe links (BPF_LINK_CREATE
 * with BPF_TRACE_UPROBE_MULTI, Linux 6.6 and later), a site's uprobe is
 * one such link: made in microseconds, no perf event, no trace event.
 * Elsewhere it is libbpf's uprobe perf event link.  The kind is chosen
 * once per process, before any program is loaded, because a program made
 * for one kind cannot be attached as the other and a tail call reaches
 * only programs loaded for the same kind (ulink_attach_type()).
 *
 * Closing a link waits in the kernel for RCU grace periods (0.1 to 2 s
 * each on a loaded 2-CPU machine, one after another); closes made at the
 * same time share their grace periods, so ulink_close_all() closes a
 * batch concurrently: 1,000 links in well under a second where one after
 * another took minutes.
 */
#ifndef WRAITH_RUNTIME_ULINK_H
#define WRAITH_RUNTIME_ULINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_link;

/* One attached site: a multi-uprobe link's fd, or a libbpf link. */
struct ulink {
	struct bpf_link *link; /* owned; NULL for a multi-uprobe link */
	int fd;                /* the multi-uprobe link, owned; -1 with @link */
};

/* True when uprobes are attached as multi-uprobe links: the kernel makes
 * them and WRAITH_UPROBE_LINKS is not "perf".  Decided on the first call
 * and the same for the rest of the process. */
bool ulink_multi(void);
/* The expected attach type every uprobe program (and every program they
 * tail-call) must be loaded with: BPF_TRACE_UPROBE_MULTI or 0. */
unsigned ulink_attach_type(void);
/* A multi-uprobe link of @prog_fd at @file_offset of @path for process
 * @pid (-1: every process), with @cookie.  Returns the link's fd or
 * -errno. */
int ulink_attach_multi(int prog_fd, pid_t pid, const char *path, uint64_t file_offset,
		       uint64_t cookie);
/* Close the @n links of @v, concurrently, and return once all are closed
 * (the programs no longer run at their sites). */
void ulink_close_all(struct ulink *v, size_t n);

#endif
