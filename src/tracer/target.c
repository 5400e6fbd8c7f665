/* target.c - a target opened (-p PID, -t PATH) and freed, and its
 * registry of modules: one per file (dev, inode), shared by every
 * process, found by identity, by cookie, as the main module, and listed
 * for `info modules` (see target.h).
 *
 * The rest of the target lives apart: its processes and their mappings
 * (target_procs.c), the kernel's copy of modules and mappings
 * (target_install.c), which modules' unwind rows are read when
 * (target_cfi.c), the program's data across modules (target_data.c),
 * frames named and handed-over walks finished (target_frames.c), the
 * module a name means (target_names.c) and libraries not loaded yet
 * (target_libs.c).
 */
#include "tracer/target_priv.h"
#include "proc/stable.h"
#include "dwarf/debugfile.h"
#include "dwarf/module.h"
#include "dwarf/vars.h"
#include "proc/libpath.h"
#include "proc/maps.h"
#include "runtime/runtime.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- modules ---- */

static void tmodule_free(struct tmodule *m)
{
	if (!m)
		return;
	dw_module_free(m->dw);
	runtime_cfi_maps_close(m->cfi->fds);
	cfi_table_release(&m->cfi->rows);
	cfi_rules_release(&m->cfi->rules);
	free(m->cfi);
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
	m->cfi = xcalloc(1, sizeof(*m->cfi));
	m->cfi->fds[0] = m->cfi->fds[1] = -1;
	cfi_rules_init(&m->cfi->rules);
	cfi_table_init(&m->cfi->rows);
	err = dw_module_open_as(m->open_path, m->path, &m->dw);
	if (err) {
		wr_debug("cannot open module %s: %s", path, wr_strerror(err));
		tmodule_free(m);
		return err;
	}
	dw_module_set_type_resolver(m->dw, target_resolve_type, t);
	dw_module_set_caller_modules(m->dw, target_caller_modules, t);
	t->mods = xgrow(t->mods, &t->cap_mods, t->n_mods + 1, sizeof(*t->mods));
	t->mods[t->n_mods++] = m;
	*out = m;
	return 0;
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
		err = target_read_maps(pid, &text);
		if (err)
			wr_error("cannot read the mappings of PID %d: %s", (int)pid, wr_strerror(err));
	}
	if (!err)
		err = target_add_process(t, pid, text);
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
	if (dw_module_is_program(m->dw))
		target_add_needed(t);
	target_scan_processes(t);
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
	proc_stable_cache_free(t->stable);
	free(t);
}

/* ---- what a target is ---- */

pid_t target_pid(const struct target *t)
{
	return t->pid;
}

pid_t target_tid(const struct target *t)
{
	return t->tid;
}

const char *target_path(const struct target *t)
{
	return t->path;
}

struct tmodule *target_scope(const struct target *t)
{
	return t->scope;
}

bool target_has_members(const struct target *t)
{
	return t->path && t->pid <= 0 && t->n_mods;
}

bool target_site_filtered(const struct target *t, const struct tmodule *m)
{
	return target_has_members(t) && m != t->mods[0];
}

size_t target_module_count(const struct target *t)
{
	return t->n_mods;
}

struct tmodule *target_module(const struct target *t, size_t i)
{
	return t->mods[i];
}

size_t target_process_count(const struct target *t)
{
	return t->n_procs;
}

const char *target_ended(const struct target *t)
{
	return t->ended;
}

void target_set_progress(struct target *t, void (*fn)(void *ctx, const char *text), void *ctx)
{
	t->progress = fn;
	t->progress_ctx = fn ? ctx : NULL;
}

void target_progress(struct target *t, const char *text)
{
	if (t->progress)
		t->progress(t->progress_ctx, text);
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

size_t target_modules_in_order(struct target *t, bool probed, struct tmodule **order)
{
	struct tmodule *main_mod = target_main_module(t);
	size_t n = 0;

	if (main_mod)
		order[n++] = main_mod;
	for (size_t i = 0; i < t->n_mods && !(probed && t->scope); i++)
		if (t->mods[i] != main_mod && !(probed && t->mods[i]->special))
			order[n++] = t->mods[i];
	return n;
}

struct tmodule *target_module_by_cookie(struct target *t, uint64_t cookie)
{
	if (cookie == 0 || cookie > t->n_mods)
		return NULL;
	return t->mods[cookie - 1];
}

struct tmodule *target_module_of(struct target *t, const struct dw_module *dw)
{
	for (size_t i = 0; i < t->n_mods; i++)
		if (t->mods[i]->dw == dw)
			return t->mods[i];
	return NULL;
}

bool target_module_bias(struct target *t, pid_t pid, const struct tmodule *m, uint64_t *bias)
{
	struct tprocess *p = target_process(t, pid);

	for (size_t i = 0; p && i < p->n_maps; i++)
		if (p->maps[i].mod == m) {
			*bias = p->maps[i].bias;
			return true;
		}
	return false;
}

/* What a module's debug info and unwind rows mean for probes and frames. */
static void module_meaning(struct tmodule *m, struct strbuf *out)
{
	bool dwarf = dw_module_has_dwarf(m->dw);

	strbuf_addf(out, "      probes: %s; frames: %s\n",
		    dwarf ? "functions, FILE:LINE and variables" :
		    "functions by symbol only (no FILE:LINE, no variables)",
		    dwarf ? "names, parameters and FILE:LINE" : "symbol names only");
	if (m->cfi->deferred)
		strbuf_addstr(out, "      start-up: deferred (big): its unwind rows go into the kernel "
			      "once read; walks reaching it are finished by wraith meanwhile\n");
	if (!m->cfi->loaded)
		return;
	if (m->cfi->rows.n)
		strbuf_addf(out, "      backtraces: unwound through it (%zu unwind rows from %s)\n",
			    m->cfi->rows.n, m->cfi->rows.source);
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
