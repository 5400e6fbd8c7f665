/* types.c - C types from DWARF (see types.h): struct dw_type, built once per
 * DIE and cached in the module's DW_EXT_VARS slot.
 *
 * A type is reached from a DIE in two steps.  slot() hands out the node
 * that will hold the type (cached by DIE, so cycles through pointers end),
 * and fill() converts the DIE into it.  Filling an aggregate only takes
 * slots for its members' types and queues them; the queue is drained
 * before a type is handed out.  So the whole graph reachable from a
 * variable is built, however deep (a Lua or Redis state reaches hundreds
 * of structs), without recursion deeper than one declarator (int ***).
 *
 * Typedefs and qualified types (const, volatile, restrict, _Atomic) are
 * copies of the type underneath; a typedef's copy carries its own name,
 * a const or volatile one the qualified name gdb shows ("const char *").
 *
 * A struct, union, class or enum the unit only declares (DW_AT_declaration,
 * the usual `struct lua_State *` of an API) is completed by name the way
 * gdb does: from a definition elsewhere in the module, else from another
 * module through the resolver the tracer installs.  What no module defines
 * stays marked incomplete.
 */
#include "dwarf/typename.h"
#include "dwarf/types.h"
#include "dwarf/vars_priv.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct type_node {
	struct dw_type t; /* first: a node is handed out as &node->t */
	Dwarf_Die die;
	bool filled;
};

struct complete_entry {
	const char *name; /* "struct point": borrowed from the cache */
	Dwarf *dw;
	Dwarf_Off off;
};

static const struct dw_type void_type = { .kind = DW_TYPE_VOID, .name = "void" };
static const struct dw_type unknown_type = { .kind = DW_TYPE_UNKNOWN, .name = "<unknown type>" };

#define own vars_own

/* ---- keys ---- */

/* A cache key for @die: its offset, tagged with which Dwarf holds it (the
 * module's, a split unit's .dwo, a supplementary file), since offsets
 * repeat across files. */
static uint64_t die_key(struct vars_cache *c, Dwarf_Die *die)
{
	Dwarf *dw = die->cu ? dwarf_cu_getdwarf(die->cu) : NULL;
	size_t i;

	for (i = 0; i < c->n_dwarfs && c->dwarfs[i] != dw; i++)
		;
	if (i == c->n_dwarfs) {
		c->dwarfs = xgrow(c->dwarfs, &c->cap_dwarfs, c->n_dwarfs + 1, sizeof(*c->dwarfs));
		c->dwarfs[c->n_dwarfs++] = dw;
	}
	return dwarf_dieoffset(die) | (uint64_t)i << 48;
}

static uint64_t udata_attr(Dwarf_Die *die, unsigned name, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &v))
		return dflt;
	return v;
}

/* ---- slots and the queue ---- */

static struct type_node *slot(struct vars_cache *c, Dwarf_Die *die);

/* The node of the type @die's DW_AT_type names; void without one. */
static struct dw_type *type_attr(struct vars_cache *c, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	struct type_node *n;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a))
		return (struct dw_type *)&void_type;
	if (!dwarf_formref_die(&a, &t))
		return (struct dw_type *)&unknown_type;
	n = slot(c, &t);
	return &n->t;
}

/* The node for type DIE @die, new and queued if need be. */
static struct type_node *slot(struct vars_cache *c, Dwarf_Die *die)
{
	uint64_t key = die_key(c, die);
	struct type_node *n = idmap_get_ptr(&c->types, key);

	if (n)
		return n;
	n = own(c, xcalloc(1, sizeof(*n)));
	n->die = *die;
	idmap_put_ptr(&c->types, key, n);
	c->queue = xgrow(c->queue, &c->cap_queue, c->n_queue + 1, sizeof(*c->queue));
	c->queue[c->n_queue++] = n;
	return n;
}

static void fill(struct vars_cache *c, struct dw_type *t);

/* Fill every queued node (filling queues more). */
static void drain(struct vars_cache *c)
{
	while (c->n_queue)
		fill(c, &c->queue[--c->n_queue]->t);
}

/* ---- kinds ---- */

/* The literal prefix gdb gives a wide character type named @name of
 * @size bytes (types.h: char_prefix): wchar_t, char16_t, char32_t by
 * name, as gdb recognizes them (in C they are typedefs); NULL else. */
static const char *wide_prefix(const char *name, uint64_t size)
{
	if (!name || (size != 2 && size != 4))
		return NULL;
	if (!strcmp(name, "wchar_t"))
		return "L";
	if (!strcmp(name, "char16_t"))
		return "u";
	if (!strcmp(name, "char32_t"))
		return "U";
	return NULL;
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
	else if (enc == DW_ATE_complex_float)
		t->kind = DW_TYPE_COMPLEX;
	else if (enc == DW_ATE_decimal_float)
		t->kind = DW_TYPE_DECIMAL;
	t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
		     (t->size == 1 && t->name && strstr(t->name, "char"));
	t->char_prefix = wide_prefix(t->name, t->size);
}

/* The bit offset of bitfield @member from the start of its struct, when
 * DWARF 2-4 gives it the old way: DW_AT_bit_offset counts from the most
 * significant bit of a storage unit of DW_AT_byte_size bytes (else the
 * member type's size) at DW_AT_data_member_location, so on a
 * little-endian target the field starts at unit_end - bit_offset - bit_size.
 * -1 when @member has no DW_AT_bit_offset. */
static int64_t legacy_bit_offset(Dwarf_Die *member, unsigned bit_size)
{
	Dwarf_Attribute a;
	Dwarf_Sword from_msb;
	Dwarf_Word unit = udata_attr(member, DW_AT_byte_size, 0);
	Dwarf_Die type;

	if (!dwarf_attr(member, DW_AT_bit_offset, &a) || dwarf_formsdata(&a, &from_msb))
		return -1;
	if (!unit && (!dwarf_attr_integrate(member, DW_AT_type, &a) || !dwarf_formref_die(&a, &type) ||
		      dwarf_aggregate_size(&type, &unit) != 0))
		return -1;
	return (int64_t)(udata_attr(member, DW_AT_data_member_location, 0) + unit) * 8 - from_msb -
	       (int64_t)bit_size;
}

