/* resolve.c - turning a function name, a file:line or an address into probe
 * sites of one module (see resolve.h).
 *
 * The first name lookup walks every compile unit once and files each
 * function instance that has code - out-of-line definitions (including
 * compiler clones) and inlined instances - under its DW_AT_name, with any
 * template argument list dropped, in a hash table.  Entries hold DIE
 * offsets, not names or addresses, so the index of a libLLVM-sized module
 * stays small; qualified names, addresses and lines are worked out only for
 * the few candidates a lookup touches.  The index lives in the module's
 * DW_EXT_RESOLVE slot.  Line lookups reuse its unit list and read the line
 * tables of the units that name the file.
 *
 * Without DWARF (or when DWARF does not know a name) the ELF symbol tables
 * stand in, loaded lazily as well.
 */
#include "dwarf/resolve.h"

#include "dwarf/module_priv.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <errno.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define KIND_SHIFT 30
#define CU_MASK ((1u << KIND_SHIFT) - 1)

enum match { MATCH_NONE, MATCH_SUFFIX, MATCH_EXACT };

/* A string-keyed open-addressing hash table; @val is the caller's. */
struct rs_slot {
	const char *key; /* NULL: empty */
	size_t len;
	uint32_t hash;
	uint32_t val;
};

struct rs_table {
	struct rs_slot *slots;
	size_t cap; /* power of two, or 0 */
	size_t n;
};

struct rs_cu {
	Dwarf *dw;        /* the unit's own Dwarf (differs for split units) */
	Dwarf_Off die;    /* offset of the unit DIE */
	uint32_t first;   /* entries [first, end) belong to this unit */
	uint32_t end;
	int8_t optimized; /* GCC unit with location lists: 0 unknown, 1, -1 */
};

/* An index entry is one of:
 * - FUNC: an out-of-line function with code, chained under its name key;
 * - INST: an inlined instance, chained under its abstract origin;
 * - ORIGIN: an abstract origin of inlined instances, chained under its
 *   name key.
 * Naming millions of inlined instances one by one would cost more than
 * reading all the DWARF, so each origin is named once. */
enum kind { KIND_FUNC, KIND_INST, KIND_ORIGIN };

struct rs_entry {
	Dwarf_Off die;
	uint32_t cu;   /* index into cus | kind << KIND_SHIFT */
	uint32_t next; /* next entry of the same chain, or NONE */
};

/* Abstract origin offset -> its name and first inlined instance. */
struct rs_origin {
	Dwarf_Off die;    /* 0: empty (no DIE lives at offset 0) */
	const char *name; /* borrowed from libdw; NULL for none */
	uint32_t head;
	uint32_t cu;
};

struct rs_origins {
	struct rs_origin *slots;
	size_t cap, n;
};

struct rs_sym {
	const char *name; /* borrowed from the ELF string table */
	uint64_t value;
};

struct rs_name {
	char *name; /* owned */
	uint64_t vaddr;
};

struct rs_state {
	bool indexed;
	struct rs_cu *cus;
	size_t n_cus, cap_cus;
	struct rs_entry *ents; /* per unit in DIE order, then the ORIGINs */
	size_t n_ents, cap_ents;
	struct rs_table keys;  /* name key -> first FUNC or ORIGIN entry */
	struct rs_origins origins;
	char **owned;          /* keys we had to copy */
	size_t n_owned, cap_owned;
	bool syms_loaded;
	struct rs_sym *syms;
	size_t n_syms, cap_syms;
	bool listed;
	struct rs_name *names; /* DWARF names sorted, then ELF-only names sorted */
	size_t n_names, cap_names;
};

/* ---- names ---- */

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The last "::"-separated component of a C++ name, ignoring "::" inside
 * template arguments, parameter lists and lambda names; an operator name
 * is always last (it may hold '<' or "()"). */
