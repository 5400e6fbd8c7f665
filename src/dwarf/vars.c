/* vars.c - variables and their types from DWARF (see vars.h).
 *
 * Lookup follows C scoping at the pc; locations come from location.c,
 * which turns any DWARF expression a probe can compute into a location.
 *
 * Types are converted once per DIE into struct dw_type, with typedefs and
 * qualifiers folded into the name, and cached in the module's extension
 * slot together with everything they own.
 */
#include "dwarf/vars.h"
#include "dwarf/vars_priv.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPE_DEPTH 24

static void cache_destroy(void *data)
{
	struct vars_cache *c = data;

	for (size_t i = 0; i < c->n_owned; i++)
		free(c->owned[i]);
	free(c->owned);
	offmap_release(&c->types);
	free(c->globals);
	free(c);
}

static struct vars_cache *cache_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_VARS];

	if (!ext->data) {
		ext->data = xcalloc(1, sizeof(struct vars_cache));
		ext->destroy = cache_destroy;
	}
	return ext->data;
}

void *vars_own(struct vars_cache *c, void *p)
{
	c->owned = xgrow(c->owned, &c->cap_owned, c->n_owned + 1, sizeof(*c->owned));
	c->owned[c->n_owned++] = p;
	return p;
}

#define own vars_own

static char *own_str(struct vars_cache *c, char *s)
{
	return own(c, s);
}

/* ---- the type cache ---- */

static const struct dw_type void_type = { .kind = DW_TYPE_VOID, .name = "void" };
static const struct dw_type unknown_type = { .kind = DW_TYPE_UNKNOWN, .name = "<unknown type>" };

static const struct dw_type *build_type(struct vars_cache *c, Dwarf_Die *die, int depth);

/* The type DW_AT_type of @die refers to; void when it has none. */
static const struct dw_type *type_of(struct vars_cache *c, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a))
		return &void_type;
	if (!dwarf_formref_die(&a, &t))
		return &unknown_type;
	return build_type(c, &t, depth + 1);
}

static uint64_t udata_attr(Dwarf_Die *die, unsigned name, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &v))
		return dflt;
	return v;
}

static void set_base(struct dw_type *t, Dwarf_Die *die)
{
	uint64_t enc = udata_attr(die, DW_AT_encoding, 0);

	t->size = udata_attr(die, DW_AT_byte_size, 0);
	t->kind = DW_TYPE_INT;
	if (enc == DW_ATE_boolean)
		t->kind = DW_TYPE_BOOL;
	else if (enc == DW_ATE_float)
		t->kind = DW_TYPE_FLOAT;
	t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
		     (t->size == 1 && t->name && strstr(t->name, "char"));
}

static void add_members(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int depth)
{
	struct dw_member *v = NULL;
	size_t n = 0, cap = 0;
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		struct dw_member *mb;

		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		mb = &v[n++];
		memset(mb, 0, sizeof(*mb));
		mb->name = tag == DW_TAG_inheritance ? "<base>" : dwarf_diename(&child);
		mb->offset = udata_attr(&child, DW_AT_data_member_location, 0);
		mb->bit_size = (unsigned)udata_attr(&child, DW_AT_bit_size, 0);
		if (mb->bit_size) {
			uint64_t dbo = udata_attr(&child, DW_AT_data_bit_offset, UINT64_MAX);

			if (dbo != UINT64_MAX) {
				mb->offset = dbo / 8;
				mb->bit_offset = (unsigned)(dbo % 8);
			}
		}
		mb->type = type_of(c, &child, depth);
	} while (dwarf_siblingof(&child, &child) == 0);
	t->members = own(c, v);
	t->n_members = n;
}

static void add_enumerators(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die)
{
	struct dw_enumerator *v = NULL;
	size_t n = 0, cap = 0;
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword val = 0;

		if (dwarf_tag(&child) != DW_TAG_enumerator)
			continue;
		if (dwarf_attr(&child, DW_AT_const_value, &a))
			dwarf_formsdata(&a, &val);
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].name = dwarf_diename(&child);
		v[n].value = val;
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	t->enumerators = own(c, v);
	t->n_enumerators = n;
}

/* Array dimensions, outermost first: int a[2][3] is an array of 2 arrays
 * of 3 ints. */
