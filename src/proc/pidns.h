/* pidns.h - the PID namespace a process lives in, so a probe can show
 * $pid and $tid as the process itself sees them (a container's own ids).
 *
 * Layer rule: proc/ depends on util/ only.
 */
#ifndef WRAITH_PROC_PIDNS_H
#define WRAITH_PROC_PIDNS_H

#include <stdint.h>
#include <sys/types.h>

/* The nsfs device and inode of the PID namespace of process @pid, read
 * from /proc/PID/ns/pid.  Returns 1 when it differs from wraith's own
 * namespace (*@dev and *@ino set), 0 when it is the same one or cannot
 * be told (both set to 0: the host's ids are the process's own then). */
int proc_pidns(pid_t pid, uint64_t *dev, uint64_t *ino);

#endif