/* The vtable slot of virtual base @child's offset, from the expression
 * both GCC and clang give it: DW_OP_dup, DW_OP_deref (the vptr), a
 * constant, DW_OP_minus, DW_OP_deref, DW_OP_plus.  0 when it is not
 * that. */
static uint32_t vbase_slot(Dwarf_Die *child)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	uint64_t k;

	if (!dwarf_attr(child, DW_AT_data_member_location, &a) || dwarf_getlocation(&a, &ops, &n) != 0 ||
	    n != 6 || ops[0].atom != DW_OP_dup || ops[1].atom != DW_OP_deref || ops[3].atom != DW_OP_minus ||
	    ops[4].atom != DW_OP_deref || ops[5].atom != DW_OP_plus)
		return 0;
	if (ops[2].atom >= DW_OP_lit0 && ops[2].atom <= DW_OP_lit31)
		k = ops[2].atom - DW_OP_lit0;
	else if (ops[2].atom == DW_OP_constu || ops[2].atom == DW_OP_const1u || ops[2].atom == DW_OP_const2u ||
		 ops[2].atom == DW_OP_const4u)
		k = ops[2].number;
	else
		return 0;
	return k && k % 8 == 0 && k < 65536 ? (uint32_t)k : 0;
}

static void add_member(struct vars_cache *c, struct dw_member *mb, Dwarf_Die *child, int tag)
{
	memset(mb, 0, sizeof(*mb));
	mb->name = tag == DW_TAG_inheritance ? "<base>" : dwarf_diename(child);
	mb->offset = udata_attr(child, DW_AT_data_member_location, 0);
	if (tag == DW_TAG_inheritance && udata_attr(child, DW_AT_virtuality, 0)) {
		mb->is_virtual = true;
		mb->vbase_slot = vbase_slot(child);
		mb->offset = 0;
	}
	mb->bit_size = (unsigned)udata_attr(child, DW_AT_bit_size, 0);
	if (mb->bit_size) {
		uint64_t dbo = udata_attr(child, DW_AT_data_bit_offset, UINT64_MAX);
		int64_t legacy = legacy_bit_offset(child, mb->bit_size);

		if (dbo == UINT64_MAX && legacy >= 0)
			dbo = (uint64_t)legacy;
		if (dbo != UINT64_MAX) {
			mb->offset = dbo / 8;
			mb->bit_offset = (unsigned)(dbo % 8);
		}
	}
	mb->type = type_attr(c, child);
}

static const struct dw_type *element(struct vars_cache *c, Dwarf_Die *die);

/* The variants of a Rust enum from its DW_TAG_variant_part @part: the
 * discriminant member it names, then each DW_TAG_variant's value (none:
 * the default) and its one member, the variant's fields. */
static void add_variants(struct vars_cache *c, struct dw_type *t, Dwarf_Die *part)
{
	struct dw_variant *v = NULL;
	size_t n = 0, cap = 0;
	Dwarf_Die discr, child, member;
	Dwarf_Attribute a;
	Dwarf_Word value;

	if (!dwarf_formref_die(dwarf_attr(part, DW_AT_discr, &a), &discr) || dwarf_child(part, &child) != 0)
		return;
	t->discr_offset = udata_attr(&discr, DW_AT_data_member_location, 0);
	t->discr_size = (unsigned)element(c, &discr)->size;
	do {
		if (dwarf_tag(&child) != DW_TAG_variant || dwarf_child(&child, &member) != 0 ||
		    dwarf_tag(&member) != DW_TAG_member)
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n] = (struct dw_variant){
			.name = dwarf_diename(&member),
			.type = type_attr(c, &member),
			.offset = udata_attr(&member, DW_AT_data_member_location, 0),
			.is_default = !dwarf_attr(&child, DW_AT_discr_value, &a) || dwarf_formudata(&a, &value),
		};
		if (!v[n].is_default)
			v[n].value = value;
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	t->variants = own(c, v);
	t->n_variants = n;
}

/* A static data member's folded constant, as the bytes it would hold
 * (its type may not be complete yet: the renderer checks its size). */
static void static_const(Dwarf_Die *child, struct dw_static *st)
{
	Dwarf_Attribute a;
	Dwarf_Word u;
	Dwarf_Sword v;
	Dwarf_Block b;

	if (!dwarf_attr(child, DW_AT_const_value, &a))
		return;
	if (dwarf_whatform(&a) == DW_FORM_sdata && dwarf_formsdata(&a, &v) == 0) {
		memcpy(st->cval, &v, sizeof(v)); /* x86-64: little-endian, as the variable holds it */
		st->const_len = 0;
	} else if (dwarf_whatform(&a) != DW_FORM_sdata && dwarf_formudata(&a, &u) == 0) {
		memcpy(st->cval, &u, sizeof(u));
		st->const_len = 0;
	} else if (dwarf_formblock(&a, &b) == 0 && b.length <= sizeof(st->cval)) {
		memcpy(st->cval, b.data, b.length);
		st->const_len = b.length;
	} else {
		return;
	}
	st->has_const = true;
}

/* C++ static data members: DWARF 5's DW_TAG_variable in the class, DWARF
 * 4's DW_TAG_member declaration. */
static void add_static(struct vars_cache *c, struct dw_type *t, Dwarf_Die *child, size_t before,
		       struct dw_static **v, size_t *n, size_t *cap)
{
	const char *name = dwarf_diename(child);
	struct dw_static *st;

	if (!name || !t->name || t->rust)
		return;
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	st = &(*v)[(*n)++];
	memset(st, 0, sizeof(*st));
	st->name = name;
	st->qname = own(c, xasprintf("%s::%s", t->name, name));
	st->type = type_attr(c, child);
	st->before = before;
	static_const(child, st);
}

