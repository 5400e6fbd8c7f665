/* libpath.c - libraries by short name (see libpath.h).
 *
 * The dynamic linker's cache is read directly (its "glibc-ld.so.cache1.1"
 * layout: a 48-byte header, then 24-byte entries whose key and value are
 * offsets of the soname and the path from the start of the file), so no
 * ldconfig is run.  When the cache is missing or in another layout, the
 * standard directories are searched instead.
 */
#include "proc/libpath.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CACHE_MAGIC "glibc-ld.so.cache1.1"
#define CACHE_HEADER 48
#define CACHE_ENTRY 24
#define CACHE_X86_64 0x0300u   /* the entry's flags: an x86-64 library */
#define CACHE_ARCH_MASK 0xff00u

static int rank_one(const char *base, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(base, name, n) != 0)
		return 0;
	if (!base[n])
		return 3;
	if (!strncmp(base + n, ".so", 3) && (!base[n + 3] || base[n + 3] == '.'))
		return 2;
	if (base[n] == '-' && strstr(base + n, ".so"))
		return 1;
	return 0;
}

int lib_name_rank(const char *base, const char *name)
{
	int r = rank_one(base, name);
	char *with_lib;

	if (r || !strncmp(name, "lib", 3))
		return r;
	with_lib = xasprintf("lib%s", name);
	r = rank_one(base, with_lib);
	free(with_lib);
	return r;
}

struct matches {
	const char *name;
	char **paths;       /* owned: real paths, without duplicates */
	size_t n, cap;
	int rank;           /* of every path kept */
};

static void matches_release(struct matches *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->paths[i]);
	free(m->paths);
}

/* Keep @path when it matches as well as the best so far. */
static void consider(struct matches *m, const char *path)
{
	const char *slash = strrchr(path, '/');
	int r = lib_name_rank(slash ? slash + 1 : path, m->name);
	char *real;

	if (!r || r < m->rank)
		return;
	real = realpath(path, NULL);
	if (!real)
		return;
	if (r > m->rank) {
		for (size_t i = 0; i < m->n; i++)
			free(m->paths[i]);
		m->n = 0;
		m->rank = r;
	}
	for (size_t i = 0; i < m->n; i++) {
		if (!strcmp(m->paths[i], real)) {
			free(real);
			return;
		}
	}
	m->paths = xgrow(m->paths, &m->cap, m->n + 1, sizeof(*m->paths));
	m->paths[m->n++] = real;
}

static uint32_t get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Returns false when the cache cannot be read in the layout we know. */
static bool search_cache(struct matches *m)
{
	char *text = NULL;
	size_t size = 0;
	uint32_t nlibs;

	if (file_read("/etc/ld.so.cache", &text, &size) || size < CACHE_HEADER ||
	    memcmp(text, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0) {
		free(text);
		return false;
	}
	nlibs = get32(text + 20);
	for (uint32_t i = 0; i < nlibs && CACHE_HEADER + (size_t)(i + 1) * CACHE_ENTRY <= size; i++) {
		const char *e = text + CACHE_HEADER + (size_t)i * CACHE_ENTRY;
		uint32_t flags = get32(e), value = get32(e + 8);

		if ((flags & CACHE_ARCH_MASK) == CACHE_X86_64 && value < size &&
		    memchr(text + value, '\0', size - value))
			consider(m, text + value);
	}
	free(text);
	return true;
}

static bool is_elf(const char *path)
{
	char magic[4] = { 0 };
	FILE *f = fopen(path, "rb");
	bool elf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);

	if (f)
		fclose(f);
	return elf;
}

/* Only ELF files: libc.so beside libc.so.6 is a linker script. */
static void search_dirs(struct matches *m)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/usr/local/lib", "/lib", "/usr/lib", NULL,
	};

	for (size_t i = 0; dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char *path = xasprintf("%s/%s", dirs[i], de->d_name);
			struct stat st;

			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && is_elf(path))
				consider(m, path);
			free(path);
		}
		if (d)
			closedir(d);
	}
}

int lib_find(const char *name, char **out, struct strbuf *candidates)
{
	struct matches m = { .name = name };
	int err = 0;

	*out = NULL;
	if (!search_cache(&m) || !m.n)
		search_dirs(&m);
	if (!m.n)
		err = -ENOENT;
	else if (m.n > 1)
		err = -EEXIST;
	else
		*out = xstrdup(m.paths[0]);
	for (size_t i = 0; err == -EEXIST && candidates && i < m.n; i++)
		strbuf_addf(candidates, "%s\n", m.paths[i]);
	matches_release(&m);
	return err;
}

/* The cache's path for @soname, or NULL. */
static char *cache_soname(const char *soname)
{
	char *text = NULL, *found = NULL;
	size_t size = 0;
	uint32_t nlibs;

	if (file_read("/etc/ld.so.cache", &text, &size) || size < CACHE_HEADER ||
	    memcmp(text, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0) {
		free(text);
		return NULL;
	}
	nlibs = get32(text + 20);
	for (uint32_t i = 0; i < nlibs && !found && CACHE_HEADER + (size_t)(i + 1) * CACHE_ENTRY <= size;
	     i++) {
		const char *e = text + CACHE_HEADER + (size_t)i * CACHE_ENTRY;
		uint32_t flags = get32(e), key = get32(e + 4), value = get32(e + 8);

		if ((flags & CACHE_ARCH_MASK) == CACHE_X86_64 && key < size && value < size &&
		    memchr(text + key, '\0', size - key) && memchr(text + value, '\0', size - value) &&
		    strcmp(text + key, soname) == 0)
			found = xstrdup(text + value);
	}
	free(text);
	return found;
}

int lib_find_soname(const char *soname, char **out)
{
	/* x86-64's trusted directories, as Debian's dynamic linker has them */
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
		"/usr/lib", NULL,
	};

	*out = cache_soname(soname);
	for (size_t i = 0; !*out && dirs[i]; i++) {
		char *path = xasprintf("%s/%s", dirs[i], soname);
		struct stat st;

		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && is_elf(path))
			*out = path;
		else
			free(path);
	}
	return *out ? 0 : -ENOENT;
}
