/* vars.c - the traced program's variables at a pc (see vars.h).
 *
 * Lookup follows C scoping: the blocks and inlined calls holding the pc,
 * innermost first (dw_pc_scopes), then the unit; past the unit come the
 * module's globals.  Declarations (DW_AT_declaration: an extern from a
 * header) are passed over in every scope, so a global declared in this
 * unit and defined in another is found at its definition, and one defined
 * in no unit of the module is left to the tracer to find in another
 * module.  A definition's name may live on its declaration
 * (DW_AT_specification) or on an abstract instance (DW_AT_abstract_origin,
 * across units under LTO); libdw's dwarf_diename() follows both.
 *
 * The frame base comes from the function whose code holds the pc, the
 * physical one.  Locations come from location.c, types from types.c.
 */
#include "dwarf/vars.h"
#include "arch/x86_64.h"
#include "dwarf/stdlib.h"
#include "dwarf/typename.h"
#include "dwarf/vars_priv.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCOPES VARS_MAX_SCOPES

static void cache_destroy(void *data)
{
	struct vars_cache *c = data;

	for (size_t i = 0; i < c->n_owned; i++)
		free(c->owned[i]);
	free(c->owned);
	idmap_release(&c->types);
	free(c->queue);
	free(c->dwarfs);
	free(c->complete);
	free(c->plain);
	idmap_release(&c->pointers);
	idmap_release(&c->prefixes);
	idmap_release(&c->prefixed_units);
	free(c->globals);
	htab_release(&c->global_names);
	free(c->global_next);
	dw_global_names_release(c);
	free(c->sized);
	htab_release(&c->top_found);
	free(c->found);
	free(c);
}

struct vars_cache *vars_cache_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_VARS];
	struct vars_cache *c = ext->data;

	if (!c) {
		c = xcalloc(1, sizeof(*c));
		c->m = m;
		ext->data = c;
		ext->destroy = cache_destroy;
	}
	return c;
}

void *vars_own(struct vars_cache *c, void *p)
{
	c->owned = xgrow(c->owned, &c->cap_owned, c->n_owned + 1, sizeof(*c->owned));
	c->owned[c->n_owned++] = p;
	return p;
}

int vars_scopes(struct vars_cache *c, uint64_t pc, Dwarf_Off anchor, Dwarf_Die *unit,
		const Dwarf_Die **chain)
{
	struct kept_chain *k = NULL;

	for (unsigned i = 0; i < VARS_KEPT_CHAINS && !k; i++)
		if (c->chains[i].used && c->chains[i].pc == pc && c->chains[i].anchor == anchor)
			k = &c->chains[i];
	if (!k) {
		k = &c->chains[c->next_chain];
		c->next_chain = (c->next_chain + 1) % VARS_KEPT_CHAINS;
		*k = (struct kept_chain){ .pc = pc, .anchor = anchor, .used = true };
		k->unit_found = dw_unit_at(c->m, pc, &k->unit);
		if (k->unit_found)
			k->n = dw_pc_scopes_anchored(&k->unit, pc, anchor, k->chain, VARS_MAX_SCOPES);
	}
	*unit = k->unit;
	*chain = k->chain;
	return k->unit_found ? k->n : -1;
}

/* ---- locations ---- */

static void locate(struct vars_cache *c, Dwarf_Die *var, uint64_t pc, const struct vars_frame *f,
		   struct dw_loc *out)
{
	vars_locate_die(c, var, pc, f, out);
}

/* Whether @var has a location (or a constant value) at @pc: of two
 * entries of one name in a scope (GCC leaves one without a location
 * beside the one that has it, under LTO), the one that says where it is
 * is the variable. */
static bool located_at(Dwarf_Die *var, uint64_t pc)
{
	Dwarf_Attribute a, views;
	Dwarf_Op *ops, raw[8];
	size_t n, index;
	int n_raw;
	bool uninit;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return true;
	if (!dwarf_attr_integrate(var, DW_AT_location, &a))
		return false;
	if (dwarf_whatform(&a) != DW_FORM_sec_offset && dwarf_whatform(&a) != DW_FORM_loclistx)
		return true;
	return dwarf_getlocation_addr(&a, pc, &ops, &n, 1) > 0 ||
	       vars_view_entry(&a, dwarf_attr_integrate(var, DW_AT_GNU_locviews, &views), pc, -1, &index,
			       raw, 8, &n_raw, &uninit) == 1;
}

/* ---- scopes ---- */

