/* target.c - processes, their modules and mappings, and keeping the
 * kernel's copy of them current (see target.h; frames are named and
 * handed-over walks finished in target_frames.c, libraries not loaded yet
 * found in target_libs.c).
 *
 * The order of installation matters for correctness: a module's CFI goes
 * into the kernel before any mapping that points at it, so the unwinder
 * never sees a mapping whose rows are missing.  Until a new library's
 * mapping is installed, a walk that reaches a frame in it is handed to
 * userspace (target_finish_backtrace), never guessed.  A big module whose
 * rows are still being read when the probes attach is left out the same
 * way (deferred, see target_cfi.c) until they are.
 */
#include "tracer/target_priv.h"
#include "dwarf/debugfile.h"
#include "dwarf/symtab.h"
#include "dwarf/module.h"
#include "dwarf/symbolize.h"
#include "dwarf/vars.h"
#include "proc/libpath.h"
#include "proc/linkmap.h"
#include "proc/maps.h"
#include "runtime/runtime.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
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

/* ---- modules ---- */

static void tmodule_free(struct tmodule *m)
{
	if (!m)
		return;
	dw_module_free(m->dw);
	runtime_cfi_maps_close(m->cfi_fds);
	cfi_table_release(&m->cfi);
	cfi_rules_release(&m->rules);
	free(m->path);
	free(m->open_path);
	free(m);
}

struct tmodule *target_module_by_identity(struct target *t, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < t->n_mods; i++)
		if (t->mods[i]->dev == dev && t->mods[i]->ino == ino)
			return t->mods[i];
	return NULL;
}

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

static const struct dw_type *resolve_type(void *ctx, struct dw_module *asking, const char *spelling);

int target_add_module(struct target *t, const char *path, char *open_path, uint64_t dev,
		      uint64_t ino, struct tmodule **out)
{
	struct tmodule *m;
	int err;

	*out = target_module_by_identity(t, dev, ino);
	if (*out || t->n_mods >= WR_MAX_MODULES) {
		free(open_path);
		return *out ? 0 : -WR_ELIMIT;
	}
	m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(path);
	m->open_path = open_path;
	m->dev = dev;
	m->ino = ino;
	m->slot = (uint32_t)t->n_mods;
	m->cookie = (uint64_t)m->slot + 1;
	m->cfi_fds[0] = m->cfi_fds[1] = -1;
	cfi_rules_init(&m->rules);
	cfi_table_init(&m->cfi);
	err = dw_module_open_as(m->open_path, m->path, &m->dw);
	if (err) {
		wr_debug("cannot open module %s: %s", path, wr_strerror(err));
		tmodule_free(m);
		return err;
	}
	dw_module_set_type_resolver(m->dw, resolve_type, t);
	t->mods = xgrow(t->mods, &t->cap_mods, t->n_mods + 1, sizeof(*t->mods));
	t->mods[t->n_mods++] = m;
	*out = m;
	return 0;
}

/* ---- processes ---- */

static void tprocess_free(struct tprocess *p)
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

static int read_maps_text(pid_t pid, char **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return file_read(path, out, NULL);
}

static int install_process(struct target *t, struct tprocess *p);

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
	if (t->rt)
		install_process(t, p);
	return true;
}

static int add_process(struct target *t, pid_t pid, char *maps_text)
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
	return 0;
}

static struct tprocess *process_by_pid(struct target *t, pid_t pid)
{
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i]->pid == pid)
			return t->procs[i];
	return NULL;
}

/* Whether @pid can be traced, said once.  To the user a zombie is as gone
 * as a missing process (same code, so the same exit status), but the
 * message says which it was. */
static int check_pid(pid_t pid)
{
	int err = proc_check_pid(pid);

	if (pid == getpid()) {
		/* every event would make it call malloc, write, ... again */
		wr_error("PID %d is this wraith itself: tracing it would feed on its own events",
			 (int)pid);
		return -WR_EUSAGE;
	}
	if (err == -ESRCH) {
		wr_error("process %d has exited (a zombie its parent has not reaped): there is "
			 "nothing left to trace", (int)pid);
		return -WR_ENOPROC;
	}
	if (err == -WR_ENOPROC)
		wr_error("no process with PID %d", (int)pid);
	else if (err == -WR_EKTHREAD)
		wr_error("PID %d is a kernel thread: it has no user space to trace", (int)pid);
	else if (err)
		wr_error("cannot inspect PID %d: %s", (int)pid, wr_strerror(err));
	return err;
}

