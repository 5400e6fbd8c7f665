/* idmap.h - the map from a 64-bit key (an id, a DIE offset, a pc, an
 * address) to a non-zero 64-bit value (an index + 1, an id, a pointer),
 * for the tables that number what they have seen and the caches keyed by
 * a number.  (Keys that are bytes go in util/htab.h.)
 *
 * Layer rule: util/ depends on nothing else in wraith.
 *
 * Open addressing with linear probing, a power-of-two capacity, at most
 * half full; no removal.  Any key, 0 included; 0 is not a value: a slot
 * whose val is 0 is empty.  Values are the caller's: the map never frees
 * what they point to (an owner walks slots[0..cap) for the non-zero ones
 * before idmap_release()).  Zeroed is empty.
 */
#ifndef WRAITH_UTIL_IDMAP_H
#define WRAITH_UTIL_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap_slot {
	uint64_t key;
	uint64_t val; /* 0: empty */
};

struct idmap {
	struct idmap_slot *slots; /* owned */
	size_t cap;               /* power of two, or 0 */
	size_t n;
};

/* The value of @key, or 0 when absent. */
uint64_t idmap_get(const struct idmap *m, uint64_t key);

/* Map @key to @val (non-zero) unless @key is present, whose value then
 * stays; returns the value @key has now. */
uint64_t idmap_put(struct idmap *m, uint64_t key, uint64_t val);

/* Frees the slots, not what values point to; @m is left empty. */
void idmap_release(struct idmap *m);

/* The same for values that are pointers (borrowed; NULL: absent). */
static inline void *idmap_get_ptr(const struct idmap *m, uint64_t key)
{
	return (void *)(uintptr_t)idmap_get(m, key);
}

static inline void idmap_put_ptr(struct idmap *m, uint64_t key, const void *val)
{
	idmap_put(m, key, (uint64_t)(uintptr_t)val);
}

#endif
