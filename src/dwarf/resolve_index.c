/* resolve_index.c - the per-module function index behind resolve.h, and
 * the ELF symbol tables that stand in for it.
 *
 * It is a file of its own because the lookups of resolve.c and the
 * listings of resolve_list.c both stand on it.  The first lookup walks
 * every compile unit once and files each function instance that has code
 * - out-of-line definitions (including compiler clones) and inlined
 * instances - under its DW_AT_name, with any template argument list
 * dropped, in a hash table.  Entries hold DIE offsets, not names or
 * addresses, so the index of a libLLVM-sized module stays small; qualified
 * names, addresses and lines are worked out only for the few candidates a
 * lookup touches.  The index lives in the module's DW_EXT_RESOLVE slot.
 *
 * Without DWARF (or when DWARF does not know a name) the ELF symbol tables
 * stand in, loaded lazily as well.
 */
#include "dwarf/resolve_priv.h"
#include "dwarf/typename.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

/* The last "::"-separated component of a C++ name, ignoring "::" inside
 * template arguments, parameter lists and lambda names; an operator name
 * is always last (it may hold '<' or "()"). */
const char *rs_last_component(const char *s)
{
	const char *last = s;
	int depth = 0;

	for (const char *p = s; *p; p++) {
		if (depth == 0 && p == last && strncmp(p, "operator", 8) == 0 && !rs_is_ident(p[8]))
			return last;
		if (*p == '<' || *p == '(' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']' || *p == '}') && depth > 0)
			depth--;
		else if (depth == 0 && p[0] == ':' && p[1] == ':')
			last = ++p + 1;
	}
	return last;
}

/* Length of @s without the template argument list that ends its last
 * component ("ns::max<int>" -> "ns::max"). */
size_t rs_untemplated_len(const char *s)
{
	size_t len = strlen(s);
	const char *comp;
	int depth = 0;

	if (len == 0 || s[len - 1] != '>')
		return len;
	comp = rs_last_component(s);
	if (strncmp(comp, "operator", 8) == 0)
		return len;
	for (size_t i = len; i-- > (size_t)(comp - s);) {
		if (s[i] == '>')
			depth++;
		else if (s[i] == '<' && --depth == 0)
			return i;
	}
	return len;
}

/* The name a DIE is known by: its C++ or Rust linkage name, else DW_AT_name;
 * abstract origins and specifications are followed.  Equal strings name
 * the same function, so callers can deduplicate before demangling.
 * Borrowed from libdw; NULL for an anonymous DIE. */
const char *rs_raw_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return s && (strncmp(s, "_Z", 2) == 0 || strncmp(s, "_R", 2) == 0) ? s : dwarf_diename(die);
}

/* The name of Rust function DIE @die as gdb writes it (its scopes in
 * DWARF): from the prefixes the index walk noted, else found by a walk of
 * its unit.  Caller frees; NULL without a name. */
static char *rust_function_name(struct rs_state *st, Dwarf_Die *die)
{
	struct strbuf sb = STRBUF_INIT;
	Dwarf_Die decl = *die;
	const char *prefix;

	for (int i = 0; i < 8; i++)
		if (!die_ref(&decl, DW_AT_specification, &decl) && !die_ref(&decl, DW_AT_abstract_origin, &decl))
			break;
	prefix = idmap_get_ptr(&st->rust_prefixes, (uint64_t)(uintptr_t)decl.addr);
	if (prefix && dwarf_diename(&decl))
		strbuf_addf(&sb, "%s%s", prefix, dwarf_diename(&decl));
	else if (!typename_scoped_name(&decl, &sb))
		return NULL;
	return strbuf_detach(&sb);
}

/* A C++ function without a mangled linkage name (static, extern "C", or
 * main) by its scopes in DWARF, as gdb names it: "ns::twice".  Caller
 * frees; NULL when the unit is not C++ or the name needs no scopes. */
static char *cxx_scoped_name(Dwarf_Die *die)
{
	struct strbuf sb = STRBUF_INIT;
	Dwarf_Die decl = *die, cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || !dw_unit_is_cxx(&cu))
		return NULL;
	for (int i = 0; i < 8; i++)
		if (!die_ref(&decl, DW_AT_specification, &decl) && !die_ref(&decl, DW_AT_abstract_origin, &decl))
			break;
	if (!typename_scoped_name(&decl, &sb) || !strstr(sb.buf, "::")) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