/* -p given a thread: trace its process's code in that thread only. */
static void adopt_thread(struct target *t, pid_t pid)
{
	pid_t tgid = pid;
	char *comm = NULL;

	if (proc_tgid(pid, &tgid) || tgid == pid)
		return;
	t->pid = tgid;
	t->tid = pid;
	proc_comm(tgid, &comm);
	wr_warn("PID %d is a thread of process %d (%s), not its main thread: only that thread is "
		"traced", (int)pid, (int)tgid, comm ? comm : "?");
	free(comm);
}

int target_open_pid(pid_t pid, struct target **out)
{
	struct target *t = xcalloc(1, sizeof(*t));
	char *text = NULL;
	int err;

	*out = NULL;
	t->pid = pid;
	err = check_pid(pid);
	if (!err)
		adopt_thread(t, pid);
	pid = t->pid;
	if (!err) {
		err = read_maps_text(pid, &text);
		if (err)
			wr_error("cannot read the mappings of PID %d: %s", (int)pid, wr_strerror(err));
	}
	if (!err)
		err = add_process(t, pid, text);
	if (err) {
		target_free(t);
		return err;
	}
	if (!t->procs[0]->n_maps) {
		wr_error("PID %d maps no code wraith can read", (int)pid);
		target_free(t);
		return -WR_ENOPROC;
	}
	*out = t;
	return 0;
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

/* -t: find processes that map the target file and are not known yet. */
static int scan_processes(struct target *t)
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

		if (pid <= 0 || pid == getpid() || process_by_pid(t, pid))
			continue;
		if (read_maps_text(pid, &text))
			continue;
		if (maps_mention(text, main_mod->dev, main_mod->ino) && add_process(t, pid, text) == 0) {
			added++;
			continue;
		}
		free(text);
	}
	closedir(d);
	return added;
}

/* A program named without '/' (as a shell finds it in $PATH). */
static char *find_in_path(const char *name)
{
	const char *env = getenv("PATH");
	char *dirs = xstrdup(env ? env : "/usr/bin:/bin"), *found = NULL, *save = NULL;

	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", name);

		if (access(p, X_OK) == 0)
			found = realpath(p, NULL);
		free(p);
	}
	free(dirs);
	return found;
}

/* -t's argument as an absolute path: a file here, a program in $PATH or a
 * library by short name.  Returns 0 and *out (caller frees) or -errno. */
static int resolve_path_arg(const char *path, char **out)
{
	struct strbuf cands = STRBUF_INIT;
	int err;

	*out = realpath(path, NULL);
	if (*out || strchr(path, '/'))
		return *out ? 0 : -errno;
	*out = find_in_path(path);
	if (*out)
		return 0;
	err = lib_find(path, out, &cands);
	if (err == -EEXIST)
		wr_error("cannot trace %s: the name matches several libraries; give one path:\n%s",
			 path, cands.buf);
	else if (err)
		wr_error("cannot trace %s: no such file, program in $PATH or library known to the "
			 "dynamic linker", path);
	strbuf_release(&cands);
	return err == -EEXIST ? -ENOENT : err;
}

int target_open_path(const char *path, struct target **out)
{
	struct target *t = xcalloc(1, sizeof(*t));
	struct tmodule *m;
	char *abs = NULL;
	struct stat st;
	int err = resolve_path_arg(path, &abs);

	*out = NULL;
	if (!err && stat(abs, &st))
		err = -errno;
	if (err) {
		if (strchr(path, '/') || abs)
			wr_error("cannot trace %s: %s", path, wr_strerror(err));
		free(abs);
		free(t);
		return err;
	}
	if (strcmp(abs, path) && !strchr(path, '/'))
		wr_info("%s is %s", path, abs);
	t->path = abs;
	t->given = xstrdup(path);
	err = target_add_module(t, abs, xstrdup(abs), st.st_dev, st.st_ino, &m);
	if (err) {
		wr_error("cannot trace %s: %s", path,
			 err == -WR_EELF ? "not an x86-64 ELF executable or shared library" : wr_strerror(err));
		target_free(t);
		return err;
	}
	scan_processes(t);
	*out = t;
	return 0;
}

