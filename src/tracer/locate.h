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

#include <stdbool.h>
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

/* ---- wildcards (locate_glob.c) ---- */

/* The most functions one pattern with wildcards may name. */
#define LOCATE_GLOB_MAX 1000u

/* Does function pattern @pattern hold a wildcard, `*` or `?`, outside
 * template arguments, a parameter list and an operator's name
 * (`operator*`)? */
bool locate_is_glob(const char *pattern);

/* Does @name match @pattern, `*` standing for any characters and `?` for
 * one? */
bool locate_glob_match(const char *pattern, const char *name);

/* The functions t->function (a pattern with wildcards) names, as owned
 * strings in *@names (caller frees each and the array): those of the
 * main module (the -t module), else those of the libraries, each once,
 * not the compiler's copies (`f.cold`) unless the pattern has a '.'.
 * Returns 0 with 1 to LOCATE_GLOB_MAX names, or -WR_ENOTARGET with @d set
 * at t->loc. */
int locate_glob(struct target *tg, const struct ast_target *t, char ***names, size_t *n,
		struct diag *d);

#endif