char *rs_function_name(struct rs_state *st, Dwarf_Die *die)
{
	const char *raw;
	char *d;

	if (dw_die_is_rust(die))
		return rust_function_name(st, die);
	raw = rs_raw_name(die);
	if (!raw)
		return NULL;
	if (strncmp(raw, "_Z", 2) != 0 && (d = cxx_scoped_name(die)))
		return d;
	d = dw_demangle(raw, false);
	return d ? d : xstrdup(raw);
}

char *rs_function_alt_name(Dwarf_Die *die)
{
	const char *raw = rs_raw_name(die);

	return raw && dw_die_is_rust(die) ? dw_demangle(raw, false) : NULL;
}

/* ---- the index ---- */

static void destroy_state(void *data)
{
	struct rs_state *st = data;

	for (size_t i = 0; i < st->n_owned; i++)
		free(st->owned[i]);
	for (size_t i = 0; i < st->n_names; i++)
		free(st->names[i].name);
	free(st->owned);
	free(st->names);
	for (size_t i = 0; st->lazy && i < st->n_cus; i++) {
		free(st->lazy[i].funcs);
		free(st->lazy[i].origins);
	}
	free(st->lazy);
	free(st->cus);
	free(st->ents);
	htab_release(&st->keys);
	free(st->origins.slots);
	free(st->syms);
	idmap_release(&st->rust_prefixes);
	free(st);
}

struct rs_state *rs_state_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_RESOLVE];

	if (!ext->data) {
		struct rs_state *st = xcalloc(1, sizeof(struct rs_state));

		st->m = m;
		ext->data = st;
		ext->destroy = destroy_state;
	}
	return ext->data;
}

static uint32_t push_entry(struct rs_state *st, Dwarf_Off die, uint32_t cu, enum rs_kind kind,
			   uint32_t next)
{
	if (st->n_ents >= RS_NONE)
		return RS_NONE;
	st->ents = xgrow(st->ents, &st->cap_ents, st->n_ents + 1, sizeof(*st->ents));
	st->ents[st->n_ents] = (struct rs_entry){
		.die = die, .cu = cu | (uint32_t)kind << RS_KIND_SHIFT, .next = next,
	};
	return (uint32_t)st->n_ents++;
}

/* Files entry @i (FUNC or ORIGIN) under the key of @name. */
static void add_named(struct rs_state *st, const char *name, Dwarf_Off die, uint32_t cu,
		      enum rs_kind kind)
{
	size_t len = rs_untemplated_len(name);
	struct htab_slot *slot = htab_get(&st->keys, name, len, true);
	uint32_t i;

	if (!slot->key) {
		if (name[len] != '\0') {
			st->owned = xgrow(st->owned, &st->cap_owned, st->n_owned + 1, sizeof(char *));
			name = st->owned[st->n_owned++] = xstrndup(name, len);
		}
		slot->key = name;
		slot->val = RS_NONE;
	}
	i = push_entry(st, die, cu, kind, slot->val);
	if (i != RS_NONE)
		slot->val = i;
}

static struct rs_origin *origin_slot(struct rs_origins *t, Dwarf_Off die)
{
	size_t i = (size_t)(die * 0x9e3779b97f4a7c15ull >> 20) & (t->cap - 1);

	while (t->slots[i].die && t->slots[i].die != die)
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

/* The slot of origin @die, a new one (head RS_NONE) if need be. */
static struct rs_origin *origin_get(struct rs_origins *t, Dwarf_Off die, uint32_t cu)
{
	struct rs_origin *o;

	if ((t->n + 1) * 4 > t->cap * 3) {
		struct rs_origins bigger = { .cap = t->cap ? t->cap * 2 : 1024, .n = t->n };

		bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].die)
				*origin_slot(&bigger, t->slots[i].die) = t->slots[i];
		free(t->slots);
		*t = bigger;
	}
	o = origin_slot(t, die);
	if (!o->die) {
		*o = (struct rs_origin){ .die = die, .head = RS_NONE, .cu = cu };
		t->n++;
	}
	return o;
}

static void add_instance(struct rs_state *st, Dwarf_Die *die, uint32_t cu)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	struct rs_origin *o;
	uint32_t i;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) || !dwarf_formref_die(&attr, &origin))
		return;
	o = origin_get(&st->origins, dwarf_dieoffset(&origin), cu);
	/* Named here, once per origin, while the origin's DIE is at hand. */
	if (o->head == RS_NONE)
		o->name = dwarf_diename(&origin);
	i = push_entry(st, dwarf_dieoffset(die), cu, KIND_INST, o->head);
	if (i != RS_NONE)
		o->head = i;
}

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* What a walk does with the function instances it meets. */
struct rs_visitor {
	void (*func)(void *ctx, Dwarf_Die *die, const char *name); /* named, with code */
	void (*inst)(void *ctx, Dwarf_Die *die);                   /* inlined instance */
	void *ctx;
	/* A Rust unit's: functions sit in types too (a method in its
	 * struct); with @st, the scopes of every named subprogram are noted
	 * in st->rust_prefixes on the way. */
	bool rust;
	struct rs_state *st;
};