int target_set_scope(struct target *t, const char *path)
{
	char *abs = realpath(path, NULL);
	struct stat st;
	bool ambiguous = false;

	if (abs && stat(abs, &st) == 0)
		t->scope = target_module_by_identity(t, st.st_dev, st.st_ino);
	if (!t->scope && !strchr(path, '/'))
		t->scope = target_find_module(t, path, &ambiguous);
	free(abs);
	if (t->scope) {
		free(t->given);
		t->given = xstrdup(path);
		return 0;
	}
	if (ambiguous)
		wr_error("-t %s: the name matches several modules of process %d; give a path "
			 "(`info modules` in the shell lists them)", path, (int)t->pid);
	else
		wr_error("-t %s: process %d does not map it (with -p, -t names one of the process's "
			 "modules: its executable or a library it has loaded)", path, (int)t->pid);
	return -WR_ENOTARGET;
}

void target_free(struct target *t)
{
	if (!t)
		return;
	target_load_cfi_stop(t);
	for (size_t i = 0; i < t->n_procs; i++)
		tprocess_free(t->procs[i]);
	for (size_t i = 0; i < t->n_mods; i++)
		tmodule_free(t->mods[i]);
	free(t->procs);
	free(t->mods);
	free(t->path);
	free(t->given);
	free(t->ended);
	free(t->tails);
	free(t);
}

/* ---- finding modules ---- */

struct tmodule *target_main_module(struct target *t)
{
	struct tmodule *m = NULL;
	char exe[64];
	struct stat st;

	if (t->scope)
		return t->scope;
	if (t->path || !t->n_procs)
		return t->n_mods ? t->mods[0] : NULL;
	/* The link leads to the file itself, even one deleted on disk. */
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)t->procs[0]->pid);
	if (stat(exe, &st) == 0)
		m = target_module_by_identity(t, st.st_dev, st.st_ino);
	return m ? m : (t->n_mods ? t->mods[0] : NULL);
}

struct tmodule *target_module_by_cookie(struct target *t, uint64_t cookie)
{
	if (cookie == 0 || cookie > t->n_mods)
		return NULL;
	return t->mods[cookie - 1];
}

/* ---- CFI and installation ---- */

static int install_module(struct target *t, struct tmodule *m)
{
	int err;

	if (!t->want_cfi || m->cfi_installed || m->cfi_deferred)
		return 0;
	target_load_module_cfi(t, m);
	if (m->cfi_fds[0] >= 0 || m->cfi_fds[1] >= 0) {
		err = runtime_put_module_cfi_maps(t->rt, m->slot, m->cfi_fds);
		runtime_cfi_maps_close(m->cfi_fds);
	} else {
		err = runtime_put_module_cfi(t->rt, m->slot, m->cfi.rows, m->cfi.n, m->rules.v,
					     m->rules.n);
	}
	if (!err)
		m->cfi_installed = true;
	return err;
}

/* A deferred module's mappings are left out: the kernel hands a walk
 * that reaches one over instead of unwinding it. */
static int install_process(struct target *t, struct tprocess *p)
{
	struct wr_proc_maps *pm = xcalloc(1, sizeof(*pm));
	int err = 0;

	for (size_t i = 0; i < p->n_maps && pm->count < WR_MAX_MAPPINGS; i++) {
		const struct tmapping *tm = &p->maps[i];

		if (tm->mod->cfi_deferred)
			continue;
		err = install_module(t, tm->mod);
		if (err)
			break;
		pm->m[pm->count++] = (struct wr_mapping){
			.start = tm->start, .end = tm->end, .bias = tm->bias, .cookie = tm->mod->cookie,
			.slot = tm->mod->slot, .row_count = tm->mod->cfi_installed ? (__u32)tm->mod->cfi.n : 0,
		};
	}
	/* A new generation tells the unwinder's frame cache that what it
	 * learnt about this process's addresses may be stale. */
	pm->generation = ++t->generation;
	if (!err)
		err = runtime_put_proc_maps(t->rt, (uint32_t)p->pid, pm);
	if (!err)
		p->installed = true;
	free(pm);
	return err;
}