static const char *last_component(const char *s)
{
	const char *last = s;
	int depth = 0;

	for (const char *p = s; *p; p++) {
		if (depth == 0 && p == last && strncmp(p, "operator", 8) == 0 && !is_ident(p[8]))
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
static size_t untemplated_len(const char *s)
{
	size_t len = strlen(s);
	const char *comp;
	int depth = 0;

	if (len == 0 || s[len - 1] != '>')
		return len;
	comp = last_component(s);
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

static enum match match_span(const char *cand, size_t clen, const char *query, size_t qlen)
{
	if (clen == qlen && memcmp(cand, query, qlen) == 0)
		return MATCH_EXACT;
	if (clen > qlen + 2 && memcmp(cand + clen - qlen, query, qlen) == 0 &&
	    cand[clen - qlen - 1] == ':' && cand[clen - qlen - 2] == ':')
		return MATCH_SUFFIX;
	return MATCH_NONE;
}

/* @s without any template argument lists ("std::vector<int>::push_back"
 * -> "std::vector::push_back"); an operator name is kept whole.  Caller
 * frees. */
static char *without_templates(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;
	int depth = 0;

	for (const char *p = s; *p; p++) {
		bool starts = p == s || (p >= s + 2 && p[-1] == ':' && p[-2] == ':');

		if (depth == 0 && starts && strncmp(p, "operator", 8) == 0 && !is_ident(p[8])) {
			strcpy(o, p);
			return out;
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (depth == 0)
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* How @cand (a qualified name without parameters) matches what the user
 * typed: exactly, or as a "::"-suffix.  A query without template arguments
 * also matches every instantiation ("std::vector::push_back" matches
 * "std::vector<int, std::allocator<int> >::push_back"). */
static enum match match_name(const char *cand, const char *query)
{
	size_t clen = strlen(cand), qlen = strlen(query);
	enum match m = match_span(cand, clen, query, qlen);
	char *plain;

	if (m != MATCH_NONE || strchr(query, '<') || !strchr(cand, '<'))
		return m;
	plain = without_templates(cand);
	m = match_span(plain, strlen(plain), query, qlen);
	free(plain);
	return m;
}

/* Demangled name without parameters, or NULL if @mangled is not C++. */
static char *demangle_name(const char *mangled)
{
	if (strncmp(mangled, "_Z", 2) != 0)
		return NULL;
	return cplus_demangle(mangled, DMGL_ANSI);
}

/* The name a DIE is known by: its C++ linkage name, else DW_AT_name;
 * abstract origins and specifications are followed.  Equal strings name
 * the same function, so callers can deduplicate before demangling.
 * Borrowed from libdw; NULL for an anonymous DIE. */
static const char *raw_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return s && strncmp(s, "_Z", 2) == 0 ? s : dwarf_diename(die);
}

/* Name a DIE the way a user types it: the demangled linkage name without
 * parameters for C++, DW_AT_name otherwise.  Caller frees; NULL for an
 * anonymous DIE. */
static char *die_qualified_name(Dwarf_Die *die)
{
	const char *raw = raw_name(die);
	char *d;

	if (!raw)
		return NULL;
	d = demangle_name(raw);
	return d ? d : xstrdup(raw);
}

/* ---- the hash table ---- */

static uint32_t hash_span(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static struct rs_slot *table_probe(struct rs_table *t, const char *key, size_t len, uint32_t h)
{
	size_t i = h & (t->cap - 1);

	while (t->slots[i].key && (t->slots[i].hash != h || t->slots[i].len != len ||
				   memcmp(t->slots[i].key, key, len) != 0))
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static void table_grow(struct rs_table *t)
{
	struct rs_table bigger = { .cap = t->cap ? t->cap * 2 : 64 };

	bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].key)
			*table_probe(&bigger, t->slots[i].key, t->slots[i].len, t->slots[i].hash) =
				t->slots[i];
	bigger.n = t->n;
	free(t->slots);
	*t = bigger;
}

/* The slot for @key[0..len): an existing one, or with @insert a new one
 * (key NULL; the caller fills it in), else NULL. */
static struct rs_slot *table_get(struct rs_table *t, const char *key, size_t len, bool insert)
{
	uint32_t h = hash_span(key, len);
	struct rs_slot *s;

	if (!t->cap) {
		if (!insert)
			return NULL;
		table_grow(t);
	}
	s = table_probe(t, key, len, h);
	if (s->key || !insert)
		return s->key ? s : NULL;
	if ((t->n + 1) * 4 > t->cap * 3) {
		table_grow(t);
		s = table_probe(t, key, len, h);
	}
	t->n++;
	s->hash = h;
	s->len = len;
	return s;
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
	free(st->cus);
	free(st->ents);
	free(st->keys.slots);
	free(st->origins.slots);
	free(st->syms);
	free(st);
}

static struct rs_state *state_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_RESOLVE];

	if (!ext->data) {
		ext->data = xcalloc(1, sizeof(struct rs_state));
		ext->destroy = destroy_state;
	}
	return ext->data;
}

static enum kind kind_of(const struct rs_entry *e)
{
	return (enum kind)(e->cu >> KIND_SHIFT);
}

static uint32_t unit_index(const struct rs_entry *e)
{
	return e->cu & CU_MASK;
}

static uint32_t push_entry(struct rs_state *st, Dwarf_Off die, uint32_t cu, enum kind kind,
			   uint32_t next)
{
	if (st->n_ents >= NONE)
		return NONE;
	st->ents = xgrow(st->ents, &st->cap_ents, st->n_ents + 1, sizeof(*st->ents));
	st->ents[st->n_ents] = (struct rs_entry){
		.die = die, .cu = cu | (uint32_t)kind << KIND_SHIFT, .next = next,
	};
	return (uint32_t)st->n_ents++;
}

/* Files entry @i (FUNC or ORIGIN) under the key of @name. */
static void add_named(struct rs_state *st, const char *name, Dwarf_Off die, uint32_t cu,
		      enum kind kind)
{
	size_t len = untemplated_len(name);
	struct rs_slot *slot = table_get(&st->keys, name, len, true);
	uint32_t i;

	if (!slot->key) {
		if (name[len] != '\0') {
			st->owned = xgrow(st->owned, &st->cap_owned, st->n_owned + 1, sizeof(char *));
			name = st->owned[st->n_owned++] = xstrndup(name, len);
		}
		slot->key = name;
		slot->val = NONE;
	}
	i = push_entry(st, die, cu, kind, slot->val);
	if (i != NONE)
		slot->val = i;
}

static struct rs_origin *origin_slot(struct rs_origins *t, Dwarf_Off die)
{
	size_t i = (size_t)(die * 0x9e3779b97f4a7c15ull >> 20) & (t->cap - 1);

	while (t->slots[i].die && t->slots[i].die != die)
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

/* The slot of origin @die, a new one (head NONE) if need be. */
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
		*o = (struct rs_origin){ .die = die, .head = NONE, .cu = cu };
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
	if (o->head == NONE)
		o->name = dwarf_diename(&origin);
	i = push_entry(st, dwarf_dieoffset(die), cu, KIND_INST, o->head);
	if (i != NONE)
		o->head = i;
}

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* Visits the DIEs that can hold functions with code: types are skipped
 * (member functions are defined outside their class), and so are
 * subprograms without code (declarations, abstract instances). */
static void walk(struct rs_state *st, Dwarf_Die *parent, uint32_t cu)
{
	Dwarf_Die die;
	const char *name;

	if (dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);

		if (tag == DW_TAG_inlined_subroutine) {
			/* Concrete by construction: we only enter code. */
			add_instance(st, &die, cu);
			walk(st, &die, cu);
		} else if (tag == DW_TAG_subprogram) {
			if (!has_code(&die))
				continue;
			if ((name = dwarf_diename(&die)))
				add_named(st, name, dwarf_dieoffset(&die), cu, KIND_FUNC);
			walk(st, &die, cu);
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_namespace) {
			walk(st, &die, cu);
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

static void index_unit(struct rs_state *st, Dwarf_Die *unit)
{
	struct rs_cu *cu;

	if (st->n_cus > CU_MASK)
		return;
	st->cus = xgrow(st->cus, &st->cap_cus, st->n_cus + 1, sizeof(*st->cus));
	cu = &st->cus[st->n_cus];
	*cu = (struct rs_cu){
		.dw = dwarf_cu_getdwarf(unit->cu),
		.die = dwarf_dieoffset(unit),
		.first = (uint32_t)st->n_ents,
	};
	walk(st, unit, (uint32_t)st->n_cus);
	st->cus[st->n_cus++].end = (uint32_t)st->n_ents;
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

static void ensure_index(struct rs_state *st, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t type;

	if (st->indexed)
		return;
	st->indexed = true;
	while (dwarf_get_units(dw, cu, &cu, &version, &type, &cudie, &subdie) == 0) {
		if (type == DW_UT_skeleton && subdie.addr)
			index_unit(st, &subdie);
		else if (type == DW_UT_compile || type == DW_UT_partial || type == DW_UT_skeleton)
			index_unit(st, &cudie);
	}
	name_origins(st);
}

/* The first inlined instance of ORIGIN entry @i, or NONE. */
static uint32_t first_instance(struct rs_state *st, uint32_t i)
{
	struct rs_origin *o;

	if (!st->origins.cap)
		return NONE;
	o = origin_slot(&st->origins, st->ents[i].die);
	return o->die ? o->head : NONE;
}

static bool entry_die(struct rs_state *st, uint32_t i, Dwarf_Die *die, Dwarf_Die *cudie)
{
	const struct rs_cu *cu = &st->cus[unit_index(&st->ents[i])];

	return dwarf_offdie(cu->dw, st->ents[i].die, die) && dwarf_offdie(cu->dw, cu->die, cudie);
}

/* ---- addresses and lines ---- */

/* Where execution enters @die: DW_AT_entry_pc (an address, or in DWARF 5
 * an offset from the start), else DW_AT_low_pc, else the first range. */
static bool entry_pc(Dwarf_Die *die, Dwarf_Addr *pc)
{
	Dwarf_Attribute attr;
	Dwarf_Addr base, start, end;
	Dwarf_Word off;

	if (dwarf_attr(die, DW_AT_entry_pc, &attr)) {
		if (dwarf_formaddr(&attr, pc) == 0)
			return true;
		if (dwarf_formudata(&attr, &off) == 0) {
			if (dwarf_lowpc(die, &start) != 0 && dwarf_ranges(die, 0, &base, &start, &end) <= 0)
				return false;
			*pc = start + off;
			return true;
		}
	}
	if (dwarf_lowpc(die, pc) == 0)
		return true;
	if (dwarf_ranges(die, 0, &base, &start, &end) <= 0)
		return false;
	*pc = start;
	return true;
}

/* End of the address range of @die that holds @pc. */
static Dwarf_Addr range_end(Dwarf_Die *die, Dwarf_Addr pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t it = 0;

	while ((it = dwarf_ranges(die, it, &base, &start, &end)) > 0)
		if (pc >= start && pc < end)
			return end;
	return pc + 1;
}

struct rs_lines {
	Dwarf_Lines *lines;
	size_t n;
};

static bool cu_lines(Dwarf_Die *cudie, struct rs_lines *l)
{
	if (dwarf_getsrclines(cudie, &l->lines, &l->n) != 0)
		l->n = 0;
	return l->n > 0;
}

static Dwarf_Addr row_addr(const struct rs_lines *l, size_t i)
{
	Dwarf_Addr a = 0;

	dwarf_lineaddr(dwarf_onesrcline(l->lines, i), &a);
	return a;
}

static bool row_flag(const struct rs_lines *l, size_t i, int (*get)(Dwarf_Line *, bool *))
{
	bool f = false;

	get(dwarf_onesrcline(l->lines, i), &f);
	return f;
}

static int row_line(const struct rs_lines *l, size_t i)
{
	int line = 0;

	dwarf_lineno(dwarf_onesrcline(l->lines, i), &line);
	return line;
}

/* Index of the first row at or after @addr (rows are sorted by address). */
static size_t rows_from(const struct rs_lines *l, Dwarf_Addr addr)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_addr(l, mid) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool live_stmt(const struct rs_lines *l, size_t i)
{
	return row_flag(l, i, dwarf_linebeginstatement) && !row_flag(l, i, dwarf_lineendsequence);
}

/* The breakpoint address of a function entered at @lo whose code runs to
 * @hi: the first row marked prologue_end, else the function's second
 * statement row - the first that starts a new line or a new address (gdb
 * lands there too: GCC's -O0 prologue is the opening line's row, and at -O2
 * GCC puts the first statement's row on the entry address) - else @lo. */
static Dwarf_Addr skip_prologue(const struct rs_lines *l, Dwarf_Addr lo, Dwarf_Addr hi)
{
	size_t first = rows_from(l, lo);
	Dwarf_Addr entry_addr = 0;
	int entry_line = 0;

	for (size_t i = first; i < l->n && row_addr(l, i) < hi; i++)
		if (row_flag(l, i, dwarf_lineprologueend) && !row_flag(l, i, dwarf_lineendsequence))
			return row_addr(l, i);
	for (size_t i = first; i < l->n && row_addr(l, i) < hi; i++) {
		int line = row_line(l, i);

		if (!live_stmt(l, i) || line == 0)
			continue;
		if (!entry_line) {
			entry_line = line;
			entry_addr = row_addr(l, i);
		} else if (line != entry_line || row_addr(l, i) != entry_addr) {
			return row_addr(l, i);
		}
	}
	return lo;
}

/* The row describing @addr: among the rows at the highest address not
 * above it, the last statement (as gdb reports), else the last row. */
static Dwarf_Line *row_at(const struct rs_lines *l, Dwarf_Addr addr)
{
	size_t end = rows_from(l, addr + 1), i;
	Dwarf_Addr at;

	if (end == 0)
		return NULL;
	at = row_addr(l, end - 1);
	for (i = end; i-- > 0 && row_addr(l, i) == at;)
		if (live_stmt(l, i))
			return dwarf_onesrcline(l->lines, i);
	if (row_flag(l, end - 1, dwarf_lineendsequence))
		return NULL;
	return dwarf_onesrcline(l->lines, end - 1);
}

static void set_position(struct dw_site *s, Dwarf_Line *row)
{
	const char *file;
	int line = 0, col = 0;

	if (!row)
		return;
	file = dwarf_linesrc(row, NULL, NULL);
	dwarf_lineno(row, &line);
	dwarf_linecol(row, &col);
	free(s->file);
	s->file = file ? xstrdup(file) : NULL;
	s->line = line > 0 ? (unsigned)line : 0;
	s->col = col > 0 ? (unsigned)col : 0;
}

/* ---- sites ---- */

static struct dw_site *push_site(struct dw_sites *s, uint64_t vaddr, char *function, bool inlined)
{
	struct dw_site *site;

	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	site = &s->v[s->n++];
	*site = (struct dw_site){ .vaddr = vaddr, .function = function, .inlined = inlined };
	return site;
}

static void release_site(struct dw_site *s)
{
	free(s->function);
	free(s->file);
}

void dw_sites_release(struct dw_sites *s)
{
	for (size_t i = 0; i < s->n; i++)
		release_site(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_site(const void *a, const void *b)
{
	const struct dw_site *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return (int)x->inlined - (int)y->inlined;
}

/* Sorts @found by address, keeps the first (out-of-line before inlined)
 * site of each address, and moves them to the end of @out. */
static void append_sorted(struct dw_sites *found, struct dw_sites *out)
{
	if (found->n)
		qsort(found->v, found->n, sizeof(*found->v), cmp_site);
	for (size_t i = 0; i < found->n; i++) {
		if (i > 0 && found->v[i].vaddr == found->v[i - 1].vaddr) {
			release_site(&found->v[i]);
			continue;
		}
		out->v = xgrow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = found->v[i];
	}
	free(found->v);
	memset(found, 0, sizeof(*found));
}

static bool has_loclist(Dwarf_Die *parent)
{
	Dwarf_Die die;
	Dwarf_Attribute attr;

	if (dwarf_child(parent, &die) != 0)
		return false;
	do {
		int tag = dwarf_tag(&die);

		if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) &&
		    dwarf_attr(&die, DW_AT_location, &attr) &&
		    (dwarf_whatform(&attr) == DW_FORM_sec_offset ||
		     dwarf_whatform(&attr) == DW_FORM_loclistx))
			return true;
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine || tag == DW_TAG_namespace) &&
		    has_loclist(&die))
			return true;
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

/* gdb trusts variable locations at a function's very entry in units that
 * GCC optimized - it proves them by their location lists - and breaks at
 * the entry there instead of skipping a prologue.  We do the same. */
static bool unit_optimized(struct rs_cu *cu, Dwarf_Die *cudie)
{
	const char *producer;
	Dwarf_Attribute attr;

	if (!cu->optimized) {
		producer = dwarf_formstring(dwarf_attr(cudie, DW_AT_producer, &attr));
		cu->optimized = producer && strncmp(producer, "GNU ", 4) == 0 &&
					!strstr(producer, "clang") && has_loclist(cudie)
				? 1
				: -1;
	}
	return cu->optimized > 0;
}

/* Where a breakpoint on the function entered at @entry goes. */
static Dwarf_Addr breakpoint_pc(struct rs_cu *cu, Dwarf_Die *die, Dwarf_Die *cudie,
				Dwarf_Addr entry)
{
	struct rs_lines l;

	if (!cu_lines(cudie, &l) || unit_optimized(cu, cudie))
		return entry;
	return skip_prologue(&l, entry, range_end(die, entry));
}

/* The out-of-line function of unit @c that holds @pc, searched from the
 * index entry of DIE @near backwards: a unit's entries are in DIE order,
 * and a function's inlined instances follow it. */
static bool physical_function(struct rs_state *st, uint32_t c, Dwarf_Off near, Dwarf_Addr pc,
			      Dwarf_Die *out)
{
	const struct rs_cu *cu = &st->cus[c];
	uint32_t lo = cu->first, hi = cu->end;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->ents[mid].die <= near)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i-- > cu->first;)
		if (kind_of(&st->ents[i]) == KIND_FUNC && dwarf_offdie(cu->dw, st->ents[i].die, out) &&
		    dwarf_haspc(out, pc) == 1)
			return true;
	return false;
}

/* No breakpoint goes inside a prologue (gdb moves them out, too): @pc,
 * found inside DIE @near, or the end of its function's prologue if that
 * comes later. */
static Dwarf_Addr past_prologue(struct rs_state *st, uint32_t c, Dwarf_Off near, Dwarf_Addr pc)
{
	struct rs_cu *cu = &st->cus[c];
	Dwarf_Die fn, cudie;
	Dwarf_Addr entry, after;

	if (!physical_function(st, c, near, pc, &fn) || !entry_pc(&fn, &entry) ||
	    !dwarf_offdie(cu->dw, cu->die, &cudie))
		return pc;
	after = breakpoint_pc(cu, &fn, &cudie, entry);
	return pc >= entry && pc < after ? after : pc;
}

/* The site of one function instance (index entry @i): past the prologue
 * of an out-of-line copy, at the entry of an inlined one. */
static void function_site(struct dw_module *m, struct rs_state *st, uint32_t i, char *name,
			  struct dw_sites *out)
{
	uint32_t c = unit_index(&st->ents[i]);
	bool inlined = kind_of(&st->ents[i]) == KIND_INST;
	struct rs_lines l = { 0 };
	Dwarf_Die die, cudie;
	Dwarf_Addr pc;

	if (!entry_die(st, i, &die, &cudie) || !entry_pc(&die, &pc))
		goto out_free;
	if (inlined)
		pc = past_prologue(st, c, st->ents[i].die, pc);
	else
		pc = breakpoint_pc(&st->cus[c], &die, &cudie, pc);
	if (!dw_module_vaddr_is_code(m, pc))
		goto out_free;
	set_position(push_site(out, pc, name, inlined), cu_lines(&cudie, &l) ? row_at(&l, pc) : NULL);
	return;

out_free:
	free(name);
}

/* The sites of FUNC or ORIGIN entry @i. */
static void entry_sites(struct dw_module *m, struct rs_state *st, uint32_t i, char *name,
			struct dw_sites *out)
{
	if (kind_of(&st->ents[i]) == KIND_FUNC) {
		function_site(m, st, i, name, out);
		return;
	}
	for (uint32_t j = first_instance(st, i); j != NONE; j = st->ents[j].next)
		function_site(m, st, j, xstrdup(name), out);
	free(name);
}

struct candidate {
	uint32_t entry;
	enum match level;
	char *name;
};

/* The sites of the best-matching DWARF functions under @query's key. */
static void dwarf_function_sites(struct dw_module *m, struct rs_state *st, const char *query,
				 struct dw_sites *out)
{
	const char *comp = last_component(query);
	struct rs_slot *slot = table_get(&st->keys, comp, untemplated_len(comp), false);
	struct candidate *v = NULL;
	size_t n = 0, cap = 0;
	enum match best = MATCH_NONE;

	for (uint32_t i = slot ? slot->val : NONE; i != NONE; i = st->ents[i].next) {
		Dwarf_Die die, cudie;
		enum match mt;
		char *name;

		if (!entry_die(st, i, &die, &cudie) || !(name = die_qualified_name(&die)))
			continue;
		mt = match_name(name, query);
		if (mt == MATCH_NONE || mt < best) {
			free(name);
			continue;
		}
		best = mt;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct candidate){ .entry = i, .level = mt, .name = name };
	}
	for (size_t k = 0; k < n; k++) {
		if (v[k].level == best)
			entry_sites(m, st, v[k].entry, v[k].name, out);
		else
			free(v[k].name);
	}
	free(v);
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
static void load_symbols(struct dw_module *m, struct rs_state *st)
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
static char *symbol_name(const char *sym)
{
	char *d = demangle_name(sym);

	return d ? d : xstrndup(sym, strcspn(sym, "@"));
}

static void symbol_sites(struct dw_module *m, struct rs_state *st, const char *query,
			 struct dw_sites *out)
{
	const char *comp = last_component(query);
	char *key = xstrndup(comp, untemplated_len(comp));
	/* Mangled names spell identifiers out, so a symbol that lacks the key
	 * cannot match; operators and destructors are spelled differently. */
	bool filter = is_ident(key[0]) && strncmp(key, "operator", 8) != 0;
	enum match best = MATCH_NONE;

	load_symbols(m, st);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < st->n_syms; i++) {
			char *name;
			enum match mt;

			if (filter && !strstr(st->syms[i].name, key))
				continue;
			name = symbol_name(st->syms[i].name);
			mt = match_name(name, query);
			if (pass == 0 && mt > best)
				best = mt;
			if (pass == 1 && mt == best && best != MATCH_NONE &&
			    dw_module_vaddr_is_code(m, st->syms[i].value))
				push_site(out, st->syms[i].value, name, false);
			else
				free(name);
		}
	}
	free(key);
}

int dw_resolve_function(struct dw_module *m, const char *name, struct dw_sites *out)
{
	struct rs_state *st = state_of(m);
	struct dw_sites found = { 0 };
	Dwarf *dw = dw_module_dwarf(m);

	if (!name || !*name)
		return -EINVAL;
	if (dw) {
		ensure_index(st, dw);
		dwarf_function_sites(m, st, name, &found);
	}
	if (found.n == 0)
		symbol_sites(m, st, name, &found);
	append_sorted(&found, out);
	return 0;
}

/* ---- file:line ---- */

/* @path names @query: the same path, or ends with it at a '/' boundary
 * (which covers a bare basename). */
static bool file_matches(const char *path, const char *query)
{
	size_t pl = strlen(path), ql = strlen(query);

	if (pl == ql)
		return strcmp(path, query) == 0;
	return pl > ql && path[pl - ql - 1] == '/' && strcmp(path + pl - ql, query) == 0;
}

/* Rows of one unit name the same few file strings over and over. */
struct file_cache {
	const char *query;
	const char *last;
	bool match;
};

static bool row_in_file(Dwarf_Line *row, struct file_cache *c)
{
	const char *f = dwarf_linesrc(row, NULL, NULL);

	if (f != c->last) {
		c->last = f;
		c->match = f && file_matches(f, c->query);
	}
	return c->match;
}

static bool unit_names_file(Dwarf_Die *cudie, const char *query)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cudie, &files, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);

		if (f && file_matches(f, query))
			return true;
	}
	return false;
}

