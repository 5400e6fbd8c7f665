/* offmap.c - the 64-bit-key map of offmap.h.
 *
 * It exists because the symbolizer and the variable reader each kept the
 * same open-addressing table from DIE offsets and pcs to their cached
 * results; one copy now serves both.  Keys are DIE offsets and code
 * addresses, dense and aligned, so they are mixed (MurmurHash3's 64-bit
 * finalizer) before their low bits pick a slot.
 */
#include "dwarf/offmap.h"

#include "util/xalloc.h"

#include <stdlib.h>

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

void *offmap_get(const struct offmap *m, uint64_t key)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return NULL;
	for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
		if (!m->slots[i].val)
			return NULL;
		if (m->slots[i].key == key)
			return m->slots[i].val;
	}
}

/* The slot of @key in @slots: its own, or the empty one it would take. */
static struct offmap_slot *probe(struct offmap_slot *slots, size_t cap, uint64_t key)
{
	size_t i = mix64(key) & (cap - 1);

	while (slots[i].val && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct offmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct offmap_slot *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].val)
			*probe(slots, cap, m->slots[i].key) = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
}

void offmap_put(struct offmap *m, uint64_t key, void *val)
{
	struct offmap_slot *s;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	s = probe(m->slots, m->cap, key);
	if (s->val)
		return;
	*s = (struct offmap_slot){ key, val };
	m->n++;
}

void offmap_release(struct offmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = 0;
	m->n = 0;
}
