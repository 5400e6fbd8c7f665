/* htab.h - the hash table: byte-string keys to a 32-bit value.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 *
 * One table serves every index keyed by bytes: function names in the
 * resolver, interned strings in the symbolizer, unwind rules by their
 * bytes in the CFI extractor.  (Caches keyed by a DIE offset or a pc use
 * util/idmap.h, whose integer keys need no bytes kept anywhere.)
 *
 * Rules: keys are borrowed, so their bytes must stay where they are,
 * unchanged, while they are in the table.  Open addressing with linear
 * probing, a power-of-two capacity, at most three quarters full, no
 * removal.  A zeroed table is empty.
 */
#ifndef WRAITH_UTIL_HTAB_H
#define WRAITH_UTIL_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab_slot {
	const void *key;  /* NULL: empty */
	size_t len;
	uint32_t hash;
	uint32_t val;     /* the caller's */
};

struct htab {
	struct htab_slot *slots; /* owned */
	size_t cap;              /* power of two, or 0 */
	size_t n;
};

/* The slot of the key @key[0..@len): the one holding it, or with @insert
 * a new one, else NULL.  A new slot has key NULL: the caller sets key to
 * bytes equal to @key that live as long as the entry, and val.  The slot
 * is valid until the next insertion. */
struct htab_slot *htab_get(struct htab *t, const void *key, size_t len, bool insert);

/* Frees the slots, not the keys; @t is left empty. */
void htab_release(struct htab *t);

#endif