static void add_members(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die)
{
	struct dw_member *v = NULL;
	struct dw_static *sv = NULL;
	size_t n = 0, cap = 0, n_st = 0, cap_st = 0;
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_variant_part) {
			add_variants(c, t, &child);
			continue;
		}
		/* a static data member (DWARF 4's declaration) is no part of
		 * the object's bytes */
		if ((tag == DW_TAG_variable || tag == DW_TAG_member) && dwarf_hasattr(&child, DW_AT_declaration)) {
			add_static(c, t, &child, n, &sv, &n_st, &cap_st);
			continue;
		}
		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		add_member(c, &v[n++], &child, tag);
	} while (dwarf_siblingof(&child, &child) == 0);
	t->members = own(c, v);
	t->n_members = n;
	t->statics = sv ? own(c, sv) : NULL;
	t->n_statics = n_st;
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
		Dwarf_Word uval = 0;

		if (dwarf_tag(&child) != DW_TAG_enumerator)
			continue;
		/* an enum of unsigned type holds 4000000000U in a data4 that
		 * reads as negative when taken as signed */
		if (dwarf_attr(&child, DW_AT_const_value, &a)) {
			if (t->is_signed)
				dwarf_formsdata(&a, &val);
			else if (dwarf_formudata(&a, &uval) == 0)
				val = (Dwarf_Sword)uval;
		}
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].name = dwarf_diename(&child);
		v[n].value = val;
		v[n].symbol = t->scoped && v[n].name ? own(c, xasprintf("%s::%s", t->name, v[n].name)) : v[n].name;
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	t->enumerators = own(c, v);
	t->n_enumerators = n;
}

/* The element type of an array, filled: its size and name are needed. */
static const struct dw_type *element(struct vars_cache *c, Dwarf_Die *die)
{
	struct dw_type *e = type_attr(c, die);

	fill(c, e);
	return e;
}

/* gdb's name of an array of @elem (@dim: "[4]", "[]"): "int [4]", an
 * array of arrays "int [2][3]" (its own length first), "const char *[2]". */
static char *array_name(const struct dw_type *elem, const char *dim)
{
	const char *inner = elem->kind == DW_TYPE_ARRAY ? strchr(elem->name, '[') : NULL;
	size_t n = strlen(elem->name);

	if (inner)
		return xasprintf("%.*s%s%s", (int)(inner - elem->name), elem->name, dim, inner);
	return xasprintf(n && elem->name[n - 1] == '*' ? "%s%s" : "%s %s", elem->name, dim);
}

static struct dw_type *array_of(struct vars_cache *c, const struct dw_type *elem, uint64_t count,
				struct dw_type *t)
{
	char dim[32];

	if (!t)
		t = own(c, xcalloc(1, sizeof(*t)));
	t->kind = DW_TYPE_ARRAY;
	t->target = elem;
	t->count = count;
	t->size = elem->size * count;
	t->is_char = elem->is_char;
	t->rust = elem->rust;
	if (elem->rust)
		t->name = own(c, xasprintf("[%s; %llu]", elem->name, (unsigned long long)count));
	else
	{
		snprintf(dim, sizeof(dim), "[%llu]", (unsigned long long)count);
		t->name = own(c, array_name(elem, dim));
	}
	return t;
}

/* A dimension: its length, or, a VLA's, the subrange that computes it. */
struct dim {
	uint64_t count;
	uint64_t bound; /* die_key() of the subrange when .dynamic */
	bool dynamic;
};

/* The length of subrange @sub: DW_AT_count, else DW_AT_upper_bound + 1
 * (C counts from 0).  Either may be a constant, or, in a VLA, an
 * expression or a reference to a variable holding it: then @d is
 * dynamic. */
static void subrange_dim(struct vars_cache *c, Dwarf_Die *sub, struct dim *d)
{
	unsigned name = dwarf_hasattr(sub, DW_AT_count) ? DW_AT_count : DW_AT_upper_bound;
	Dwarf_Attribute a;
	Dwarf_Word v;

	*d = (struct dim){ 0 };
	if (!dwarf_attr_integrate(sub, name, &a))
		return;
	if (dwarf_formudata(&a, &v) == 0) {
		d->count = name == DW_AT_count ? v : v + 1;
		return;
	}
	d->dynamic = true;
	d->bound = die_key(c, sub);
}

static void mark_dynamic(struct vars_cache *c, struct dw_type *t, const struct dim *d)
{
	if (!d->dynamic || t->rust)
		return;
	t->dynamic = true;
	t->bound = d->bound;
	t->name = own(c, array_name(t->target, "[variable length]"));
}

/* Array dimensions, outermost first: int a[2][3] is an array of 2 arrays
 * of 3 ints. */
static void set_array(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die)
{
	const struct dw_type *elem = element(c, die);
	struct dim dims[8];
	size_t n = 0;
	bool unbounded = true; /* the outermost: a flexible array member */
	Dwarf_Die child;

	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_subrange_type || n == 8)
				continue;
			if (!n)
				unbounded = !dwarf_hasattr(&child, DW_AT_count) &&
					    !dwarf_hasattr(&child, DW_AT_upper_bound);
			subrange_dim(c, &child, &dims[n++]);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	for (size_t i = n; i-- > 1;) {
		struct dw_type *inner = array_of(c, elem, dims[i].count, NULL);

		mark_dynamic(c, inner, &dims[i]);
		elem = inner;
	}
	array_of(c, elem, n ? dims[0].count : 0, t);
	if (n)
		mark_dynamic(c, t, &dims[0]);
	if (unbounded && !t->rust)
		t->name = own(c, array_name(elem, "[]")); /* gdb: char [] */
}

/* A VLA type with its lengths: dw_type_vla_sized()'s cache. */
struct vla_sized {
	const struct dw_type *vla;
	uint64_t counts[DW_VLA_DIMS];
	const struct dw_type *sized;
};

#define MAX_SIZED 512 /* lengths kept per module: each is a type */

static const struct dw_type *sized_array(struct vars_cache *c, const struct dw_type *t, const uint64_t *counts,
					 size_t n, size_t *used)
{
	const struct dw_type *elem = t->target;
	uint64_t count = t->count;

	if (t->dynamic) {
		if (*used == n)
			return NULL;
		count = counts[(*used)++];
	}
	if (elem->size && count > (UINT64_C(1) << 40) / elem->size)
		return NULL; /* no array is that large: a bound not set yet */
	if (elem->kind == DW_TYPE_ARRAY && dw_type_is_vla(elem) && !(elem = sized_array(c, elem, counts, n, used)))
		return NULL;
	return array_of(c, elem, count, NULL);
}

