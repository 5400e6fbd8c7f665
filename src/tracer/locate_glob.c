/* locate_glob.c - function patterns with wildcards (see locate.h).
 *
 * `trace do_item_*` names every function whose name matches: `*` stands
 * for any run of characters (`::` included), `?` for one.  The names are
 * those `info functions` lists (demangled, without parameters), searched
 * in the main module (the -t module with -t), and only when none of its
 * functions matches, in the libraries: a library's function list costs
 * opening its debug information.  Each match becomes a probe of its own
 * (session.c), so an event says which function fired.
 */
#include "tracer/locate.h"
#include "tracer/target.h"
#include "dwarf/module.h"
#include "script/lexer.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/htab.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

bool locate_is_glob(const char *pattern)
{
	int depth = 0;

	for (size_t i = 0; pattern[i];) {
		size_t next = lexer_past_operator(pattern, 0, i);

		if (next != i) {
			i = next;
			continue;
		}
		if (strchr("<(", pattern[i]))
			depth++;
		else if (strchr(">)", pattern[i]) && depth > 0)
			depth--;
		else if (depth == 0 && (pattern[i] == '*' || pattern[i] == '?'))
			return true;
		i++;
	}
	return false;
}

bool locate_glob_match(const char *pattern, const char *name)
{
	const char *star = NULL, *resume = NULL;

	while (*name) {
		if (*pattern == '*') {
			star = pattern++;
			resume = name;
		} else if (*pattern == '?' || *pattern == *name) {
			pattern++;
			name++;
		} else if (star) {
			pattern = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return !*pattern;
}

struct glob_walk {
	const char *pattern;
	bool dots;          /* the pattern names a compiler's copy (`f.cold`) */
	struct htab seen;   /* names taken, across modules */
	char **names;
	size_t n, cap;
};

static int take_match(const char *name, uint64_t vaddr, void *ctx)
{
	struct glob_walk *w = ctx;
	struct htab_slot *slot;

	(void)vaddr;
	/* `f.cold`, `f.part.0`, `f.isra.0`: pieces and copies the compiler
	 * made of f, whose probe is f's. */
	if (!w->dots && strchr(name, '.'))
		return 0;
	if (!locate_glob_match(w->pattern, name))
		return 0;
	slot = htab_get(&w->seen, name, strlen(name), true);
	if (slot->key)
		return 0;
	w->names = xgrow(w->names, &w->cap, w->n + 1, sizeof(*w->names));
	w->names[w->n] = xstrdup(name);
	slot->key = w->names[w->n];
	w->n++;
	return 0;
}

int locate_glob(struct target *tg, const struct ast_target *t, char ***names, size_t *n,
		struct diag *d)
{
	struct tmodule **order = xcalloc(target_module_count(tg) + 1, sizeof(*order));
	size_t n_mods = target_modules_in_order(tg, true, order);
	struct glob_walk w = { .pattern = t->function, .dots = strchr(t->function, '.') != NULL };

	for (int pass = 0; pass < 2 && !w.n; pass++)
		for (size_t i = 0; i < n_mods; i++)
			if ((i == 0) == (pass == 0) && !order[i]->special)
				dw_module_foreach_function(order[i]->dw, take_match, &w);
	htab_release(&w.seen);
	free(order);
	*names = w.names;
	*n = w.n;
	if (w.n > LOCATE_GLOB_MAX) {
		diag_set(d, t->loc, "`info functions REGEX` lists the functions a narrower pattern would take",
			 "'%s' matches %zu functions; at most %u can be traced by one pattern",
			 t->function, w.n, LOCATE_GLOB_MAX);
	} else if (!w.n) {
		diag_set(d, t->loc, "`*` stands for any characters, `?` for one; "
			 "`info functions REGEX` lists the functions",
			 "no function matches '%s' in the target or its libraries", t->function);
	} else {
		return 0;
	}
	for (size_t i = 0; i < w.n; i++)
		free(w.names[i]);
	free(w.names);
	*names = NULL;
	*n = 0;
	return -WR_ENOTARGET;
}