static void set_array(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int depth)
{
	const struct dw_type *elem = type_of(c, die, depth);
	uint64_t counts[8];
	size_t n = 0;
	Dwarf_Die child;

	if (dwarf_child(die, &child) == 0) {
		do {
			uint64_t count = udata_attr(&child, DW_AT_count, 0);

			if (dwarf_tag(&child) != DW_TAG_subrange_type || n == 8)
				continue;
			if (!count && dwarf_hasattr(&child, DW_AT_upper_bound))
				count = udata_attr(&child, DW_AT_upper_bound, 0) + 1;
			counts[n++] = count;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	for (size_t i = n; i-- > 1;) {
		struct dw_type *inner = own(c, xcalloc(1, sizeof(*inner)));

		inner->kind = DW_TYPE_ARRAY;
		inner->target = elem;
		inner->count = counts[i];
		inner->size = elem->size * counts[i];
		inner->name = own_str(c, xasprintf("%s[%llu]", elem->name, (unsigned long long)counts[i]));
		elem = inner;
	}
	t->kind = DW_TYPE_ARRAY;
	t->target = elem;
	t->count = n ? counts[0] : 0;
	t->size = elem->size * t->count;
	t->is_char = elem->is_char;
	t->name = own_str(c, xasprintf("%s[%llu]", elem->name, (unsigned long long)t->count));
}

static const char *aggregate_name(struct vars_cache *c, int tag, const char *name)
{
	const char *kw = tag == DW_TAG_structure_type ? "struct " : tag == DW_TAG_union_type ? "union "
		       : tag == DW_TAG_enumeration_type ? "enum " : "";

	return own_str(c, xasprintf("%s%s", kw, name ? name : "<anonymous>"));
}

/* Fill @t from @die; @t is already cached, so recursive types terminate. */
static void fill_type(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int depth)
{
	int tag = dwarf_tag(die);
	const char *name = dwarf_diename(die);

	switch (tag) {
	case DW_TAG_base_type:
		t->name = name ? name : "?";
		set_base(t, die);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		t->kind = DW_TYPE_POINTER;
		t->size = 8;
		t->target = type_of(c, die, depth);
		t->name = own_str(c, xasprintf("%s %s", t->target->name,
					       tag == DW_TAG_pointer_type ? "*" : "&"));
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		t->kind = tag == DW_TAG_union_type ? DW_TYPE_UNION : DW_TYPE_STRUCT;
		t->size = udata_attr(die, DW_AT_byte_size, 0);
		t->name = aggregate_name(c, tag, name);
		add_members(c, t, die, depth);
		break;
	case DW_TAG_enumeration_type:
		t->kind = DW_TYPE_ENUM;
		t->size = udata_attr(die, DW_AT_byte_size, 4);
		t->name = aggregate_name(c, tag, name);
		t->is_signed = type_of(c, die, depth)->is_signed;
		add_enumerators(c, t, die);
		break;
	case DW_TAG_array_type:
		set_array(c, t, die, depth);
		break;
	case DW_TAG_subroutine_type:
		t->kind = DW_TYPE_FUNCTION;
		t->name = "function";
		break;
	default:
		t->kind = DW_TYPE_UNKNOWN;
		t->name = name ? name : "?";
		break;
	}
}

/* Typedefs and qualifiers: the type underneath, under the typedef's name. */
static const struct dw_type *build_alias(struct vars_cache *c, Dwarf_Die *die, int depth)
{
	const struct dw_type *under = type_of(c, die, depth);
	struct dw_type *t;

	if (dwarf_tag(die) != DW_TAG_typedef)
		return under; /* const, volatile, restrict, atomic */
	t = own(c, xmalloc(sizeof(*t)));
	*t = *under;
	t->name = dwarf_diename(die) ? dwarf_diename(die) : under->name;
	return t;
}

static const struct dw_type *build_type(struct vars_cache *c, Dwarf_Die *die, int depth)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	struct dw_type *t = offmap_get(&c->types, off);
	int tag = dwarf_tag(die);
	const struct dw_type *alias;

	if (t)
		return t;
	if (depth > MAX_TYPE_DEPTH)
		return &unknown_type;
	if (tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	    tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type) {
		alias = build_alias(c, die, depth);
		offmap_put(&c->types, off, (struct dw_type *)alias);
		return alias;
	}
	t = own(c, xcalloc(1, sizeof(*t)));
	offmap_put(&c->types, off, t);
	fill_type(c, t, die, depth);
	return t;
}

/* ---- locations ---- */

static void locate(struct vars_cache *c, Dwarf_Die *var, uint64_t pc, const struct dw_expr *fb,
		   struct dw_loc *out)
{
	Dwarf_Attribute a;

	memset(out, 0, sizeof(*out));
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		Dwarf_Sword v = 0;

		out->kind = dwarf_formsdata(&a, &v) == 0 ? DW_LOC_CONST : DW_LOC_UNSUPPORTED;
		out->offset = v;
		out->why = "a constant this version cannot read";
		return;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a)) {
		out->kind = DW_LOC_OPTIMIZED_OUT;
		return;
	}
	vars_locate(c, &a, pc, fb, out);
}

