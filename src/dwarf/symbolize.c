/* symbolize.c - naming a pc the way gdb's backtrace does (see symbolize.h).
 *
 * With DWARF, each compile unit gets an index of its functions' code
 * ranges, built on first use (a lambda's operator() sits in a closure type
 * inside the defining function's DIE, outside that function's ranges, so
 * a walk that prunes by range would miss it).  The function holding the
 * pc is the physical frame; below it we descend the blocks holding the pc,
 * and every DW_TAG_inlined_subroutine met is an inline frame.
 * dwarf_getscopes() does not give this chain: past the innermost inlined
 * instance it continues with the abstract definition's scopes.
 *
 * Positions: the innermost frame's from the line table, choosing the row
 * gdb would (gdb drops some rows while reading the line program, then
 * prefers a statement row at the same address); each outer frame's from
 * the DW_AT_call_* attributes of the inlined instance just inside it.
 * Names: the linkage name when there is one (C++, and glibc's asm-label
 * aliases in C, as gdb shows them), demangled without parameters, else the
 * DW_AT_name, qualified by namespaces and classes in C++.  Parameters come
 * from the abstract definition (source order; GCC reorders a concrete
 * instance's copies at -O2) and are rendered as C declarations from the
 * type DIEs in gdb's spelling by typename.c.
 *
 * Without DWARF (or outside every DWARF function) the name comes from the
 * ELF symbol table libdwfl picked for the module: .symtab of the file or of
 * its separate debug file, else .dynsym.
 *
 * Every result is cached per module and pc, with its strings interned in
 * the same cache, so a warm lookup is one hash probe.  The cache is not
 * locked: a module is symbolized from one thread at a time.
 */
#include "dwarf/symbolize.h"
#include "dwarf/module_priv.h"
#include "dwarf/typename.h"
#include "util/htab.h"
#include "util/idmap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCOPE_DEPTH 64 /* DIE nesting followed from a CU down to a pc */
#define MAX_ORIGIN_HOPS 8  /* abstract_origin/specification links followed */


/* [lo, hi): the head of every element of a sorted span array. */
struct span {
	uint64_t lo;
	uint64_t hi;
};

/* Spans sorted by lo, possibly nested or overlapping. */
struct spans {
	void *v;           /* elements of size elem, each starting with a span */
	size_t elem;
	size_t n;
	uint64_t *max_end; /* max_end[i]: greatest hi among elements 0..i */
};

struct elf_sym {
	struct span span;   /* [value, value+size); size 0: to the section end */
	const char *name;   /* borrowed from libelf until demangled, then interned */
	bool demangled;
	int pref;           /* among equal candidates the highest wins */
};

struct symtab {
	struct spans sized;   /* struct elf_sym, by address then preference */
	struct spans unsized; /* size-0 symbols, sorted the same way */
	bool loaded;
};

/* One code range of a function. */
struct fn_range {
	struct span span;
	Dwarf_Die die; /* the concrete DW_TAG_subprogram */
};

struct cu_index {
	struct spans ranges; /* struct fn_range */
	bool cxx;
	bool rust;
};

struct sym_entry {
	size_t n;
	struct dw_sym_frame frames[];
};

/* Results live in chunks freed together: one allocation per result
 * would cost more than computing a symbol-table result. */
struct chunk {
	struct chunk *next;
	size_t used;
	size_t cap;
	max_align_t data[];
};

struct sym_cache {
	struct idmap by_pc;       /* pc -> struct sym_entry * (in chunks) */
	struct chunk *chunks;     /* newest first */
	struct idmap die_names;   /* DIE key -> interned qualified name */
	struct idmap cu_indexes;  /* CU DIE key -> struct cu_index * */
	struct htab strs;         /* interned strings (owned keys) */
	struct symtab syms;
	Dwarf **dwarfs;           /* the files die_key() numbers */
	size_t n_dwarfs, cap_dwarfs;
};

/* The DIEs holding a pc: a subprogram, then its inlined instances. */
struct scope_path {
	Dwarf_Die dies[MAX_SCOPE_DEPTH];
	int n;
};

/* ---- interned strings ---- */

/* The cache's copy of @s (NULL stays NULL); @s is borrowed. */
static const char *intern(struct sym_cache *c, const char *s)
{
	struct htab_slot *slot;

	if (!s)
		return NULL;
	slot = htab_get(&c->strs, s, strlen(s) + 1, true);
	if (!slot->key)
		slot->key = xstrdup(s);
	return slot->key;
}

/* Like intern() but consumes the malloc'd @s. */
static const char *intern_take(struct sym_cache *c, char *s)
{
	const char *r = intern(c, s);

	free(s);
	return r;
}

/* ---- sorted spans ---- */

static struct span *span_at(const struct spans *sp, size_t i)
{
	return (struct span *)((char *)sp->v + i * sp->elem);
}

