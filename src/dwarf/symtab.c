/* symtab.c - addresses to ELF symbols for values (see symtab.h).
 *
 * gdb names a pointer's target by the minimal symbol that contains it:
 * the nearest symbol at or below the address, only when the address is
 * within the symbol's size.  libdwfl's address lookup gives the nearest
 * symbol; the size check is ours.  Section and file symbols never count.
 */
#include "dwarf/symtab.h"
#include "dwarf/module_priv.h"
#include "dwarf/symbolize.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static bool names_data_or_code(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return type == STT_OBJECT || type == STT_FUNC || type == STT_GNU_IFUNC ||
	       type == STT_COMMON || (type == STT_NOTYPE && sym->st_size);
}

void dw_module_range(struct dw_module *m, uint64_t *start, uint64_t *end)
{
	Dwarf_Addr lo = 0, hi = 0;

	if (m->mod)
		dwfl_module_info(m->mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	*start = lo;
	*end = hi;
}

bool dw_module_symbol_at(struct dw_module *m, uint64_t vaddr, struct strbuf *out)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	uint64_t lo, hi;
	const char *name;
	char *plain;

	dw_module_range(m, &lo, &hi);
	if (vaddr < lo || vaddr >= hi)
		return false;
	name = dwfl_module_addrinfo(m->mod, vaddr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name || !names_data_or_code(&sym) || (sym.st_size ? off >= sym.st_size : off != 0))
		return false;
	plain = dw_demangle(name, true); /* gdb: <f(int)+4> */
	strbuf_addstr(out, plain ? plain : name);
	if (off)
		strbuf_addf(out, "+%llu", (unsigned long long)off);
	free(plain);
	return true;
}

/* A symbol other modules' references bind to: defined, global or weak,
 * of default visibility; a data object (@code false) or a function. */
static bool binds(const GElf_Sym *sym, bool code)
{
	int bind = GELF_ST_BIND(sym->st_info), type = GELF_ST_TYPE(sym->st_info);

	return sym->st_shndx != SHN_UNDEF && GELF_ST_VISIBILITY(sym->st_other) == STV_DEFAULT &&
	       (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) &&
	       (code ? type == STT_FUNC : type == STT_OBJECT || type == STT_COMMON);
}

static bool dynamic_symbol(struct dw_module *m, const char *name, bool code, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;

	while (m->elf && (scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym) || !binds(&sym, code) ||
			    !(s = elf_strptr(m->elf, sh.sh_link, sym.st_name)) || strcmp(s, name) != 0)
				continue;
			*vaddr = sym.st_value;
			return true;
		}
	}
	return false;
}

bool dw_module_dynamic_object(struct dw_module *m, const char *name, uint64_t *vaddr)
{
	return dynamic_symbol(m, name, false, vaddr);
}

bool dw_module_dynamic_function(struct dw_module *m, const char *name, uint64_t *vaddr)
{
	return dynamic_symbol(m, name, true, vaddr);
}
