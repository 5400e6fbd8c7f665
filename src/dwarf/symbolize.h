/* symbolize.h - naming a pc: function, parameters, file:line:col and the
 * chain of inlined calls, innermost first, as gdb shows them.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils and libiberty stay
 * inside dwarf/.
 *
 * Results are cached per module and pc, so a frame seen before costs one
 * hash lookup.  Without DWARF the function name comes from .symtab, then
 * .dynsym; without either every field but the pc is unknown.
 */
#ifndef WRAITH_DWARF_SYMBOLIZE_H
#define WRAITH_DWARF_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

struct dw_module;

/* One frame of a symbolized pc.  Strings are NULL when unknown. */
struct dw_sym_frame {
	const char *function; /* demangled name, or symbol name */
	const char *params;   /* "int x, char **argv" ("" for none; NULL if unknown) */
	const char *file;     /* source path as recorded in DWARF */
	unsigned line;        /* 0 if unknown */
	unsigned col;         /* 0 if unknown */
	bool inlined;         /* an inlined call (not the physical frame) */
	uint64_t sym_offset;  /* pc - start of the function/symbol (0 if unknown) */
	/* The DIE offset of the function instance (a DW_TAG_subprogram or
	 * DW_TAG_inlined_subroutine, as dw_site.scope names one); 0 without
	 * DWARF. */
	uint64_t scope;
	bool starts_here;     /* an inlined call entered at the very pc looked up */
};

struct dw_sym {
	const struct dw_sym_frame *frames; /* innermost (most inlined) first; the
					      last is the physical function */
	size_t n;                          /* >= 1 */
};

/* Symbolize @pc of @m.  @pc is the address to look up: for a caller frame
 * pass the return address minus one.  The result is borrowed from the
 * module's cache and valid until dw_module_free().  Returns 0 (a result
 * with unknown fields is still a result). */
int dw_symbolize(struct dw_module *m, uint64_t pc, struct dw_sym *out);

/* gdb's name for the function DWARF has entered at @vaddr, as it names a
 * code address in it (`<f(int)+4>`): its symbol's name, which is the
 * linkage name where the function has one, C++'s demangled with its
 * parameters (a copy GCC made under -flto keeps its ` [clone .isra.0]`,
 * one made without it has its origin's name), and Rust's its scopes in
 * DWARF (`kv::{impl#0}::handle`).  Appends it to @out; false (nothing
 * appended) when no DWARF function is entered at @vaddr, or a C++ one
 * has no mangled linkage name. */
bool dw_function_symbol_name(struct dw_module *m, uint64_t vaddr, struct strbuf *out);

/* Demangle a C++ symbol (only names starting with "_Z"), with its
 * parameter list (`ns::f(int)`) or without it (`ns::f`, the name users
 * type and the resolver files names under).  Returns a new string (caller
 * frees) or NULL when @name is NULL or not mangled. */
char *dw_demangle(const char *name, bool params);

#endif