static void spans_push(struct spans *sp, size_t *cap, const void *elem)
{
	sp->v = xgrow(sp->v, cap, sp->n + 1, sp->elem);
	memcpy(span_at(sp, sp->n++), elem, sp->elem);
}

/* Sort with @cmp and compute max_end. */
static void spans_finish(struct spans *sp, int (*cmp)(const void *, const void *))
{
	uint64_t end = 0;

	if (sp->n)
		qsort(sp->v, sp->n, sp->elem, cmp);
	sp->max_end = xmalloc((sp->n ? sp->n : 1) * sizeof(*sp->max_end));
	for (size_t i = 0; i < sp->n; i++) {
		end = span_at(sp, i)->hi > end ? span_at(sp, i)->hi : end;
		sp->max_end[i] = end;
	}
}

static void spans_release(struct spans *sp)
{
	free(sp->v);
	free(sp->max_end);
}

/* Number of elements with lo <= @pc. */
static size_t spans_upto(const struct spans *sp, uint64_t pc)
{
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (span_at(sp, mid)->lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The element holding @pc that starts last (the innermost when spans
 * nest; among equal starts the one sorted last); NULL if none.  max_end
 * bounds how far back a holder can start. */
static void *spans_find(const struct spans *sp, uint64_t pc)
{
	for (size_t i = spans_upto(sp, pc); i > 0 && sp->max_end[i - 1] > pc; i--)
		if (span_at(sp, i - 1)->hi > pc)
			return span_at(sp, i - 1);
	return NULL;
}

/* ---- the cache ---- */

static void cache_destroy(void *data)
{
	struct sym_cache *c = data;

	while (c->chunks) {
		struct chunk *next = c->chunks->next;

		free(c->chunks);
		c->chunks = next;
	}
	idmap_release(&c->by_pc);
	idmap_release(&c->die_names);
	for (size_t i = 0; i < c->cu_indexes.cap; i++) {
		struct cu_index *ix = (struct cu_index *)(uintptr_t)c->cu_indexes.slots[i].val;

		if (ix) {
			spans_release(&ix->ranges);
			free(ix);
		}
	}
	idmap_release(&c->cu_indexes);
	for (size_t i = 0; i < c->strs.cap; i++)
		free((void *)c->strs.slots[i].key);
	htab_release(&c->strs);
	spans_release(&c->syms.sized);
	spans_release(&c->syms.unsized);
	free(c->dwarfs);
	free(c);
}

#define CHUNK_SIZE (64 * 1024)

static void *chunk_alloc(struct sym_cache *c, size_t n)
{
	struct chunk *ch = c->chunks;
	void *p;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!ch || ch->cap - ch->used < n) {
		size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;

		ch = xmalloc(sizeof(*ch) + cap);
		ch->next = c->chunks;
		ch->used = 0;
		ch->cap = cap;
		c->chunks = ch;
	}
	p = (char *)ch->data + ch->used;
	ch->used += n;
	return p;
}

static struct sym_cache *cache_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_SYMBOLIZE];

	if (!ext->data) {
		ext->data = xcalloc(1, sizeof(struct sym_cache));
		ext->destroy = cache_destroy;
	}
	return ext->data;
}

/* ---- demangling ---- */

/* The demangler keeps a thunk's target's parameters whatever it is told
 * ("non-virtual thunk to Klass::~Klass()"): cut them as the other names
 * are cut. */
static void cut_thunk_params(char *d)
{
	size_t n = strlen(d);
	int depth = 0;

	if (!strstr(d, "thunk to ") || !n || d[n - 1] != ')')
		return;
	for (size_t i = n; i-- > 0;) {
		depth += d[i] == ')' ? 1 : d[i] == '(' ? -1 : 0;
		if (!depth) {
			d[i] = '\0';
			return;
		}
	}
}

char *dw_demangle(const char *name, bool params)
{
	char *d;

	/* _R: Rust's v0 mangling (legacy Rust names are _ZN...E) */
	if (!name || (strncmp(name, "_Z", 2) != 0 && strncmp(name, "_R", 2) != 0))
		return NULL;
	d = cplus_demangle(name, params ? DMGL_PARAMS | DMGL_ANSI : DMGL_ANSI);
	if (d && !params && !strncmp(name, "_ZT", 3))
		cut_thunk_params(d);
	return d;
}

/* @name demangled without its parameter list ("ns::Klass<int>::method"),
 * or @name itself when it is not mangled.  Interned. */
