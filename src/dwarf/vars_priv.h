/* vars_priv.h - what vars.c (variables), types.c (their types) and
 * location.c (their locations) share: the per-module cache that owns
 * every type and location tree handed out.
 *
 * Layer rule: private to src/dwarf; included only by those three files.
 * Like the rest of dwarf/, it may name elfutils types.
 */
#ifndef WRAITH_DWARF_VARS_PRIV_H
#define WRAITH_DWARF_VARS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "dwarf/module_priv.h"
#include "dwarf/vars.h"
#include "util/htab.h"
#include "util/idmap.h"

struct global_slot {
	const char *name;
	const char *path;  /* "ns::name" when in a namespace (owned by the cache), else NULL */
	Dwarf *dw;
	Dwarf_Off off;
	bool located;      /* has a location or constant value */
};

struct type_node;
struct complete_entry;
struct global_names;
struct vla_sized;

#define VARS_MAX_SCOPES 64  /* a chain of scopes holding a pc, at most */
#define VARS_KEPT_CHAINS 4  /* the last chains asked, kept (vars_scopes) */

/* The scopes holding a pc (dw_pc_scopes_anchored), as last asked: a
 * probe's site asks for the same chain for each name it looks up, in
 * each of the passes that shape it. */
struct kept_chain {
	uint64_t pc;
	Dwarf_Off anchor;
	bool used, unit_found;
	int n;
	Dwarf_Die unit;
	Dwarf_Die chain[VARS_MAX_SCOPES];
};

struct vars_cache {
	struct dw_module *m;
	struct idmap types;        /* DIE key -> struct type_node * (types.c) */
	struct type_node **queue;  /* nodes taken but not filled yet */
	size_t n_queue, cap_queue;
	Dwarf **dwarfs;            /* the files DIE keys distinguish */
	size_t n_dwarfs, cap_dwarfs;
	struct complete_entry *complete; /* defined aggregates by spelling */
	size_t n_complete, cap_complete;
	struct complete_entry *plain;    /* typedefs and base types by name */
	size_t n_plain, cap_plain;
	bool complete_built;             /* both indexes */
	dw_type_resolver resolver;
	void *resolver_ctx;
	dw_caller_modules caller_modules; /* dw_module_set_caller_modules() */
	void *caller_modules_ctx;
	struct idmap pointers;     /* target type address -> pointer type (dw_type_pointer) */
	struct idmap prefixes;     /* C++ type DIE key -> "geo::" of its scopes (types.c) */
	struct idmap prefixed_units; /* CU DIE key -> non-NULL once its prefixes are known */
	void **owned;              /* everything allocated for types and locations */
	size_t n_owned, cap_owned;
	struct global_slot *globals;
	size_t n_globals, cap_globals;
	/* the globals by name: name -> index of the first of that name,
	 * global_next[i] the next one after globals[i] (or SIZE_MAX) */
	struct htab global_names;
	size_t *global_next;
	struct vla_sized *sized;   /* VLA types with their lengths (types.c) */
	size_t n_sized, cap_sized;
	bool globals_built;
	/* the names of the globals as an earlier run stored them
	 * (globalnames.c), once asked; NULL: none stored */
	struct global_names *names;
	bool names_tried;
	/* top-level DIEs found by name (vars.c find_top_level): key (file,
	 * unit, matcher, name) -> index + 1 into found, the DIE's offset or
	 * 0 when the unit has none */
	struct htab top_found;
	Dwarf_Off *found;
	size_t n_found, cap_found;
	struct kept_chain chains[VARS_KEPT_CHAINS];
	unsigned next_chain;       /* the one a new chain replaces */
};

/* The cache of @m, created on first use.  Borrowed. */
struct vars_cache *vars_cache_of(struct dw_module *m);

/* The scopes of @c's module holding @pc, outermost first, into *@chain
 * (borrowed: valid until the next call), as dw_pc_scopes_anchored()
 * finds them under the unit at @pc (*@unit); their count, 0 when none,
 * -1 when no unit holds @pc.  The last few answers are kept. */
int vars_scopes(struct vars_cache *c, uint64_t pc, Dwarf_Off anchor, Dwarf_Die *unit,
		const Dwarf_Die **chain);

/* Keep @p until the module is freed; returns @p. */
void *vars_own(struct vars_cache *c, void *p);

/* The type @die's DW_AT_type names (void without one), and the type of
 * type DIE @type; complete with everything they reach. */
const struct dw_type *vars_type_of(struct vars_cache *c, Dwarf_Die *die);
const struct dw_type *vars_type_die(struct vars_cache *c, Dwarf_Die *type);

