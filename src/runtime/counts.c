/* counts.c - what the kernel counts: each probe's counters (hits, lost,
 * filtered, ...), summed over the CPUs from the mapped wr_stats, and the
 * stacks `count bt` counts in maps instead of sending them: in each CPU's
 * slots (wr_count_slots, mapped) and in the hash map wr_stack_counts,
 * added up by key when read.
 */
#include "runtime/runtime.h"
#include "runtime/runtime_priv.h"
#include "util/xalloc.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- the probes' counters ---- */

void runtime_reset_probe_stats(struct runtime *rt, uint32_t id)
{
	if (id >= WR_MAX_PROBES)
		return;
	for (int c = 0; c < rt->ncpu; c++)
		memset(&rt->stats[(size_t)c * WR_MAX_PROBES + id], 0, sizeof(*rt->stats));
}

int runtime_probe_stats(struct runtime *rt, uint32_t id, struct wr_probe_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (id >= WR_MAX_PROBES)
		return -EINVAL;
	for (int c = 0; c < rt->ncpu; c++) {
		const struct wr_probe_stats *one = &rt->stats[(size_t)c * WR_MAX_PROBES + id];

		out->hits += one->hits;
		out->lost += one->lost;
		out->truncated += one->truncated;
		out->bt_errors += one->bt_errors;
		out->filtered += one->filtered;
		out->counted += one->counted;
		out->count_dropped += one->count_dropped;
	}
	return 0;
}

/* ---- counted stacks ---- */

#define COUNT_BATCH 1024

/* A key's count: the sum of each CPU's (the map is per CPU: a hit adds
 * to its own CPU's count, bpf-templates/counts.bpf.h), @per_cpu values
 * from @vals. */
static uint64_t count_sum(const uint64_t *vals, int per_cpu)
{
	uint64_t sum = 0;

	for (int c = 0; c < per_cpu; c++)
		sum += vals[c];
	return sum;
}

/* Read the counts in batches of COUNT_BATCH (one system call each);
 * kernels without batch lookups fall back to walking the keys. */
static int counts_batch(struct runtime *rt, rt_count_fn fn, void *ctx)
{
	struct wr_count_key *keys = xcalloc(COUNT_BATCH, sizeof(*keys));
	uint64_t *vals = xcalloc((size_t)COUNT_BATCH * rt->ncpu, sizeof(*vals)), in = 0, out = 0;
	bool first = true, done = false;
	int err = 0;

	while (!done && !err) {
		__u32 n = COUNT_BATCH;

		err = bpf_map_lookup_batch(rt->counts_fd, first ? NULL : &in, &out, keys, vals, &n, NULL);
		if (err && errno == ENOENT) {
			done = true; /* the last batch: n holds what it returned */
			err = 0;
		} else if (err) {
			err = -errno;
			break;
		}
		for (__u32 i = 0; i < n && !err; i++)
			if (fn(&keys[i], count_sum(&vals[(size_t)i * rt->ncpu], rt->ncpu), ctx))
				done = true;
		in = out;
		first = false;
	}
	free(keys);
	free(vals);
	return err;
}

static int counts_walk(struct runtime *rt, rt_count_fn fn, void *ctx)
{
	uint64_t *vals = xcalloc((size_t)rt->ncpu, sizeof(*vals));
	struct wr_count_key key, next;
	const void *prev = NULL;

	while (bpf_map_get_next_key(rt->counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rt->counts_fd, &key, vals))
			continue; /* deleted meanwhile */
		if (fn(&key, count_sum(vals, rt->ncpu), ctx))
			break;
	}
	free(vals);
	return 0;
}

/* Counts gathered from both places a key's hits go (wr_count_slots,
 * wr_stack_counts), to be added up by key. */
struct count_ent {
	struct wr_count_key k;
	uint64_t count;
};

struct count_list {
	struct count_ent *v;
	size_t n, cap;
};

static int gather_one(const struct wr_count_key *k, uint64_t count, void *arg)
{
	struct count_list *l = arg;

	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct count_ent){ *k, count };
	return 0;
}

/* Every CPU's slots that count a key, read through the mapping while the
 * kernel writes them: a slot's count is read before its key, which the
 * kernel wrote before the count. */
