/* pidns.c - a process's PID namespace, from the nsfs inode its
 * /proc/PID/ns/pid link names.  Only a namespace other than wraith's own
 * is worth a probe's effort: in the same one, the host's ids are the
 * process's own, and asking the kernel for the namespace's view costs a
 * helper call per hit.
 */
#include "proc/pidns.h"

#include <stdio.h>
#include <sys/stat.h>

int proc_pidns(pid_t pid, uint64_t *dev, uint64_t *ino)
{
	struct stat mine, theirs;
	char path[64];

	*dev = 0;
	*ino = 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat("/proc/self/ns/pid", &mine) || stat(path, &theirs))
		return 0;
	if (mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino)
		return 0;
	*dev = (uint64_t)theirs.st_dev;
	*ino = (uint64_t)theirs.st_ino;
	return 1;
}
