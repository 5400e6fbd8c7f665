/* globalnames.c - the names of a module's global variables, kept on disk
 * by the identity of the file its DWARF comes from.
 *
 * A name no scope of a probe's site declares is looked up as a global in
 * every module of the process, in gdb's order (tracer/target_data.c), and
 * vars.c's index of a module's globals walks every unit of its DWARF.
 * Opening that DWARF is the expensive part for a system library: libdw
 * decompresses every compressed debug section of the file (libc's, libm's
 * and ld.so's separate debug files on Debian: 13 MB) before it can be
 * walked, about 50 ms of CPU for a probe whose name is no global at all.
 *
 * So once a module's globals are indexed, the sorted list of their names
 * is stored in a disk cache (util/diskcache.h, the directory of the probe
 * cache), under a key of everything that decides it: the format, this
 * wraith's build-id, the module's build-id, and the path, device, inode,
 * size and modification time of the file holding the DWARF (the separate
 * debug file, or the module itself).  A later run that looks a plain name
 * up in that module first asks the list: a name not on it is no global
 * there, the answer the index would give, and the DWARF is not opened.  A
 * name on it, a qualified name ("ns::x"), or no list takes the index as
 * before.  A damaged or foreign entry is a miss (diskcache.h), never a
 * wrong list.
 */
#include "config.h"

#include "dwarf/debugfile.h"
#include "dwarf/vars_priv.h"
#include "util/buildid.h"
#include "util/diskcache.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NAMES_FORMAT "wraith global names 1"

/* The names of one module's globals, as the disk cache holds them: a
 * 32-bit count, then that many NUL-ended names in strcmp order. */
struct global_names {
	char *blob;         /* owned */
	const char **names; /* owned array, pointing into blob */
	uint32_t n;
};

static struct {
	pthread_mutex_t lock;
	bool tried, stored;
	struct disk_cache *disk;
} store = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The disk cache in dw_debug_index_dir(), opened on first use; NULL when
 * there is none or it cannot be used (said once, at debug level). */
static struct disk_cache *names_cache(void)
{
	struct strbuf why = STRBUF_INIT;
	const char *dir = dw_debug_index_dir();

	if (store.tried || !dir)
		return store.disk;
	store.tried = true;
	if (disk_cache_open(dir, &store.disk, &why))
		wr_debug("global names cache %s: not used: %s", dir, why.buf);
	strbuf_release(&why);
	return store.disk;
}

void dw_global_names_close(void)
{
	pthread_mutex_lock(&store.lock);
	if (store.stored)
		disk_cache_prune(store.disk);
	disk_cache_free(store.disk);
	store.disk = NULL;
	store.tried = store.stored = false;
	pthread_mutex_unlock(&store.lock);
}

/* The key of @m's list into @key: false when @m has nothing to key it by
 * (no build-id, of wraith or of the module, or a file that cannot be
 * stat'ed). */
static bool names_key(struct dw_module *m, struct strbuf *key)
{
	const char *debug = dw_module_debug_path(m), *id = dw_module_build_id(m);
	const unsigned char *self;
	size_t self_len;
	struct stat st;

	if (build_id_self(&self, &self_len) || !id || !*id)
		return false;
	if (debug ? stat(debug, &st) : fstat(m->fd, &st))
		return false;
	strbuf_addf(key, "%s\n", NAMES_FORMAT);
	for (size_t i = 0; i < self_len; i++)
		strbuf_addf(key, "%02x", self[i]);
	strbuf_addf(key, "\n%s\n%s\n%llu %llu %lld %lld.%09ld\n", id, debug ? debug : m->path,
		    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		    (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return true;
}

static void names_free(struct global_names *g)
{
	if (!g)
		return;
	free(g->names);
	free(g->blob);
	free(g);
}

/* The list in @blob[0..@len) (taken), or NULL when it is not one. */
static struct global_names *names_parse(char *blob, size_t len)
{
	struct global_names *g;
	uint32_t n;
	size_t at = sizeof(n);

	if (len < sizeof(n) || (memcpy(&n, blob, sizeof(n)), n > len) ||
	    (len > sizeof(n) && blob[len - 1] != '\0')) {
		free(blob);
		return NULL;
	}
	g = xcalloc(1, sizeof(*g));
	g->blob = blob;
	g->names = xcalloc(n ? n : 1, sizeof(*g->names));
	for (; g->n < n && at < len; g->n++) {
		g->names[g->n] = blob + at;
		at += strlen(blob + at) + 1;
	}
	for (uint32_t i = 1; g->n == n && i < n; i++)
		if (strcmp(g->names[i - 1], g->names[i]) >= 0)
			g->n = 0; /* not in order: not a list this file wrote */
	if (g->n != n || at != len) {
		names_free(g);
		return NULL;
	}
	return g;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Read the list stored for @c's module, once: c->names, or NULL. */
static void names_load(struct vars_cache *c)
{
	struct strbuf key = STRBUF_INIT;
	struct disk_cache *disk;
	void *value;
	size_t len;

	if (c->names_tried)
		return;
	c->names_tried = true;
	pthread_mutex_lock(&store.lock);
	disk = names_cache();
	if (disk && names_key(c->m, &key) && disk_cache_get(disk, key.buf, key.len, &value, &len) == 0)
		c->names = names_parse(value, len);
	pthread_mutex_unlock(&store.lock);
	strbuf_release(&key);
	if (c->names)
		wr_debug("global names of %s: %u, from the cache", dw_module_name(c->m), c->names->n);
}

bool dw_global_names_lack(struct vars_cache *c, const char *name)
{
	if (strchr(name, ':'))
		return false;
	names_load(c);
	return c->names && !bsearch(&name, c->names->names, c->names->n, sizeof(*c->names->names), cmp_name);
}

void dw_global_names_store(struct vars_cache *c)
{
	struct strbuf key = STRBUF_INIT, value = STRBUF_INIT;
	struct disk_cache *disk;
	const char **names;
	struct iovec iov;
	uint32_t n = 0;

	if (!dw_debug_index_dir())
		return;
	names_load(c);
	if (c->names)
		return; /* stored already */
	names = xcalloc(c->n_globals + 1, sizeof(*names));
	for (size_t i = 0; i < c->n_globals; i++)
		names[i] = c->globals[i].name;
	qsort(names, c->n_globals, sizeof(*names), cmp_name);
	strbuf_add(&value, &n, sizeof(n));
	for (size_t i = 0; i < c->n_globals; i++) {
		if (i && !strcmp(names[i - 1], names[i]))
			continue;
		strbuf_add(&value, names[i], strlen(names[i]) + 1);
		n++;
	}
	memcpy(value.buf, &n, sizeof(n));
	pthread_mutex_lock(&store.lock);
	disk = names_cache();
	if (disk && names_key(c->m, &key)) {
		iov = (struct iovec){ value.buf, value.len };
		if (disk_cache_put(disk, key.buf, key.len, &iov, 1) == 0)
			store.stored = true;
	}
	pthread_mutex_unlock(&store.lock);
	free(names);
	strbuf_release(&key);
	strbuf_release(&value);
}

void dw_global_names_release(struct vars_cache *c)
{
	names_free(c->names);
	c->names = NULL;
	c->names_tried = false;
}
