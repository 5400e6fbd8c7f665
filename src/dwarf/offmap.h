/* offmap.h - a map from a 64-bit key (a DIE offset, a pc) to a pointer,
 * for the per-module caches of src/dwarf.
 *
 * Layer rule: private to src/dwarf; included only by its files.  It needs
 * util/ only.
 *
 * Shared by symbolize.c (results by pc, names by DIE, unit indexes by DIE)
 * and vars.c (types by DIE offset), which each carried the same table.
 * Open addressing with linear probing, power-of-two capacity, at most half
 * full; there is no removal.  NULL is not a value: a slot whose val is
 * NULL is empty.  Values are borrowed: the map never frees them (an owner
 * walks slots[0..cap) for the non-NULL ones before offmap_release()).
 */
#ifndef WRAITH_DWARF_OFFMAP_H
#define WRAITH_DWARF_OFFMAP_H

#include <stddef.h>
#include <stdint.h>

struct offmap_slot {
	uint64_t key;
	void *val; /* NULL: empty */
};

/* Zeroed is empty. */
struct offmap {
	struct offmap_slot *slots; /* owned */
	size_t cap;                /* power of two, or 0 */
	size_t n;
};

/* The value of @key, or NULL when absent.  Borrowed. */
void *offmap_get(const struct offmap *m, uint64_t key);

/* Map @key to @val, which must not be NULL.  When @key is present already
 * its first value stays and @val is dropped. */
void offmap_put(struct offmap *m, uint64_t key, void *val);

/* Frees the slots, not the values; @m is left empty. */
void offmap_release(struct offmap *m);

#endif