static const char *function_name(struct sym_cache *c, const char *name)
{
	char *d = dw_demangle(name, false), *full, *clone;

	if (!d)
		return intern(c, name);
	/* A name with an ABI tag keeps its parameters, as gdb 13 shows it
	 * ("Edge::EvaluateCommand[abi:cxx11](bool) const"): gdb cannot take
	 * the parameters off a tagged name. */
	if (strstr(d, "[abi:") && (full = dw_demangle(name, true))) {
		free(d);
		return intern_take(c, full);
	}
	/* Without its parameters the demangler also drops a clone suffix
	 * (".isra.0"), which is worth keeping: gdb shows it too. */
	if (strchr(name, '.') && (full = dw_demangle(name, true))) {
		clone = strstr(full, " [clone ");
		if (clone) {
			char *both = xasprintf("%s%s", d, clone);

			free(d);
			d = both;
		}
		free(full);
	}
	return intern_take(c, d);
}

/* ---- ELF symbols ---- */

static int sym_pref(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info);
	int type = GELF_ST_TYPE(sym->st_info);
	int rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;

	return rank * 2 + (type == STT_FUNC || type == STT_GNU_IFUNC);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->span.lo != y->span.lo)
		return x->span.lo < y->span.lo ? -1 : 1;
	return (x->pref > y->pref) - (x->pref < y->pref);
}

/* End of the section holding a size-0 symbol: as far as it can reach. */
static uint64_t section_end(Elf *elf, GElf_Word shndx, Dwarf_Addr bias)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;

	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_EXECINSTR))
		return 0;
	return shdr.sh_addr + shdr.sh_size + bias;
}

/* Code symbols only: functions, and untyped labels in code sections.
 * Returns the list @out belongs on, or NULL to skip it. */
static struct spans *read_sym(struct dw_module *m, struct symtab *t, int i,
			      struct elf_sym *out)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf = NULL;
	Dwarf_Addr bias = 0;
	const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, &elf, &bias);
	int type = GELF_ST_TYPE(sym.st_info);
	uint64_t sec_end;

	if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == (GElf_Word)-1)
		return NULL;
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return NULL;
	sec_end = section_end(elf, shndx, bias);
	if (type == STT_NOTYPE && !sec_end)
		return NULL;
	*out = (struct elf_sym){ .span = { addr, sym.st_size ? addr + sym.st_size : sec_end },
				 .name = name, .pref = sym_pref(&sym) };
	if (out->span.hi <= addr)
		return NULL;
	return sym.st_size ? &t->sized : &t->unsized;
}

static void load_symtab(struct dw_module *m, struct symtab *t)
{
	int n = dwfl_module_getsymtab(m->mod);
	size_t cap_sized = 0, cap_unsized = 0;

	t->loaded = true;
	t->sized.elem = t->unsized.elem = sizeof(struct elf_sym);
	for (int i = 1; i < n; i++) {
		struct elf_sym s;
		struct spans *list = read_sym(m, t, i, &s);

		if (list)
			spans_push(list, list == &t->sized ? &cap_sized : &cap_unsized, &s);
	}
	spans_finish(&t->sized, cmp_sym);
	spans_finish(&t->unsized, cmp_sym);
}

/* The symbol with the greatest address <= @pc whose range covers @pc;
 * a size-0 symbol only when no sized one covers @pc and none starts
 * between it and @pc.  NULL when nothing fits.  The name is demangled on
 * first use: most symbols of a big library are never hit. */
static struct elf_sym *lookup_sym(struct sym_cache *c, struct dw_module *m, uint64_t pc)
{
	struct symtab *t = &c->syms;
	struct elf_sym *s;
	size_t i, j;

	if (!t->loaded)
		load_symtab(m, t);
	s = spans_find(&t->sized, pc);
	if (!s) {
		i = spans_upto(&t->sized, pc);
		j = spans_upto(&t->unsized, pc);
		s = j ? (struct elf_sym *)span_at(&t->unsized, j - 1) : NULL;
		if (s && (s->span.hi <= pc || (i && span_at(&t->sized, i - 1)->lo > s->span.lo)))
			s = NULL;
	}
	if (s && !s->demangled) {
		s->name = function_name(c, s->name);
		s->demangled = true;
	}
	return s;
}

/* ---- DIE helpers ---- */

/* Key for the DIE caches: offsets are unique within one section of one
 * file, so the key also says which file (the module's DWARF, each split
 * unit's .dwo, a supplementary file: numbered as met) and whether the DIE
 * is in a type unit. */
static uint64_t die_key(struct sym_cache *c, Dwarf_Die *die)
{
	Dwarf *dw = die->cu ? dwarf_cu_getdwarf(die->cu) : NULL;
	uint64_t key = dwarf_dieoffset(die);
	uint8_t unit_type = 0;
	size_t i;

	for (i = 0; i < c->n_dwarfs && c->dwarfs[i] != dw; i++)
		;
	if (i == c->n_dwarfs) {
		c->dwarfs = xgrow(c->dwarfs, &c->cap_dwarfs, c->n_dwarfs + 1, sizeof(*c->dwarfs));
		c->dwarfs[c->n_dwarfs++] = dw;
	}
	key |= (uint64_t)i << 40;
	if (die->cu && dwarf_cu_info(die->cu, NULL, &unit_type, NULL, NULL, NULL, NULL, NULL) == 0 &&
	    (unit_type == DW_UT_type || unit_type == DW_UT_split_type))
		key |= 1ull << 63;
	return key;
}