const struct dw_type *dw_type_vla_sized(struct dw_module *m, const struct dw_type *t, const uint64_t *counts,
					size_t n)
{
	struct vars_cache *c = vars_cache_of(m);
	const struct dw_type *sized;
	size_t used = 0;

	if (n > DW_VLA_DIMS || !dw_type_is_vla(t))
		return NULL;
	for (size_t i = 0; i < c->n_sized; i++)
		if (c->sized[i].vla == t && !memcmp(c->sized[i].counts, counts, n * sizeof(*counts)))
			return c->sized[i].sized;
	if (c->n_sized == MAX_SIZED)
		return NULL;
	sized = sized_array(c, t, counts, n, &used);
	if (!sized || used != n)
		return NULL;
	c->sized = xgrow(c->sized, &c->cap_sized, c->n_sized + 1, sizeof(*c->sized));
	c->sized[c->n_sized] = (struct vla_sized){ .vla = t, .sized = sized };
	memcpy(c->sized[c->n_sized++].counts, counts, n * sizeof(*counts));
	return sized;
}

bool vars_vla_subrange(struct vars_cache *c, uint64_t key, Dwarf_Die *out)
{
	size_t i = (size_t)(key >> 48);

	return i < c->n_dwarfs && dwarf_offdie(c->dwarfs[i], key & ((UINT64_C(1) << 48) - 1), out);
}

/* ---- C++ scopes ---- */

#define MAX_NESTING 16 /* namespaces and classes within each other */

static bool is_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type;
}

/* Record "ns::Klass::" for every named type among @parent's children in
 * scope @prefix (non-empty), and go into the namespaces and classes. */
static void note_prefixes(struct vars_cache *c, Dwarf_Die *parent, const char *prefix, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_NESTING || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);

		if (*prefix && (is_scope(tag) || tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef))
			idmap_put_ptr(&c->prefixes, die_key(c, &child), prefix);
		if (!is_scope(tag) || (!name && tag != DW_TAG_namespace))
			continue;
		note_prefixes(c, &child, own(c, xasprintf("%s%s::", prefix, name ? name : "(anonymous namespace)")),
			      depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The namespaces and classes a C++ or Rust type DIE is declared in, as
 * gdb qualifies its name ("geo::", "alloc::vec::"); "" at file scope and
 * in C.  Known for a
 * whole unit on its first question: libdw has no parent links. */
static const char *scope_prefix(struct vars_cache *c, Dwarf_Die *die)
{
	Dwarf_Die cu;
	uint64_t key;
	const char *p;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || (!dw_unit_is_cxx(&cu) && !dw_unit_is_rust(&cu)))
		return "";
	key = die_key(c, &cu);
	if (!idmap_get_ptr(&c->prefixed_units, key)) {
		note_prefixes(c, &cu, "", 0);
		idmap_put_ptr(&c->prefixed_units, key, c);
	}
	p = idmap_get_ptr(&c->prefixes, die_key(c, die));
	return p ? p : "";
}

/* @name (taken) in gdb's spelling: GCC's "Buf<4, short int>" is
 * "Buf<4, short>". */
static char *gdb_spelling(char *name)
{
	char *canon = typename_canonical(name);

	if (!canon)
		return name;
	free(name);
	return canon;
}

/* "struct point" in C; C++ names a class, struct, union or enum by its
 * name qualified by its scopes (@prefix, "geo::"), without a keyword, as
 * gdb does ("geo::Point"). */
static const char *aggregate_name(struct vars_cache *c, Dwarf_Die *die, int tag, const char *name,
				  const char *prefix)
{
	bool cxx = typename_is_cxx(die) || dw_die_is_rust(die);
	const char *kw = cxx ? ""
		       : tag == DW_TAG_structure_type ? "struct " : tag == DW_TAG_union_type ? "union "
		       : tag == DW_TAG_enumeration_type ? "enum " : "";

	return own(c, gdb_spelling(xasprintf("%s%s%s", kw, cxx && name ? prefix : "", name ? name : "<anonymous>")));
}

/* A C++ class or typedef in a declarator ("const geo::Point &"). */
static const char *cxx_name(void *ctx, Dwarf_Die *die)
{
	struct vars_cache *c = ctx;
	const char *name = dwarf_diename(die);

	return name ? own(c, gdb_spelling(xasprintf("%s%s", scope_prefix(c, die), name))) : NULL;
}

static const struct dw_type *complete_type(struct vars_cache *c, const char *spelling);

/* The template type arguments of @die's children, the members of a
 * parameter pack (DW_TAG_GNU_template_parameter_pack) in their place. */