static bool is_var_tag(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* Whether @a and @b, two entries of one name in a concrete scope, may be
 * one variable: not when they stand for different abstract ones, nor
 * when both are parameters without one (no language lets two parameters
 * share a name: clang names each parameter of a pack, `Args... args`,
 * after the pack, and gdb lists each). */
static bool may_be_same(Dwarf_Die *a, Dwarf_Die *b)
{
	Dwarf_Attribute aa, ab;
	Dwarf_Die oa, ob;
	bool has_a = dwarf_attr(a, DW_AT_abstract_origin, &aa) && dwarf_formref_die(&aa, &oa),
	     has_b = dwarf_attr(b, DW_AT_abstract_origin, &ab) && dwarf_formref_die(&ab, &ob);

	if (dwarf_dieoffset(a) == dwarf_dieoffset(b))
		return true;
	if (has_a && has_b)
		return dwarf_dieoffset(&oa) == dwarf_dieoffset(&ob);
	return has_a || has_b || dwarf_tag(a) != DW_TAG_formal_parameter ||
	       dwarf_tag(b) != DW_TAG_formal_parameter;
}

/* Among @scope's variables named @name (those that may be variable @like
 * when not NULL), the one located at @pc, else the first, in *@out;
 * false when none. */
static bool pick_child(Dwarf_Die *scope, const char *name, Dwarf_Die *like, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Die child;
	bool found = false;

	if (dwarf_child(scope, &child) != 0)
		return false;
	do {
		const char *n;

		if (!is_var_tag(dwarf_tag(&child)) || dwarf_hasattr(&child, DW_AT_declaration) ||
		    (dwarf_tag(scope) == DW_TAG_compile_unit && dwarf_hasattr(&child, DW_AT_specification)))
			continue; /* a unit's definition of a namespace's or class's variable: a global */
		n = dwarf_diename(&child);
		if (!n || strcmp(n, name) != 0 || (like && !may_be_same(&child, like)))
			continue;
		if (!found)
			*out = child;
		else if (located_at(&child, pc) && !located_at(out, pc))
			*out = child;
		found = true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return found;
}

/* Search the direct children of @scope for a variable @name that is not
 * a mere declaration: of several, the first that has a location at @pc
 * (concrete over abstract, as gdb takes it), else the first. */
static bool find_child(Dwarf_Die *scope, const char *name, uint64_t pc, Dwarf_Die *out)
{
	return pick_child(scope, name, NULL, pc, out);
}

/* Variable @name of @scope: among its own children, else among those of
 * its abstract origin.  An inlined copy may carry no DIE at all for a
 * parameter or local the compiler dropped (clang does that): the abstract
 * one still names it, without a location, so it is optimized out.  A
 * static local lives in the abstract instance only, with its address. */
static bool find_in_scope(Dwarf_Die *scope, const char *name, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;

	if (find_child(scope, name, pc, out))
		return true;
	return dwarf_attr(scope, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin) &&
	       find_child(&origin, name, pc, out);
}

/* The lengths of VLA @t's dimensions of variable length at @pc, into
 * @out->vla_len: of the array, or of what a pointer to one points to
 * (a parameter `int a[n][n]`). */
static void vla_lengths(struct vars_cache *c, const struct dw_type *t, uint64_t pc, const struct vars_frame *f,
			struct dw_var *out)
{
	Dwarf_Die sub;

	out->n_vla = 0;
	if (t && t->kind == DW_TYPE_POINTER && t->target && t->target->kind == DW_TYPE_ARRAY)
		t = t->target;
	for (int depth = 0; t && t->kind == DW_TYPE_ARRAY && depth < 8; t = t->target, depth++) {
		if (!t->dynamic)
			continue;
		if (out->n_vla == DW_VLA_DIMS)
			break;
		if (vars_vla_subrange(c, t->bound, &sub))
			vars_vla_length(c, &sub, pc, f, &out->vla_len[out->n_vla]);
		else
			out->vla_len[out->n_vla] = (struct dw_loc){ .kind = DW_LOC_OPTIMIZED_OUT };
		out->n_vla++;
	}
}

/* @die, a variable visible at @at of function @fn (NULL for a global). */
static void fill_var_at(struct vars_cache *c, Dwarf_Die *die, const struct dw_at *at, Dwarf_Die *fn,
			enum dw_var_scope scope, struct dw_var *out)
{
	uint64_t pc = at->pc;
	struct vars_frame f = { .pc = pc, .fn = fn, .cfa = vars_expr_cfa(c), .has_view = at->has_view,
				.view = at->view };
	const char *why = NULL;
	Dwarf_Attribute ext;
	bool flag = false;

	if (fn)
		f.fb = vars_frame_base(c, fn, pc, &f, &why);
	out->name = dwarf_diename(die);
	out->scope = scope;
	out->type = vars_type_of(c, die);
	out->external = dwarf_attr_integrate(die, DW_AT_external, &ext) && dwarf_formflag(&ext, &flag) == 0 &&
			flag;
	out->frame = NULL;
	out->entry_reg = 0;
	locate(c, die, pc, &f, &out->loc);
	vla_lengths(c, out->type, pc, &f, out);
}

static void fill_var(struct vars_cache *c, Dwarf_Die *die, uint64_t pc, Dwarf_Die *fn,
		     enum dw_var_scope scope, struct dw_var *out)
{
	struct dw_at at = { .pc = pc };

	fill_var_at(c, die, &at, fn, scope, out);
}

/* ---- globals ---- */

#define MAX_NAMESPACES 8 /* nesting followed below a unit */

/* A unit's variables declared in namespaces, with their paths: GCC
 * declares a C++ namespace's variable there and defines it at the
 * unit's level (DW_AT_specification), where its path is known only
 * from its declaration. */
struct ns_decls {
	struct ns_decl {
		Dwarf_Off off;
		const char *path; /* owned by the cache */
	} *v;
	size_t n, cap;
};

/* The path of the variable declared at @off, NULL when none was seen. */
static const char *declared_path(const struct ns_decls *d, Dwarf_Off off)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].off == off)
			return d->v[i].path;
	return NULL;
}

/* The path of definition @die at a unit's level: its declaration's. */
static const char *specified_path(const struct ns_decls *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die spec;

	if (!dwarf_attr(die, DW_AT_specification, &a) || !dwarf_formref_die(&a, &spec))
		return NULL;
	return declared_path(d, dwarf_dieoffset(&spec));
}

static void note_declaration(struct vars_cache *c, struct ns_decls *d, Dwarf_Die *die, const char *path)
{
	d->v = xgrow(d->v, &d->cap, d->n + 1, sizeof(*d->v));
	d->v[d->n++] = (struct ns_decl){ dwarf_dieoffset(die), vars_own(c, xstrdup(path)) };
}

static bool is_class_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* The definitions of variables among @parent's children, and in the
 * namespaces among them (Rust's modules, C++'s namespaces: their path
 * @prefix, "ns::inner::"), down to @depth more levels; the declarations
 * in namespaces and classes, for the paths of their definitions. */
