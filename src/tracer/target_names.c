/* target_names.c - the module a name means (target_find_module()).
 *
 * Users name modules in probe patterns (`trace libc.so.6:0x1234`), with
 * -t and in casts ("libfoo.so:struct node *") by whatever they have at
 * hand: the path the process maps, a tail of it, a library's short name,
 * or another name of the same file - a symlink such as libfoo.so ->
 * libfoo.so.1.2, or the very path they gave to -t.  Paths compare as text
 * first (cheap and what nearly every name is); only a name no path
 * matches is looked up on disk, and then a file is its device and inode.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "proc/libpath.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool path_suffix_match(const char *path, const char *name)
{
	size_t lp = strlen(path), ln = strlen(name);

	if (ln > lp || strcmp(path + lp - ln, name) != 0)
		return false;
	return ln == lp || path[lp - ln - 1] == '/' || name[0] == '/';
}

/* A library by short name (libc): the best-ranked match, if unique. */
static struct tmodule *by_short_name(struct target *t, const char *name, bool *ambiguous)
{
	struct tmodule *found = NULL;
	int best = 0;

	for (size_t i = 0; i < t->n_mods; i++) {
		int r = lib_name_rank(dw_module_name(t->mods[i]->dw), name);

		if (!r || r < best)
			continue;
		*ambiguous = r == best;
		best = r;
		found = t->mods[i];
	}
	return *ambiguous ? NULL : found;
}

/* The module of the file @path names (following symlinks), or NULL. */
static struct tmodule *by_stat(struct target *t, const char *path)
{
	struct stat st;
	struct tmodule *m;

	if (stat(path, &st) != 0)
		return NULL;
	m = target_module_by_identity(t, st.st_dev, st.st_ino);
	return m && !m->special ? m : NULL;
}

/* @name in the directory of @m's file, when it is the same file as @m. */
static bool alias_beside(struct target *t, struct tmodule *m, const char *name)
{
	const char *slash = strrchr(m->open_path, '/');
	char *path;
	bool same;

	if (!slash || m->special)
		return false;
	path = xasprintf("%.*s/%s", (int)(slash - m->open_path), m->open_path, name);
	same = by_stat(t, path) == m;
	free(path);
	return same;
}

/* A module by another name of its file: a symlink or hard link to it
 * (device and inode), named by a path, by a name in the working
 * directory or beside the module, or by the tail of the path -t was
 * given as (`-t /opt/libx_alias.so`, then `trace libx_alias.so:0x10`). */
static struct tmodule *by_file(struct target *t, const char *name, bool *ambiguous)
{
	struct tmodule *found = NULL;

	if (t->given && path_suffix_match(t->given, name) && (found = by_stat(t, t->given)))
		return found;
	if ((found = by_stat(t, name)) || strchr(name, '/'))
		return found;
	for (size_t i = 0; i < t->n_mods; i++) {
		if (!alias_beside(t, t->mods[i], name))
			continue;
		if (found)
			*ambiguous = true;
		found = t->mods[i];
	}
	return *ambiguous ? NULL : found;
}

struct tmodule *target_find_module(struct target *t, const char *name, bool *ambiguous)
{
	struct tmodule *found = NULL;

	*ambiguous = false;
	if (!name)
		return target_main_module(t);
	for (size_t i = 0; i < t->n_mods; i++) {
		if (strcmp(t->mods[i]->path, name) == 0 && !t->mods[i]->special)
			return t->mods[i];
	}
	for (size_t i = 0; i < t->n_mods; i++) {
		if (t->mods[i]->special || !path_suffix_match(t->mods[i]->path, name))
			continue;
		if (found)
			*ambiguous = true;
		found = t->mods[i];
	}
	if (found || *ambiguous)
		return *ambiguous ? NULL : found;
	found = by_file(t, name, ambiguous);
	if (found || *ambiguous || strchr(name, '/'))
		return found;
	return by_short_name(t, name, ambiguous);
}
