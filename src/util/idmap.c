/* idmap.c - the 64-bit-key map of idmap.h.
 *
 * One table serves the numbering of stacks and of pprof's records and
 * the per-module caches of src/dwarf (by DIE offset, by pc).  Keys are
 * often dense and aligned (offsets, code addresses, small ids), so they
 * are mixed (MurmurHash3's 64-bit finalizer) before their low bits pick a
 * slot.
 */
#include "util/idmap.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* The slot of @key in @slots: its own, or the empty one it would take. */
static struct idmap_slot *probe(struct idmap_slot *slots, size_t cap, uint64_t key)
{
	size_t i = mix64(key) & (cap - 1);

	while (slots[i].val && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct idmap_slot *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].val)
			*probe(slots, cap, m->slots[i].key) = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
}

uint64_t idmap_get(const struct idmap *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	return probe(m->slots, m->cap, key)->val;
}

uint64_t idmap_put(struct idmap *m, uint64_t key, uint64_t val)
{
	struct idmap_slot *s;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	s = probe(m->slots, m->cap, key);
	if (s->val)
		return s->val;
	*s = (struct idmap_slot){ key, val };
	m->n++;
	return val;
}

void idmap_release(struct idmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
