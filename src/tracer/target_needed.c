/* target_needed.c - -t PROGRAM: the libraries the program loads at start,
 * found before any process runs it.  A uprobe belongs to a file, so a
 * probe on a function of one of them goes on that file now and fires from
 * the first call of a process started later (its hits filtered to the
 * program's processes, target_site_filtered()).
 *
 * The libraries are the closure of DT_NEEDED, looked for as the dynamic
 * linker looks: a name with '/' is a path; else the needing object's
 * DT_RPATH, then the program's (both only when the object has no
 * DT_RUNPATH), then its DT_RUNPATH, each with $ORIGIN as the object's
 * directory; then /etc/ld.so.cache and the default directories
 * (proc/libpath.h).  LD_LIBRARY_PATH is not known before a process runs,
 * so it is not used; neither is a directory naming another token ($LIB,
 * $PLATFORM).  A file of another class there is passed over, as ld.so
 * does.  Each library found is a module of the target, not loaded yet
 * until a process maps it.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "proc/libpath.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The dynamic linker's own limit is far above what programs need; this
 * keeps a broken closure from running away. */
#define MAX_NEEDED 512

struct needer {
	struct tmodule *mod;
	char *origin;                 /* owned: the directory it was found in */
	struct dw_dynamic_deps deps;
};

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	return xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* @len bytes of a search list's entry with $ORIGIN expanded, or NULL when
 * it is empty or names another token. */
static char *expand_dir(const char *dir, size_t len, const char *origin)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < len; i++) {
		if (dir[i] != '$') {
			strbuf_addch(&sb, dir[i]);
		} else if (len - i >= 7 && strncmp(dir + i, "$ORIGIN", 7) == 0) {
			strbuf_addstr(&sb, origin);
			i += 6;
		} else if (len - i >= 9 && strncmp(dir + i, "${ORIGIN}", 9) == 0) {
			strbuf_addstr(&sb, origin);
			i += 8;
		} else {
			strbuf_release(&sb);
			return NULL;
		}
	}
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* The library at @path as a module of @t (*@out; known already, or new
 * and not loaded yet).  False when no library of ours is there. */
static bool take_path(struct target *t, const char *path, struct tmodule **out)
{
	struct stat st;
	char *real;
	int err;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	*out = target_module_by_identity(t, st.st_dev, st.st_ino);
	if (*out)
		return true;
	real = realpath(path, NULL);
	err = target_add_module(t, real ? real : path, xstrdup(real ? real : path), st.st_dev,
				st.st_ino, out);
	free(real);
	if (err)
		return false; /* another class or no ELF: the search goes on */
	(*out)->unmapped = true;
	return true;
}

/* @name in the directories of the search list @list; its directory in
 * *@dir (caller frees) when found. */
static struct tmodule *search_list(struct target *t, const char *list, const char *origin,
				   const char *name, char **dir)
{
	struct tmodule *m = NULL;

	for (const char *p = list; p && *p && !m; p += *p == ':') {
		size_t n = strcspn(p, ":");
		char *d = expand_dir(p, n, origin), *path;

		p += n;
		if (!d)
			continue;
		path = xasprintf("%s/%s", d, name);
		if (take_path(t, path, &m))
			*dir = d;
		else
			free(d);
		free(path);
	}
	return m;
}

/* The library @name that @obj needs (@exe: the program), found as the
 * dynamic linker finds it; its directory in *@dir (caller frees). */
static struct tmodule *find_needed(struct target *t, const struct needer *obj,
				   const struct needer *exe, const char *name, char **dir)
{
	struct tmodule *m = NULL;
	char *path = NULL;

	*dir = NULL;
	if (strchr(name, '/')) {
		*dir = dir_of(name);
		return take_path(t, name, &m) ? m : NULL;
	}
	if (!obj->deps.runpath) {
		m = search_list(t, obj->deps.rpath, obj->origin, name, dir);
		if (!m && obj != exe && !exe->deps.runpath)
			m = search_list(t, exe->deps.rpath, exe->origin, name, dir);
	} else {
		m = search_list(t, obj->deps.runpath, obj->origin, name, dir);
	}
	if (!m && lib_find_soname(name, &path) == 0 && take_path(t, path, &m))
		*dir = dir_of(path);
	free(path);
	return m;
}

static bool seen(const struct needer *v, size_t n, const struct tmodule *m)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].mod == m)
			return true;
	return false;
}

void target_add_needed(struct target *t)
{
	struct needer *v = xcalloc(MAX_NEEDED, sizeof(*v));
	size_t n = 1;

	v[0].mod = t->mods[0];
	v[0].origin = dir_of(t->path);
	/* breadth first, as the dynamic linker loads them */
	for (size_t i = 0; i < n; i++) {
		dw_module_dynamic_deps(v[i].mod->dw, &v[i].deps);
		for (size_t k = 0; k < v[i].deps.n_needed && n < MAX_NEEDED; k++) {
			const char *name = v[i].deps.needed[k];
			char *dir = NULL;
			struct tmodule *m = find_needed(t, &v[i], &v[0], name, &dir);

			if (!m)
				wr_debug("%s needs %s, which is not found where the dynamic linker would look "
					 "without LD_LIBRARY_PATH", v[i].mod->path, name);
			if (m && !seen(v, n, m)) {
				v[n].mod = m;
				v[n++].origin = dir;
				dir = NULL;
			}
			free(dir);
		}
	}
	wr_debug("-t %s: %zu librar%s it loads at start", t->path, n - 1, n == 2 ? "y" : "ies");
	for (size_t i = 0; i < n; i++) {
		free(v[i].origin);
		dw_dynamic_deps_release(&v[i].deps);
	}
	free(v);
}
