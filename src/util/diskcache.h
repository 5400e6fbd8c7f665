/* diskcache.h - a directory of values kept between runs, each found by a
 * key compared in full: what codegen/probe_cache.h keeps compiled probes
 * in, and runtime/ the kernel BTF cut for the base object.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 *
 * An entry is one file, "<16 hex digits>.wpc" (a hash of its key): a
 * header (magic, format version, the key's and the value's lengths, a
 * 64-bit hash of both), the key and the value.  A lookup compares the key
 * byte for byte and checks the hash, so a hash collision, a truncated or
 * a damaged file is a miss, never another key's value or a damaged one.  Callers put everything that decides the value in the key
 * (the build-id of wraith, of the kernel, ...).
 *
 * Safety (wraith runs as root): the directory is created 0700 and used
 * only if it belongs to the effective user and neither group nor others
 * may write to it; every file is opened relative to it with O_NOFOLLOW
 * and must be a regular file of that user; entries are written to a
 * temporary file and renamed into place, so concurrent runs see a whole
 * entry or none.  Bounded by disk_cache_prune(), which the owner of the
 * directory calls when a run stored entries (codegen/probe_cache.c, as
 * wraith exits).
 */
#ifndef WRAITH_UTIL_DISKCACHE_H
#define WRAITH_UTIL_DISKCACHE_H

#include <stddef.h>
#include <sys/uio.h>

struct strbuf;

#define DISK_CACHE_MAX_BYTES (32u << 20)
#define DISK_CACHE_MAX_FILES 1024u

struct disk_cache;

/* Open the cache in @dir (an absolute path; created, with its missing
 * parents, mode 0700).  Returns 0 with *@out (caller frees with
 * disk_cache_free()), or a negative code with one sentence in @why saying
 * why the directory cannot be used (an unsafe one: -WR_EUNSAFE). */
int disk_cache_open(const char *dir, struct disk_cache **out, struct strbuf *why);

/* Close the cache.  NULL is a no-op. */
void disk_cache_free(struct disk_cache *c);

/* Remove the least recently used entries (a hit touches its file's
 * mtime) until at most DISK_CACHE_MAX_FILES entries of at most
 * DISK_CACHE_MAX_BYTES remain, and temporary files no writer will finish. */
void disk_cache_prune(struct disk_cache *c);

/* The value stored under @key[0..@key_len): 0 with *@value (caller frees)
 * and *@len, or -ENOENT (none, or a damaged file). */
int disk_cache_get(struct disk_cache *c, const void *key, size_t key_len, void **value,
		   size_t *len);

/* Store the value made of @n pieces @iov under @key, replacing any entry
 * there.  Returns 0 or -errno (nothing stored).  @iov is left as given. */
int disk_cache_put(struct disk_cache *c, const void *key, size_t key_len, const struct iovec *iov,
		   int n);

/* The file name of @key's entry in the directory (for tests): a NUL-
 * terminated string in @buf, which holds at least 32 bytes. */
void disk_cache_file_name(const void *key, size_t key_len, char *buf);

#endif