/* ---- finding the DIEs that hold a pc ---- */

static void index_children(struct cu_index *ix, size_t *cap, Dwarf_Die *parent, int depth);

/* Tags whose children may include subprograms with code: a lambda's
 * operator() sits in a closure type inside the function that defines it,
 * outside that function's ranges. */
static bool may_hold_functions(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
	case DW_TAG_module:
		return true;
	default:
		return false;
	}
}

static void index_die(struct cu_index *ix, size_t *cap, Dwarf_Die *die, int depth)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die unit;
	ptrdiff_t off = 0;
	int tag = dwarf_tag(die);

	while (tag == DW_TAG_subprogram && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		struct fn_range r = { { lo, hi }, *die };

		if (hi > lo && dw_range_live(lo))
			spans_push(&ix->ranges, cap, &r);
	}
	if (tag == DW_TAG_imported_unit && die_ref(die, DW_AT_import, &unit))
		index_children(ix, cap, &unit, depth + 1);
	else if (may_hold_functions(tag))
		index_children(ix, cap, die, depth + 1);
}

static void index_children(struct cu_index *ix, size_t *cap, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (depth >= MAX_SCOPE_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do
		index_die(ix, cap, &child, depth);
	while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return (x->span.lo > y->span.lo) - (x->span.lo < y->span.lo);
}

/* Every code range of every function of @cu, built on first use; one
 * walk of the unit instead of one per pc. */
static struct cu_index *cu_index_of(struct sym_cache *c, struct dw_module *m, Dwarf_Die *cu)
{
	uint64_t key = die_key(c, cu);
	struct cu_index *ix = idmap_get_ptr(&c->cu_indexes, key);
	size_t cap = 0;

	if (ix)
		return ix;
	ix = xcalloc(1, sizeof(*ix));
	ix->cxx = dw_unit_is_cxx(cu);
	ix->rust = dw_unit_is_rust(cu);
	ix->ranges.elem = sizeof(struct fn_range);
	index_children(ix, &cap, cu, 0);
	spans_finish(&ix->ranges, cmp_range);
	idmap_put_ptr(&c->cu_indexes, key, ix);
	return ix;
}

static void visit_scope(Dwarf_Die *die, uint64_t pc, struct scope_path *p, int depth);

static void walk_children(Dwarf_Die *parent, uint64_t pc, struct scope_path *p, int depth)
{
	Dwarf_Die child;

	if (depth >= MAX_SCOPE_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do
		visit_scope(&child, pc, p, depth);
	while (p->n < MAX_SCOPE_DEPTH && dwarf_siblingof(&child, &child) == 0);
}

/* Inside a function: descend the blocks holding @pc, recording each
 * inlined instance.  Sibling blocks never both hold a pc, but walking on
 * costs little and tolerates odd producers. */
static void visit_scope(Dwarf_Die *die, uint64_t pc, struct scope_path *p, int depth)
{
	int tag = dwarf_tag(die);

	if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
	    tag != DW_TAG_try_block && tag != DW_TAG_catch_block && tag != DW_TAG_with_stmt)
		return;
	if (dwarf_haspc(die, pc) <= 0)
		return;
	if (tag == DW_TAG_inlined_subroutine && p->n < MAX_SCOPE_DEPTH)
		p->dies[p->n++] = *die;
	walk_children(die, pc, p, depth + 1);
}

/* ---- names ---- */

/* "ns::Klass<int>::name" for a C++ declaration: its DW_AT_name qualified by
 * the enclosing namespaces and classes (a local class stops at its
 * function, as gdb prints it).  Interned and cached; NULL without a name. */
static const char *qualified_name(struct sym_cache *c, struct dw_module *m, Dwarf_Die *die)
{
	uint64_t key = die_key(c, die);
	const char *cached = idmap_get_ptr(&c->die_names, key);
	struct strbuf sb = STRBUF_INIT;

	if (cached)
		return *cached ? cached : NULL;
	typename_scoped_name(die, &sb);
	cached = intern(c, sb.buf);
	idmap_put_ptr(&c->die_names, key, cached);
	strbuf_release(&sb);
	return *cached ? cached : NULL;
}

/* Follow DW_AT_abstract_origin / DW_AT_specification to the declaration
 * that sits in the function's namespace or class. */
static void find_declaration(Dwarf_Die *die, Dwarf_Die *out)
{
	*out = *die;
	for (int i = 0; i < MAX_ORIGIN_HOPS; i++)
		if (!die_ref(out, DW_AT_specification, out) && !die_ref(out, DW_AT_abstract_origin, out))
			break;
}

/* The name gdb shows for the function of @fn (a subprogram or an inlined
 * instance), without parameters: the linkage name when there is one, in C
 * too (glibc's asm-label aliases: gdb shows "__GI_raise"), demangled.  In
 * Rust, whichever the mangling, gdb names a function by its scopes in
 * DWARF: "rscopes::net::{impl#1}::on_event", "rscopes::scale<u8>",
 * "rscopes::run::{closure#0}".  Interned; NULL when DWARF has none. */
static const char *die_function_name(struct sym_cache *c, struct dw_module *m, Dwarf_Die *fn,
				     const struct typename_ctx *ctx)
{
	const char *linkage = ctx->rust ? NULL : die_string(fn, DW_AT_linkage_name);
	Dwarf_Die decl;

	if (!linkage && !ctx->rust)
		linkage = die_string(fn, DW_AT_MIPS_linkage_name);
	if (linkage)
		return function_name(c, linkage);
	if (!ctx->cxx && !ctx->rust)
		return intern(c, die_string(fn, DW_AT_name));
	find_declaration(fn, &decl);
	return qualified_name(c, m, &decl);
}

/* "int x, char **argv" for the function of @fn.  The abstract definition
 * holds the parameters in source order with their names; a concrete
 * instance may have them reordered or dropped.  Interned. */
static const char *function_params(const struct typename_ctx *ctx, Dwarf_Die *fn)
{
	struct strbuf sb = STRBUF_INIT;
	Dwarf_Die origin = *fn;
	const char *params;

	for (int i = 0; i < MAX_ORIGIN_HOPS; i++)
		if (!die_ref(&origin, DW_AT_abstract_origin, &origin))
			break;
	typename_render_params(ctx, typename_has_params(&origin) ? &origin : fn, true, &sb);
	params = intern(ctx->c, sb.buf);
	strbuf_release(&sb);
	return params;
}

/* ---- positions ---- */

static bool str_equal(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* One line-table row, the fields gdb's choice depends on. */
struct row {
	uint64_t addr;
	int line;
	const char *file; /* libdw's string: equal files share it */
	unsigned disc;
	bool stmt;
	bool end;
	bool dropped;     /* code the linker dropped (dw_line_dropped): not there */
};

/* A unit's line table: the rows linerows.c reads (own), else libdw's. */
struct line_tab {
	const struct dw_line_rows *own;
	Dwarf_Lines *lines;
	struct dw_module *m;
	Dwarf_Die *cu;
};

static void get_row(const struct line_tab *t, size_t i, struct row *r)
{
	Dwarf_Line *l;
	Dwarf_Addr addr = 0;

	if (t->own) {
		const struct dw_line_row *o = &t->own->v[i];

		*r = (struct row){ .addr = o->addr, .line = o->line, .disc = o->disc,
				   .file = o->file < t->own->n_files ? t->own->files[o->file] : NULL,
				   .stmt = o->flags & DW_ROW_STMT, .end = o->flags & DW_ROW_END,
				   .dropped = o->flags & DW_ROW_DROPPED };
		return;
	}
	l = dwarf_onesrcline(t->lines, i);
	*r = (struct row){ 0 };
	dwarf_lineaddr(l, &addr);
	r->addr = addr;
	dwarf_lineno(l, &r->line);
	r->file = dwarf_linesrc(l, NULL, NULL);
	dwarf_linediscriminator(l, &r->disc);
	dwarf_linebeginstatement(l, &r->stmt);
	dwarf_lineendsequence(l, &r->end);
	r->dropped = dw_line_dropped(t->m, t->cu, l);
}

/* Rows are sorted by address, so within a sequence the row before @i is
 * the previous row of the line program.  gdb reads the program row by row
 * and keeps only some rows in its table; these predicates say which.
 * Rows of dropped code are passed over everywhere. */
static bool gdb_ignores(const struct line_tab *t, size_t i, const struct row *r);

/* The last row before @i that gdb did not ignore, if any in the sequence. */
static bool prev_kept(const struct line_tab *t, size_t i, struct row *out)
{
	for (size_t k = i; k-- > 0;) {
		get_row(t, k, out);
		if (out->dropped)
			continue;
		if (out->end)
			return false;
		if (!gdb_ignores(t, k, out))
			return true;
	}
	return false;
}

/* Line-0 rows never reach gdb's table, nor do non-statement rows that
 * switch files at an address already given a statement row. */
static bool gdb_ignores(const struct line_tab *t, size_t i, const struct row *r)
{
	struct row prev, kept;
	bool stmt_here = false;

	if (r->line == 0 || r->dropped)
		return true;
	if (r->stmt)
		return false;
	for (size_t k = i; !stmt_here && k-- > 0;) {
		get_row(t, k, &prev);
		if (prev.dropped)
			continue;
		if (prev.end || prev.addr != r->addr)
			break;
		stmt_here = prev.stmt;
	}
	return stmt_here && prev_kept(t, i, &kept) && !str_equal(kept.file, r->file);
}

/* Nor does a row repeating the last kept row's file and line while that
 * line has had a non-zero discriminator (gdb's fix for PR 17276). */
static bool gdb_keeps(const struct line_tab *t, size_t i, const struct row *r)
{
	struct row kept, k;
	bool disc = r->disc != 0;

	if (r->end || gdb_ignores(t, i, r))
		return false;
	if (!prev_kept(t, i, &kept) || kept.line != r->line || !str_equal(kept.file, r->file))
		return true;
	for (size_t j = i; !disc && j-- > 0;) {
		get_row(t, j, &k);
		if (k.dropped)
			continue;
		if (k.end || k.line != r->line)
			break;
		disc = k.disc != 0;
	}
	return !disc;
}

#define NO_ROW SIZE_MAX

/* The line table of unit @cu into @t, and its rows' count (0: none). */
static size_t open_lines(struct dw_module *m, Dwarf_Die *cu, struct line_tab *t)
{
	size_t n = 0;

	*t = (struct line_tab){ .m = m, .cu = cu, .own = dw_unit_line_rows(m, cu) };
	if (t->own)
		return t->own->n;
	if (dwarf_getsrclines(cu, &t->lines, &n) != 0)
		n = 0;
	return n;
}

/* The line-table row describing @pc as gdb finds it: the last row gdb
 * kept at the greatest address <= @pc, but when that row is not a
 * statement, the last kept statement row of the same file at the same
 * address.  NO_ROW past a sequence's end.  *@raw: the last row at or
 * before @pc, kept or not (of code not dropped), or NO_ROW. */
static size_t row_at(const struct line_tab *tab, size_t n, uint64_t pc, size_t *raw)
{
	const struct line_tab t = *tab;
	struct row r, prev;
	size_t lo = 0, hi, i;

	*raw = NO_ROW;
	if (n == 0)
		return NO_ROW;
	for (hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		get_row(&t, mid, &r);
		if (r.addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {
		get_row(&t, i, &r);
		if (r.dropped)
			continue;
		if (*raw == NO_ROW)
			*raw = i;
		if (r.end)
			return NO_ROW;
		if (gdb_keeps(&t, i, &r))
			break;
	}
	if (i == (size_t)-1)
		return NO_ROW;
	for (size_t j = i; !r.stmt && j-- > 0;) {
		get_row(&t, j, &prev);
		if (prev.dropped)
			continue;
		if (prev.end || prev.addr != r.addr || !str_equal(prev.file, r.file))
			break;
		if (prev.stmt && gdb_keeps(&t, j, &prev))
			return j;
	}
	return i;
}

/* Column of row @i. */
static int row_col(const struct line_tab *t, size_t i)
{
	int col = 0;

	if (t->own)
		return t->own->v[i].col;
	dwarf_linecol(dwarf_onesrcline(t->lines, i), &col);
	return col;
}

static void line_at(struct sym_cache *c, struct dw_module *m, Dwarf_Die *cu, uint64_t pc,
		    struct dw_sym_frame *f)
{
	struct line_tab t;
	size_t n = open_lines(m, cu, &t), raw, line = row_at(&t, n, pc, &raw);
	struct row r, rr;
	int col;

	if (line == NO_ROW)
		return;
	get_row(&t, line, &r);
	f->file = r.file ? intern_take(c, dw_unit_path(cu, r.file)) : NULL;
	if (r.line > 0)
		f->line = (unsigned)r.line;
	/* gdb drops rows that repeat a line; such a row still knows the
	 * column of the code at @pc more precisely */
	if (raw != NO_ROW) {
		get_row(&t, raw, &rr);
		if (rr.line == r.line && str_equal(rr.file, r.file))
			line = raw;
	}
	if ((col = row_col(&t, line)) > 0)
		f->col = (unsigned)col;
}

/* Where the inlined instance @inl was called from: the position of the
 * frame just outside it. */
static void call_site(struct sym_cache *c, struct dw_module *m, Dwarf_Die *inl, struct dw_sym_frame *f)
{
	const struct dw_line_rows *own;
	const char *name = NULL;
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t n;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &v) == 0)
		f->line = (unsigned)v;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_column, &attr), &v) == 0)
		f->col = (unsigned)v;
	/* call_file indexes the file table of the unit the DIE is in: the
	 * one linerows.c read with its rows (libdw 0.188 decodes the whole
	 * line table for its file list), else libdw's */
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &v) != 0 ||
	    !dwarf_diecu(inl, &cu, NULL, NULL))
		return;
	if ((own = dw_unit_line_rows(m, &cu)))
		name = v < own->n_files ? own->files[v] : NULL;
	else if (dwarf_getsrcfiles(&cu, &files, &n) == 0 && v < n)
		name = dwarf_filesrc(files, v, NULL, NULL);
	if (name)
		f->file = intern_take(c, dw_unit_path(&cu, name));
}