int target_install(struct target *t, struct runtime *rt)
{
	double t0;
	int err = 0;

	t->rt = rt;
	t->cfi_put = t->want_cfi;
	if (!t->want_cfi || !target_cfi_defer(t))
		target_load_cfi_wait(t);
	t0 = now_seconds();
	for (size_t i = 0; i < t->n_mods && !err; i++)
		err = install_module(t, t->mods[i]);
	if (t->want_cfi)
		wr_debug("unwind tables: in the kernel in %.1f ms", (now_seconds() - t0) * 1e3);
	for (size_t i = 0; i < t->n_procs && !err; i++)
		err = install_process(t, t->procs[i]);
	t->cfi_installed_at = now_seconds();
	return err;
}

/* Put deferred module @m in (waiting for its rows if need be); its
 * processes' mappings are the caller's to install. */
static void put_deferred(struct target *t, struct tmodule *m, const char *why)
{
	int err;

	m->cfi_deferred = false;
	t->cfi_n_deferred--;
	err = install_module(t, m);
	if (err) {
		/* Left out for good: its walks go on being finished in userspace. */
		m->cfi_deferred = true;
		wr_warn("unwind tables of %s: could not put them in the kernel (%s); walks through it "
			"are finished by wraith instead", m->path, wr_strerror(err));
		return;
	}
	wr_debug("unwind tables: %s (%zu rows) in the kernel %.1f ms after the others%s; walks "
		 "through deferred modules finished in userspace so far: %zu", dw_module_name(m->dw),
		 m->cfi.n, (now_seconds() - t->cfi_installed_at) * 1e3, why, t->stats.deferred_walks);
}

/* Install again the mappings of every process that maps a module just
 * put in (@put, by slot). */
static void reinstall_processes(struct target *t, bool *put)
{
	for (size_t i = 0; i < t->n_procs; i++) {
		struct tprocess *p = t->procs[i];
		bool mine = false;

		for (size_t j = 0; j < p->n_maps && !mine; j++)
			mine = put[p->maps[j].mod->slot];
		if (mine)
			install_process(t, p);
	}
}

/* Put in the deferred modules (@only, or all; @ready_only: those whose
 * rows are read, else waiting for them) and their processes' mappings;
 * the loader is joined once none is left.  Returns how many. */
static size_t put_deferred_modules(struct target *t, bool ready_only, struct tmodule *only,
				   const char *why)
{
	bool *put;
	size_t n = 0;

	if (!t->cfi_n_deferred || !t->rt)
		return 0;
	put = xcalloc(t->n_mods, sizeof(*put));
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmodule *m = t->mods[i];

		if (!m->cfi_deferred || m->cfi_installed || (only && m != only) ||
		    (ready_only && !target_cfi_ready(t, m)))
			continue;
		put_deferred(t, m, why);
		put[m->slot] = true;
		n++;
	}
	if (n)
		reinstall_processes(t, put);
	free(put);
	if (!t->cfi_n_deferred)
		target_cfi_join_late(t);
	return n;
}

size_t target_install_deferred(struct target *t)
{
	return put_deferred_modules(t, true, NULL, "");
}

void target_pin_module(struct target *t, struct tmodule *m)
{
	m->cfi_pinned = true;
	if (m->cfi_deferred)
		put_deferred_modules(t, false, m, " (a probe was placed in it)");
}

void target_defer_off(struct target *t)
{
	t->cfi_defer_off = true;
	put_deferred_modules(t, false, NULL, " (a `count bt` needs every module in the kernel)");
}

