/* pprof.c - counted stacks as a pprof profile (see stacks.h).
 *
 * The messages are protoc-c's, generated at build time from
 * profile.proto; this file only fills them: one Mapping per module, one
 * Location per (module, pc) whose Lines are the pc's inline chain
 * innermost first, one Function per (name, file), one Sample per counted
 * (probe, stack, key).  Everything is built in a pprof_builder and freed
 * once the profile is packed and compressed.
 */
#include "render/profile.pb-c.h"
#include "render/stacks.h"
#include "render/stacks_priv.h"
#include "util/htab.h"
#include "util/idmap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__ValueType pb_value_type;

struct pprof_builder {
	const struct render_hooks *hooks;
	char **strings;            /* the string table; owned */
	size_t n_strings, cap_strings;
	struct htab string_ids;    /* a string (the table's bytes) -> its index */
	pb_mapping **mappings;
	size_t n_mappings, cap_mappings;
	struct idmap mapping_ids;  /* string index of the path -> id */
	pb_location **locations;
	size_t n_locations, cap_locations;
	struct idmap location_ids; /* see location_key() */
	pb_function **functions;
	size_t n_functions, cap_functions;
	struct idmap function_ids; /* (name index + 1) << 32 | file index -> id */
	pb_sample **samples;
	size_t n_samples, cap_samples;
};

/* The index of @s in the string table, added when new. */
static int64_t intern(struct pprof_builder *b, const char *s)
{
	const char *str = s ? s : "";
	size_t len = strlen(str);
	struct htab_slot *slot = htab_get(&b->string_ids, str, len, true);

	if (slot->key)
		return slot->val;
	b->strings = xgrow(b->strings, &b->cap_strings, b->n_strings + 1, sizeof(*b->strings));
	b->strings[b->n_strings] = xstrdup(str);
	slot->key = b->strings[b->n_strings];
	slot->val = (uint32_t)b->n_strings;
	return (int64_t)b->n_strings++;
}

#define APPEND(arr, n, cap, item)                                   \
	do {                                                        \
		(arr) = xgrow((arr), &(cap), (n) + 1, sizeof(*(arr))); \
		(arr)[(n)++] = (item);                              \
	} while (0)

static uint64_t mapping_id(struct pprof_builder *b, const char *path)
{
	int64_t file = intern(b, path);
	uint64_t id = idmap_get(&b->mapping_ids, (uint64_t)file + 1);
	pb_mapping *m;

	if (id)
		return id;
	m = xmalloc(sizeof(*m));
	perftools__profiles__mapping__init(m);
	m->id = b->n_mappings + 1;
	m->filename = file;
	m->has_functions = m->has_filenames = m->has_line_numbers = m->has_inline_frames = 1;
	APPEND(b->mappings, b->n_mappings, b->cap_mappings, m);
	return idmap_put(&b->mapping_ids, (uint64_t)file + 1, m->id);
}

static uint64_t function_id(struct pprof_builder *b, const struct dw_sym_frame *sf)
{
	int64_t name = intern(b, sf->function ? sf->function : "??");
	int64_t file = intern(b, sf->file);
	uint64_t key = ((uint64_t)name + 1) << 32 | (uint64_t)file, id = idmap_get(&b->function_ids, key);
	pb_function *f;

	if (id)
		return id;
	f = xmalloc(sizeof(*f));
	perftools__profiles__function__init(f);
	f->id = b->n_functions + 1;
	f->name = f->system_name = name;
	f->filename = file;
	APPEND(b->functions, b->n_functions, b->cap_functions, f);
	return idmap_put(&b->function_ids, key, f->id);
}

/* A Line naming @name at @line of @sf's file (or with no file). */
static pb_line *new_line(struct pprof_builder *b, const struct dw_sym_frame *sf)
{
	pb_line *l = xmalloc(sizeof(*l));

	perftools__profiles__line__init(l);
	l->function_id = function_id(b, sf);
	l->line = sf->line;
	l->column = sf->col;
	return l;
}

/* Lines of a frame: its inline chain, or one pseudo function naming it
 * when nothing is known of it but where it is. */
