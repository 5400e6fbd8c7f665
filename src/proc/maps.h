/* maps.h - /proc/PID/maps and facts about a process.
 *
 * Layer rule: proc/ depends on util/ only; it knows nothing of ELF or DWARF.
 */
#ifndef WRAITH_PROC_MAPS_H
#define WRAITH_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;   /* file offset of start */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	char perms[5];     /* "r-xp" */
	char *path;        /* owned; "" for anonymous, "[vdso]" etc. for special;
			    * without the kernel's " (deleted)" suffix */
	bool deleted;      /* the file was deleted (or replaced) since it was
			    * mapped: path may now name another file or none;
			    * read it through /proc/PID/map_files/ instead */
};

struct proc_maps {
	struct proc_mapping *v; /* owned */
	size_t n;
	size_t cap;
};

/* Parse the text of a maps file into @out (overwritten; release with
 * proc_maps_release).  Empty lines are skipped.  Returns 0 or -WR_EPROTO on
 * a malformed line (@out is then released and empty). */
int proc_maps_parse(const char *text, struct proc_maps *out);
/* Read and parse /proc/PID/maps.  Returns 0, -ENOENT/-ESRCH if the process
 * is gone, or -errno. */
int proc_maps_read(pid_t pid, struct proc_maps *out);
void proc_maps_release(struct proc_maps *m);

/* True for a mapping that holds code: executable, backed by a file (not
 * anonymous, not a special mapping such as [vdso], [vsyscall], [uprobes]).
 * A deleted file still counts. */
bool proc_mapping_is_code(const struct proc_mapping *m);

/* Checks on a PID given by the user.  Returns 0, -WR_ENOPROC (does not
 * exist), -WR_EKTHREAD (kernel thread: no user address space; PF_KTHREAD in
 * /proc/PID/stat, or no executable and empty maps), -ESRCH for a zombie,
 * or -errno. */
int proc_check_pid(pid_t pid);

/* The process's executable path (readlink of /proc/PID/exe).  Caller frees. */
int proc_exe_path(pid_t pid, char **out);

/* The thread group (process) @tid belongs to: *@tgid == @tid for a
 * process's main thread.  Returns 0 or -errno (-ENOENT: no such task). */
int proc_tgid(pid_t tid, pid_t *tgid);

/* True while thread @tid of process @tgid exists (and is not a zombie). */
bool proc_thread_alive(pid_t tgid, pid_t tid);

/* Short command name (/proc/PID/comm).  Caller frees. */
int proc_comm(pid_t pid, char **out);

#endif