/* pc - entry of @fn; for a pc before the entry (a .cold part placed
 * below the function), the offset into the range holding it. */
static uint64_t function_offset(Dwarf_Die *fn, uint64_t pc)
{
	Dwarf_Addr entry, base, start, end;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(fn, &entry) == 0 && entry <= pc)
		return pc - entry;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0)
		if (pc >= start && pc < end)
			return pc - start;
	return 0;
}

/* ---- building a result ---- */

/* Frames for @pc from DWARF, innermost first, into @out (room for
 * MAX_SCOPE_DEPTH); 0 when no DWARF function holds @pc. */
static size_t dwarf_frames(struct sym_cache *c, struct dw_module *m, uint64_t pc,
			   struct dw_sym_frame *out)
{
	Dwarf_Die cudie;
	Dwarf_Die *cu = dw_unit_at(m, pc, &cudie) ? &cudie : NULL;
	struct typename_ctx ctx = { .c = c, .m = m, .qualified_name = qualified_name };
	struct cu_index *ix = cu ? cu_index_of(c, m, cu) : NULL;
	/* the innermost when ranges nest: a nested function in its parent */
	struct fn_range *r = ix ? spans_find(&ix->ranges, pc) : NULL;
	Dwarf_Die *fn = r ? &r->die : NULL;
	struct scope_path *p;
	uint64_t offset;
	Dwarf_Addr entry;
	size_t n = 0;