/* ---- lookup ---- */

static bool is_var_tag(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* Search the direct children of @scope for variable @name. */
static bool find_in_scope(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return false;
	do {
		const char *n;

		if (!is_var_tag(dwarf_tag(&child)))
			continue;
		n = dwarf_diename(&child);
		if (n && strcmp(n, name) == 0) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static void fill_var(struct vars_cache *c, Dwarf_Die *die, uint64_t pc, Dwarf_Die *fn,
		     enum dw_var_scope scope, struct dw_var *out)
{
	const char *why = NULL;
	const struct dw_expr *fb = fn ? vars_frame_base(c, fn, pc, &why) : NULL;

	out->name = dwarf_diename(die);
	out->scope = scope;
	out->type = type_of(c, die, 0);
	locate(c, die, pc, fb, &out->loc);
}

static void build_globals(struct dw_module *m, struct vars_cache *c)
{
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_Off off = 0, next;
	size_t hsize;

	c->globals_built = true;
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				const char *name = dwarf_diename(&child);

				if (dwarf_tag(&child) != DW_TAG_variable || !name ||
				    !dwarf_hasattr_integrate(&child, DW_AT_location))
					continue;
				c->globals = xgrow(c->globals, &c->cap_globals, c->n_globals + 1,
						   sizeof(*c->globals));
				c->globals[c->n_globals].name = name;
				c->globals[c->n_globals].off = dwarf_dieoffset(&child);
				c->n_globals++;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
}

static int find_global(struct dw_module *m, struct vars_cache *c, const char *name, uint64_t pc,
		       struct dw_var *out)
{
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_Die die;

	if (!c->globals_built)
		build_globals(m, c);
	for (size_t i = 0; i < c->n_globals; i++) {
		if (strcmp(c->globals[i].name, name) != 0 || !dwarf_offdie(dw, c->globals[i].off, &die))
			continue;
		fill_var(c, &die, pc, NULL, DW_VAR_GLOBAL, out);
		return 0;
	}
	return -ENOENT;
}

int dw_var_find(struct dw_module *m, uint64_t pc, const char *name, struct dw_var *out)
{
	struct vars_cache *c;
	Dwarf_Die cudie, *scopes = NULL, var, *fn = NULL;
	int n, err = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!dw_module_dwarf(m))
		return -WR_ENODWARF;
	c = cache_of(m);
	n = dw_unit_at(m, pc, &cudie) ? dwarf_getscopes(&cudie, pc, &scopes) : 0;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (!fn && tag == DW_TAG_subprogram)
			fn = &scopes[i];
	}
	for (int i = 0; i < n && err; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (!find_in_scope(&scopes[i], name, &var))
			continue;
		fill_var(c, &var, pc, tag == DW_TAG_compile_unit ? NULL : fn,
			 tag == DW_TAG_compile_unit ? DW_VAR_GLOBAL
			 : dwarf_tag(&var) == DW_TAG_formal_parameter ? DW_VAR_PARAMETER : DW_VAR_LOCAL,
			 out);
		err = 0;
	}
	free(scopes);
	if (err)
		err = find_global(m, c, name, pc, out);
	return err;
}

void dw_var_foreach(struct dw_module *m, uint64_t pc, int (*fn)(const struct dw_var *v, void *ctx),
		    void *ctx)
{
	Dwarf_Die cudie, *scopes = NULL, child;
	int n;

	if (!dw_module_dwarf(m))
		return;
	n = dw_unit_at(m, pc, &cudie) ? dwarf_getscopes(&cudie, pc, &scopes) : 0;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_compile_unit || dwarf_child(&scopes[i], &child))
			continue;
		do {
			struct dw_var v = { .name = dwarf_diename(&child) };

			if (is_var_tag(dwarf_tag(&child)) && v.name && fn(&v, ctx))
				goto out;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
out:
	free(scopes);
}

const struct dw_member *dw_type_member(const struct dw_type *t, const char *name, uint64_t *offset)
{
	if (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION)
		return NULL;
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];
		uint64_t inner;

		if (mb->name && strcmp(mb->name, name) == 0) {
			*offset = mb->offset;
			return mb;
		}
		if (!mb->name || strcmp(mb->name, "<base>") == 0) {
			const struct dw_member *found = dw_type_member(mb->type, name, &inner);

			if (found) {
				*offset = mb->offset + inner;
				return found;
			}
		}
	}
	return NULL;
}

