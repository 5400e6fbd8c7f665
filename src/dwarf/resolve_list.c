/* resolve_list.c - every function and source file a module knows, for
 * `info functions`, `info sources`, completion and "did you mean" hints
 * (dw_module_foreach_function, dw_module_foreach_source and
 * dw_suggest_functions in resolve.h).
 *
 * It is a file of its own because a listing is the opposite of a lookup:
 * it names every function of the index once, where a lookup names only the
 * few candidates under one key.  Names are deduplicated by their raw
 * (mangled) spelling before demangling, which dominates the cost; the
 * sorted list is built once per module and kept in the index state.
 * Source files come straight from the units' file tables.
 */
#include "dwarf/resolve.h"

#include "dwarf/resolve_priv.h"
#include "util/editdist.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* ---- listing and suggestions ---- */

static void add_name(struct rs_state *st, struct htab *seen, char *name, uint64_t vaddr)
{
	struct htab_slot *s = htab_get(seen, name, strlen(name), true);

	if (s->key) {
		free(name);
		return;
	}
	s->key = name;
	st->names = xgrow(st->names, &st->cap_names, st->n_names + 1, sizeof(*st->names));
	st->names[st->n_names++] = (struct rs_name){ .name = name, .vaddr = vaddr };
}

/* Entry address of FUNC entry @i, or of the first instance of ORIGIN @i. */
static void entry_address(struct rs_state *st, uint32_t i, Dwarf_Addr *pc)
{
	Dwarf_Die die, cudie;

	if (rs_entry_kind(&st->ents[i]) == KIND_ORIGIN)
		i = rs_first_instance(st, i);
	if (i != RS_NONE && rs_entry_die(st, i, &die, &cudie))
		dw_die_entry_pc(&die, pc);
}

static void list_dwarf_names(struct rs_state *st, struct htab *seen)
{
	struct htab raw = { 0 };

	/* Out-of-line copies first, so a name's address is a real entry. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < st->n_ents; i++) {
			Dwarf_Die die, cudie;
			const char *r;
			struct htab_slot *s;
			Dwarf_Addr pc = 0;
			char *name;

			if (rs_entry_kind(&st->ents[i]) != (pass == 0 ? KIND_FUNC : KIND_ORIGIN) ||
			    !rs_entry_die(st, i, &die, &cudie) || !(r = rs_raw_name(&die)))
				continue;
			s = htab_get(&raw, r, strlen(r), true);
			if (s->key)
				continue;
			s->key = r;
			name = rs_function_name(st, &die);
			entry_address(st, i, &pc);
			add_name(st, seen, name ? name : xstrdup(r), pc);
		}
	}
	htab_release(&raw);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct rs_name *)a)->name, ((const struct rs_name *)b)->name);
}

static void build_names(struct dw_module *m, struct rs_state *st)
{
	struct htab seen = { 0 };
	Dwarf *dw = dw_module_dwarf(m);
	size_t n_dwarf;

	if (st->listed)
		return;
	st->listed = true;
	if (dw) {
		rs_index_ensure(st, dw);
		list_dwarf_names(st, &seen);
	}
	n_dwarf = st->n_names;
	rs_symbols_load(m, st);
	for (size_t i = 0; i < st->n_syms; i++)
		add_name(st, &seen, rs_symbol_name(st->syms[i].name), st->syms[i].value);
	if (n_dwarf)
		qsort(st->names, n_dwarf, sizeof(*st->names), cmp_name);
	if (st->n_names > n_dwarf)
		qsort(st->names + n_dwarf, st->n_names - n_dwarf, sizeof(*st->names), cmp_name);
	htab_release(&seen);
}

int dw_module_foreach_function(struct dw_module *m,
			       int (*fn)(const char *name, uint64_t vaddr, void *ctx), void *ctx)
{
	struct rs_state *st = rs_state_of(m);
	int r = 0;

	build_names(m, st);
	for (size_t i = 0; i < st->n_names && r == 0; i++)
		r = fn(st->names[i].name, st->names[i].vaddr, ctx);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void list_unit_files(Dwarf_Die *cudie, struct htab *seen, const char ***v, size_t *n,
			    size_t *cap)
{
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_getsrcfiles(cudie, &files, &nf) != 0)
		return;
	for (size_t i = 0; i < nf; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);
		struct htab_slot *s;

		char *norm;

		/* "<built-in>" and the like are not files. */
		if (!f || !*f || f[0] == '<')
			continue;
		norm = dw_unit_path(cudie, f);
		s = htab_get(seen, norm, strlen(norm), true);
		if (s->key) {
			free(norm);
			continue;
		}
		s->key = norm; /* owned by the list, freed with it */
		*v = xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = norm;
	}
}

int dw_module_foreach_source(struct dw_module *m, int (*fn)(const char *path, void *ctx), void *ctx)
{
	struct htab seen = { 0 };
	const char **v = NULL;
	size_t n = 0, cap = 0;
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_CU *cu = NULL;
	Dwarf_Die unit;
	int r = 0;

	while (dw_next_unit(dw, &cu, &unit, false))
		list_unit_files(&unit, &seen, &v, &n, &cap);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n && r == 0; i++)
		r = fn(v[i], ctx);
	for (size_t i = 0; i < n; i++)
		free((char *)v[i]);
	free(v);
	htab_release(&seen);
	return r;
}

struct suggestion {
	const char *name;
	unsigned tier;  /* 0 close spelling, 1 prefix, 2 substring */
	size_t score;
};

static int cmp_suggestion(const void *a, const void *b)
{
	const struct suggestion *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Ranks @name against @query; false when it is no suggestion at all.  The
 * last component counts too, so "method" finds "ns::Klass::methd". */
static bool rate(const char *name, const char *query, size_t ql, struct suggestion *s)
{
	const char *comp = rs_last_component(name);
	unsigned limit = ql <= 4 ? 1 : ql <= 8 ? 2 : 3;
	unsigned d = edit_distance(query, ql, name, strlen(name), limit);
	unsigned dc = edit_distance(query, ql, comp, strlen(comp), limit);

	s->name = name;
	if (dc < d)
		d = dc;
	if (d <= limit) {
		s->tier = 0;
		s->score = d;
	} else if (strncmp(name, query, ql) == 0 || strncmp(comp, query, ql) == 0) {
		s->tier = 1;
		s->score = strlen(comp);
	} else if (ql >= 3 && strstr(name, query)) {
		s->tier = 2;
		s->score = strlen(name);
	} else {
		return false;
	}
	return true;
}

void dw_suggest_functions(struct dw_module *m, const char *name, size_t max, char ***out,
			  size_t *n)
{
	struct rs_state *st = rs_state_of(m);
	struct suggestion *v = NULL;
	size_t nv = 0, cap = 0, ql = strlen(name), take;

	build_names(m, st);
	for (size_t i = 0; i < st->n_names; i++) {
		struct suggestion s;

		if (!rate(st->names[i].name, name, ql, &s))
			continue;
		v = xgrow(v, &cap, nv + 1, sizeof(*v));
		v[nv++] = s;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_suggestion);
	take = nv < max ? nv : max;
	if (take) {
		*out = xrealloc(*out, (*n + take) * sizeof(**out));
		for (size_t i = 0; i < take; i++)
			(*out)[(*n)++] = xstrdup(v[i].name);
	}
	free(v);
}
