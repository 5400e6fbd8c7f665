/* target_procs.c - the processes of a target and their code mappings:
 * read from /proc/PID/maps, each mapping's module opened when new (a file
 * deleted on disk through the mapping, the vdso from the process's
 * memory), exec() noticed, processes that map the -t file found, and the
 * mappings kept current (target_refresh()).  Each change goes to the
 * kernel through target_install.c once the target is installed.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "proc/maps.h"
#include "runtime/runtime.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* -t: how often /proc is searched for new processes mapping the file. */
#define SCAN_INTERVAL 1.0

/* The path to open for a file the process @pid maps as @path: through
 * /proc/PID/root so a process in another mount namespace works too. */
static char *open_path_for(pid_t pid, const char *path)
{
	char *p;

	if (pid <= 0)
		return xstrdup(path);
	p = xasprintf("/proc/%d/root%s", (int)pid, path);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return xstrdup(path);
}

/* ---- processes ---- */

void tprocess_free(struct tprocess *p)
{
	if (!p)
		return;
	free(p->maps_text);
	free(p->maps);
	free(p);
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct tmapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The module of a code mapping of process @pid, opened when new.  A file
 * deleted or replaced on disk since it was mapped is read, probed and
 * unwound through the mapping itself (/proc/PID/map_files/), never
 * through the path, which now names another file or none. */
static int mapping_module(struct target *t, pid_t pid, const struct proc_mapping *pm,
			  struct tmodule **out)
{
	uint64_t dev = makedev(pm->dev_major, pm->dev_minor);
	char *open;
	int err;

	*out = target_module_by_identity(t, dev, pm->inode);
	if (*out) {
		(*out)->unmapped = false;
		return 0;
	}
	if (!pm->deleted)
		return target_add_module(t, pm->path, open_path_for(pid, pm->path), dev, pm->inode, out);
	open = xasprintf("/proc/%d/map_files/%llx-%llx", (int)pid, (unsigned long long)pm->start,
			 (unsigned long long)pm->end);
	err = target_add_module(t, pm->path, open, dev, pm->inode, out);
	if (!err) {
		(*out)->deleted = true;
		wr_warn("%s was deleted or replaced on disk since process %d mapped it; wraith reads, "
			"probes and unwinds the copy the process still maps", pm->path, (int)pid);
	}
	return err;
}

/* The vdso: code the kernel maps into every process, with unwind tables
 * but no file.  Its image is read out of process @pid into an anonymous
 * file, opened like any module and shared by every process (one kernel,
 * one image); it is unwound and named, never probed. */
static int vdso_module(struct target *t, pid_t pid, const struct proc_mapping *pm,
		       struct tmodule **out)
{
	size_t len = (size_t)(pm->end - pm->start);
	char mem[64], *img, *path;
	ssize_t got = -1;
	int fd, memfd, err;

	*out = target_module_by_identity(t, 0, 0);
	if (*out)
		return 0;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	img = xmalloc(len ? len : 1);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = pread(fd, img, len, (off_t)pm->start);
		close(fd);
	}
	memfd = got == (ssize_t)len ? memfd_create("wraith-vdso", MFD_CLOEXEC) : -1;
	if (memfd < 0 || write(memfd, img, len) != (ssize_t)len) {
		err = memfd < 0 && got == (ssize_t)len ? -errno : -EIO;
		free(img);
		if (memfd >= 0)
			close(memfd);
		wr_debug("cannot read the vdso of process %d: %s", (int)pid, wr_strerror(err));
		return err;
	}
	free(img);
	/* The module keeps its own descriptor of the anonymous file. */
	path = xasprintf("/proc/self/fd/%d", memfd);
	err = target_add_module(t, "[vdso]", path, 0, 0, out);
	close(memfd);
	if (!err) {
		(*out)->special = true;
		free((*out)->open_path);
		(*out)->open_path = xstrdup("[vdso]");
	}
	return err;
}

