/* idmap.h - a map from a non-zero 64-bit key to a non-zero 64-bit value
 * (an id, an index + 1), for tables that number what they have seen.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 * Open addressing with linear probing, power-of-two capacity, at most half
 * full; no removal.  Zeroed is empty; idmap_release() frees it.
 */
#ifndef WRAITH_UTIL_IDMAP_H
#define WRAITH_UTIL_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
	uint64_t *keys; /* owned; 0 = empty slot */
	uint64_t *vals; /* owned */
	size_t cap, n;
};

/* The value of @key (non-zero), or 0 when absent. */
uint64_t idmap_get(const struct idmap *m, uint64_t key);
/* Map @key (non-zero) to @val (non-zero) unless present; returns the
 * value @key has now. */
uint64_t idmap_put(struct idmap *m, uint64_t key, uint64_t val);
void idmap_release(struct idmap *m);

#endif