static void add_globals(struct vars_cache *c, Dwarf_Die *parent, const char *prefix, int depth, struct ns_decls *d,
			bool decls)
{
	bool in_class = is_class_tag(dwarf_tag(parent));
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name, *path = NULL;
		char *full;

		/* the name only of what can hold or be a variable (most DIEs
		 * of a unit are functions and types, and a name through an
		 * abstract origin costs a lookup); a unit's own variables give
		 * no declaration a path */
		if (tag != DW_TAG_namespace && !is_class_tag(tag) && tag != DW_TAG_variable &&
		    tag != DW_TAG_member)
			continue;
		if (decls && !prefix && !is_class_tag(tag) && tag != DW_TAG_namespace)
			continue;
		if ((tag == DW_TAG_namespace || is_class_tag(tag)) && depth <= 0)
			continue;
		/* of a class's members, only the static ones (declared) */
		if (in_class && !is_class_tag(tag) && tag != DW_TAG_namespace &&
		    !dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		name = dwarf_diename(&child);
		if ((tag == DW_TAG_namespace || (is_class_tag(tag) && name)) && depth > 0) {
			char *inner = xasprintf("%s%s::", prefix ? prefix : "", name ? name : "(anonymous namespace)");

			add_globals(c, &child, vars_own(c, inner), depth - 1, d, decls);
			continue;
		}
		/* a class's static member: declared in it (DW_TAG_member
		 * before DWARF 5), defined at the unit's level */
		if ((tag != DW_TAG_variable && !(tag == DW_TAG_member && dwarf_hasattr(&child, DW_AT_declaration))) ||
		    !name || (is_class_tag(dwarf_tag(parent)) && !dwarf_hasattr(&child, DW_AT_declaration)))
			continue;
		/* a class's constant initialized in it (static const int k = 9)
		 * is a value without a definition */
		if (dwarf_hasattr(&child, DW_AT_declaration) != decls &&
		    !(!decls && is_class_tag(dwarf_tag(parent)) && dwarf_hasattr(&child, DW_AT_const_value)))
			continue;
		full = prefix ? xasprintf("%s%s", prefix, name) : NULL;
		if (!decls && dwarf_hasattr(&child, DW_AT_specification))
			path = specified_path(d, &child); /* clang defines a class's static in its namespace */
		if (decls) {
			if (full)
				note_declaration(c, d, &child, full);
			free(full);
			continue;
		}
		if (path)
			free(full);
		else
			path = full ? vars_own(c, full) : specified_path(d, &child);
		c->globals = xgrow(c->globals, &c->cap_globals, c->n_globals + 1, sizeof(*c->globals));
		c->globals[c->n_globals++] = (struct global_slot){
			.name = name, .dw = dwarf_cu_getdwarf(child.cu), .off = dwarf_dieoffset(&child),
			.path = path,
			.located = dwarf_hasattr(&child, DW_AT_location) ||
				   dwarf_hasattr(&child, DW_AT_const_value),
		};
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The globals chained by name, each name's in their order. */
static void index_globals(struct vars_cache *c)
{
	size_t *last = xcalloc(c->n_globals + 1, sizeof(*last));

	c->global_next = xcalloc(c->n_globals + 1, sizeof(*c->global_next));
	for (size_t i = 0; i < c->n_globals; i++) {
		const char *name = c->globals[i].name;
		struct htab_slot *slot = htab_get(&c->global_names, name, strlen(name), true);

		c->global_next[i] = SIZE_MAX;
		if (slot->key) {
			c->global_next[last[slot->val]] = i;
		} else {
			slot->key = name;
			slot->len = strlen(name);
			slot->val = (uint32_t)i;
		}
		last[slot->val] = i;
	}
	free(last);
}

static bool unit_is_c(Dwarf_Die *cudie)
{
	switch (dwarf_srclang(cudie)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case 0x2c: /* DW_LANG_C17 */
		return true;
	default:
		return false;
	}
}

/* Every definition of a variable at file or namespace scope, in unit
 * order; each unit's declarations first, for their definitions' paths. */
static void build_globals(struct vars_cache *c, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die unit;
	struct ns_decls d = { 0 };

	c->globals_built = true;
	while (dw_next_unit(dw, &cu, &unit, false)) {
		/* C has neither namespaces nor static members: a C unit's
		 * globals are at its top level, and none has a path */
		bool c_unit = unit_is_c(&unit);

		d.n = 0;
		if (!c_unit)
			add_globals(c, &unit, NULL, MAX_NAMESPACES, &d, true);
		add_globals(c, &unit, NULL, c_unit ? 0 : MAX_NAMESPACES, &d, false);
	}
	free(d.v);
	index_globals(c);
	if (dw)
		dw_global_names_store(c);
}

/* Whether @g is what @name names: its path ("app::stats::HITS"), the
 * path's end at a "::" ("stats::HITS"), or its name alone. */
static bool global_named(const struct global_slot *g, const char *name)
{
	size_t n = strlen(name), len;

	if (!strchr(name, ':'))
		return !strcmp(g->name, name);
	if (!g->path || (len = strlen(g->path)) < n || strcmp(g->path + len - n, name))
		return false;
	return len == n || (len > n + 1 && g->path[len - n - 1] == ':' && g->path[len - n - 2] == ':');
}

/* The slot of global @name among those @located (or not): one at file
 * scope first (C's); else one in a namespace, when its name alone names
 * no other (two statics of one name in two Rust modules are told apart
 * by their paths, never guessed); NULL when none, or several (*@several
 * set). */
static const struct global_slot *global_slot(struct vars_cache *c, const char *name, bool located, bool *several)
{
	const struct global_slot *found = NULL;
	bool plain = !strchr(name, ':');
	struct htab_slot *slot = plain ? htab_get(&c->global_names, name, strlen(name), false) : NULL;

	if (plain && !slot)
		return NULL;
	/* a plain name: the globals of that name only, in their order */
	for (size_t i = plain ? slot->val : 0; i < c->n_globals; i = plain ? c->global_next[i] : i + 1) {
		const struct global_slot *g = &c->globals[i];

		if (g->located != located || !global_named(g, name))
			continue;
		if (!g->path)
			return g;
		if (!found)
			found = g;
		else if (strcmp(found->path, g->path))
			*several = true; /* none, unless one at file scope */
	}
	return *several ? NULL : found;
}

/* The definition of global @name: one with a location first; else, with
 * @any, one the compiler kept no location for (a static it folded away),
 * which is optimized out, as gdb says.  -ENOTUNIQ when the name alone
 * names globals of several namespaces. */
static int find_global(struct dw_module *m, struct vars_cache *c, const char *name, uint64_t pc,
		       bool any, struct dw_var *out)
{
	const struct global_slot *g;
	bool several = false;
	Dwarf_Die die;

	if (!c->globals_built)
		build_globals(c, dw_module_dwarf(m));
	for (int pass = 0; pass < (any ? 2 : 1) && !several; pass++) {
		g = global_slot(c, name, pass == 0, &several);
		if (g && dwarf_offdie(g->dw, g->off, &die)) {
			fill_var(c, &die, pc, NULL, DW_VAR_GLOBAL, out);
			return 0;
		}
	}
	return several ? -ENOTUNIQ : -ENOENT;
}

int dw_var_find_global(struct dw_module *m, const char *name, struct dw_var *out)
{
	struct vars_cache *c = vars_cache_of(m);

	memset(out, 0, sizeof(*out));
	/* what the index would say, without opening the DWARF to build it */
	if (!c->globals_built && dw_global_names_lack(c, name))
		return -ENOENT;
	if (!dw_module_dwarf(m))
		return -WR_ENODWARF;
	return find_global(m, c, name, 0, false, out);
}

/* ---- lookup ---- */

/* The scopes holding a probe's pc (dw_pc_scopes_anchored), outermost
 * first, split where C's scoping and the probe's standing cut them:
 * chain[anchor] is the function instance the probe stands in (the
 * function the user named, or the innermost one at the pc), chain[anchor
 * + 1 .. own) its blocks, chain[own ..) calls inlined into it at the pc,
 * chain[.. anchor) the functions it is inlined into. */
struct lookup {
	Dwarf_Die chain[MAX_SCOPES];
	int n, anchor, own;
	Dwarf_Die unit;     /* the unit of the anchor's definition: its statics */
};

static bool is_function_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

static bool plan_lookup(struct dw_module *m, const struct dw_at *at, struct lookup *lk)
{
	Dwarf_Die cudie, origin;
	const Dwarf_Die *chain;
	Dwarf_Attribute a;

	if ((lk->n = vars_scopes(vars_cache_of(m), at->pc, (Dwarf_Off)at->scope, &cudie, &chain)) <= 0)
		return false;
	memcpy(lk->chain, chain, (size_t)lk->n * sizeof(*chain));
	lk->anchor = -1;
	for (int i = lk->n; at->scope && i-- > 0;)
		if (dwarf_dieoffset(&lk->chain[i]) == at->scope && is_function_scope(dwarf_tag(&lk->chain[i])))
			lk->anchor = i;
	for (int i = lk->n; lk->anchor < 0 && i-- > 0;)
		if (is_function_scope(dwarf_tag(&lk->chain[i])))
			lk->anchor = i;
	if (lk->anchor < 0)
		return false;
	for (lk->own = lk->anchor + 1; lk->own < lk->n; lk->own++)
		if (dwarf_tag(&lk->chain[lk->own]) == DW_TAG_inlined_subroutine)
			break;
	/* an inlined function sees its own file's statics, not its caller's */
	lk->unit = cudie;
	if (dwarf_tag(&lk->chain[lk->anchor]) == DW_TAG_inlined_subroutine &&
	    dwarf_attr(&lk->chain[lk->anchor], DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin))
		dwarf_diecu(&origin, &lk->unit, NULL, NULL);
	return true;
}

/* The name of the function scope chain[i] belongs to (the nearest one at
 * or around it). */
static const char *frame_of(struct lookup *lk, int i)
{
	for (; i >= 0; i--)
		if (is_function_scope(dwarf_tag(&lk->chain[i])))
			return dwarf_diename(&lk->chain[i]);
	return NULL;
}

/* Variable @name in chain[i], filled in with @frame as where it came from. */
static bool find_in_chain(struct dw_module *m, struct lookup *lk, int i, const struct dw_at *at,
			  const char *name, bool mark, struct dw_var *out)
{
	Dwarf_Die var;

	if (!find_in_scope(&lk->chain[i], name, at->pc, &var))
		return false;
	fill_var_at(vars_cache_of(m), &var, at, &lk->chain[0],
		    dwarf_tag(&var) == DW_TAG_formal_parameter ? DW_VAR_PARAMETER : DW_VAR_LOCAL, out);
	out->frame = mark ? frame_of(lk, i) : NULL;
	return true;
}

int dw_var_find_at(struct dw_module *m, const struct dw_at *at, const char *name, struct dw_var *out)
{
	struct vars_cache *c;
	struct lookup lk;
	Dwarf_Die var;

	memset(out, 0, sizeof(*out));
	if (!dw_module_dwarf(m))
		return -WR_ENODWARF;
	c = vars_cache_of(m);
	if (plan_lookup(m, at, &lk)) {
		/* the probe's own function, its blocks innermost first */
		for (int i = lk.own; i-- > lk.anchor;)
			if (find_in_chain(m, &lk, i, at, name, false, out))
				return 0;
		/* then the calls inlined into it at the pc, innermost first */
		for (int i = lk.n; i-- > lk.own;)
			if (find_in_chain(m, &lk, i, at, name, true, out))
				return 0;
		if (find_in_scope(&lk.unit, name, at->pc, &var)) {
			fill_var_at(c, &var, at, NULL, DW_VAR_GLOBAL, out);
			return 0;
		}
	}
	return find_global(m, c, name, at->pc, true, out);
}

int dw_var_find(struct dw_module *m, uint64_t pc, const char *name, struct dw_var *out)
{
	struct dw_at at = { .pc = pc };

	return dw_var_find_at(m, &at, name, out);
}

int dw_var_find_outer(struct dw_module *m, const struct dw_at *at, const char *name, struct dw_var *out)
{
	struct lookup lk;

	memset(out, 0, sizeof(*out));
	if (!dw_module_dwarf(m))
		return -WR_ENODWARF;
	if (!plan_lookup(m, at, &lk))
		return -ENOENT;
	for (int i = lk.anchor; i-- > 0;)
		if (find_in_chain(m, &lk, i, at, name, true, out))
			return 0;
	return -ENOENT;
}

/* Calls @fn for each variable child of @scope; non-zero stops. */
static int each_child(Dwarf_Die *scope, int (*fn)(const struct dw_var *v, void *ctx), void *ctx)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return 0;
	do {
		struct dw_var v = { .name = dwarf_diename(&child) };

		if (is_var_tag(dwarf_tag(&child)) && v.name && !dwarf_hasattr(&child, DW_AT_declaration) &&
		    fn(&v, ctx))
			return 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The names of chain[i] (the abstract instance names what a concrete one
 * dropped). */
static int each_in_scope(Dwarf_Die *scope, int (*fn)(const struct dw_var *v, void *ctx), void *ctx)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;

	if (dwarf_attr(scope, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin))
		return each_child(&origin, fn, ctx);
	return each_child(scope, fn, ctx);
}

void dw_var_foreach_at(struct dw_module *m, const struct dw_at *at,
		       int (*fn)(const struct dw_var *v, void *ctx), void *ctx)
{
	struct lookup lk;

	if (!dw_module_dwarf(m) || !plan_lookup(m, at, &lk))
		return;
	for (int i = lk.own; i-- > lk.anchor;)
		if (each_in_scope(&lk.chain[i], fn, ctx))
			return;
	for (int i = lk.n; i-- > lk.own;)
		if (each_in_scope(&lk.chain[i], fn, ctx))
			return;
}

void dw_var_foreach(struct dw_module *m, uint64_t pc, int (*fn)(const struct dw_var *v, void *ctx),
		    void *ctx)
{
	struct dw_at at = { .pc = pc };

	dw_var_foreach_at(m, &at, fn, ctx);
}

/* ---- names at the top level of units: enumerators, functions ---- */

/* The enumerator @name among the children of enumeration DIE @e. */
static bool enumerator_in(Dwarf_Die *e, const char *name, int64_t *value)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	Dwarf_Sword v = 0;

	if (dwarf_child(e, &child) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&child);

		if (dwarf_tag(&child) != DW_TAG_enumerator || !n || strcmp(n, name))
			continue;
		if (dwarf_attr(&child, DW_AT_const_value, &a))
			dwarf_formsdata(&a, &v);
		*value = v;
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Does top-level DIE @die match @name?  @arg: what the matcher fills. */
typedef bool (*die_match)(Dwarf_Die *die, const char *name, void *arg);

/* The first top-level child of @cu that @match accepts, in @out. */
static bool find_in_unit(Dwarf_Die *cu, die_match match, const char *name, void *arg, Dwarf_Die *out)
{
	if (dwarf_child(cu, out) != 0)
		return false;
	do {
		if (match(out, name, arg))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* The first top-level child @match accepts of unit @cu of file @dw, or
 * with @cu NULL of every unit in order, into @out.  A probe of many
 * sites asks the same of one unit at each (a name no variable has, looked
 * for as a function and an enumerator): each answer is kept, so the
 * units are read once. */
static bool find_kept(struct vars_cache *c, Dwarf *dw, Dwarf_Die *cu, die_match match, const char *name,
		      void *arg, Dwarf_Die *out)
{
	struct { Dwarf *dw; Dwarf_Off unit; die_match match; } head = { dw, cu ? dwarf_dieoffset(cu) : 0, match };
	size_t len = sizeof(head) + strlen(name);
	char *key = xmalloc(len);
	struct htab_slot *slot;
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool found = false;
	Dwarf_Die unit;

	memcpy(key, &head, sizeof(head));
	memcpy(key + sizeof(head), name, len - sizeof(head));
	slot = htab_get(&c->top_found, key, len, true);
	if (slot->key) {
		free(key);
		off = c->found[slot->val];
		return off && dwarf_offdie(dw, off, out) && match(out, name, arg);
	}
	if (cu)
		found = find_in_unit(cu, match, name, arg, out);
	for (; !cu && !found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next)
		found = dwarf_offdie(dw, off + hsize, &unit) && find_in_unit(&unit, match, name, arg, out);
	c->found = xgrow(c->found, &c->cap_found, c->n_found + 1, sizeof(*c->found));
	c->found[c->n_found] = found ? dwarf_dieoffset(out) : 0;
	slot->key = vars_own(c, key);
	slot->len = len;
	slot->val = (uint32_t)c->n_found++;
	return found;
}

/* A top-level DIE that @match accepts: in the unit of @pc first, as C
 * scopes names, then in any unit.  0, -ENOENT or -WR_ENODWARF. */
static int find_top_level(struct dw_module *m, uint64_t pc, die_match match, const char *name, void *arg,
			  Dwarf_Die *out)
{
	struct vars_cache *c = vars_cache_of(m);
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_Die cu;

	if (!dw)
		return -WR_ENODWARF;
	if (dw_unit_at(m, pc, &cu) && find_kept(c, dwarf_cu_getdwarf(cu.cu), &cu, match, name, arg, out))
		return 0;
	return find_kept(c, dw, NULL, match, name, arg, out) ? 0 : -ENOENT;
}

static bool is_enumeration_with(Dwarf_Die *die, const char *name, void *value)
{
	return dwarf_tag(die) == DW_TAG_enumeration_type && enumerator_in(die, name, value);
}

static bool abstract_origin(Dwarf_Die *die, Dwarf_Die *out);

/* An enum declared in a scope that holds @pc (a block, an inlined call,
 * the function, or the abstract instance of one) with enumerator @name,
 * innermost first, in *@out. */
static bool local_enumeration_with(struct dw_module *m, uint64_t pc, const char *name, int64_t *value,
				   Dwarf_Die *out)
{
	Dwarf_Die cudie, chain[MAX_SCOPES], origin;
	const Dwarf_Die *kept;
	int n;

	if (!dw_module_dwarf(m) || (n = vars_scopes(vars_cache_of(m), pc, 0, &cudie, &kept)) < 0)
		return false;
	memcpy(chain, kept, (size_t)n * sizeof(*kept));
	for (int i = n - 1; i >= 0; i--)
		if (find_in_unit(&chain[i], is_enumeration_with, name, value, out) ||
		    (abstract_origin(&chain[i], &origin) &&
		     find_in_unit(&origin, is_enumeration_with, name, value, out)))
			return true;
	return false;
}

int dw_enumerator_find(struct dw_module *m, uint64_t pc, const char *name, const struct dw_type **type,
		       int64_t *value)
{
	Dwarf_Die e;
	int err = local_enumeration_with(m, pc, name, value, &e) ? 0
		  : find_top_level(m, pc, is_enumeration_with, name, value, &e);

	if (!err)
		*type = vars_type_die(vars_cache_of(m), &e);
	return err;
}

/* A definition (it has code) of function @name. */
static bool is_function_named(Dwarf_Die *die, const char *name, void *lowpc)
{
	const char *n = dwarf_diename(die);

	return dwarf_tag(die) == DW_TAG_subprogram && n && strcmp(n, name) == 0 &&
	       dwarf_lowpc(die, lowpc) == 0;
}

int dw_function_find(struct dw_module *m, uint64_t pc, const char *name, const struct dw_type **type,
		     uint64_t *vaddr)
{
	Dwarf_Die f;
	Dwarf_Addr lowpc = 0;
	int err = find_top_level(m, pc, is_function_named, name, &lowpc, &f);

	if (err)
		return err;
	*type = vars_type_die(vars_cache_of(m), &f);
	*vaddr = lowpc;
	return 0;
}
/* ---- a frame's variables (bt args, bt full) ---- */

/* The register parameter @param of function @fn is in at @fn's entry,
 * +1; 0 when its location there is not one register. */
static unsigned entry_register(Dwarf_Die *param, Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	Dwarf_Addr entry;
	Dwarf_Op *ops;
	size_t n;

	if (!dw_die_entry_pc(fn, &entry) || !dwarf_attr_integrate(param, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, entry, &ops, &n, 1) != 1 || n != 1)
		return 0;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return (unsigned)(ops[0].atom - DW_OP_reg0) + 1;
	return ops[0].atom == DW_OP_regx ? (unsigned)ops[0].number + 1 : 0;
}

/* One scope's variables, listed as gdb reads a scope's symbols
 * (read_func_scope, then inherit_abstract_dies): the scope's own
 * children in their order, then those of its abstract instance that none
 * of them stands for (what an inlined copy dropped: optimized out).  A
 * block without addresses (all of an abstract instance's) is read as
 * part of the scope around it. */
struct scope_walk {
	struct vars_cache *c;
	Dwarf_Die *scope;  /* the concrete scope */
	uint64_t pc;
	/* A caller's frame: the address its call returns to (pc is the
	 * call's last byte), else 0 (dw_frame_vars_returning()). */
	uint64_t ret_pc;
	Dwarf_Die *fn;     /* the function whose code holds pc */
	bool params, locals;
	int (*cb)(const struct dw_var *v, void *ctx);
	void *ctx;
	/* A block's variables, held to be listed in gdb's order
	 * (list_held) once all are known; a function's are listed as
	 * found. */
	struct held *held;
	size_t n_held, cap_held;
	unsigned n_symbols;  /* the symbols gdb makes of the block's DIEs */
	bool hashed;
};

/* A variable listed in a block, in the walk's order. */
struct held {
	Dwarf_Die parent, die;
	bool concrete;
	unsigned bucket;
	size_t seq;
};

static bool is_flat_block(Dwarf_Die *die)
{
	return dwarf_tag(die) == DW_TAG_lexical_block && !dwarf_hasattr(die, DW_AT_high_pc) &&
	       !dwarf_hasattr(die, DW_AT_ranges);
}

/* Whether @die is the first variable of its name among @parent's
 * children that may be the same variable. */
static bool is_first_named(Dwarf_Die *parent, Dwarf_Die *die, const char *name)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&child);

		if (is_var_tag(dwarf_tag(&child)) && !dwarf_hasattr(&child, DW_AT_declaration) && n &&
		    strcmp(n, name) == 0 && may_be_same(&child, die))
			return dwarf_dieoffset(&child) == dwarf_dieoffset(die);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Whether @die of @parent is listed: a variable or parameter (of two
 * entries of one name in a concrete scope, the first, once: find_child
 * picks the one to read), or a label whose code is gone (no address: gdb
 * lists it as optimized out, and a label with an address not at all). */
/* Whether @die's constant value is in a form gdb keeps as bytes rather
 * than as a number (a string, a block, 16 bytes, an address): gdb's bt
 * full and info locals leave such a local out (print still shows it). */
static bool is_const_bytes(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_const_value, &a))
		return false;
	switch (dwarf_whatform(&a)) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_sdata:
	case DW_FORM_udata:
	case DW_FORM_implicit_const:
		return false;
	default:
		return true;
	}
}