/* Rebuild @p's code mappings from maps text, opening new modules. */
static int build_mappings(struct target *t, struct tprocess *p, const char *text)
{
	struct proc_maps maps = { 0 };
	size_t cap = 0;
	int err = proc_maps_parse(text, &maps);

	if (err)
		return err;
	free(p->maps);
	p->maps = NULL;
	p->n_maps = 0;
	for (size_t i = 0; i < maps.n; i++) {
		const struct proc_mapping *pm = &maps.v[i];
		struct tmodule *mod;
		uint64_t vaddr;

		if (pm->perms[2] == 'x' && strcmp(pm->path, "[vdso]") == 0) {
			if (vdso_module(t, p->pid, pm, &mod))
				continue;
		} else if (!proc_mapping_is_code(pm) || mapping_module(t, p->pid, pm, &mod)) {
			continue;
		}
		if (dw_module_offset_to_vaddr(mod->dw, pm->offset, &vaddr))
			continue;
		p->maps = xgrow(p->maps, &cap, p->n_maps + 1, sizeof(*p->maps));
		p->maps[p->n_maps++] = (struct tmapping){
			.start = pm->start, .end = pm->end, .offset = pm->offset, .bias = pm->start - vaddr,
			.mod = mod,
		};
	}
	proc_maps_release(&maps);
	if (p->n_maps)
		qsort(p->maps, p->n_maps, sizeof(*p->maps), cmp_mapping);
	return 0;
}

int target_read_maps(pid_t pid, char **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return file_read(path, out, NULL);
}



/* Which program @p runs: the file behind /proc/PID/exe (even one deleted
 * on disk) and where the first mapping of it starts. */
static void note_program(struct tprocess *p)
{
	char exe[64];
	struct stat st;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)p->pid);
	if (stat(exe, &st))
		return;
	p->exe_dev = st.st_dev;
	p->exe_ino = st.st_ino;
	p->exe_start = 0;
	for (size_t i = 0; i < p->n_maps && !p->exe_start; i++)
		if (p->maps[i].mod->dev == st.st_dev && p->maps[i].mod->ino == st.st_ino)
			p->exe_start = p->maps[i].start;
}

/* Does the maps text mention the file (dev, ino)? */
static bool maps_mention(const char *text, uint64_t dev, uint64_t ino)
{
	struct proc_maps maps = { 0 };
	bool found = false;

	if (proc_maps_parse(text, &maps))
		return false;
	for (size_t i = 0; i < maps.n && !found; i++)
		found = maps.v[i].inode == ino &&
			makedev(maps.v[i].dev_major, maps.v[i].dev_minor) == dev;
	proc_maps_release(&maps);
	return found;
}

/* -t PATH: @p is one of the target's processes for the kernel (the sites
 * outside PATH, target_site_filtered()) while it maps PATH.  The kernel's
 * tracepoints follow forks, exits and exec()s themselves; this catches
 * what they cannot see (a library mapped by a process found later). */
static void sync_member(struct target *t, const struct tprocess *p)
{
	const struct tmodule *m = t->n_mods ? t->mods[0] : NULL;
	bool member;

	if (!t->rt || !target_has_members(t))
		return;
	if (dw_module_is_program(m->dw)) {
		/* what the process runs now, not when its maps were read: an
		 * exec() since, which the kernel's tracepoint has already
		 * taken out, must not be put back */
		char exe[64];
		struct stat st;

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)p->pid);
		member = stat(exe, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino;
	} else {
		member = maps_mention(p->maps_text, m->dev, m->ino);
	}
	if (member)
		runtime_put_member(t->rt, (uint32_t)p->pid);
	else
		runtime_del_member(t->rt, (uint32_t)p->pid);
}

void target_sync_members(struct target *t)
{
	for (size_t i = 0; i < t->n_procs; i++)
		sync_member(t, t->procs[i]);
}

/* -p: after @p's mappings changed, did it run exec()?  The same program
 * again keeps every probe (the kernel re-arms them in the new image, and
 * the new mappings are installed as usual); another program ends the
 * trace, since no probe is in it.  Returns false when @p must go. */
static bool follow_exec(struct target *t, struct tprocess *p)
{
	uint64_t dev = p->exe_dev, ino = p->exe_ino, start = p->exe_start;
	char *exe = NULL;

	note_program(p);
	if (t->pid <= 0 || (!dev && !ino) || (dev == p->exe_dev && ino == p->exe_ino &&
					      (start == p->exe_start || !start || !p->exe_start)))
		return true;
	proc_exe_path(p->pid, &exe);
	if (dev == p->exe_dev && ino == p->exe_ino) {
		wr_warn("process %d ran exec() of %s again: the probes follow the new image",
			(int)p->pid, exe ? exe : "its program");
	} else {
		free(t->ended);
		t->ended = xasprintf("process %d ran exec() of another program (%s): no probe is in it, so "
				     "the trace ends", (int)p->pid, exe ? exe : "?");
	}
	free(exe);
	return !t->ended;
}