struct line_hit {
	Dwarf_Addr addr;
	uint32_t cu;
	Dwarf_Off fn; /* innermost function instance, or 0 */
	Dwarf_Line *row;
};

struct line_query {
	const char *file;
	unsigned line;   /* as asked */
	unsigned used;   /* the first line >= line that has code */
	bool *units;     /* units whose file tables name the file */
	struct line_hit *hits;
	size_t n_hits, cap_hits;
};

static bool unit_of(struct rs_state *st, uint32_t c, Dwarf_Die *cudie, struct rs_lines *l)
{
	return dwarf_offdie(st->cus[c].dw, st->cus[c].die, cudie) && cu_lines(cudie, l);
}

/* Marks the units that name the file and finds q->used. */
static void find_used_line(struct rs_state *st, struct line_query *q)
{
	q->used = UINT_MAX;
	for (uint32_t c = 0; c < st->n_cus; c++) {
		struct file_cache fc = { .query = q->file };
		struct rs_lines l;
		Dwarf_Die cudie;

		if (!unit_of(st, c, &cudie, &l) || !unit_names_file(&cudie, q->file))
			continue;
		q->units[c] = true;
		for (size_t i = 0; i < l.n; i++) {
			int line = row_line(&l, i);

			if (line >= (int)q->line && (unsigned)line < q->used && live_stmt(&l, i) &&
			    row_in_file(dwarf_onesrcline(l.lines, i), &fc))
				q->used = (unsigned)line;
		}
	}
}