static bool is_listed(Dwarf_Die *parent, Dwarf_Die *die, const char *name, bool concrete)
{
	int tag = dwarf_tag(die);

	if (tag == DW_TAG_label)
		return !dwarf_hasattr(die, DW_AT_low_pc);
	if (!is_var_tag(tag) || dwarf_hasattr(die, DW_AT_declaration))
		return false;
	if (tag == DW_TAG_variable && is_const_bytes(die))
		return false;
	return !concrete || is_first_named(parent, die, name);
}

/* An enumerator of an enum declared in a function's scope: gdb makes
 * it a symbol of that scope and lists it among the locals, its value
 * its own name (`CAS_NONE = CAS_NONE`).  @parent is its enum type. */
static int list_enumerator(struct scope_walk *w, Dwarf_Die *parent, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	struct dw_var v = { .name = name, .scope = DW_VAR_LOCAL, .type = vars_type_die(w->c, parent) };

	for (size_t i = 0; i < v.type->n_enumerators; i++) {
		const struct dw_enumerator *e = &v.type->enumerators[i];

		if (e->name && !strcmp(e->name, name)) {
			v.name = e->symbol;
			v.loc = (struct dw_loc){ .kind = DW_LOC_CONST, .offset = e->value };
			return w->cb(&v, w->ctx);
		}
	}
	return 0;
}

