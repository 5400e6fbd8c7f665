/* typename.h - C and C++ declarations spelled from DWARF type DIEs the way
 * gdb prints them ("const char *", "int (*fn)(int)", "std::string &"), for
 * the parameter lists of symbolized frames.
 *
 * Layer rule: private to src/dwarf; included only by typename.c,
 * symbolize.c, vars.c (which names its types the same way) and the
 * resolve files (scoped names of Rust functions).  Like the rest of dwarf/, it may name elfutils types.
 *
 * Shared here: the renderer's entry points, the context it runs in (the
 * symbolizer hands in how it names C++ scopes, so the renderer needs no
 * cache of its own), and the four DIE attribute readers both files use.
 */
#ifndef WRAITH_DWARF_TYPENAME_H
#define WRAITH_DWARF_TYPENAME_H

#include <dwarf.h>
#include <stdbool.h>

#include <elfutils/libdw.h>

#include "util/strbuf.h"

struct dw_module;
struct sym_cache;

struct typename_ctx {
	struct sym_cache *c; /* the symbolizer's, handed back to qualified_name */
	struct dw_module *m;
	/* "ns::Klass<int>" for a class, struct, union, enumeration or typedef
	 * DIE, NULL without a name; the string must outlive the rendering. */
	const char *(*qualified_name)(struct sym_cache *c, struct dw_module *m, Dwarf_Die *die);
	bool cxx;  /* C++ spelling: qualified names, no "struct" keyword */
	bool rust; /* Rust's spelling as gdb writes it: "*mut T", "[T; 3]", "name: type" */
	/* Instead of qualified_name when set: the name of a class or typedef
	 * DIE, qualified as the caller sees fit (typename_render_type). */
	const char *(*name_of)(void *ctx, Dwarf_Die *die);
	void *name_ctx;
	int level; /* function types nested in parameter lists */
};

/* gdb's spelling of GCC's integer type names ("long int" is "long"),
 * or @name itself. */
const char *typename_base(const char *name);

/* @name with GCC's integer spellings inside its template arguments in
 * gdb's ("Buf<4, short int>" is "Buf<4, short>", "long unsigned int"
 * "unsigned long"), and clang's pointers and number suffixes in gdb's
 * canonical ones ("vector<Node *>" is "vector<Node*>", "array<int, 3UL>"
 * "array<int, 3ul>"), and a template argument's leading const after what
 * it qualifies ("pair<const int, int>" is "pair<int const, int>"), as a
 * new string; NULL when nothing changes, and for a name holding a function
 * type, which gdb leaves as written ("function<void (const Node &)>"). */
char *typename_canonical(const char *name);

/* Append the parameter list of @fn to @out, without parentheses: of a
 * subprogram with @names ("int x, char **argv"; the artificial this left
 * out), or of a subroutine type without them (all types: gdb shows a
 * member function pointer's object parameter).  "" for none; "void" for a
 * prototyped C function type without parameters. */
void typename_render_params(const struct typename_ctx *ctx, Dwarf_Die *fn, bool names,
			    struct strbuf *out);

/* Append the C spelling of type DIE @type as an abstract declarator:
 * "void (*)(int)", "int (*)[4]"; of a subprogram DIE, its function type
 * "void (struct s *, long)".  With @name (NULL in C), C++'s spelling:
 * classes and typedefs named by @name(@name_ctx, DIE), no "struct":
 * "const geo::Point &", "int geo::Point::*". */
void typename_render_type(Dwarf_Die *type, const char *(*name)(void *ctx, Dwarf_Die *die), void *name_ctx,
			  struct strbuf *out);

/* Append Rust's spelling of type DIE @type (NULL: the unit type "()") as
 * gdb writes it: "*mut rscopes::Req", "[u8; 4]", "fn (u32) -> u64",
 * "&str"; named types by @name(@name_ctx, DIE), their scoped names. */
void typename_render_rust(Dwarf_Die *type, const char *(*name)(void *ctx, Dwarf_Die *die), void *name_ctx,
			  struct strbuf *out);

/* Whether @die belongs to a C++ compile unit. */
bool typename_is_cxx(Dwarf_Die *die);

/* Append @die's DW_AT_name qualified by the namespaces and types around
 * it, "ns::Klass<int>::name" (a local class stops at its function, as gdb
 * prints it; Rust's "rscopes::net::{impl#1}::on_event" likewise).  False,
 * appending nothing, when @die has no name.  Costs a walk of its unit
 * from the start (libdw has no parent links): callers cache. */
bool typename_scoped_name(Dwarf_Die *die, struct strbuf *out);

/* True when @fn has children that are parameters (formal, "...", or a
 * template parameter pack). */
bool typename_has_params(Dwarf_Die *fn);

/* Attribute readers; those that integrate follow DW_AT_abstract_origin and
 * DW_AT_specification.  Strings are borrowed from libdw. */

static inline const char *die_string(Dwarf_Die *die, unsigned attr_name)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, attr_name, &attr));
}

static inline bool die_flag(Dwarf_Die *die, unsigned attr_name)
{
	Dwarf_Attribute attr;
	bool flag = false;

	return dwarf_formflag(dwarf_attr_integrate(die, attr_name, &attr), &flag) == 0 && flag;
}

static inline bool die_ref(Dwarf_Die *die, unsigned attr_name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_formref_die(dwarf_attr(die, attr_name, &attr), out) != NULL;
}

/* The type DIE of @die; false for void (no DW_AT_type). */
static inline bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), out) != NULL;
}

#endif