	if (!fn)
		return 0;
	ctx.cxx = ix->cxx;
	ctx.rust = ix->rust;
	p = xmalloc(sizeof(*p));
	p->dies[0] = *fn;
	p->n = 1;
	walk_children(fn, pc, p, 1);
	offset = function_offset(fn, pc);
	for (int i = p->n - 1; i >= 0; i--, n++) {
		struct dw_sym_frame *f = &out[n];

		*f = (struct dw_sym_frame){ .inlined = i > 0, .sym_offset = offset,
					    .scope = dwarf_dieoffset(&p->dies[i]) };
		f->starts_here = i > 0 && dw_die_entry_pc(&p->dies[i], &entry) && entry == pc;
		f->function = die_function_name(c, m, &p->dies[i], &ctx);
		f->params = function_params(&ctx, &p->dies[i]);
		if (i == p->n - 1)
			line_at(c, m, cu, pc, f);
		else
			call_site(c, m, &p->dies[i + 1], f);
	}
	free(p);
	return n;
}

/* One parameter type @t (@len bytes), as rendered in C, the way gdb's
 * canonical C++ names spell it (the demangler's style): qualifiers after
 * what they qualify, GCC's base names short, no space before * and &:
 * "const char *" -> "char const*", "long unsigned int" -> "unsigned long". */