static void remove_process(struct target *t, size_t i)
{
	if (t->rt)
		runtime_del_proc_maps(t->rt, (uint32_t)t->procs[i]->pid);
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
		if (read_maps_text(p->pid, &text) || !*text ||
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
		changed += scan_processes(t);
		for (size_t i = before; i < t->n_procs && t->rt; i++)
			install_process(t, t->procs[i]);
	}
	return changed;
}

/* ---- a process, now ---- */

/* Bring the mappings of @pid up to date now (adding the process when -t
 * sees it for the first time) and install them.  Returns it, or NULL. */
struct tprocess *target_refresh_process(struct target *t, pid_t pid)
{
	struct tprocess *p = process_by_pid(t, pid);
	char *text = NULL;

	if (read_maps_text(pid, &text) || !*text) {
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
	if (t->pid > 0 || add_process(t, pid, text))
		return NULL;
	p = t->procs[t->n_procs - 1];
	if (t->rt)
		install_process(t, p);
	return p;
}

uint32_t target_rule_at(struct tmodule *m, uint64_t pc)
{
	long idx;

	if (!m->cfi_loaded)
		return WR_RULE_LOOKUP;
	idx = cfi_table_lookup(&m->cfi, pc);
	return idx < 0 ? WR_CFI_RULE_NONE : m->cfi.rows[idx].rule;
}

/* ---- program variables across modules ---- */

/* A type a module only declares (`struct lua_State *` in a program that
 * links the library defining it), completed from the first other module
 * that defines it, the main module first, the way gdb looks a type up in
 * every objfile. */
static const struct dw_type *resolve_type(void *ctx, struct dw_module *asking, const char *spelling)
{
	struct target *t = ctx;
	struct tmodule *main_mod = target_main_module(t);
	const struct dw_type *found = NULL;

	if (main_mod && main_mod->dw != asking)
		found = dw_type_find_complete(main_mod->dw, spelling);
	for (size_t i = 0; i < t->n_mods && !found; i++)
		if (t->mods[i] != main_mod && t->mods[i]->dw != asking)
			found = dw_type_find_complete(t->mods[i]->dw, spelling);
	return found;
}

/* The load bias of @m in the traced process: one process only, since
 * libraries load at different addresses in each. */
static bool module_bias(struct target *t, struct tmodule *m, uint64_t *bias)
{
	if (t->path || t->n_procs != 1)
		return false;
	for (size_t i = 0; i < t->procs[0]->n_maps; i++) {
		if (t->procs[0]->maps[i].mod == m) {
			*bias = t->procs[0]->maps[i].bias;
			return true;
		}
	}
	return false;
}

/* @v, a global of module @def, made readable from a probe in module @at:
 * its address relative to @at's load bias, which the probe knows. */
static void relocate_global(struct target *t, struct tmodule *def, struct tmodule *at, struct dw_var *v)
{
	uint64_t bias_def, bias_at;

	if (v->loc.kind == DW_LOC_MEM_EXPR || v->loc.kind == DW_LOC_VALUE_EXPR)
		v->loc.tls_module = def->dw; /* its thread-local block, if it names one */
	if (v->loc.kind != DW_LOC_MEM_ADDR)
		return; /* a constant needs no address */
	if (!module_bias(t, def, &bias_def) || !module_bias(t, at, &bias_at)) {
		v->loc.kind = DW_LOC_UNSUPPORTED;
		v->loc.why = "it is a global of another module, which wraith reads only when tracing one "
			     "process (-p PID)";
		return;
	}
	v->loc.offset = (int64_t)(bias_def + (uint64_t)v->loc.offset - bias_at);
}

void target_describe_site(struct target *t, struct tmodule *m, uint64_t vaddr, struct strbuf *out)
{
	struct dw_sym sym;

	(void)t;
	strbuf_addf(out, "%s+0x%llx", dw_module_name(m->dw), (unsigned long long)vaddr);
	if (dw_symbolize(m->dw, vaddr, &sym) != 0 || !sym.n || !sym.frames[0].function)
		return;
	strbuf_addf(out, " in %s", sym.frames[0].function);
	if (sym.n > 1 && sym.frames[sym.n - 1].function)
		strbuf_addf(out, ", inlined into %s", sym.frames[sym.n - 1].function);
}

/* The module whose copy of global @v (found in @def) the program uses:
 * the first module in the dynamic linker's lookup order (the executable,
 * then the libraries) whose dynamic symbols define it.  An executable that
 * uses a library's variable holds it by a copy relocation, and the
 * library's own copy is stale from then on.  A global no module exports
 * (static, hidden, protected) is its definition's own; so is one whose
 * copy cannot be reached without a process (tracing by path). */
static struct tmodule *bind_global(struct target *t, struct tmodule *def, struct tmodule *at,
				   struct dw_var *v)
{
	struct tmodule *main_mod = target_main_module(t);
	uint64_t addr, bias;

