/* target_libs.c - libraries a process has not loaded yet.
 *
 * A probe on a function no mapped module defines can still be placed: a
 * uprobe belongs to a file, not to a mapping, so once the library that
 * defines the function is found on disk the probe goes on its file now and
 * fires from the very first call after the process maps it, with no window
 * in which wraith would first have to notice the dlopen().  The library is
 * looked for where a program's own libraries and plugins live: the
 * directories of the executable and of every mapped module outside the
 * system library directories, and the process's LD_LIBRARY_PATH.  The
 * system directories are left out: they hold hundreds of libraries, and a
 * program reaches those by name through the dynamic linker's cache, which
 * a `trace` of one of their functions would not guess right anyway.
 */
#include "dwarf/module.h"
#include "dwarf/resolve.h"
#include "tracer/target_priv.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files looked at per directory, at most: a directory of thousands of
 * files is not a plugin directory. */
#define MAX_FILES_PER_DIR 256
#define MAX_DIRS 32

static const char *const system_dirs[] = {
	"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib",
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib/x86_64-linux-gnu",
};

struct dirs {
	char *v[MAX_DIRS];
	size_t n;
};

static void add_dir(struct dirs *d, const char *dir, size_t len)
{
	char *s;

	if (len == 0 || d->n >= MAX_DIRS)
		return;
	s = xstrndup(dir, len);
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (strcmp(s, system_dirs[i]) == 0)
			goto out_free;
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(s, d->v[i]) == 0)
			goto out_free;
	d->v[d->n++] = s;
	return;

out_free:
	free(s);
}

/* The directory of each module the target knows (the vdso has none). */
static void module_dirs(struct target *t, struct dirs *d)
{
	for (size_t i = 0; i < t->n_mods; i++) {
		const char *path = t->mods[i]->path, *slash = strrchr(path, '/');

		if (!t->mods[i]->special && slash && path[0] == '/')
			add_dir(d, path, slash == path ? 1 : (size_t)(slash - path));
	}
}

/* LD_LIBRARY_PATH as the process has it (/proc/PID/environ). */
static void library_path_dirs(pid_t pid, struct dirs *d)
{
	char path[64], *env = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (file_read(path, &env, &len))
		return;
	for (size_t off = 0; off < len; off += strlen(env + off) + 1) {
		const char *v = env + off;

		if (strncmp(v, "LD_LIBRARY_PATH=", 16) != 0)
			continue;
		for (v += 16; *v;) {
			size_t n = strcspn(v, ":");

			add_dir(d, v, n);
			v += n + (v[n] == ':');
		}
	}
	free(env);
}

/* Keep the file @path when it is a library not known yet that defines
 * @function.  Returns 1 when kept. */
static int consider(struct target *t, const char *path, const char *function)
{
	struct dw_module *dw = NULL;
	struct tmodule *m;
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || target_module_by_identity(t, st.st_dev, st.st_ino))
		return 0;
	if (dw_module_open(path, &dw) || !dw_module_is_dyn(dw) || !dw_module_may_define(dw, function)) {
		dw_module_free(dw);
		return 0;
	}
	dw_module_free(dw);
	if (target_add_module(t, path, xstrdup(path), st.st_dev, st.st_ino, &m))
		return 0;
	m->unmapped = true;
	wr_debug("%s defines %s and is not loaded yet", path, function);
	return 1;
}

static size_t search_dir(struct target *t, const char *dir, const char *function)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	size_t seen = 0, kept = 0;

	if (!dd)
		return 0;
	while ((de = readdir(dd)) && seen < MAX_FILES_PER_DIR) {
		char *path;

		if (!strstr(de->d_name, ".so"))
			continue;
		seen++;
		path = xasprintf("%s/%s", dir, de->d_name);
		kept += (size_t)consider(t, path, function);
		free(path);
	}
	closedir(dd);
	return kept;
}

size_t target_find_unloaded(struct target *t, const char *function)
{
	struct dirs d = { 0 };
	size_t kept = 0;

	module_dirs(t, &d);
	if (t->pid > 0)
		library_path_dirs(t->pid, &d);
	for (size_t i = 0; i < d.n; i++) {
		kept += search_dir(t, d.v[i], function);
		free(d.v[i]);
	}
	return kept;
}