/* True when a function of the file is declared after the line asked for
 * and not after the line found: the line lies between functions, and the
 * code found belongs to the next one. */
static bool declared_in(struct rs_state *st, uint32_t i, const struct line_query *q)
{
	Dwarf_Die die, cudie;
	const char *file;
	int line;

	if (!q->units[unit_index(&st->ents[i])] || kind_of(&st->ents[i]) == KIND_INST ||
	    !entry_die(st, i, &die, &cudie) || dwarf_decl_line(&die, &line) != 0)
		return false;
	if (line <= (int)q->line || line > (int)q->used)
		return false;
	file = dwarf_decl_file(&die);
	return file && file_matches(file, q->file);
}

static bool declared_between(struct rs_state *st, const struct line_query *q)
{
	uint32_t origins = st->n_cus ? st->cus[st->n_cus - 1].end : 0;

	for (uint32_t c = 0; c < st->n_cus; c++)
		for (uint32_t i = st->cus[c].first; q->units[c] && i < st->cus[c].end; i++)
			if (declared_in(st, i, q))
				return true;
	for (uint32_t i = origins; i < st->n_ents; i++)
		if (declared_in(st, i, q))
			return true;
	return false;
}

static Dwarf_Off innermost_function(Dwarf_Die *cudie, Dwarf_Addr pc)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Off off = 0;
	int n = dwarf_getscopes(cudie, pc, &scopes);

	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			off = dwarf_dieoffset(&scopes[i]);
			break;
		}
	}
	free(scopes);
	return off;
}