	if (v->scope != DW_VAR_GLOBAL || !v->external || v->loc.kind != DW_LOC_MEM_ADDR || !v->name ||
	    !dw_module_dynamic_object(def->dw, v->name, &addr))
		return def;
	for (size_t i = 0; i <= t->n_mods; i++) {
		struct tmodule *x = i == 0 ? main_mod : t->mods[i - 1];

		if (!x || (i > 0 && x == main_mod))
			continue;
		if (x == def)
			return def;
		if (!dw_module_dynamic_object(x->dw, v->name, &addr))
			continue;
		if (x != at && (!module_bias(t, x, &bias) || !module_bias(t, at, &bias)))
			return def;
		v->loc.offset = (int64_t)addr;
		return x;
	}
	return def;
}

/* ---- thread-local variables ---- */

static struct tmodule *module_of(struct target *t, const struct dw_module *dw)
{
	for (size_t i = 0; i < t->n_mods; i++)
		if (t->mods[i]->dw == dw)
			return t->mods[i];
	return NULL;
}

/* The program's own block is where glibc always puts it (computed from its
 * PT_TLS alone, so -t without -p knows it too).  A library's depends on
 * the order the dynamic linker loaded modules in, which only the process
 * can say: its link_map gives the module id and, for a module loaded at
 * start, the static offset.  A static block is taken at the thread
 * pointer less that offset: exact for every thread from its creation (the
 * block is allocated with the thread and never moves), and no memory is
 * read to find it.  Otherwise (dlopen'ed) the block exists only once the
 * thread first used it, and only the thread's DTV says where. */
int target_tls_block(struct target *t, const struct dw_module *dw, struct tmodule *probe_mod,
		     struct target_tls *out, const char **why)
{
	struct tmodule *m = dw ? module_of(t, dw) : probe_mod, *main_mod = target_main_module(t);
	struct proc_tls_query q = { 0 };
	struct proc_tls_module lm;
	struct dw_tls_segment seg;
	uint64_t main_bias;
	int err;

	if (!m || dw_module_tls(m->dw, &seg)) {
		*why = "its module has no thread-local storage segment (PT_TLS)";
		return -ENOENT;
	}
	if (dw_module_is_program(m->dw)) {
		out->is_static = true;
		return dw_module_static_tls_offset(m->dw, &out->value);
	}
	if (t->pid <= 0 || !main_mod || !module_bias(t, m, &q.l_addr) ||
	    !module_bias(t, main_mod, &main_bias) || !dw_module_dynamic_vaddr(main_mod->dw)) {
		*why = "a library's thread-local variables are found through the dynamic linker "
		       "of one process";
		return -ESRCH;
	}
	q.dynamic = main_bias + dw_module_dynamic_vaddr(main_mod->dw);
	q.filesz = seg.filesz;
	q.memsz = seg.memsz;
	q.align = seg.align;
	err = proc_tls_module(t->pid, &q, &lm, why);
	if (err)
		return err;
	out->is_static = lm.offset > 0;
	out->value = out->is_static ? (uint64_t)lm.offset : lm.modid;
	return 0;
}

int target_find_var(struct target *t, struct tmodule *m, const struct dw_at *at, const char *name,
		    struct dw_var *out)
{
	struct tmodule *main_mod = target_main_module(t), *def = NULL, *bound;
	int err = dw_var_find_at(m->dw, at, name, out);