/* New maps text for @p: its mappings rebuilt and installed.  Returns
 * false when @p can no longer be traced (see follow_exec). */
static bool update_process(struct target *t, struct tprocess *p, char *text)
{
	free(p->maps_text);
	p->maps_text = text;
	if (build_mappings(t, p, text))
		return true;
	if (!follow_exec(t, p))
		return false;
	sync_member(t, p);
	if (t->rt)
		target_install_process(t, p);
	return true;
}

int target_add_process(struct target *t, pid_t pid, char *maps_text)
{
	struct tprocess *p = xcalloc(1, sizeof(*p));
	int err;

	p->pid = pid;
	p->maps_text = maps_text;
	err = build_mappings(t, p, maps_text);
	if (err) {
		tprocess_free(p);
		return err;
	}
	note_program(p);
	t->procs = xgrow(t->procs, &t->cap_procs, t->n_procs + 1, sizeof(*t->procs));
	t->procs[t->n_procs++] = p;
	sync_member(t, p);
	return 0;
}

struct tprocess *target_process(struct target *t, pid_t pid)
{
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i]->pid == pid)
			return t->procs[i];
	return NULL;
}

/* -t: find processes that map the target file and are not known yet. */
int target_scan_processes(struct target *t)
{
	struct tmodule *main_mod = t->n_mods ? t->mods[0] : NULL;
	DIR *d = opendir("/proc");
	struct dirent *de;
	int added = 0;

	if (!d || !main_mod) {
		if (d)
			closedir(d);
		return 0;
	}
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		char *text = NULL;

		if (pid <= 0 || pid == getpid() || target_process(t, pid))
			continue;
		if (target_read_maps(pid, &text))
			continue;
		if (maps_mention(text, main_mod->dev, main_mod->ino) && target_add_process(t, pid, text) == 0) {
			added++;
			continue;
		}
		free(text);
	}
	closedir(d);
	return added;
}

static void remove_process(struct target *t, size_t i)
{
	if (t->rt)
		runtime_del_proc_maps(t->rt, (uint32_t)t->procs[i]->pid);
	if (t->rt && target_has_members(t))
		runtime_del_member(t->rt, (uint32_t)t->procs[i]->pid);
	tprocess_free(t->procs[i]);
	memmove(&t->procs[i], &t->procs[i + 1], (t->n_procs - i - 1) * sizeof(*t->procs));
	t->n_procs--;
}

int target_refresh(struct target *t)
{
	int changed = 0;

	for (size_t i = t->n_procs; i-- > 0;) {
		struct tprocess *p = t->procs[i];
		char *text = NULL;

		/* Gone, or a zombie: its maps read empty. */
		if (target_read_maps(p->pid, &text) || !*text ||
		    (t->tid > 0 && !proc_thread_alive(t->pid, t->tid))) {
			free(text);
			remove_process(t, i);
			continue;
		}
		if (strcmp(text, p->maps_text) == 0) {
			free(text);
			continue;
		}
		if (!update_process(t, p, text))
			remove_process(t, i);
		changed++;
	}
	if (t->path && !t->pid && now_seconds() - t->last_scan >= SCAN_INTERVAL) {
		size_t before = t->n_procs;

		t->last_scan = now_seconds();
		changed += target_scan_processes(t);
		for (size_t i = before; i < t->n_procs && t->rt; i++)
			target_install_process(t, t->procs[i]);
	}
	return changed;
}

struct tprocess *target_refresh_process(struct target *t, pid_t pid)
{
	struct tprocess *p = target_process(t, pid);
	char *text = NULL;

	if (target_read_maps(pid, &text) || !*text) {
		free(text);
		return p; /* gone: what we knew is all there is */
	}
	if (p && strcmp(text, p->maps_text) == 0) {
		free(text);
		return p;
	}
	if (p) {
		if (update_process(t, p, text))
			return p;
		for (size_t i = 0; i < t->n_procs; i++) {
			if (t->procs[i] == p) {
				remove_process(t, i);
				break;
			}
		}
		return NULL;
	}
	if (t->pid > 0 || target_add_process(t, pid, text))
		return NULL;
	p = t->procs[t->n_procs - 1];
	if (t->rt)
		target_install_process(t, p);
	return p;
}