/* What the registers, the CFA and the frame base of a location
 * expression mean: the probe's own frame, or - for a value a caller passed
 * (DW_AT_call_value) - the caller's frame as seen from the probe. */
struct vars_frame {
	uint64_t pc;                /* the probe's pc */
	Dwarf_Die *fn;              /* the function holding pc, for entry values; NULL: none */
	const struct dw_expr *cfa;  /* DW_OP_call_frame_cfa */
	const struct dw_expr *fb;   /* DW_OP_fbreg's base, or NULL */
	/* NULL: registers are the probe's; else the caller's register @reg */
	const struct dw_expr *(*caller_reg)(struct vars_cache *c, const struct vars_frame *f, int reg);
	/* a caller's frame (entryval.c): the frame it called, whose CFI at
	 * its pc restores this one's registers; NULL for the probe's */
	const struct vars_frame *inner;
	unsigned depth;             /* how many calls out from the probe's frame */
	/* The frame's entry values, when its caller knows them (or NULL) */
	const struct dw_entry_values *entry;
	/* The location view at pc (GCC's -gvariable-location-views) the
	 * probe stands at, when known: an inlined call's entry view. */
	bool has_view;
	unsigned view;
	/* A caller's frame in another module than the probe's (a call site
	 * of @module, NULL: the probe's): its addresses lie @bias_delta past
	 * where the probe's load bias puts them. */
	struct dw_module *module;
	int64_t bias_delta;
};

/* The location of @attr (a DW_AT_location) at @pc, into @out, with
 * registers as @f sees them; @views is the DIE's DW_AT_GNU_locviews, or
 * NULL.  Never fails: what cannot be read is DW_LOC_UNSUPPORTED with the
 * reason, what is not there at @pc DW_LOC_OPTIMIZED_OUT. */
void vars_locate(struct vars_cache *c, Dwarf_Attribute *attr, Dwarf_Attribute *views, uint64_t pc,
		 const struct vars_frame *f, struct dw_loc *out);

/* The location of variable (or DW_TAG_dwarf_procedure) @var at @pc:
 * its DW_AT_const_value, else its DW_AT_location; optimized out without
 * either. */
void vars_locate_die(struct vars_cache *c, Dwarf_Die *var, uint64_t pc, const struct vars_frame *f,
		     struct dw_loc *out);

/* The same for an expression already decoded (@attr may be NULL for one
 * that names no other DIE or table: CFI rules). */
void vars_evaluate(struct vars_cache *c, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n,
		   const struct vars_frame *f, struct dw_loc *out);

/* The DW_TAG_subrange_type of a VLA's dimension (dw_type.bound) into
 * @out; false when it cannot be found. */
bool vars_vla_subrange(struct vars_cache *c, uint64_t key, Dwarf_Die *out);
/* The length subrange @sub of a VLA gives at @pc, registers as @f sees
 * them, as a location whose value is the count (DW_AT_count, or
 * DW_AT_upper_bound + 1): of an expression (gcc -O0's DW_OP_fbreg -80,
 * DW_OP_deref), or of the artificial variable it refers to (gcc -O2's,
 * clang's __vla_expr0).  DW_LOC_OPTIMIZED_OUT when the pc has none. */
void vars_vla_length(struct vars_cache *c, Dwarf_Die *sub, uint64_t pc, const struct vars_frame *f,
		     struct dw_loc *out);
/* The frame base of function @fn at @pc as an address tree, registers as
 * @f sees them; NULL (with *why set) when it has none or it cannot be
 * computed. */
const struct dw_expr *vars_frame_base(struct vars_cache *c, Dwarf_Die *fn, uint64_t pc,
				      const struct vars_frame *f, const char **why);

/* The expression of location list @attr covering @pc, read from the raw
 * section when libdw refuses the list (GCC's DW_OP_GNU_uninit, which the
 * decoder drops, setting *@uninit), into @ops (at most @max).  Returns the number of
 * operations, 0 when no entry covers @pc, -1 when it cannot be read. */
int vars_raw_location(Dwarf_Attribute *attr, uint64_t pc, Dwarf_Op *ops, size_t max, bool *uninit);