/* Whether a value at @loc lies (in part) in a register a call may change,
 * or is read through one. */
static bool in_clobbered(const struct dw_loc *loc)
{
	switch (loc->kind) {
	case DW_LOC_REG:
	case DW_LOC_MEM_REG:
	case DW_LOC_VALUE_REG:
		return !x86_call_preserves(loc->reg);
	case DW_LOC_PIECES:
		for (size_t i = 0; i < loc->n_pieces; i++)
			if (in_clobbered(&loc->pieces[i].loc))
				return true;
		return false;
	case DW_LOC_UNSUPPORTED:
		return loc->unreadable_reg != 0; /* a vector register */
	default:
		return false;
	}
}

/* Whether a value at @loc is wholly where a call leaves it: registers it
 * preserves, the frame's slots, a constant, a static's address, or the
 * value the function was passed (DW_OP_entry_value). */
static bool kept_by_call(const struct dw_loc *loc)
{
	if (loc->entry_reg)
		return true; /* what the function's caller passed */
	switch (loc->kind) {
	case DW_LOC_REG:
	case DW_LOC_MEM_REG:
	case DW_LOC_VALUE_REG:
		return x86_call_preserves(loc->reg);
	case DW_LOC_MEM_CFA:
	case DW_LOC_MEM_ADDR:
	case DW_LOC_CONST:
		return true;
	case DW_LOC_PIECES:
		for (size_t i = 0; i < loc->n_pieces; i++)
			if (!kept_by_call(&loc->pieces[i].loc))
				return false;
		return loc->n_pieces > 0;
	default:
		return false;
	}
}