static void gather_slots(struct runtime *rt, struct count_list *l)
{
	size_t n = (size_t)rt->ncpu * rt->count_per_cpu;

	for (size_t i = 1; rt->count_slots && i <= n; i++) {
		const struct wr_count_slot *c = &rt->count_slots[i];
		uint64_t count = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
		struct wr_count_key k = c->k;

		if (count)
			gather_one(&k, count, l);
	}
}

static int cmp_key(const void *a, const void *b)
{
	const struct wr_count_key *x = &((const struct count_ent *)a)->k;
	const struct wr_count_key *y = &((const struct count_ent *)b)->k;

	if (x->stack_id != y->stack_id)
		return x->stack_id < y->stack_id ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->probe_id != y->probe_id)
		return x->probe_id < y->probe_id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* A key counts in a slot of each CPU that saw it first there, and in the
 * hash map from each CPU whose slot for it held another key: @fn gets
 * each key once, with the sum. */
int runtime_counts_foreach(struct runtime *rt, rt_count_fn fn, void *ctx)
{
	struct count_list l = { 0 };
	int err = counts_batch(rt, gather_one, &l);

	if (err == -EINVAL || err == -EOPNOTSUPP)
		err = counts_walk(rt, gather_one, &l);
	gather_slots(rt, &l);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_key);
	for (size_t i = 0, j; i < l.n; i = j) {
		uint64_t sum = 0;

		for (j = i; j < l.n && !cmp_key(&l.v[i], &l.v[j]); j++)
			sum += l.v[j].count;
		if (fn(&l.v[i].k, sum, ctx))
			break;
	}
	free(l.v);
	return err;
}

int runtime_count_stack(struct runtime *rt, uint64_t stack_id, struct wr_count_stack *out)
{
	return bpf_map_lookup_elem(rt->stacks_fd, &stack_id, out) ? -ENOENT : 0;
}

static void clear_map(int fd, size_t key_size)
{
	char key[32];

	while (key_size <= sizeof(key) && bpf_map_get_next_key(fd, NULL, key) == 0)
		if (bpf_map_delete_elem(fd, key))
			break;
}

struct delete_ctx {
	bool (*match)(const struct wr_count_key *k, void *ctx);
	void *ctx;
	struct wr_count_key *keys;
	size_t n, cap;
};

static int collect_match(const struct wr_count_key *k, uint64_t count, void *arg)
{
	struct delete_ctx *dc = arg;

	(void)count;
	if (dc->match(k, dc->ctx)) {
		dc->keys = xgrow(dc->keys, &dc->cap, dc->n + 1, sizeof(*dc->keys));
		dc->keys[dc->n++] = *k;
	}
	return 0;
}

/* Zero the slots whose key @match says yes to (every slot when @match is
 * NULL): a zero count frees the slot.  The kernel adds to a slot's count
 * atomically, so a hit racing with this counts after it, never undoes it.
 * Returns the slots zeroed. */
static size_t clear_slots(struct runtime *rt, bool (*match)(const struct wr_count_key *k, void *ctx),
			  void *ctx)
{
	size_t n = 0, end = (size_t)rt->ncpu * rt->count_per_cpu;

	for (size_t i = 1; rt->count_slots && i <= end; i++) {
		struct wr_count_slot *c = &rt->count_slots[i];
		struct wr_count_key k;

		if (!__atomic_load_n(&c->count, __ATOMIC_ACQUIRE))
			continue;
		k = c->k;
		if (!match || match(&k, ctx)) {
			__atomic_store_n(&c->count, 0, __ATOMIC_RELEASE);
			n++;
		}
	}
	return n;
}

size_t runtime_counts_delete(struct runtime *rt, bool (*match)(const struct wr_count_key *k, void *ctx),
			     void *ctx)
{
	struct delete_ctx dc = { match, ctx, NULL, 0, 0 };
	size_t n = 0;

	if (!match) {
		clear_slots(rt, NULL, NULL);
		clear_map(rt->counts_fd, sizeof(struct wr_count_key));
		clear_map(rt->stacks_fd, sizeof(uint64_t));
		return 0;
	}
	/* Keys first, deletions after: deleting under a key walk restarts it.
	 * (A key counted in slots too is deleted from the hash map once.) */
	runtime_counts_foreach(rt, collect_match, &dc);
	for (size_t i = 0; i < dc.n; i++)
		bpf_map_delete_elem(rt->counts_fd, &dc.keys[i]);
	n = dc.n;
	clear_slots(rt, match, ctx);
	free(dc.keys);
	return n;
}

