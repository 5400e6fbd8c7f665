/* symtab.h - the ELF symbol an address of a module lies in, for values
 * that point into an object or a function (gdb's `<g+20>`).
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 */
#ifndef WRAITH_DWARF_SYMTAB_H
#define WRAITH_DWARF_SYMTAB_H

#include <stdbool.h>
#include <stdint.h>

struct dw_module;
struct strbuf;

/* When module address @vaddr lies inside a symbol of @m (within its size,
 * as gdb requires; a symbol without a size only at its own address),
 * append "name" or "name+offset" (demangled, and without the suffixes GCC
 * adds to copies of functions and to static variables, as gdb shows it)
 * to @out and return true. */
bool dw_module_symbol_at(struct dw_module *m, uint64_t vaddr, struct strbuf *out);

/* gdb's name for a symbol @name that is not C++-mangled: gdb reads every
 * such minimal symbol through its Ada decoder, whatever the program's
 * language.  A trailing number after a dot, a dollar or underscores goes
 * (`o.1` -> `o`, `counter.lto_priv.0` -> `counter.lto_priv`), a suffix of
 * letters after a dot is bracketed (`foo.cold` -> `foo[cold]`), "__"
 * reads "." and GNAT's markers (a trailing B, TB, TKB or N, ___X...) go.
 * Appends the decoded name to @out and returns true; returns false and
 * appends nothing when gdb shows the name as it is (a leading '_', an
 * uppercase letter left, "___" not before X). */
bool dw_symbol_decoded_name(const char *name, struct strbuf *out);

/* When @m's dynamic symbol table defines data object @name with default
 * visibility (one the dynamic linker may bind other modules' references
 * to), set *@vaddr to its address and return true. */
bool dw_module_dynamic_object(struct dw_module *m, const char *name, uint64_t *vaddr);
/* The same for a function (STT_FUNC; an IFUNC's resolver is not the
 * function it picks, so it does not count): a call other modules make to
 * @name through their PLT reaches *@vaddr of the first module, in the
 * dynamic linker's lookup order, for which this is true. */
bool dw_module_dynamic_function(struct dw_module *m, const char *name, uint64_t *vaddr);
/* The address range [*start, *end) the module's segments occupy, in its
 * own addresses. */
void dw_module_range(struct dw_module *m, uint64_t *start, uint64_t *end);

#endif