/* In a caller's frame, a variable that the debug information puts, at
 * the call, in a register the call may change, and at the address the
 * call returns to in one it preserves (clang moves a parameter to rbx
 * before the call and starts rbx's range at the return address): nothing
 * of the caller runs between the two, and the callee gives that register
 * back as it found it, so the value is the one there at the call. */
static void located_across_call(struct scope_walk *w, Dwarf_Die *die, struct dw_var *v)
{
	struct dw_var after;

	if (!w->ret_pc || !in_clobbered(&v->loc))
		return;
	fill_var(w->c, die, w->ret_pc, w->fn, v->scope, &after);
	/* a library value in registers (a Rust &str) shows what it points
	 * to only from memory a recipe copied, which registers cannot name */
	if (kept_by_call(&after.loc) &&
	    !(after.loc.kind == DW_LOC_PIECES && v->type && dw_std_walkable(v->type, 0)))
		v->loc = after.loc;
}

static int list(struct scope_walk *w, Dwarf_Die *parent, Dwarf_Die *die, bool concrete)
{
	const char *name = dwarf_diename(die);
	bool param = dwarf_tag(die) == DW_TAG_formal_parameter;
	Dwarf_Die use = *die;
	struct dw_var v;

	if (dwarf_tag(die) == DW_TAG_enumerator)
		return list_enumerator(w, parent, die);
	if (concrete && is_var_tag(dwarf_tag(die)))
		pick_child(parent, name, die, w->pc, &use);
	fill_var(w->c, &use, w->pc, w->fn, param ? DW_VAR_PARAMETER : DW_VAR_LOCAL, &v);
	located_across_call(w, &use, &v);
	if (param && dwarf_tag(w->scope) == DW_TAG_subprogram)
		v.entry_reg = entry_register(&use, w->scope);
	return w->cb(&v, w->ctx);
}

