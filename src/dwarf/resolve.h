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
	char *function;      /* owned: function containing the site (demangled) */
	char *file;          /* owned: source file, NULL if unknown */
	unsigned line;       /* 0 if unknown */
	unsigned col;
	bool inlined;        /* an inlined instance (or a line inside one) */
};

struct dw_sites {
	struct dw_site *v;   /* owned */
	size_t n;
	size_t cap;
};

void dw_sites_release(struct dw_sites *s);

/* Every probe site of function @name: the address after the prologue of
 * each out-of-line copy (prologue_end, else the second line-table row, as
 * gdb does) and the entry of every inlined instance.  @name may be a plain
 * or a C++ qualified name ("ns::Class::method"); C++ names match on the
 * demangled name without parameters.  Falls back to the ELF symbol table
 * when there is no DWARF (the site is then the symbol's address).
 * Appends to @out.  Returns 0 (possibly with nothing appended) or -errno. */
int dw_resolve_function(struct dw_module *m, const char *name, struct dw_sites *out);

/* Statement addresses of @file:@line (file matched by full path, path
 * suffix or basename), one per function instance that has that line.
 * Appends to @out.  Returns 0 or -errno. */
int dw_resolve_line(struct dw_module *m, const char *file, unsigned line, struct dw_sites *out);

/* Describe @vaddr (function, file:line) as a site.  Returns 0 or -ERANGE
 * when @vaddr is not code in this module. */
int dw_resolve_address(struct dw_module *m, uint64_t vaddr, struct dw_sites *out);

/* Calls @fn for each function name known to the module (DWARF subprograms,
 * then ELF symbols), each once, demangled.  Stops early when @fn returns
 * non-zero and returns that value.  Names are borrowed for the call. */
int dw_module_foreach_function(struct dw_module *m,
			       int (*fn)(const char *name, uint64_t vaddr, void *ctx), void *ctx);

/* Calls @fn for each source file named in the line tables.  Same rules. */
int dw_module_foreach_source(struct dw_module *m, int (*fn)(const char *path, void *ctx), void *ctx);

/* Up to @max names of @m closest to @name (edit distance, then prefix and
 * substring matches), best first, for "did you mean" hints.  Appends owned
 * strings to *out (an array grown with xgrow), count in *n. */
void dw_suggest_functions(struct dw_module *m, const char *name, size_t max,
			  char ***out, size_t *n);

#endif
