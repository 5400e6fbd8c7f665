/* locate.h - from a trace pattern to probe sites in the target's modules.
 *
 * Layer rule: private to src/tracer.  A function is looked up in every
 * module the target maps (the main module first); a file:line in every
 * module with DWARF; an address in the main module or the one named before
 * the colon.  When nothing matches, the diag says what was looked for,
 * where, and the closest names.
 */
#ifndef WRAITH_TRACER_LOCATE_H
#define WRAITH_TRACER_LOCATE_H

#include <stddef.h>

#include "dwarf/resolve.h"
#include "script/ast.h"

struct diag;
struct target;
struct tmodule;

struct located {
	struct tmodule *mod;  /* borrowed */
	struct dw_site site;  /* owned strings */
};

struct located_set {
	struct located *v;    /* owned */
	size_t n, cap;
};

void located_set_release(struct located_set *s);

/* The sites of function @function in module @m alone, appended to @out.
 * Returns how many. */
size_t locate_function_in(struct tmodule *m, const char *function, struct located_set *out);

/* Resolve @t into @out.  Returns 0 with at least one site, or
 * -WR_ENOTARGET with @d set at t->loc. */
int locate_target(struct target *tg, const struct ast_target *t, struct located_set *out,
		  struct diag *d);

#endif