static void template_args(struct vars_cache *c, Dwarf_Die *die, const struct dw_type ***v, size_t *n,
			  size_t *cap)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_GNU_template_parameter_pack) {
			template_args(c, &child, v, n, cap);
		} else if (tag == DW_TAG_template_type_parameter) {
			*v = xgrow(*v, cap, *n + 1, sizeof(**v));
			(*v)[(*n)++] = type_attr(c, &child);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The type of @die's nested typedef @name, or NULL. */
static const struct dw_type *nested_typedef(struct vars_cache *c, Dwarf_Die *die, const char *name)
{
	Dwarf_Die child;
	const char *n;

	if (dwarf_child(die, &child) != 0)
		return NULL;
	do {
		if (dwarf_tag(&child) == DW_TAG_typedef && (n = dwarf_diename(&child)) && !strcmp(n, name))
			return type_attr(c, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
	return NULL;
}

static void add_template_args(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die)
{
	const struct dw_type **v = NULL;
	size_t n = 0, cap = 0;

	template_args(c, die, &v, &n, &cap);
	t->targs = n ? own(c, v) : NULL;
	t->n_targs = n;
	if (!n)
		free(v);
	if (!n && t->tag_name && strchr(t->tag_name, '<'))
		t->pointer_typedef = nested_typedef(c, die, "pointer");
}

/* A struct, union, class or enum: complete from its DIE, or, for a mere
 * declaration, a copy of the definition found by name. */
static void set_aggregate(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int tag)
{
	const char *name = dwarf_diename(die);
	const struct dw_type *full;

	t->name = aggregate_name(c, die, tag, name, name ? scope_prefix(c, die) : "");
	if (name && dwarf_hasattr(die, DW_AT_declaration)) {
		full = complete_type(c, t->name);
		if (full) {
			*t = *full;
			return;
		}
		t->kind = tag == DW_TAG_union_type ? DW_TYPE_UNION
			: tag == DW_TAG_enumeration_type ? DW_TYPE_ENUM : DW_TYPE_STRUCT;
		t->incomplete = true;
		return;
	}
	if (tag == DW_TAG_enumeration_type) {
		t->kind = DW_TYPE_ENUM;
		t->size = udata_attr(die, DW_AT_byte_size, 4);
		t->is_signed = element(c, die)->is_signed;
		t->scoped = dwarf_hasattr(die, DW_AT_enum_class);
		t->enum_scope = t->scoped ? "" : scope_prefix(c, die);
		add_enumerators(c, t, die);
		return;
	}
	t->kind = tag == DW_TAG_union_type ? DW_TYPE_UNION : DW_TYPE_STRUCT;
	t->size = udata_attr(die, DW_AT_byte_size, 0);
	t->tag_name = t->name;
	add_members(c, t, die);
	add_template_args(c, t, die);
}

/* @under's name with qualifier @q, as gdb spells it: "const char",
 * "char * const", "const volatile int". */
static char *qualified_name(const struct dw_type *under, const char *q)
{
	if (under->kind == DW_TYPE_POINTER)
		return xasprintf("%s %s", under->name, q);
	if (!strcmp(q, "volatile") && !strncmp(under->name, "const ", 6))
		return xasprintf("const volatile %s", under->name + 6);
	return xasprintf("%s %s", q, under->name);
}

/* The C spelling of type DIE @die where the declarator wraps the base
 * type, as gdb spells it: "void (int)", "void (*)(int)", "int (*)[4]". */
static const char *declarator_name(struct vars_cache *c, Dwarf_Die *die)
{
	struct strbuf sb = STRBUF_INIT;

	if (dw_die_is_rust(die))
		typename_render_rust(die, cxx_name, c, &sb);
	else
		typename_render_type(die, typename_is_cxx(die) ? cxx_name : NULL, c, &sb);
	return own(c, strbuf_detach(&sb));
}

/* A C++ reference ("const Point &", "int &&") or pointer to member
 * ("int Point::*", "int (Point::*)(const Point * const)"), named as gdb
 * names it. */
static void set_cxx_pointer(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int tag)
{
	Dwarf_Attribute a;
	Dwarf_Die klass;

	t->kind = DW_TYPE_POINTER;
	t->size = 8;
	t->target = element(c, die);
	t->name = declarator_name(c, die);
	t->is_reference = tag != DW_TAG_ptr_to_member_type;
	if (t->is_reference)
		return;
	if (dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_containing_type, &a), &klass))
		t->container = &slot(c, &klass)->t;
	else
		t->container = &unknown_type;
	if (t->target->kind == DW_TYPE_FUNCTION)
		t->size = 16; /* the function, then the adjustment of this */
}

static void fill_c(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int tag, const char *name);

/* A Rust type, named as gdb writes it: pointers and references "*mut T"
 * (a reference is a pointer in Rust's DWARF, and gdb reads no
 * mutability), arrays "[T; 4]", functions "fn (u32) -> u64"; aggregates by
 * their scopes, a C-like enum's values as rstd::Level::High. */
static void fill_rust(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int tag)
{
	const char *name = dwarf_diename(die);

	t->rust = true;
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = DW_TYPE_POINTER;
		t->size = 8;
		t->target = element(c, die);
		t->name = own(c, xasprintf("*mut %s", t->target->name));
		break;
	case DW_TAG_base_type:
		t->name = name ? name : "?";
		set_base(t, die);
		/* char is a Unicode scalar value (DW_ATE_UTF), u8 a number */
		t->is_char = udata_attr(die, DW_AT_encoding, 0) == DW_ATE_UTF;
		break;
	case DW_TAG_enumeration_type:
		set_aggregate(c, t, die, tag);
		t->scoped = true;
		break;
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:
		t->kind = DW_TYPE_FUNCTION;
		t->name = declarator_name(c, die);
		break;
	default:
		/* structs (with their variants), unions, arrays, typedefs */
		fill_c(c, t, die, tag, name);
		t->rust = true;
		break;
	}
}

/* Convert the DIE of node @t (once). */
static void fill(struct vars_cache *c, struct dw_type *t)
{
	struct type_node *n = (struct type_node *)t;
	Dwarf_Die *die = &n->die;
	int tag;
	const char *name;

	if (t == &void_type || t == &unknown_type || n->filled)
		return;
	n->filled = true;
	tag = dwarf_tag(die);
	name = dwarf_diename(die);
	if (dw_die_is_rust(die))
		fill_rust(c, t, die, tag);
	else
		fill_c(c, t, die, tag, name);
}

/* The name of a pointer to a type named @name, as gdb writes it: "int *",
 * "const char **" (no space between stars), "char * const *". */
static char *star_name(const char *name)
{
	size_t n = strlen(name);

	return xasprintf(n && name[n - 1] == '*' ? "%s*" : "%s *", name);
}

