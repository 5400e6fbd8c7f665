/* prearm.h - the session's first uprobe registered early, while its probe
 * compiles.
 *
 * Registering a uprobe takes the kernel's dup_mmap_sem for writing; the
 * first writer after a quiet spell waits there for an RCU grace period
 * (rcu_sync_enter), 5-55 ms measured on a 2-CPU virtual machine, while
 * the writers that follow soon after do not.  uprobe_prearm() opens that
 * first uprobe's perf event on a thread of its own as soon as the site is
 * known, so the wait overlaps code generation and verification; the
 * runtime then attaches the probe's program to that event instead of
 * registering the same uprobe again.  One per process: the ones after it
 * no longer wait.  Best effort: when the early open fails, the attach
 * opens its event itself and says why as before.
 */
#ifndef WRAITH_RUNTIME_PREARM_H
#define WRAITH_RUNTIME_PREARM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Start registering the uprobe at @file_offset of @path for process @pid
 * (-1: every process); false (nothing started) when one was started
 * before in this process. */
bool uprobe_prearm(pid_t pid, const char *path, uint64_t file_offset);
/* The perf event fd of the uprobe pre-armed for exactly @pid, @path and
 * @file_offset, waiting for its registration to end; the caller owns it.
 * -1 when there is none or it failed. */
int uprobe_prearmed(pid_t pid, const char *path, uint64_t file_offset);
/* Wait for a registration still going on and close an event nobody took
 * (at the end of a session, or when its probe failed to load). */
void uprobe_prearm_release(void);

#endif