static void location_lines(struct pprof_builder *b, pb_location *loc, const struct render_frame *rf,
			   const char *unnamed, bool show_inline)
{
	size_t first = show_inline || !rf->sym.n ? 0 : rf->sym.n - 1;

	if (rf->signal_trampoline || !rf->sym.n || !rf->sym.frames[rf->sym.n - 1].function) {
		struct dw_sym_frame sf = { .function = rf->signal_trampoline ? "<signal handler called>"
									     : unnamed };

		loc->line = xmalloc(sizeof(*loc->line));
		loc->line[loc->n_line++] = new_line(b, &sf);
		return;
	}
	loc->line = xcalloc(rf->sym.n - first, sizeof(*loc->line));
	for (size_t k = first; k < rf->sym.n; k++)
		loc->line[loc->n_line++] = new_line(b, &rf->sym.frames[k]);
}

/* Locations are (module, pc, exact) for frames of a known module, the raw
 * ip otherwise; tail-call frames are (module, pc of the jump). */
static uint64_t location_key(struct pprof_builder *b, const struct wr_bt_frame *f,
			     const struct render_frame *rf, bool tail, bool show_inline)
{
	uint64_t pc = tail ? rf->tail_pc : f->pc;

	if (!rf->module_path)
		return 1ull << 63 | f->ip | (uint64_t)show_inline << 62;
	return (uint64_t)intern(b, rf->module_path) << 34 | (uint64_t)tail << 33 |
	       (uint64_t)show_inline << 32 | (uint32_t)pc;
}

static uint64_t location_id(struct pprof_builder *b, const struct wr_bt_frame *f,
			    const struct render_frame *rf, bool tail, bool show_inline)
{
	uint64_t key = location_key(b, f, rf, tail, show_inline), id = idmap_get(&b->location_ids, key);
	char unnamed[64];
	pb_location *loc;

	if (id)
		return id;
	loc = xmalloc(sizeof(*loc));
	perftools__profiles__location__init(loc);
	loc->id = b->n_locations + 1;
	loc->address = rf->module_path ? (tail ? rf->tail_pc : f->pc) : f->ip;
	loc->mapping_id = rf->module_path ? mapping_id(b, rf->module_path) : 0;
	if (rf->module_name)
		snprintf(unnamed, sizeof(unnamed), "%s+0x%" PRIx64, rf->module_name, loc->address);
	else
		snprintf(unnamed, sizeof(unnamed), "0x%" PRIx64, loc->address);
	location_lines(b, loc, rf, unnamed, show_inline);
	APPEND(b->locations, b->n_locations, b->cap_locations, loc);
	return idmap_put(&b->location_ids, key, loc->id);
}

/* Location ids of @st, the leaf first. */
static void stack_locations(struct pprof_builder *b, const struct wr_count_stack *st, pb_sample *smp)
{
	const struct render_hooks *h = b->hooks;
	bool show_inline = st->h.flags & WR_BT_F_INLINE;
	size_t cap = 0;

	for (unsigned i = 0; i < st->h.frame_count && i < WR_COUNT_MAX_DEPTH; i++) {
		struct render_frame rf = { 0 }, tails[STACKS_MAX_TAILS];
		size_t n = 0;

		h->frame(h->ctx, &st->frames[i], &rf);
		APPEND(smp->location_id, smp->n_location_id, cap,
		       location_id(b, &st->frames[i], &rf, false, show_inline));
		if (h->tailcalls && i + 1 < st->h.frame_count)
			n = h->tailcalls(h->ctx, &st->frames[i], &st->frames[i + 1], tails, STACKS_MAX_TAILS);
		for (size_t k = 0; k < n; k++)
			APPEND(smp->location_id, smp->n_location_id, cap,
			       location_id(b, &st->frames[i], &tails[k], true, true));
	}
}

/* The outermost location of a stack the walk did not finish: a pseudo
 * function saying why (stack_stopped()), one per distinct text. */
static uint64_t stopped_location(struct pprof_builder *b, const char *text)
{
	uint64_t key = 1ull << 63 | 1ull << 61 | (uint64_t)intern(b, text), id;
	struct dw_sym_frame sf = { .function = text };
	pb_location *loc;

	id = idmap_get(&b->location_ids, key);
	if (id)
		return id;
	loc = xmalloc(sizeof(*loc));
	perftools__profiles__location__init(loc);
	loc->id = b->n_locations + 1;
	loc->line = xmalloc(sizeof(*loc->line));
	loc->line[loc->n_line++] = new_line(b, &sf);
	APPEND(b->locations, b->n_locations, b->cap_locations, loc);
	return idmap_put(&b->location_ids, key, loc->id);
}

/* A string label: a numeric one whose value is 0 would read as unset. */
static pb_label *new_label(struct pprof_builder *b, const char *key, const char *str)
{
	pb_label *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = intern(b, key);
	l->str = intern(b, str);
	return l;
}

