/* vars_priv.h - what vars.c (variables and types) and location.c (their
 * locations) share: the per-module cache that owns every type and
 * location tree handed out.
 *
 * Layer rule: private to src/dwarf; included only by vars.c and
 * location.c.  Like the rest of dwarf/, it may name elfutils types.
 */
#ifndef WRAITH_DWARF_VARS_PRIV_H
#define WRAITH_DWARF_VARS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "dwarf/module_priv.h"
#include "dwarf/offmap.h"
#include "dwarf/vars.h"

struct global_slot {
	const char *name;
	Dwarf *dw;
	Dwarf_Off off;
};

struct vars_cache {
	struct offmap types;       /* DIE key -> struct dw_type * */
	void **owned;              /* everything allocated for types and locations */
	size_t n_owned, cap_owned;
	struct global_slot *globals;
	size_t n_globals, cap_globals;
	bool globals_built;
};

/* Keep @p until the module is freed; returns @p. */
void *vars_own(struct vars_cache *c, void *p);

/* The location of @attr (a DW_AT_location) at @pc, into @out.  @fb is the
 * frame base of the enclosing function as an address expression, or NULL
 * when there is none (globals).  Never fails: what cannot be read is
 * DW_LOC_UNSUPPORTED with the reason, what is not there at @pc
 * DW_LOC_OPTIMIZED_OUT. */
void vars_locate(struct vars_cache *c, Dwarf_Attribute *attr, uint64_t pc,
		 const struct dw_expr *fb, struct dw_loc *out);

/* The frame base of function @fn at @pc as an address expression, or
 * NULL (with *why set) when it has none or it cannot be computed. */
const struct dw_expr *vars_frame_base(struct vars_cache *c, Dwarf_Die *fn, uint64_t pc,
				      const char **why);

#endif