/* How many symbols gdb's reader makes of @die, a child of a block (what
 * sizes the block's hash table): a named variable (a declaration only
 * when external), label, type or typedef, and an enumeration's
 * enumerators. */
static unsigned gdb_symbols(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	unsigned n = 0;
	Dwarf_Die e;

	if (tag == DW_TAG_enumeration_type && dwarf_child(die, &e) == 0)
		do
			n += dwarf_tag(&e) == DW_TAG_enumerator;
		while (dwarf_siblingof(&e, &e) == 0);
	if (!dwarf_diename(die))
		return n;
	if (is_var_tag(tag))
		return !dwarf_hasattr(die, DW_AT_declaration) || dwarf_hasattr_integrate(die, DW_AT_external);
	return n + (tag == DW_TAG_label || tag == DW_TAG_typedef || tag == DW_TAG_structure_type ||
		    tag == DW_TAG_class_type || tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type);
}

static int take(struct scope_walk *w, Dwarf_Die *parent, Dwarf_Die *die, bool concrete)
{
	if (!w->hashed)
		return list(w, parent, die, concrete);
	w->held = xgrow(w->held, &w->cap_held, w->n_held + 1, sizeof(*w->held));
	w->held[w->n_held] = (struct held){ .parent = *parent, .die = *die, .concrete = concrete,
					    .seq = w->n_held };
	w->n_held++;
	return 0;
}

/* The enumerators of enum type @die, declared in the scope: locals to
 * gdb (list_enumerator). */
static int emit_enumerators(struct scope_walk *w, Dwarf_Die *die, bool concrete)
{
	Dwarf_Die e;

	if (dwarf_child(die, &e) != 0)
		return 0;
	do
		if (dwarf_tag(&e) == DW_TAG_enumerator && dwarf_diename(&e) && take(w, die, &e, concrete))
			return 1;
	while (dwarf_siblingof(&e, &e) == 0);
	return 0;
}

static int emit(struct scope_walk *w, Dwarf_Die *parent, Dwarf_Die *die, bool concrete)
{
	const char *name = dwarf_diename(die);
	bool param = dwarf_tag(die) == DW_TAG_formal_parameter;

	if (w->hashed)
		w->n_symbols += gdb_symbols(die);
	if (dwarf_tag(die) == DW_TAG_enumeration_type)
		return w->locals ? emit_enumerators(w, die, concrete) : 0;
	if (!name || (param ? !w->params : !w->locals) || !is_listed(parent, die, name, concrete))
		return 0;
	return take(w, parent, die, concrete);
}

static int walk_children(struct scope_walk *w, Dwarf_Die *parent, bool concrete)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		if (is_flat_block(&child) ? walk_children(w, &child, concrete) : emit(w, parent, &child, concrete))
			return 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static bool abstract_origin(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, out);
}

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* Whether the children of @a and @b have the same tags in the same
 * order (gdb then takes a block without DW_AT_abstract_origin, as clang
 * writes them, for the abstract block in its place). */
static bool is_isomorphic(Dwarf_Die *a, Dwarf_Die *b)
{
	Dwarf_Die x, y;
	int hx = dwarf_child(a, &x), hy = dwarf_child(b, &y);

	while (hx == 0 && hy == 0 && dwarf_tag(&x) == dwarf_tag(&y)) {
		hx = dwarf_siblingof(&x, &x);
		hy = dwarf_siblingof(&y, &y);
	}
	return hx != 0 && hy != 0;
}