static void add_sample(struct pprof_builder *b, const struct stack_sample *s)
{
	pb_sample *smp = xmalloc(sizeof(*smp));
	struct strbuf stopped = STRBUF_INIT;
	char probe[160], key[32];

	perftools__profiles__sample__init(smp);
	if (s->stack)
		stack_locations(b, s->stack, smp);
	if (stack_stopped(s, &stopped)) {
		size_t cap = smp->n_location_id;

		APPEND(smp->location_id, smp->n_location_id, cap, stopped_location(b, stopped.buf));
	}
	strbuf_release(&stopped);
	smp->value = xmalloc(sizeof(*smp->value));
	smp->value[smp->n_value++] = (int64_t)s->count;
	smp->label = xcalloc(2, sizeof(*smp->label));
	snprintf(probe, sizeof(probe), "#%u %s", s->probe, s->target ? s->target : "?");
	smp->label[smp->n_label++] = new_label(b, "probe", probe);
	if (s->key_text) {
		snprintf(key, sizeof(key), "%" PRId64, s->key);
		smp->label[smp->n_label++] = new_label(b, s->key_text, key);
	}
	APPEND(b->samples, b->n_samples, b->cap_samples, smp);
}

static void free_location(pb_location *l)
{
	for (size_t i = 0; i < l->n_line; i++)
		free(l->line[i]);
	free(l->line);
	free(l);
}

static void free_sample(pb_sample *s)
{
	for (size_t i = 0; i < s->n_label; i++)
		free(s->label[i]);
	free(s->label);
	free(s->value);
	free(s->location_id);
	free(s);
}

static void builder_release(struct pprof_builder *b)
{
	for (size_t i = 0; i < b->n_samples; i++)
		free_sample(b->samples[i]);
	for (size_t i = 0; i < b->n_locations; i++)
		free_location(b->locations[i]);
	for (size_t i = 0; i < b->n_functions; i++)
		free(b->functions[i]);
	for (size_t i = 0; i < b->n_mappings; i++)
		free(b->mappings[i]);
	for (size_t i = 0; i < b->n_strings; i++)
		free(b->strings[i]);
	free(b->samples);
	free(b->locations);
	free(b->functions);
	free(b->mappings);
	free(b->strings);
	htab_release(&b->string_ids);
	idmap_release(&b->mapping_ids);
	idmap_release(&b->location_ids);
	idmap_release(&b->function_ids);
}

/* Append @len bytes of @data to @out as one gzip member. */
static int gzip_append(const uint8_t *data, size_t len, struct strbuf *out)
{
	z_stream z;
	uLong bound;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, (uLong)len) + 32;
	strbuf_grow(out, bound);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->buf + out->len;
	z.avail_out = (uInt)bound;
	ret = deflate(&z, Z_FINISH);
	if (ret == Z_STREAM_END) {
		out->len += z.total_out; /* strbuf_setlen() only shortens */
		out->buf[out->len] = '\0';
	}
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -ENOMEM;
}

static void fill_profile(struct pprof_builder *b, const struct stack_set *set, pb_profile *p,
			 pb_value_type *vt)
{
	vt->type = intern(b, "hits");
	vt->unit = intern(b, "count");
	for (size_t i = 0; i < set->n; i++)
		add_sample(b, &set->v[i]);
	p->n_sample_type = 1;
	p->sample = b->samples;
	p->n_sample = b->n_samples;
	p->mapping = b->mappings;
	p->n_mapping = b->n_mappings;
	p->location = b->locations;
	p->n_location = b->n_locations;
	p->function = b->functions;
	p->n_function = b->n_functions;
	p->string_table = b->strings;
	p->n_string_table = b->n_strings;
	p->time_nanos = (int64_t)set->start_ns;
	p->duration_nanos = (int64_t)set->duration_ns;
}

int stacks_write_pprof(const struct stack_set *set, const struct render_hooks *hooks,
		       struct strbuf *out)
{
	struct pprof_builder b = { .hooks = hooks };
	pb_profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_value_type vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	pb_value_type *vtp = &vt;
	uint8_t *packed;
	size_t len;
	int err;

	intern(&b, ""); /* index 0 is the empty string */
	fill_profile(&b, set, &p, &vt);
	p.sample_type = &vtp;
	len = perftools__profiles__profile__get_packed_size(&p);
	packed = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&p, packed);
	err = gzip_append(packed, len, out);
	free(packed);
	builder_release(&b);
	return err;
}
