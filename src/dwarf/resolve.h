/* resolve.h - turning what a user names (function, file:line, address) into
 * probe sites in one module, and the function index behind `info functions`
 * and completion.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 * All addresses are ELF virtual addresses of the module.
 */
#ifndef WRAITH_DWARF_RESOLVE_H
#define WRAITH_DWARF_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

struct dw_site {
	uint64_t vaddr;      /* where the uprobe goes */
	char *function;      /* owned: function containing the site (demangled,
				without parameters); NULL only from
				dw_resolve_address when nothing names vaddr */
	char *file;          /* owned: source file, NULL if unknown */
	unsigned line;       /* 0 if unknown */
	unsigned col;
	bool inlined;        /* an inlined instance (or a line inside one) */
	/* The function instance the site stands in, for the names it sees
	 * (dw_at.scope): the DIE offset of the out-of-line function or the
	 * inlined call; 0 when unknown (the innermost at vaddr). */
	uint64_t scope;
	/* The location view at vaddr (dw_at.view) when known: an inlined
	 * call entered at vaddr is there from its DW_AT_GNU_entry_view on. */
	bool has_view;
	unsigned view;
};

struct dw_sites {
	struct dw_site *v;   /* owned */
	size_t n;
	size_t cap;
};

/* Frees every site and the array; @s is left empty.  Zeroed is empty. */
void dw_sites_release(struct dw_sites *s);

/* Every probe site of function @name, sorted by address, one per address.
 *
 * Sites: for each out-of-line copy (compiler clones included) the address
 * gdb 13's `break FN` gets - the first line-table row marked prologue_end
 * among those of the entry row's own source file, else the entry itself
 * in units GCC or clang optimized (their location lists hold at the
 * entry), else the function's second statement row (the first at a new
 * line or a new address; in clang's units not one of inlined code), else
 * the entry; and the
 * entry of every inlined instance (DW_AT_entry_pc, else low_pc, else the
 * first range), moved past its function's prologue if it lies inside it.
 * file/line/col come from the line table at the site.
 *
 * Names: a C function by DW_AT_name; a C++ one by its demangled linkage
 * name without parameters ("ns::Klass::method").  @name matches
 *   1. exactly: "ns::Klass::method", or "method" for a global ::method;
 *   2. only when nothing matches exactly, as a suffix at a "::" boundary:
 *      "Klass::method" or "method" find ns::Klass::method (in every class
 *      and namespace that has one).
 * A name written without template arguments matches every instantiation
 * ("ns::twice" finds ns::twice<int>; "std::vector::push_back" finds it for
 * every vector); with them, only that one.  Parameter lists are not part
 * of the name: all overloads match.
 *
 * Without DWARF, or when DWARF knows no such function, the defined
 * functions of .symtab and .dynsym are matched the same way and the site
 * is the symbol's address (no file or line).
 *
 * The first lookup indexes the module's DWARF once (every unit is read);
 * later lookups touch only the candidates.  Appends to @out.  Returns 0
 * (possibly with nothing appended) or -EINVAL for an empty name. */
int dw_resolve_function(struct dw_module *m, const char *name, struct dw_sites *out);

/* True when the module's symbol tables name a function @name (by the
 * rules of dw_resolve_function): its own, or, when it has only the exported
 * .dynsym, the full .symtab of its separate debug file.  Used to skip
 * debug info that cannot hold the function.  Cheap: no DWARF is read. */
bool dw_module_may_define(struct dw_module *m, const char *name);

/* The probe sites of @file:@line, sorted by address, one per address.
 * @file matches a source path that equals it or ends with it at a '/'
 * (so a basename matches).  One site per function instance (out-of-line
 * or inlined) with code on that line: its lowest statement address, moved
 * past the function's prologue if it lies inside it.  When the line has
 * no code, the next line that has code stands in, as gdb's break has it,
 * also when that is in the next function (the line lies between two):
 * then its site is past that function's prologue.  The sites report the
 * line used.  function is the innermost function at the
 * address (an inlined one if there is one), as gdb shows it.
 * Appends to @out.  Returns 0, -EINVAL (empty file or line 0), or
 * -WR_ENODWARF when the module has no DWARF. */
int dw_resolve_line(struct dw_module *m, const char *file, unsigned line, struct dw_sites *out);

/* Describe @vaddr as one site: the innermost function (an inlined one if
 * any, then inlined is set), file:line:col from the line table, or the
 * ELF symbol holding @vaddr without DWARF.  Appends to @out.  Returns 0 or
 * -ERANGE when @vaddr is not in an executable segment of this module. */
int dw_resolve_address(struct dw_module *m, uint64_t vaddr, struct dw_sites *out);

/* Calls @fn for each function name known to the module, each once,
 * demangled without parameters: DWARF functions (out-of-line and
 * inlined-only) sorted by name, then ELF symbols DWARF does not name,
 * sorted.  @vaddr is the entry of the function (of its first inlined
 * instance for inlined-only ones).  The list is built once per module.
 * Stops early when @fn returns non-zero and returns that value, else 0.
 * Names are borrowed for the call. */
int dw_module_foreach_function(struct dw_module *m,
			       int (*fn)(const char *name, uint64_t vaddr, void *ctx), void *ctx);

/* Calls @fn for each source file named in the line tables, each once,
 * sorted.  Same rules. */
int dw_module_foreach_source(struct dw_module *m, int (*fn)(const char *path, void *ctx), void *ctx);

/* Up to @max names of @m (those of dw_module_foreach_function) closest to
 * @name, best first, for "did you mean" hints: first names within a small
 * edit distance (whole name or its last "::" component), then names that
 * start with @name, then names that contain it.  Appends owned strings to
 * *out (grown with xrealloc; caller frees each and the array) and adds
 * their count to *n. */
void dw_suggest_functions(struct dw_module *m, const char *name, size_t max,
			  char ***out, size_t *n);

#endif