	if (err == 0)
		def = m;
	else if (err != -ENOENT)
		return err;
	/* a global declared here (an extern in a header) and defined in a
	 * library, or in the program for a probe in a library */
	if (!def && main_mod && main_mod != m && dw_var_find_global(main_mod->dw, name, out) == 0)
		def = main_mod;
	for (size_t i = 0; !def && i < t->n_mods; i++) {
		if (t->mods[i] != m && t->mods[i] != main_mod &&
		    dw_var_find_global(t->mods[i]->dw, name, out) == 0)
			def = t->mods[i];
	}
	if (!def)
		return -ENOENT;
	bound = bind_global(t, def, m, out);
	if (bound != m)
		relocate_global(t, bound, m, out);
	return 0;
}

/* ---- data symbols ---- */

static struct tprocess *find_process(struct target *t, pid_t pid)
{
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i]->pid == pid)
			return t->procs[i];
	return NULL;
}

/* A module's segments all move by its load bias, so the module an address
 * is in is the one whose biased range holds it. */
void target_data_symbol(struct target *t, pid_t pid, uint64_t addr, struct strbuf *out)
{
	struct tprocess *p = find_process(t, pid);
	struct tmodule *last = NULL;
	size_t len = out->len;

	for (size_t i = 0; p && i < p->n_maps; i++) {
		const struct tmapping *mp = &p->maps[i];
		uint64_t lo, hi;

		if (mp->mod == last)
			continue;
		last = mp->mod;
		dw_module_range(mp->mod->dw, &lo, &hi);
		if (addr < lo + mp->bias || addr >= hi + mp->bias)
			continue;
		strbuf_addstr(out, " <");
		if (dw_module_symbol_at(mp->mod->dw, addr - mp->bias, out)) {
			strbuf_addch(out, '>');
		} else {
			out->len = len;
			out->buf[len] = '\0';
		}
		return;
	}
}

long target_read_const(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct tprocess *p = find_process(t, pid);

	for (size_t i = 0; p && i < p->n_maps; i++) {
		const struct tmapping *mp = &p->maps[i];
		uint64_t lo, hi;

		/* the maps kept are the code's: the module's bias places the rest */
		dw_module_range(mp->mod->dw, &lo, &hi);
		if (addr >= lo + mp->bias && addr < hi + mp->bias)
			return dw_module_read_const(mp->mod->dw, addr - mp->bias, buf, len);
	}
	return -1;
}

/* What a module's debug info and unwind rows mean for probes and frames. */
static void module_meaning(struct tmodule *m, struct strbuf *out)
{
	bool dwarf = dw_module_has_dwarf(m->dw);

	strbuf_addf(out, "      probes: %s; frames: %s\n",
		    dwarf ? "functions, FILE:LINE and variables" :
		    "functions by symbol only (no FILE:LINE, no variables)",
		    dwarf ? "names, parameters and FILE:LINE" : "symbol names only");
	if (m->cfi_deferred)
		strbuf_addstr(out, "      start-up: deferred (big): its unwind rows go into the kernel "
			      "once read; walks reaching it are finished by wraith meanwhile\n");
	if (!m->cfi_loaded)
		return;
	if (m->cfi.n)
		strbuf_addf(out, "      backtraces: unwound through it (%zu unwind rows from %s)\n",
			    m->cfi.n, m->cfi.source);
	else
		strbuf_addstr(out, "      backtraces: stop in it (no unwind rows: no .eh_frame or "
			      ".debug_frame)\n");
}

void target_dump_modules(struct target *t, struct strbuf *out, bool report)
{
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmodule *m = t->mods[i];
		const char *id = dw_module_build_id(m->dw);

		if (report)
			target_load_module_cfi(t, m);
		strbuf_addf(out, "  [%u] %s%s%s\n      debug info: %s", m->slot + 1, m->path,
			    m == t->scope ? " (-t)" : "",
			    m->deleted ? " (deleted on disk: read through the mapping)" :
			    m->unmapped ? " (not loaded yet)" : "",
			    dw_module_debug_source(m->dw));
		if (*id)
			strbuf_addf(out, "; build-id %s", id);
		strbuf_addch(out, '\n');
		module_meaning(m, out);
	}
}