#define MAX_WALK_DEPTH 64

static bool is_rust_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

/* "@prefix@name::", kept by @st. */
static const char *longer_prefix(struct rs_state *st, const char *prefix, const char *name)
{
	char *p = xasprintf("%s%s::", prefix, name);

	st->owned = xgrow(st->owned, &st->cap_owned, st->n_owned + 1, sizeof(char *));
	return st->owned[st->n_owned++] = p;
}

/* Visits the DIEs that can hold functions with code: types are skipped
 * but in Rust (C++ defines member functions outside their class), and so
 * are subprograms without code (declarations, abstract instances).
 * @prefix: the scopes of @parent in a Rust unit ("rscopes::net::"). */
static void walk(const struct rs_visitor *v, Dwarf_Die *parent, const char *prefix, int depth)
{
	Dwarf_Die die;
	const char *name;

	if (depth > MAX_WALK_DEPTH || dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);

		name = dwarf_diename(&die);
		if (tag == DW_TAG_inlined_subroutine) {
			/* Concrete by construction: we only enter code. */
			v->inst(v->ctx, &die);
			walk(v, &die, prefix, depth + 1);
		} else if (tag == DW_TAG_subprogram) {
			if (v->st && v->rust && name)
				idmap_put_ptr(&v->st->rust_prefixes, (uint64_t)(uintptr_t)die.addr, prefix);
			if (!has_code(&die))
				continue;
			if (name)
				v->func(v->ctx, &die, name);
			walk(v, &die, prefix, depth + 1);
		} else if (tag == DW_TAG_lexical_block) {
			walk(v, &die, prefix, depth + 1);
		} else if (tag == DW_TAG_namespace || (v->rust && is_rust_scope(tag))) {
			walk(v, &die, v->st && v->rust && name ? longer_prefix(v->st, prefix, name) : prefix,
			     depth + 1);
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

struct index_walk {
	struct rs_state *st;
	uint32_t cu;
};

static void index_func(void *ctx, Dwarf_Die *die, const char *name)
{
	struct index_walk *w = ctx;

	add_named(w->st, name, dwarf_dieoffset(die), w->cu, KIND_FUNC);
}

static void index_inst(void *ctx, Dwarf_Die *die)
{
	struct index_walk *w = ctx;

	add_instance(w->st, die, w->cu);
}

/* The unit list alone, without reading the units' DIEs: file:line
 * lookups walk only the units that name the file. */
void rs_units_ensure(struct rs_state *st, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die unit;

	if (st->units_listed)
		return;
	st->units_listed = true;
	while (st->n_cus <= RS_CU_MASK && dw_next_unit(dw, &cu, &unit, false)) {
		st->cus = xgrow(st->cus, &st->cap_cus, st->n_cus + 1, sizeof(*st->cus));
		st->cus[st->n_cus++] = (struct rs_cu){
			.dw = dwarf_cu_getdwarf(unit.cu), .die = dwarf_dieoffset(&unit),
		};
	}
	st->lazy = xcalloc(st->n_cus ? st->n_cus : 1, sizeof(*st->lazy));
}

static void index_unit(struct rs_state *st, uint32_t c)
{
	struct index_walk w = { .st = st, .cu = c };
	struct rs_visitor v = { .func = index_func, .inst = index_inst, .ctx = &w, .st = st };
	Dwarf_Die unit;

	st->cus[c].first = (uint32_t)st->n_ents;
	if (dwarf_offdie(st->cus[c].dw, st->cus[c].die, &unit)) {
		v.rust = dw_unit_is_rust(&unit);
		walk(&v, &unit, "", 0);
	}
	st->cus[c].end = (uint32_t)st->n_ents;
}

/* Files every abstract origin under its name, after the units' entries
 * (which must stay in DIE order). */
static void name_origins(struct rs_state *st)
{
	for (size_t i = 0; i < st->origins.cap; i++) {
		const struct rs_origin *o = &st->origins.slots[i];

		if (o->die && o->name)
			add_named(st, o->name, o->die, o->cu, KIND_ORIGIN);
	}
}

void rs_index_ensure(struct rs_state *st, Dwarf *dw)
{
	if (st->indexed)
		return;
	st->indexed = true;
	rs_units_ensure(st, dw);
	for (uint32_t c = 0; c < st->n_cus; c++)
		index_unit(st, c);
	name_origins(st);
}

/* ---- one unit's functions, for file:line ---- */

static void lazy_func(void *ctx, Dwarf_Die *die, const char *name)
{
	struct rs_unit_funcs *u = ctx;

	(void)name;
	u->funcs = xgrow(u->funcs, &u->cap_funcs, u->n_funcs + 1, sizeof(*u->funcs));
	u->funcs[u->n_funcs++] = dwarf_dieoffset(die);
}

static void lazy_inst(void *ctx, Dwarf_Die *die)
{
	struct rs_unit_funcs *u = ctx;
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) || !dwarf_formref_die(&attr, &origin))
		return;
	u->origins = xgrow(u->origins, &u->cap_origins, u->n_origins + 1, sizeof(*u->origins));
	u->origins[u->n_origins++] = origin;
}

