/* elfsec.h - a section of an ELF file found by its name. */
#ifndef WRAITH_DWARF_ELFSEC_H
#define WRAITH_DWARF_ELFSEC_H

#include <gelf.h>
#include <string.h>

/* The first section named @name, its header in *@sh; NULL when there is
 * none (or the section names cannot be read). */
static inline Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

#endif
