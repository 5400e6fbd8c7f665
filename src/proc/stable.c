/* stable.c - reading memory that cannot have changed since a probe fired
 * (see stable.h).
 */
#include "proc/stable.h"

#include "util/clock.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define CACHED_PROCS 16     /* processes whose maps are kept */
#define REFRESH_SECONDS 0.05 /* a process's maps are read at most this often */

bool proc_mapping_is_stable(const struct proc_mapping *m)
{
	return m->perms[0] == 'r' && m->perms[1] != 'w' && m->perms[3] == 'p' && m->path &&
	       m->path[0] != '\0' && m->path[0] != '[';
}

size_t proc_stable_span(const struct proc_maps *maps, uint64_t addr, size_t len, bool *known)
{
	uint64_t at = addr;

	if (known)
		*known = false;
	for (size_t i = 0; i < maps->n && at - addr < len; i++) {
		const struct proc_mapping *m = &maps->v[i];

		if (at < m->start || at >= m->end)
			continue;
		if (known)
			*known = true;
		if (!proc_mapping_is_stable(m))
			break;
		at = m->end; /* the next mapping may go on where this one ends */
	}
	return at - addr < len ? (size_t)(at - addr) : len;
}

struct stable_proc {
	pid_t pid;
	bool used;   /* the slot holds @pid (its maps may have failed to read) */
	bool loaded; /* @maps were read */
	double read_at;
	struct proc_maps maps;
};

struct proc_stable_cache {
	struct stable_proc procs[CACHED_PROCS];
	size_t next; /* the slot to reuse next */
};

struct proc_stable_cache *proc_stable_cache_new(void)
{
	return xcalloc(1, sizeof(struct proc_stable_cache));
}

void proc_stable_cache_free(struct proc_stable_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < CACHED_PROCS; i++)
		proc_maps_release(&c->procs[i].maps);
	free(c);
}

static struct stable_proc *slot_of(struct proc_stable_cache *c, pid_t pid)
{
	struct stable_proc *p;

	for (size_t i = 0; i < CACHED_PROCS; i++)
		if (c->procs[i].used && c->procs[i].pid == pid)
			return &c->procs[i];
	p = &c->procs[c->next];
	c->next = (c->next + 1) % CACHED_PROCS;
	proc_maps_release(&p->maps);
	p->pid = pid;
	p->used = true;
	p->loaded = false;
	p->read_at = 0;
	return p;
}

static bool refresh(struct stable_proc *p)
{
	double now = now_seconds();

	if (p->read_at && now - p->read_at < REFRESH_SECONDS)
		return false;
	proc_maps_release(&p->maps);
	p->loaded = proc_maps_read(p->pid, &p->maps) == 0;
	p->read_at = now;
	return p->loaded;
}

size_t proc_stable_read(struct proc_stable_cache *c, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct stable_proc *p = slot_of(c, pid);
	struct iovec local, remote;
	bool known = false;
	size_t n = 0;
	ssize_t got;

	if (p->loaded)
		n = proc_stable_span(&p->maps, addr, len, &known);
	if (!known && refresh(p))
		n = proc_stable_span(&p->maps, addr, len, NULL);
	if (!n)
		return 0;
	local = (struct iovec){ buf, n };
	remote = (struct iovec){ (void *)(uintptr_t)addr, n };
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return got > 0 ? (size_t)got : 0;
}