static void collect_hits(struct rs_state *st, struct line_query *q)
{
	for (uint32_t c = 0; c < st->n_cus; c++) {
		struct file_cache fc = { .query = q->file };
		struct rs_lines l;
		Dwarf_Die cudie;

		if (!q->units[c] || !unit_of(st, c, &cudie, &l))
			continue;
		for (size_t i = 0; i < l.n; i++) {
			Dwarf_Line *row = dwarf_onesrcline(l.lines, i);
			Dwarf_Addr addr = row_addr(&l, i);

			if (row_line(&l, i) != (int)q->used || !live_stmt(&l, i) || !row_in_file(row, &fc))
				continue;
			q->hits = xgrow(q->hits, &q->cap_hits, q->n_hits + 1, sizeof(*q->hits));
			q->hits[q->n_hits++] = (struct line_hit){
				.addr = addr, .cu = c, .fn = innermost_function(&cudie, addr), .row = row,
			};
		}
	}
}

static int cmp_hit(const void *a, const void *b)
{
	const struct line_hit *x = a, *y = b;

	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A symbol's name for code that DWARF does not place in a function. */
static char *symbol_at(struct dw_module *m, uint64_t vaddr)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, vaddr, &off, &sym, NULL, NULL, NULL);

	return name ? symbol_name(name) : NULL;
}

