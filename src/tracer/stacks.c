/* stacks.c - stacks counted in the kernel (`count bt`) read back (see
 * session.h): the counts come from the runtime's maps at every call,
 * each stack's frames once (they never change after the kernel stored
 * them), and render/stacks.h writes the result.
 */
#include "tracer/session_priv.h"
#include "render/stacks.h"
#include "runtime/runtime.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/idmap.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct stack_cache {
	struct idmap ids;           /* stack id -> index + 1 in v */
	struct wr_count_stack **v;  /* owned */
	size_t n, cap;
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void stack_cache_free(struct stack_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	idmap_release(&c->ids);
	free(c);
}

/* The frames of @id: cached, or read from the kernel; NULL when the
 * kernel does not hold them. */
static const struct wr_count_stack *stack_frames(struct session *s, uint64_t id)
{
	struct stack_cache *c = s->stack_cache;
	struct wr_count_stack *st;
	uint64_t at = idmap_get(&c->ids, id);

	if (at)
		return c->v[at - 1];
	st = xmalloc(sizeof(*st));
	if (runtime_count_stack(s->rt, id, st)) {
		free(st);
		return NULL;
	}
	if (st->h.frame_count > WR_COUNT_MAX_DEPTH)
		st->h.frame_count = WR_COUNT_MAX_DEPTH;
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = st;
	idmap_put(&c->ids, id, c->n);
	return st;
}

struct collect {
	struct session *s;
	struct stack_set *set;
	size_t cap;
};

static int collect_one(const struct wr_count_key *k, uint64_t count, void *arg)
{
	struct collect *c = arg;
	struct probe *p = k->probe_id < WR_MAX_PROBES ? c->s->wire[k->probe_id].probe : NULL;
	struct stack_sample *smp;

	if (!p || !count)
		return 0; /* a probe deleted meanwhile */
	c->set->v = xgrow(c->set->v, &c->cap, c->set->n + 1, sizeof(*c->set->v));
	smp = &c->set->v[c->set->n++];
	*smp = (struct stack_sample){
		.probe = p->id, .target = p->target_text, .key = (int64_t)k->key,
		.key_text = k->index < p->n_count_keys ? p->count_keys[k->index] : NULL,
		.count = count, .stack_id = k->stack_id, .stack = stack_frames(c->s, k->stack_id),
	};
	c->set->total += count;
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct stack_sample *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

bool session_counts_stacks(const struct session *s)
{
	for (size_t i = 0; i < s->n_probes; i++)
		if (s->probes[i]->n_count_keys)
			return true;
	return false;
}

int session_stacks(struct session *s, struct stack_set *out)
{
	struct collect c = { s, out, 0 };
	struct session_probe_stats st;
	int err;

	memset(out, 0, sizeof(*out));
	if (!s->rt)
		return 0;
	if (!s->stack_cache)
		s->stack_cache = xcalloc(1, sizeof(*s->stack_cache));
	err = runtime_counts_foreach(s->rt, collect_one, &c);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_sample);
	for (size_t i = 0; i < s->n_probes; i++) {
		session_probe_stats(s, s->probes[i], &st);
		out->dropped += st.count_dropped;
	}
	out->dropped -= out->dropped >= s->stacks_dropped_base ? s->stacks_dropped_base : out->dropped;
	out->start_ns = s->stacks_since_ns;
	out->duration_ns = s->stacks_since_ns ? wall_ns() - s->stacks_since_ns : 0;
	return err;
}

static void tally(struct probe *p, const struct stack_sample *smp)
{
	struct probe_counts *c = &p->counts;
	const struct wr_bt_header *h = smp->stack ? &smp->stack->h : NULL;

	c->counted += smp->count;
	if (h && h->status < WR_BT_STATUS_COUNT_)
		c->counted_by_status[h->status] += smp->count;
	if (h && h->error_code && h->error_code < WR_BTE_COUNT_)
		c->counted_by_error[h->error_code] += smp->count;
}

void session_read_counted(struct session *s)
{
	struct stack_set set;
	double now = now_seconds();

	if (!session_counts_stacks(s) || (s->counted_read_at && now - s->counted_read_at < 0.5))
		return;
	s->counted_read_at = now;
	if (session_stacks(s, &set) == 0) {
		for (size_t i = 0; i < s->n_probes; i++) {
			struct probe_counts *c = &s->probes[i]->counts;

			c->counted = 0;
			memset(c->counted_by_status, 0, sizeof(c->counted_by_status));
			memset(c->counted_by_error, 0, sizeof(c->counted_by_error));
		}
		for (size_t i = 0; i < set.n; i++) {
			struct probe *p = session_probe(s, set.v[i].probe);

			if (p)
				tally(p, &set.v[i]);
		}
	}
	stack_set_release(&set);
}

int session_stacks_write(struct session *s, const struct stack_set *set, enum stacks_format fmt,
			 size_t max, struct strbuf *out)
{
	switch (fmt) {
	case STACKS_TOP:
		stacks_write_top(set, &s->renderer.hooks, max, out);
		return 0;
	case STACKS_FOLDED:
		stacks_write_folded(set, &s->renderer.hooks, out);
		return 0;
	case STACKS_PPROF:
		return stacks_write_pprof(set, &s->renderer.hooks, out);
	case STACKS_JSON:
		stacks_write_json(set, &s->renderer.hooks, out);
		return 0;
	}
	return -WR_EUSAGE;
}

void session_stack_rows(struct session *s, const struct stack_set *set, bool by_name,
			bool collapse, struct stack_rows *out)
{
	stack_rows_build(set, &s->renderer.hooks, by_name ? STACKS_BY_NAME : STACKS_BY_COUNT,
			 collapse, out);
}

void session_stacks_clear(struct session *s)
{
	struct stack_set now;

	if (!s->rt)
		return;
	runtime_counts_delete(s->rt, NULL, NULL);
	stack_cache_free(s->stack_cache);
	s->stack_cache = NULL;
	session_stacks(s, &now);
	s->stacks_dropped_base += now.dropped;
	stack_set_release(&now);
	s->stacks_since_ns = wall_ns();
	s->counted_read_at = 0;
}

/* Counting begins when the first probe that counts is added. */
void stacks_note_probe(struct session *s, const struct probe *p)
{
	if (p->n_count_keys && !s->stacks_since_ns)
		s->stacks_since_ns = wall_ns();
}

struct sites_of {
	const struct probe *p;
	size_t first;
};

static bool of_sites(const struct wr_count_key *k, void *ctx)
{
	const struct sites_of *so = ctx;

	for (size_t i = so->first; i < so->p->n_sites; i++)
		if (so->p->sites[i].wire_id == k->probe_id)
			return true;
	return false;
}

/* Counts are keyed by the site's wire id, which a later probe may get
 * again: they go with the sites. */
void stacks_forget_sites(struct session *s, const struct probe *p, size_t first)
{
	struct sites_of so = { p, first };

	if (s->rt && p->n_count_keys && first < p->n_sites)
		runtime_counts_delete(s->rt, of_sites, &so);
}

void stacks_forget_probe(struct session *s, const struct probe *p)
{
	stacks_forget_sites(s, p, 0);
}
