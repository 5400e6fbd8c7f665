/* resolve_priv.h - the function index shared by the three files behind
 * resolve.h: resolve_index.c builds it (and loads the ELF symbol tables
 * that stand in for it), resolve.c turns names, lines and addresses into
 * sites with it, resolve_list.c lists and suggests the names it holds.
 *
 * Layer rule: private to src/dwarf; included only by resolve*.c.  Like the
 * rest of dwarf/, it may name elfutils types.
 *
 * Shared here: the per-module state in the DW_EXT_RESOLVE slot (struct
 * rs_state, its units, entries, origins, symbols and name list), the
 * string-keyed hash table all three deduplicate with, and the name helpers
 * both lookups and listings need.  Everything the state holds is owned by
 * it and freed by dw_module_free(); strings from libdw and libelf are
 * borrowed from the module.
 */
#ifndef WRAITH_DWARF_RESOLVE_PRIV_H
#define WRAITH_DWARF_RESOLVE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/module_priv.h"
#include "dwarf/resolve.h"
#include "dwarf/symbolize.h"
#include "util/htab.h"
#include "util/idmap.h"

#define RS_NONE UINT32_MAX
#define RS_KIND_SHIFT 30
#define RS_CU_MASK ((1u << RS_KIND_SHIFT) - 1)

struct rs_cu {
	Dwarf *dw;        /* the unit's own Dwarf (differs for split units) */
	Dwarf_Off die;    /* offset of the unit DIE */
	uint32_t first;   /* entries [first, end) belong to this unit */
	uint32_t end;
	int8_t optimized; /* GCC or clang unit with location lists: 0 unknown, 1, -1 */
};

/* An index entry is one of:
 * - FUNC: an out-of-line function with code, chained under its name key;
 * - INST: an inlined instance, chained under its abstract origin;
 * - ORIGIN: an abstract origin of inlined instances, chained under its
 *   name key.
 * Naming millions of inlined instances one by one would cost more than
 * reading all the DWARF, so each origin is named once. */
enum rs_kind { KIND_FUNC, KIND_INST, KIND_ORIGIN };

struct rs_entry {
	Dwarf_Off die;
	uint32_t cu;   /* index into cus | kind << RS_KIND_SHIFT */
	uint32_t next; /* next entry of the same chain, or RS_NONE */
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

/* One unit's functions for file:line lookups, which walk only the units
 * that name the file (rs_unit_funcs). */
struct rs_unit_funcs {
	bool walked;
	Dwarf_Off *funcs;   /* named out-of-line functions with code, DIE order */
	size_t n_funcs, cap_funcs;
	Dwarf_Die *origins; /* abstract origins of its inlined instances, once */
	size_t n_origins, cap_origins;
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
	struct dw_module *m;   /* the module it indexes */
	bool indexed;
	bool units_listed;
	struct rs_cu *cus;
	size_t n_cus, cap_cus;
	struct rs_unit_funcs *lazy; /* parallel to cus */
	struct rs_entry *ents; /* per unit in DIE order, then the ORIGINs */
	size_t n_ents, cap_ents;
	struct htab keys;      /* name key -> first FUNC or ORIGIN entry */
	struct rs_origins origins;
	char **owned;          /* keys we had to copy */
	size_t n_owned, cap_owned;
	bool syms_loaded;
	struct rs_sym *syms;
	size_t n_syms, cap_syms;
	bool listed;
	struct rs_name *names; /* DWARF names sorted, then ELF-only names sorted */
	size_t n_names, cap_names;
	/* Rust units: the scopes of each named subprogram ("rscopes::net::"),
	 * by the address of its DIE, noted by the index walk (strings in
	 * owned) */
	struct idmap rust_prefixes;
};

static inline enum rs_kind rs_entry_kind(const struct rs_entry *e)
{
	return (enum rs_kind)(e->cu >> RS_KIND_SHIFT);
}

static inline uint32_t rs_entry_unit(const struct rs_entry *e)
{
	return e->cu & RS_CU_MASK;
}

/* ---- names (resolve_index.c) ---- */

static inline bool rs_is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The last "::"-separated component of @s (a C++ name), outside template
 * arguments, parameter lists and lambda names.  Points into @s. */
const char *rs_last_component(const char *s);

/* Length of @s without the template argument list that ends its last
 * component ("ns::max<int>" -> "ns::max"): the key a name is filed under. */
size_t rs_untemplated_len(const char *s);

/* The name a DIE is known by: its C++ linkage name, else DW_AT_name.
 * Borrowed from libdw; NULL for an anonymous DIE. */
const char *rs_raw_name(Dwarf_Die *die);

/* The name a user knows function DIE @die by, without parameters: in
 * Rust gdb's (its DWARF scopes, "rscopes::net::{impl#1}::on_event"),
 * in C++ its demangled linkage name, else DW_AT_name.  Caller frees; NULL
 * for an anonymous DIE. */
char *rs_function_name(struct rs_state *st, Dwarf_Die *die);

/* The other name of a Rust function a user may type: its linkage name
 * demangled ("<rscopes::net::Conn as rscopes::net::Handler>::on_event",
 * "rscopes::scale::<u8>" with v0).  Caller frees; NULL when none. */
char *rs_function_alt_name(Dwarf_Die *die);

/* The user-facing name of ELF symbol @sym: demangled without parameters,
 * without a "@VERSION" suffix.  Caller frees. */
char *rs_symbol_name(const char *sym);

/* ---- the index (resolve_index.c) ---- */

/* The index state of @m, created empty on first use.  Borrowed: freed by
 * dw_module_free(). */
struct rs_state *rs_state_of(struct dw_module *m);

/* List the units of @dw in st->cus without reading their DIEs, once. */
void rs_units_ensure(struct rs_state *st, Dwarf *dw);

/* Index every unit of @dw into @st, once (later calls return at once). */
void rs_index_ensure(struct rs_state *st, Dwarf *dw);

/* The functions of listed unit @c, walked on the first call. */
const struct rs_unit_funcs *rs_unit_funcs(struct rs_state *st, uint32_t c);

/* The first inlined instance of ORIGIN entry @i, or RS_NONE; the others
 * follow through ents[].next. */
uint32_t rs_first_instance(struct rs_state *st, uint32_t i);

/* The DIE of entry @i and the DIE of its unit; false when libdw cannot
 * read them. */
bool rs_entry_die(struct rs_state *st, uint32_t i, Dwarf_Die *die, Dwarf_Die *cudie);


/* ---- line table headers (resolve_files.c) ---- */

enum rs_scan {
	RS_SCAN_NONE,  /* no file of the table ends in the base name */
	RS_SCAN_LEAST, /* *least set (UINT_MAX when no row qualifies) */
	RS_SCAN_MAYBE, /* not read with certainty: ask libdw */
};

/* Reads the line table of unit @cudie raw: the least line >= @line of its
 * statement rows (and of any row at @line itself) in files whose last
 * path component is @base, into *@least (UINT_MAX for none).  Files are told by base name alone, so the
 * rows libdw would match are among those counted: the unit has no row of
 * the file at a line >= @line below *@least. */
enum rs_scan rs_unit_scan(Dwarf_Die *cudie, const char *base, unsigned line, unsigned *least);

/* Load the defined functions of .symtab and .dynsym into st->syms, sorted
 * by address, each (address, name) once; only the first call reads. */
void rs_symbols_load(struct dw_module *m, struct rs_state *st);

#endif