/* The site of the lowest address of the line in one function instance,
 * moved out of the function's prologue if it lies there (the line of a
 * function's opening brace does). */
static void line_site(struct dw_module *m, struct rs_state *st, const struct line_hit *h,
		      struct dw_sites *out)
{
	Dwarf_Addr pc = past_prologue(st, h->cu, h->fn, h->addr);
	Dwarf_Line *row = h->row;
	Dwarf_Die fn, cudie;
	struct rs_lines l;
	bool inlined = false;
	char *name = NULL;

	if (h->fn && dwarf_offdie(st->cus[h->cu].dw, h->fn, &fn)) {
		inlined = dwarf_tag(&fn) == DW_TAG_inlined_subroutine;
		name = die_qualified_name(&fn);
	}
	if (!name)
		name = symbol_at(m, pc);
	if (pc != h->addr && unit_of(st, h->cu, &cudie, &l))
		row = row_at(&l, pc);
	if (dw_module_vaddr_is_code(m, pc))
		set_position(push_site(out, pc, name, inlined), row);
	else
		free(name);
}

int dw_resolve_line(struct dw_module *m, const char *file, unsigned line, struct dw_sites *out)
{
	struct rs_state *st = state_of(m);
	struct line_query q = { .file = file, .line = line };
	struct dw_sites found = { 0 };
	Dwarf *dw = dw_module_dwarf(m);

	if (!file || !*file || line == 0)
		return -EINVAL;
	if (!dw)
		return -WR_ENODWARF;
	while (strncmp(q.file, "./", 2) == 0)
		q.file += 2;
	ensure_index(st, dw);
	q.units = xcalloc(st->n_cus ? st->n_cus : 1, sizeof(bool));
	find_used_line(st, &q);
	if (q.used == UINT_MAX || (q.used != line && declared_between(st, &q)))
		goto out_free;
	collect_hits(st, &q);
	if (q.n_hits)
		qsort(q.hits, q.n_hits, sizeof(*q.hits), cmp_hit);
	for (size_t i = 0; i < q.n_hits; i++)
		if (i == 0 || q.hits[i].cu != q.hits[i - 1].cu || q.hits[i].fn != q.hits[i - 1].fn ||
		    !q.hits[i].fn)
			line_site(m, st, &q.hits[i], &found);
	append_sorted(&found, out);

out_free:
	free(q.hits);
	free(q.units);
	return 0;
}

