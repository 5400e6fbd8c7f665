/* idmap.c - see idmap.h. */
#include "util/idmap.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct idmap *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void grow(struct idmap *m)
{
	struct idmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	for (size_t i = 0; i < old.cap; i++) {
		if (old.keys[i]) {
			size_t k = slot_of(m, old.keys[i]);

			m->keys[k] = old.keys[i];
			m->vals[k] = old.vals[i];
		}
	}
	free(old.keys);
	free(old.vals);
}

uint64_t idmap_get(const struct idmap *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return 0;
	i = slot_of(m, key);
	return m->keys[i] ? m->vals[i] : 0;
}

uint64_t idmap_put(struct idmap *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	i = slot_of(m, key);
	if (m->keys[i])
		return m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return val;
}

void idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
