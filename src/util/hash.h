/* hash.h - FNV-1a, 64 bits: the one hash of bytes wraith keeps on disk
 * (the disk cache's file names and checks, the BTF cache's key).  It is
 * stable across builds and runs, so a name it made once is found again.
 * (The in-memory tables mix their keys their own way: util/htab.c,
 * util/idmap.c.)
 *
 * Layer rule: util/ depends on nothing else in wraith.
 */
#ifndef WRAITH_UTIL_HASH_H
#define WRAITH_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Where a hash starts. */
#define FNV1A_BASIS 0xcbf29ce484222325ull

/* @h, the hash so far (FNV1A_BASIS to start), extended by the @len bytes
 * at @p. */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#endif