/* ---- addresses ---- */

/* The unit holding @pc: from .debug_aranges through libdwfl, else by
 * asking each unit, since .debug_aranges may be missing or miss units
 * (clang does not emit it by default). */
static bool unit_at(struct dw_module *m, Dwarf_Addr pc, Dwarf_Die *cudie)
{
	struct rs_state *st = state_of(m);
	Dwarf_Addr bias;
	Dwarf_Die *die;

	if (!dw_module_dwarf(m))
		return false;
	die = dwfl_module_addrdie(m->mod, pc, &bias);
	if (die) {
		*cudie = *die;
		return true;
	}
	ensure_index(st, dw_module_dwarf(m));
	for (uint32_t c = 0; c < st->n_cus; c++)
		if (dwarf_offdie(st->cus[c].dw, st->cus[c].die, cudie) && dwarf_haspc(cudie, pc) == 1)
			return true;
	return false;
}

int dw_resolve_address(struct dw_module *m, uint64_t vaddr, struct dw_sites *out)
{
	struct dw_site *site;
	Dwarf_Die cudie, fn;
	struct rs_lines l;
	Dwarf_Off off;
	bool unit;

	if (!dw_module_vaddr_is_code(m, vaddr))
		return -ERANGE;
	site = push_site(out, vaddr, NULL, false);
	unit = unit_at(m, vaddr, &cudie);
	if (unit && (off = innermost_function(&cudie, vaddr)) &&
	    dwarf_offdie(dwarf_cu_getdwarf(cudie.cu), off, &fn)) {
		site->function = die_qualified_name(&fn);
		site->inlined = dwarf_tag(&fn) == DW_TAG_inlined_subroutine;
	}
	if (unit && cu_lines(&cudie, &l))
		set_position(site, row_at(&l, vaddr));
	if (!site->function)
		site->function = symbol_at(m, vaddr);
	return 0;
}

/* ---- listing and suggestions ---- */

static void add_name(struct rs_state *st, struct rs_table *seen, char *name, uint64_t vaddr)
{
	struct rs_slot *s = table_get(seen, name, strlen(name), true);

	if (s->key) {
		free(name);
		return;
	}
	s->key = name;
	st->names = xgrow(st->names, &st->cap_names, st->n_names + 1, sizeof(*st->names));
	st->names[st->n_names++] = (struct rs_name){ .name = name, .vaddr = vaddr };
}

/* Entry address of FUNC entry @i, or of the first instance of ORIGIN @i. */
static void entry_address(struct rs_state *st, uint32_t i, Dwarf_Addr *pc)
{
	Dwarf_Die die, cudie;

	if (kind_of(&st->ents[i]) == KIND_ORIGIN)
		i = first_instance(st, i);
	if (i != NONE && entry_die(st, i, &die, &cudie))
		entry_pc(&die, pc);
}

