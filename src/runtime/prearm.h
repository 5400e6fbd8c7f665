/* prearm.h - a script's uprobes registered early, while its probes compile.
 *
 * Registering a uprobe takes the kernel's dup_mmap_sem for writing; the
 * first writer after a quiet spell waits there for an RCU grace period
 * (rcu_sync_enter), 5-55 ms measured on a 2-CPU virtual machine, while
 * the writers that follow soon after do not.  uprobe_prearm() queues a
 * site's uprobe as soon as the site is known, and a thread of this module
 * opens its perf event, so the waits overlap code generation and
 * verification; the runtime then attaches the probe's program to that
 * event instead of registering the same uprobe again.  Every site is
 * queued, not only the first: a script's later sites compile for tens of
 * milliseconds after the first, long enough for the kernel to be quiet
 * again, and a site that registered only at attach time would start
 * firing that much later than the others.  An event opened with no
 * program yet only traps the target and counts.  Best effort: when an
 * early open fails, the attach opens its event itself and says why as
 * before.  None of this where uprobes are multi-uprobe links (ulink.h):
 * they register without the perf event's waits.
 */
#ifndef WRAITH_RUNTIME_PREARM_H
#define WRAITH_RUNTIME_PREARM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Queue the uprobe at @file_offset of @path for process @pid (-1: every
 * process) to be opened early. */
void uprobe_prearm(pid_t pid, const char *path, uint64_t file_offset);
/* The perf event fd of a uprobe queued for exactly @pid, @path and
 * @file_offset and not yet taken, waiting for its registration to end;
 * the caller owns it.  -1 when there is none or its open failed. */
int uprobe_prearmed(pid_t pid, const char *path, uint64_t file_offset);
/* Drop what is still queued, wait for a registration going on and close
 * the events nobody took (after a script's attach: its failed probes'
 * sites; at the end of a session).  Returns how many events an attach
 * took, and in *@queued (if not NULL) how many were queued. */
size_t uprobe_prearm_release(size_t *queued);

#endif
