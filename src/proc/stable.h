/* stable.h - reading a traced process's memory after the fact, only where
 * it cannot have changed since a probe fired.
 *
 * A uprobe reads memory with bpf_probe_read_user, which cannot fault a page
 * in: a library's read-only data that no one touched yet reads as an error.
 * Bytes of a private, read-only mapping of a file (code, .rodata, RELRO
 * data after relocation) are the same later as at the hit, so the renderer
 * may read them then, without stopping the process (process_vm_readv).
 * Writable memory never: that would show a later value as the hit's.
 *
 * Layer rule: proc/ depends on util/ only.
 */
#ifndef WRAITH_PROC_STABLE_H
#define WRAITH_PROC_STABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/maps.h"

/* True when the bytes of @m cannot change while the process runs:
 * readable, not writable, private, and backed by a file (not anonymous, not
 * the stack or heap, not [vdso] and friends). */
bool proc_mapping_is_stable(const struct proc_mapping *m);

/* How many bytes from @addr (at most @len) lie in stable mappings of @maps
 * (adjacent stable mappings continue one another); 0 when @addr is not in
 * one.  *@known (may be NULL) is set when @addr lies in any mapping. */
size_t proc_stable_span(const struct proc_maps *maps, uint64_t addr, size_t len, bool *known);

/* The mappings of the processes read lately, so a read costs no maps file
 * each time: a process's maps are read again only when an address lies in
 * none of them (a library mapped since), at most every REFRESH interval. */
struct proc_stable_cache;

struct proc_stable_cache *proc_stable_cache_new(void);
void proc_stable_cache_free(struct proc_stable_cache *c);

/* Read up to @len bytes at @addr of process @pid into @buf when they lie in
 * a stable mapping; stops where the stable memory or the readable bytes
 * end.  Returns the bytes read, 0 when none may or could be read. */
size_t proc_stable_read(struct proc_stable_cache *c, pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