static void list_dwarf_names(struct rs_state *st, struct rs_table *seen)
{
	struct rs_table raw = { 0 };

	/* Out-of-line copies first, so a name's address is a real entry. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < st->n_ents; i++) {
			Dwarf_Die die, cudie;
			const char *r;
			struct rs_slot *s;
			Dwarf_Addr pc = 0;
			char *name;

			if (kind_of(&st->ents[i]) != (pass == 0 ? KIND_FUNC : KIND_ORIGIN) ||
			    !entry_die(st, i, &die, &cudie) || !(r = raw_name(&die)))
				continue;
			s = table_get(&raw, r, strlen(r), true);
			if (s->key)
				continue;
			s->key = r;
			name = demangle_name(r);
			entry_address(st, i, &pc);
			add_name(st, seen, name ? name : xstrdup(r), pc);
		}
	}
	free(raw.slots);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct rs_name *)a)->name, ((const struct rs_name *)b)->name);
}

static void build_names(struct dw_module *m, struct rs_state *st)
{
	struct rs_table seen = { 0 };
	Dwarf *dw = dw_module_dwarf(m);
	size_t n_dwarf;

	if (st->listed)
		return;
	st->listed = true;
	if (dw) {
		ensure_index(st, dw);
		list_dwarf_names(st, &seen);
	}
	n_dwarf = st->n_names;
	load_symbols(m, st);
	for (size_t i = 0; i < st->n_syms; i++)
		add_name(st, &seen, symbol_name(st->syms[i].name), st->syms[i].value);
	if (n_dwarf)
		qsort(st->names, n_dwarf, sizeof(*st->names), cmp_name);
	if (st->n_names > n_dwarf)
		qsort(st->names + n_dwarf, st->n_names - n_dwarf, sizeof(*st->names), cmp_name);
	free(seen.slots);
}

int dw_module_foreach_function(struct dw_module *m,
			       int (*fn)(const char *name, uint64_t vaddr, void *ctx), void *ctx)
{
	struct rs_state *st = state_of(m);
	int r = 0;

	build_names(m, st);
	for (size_t i = 0; i < st->n_names && r == 0; i++)
		r = fn(st->names[i].name, st->names[i].vaddr, ctx);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void list_unit_files(Dwarf_Die *cudie, struct rs_table *seen, const char ***v, size_t *n,
			    size_t *cap)
{
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_getsrcfiles(cudie, &files, &nf) != 0)
		return;
	for (size_t i = 0; i < nf; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);
		struct rs_slot *s;

		/* "<built-in>" and the like are not files. */
		if (!f || !*f || f[0] == '<')
			continue;
		s = table_get(seen, f, strlen(f), true);
		if (s->key)
			continue;
		s->key = f;
		*v = xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = f;
	}
}

int dw_module_foreach_source(struct dw_module *m, int (*fn)(const char *path, void *ctx), void *ctx)
{
	struct rs_table seen = { 0 };
	const char **v = NULL;
	size_t n = 0, cap = 0;
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t type;
	int r = 0;

	while (dw && dwarf_get_units(dw, cu, &cu, &version, &type, &cudie, &subdie) == 0)
		if (type == DW_UT_compile || type == DW_UT_skeleton || type == DW_UT_partial)
			list_unit_files(type == DW_UT_skeleton && subdie.addr ? &subdie : &cudie, &seen,
					&v, &n, &cap);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n && r == 0; i++)
		r = fn(v[i], ctx);
	free(v);
	free(seen.slots);
	return r;
}

#define MAX_EDIT_LEN 255

/* Levenshtein distance, or @limit + 1 once it must exceed @limit. */
static unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb, unsigned limit)
{
	unsigned row[MAX_EDIT_LEN + 1];

	if (la > MAX_EDIT_LEN || lb > MAX_EDIT_LEN || (la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0], lowest;

		row[0] = (unsigned)i;
		lowest = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
			if (best < lowest)
				lowest = best;
		}
		if (lowest > limit)
			return limit + 1;
	}
	return row[lb] <= limit ? row[lb] : limit + 1;
}

struct suggestion {
	const char *name;
	unsigned tier;  /* 0 close spelling, 1 prefix, 2 substring */
	size_t score;
};

static int cmp_suggestion(const void *a, const void *b)
{
	const struct suggestion *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Ranks @name against @query; false when it is no suggestion at all.  The
 * last component counts too, so "method" finds "ns::Klass::methd". */
static bool rate(const char *name, const char *query, size_t ql, struct suggestion *s)
{
	const char *comp = last_component(name);
	unsigned limit = ql <= 4 ? 1 : ql <= 8 ? 2 : 3;
	unsigned d = edit_distance(query, ql, name, strlen(name), limit);
	unsigned dc = edit_distance(query, ql, comp, strlen(comp), limit);

	s->name = name;
	if (dc < d)
		d = dc;
	if (d <= limit) {
		s->tier = 0;
		s->score = d;
	} else if (strncmp(name, query, ql) == 0 || strncmp(comp, query, ql) == 0) {
		s->tier = 1;
		s->score = strlen(comp);
	} else if (ql >= 3 && strstr(name, query)) {
		s->tier = 2;
		s->score = strlen(name);
	} else {
		return false;
	}
	return true;
}

void dw_suggest_functions(struct dw_module *m, const char *name, size_t max, char ***out,
			  size_t *n)
{
	struct rs_state *st = state_of(m);
	struct suggestion *v = NULL;
	size_t nv = 0, cap = 0, ql = strlen(name), take;

	build_names(m, st);
	for (size_t i = 0; i < st->n_names; i++) {
		struct suggestion s;

		if (!rate(st->names[i].name, name, ql, &s))
			continue;
		v = xgrow(v, &cap, nv + 1, sizeof(*v));
		v[nv++] = s;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_suggestion);
	take = nv < max ? nv : max;
	if (take) {
		*out = xrealloc(*out, (*n + take) * sizeof(**out));
		for (size_t i = 0; i < take; i++)
			(*out)[(*n)++] = xstrdup(v[i].name);
	}
	free(v);
}