static void canonical_param(const char *t, size_t len, struct strbuf *out)
{
	char *s = xstrndup(t, len), *canon, *rest = s, *tail;
	const char *quals[2] = { NULL, NULL };
	size_t nq = 0, at = out->len, j;

	for (;;) {
		if (!strncmp(rest, "const ", 6) && nq < 2)
			quals[nq++] = "const", rest += 6;
		else if (!strncmp(rest, "volatile ", 9) && nq < 2)
			quals[nq++] = "volatile", rest += 9;
		else
			break;
	}
	tail = rest + strcspn(rest, "*&(");
	while (tail > rest && tail[-1] == ' ')
		tail--;
	canon = xstrndup(rest, (size_t)(tail - rest));
	strbuf_addstr(out, typename_base(canon));
	for (size_t i = 0; i < nq; i++)
		strbuf_addf(out, " %s", quals[i]);
	strbuf_addstr(out, tail);
	free(canon);
	free(s);
	/* no space before a declarator's * or & (what @out held before
	 * may have NULs of its own: the length is counted, not measured) */
	j = at;
	for (size_t i = at; i < out->len; i++)
		if (!(out->buf[i] == ' ' && i + 1 < out->len && (out->buf[i + 1] == '*' || out->buf[i + 1] == '&')))
			out->buf[j++] = out->buf[i];
	strbuf_setlen(out, j);
}

/* gdb's name for a C++ function without a mangled linkage name (extern
 * "C", or static): its scopes, then the types of the parameters of this
 * instance of it (a copy GCC made may have them reordered), as gdb builds
 * a name for it: `cfun(int)`, `cbump(long, int, Counter*)`. */