/* A C or C++ type (and what Rust's DWARF says the same way). */
static void fill_c(struct vars_cache *c, struct dw_type *t, Dwarf_Die *die, int tag, const char *name)
{
	switch (tag) {
	case DW_TAG_base_type:
		t->name = name ? typename_base(name) : "?";
		set_base(t, die);
		break;
	case DW_TAG_pointer_type:
		t->kind = DW_TYPE_POINTER;
		t->size = 8;
		t->target = element(c, die);
		if (t->target->kind == DW_TYPE_FUNCTION || t->target->kind == DW_TYPE_ARRAY)
			t->name = declarator_name(c, die); /* void (*)(int), int (*)[4] */
		else
			t->name = own(c, star_name(t->target->name));
		break;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		set_cxx_pointer(c, t, die, tag);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		set_aggregate(c, t, die, tag);
		break;
	case DW_TAG_array_type:
		set_array(c, t, die);
		break;
	case DW_TAG_typedef:
		*t = *element(c, die);
		t->name = name ? name : t->name;
		if (t->kind == DW_TYPE_INT && wide_prefix(name, t->size)) /* C's wchar_t */
			t->char_prefix = wide_prefix(name, t->size);
		if (name && *scope_prefix(c, die)) /* std::size_t */
			t->name = own(c, xasprintf("%s%s", scope_prefix(c, die), name));
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		*t = *element(c, die);
		t->name = own(c, qualified_name(element(c, die), tag == DW_TAG_const_type ? "const" : "volatile"));
		break;
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		*t = *element(c, die); /* gdb leaves these out of names */
		break;
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram: /* a function itself has the type it declares */
		t->kind = DW_TYPE_FUNCTION;
		t->name = declarator_name(c, die);
		break;
	case DW_TAG_unspecified_type:
		t->name = name ? name : "?";
		if (name && !strcmp(name, "decltype(nullptr)")) {
			/* std::nullptr_t: a pointer's 8 bytes (gdb 13 cannot
			 * print one: "Attempt to dereference a generic pointer") */
			t->kind = DW_TYPE_POINTER;
			t->size = 8;
			t->target = &void_type;
		} else {
			t->kind = DW_TYPE_UNKNOWN;
		}
		break;
	default:
		t->kind = DW_TYPE_UNKNOWN;
		t->name = name ? name : "?";
		break;
	}
}

const struct dw_type *vars_type_of(struct vars_cache *c, Dwarf_Die *die)
{
	struct dw_type *t = type_attr(c, die);

	fill(c, t);
	drain(c);
	return t;
}

const struct dw_type *vars_type_die(struct vars_cache *c, Dwarf_Die *type)
{
	struct type_node *n = slot(c, type);

	fill(c, &n->t);
	drain(c);
	return &n->t;
}

/* ---- complete definitions by name ---- */

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct complete_entry *)a)->name, ((const struct complete_entry *)b)->name);
}

static void add_entry(struct complete_entry **v, size_t *n, size_t *cap, struct complete_entry e)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = e;
}

/* Index the types among @scope's children, named with @prefix ("geo::"
 * in C++ and Rust, always "" in C, where a struct defined inside another
 * is at file scope), and those of the namespaces and aggregates within. */
static void index_scope(struct vars_cache *c, Dwarf_Die *scope, bool qualify, const char *prefix, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_NESTING || dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		struct complete_entry e = { .dw = dwarf_cu_getdwarf(child.cu),
					    .off = dwarf_dieoffset(&child) };

		if (tag == DW_TAG_namespace && qualify) {
			index_scope(c, &child, qualify,
				    own(c, xasprintf("%s%s::", prefix, name ? name : "(anonymous namespace)")),
				    depth + 1);
			continue;
		}
		if (!name || dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		if (is_aggregate(tag)) {
			e.name = aggregate_name(c, &child, tag, name, prefix);
			add_entry(&c->complete, &c->n_complete, &c->cap_complete, e);
			if (tag != DW_TAG_enumeration_type)
				index_scope(c, &child, qualify,
					    qualify ? own(c, xasprintf("%s%s::", prefix, name)) : "", depth + 1);
		} else if (tag == DW_TAG_typedef || tag == DW_TAG_base_type) {
			e.name = *prefix ? own(c, gdb_spelling(xasprintf("%s%s", prefix, name))) : name;
			add_entry(&c->plain, &c->n_plain, &c->cap_plain, e);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void index_unit(struct vars_cache *c, Dwarf_Die *unit)
{
	index_scope(c, unit, dw_unit_is_cxx(unit) || dw_unit_is_rust(unit), "", 0);
}

/* Every named aggregate type the module defines, at file scope, in a
 * namespace or in another aggregate, and every typedef and base type,
 * sorted by spelling, built on first use. */
static void index_complete(struct vars_cache *c)
{
	Dwarf *dw = dw_module_dwarf(c->m);
	Dwarf_CU *cu = NULL;
	Dwarf_Die unit;

	c->complete_built = true;
	while (dw_next_unit(dw, &cu, &unit, true))
		index_unit(c, &unit);
	if (c->n_complete)
		qsort(c->complete, c->n_complete, sizeof(*c->complete), cmp_entry);
	if (c->n_plain)
		qsort(c->plain, c->n_plain, sizeof(*c->plain), cmp_entry);
}

/* The type of entry @name of index @v (@n entries), or NULL.  Filled,
 * but what it reaches may still be queued: callers drain. */
static const struct dw_type *indexed(struct vars_cache *c, const struct complete_entry *v, size_t n,
				     const char *name)
{
	struct complete_entry key = { .name = name };
	const struct complete_entry *e = n ? bsearch(&key, v, n, sizeof(*e), cmp_entry) : NULL;
	struct type_node *node;
	Dwarf_Die die;

	if (!e || !dwarf_offdie(e->dw, e->off, &die) || !(node = slot(c, &die)))
		return NULL;
	fill(c, &node->t);
	return &node->t;
}

/* The module's own definition of @spelling ("struct point"), or NULL.
 * Filled, but what it reaches may still be queued: callers drain. */
static const struct dw_type *own_definition(struct vars_cache *c, const char *spelling)
{
	if (!c->complete_built)
		index_complete(c);
	return indexed(c, c->complete, c->n_complete, spelling);
}

/* The definition of a type known here only by declaration: this module's,
 * else another module's through the resolver (complete there).  Callers
 * drain. */
static const struct dw_type *complete_type(struct vars_cache *c, const char *spelling)
{
	const struct dw_type *t = own_definition(c, spelling);

	if (!t && c->resolver)
		t = c->resolver(c->resolver_ctx, c->m, spelling);
	return t && !t->incomplete ? t : NULL;
}

const struct dw_type *dw_type_find_complete(struct dw_module *m, const char *spelling)
{
	struct vars_cache *c;
	const struct dw_type *t;

	if (!dw_module_dwarf(m))
		return NULL;
	c = vars_cache_of(m);
	t = own_definition(c, spelling);
	drain(c);
	return t;
}

void dw_module_set_type_resolver(struct dw_module *m, dw_type_resolver fn, void *ctx)
{
	struct vars_cache *c = vars_cache_of(m);

	c->resolver = fn;
	c->resolver_ctx = ctx;
}

/* ---- types by name, for cast() ---- */

/* C's arithmetic types as x86-64 lays them out, named as gdb names them,
 * and the short names kernel code gives some (u32 is unsigned int). */
static const struct dw_type builtin_types[] = {
	{ .kind = DW_TYPE_BOOL, .name = "_Bool", .size = 1 },
	{ .kind = DW_TYPE_BOOL, .name = "bool", .size = 1 },
	{ .kind = DW_TYPE_INT, .name = "char", .size = 1, .is_signed = true, .is_char = true },
	{ .kind = DW_TYPE_INT, .name = "signed char", .size = 1, .is_signed = true, .is_char = true },
	{ .kind = DW_TYPE_INT, .name = "unsigned char", .size = 1, .is_char = true },
	{ .kind = DW_TYPE_INT, .name = "short", .size = 2, .is_signed = true },
	{ .kind = DW_TYPE_INT, .name = "unsigned short", .size = 2 },
	{ .kind = DW_TYPE_INT, .name = "int", .size = 4, .is_signed = true },
	{ .kind = DW_TYPE_INT, .name = "unsigned int", .size = 4 },
	{ .kind = DW_TYPE_INT, .name = "long", .size = 8, .is_signed = true },
	{ .kind = DW_TYPE_INT, .name = "unsigned long", .size = 8 },
	{ .kind = DW_TYPE_INT, .name = "long long", .size = 8, .is_signed = true },
	{ .kind = DW_TYPE_INT, .name = "unsigned long long", .size = 8 },
	{ .kind = DW_TYPE_FLOAT, .name = "float", .size = 4 },
	{ .kind = DW_TYPE_FLOAT, .name = "double", .size = 8 },
	{ .kind = DW_TYPE_FLOAT, .name = "long double", .size = 16 },
};

const struct dw_type *dw_type_builtin(const char *name)
{
	static const char *const aliases[][2] = {
		{ "u8", "unsigned char" }, { "u16", "unsigned short" }, { "u32", "unsigned int" },
		{ "u64", "unsigned long" }, { "i8", "signed char" }, { "i16", "short" },
		{ "i32", "int" }, { "i64", "long" },
	};

	if (!strcmp(name, "void"))
		return &void_type;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i][0]))
			name = aliases[i][1];
	for (size_t i = 0; i < sizeof(builtin_types) / sizeof(builtin_types[0]); i++)
		if (!strcmp(name, builtin_types[i].name))
			return &builtin_types[i];
	return NULL;
}