bool dw_type_is_scalar(const struct dw_type *t)
{
	return t->kind == DW_TYPE_INT || t->kind == DW_TYPE_BOOL || t->kind == DW_TYPE_ENUM ||
	       t->kind == DW_TYPE_POINTER;
}

/* ---- types by name, for cast() ---- */

static bool find_type_die(Dwarf *dw, const char *name, int want_tag, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				const char *n = dwarf_diename(&child);

				if (!n || strcmp(n, name) != 0 || dwarf_hasattr(&child, DW_AT_declaration))
					continue;
				if (want_tag ? tag == want_tag
					     : (tag == DW_TAG_base_type || tag == DW_TAG_typedef ||
						tag == DW_TAG_structure_type || tag == DW_TAG_class_type)) {
					*out = child;
					return true;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return false;
}

/* C spellings users write for the names compilers give base types. */
static const char *base_alias(const char *name)
{
	static const char *const aliases[][2] = {
		{ "long", "long int" }, { "unsigned long", "long unsigned int" },
		{ "unsigned", "unsigned int" }, { "short", "short int" },
		{ "unsigned short", "short unsigned int" }, { "long long", "long long int" },
		{ "unsigned long long", "long long unsigned int" }, { "signed char", "signed char" },
		{ "u8", "unsigned char" }, { "u16", "short unsigned int" }, { "u32", "unsigned int" },
		{ "u64", "long unsigned int" }, { "i8", "signed char" }, { "i16", "short int" },
		{ "i32", "int" }, { "i64", "long int" }, { "bool", "_Bool" },
	};

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i][0], name) == 0)
			return aliases[i][1];
	return name;
}

const struct dw_type *dw_type_find(struct dw_module *m, const char *spelling)
{
	struct vars_cache *c;
	Dwarf *dw = dw_module_dwarf(m);
	char *base, *end;
	const struct dw_type *t = NULL;
	int tag = 0, pointers = 0;
	Dwarf_Die die;

	if (!dw)
		return NULL;
	c = cache_of(m);
	base = xstrdup(spelling);
	for (end = base + strlen(base); end > base && (end[-1] == '*' || end[-1] == ' '); end--)
		pointers += end[-1] == '*';
	*end = '\0';
	if (!strncmp(base, "struct ", 7))
		tag = DW_TAG_structure_type;
	else if (!strncmp(base, "union ", 6))
		tag = DW_TAG_union_type;
	else if (!strncmp(base, "enum ", 5))
		tag = DW_TAG_enumeration_type;
	if (find_type_die(dw, tag ? strchr(base, ' ') + 1 : base_alias(base), tag, &die) ||
	    (!tag && find_type_die(dw, base, tag, &die)))
		t = build_type(c, &die, 0);
	free(base);
	for (; t && pointers > 0; pointers--) {
		struct dw_type *p = own(c, xcalloc(1, sizeof(*p)));

		p->kind = DW_TYPE_POINTER;
		p->size = 8;
		p->target = t;
		p->name = own_str(c, xasprintf("%s *", t->name));
		t = p;
	}
	return t;
}