static void cxx_computed_name(struct sym_cache *c, struct dw_module *m, Dwarf_Die *fn,
			      const struct typename_ctx *ctx, struct strbuf *out)
{
	struct strbuf params = STRBUF_INIT;
	Dwarf_Die decl;
	const char *name;
	size_t start = 0;
	int depth = 0;

	find_declaration(fn, &decl);
	name = qualified_name(c, m, &decl);
	typename_render_params(ctx, fn, false, &params);
	strbuf_addf(out, "%s(", name ? name : "??");
	for (size_t i = 0; params.len && i <= params.len; i++) {
		char ch = params.buf[i];
		const char *seg = params.buf + start;

		if (ch == '<' || ch == '(' || ch == '[')
			depth++;
		else if ((ch == '>' || ch == ')' || ch == ']') && depth > 0)
			depth--;
		if (ch && (ch != ',' || depth))
			continue;
		while (*seg == ' ')
			seg++;
		if (out->buf[out->len - 1] != '(')
			strbuf_addstr(out, ", ");
		canonical_param(seg, (size_t)(params.buf + i - seg), out);
		start = i + 1;
	}
	strbuf_addch(out, ')');
	strbuf_release(&params);
}

bool dw_function_symbol_name(struct dw_module *m, uint64_t vaddr, struct strbuf *out)
{
	struct sym_cache *c = cache_of(m);
	Dwarf_Die cudie;
	Dwarf_Die *cu = dw_unit_at(m, vaddr, &cudie) ? &cudie : NULL;
	struct typename_ctx ctx = { .c = c, .m = m, .qualified_name = qualified_name };
	struct cu_index *ix = cu ? cu_index_of(c, m, cu) : NULL;
	struct fn_range *r = ix ? spans_find(&ix->ranges, vaddr) : NULL;
	const char *linkage, *name;
	Dwarf_Addr entry;
	char *d;

	if (!r || !dw_die_entry_pc(&r->die, &entry) || entry != vaddr)
		return false;
	ctx.cxx = ix->cxx;
	ctx.rust = ix->rust;
	if (!ctx.cxx || ctx.rust) {
		name = die_function_name(c, m, &r->die, &ctx);
		if (name)
			strbuf_addstr(out, name);
		return name != NULL;
	}
	/* C++: the linkage name, demangled with its parameters and without a
	 * template function's return type (gdb's DMGL_RET_DROP) */
	if (!(linkage = die_string(&r->die, DW_AT_linkage_name)))
		linkage = die_string(&r->die, DW_AT_MIPS_linkage_name);
	if (!linkage || strncmp(linkage, "_Z", 2) != 0) {
		cxx_computed_name(c, m, &r->die, &ctx, out);
		return true;
	}
	if (!(d = cplus_demangle(linkage, DMGL_PARAMS | DMGL_ANSI | DMGL_RET_DROP)))
		return false;
	strbuf_addstr(out, d);
	free(d);
	return true;
}

/* One frame named by the ELF symbol table, with a line when some line
 * table covers @pc (assembly with line info but no DWARF functions). */
static void symbol_frame(struct sym_cache *c, struct dw_module *m, uint64_t pc,
			 struct dw_sym_frame *f)
{
	const struct elf_sym *s = lookup_sym(c, m, pc);
	Dwarf_Die cudie;
	bool cu = dw_unit_at(m, pc, &cudie);

	*f = (struct dw_sym_frame){ 0 };
	if (s) {
		f->function = s->name;
		f->sym_offset = pc - s->span.lo;
	}
	if (cu)
		line_at(c, m, &cudie, pc, f);
}

static struct sym_entry *compute(struct sym_cache *c, struct dw_module *m, uint64_t pc)
{
	struct dw_sym_frame frames[MAX_SCOPE_DEPTH];
	size_t n = dwarf_frames(c, m, pc, frames);
	struct sym_entry *e;

	if (n == 0) {
		symbol_frame(c, m, pc, &frames[0]);
		n = 1;
	} else if (!frames[n - 1].function) {
		const struct elf_sym *s = lookup_sym(c, m, pc);

		frames[n - 1].function = s ? s->name : NULL;
	}
	e = chunk_alloc(c, sizeof(*e) + n * sizeof(e->frames[0]));
	e->n = n;
	memcpy(e->frames, frames, n * sizeof(frames[0]));
	return e;
}

int dw_symbolize(struct dw_module *m, uint64_t pc, struct dw_sym *out)
{
	struct sym_cache *c = cache_of(m);
	struct sym_entry *e = idmap_get_ptr(&c->by_pc, pc);

	if (!e) {
		e = compute(c, m, pc);
		idmap_put_ptr(&c->by_pc, pc, e);
	}
	out->frames = e->frames;
	out->n = e->n;
	return 0;
}