/* Does the keyword of "struct x" (or "class x", ...) fit type @t? */
static bool tag_fits(const char *spelling, const struct dw_type *t)
{
	if (!strncmp(spelling, "union ", 6))
		return t->kind == DW_TYPE_UNION;
	if (!strncmp(spelling, "enum ", 5))
		return t->kind == DW_TYPE_ENUM;
	return t->kind == DW_TYPE_STRUCT;
}

static bool is_tagged(const char *name)
{
	return !strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6) ||
	       !strncmp(name, "enum ", 5) || !strncmp(name, "class ", 6);
}

/* The one entry of @v (@n entries) named "SCOPES::@name", or NULL when
 * none or several differently qualified ones are. */
static const struct complete_entry *by_last_name(const struct complete_entry *v, size_t n, const char *name)
{
	const struct complete_entry *found = NULL;
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(v[i].name);

		if (l <= len + 2 || strcmp(v[i].name + l - len, name) || strncmp(v[i].name + l - len - 2, "::", 2))
			continue;
		if (found && strcmp(found->name, v[i].name))
			return NULL;
		found = &v[i];
	}
	return found;
}

const struct dw_type *dw_type_named(struct dw_module *m, const char *name)
{
	struct vars_cache *c;
	const struct dw_type *t;

	if (!dw_module_dwarf(m))
		return NULL;
	c = vars_cache_of(m);
	t = own_definition(c, name);
	if (!t && is_tagged(name)) {
		/* C++ names a class without its keyword */
		t = own_definition(c, strchr(name, ' ') + 1);
		if (t && !tag_fits(name, t))
			t = NULL;
	} else if (!t) {
		t = indexed(c, c->plain, c->n_plain, name);
	}
	if (!t && !strstr(name, "::") && !strchr(name, ' ')) {
		/* A C++ or Rust type by its own name alone ("Pair" for
		 * "app::Pair"), when one type of the module has it. */
		const struct complete_entry *e = by_last_name(c->complete, c->n_complete, name);

		if (e)
			t = own_definition(c, e->name);
		else if ((e = by_last_name(c->plain, c->n_plain, name)))
			t = indexed(c, c->plain, c->n_plain, e->name);
	}
	if (!t) {
		/* the index holds gdb's spellings: "vector<Node*>" for the
		 * "vector<Node *>" clang wrote, as gdb finds it by either */
		char *canon = typename_canonical(name);

		t = canon ? dw_type_named(m, canon) : NULL;
		free(canon);
	}
	drain(c);
	return t;
}

const struct dw_type *dw_type_derived(struct dw_module *m, enum dw_type_kind kind,
				      const struct dw_type *target, uint64_t count, const char *name)
{
	struct vars_cache *c = vars_cache_of(m);
	struct dw_type *t = own(c, xcalloc(1, sizeof(*t)));

	t->kind = kind;
	t->target = target;
	t->count = count;
	t->size = kind == DW_TYPE_POINTER ? 8 : kind == DW_TYPE_ARRAY ? count * target->size : 0;
	t->name = own(c, xstrdup(name));
	return t;
}