static bool is_call_site(int tag)
{
	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

/* The DIE of an abstract instance that @child, a child of a concrete
 * scope, stands for; false when none.  @peer: the abstract scope's child
 * in @child's place when the two scopes are isomorphic, else NULL. */
static bool stands_for(Dwarf_Die *child, Dwarf_Die *peer, Dwarf_Die *out)
{
	int hops = 0;

	for (*out = *child; hops < 8 && abstract_origin(out, out); hops++)
		;
	if (!hops && peer && dwarf_tag(child) == DW_TAG_lexical_block) {
		*out = *peer;
		return true;
	}
	return hops > 0;
}

/* The DIEs of abstract instance @origin that the children of its
 * concrete @scope stand for, sorted, @n of them (call sites name
 * callees, not stand-ins).  Caller frees. */
static Dwarf_Off *stood_for(Dwarf_Die *scope, Dwarf_Die *origin, size_t *n)
{
	bool iso = is_isomorphic(scope, origin);
	Dwarf_Off *offs = NULL;
	Dwarf_Die child, peer, o;
	size_t cap = 0;

	*n = 0;
	if (dwarf_child(scope, &child) != 0 || (iso && dwarf_child(origin, &peer) != 0))
		return NULL;
	do {
		if (!is_call_site(dwarf_tag(&child)) && stands_for(&child, iso ? &peer : NULL, &o)) {
			offs = xgrow(offs, &cap, *n + 1, sizeof(*offs));
			offs[(*n)++] = dwarf_dieoffset(&o);
		}
	} while (dwarf_siblingof(&child, &child) == 0 && (!iso || dwarf_siblingof(&peer, &peer) == 0));
	if (offs)
		qsort(offs, *n, sizeof(*offs), cmp_off);
	return offs;
}

/* The children of @origin, the abstract instance of w->scope, that no
 * child of w->scope stands for. */
static int walk_inherited(struct scope_walk *w, Dwarf_Die *origin)
{
	size_t n;
	Dwarf_Off *offs = stood_for(w->scope, origin, &n), off;
	Dwarf_Die child;
	int stop = 0;

	if (dwarf_child(origin, &child) == 0)
		do {
			off = dwarf_dieoffset(&child);
			if (n && bsearch(&off, offs, n, sizeof(*offs), cmp_off))
				continue;
			stop = is_flat_block(&child) ? walk_children(w, &child, false)
						     : emit(w, origin, &child, false);
		} while (!stop && dwarf_siblingof(&child, &child) == 0);
	free(offs);
	return stop;
}

/* ---- gdb's order of a block's symbols ---- */

static unsigned hash_step(unsigned h, char ch)
{
	return h * 67 + (unsigned)tolower((unsigned char)ch) - 113;
}

/* gdb's msymbol_hash_iw: the name up to a '(', blanks left out. */
static unsigned plain_hash(const char *s)
{
	unsigned h = 0;

	for (; *s && *s != '('; s++)
		if (!isspace((unsigned char)*s))
			h = hash_step(h, *s);
	return h;
}

/* gdb's default search-name hash (made for Ada's encoded names), which C
 * and the other languages but C++ use: it stops at an 'X', '$' or '.'
 * past the first character, and starts again after a "__" followed by
 * a lower-case letter or 'O'. */
static unsigned default_hash(const char *s0)
{
	const char *s = s0;
	unsigned h = 0;

	if (*s == '_' && strncmp(s, "_ada_", 5) != 0)
		return plain_hash(s0);
	s += *s == '_' ? 5 : 0;
	for (; *s; s++) {
		if (*s == '$' || *s == '.' || *s == 'X')
			return s == s0 ? plain_hash(s0) : h;
		if (*s == ' ' || *s == '(')
			return plain_hash(s0);
		if (*s == '_' && s[1] == '_' && s != s0) {
			if ((s[2] < 'a' || s[2] > 'z') && s[2] != 'O')
				return h;
			h = 0;
			s++;
			continue;
		}
		if (strcmp(s, "TKB") == 0)
			return h;
		h = hash_step(h, *s);
	}
	return h;
}

/* gdb's C++ search-name hash: the last component (past the last "::"
 * outside template arguments), up to a '(' or an ABI tag, blanks left
 * out. */
static unsigned cxx_hash(const char *s)
{
	const char *last = s;
	unsigned h = 0;
	int depth = 0;

	for (const char *p = s; *p; p++) {
		depth += (*p == '<' || *p == '(') - (*p == '>' || *p == ')');
		if (!depth && p[0] == ':' && p[1] == ':')
			last = p + 2;
	}
	for (s = last; *s && *s != '(' && strncmp(s, "[abi:", 5) != 0; s++)
		if (!isspace((unsigned char)*s))
			h = hash_step(h, *s);
	return h;
}

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Lists the held variables of a block in gdb's order: gdb keeps a
 * block's symbols in a hash table of (symbols / 5 + 1) buckets, each
 * bucket in the order read, and lists them bucket by bucket (a
 * function's own in the order read). */
static int list_held(struct scope_walk *w)
{
	unsigned buckets = w->n_symbols / 5 + 1;
	bool cxx = typename_is_cxx(w->scope);
	int stop = 0;

	for (size_t i = 0; i < w->n_held; i++) {
		const char *name = dwarf_diename(&w->held[i].die);

		w->held[i].bucket = (cxx ? cxx_hash(name) : default_hash(name)) % buckets;
	}
	qsort(w->held, w->n_held, sizeof(*w->held), cmp_held);
	for (size_t i = 0; i < w->n_held && !stop; i++)
		stop = list(w, &w->held[i].parent, &w->held[i].die, w->held[i].concrete);
	return stop;
}

static int scope_vars(struct vars_cache *c, Dwarf_Die *scope, uint64_t pc, uint64_t ret_pc, Dwarf_Die *fn,
		      bool params, bool locals, int (*cb)(const struct dw_var *v, void *ctx),
		      void *ctx)
{
	struct scope_walk w = { .c = c, .scope = scope, .pc = pc, .ret_pc = ret_pc, .fn = fn, .params = params,
				.locals = locals, .cb = cb, .ctx = ctx,
				.hashed = !is_function_scope(dwarf_tag(scope)) };
	Dwarf_Die origin;
	int stop = walk_children(&w, scope, true);

	if (!stop && abstract_origin(scope, &origin))
		stop = walk_inherited(&w, &origin);
	if (!stop && w.hashed)
		stop = list_held(&w);
	free(w.held);
	return stop;
}

bool dw_frame_knows_callee_clobbers(struct dw_module *m, uint64_t pc)
{
	Dwarf_Die cudie, chain[MAX_SCOPES];
	Dwarf_Attribute a;
	const char *producer;

	if (!dw_module_dwarf(m) || !dw_unit_at(m, pc, &cudie) || dw_pc_scopes(&cudie, pc, chain, MAX_SCOPES) < 1)
		return false;
	producer = dwarf_formstring(dwarf_attr(&cudie, DW_AT_producer, &a));
	/* GCC tracked the function's variables: it described all its calls
	 * (without, under -fvar-tracking's size limit, a parameter's
	 * incoming register stands for the whole function) */
	return producer && strncmp(producer, "GNU ", 4) == 0 && !strstr(producer, "clang") &&
	       (dwarf_hasattr(&chain[0], DW_AT_call_all_calls) || dwarf_hasattr(&chain[0], DW_AT_GNU_all_call_sites));
}

void dw_frame_vars(struct dw_module *m, uint64_t pc, unsigned level, bool params, bool locals,
		   int (*fn)(const struct dw_var *v, void *ctx), void *ctx)
{
	dw_frame_vars_returning(m, pc, 0, level, params, locals, fn, ctx);
}

void dw_frame_vars_returning(struct dw_module *m, uint64_t pc, uint64_t ret_pc, unsigned level, bool params,
			     bool locals, int (*fn)(const struct dw_var *v, void *ctx), void *ctx)
{
	Dwarf_Die cudie, chain[MAX_SCOPES];
	const Dwarf_Die *kept;
	struct vars_cache *c;
	unsigned at = 0;
	int n, last;

	if (!dw_module_dwarf(m))
		return;
	c = vars_cache_of(m);
	if ((n = vars_scopes(c, pc, 0, &cudie, &kept)) < 0)
		return;
	memcpy(chain, kept, (size_t)n * sizeof(*kept));
	/* From the innermost scope out, scopes (i, last] belong to function
	 * level @at: blocks, then the inlined call or function holding them.
	 * Parameters first, then locals innermost block first (as gdb). */
	for (int i = n - 1, top = n - 1; i >= 0 && (level == DW_FRAME_ALL || at <= level); i--) {
		if (!is_function_scope(dwarf_tag(&chain[i])))
			continue;
		last = top;
		top = i - 1;
		if (at++ < level && level != DW_FRAME_ALL)
			continue;
		if (scope_vars(c, &chain[i], pc, ret_pc, &chain[0], params, false, fn, ctx))
			return;
		for (int k = last; k >= i && locals; k--)
			if (scope_vars(c, &chain[k], pc, ret_pc, &chain[0], false, true, fn, ctx))
				return;
	}
}