static int cmp_die_addr(const void *a, const void *b)
{
	const Dwarf_Die *x = a, *y = b;
	uintptr_t xa = (uintptr_t)x->addr, ya = (uintptr_t)y->addr;

	return (xa > ya) - (xa < ya);
}

/* The index's walk over unit @c alone, kept: the unit's named out-of-line
 * functions in DIE order, and the abstract origins its inlined instances
 * name, each once (with LTO an origin may live in another unit). */
const struct rs_unit_funcs *rs_unit_funcs(struct rs_state *st, uint32_t c)
{
	struct rs_unit_funcs *u = &st->lazy[c];
	struct rs_visitor v = { .func = lazy_func, .inst = lazy_inst, .ctx = u };
	size_t kept = 0;
	Dwarf_Die unit;

	if (u->walked)
		return u;
	u->walked = true;
	if (dwarf_offdie(st->cus[c].dw, st->cus[c].die, &unit)) {
		v.rust = dw_unit_is_rust(&unit);
		walk(&v, &unit, "", 0);
	}
	if (u->n_origins)
		qsort(u->origins, u->n_origins, sizeof(*u->origins), cmp_die_addr);
	for (size_t i = 0; i < u->n_origins; i++)
		if (kept == 0 || u->origins[kept - 1].addr != u->origins[i].addr)
			u->origins[kept++] = u->origins[i];
	u->n_origins = kept;
	return u;
}

/* The first inlined instance of ORIGIN entry @i, or RS_NONE. */
uint32_t rs_first_instance(struct rs_state *st, uint32_t i)
{
	struct rs_origin *o;

	if (!st->origins.cap)
		return RS_NONE;
	o = origin_slot(&st->origins, st->ents[i].die);
	return o->die ? o->head : RS_NONE;
}

bool rs_entry_die(struct rs_state *st, uint32_t i, Dwarf_Die *die, Dwarf_Die *cudie)
{
	const struct rs_cu *cu = &st->cus[rs_entry_unit(&st->ents[i])];

	return dwarf_offdie(cu->dw, st->ents[i].die, die) && dwarf_offdie(cu->dw, cu->die, cudie);
}

/* ---- ELF symbols ---- */

static int cmp_sym(const void *a, const void *b)
{
	const struct rs_sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void load_symtab(struct dw_module *m, struct rs_state *st, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_size == 0)
			continue;
		name = elf_strptr(m->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		st->syms = xgrow(st->syms, &st->cap_syms, st->n_syms + 1, sizeof(*st->syms));
		st->syms[st->n_syms++] = (struct rs_sym){ .name = name, .value = sym.st_value };
	}
}

/* Defined functions of .symtab and .dynsym, sorted by address, each
 * (address, name) once. */
void rs_symbols_load(struct dw_module *m, struct rs_state *st)
{
	Elf_Scn *scn = NULL;
	size_t kept = 0;

	if (st->syms_loaded)
		return;
	st->syms_loaded = true;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			load_symtab(m, st, scn, &sh);
	}
	if (st->n_syms)
		qsort(st->syms, st->n_syms, sizeof(*st->syms), cmp_sym);
	for (size_t i = 0; i < st->n_syms; i++)
		if (kept == 0 || cmp_sym(&st->syms[kept - 1], &st->syms[i]) != 0)
			st->syms[kept++] = st->syms[i];
	st->n_syms = kept;
}

/* The user-facing name of a symbol: demangled without parameters, without
 * a "@VERSION" suffix.  Caller frees. */
char *rs_symbol_name(const char *sym)
{
	char *d = dw_demangle(sym, false);

	return d ? d : xstrndup(sym, strcspn(sym, "@"));
}