const struct dw_type *dw_type_renamed(struct dw_module *m, const struct dw_type *t, const char *name)
{
	struct vars_cache *c = vars_cache_of(m);
	struct dw_type *copy = own(c, xcalloc(1, sizeof(*copy)));

	*copy = *t;
	copy->name = own(c, xstrdup(name));
	return copy;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The scalar facts of two types, not what they contain. */
static bool same_shape(const struct dw_type *a, const struct dw_type *b)
{
	return a->kind == b->kind && a->size == b->size && a->is_signed == b->is_signed &&
	       a->is_char == b->is_char && a->count == b->count && a->n_members == b->n_members &&
	       a->n_enumerators == b->n_enumerators && a->incomplete == b->incomplete &&
	       a->is_reference == b->is_reference && a->scoped == b->scoped &&
	       same_name(a->enum_scope, b->enum_scope) &&
	       same_name(a->name, b->name) && !a->target == !b->target;
}

static bool same_type(const struct dw_type *a, const struct dw_type *b, unsigned depth)
{
	if (a == b)
		return true;
	if (!same_shape(a, b))
		return false;
	if (!depth || (a->kind == DW_TYPE_POINTER && a->target))
		/* deep enough; what a pointer points to compares by name,
		 * which ends the cycles of linked structures */
		return !a->target || same_name(a->target->name, b->target->name);
	if (a->target && !same_type(a->target, b->target, depth - 1))
		return false;
	for (size_t i = 0; i < a->n_members; i++) {
		const struct dw_member *x = &a->members[i], *y = &b->members[i];

		if (!same_name(x->name, y->name) || x->offset != y->offset ||
		    x->bit_size != y->bit_size || x->bit_offset != y->bit_offset ||
		    !same_type(x->type, y->type, depth - 1))
			return false;
	}
	for (size_t i = 0; i < a->n_enumerators; i++)
		if (!same_name(a->enumerators[i].name, b->enumerators[i].name) ||
		    a->enumerators[i].value != b->enumerators[i].value)
			return false;
	return true;
}

bool dw_type_same(const struct dw_type *a, const struct dw_type *b)
{
	return same_type(a, b, 8);
}

/* ---- pointer types made here (&x, arrays decaying) ---- */

/* C puts a pointer declarator inside an array's or function's suffix:
 * "int (*)[4]", "void (*)(int)". */
static char *pointer_name(const struct dw_type *t)
{
	const char *suffix = t->kind == DW_TYPE_ARRAY ? strchr(t->name, '[')
			   : t->kind == DW_TYPE_FUNCTION ? strchr(t->name, '(') : NULL;
	int n;

	if (!suffix)
		return star_name(t->name);
	for (n = (int)(suffix - t->name); n > 0 && t->name[n - 1] == ' '; n--)
		;
	return xasprintf("%.*s%s(*)%s", n, t->name, n && t->name[n - 1] == '*' ? "" : " ", suffix);
}

const struct dw_type *dw_type_pointer(struct dw_module *m, const struct dw_type *target)
{
	struct vars_cache *c = vars_cache_of(m);
	struct dw_type *p = idmap_get_ptr(&c->pointers, (uint64_t)(uintptr_t)target);

	if (p)
		return p;
	p = own(c, xcalloc(1, sizeof(*p)));
	p->kind = DW_TYPE_POINTER;
	p->size = 8;
	p->target = target;
	p->name = own(c, pointer_name(target));
	idmap_put_ptr(&c->pointers, (uint64_t)(uintptr_t)target, p);
	return p;
}

/* ---- queries ---- */

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
		if (!mb->is_virtual && (!mb->name || strcmp(mb->name, "<base>") == 0)) {
			const struct dw_member *found = dw_type_member(mb->type, name, &inner);

			if (found) {
				*offset = mb->offset + inner;
				return found;
			}
		}
	}
	return NULL;
}

const struct dw_member *dw_type_member_path(const struct dw_type *t, const char *name,
					    const struct dw_member **path, size_t *n, size_t max)
{
	if ((t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION) || *n >= max)
		return NULL;
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i], *found;

		if (mb->name && strcmp(mb->name, name) == 0)
			return mb;
		if (mb->name && strcmp(mb->name, "<base>") != 0)
			continue;
		path[(*n)++] = mb;
		found = dw_type_member_path(mb->type, name, path, n, max);
		if (found)
			return found;
		(*n)--;
	}
	return NULL;
}

bool dw_type_is_flexible(const struct dw_type *t)
{
	return t->kind == DW_TYPE_ARRAY && !t->count && !t->rust && t->target && !t->dynamic;
}

bool dw_type_is_vla(const struct dw_type *t)
{
	for (int depth = 0; t && t->kind == DW_TYPE_ARRAY && depth < 8; t = t->target, depth++)
		if (t->dynamic)
			return true;
	return false;
}

bool dw_type_is_scalar(const struct dw_type *t)
{
	return t->kind == DW_TYPE_INT || t->kind == DW_TYPE_BOOL || t->kind == DW_TYPE_ENUM ||
	       t->kind == DW_TYPE_POINTER;
}

const struct dw_variant *dw_type_variant(const struct dw_type *t, const uint8_t *data, size_t len)
{
	const struct dw_variant *dflt = NULL;
	uint64_t d = 0;

	if (!t->n_variants || t->discr_size > 8 || t->discr_offset + t->discr_size > len)
		return NULL;
	memcpy(&d, data + t->discr_offset, t->discr_size);
	for (size_t i = 0; i < t->n_variants; i++) {
		if (t->variants[i].is_default)
			dflt = &t->variants[i];
		else if (t->variants[i].value == d)
			return &t->variants[i];
	}
	return dflt;
}

bool dw_type_is_tuple(const struct dw_type *t)
{
	if (!t->rust || t->kind != DW_TYPE_STRUCT || t->n_variants || !t->n_members)
		return false;
	for (size_t i = 0; i < t->n_members; i++)
		if (!t->members[i].name || strncmp(t->members[i].name, "__", 2) ||
		    !strchr("0123456789", t->members[i].name[2]) || !t->members[i].name[2])
			return false;
	return true;
}
