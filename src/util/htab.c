/* htab.c - the byte-keyed hash table (see htab.h).
 *
 * The hash mixes eight bytes at a time (unwind rules are interned once per
 * row, millions for a big library, so this is a hot path); it is kept in
 * the slot, so probing compares bytes only when hash and length match, and
 * growing never hashes a key again.
 */
#include "util/htab.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash_bytes(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 31;
	}
	for (; len; p++, len--)
		h = (h ^ *p) * 0x100000001b3ull;
	h ^= h >> 33;
	return (uint32_t)(h ^ h >> 29);
}

static struct htab_slot *probe(const struct htab *t, const void *key, size_t len, uint32_t h)
{
	size_t i = h & (t->cap - 1);

	while (t->slots[i].key && (t->slots[i].hash != h || t->slots[i].len != len ||
				   memcmp(t->slots[i].key, key, len) != 0))
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static void grow(struct htab *t)
{
	struct htab bigger = { .cap = t->cap ? t->cap * 2 : 64 };

	bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].key)
			*probe(&bigger, t->slots[i].key, t->slots[i].len, t->slots[i].hash) = t->slots[i];
	bigger.n = t->n;
	free(t->slots);
	*t = bigger;
}

struct htab_slot *htab_get(struct htab *t, const void *key, size_t len, bool insert)
{
	uint32_t h = hash_bytes(key, len);
	struct htab_slot *s;

	if (!t->cap) {
		if (!insert)
			return NULL;
		grow(t);
	}
	s = probe(t, key, len, h);
	if (s->key || !insert)
		return s->key ? s : NULL;
	if ((t->n + 1) * 4 > t->cap * 3) {
		grow(t);
		s = probe(t, key, len, h);
	}
	t->n++;
	s->hash = h;
	s->len = len;
	return s;
}

void htab_release(struct htab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