/* The entry of location list @attr (DW_FORM_sec_offset) at @pc by GCC's
 * location views: the views of its entries are in @views (the DIE's
 * DW_AT_GNU_locviews) or in the list itself (DW_LLE_GNU_view_pair).
 * The entry that holds at view @view of @pc (when @view >= 0: known);
 * else the one whose address range holds @pc, as gdb takes it (it holds
 * at a later view of @pc); else the first that holds at some view of @pc
 * only (an empty range, or one that ends at @pc's later views).  No
 * instruction runs between the views of one pc: each of them describes
 * what the machine holds there, at a point of the source.  Returns 1 with
 * *@index (among the list's bounded entries, in order: the index
 * dwarf_getlocations() counts) and its expression decoded by hand into
 * @ops (*@n_ops operations, -1 when this decoder does not know one);
 * 0 when no entry holds; -1 when the list has no views or cannot be
 * read (libdw then reads it). */
int vars_view_entry(Dwarf_Attribute *attr, Dwarf_Attribute *views, uint64_t pc, int view,
		    size_t *index, Dwarf_Op *ops, size_t max, int *n_ops, bool *uninit);

/* A constant of @len bytes at @data as a location: DW_LOC_CONST up to 8
 * bytes, else pieces of constants (a string or struct the compiler kept
 * only as its value: DW_AT_const_value, DW_OP_implicit_value). */
void vars_const_bytes(struct vars_cache *c, const uint8_t *data, size_t len, struct dw_loc *out);

/* The address tree of memory location @loc (a DW_LOC_MEM_* kind). */
const struct dw_expr *vars_loc_address(struct vars_cache *c, const struct dw_loc *loc);

/* Trees, owned by @c. */
const struct dw_expr *vars_expr_const(struct vars_cache *c, int64_t v);
const struct dw_expr *vars_expr_reg(struct vars_cache *c, int reg);
const struct dw_expr *vars_expr_cfa(struct vars_cache *c);
const struct dw_expr *vars_expr_add(struct vars_cache *c, const struct dw_expr *a, int64_t k);
const struct dw_expr *vars_expr_deref(struct vars_cache *c, const struct dw_expr *addr, unsigned size);
const struct dw_expr *vars_expr_if(struct vars_cache *c, const struct dw_expr *cond,
				   const struct dw_expr *then, const struct dw_expr *otherwise);

/* ---- entry values (entryval.c) ---- */

#define MAX_CALLERS 256 /* one switch case each in the probe (codegen/locations.c) */
#define MAX_NESTED_CALLERS 4 /* for a caller's own entry values: each multiplies the tree */

/* A call of the function, and the value it passed in one register. */
struct vars_call_site {
	Dwarf_Die site;          /* DW_TAG_call_site */
	uint64_t return_pc;
	Dwarf_Attribute value;   /* its DW_AT_call_value */
	struct dw_module *module; /* the module of the call, NULL: the probe's */
	int64_t bias_delta;      /* its load bias less the probe module's */
};

/* Call sites of module @c->m that call @fn and describe the value they
 * pass in register @reg; at most @max into @out.  Returns how many. */
size_t vars_call_sites(struct vars_cache *c, Dwarf_Die *fn, int reg, struct vars_call_site *out,
		       size_t max);
/* Call sites of module @c->m that call @fn (a clone GCC made, .part.0,
 * .constprop.0) and describe the value they pass for its parameter DIE at
 * global offset @param (DW_AT_call_parameter; DW_OP_GNU_parameter_ref
 * names it); at most @max into @out.  A clone is local to its module:
 * no other module calls it. */
size_t vars_call_sites_param(struct vars_cache *c, Dwarf_Die *fn, Dwarf_Off param, struct vars_call_site *out,
			     size_t max);
/* The same in the other modules dw_module_set_caller_modules() names for
 * @c's module (direct calls of @fn by its name), after @n already in
 * @out; returns the new total. */
size_t vars_foreign_call_sites(struct vars_cache *c, Dwarf_Die *fn, int reg, struct vars_call_site *out,
			       size_t n, size_t max);

/* The value call site @s passed, as a tree a probe in frame @callee (the
 * called function's: the probe's own, or a caller's when the value is
 * itself an entry value) computes, or NULL when it is not recoverable. */
const struct dw_expr *vars_caller_value(struct vars_cache *c, const struct vars_call_site *s,
					const struct vars_frame *callee);

/* globalnames.c: whether the list of global names stored for @c's module
 * (see there) says it defines no global @name, a plain name; false when
 * no list is stored or @name is qualified. */
bool dw_global_names_lack(struct vars_cache *c, const char *name);
/* Store the names of @c's globals, once built from its module's DWARF. */
void dw_global_names_store(struct vars_cache *c);
/* Free the list @c read. */
void dw_global_names_release(struct vars_cache *c);

#endif
