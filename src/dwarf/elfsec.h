/* elfsec.h - a section of an ELF file found by its name. */
#ifndef WRAITH_DWARF_ELFSEC_H
#define WRAITH_DWARF_ELFSEC_H

#include "dwarf/cursor.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
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

/* The bytes of section @name of @elf, in place; false when it is absent,
 * empty of data or still compressed (libdw decompresses the sections it
 * loads in place, and a reader of raw bytes must not see them before). */
static inline bool elf_section_bytes(Elf *elf, const char *name, const uint8_t **p, size_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(elf, name, &sh);
	Elf_Data *d;

	if (!scn || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
	    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return false;
	*p = d->d_buf;
	*size = d->d_size;
	return true;
}

/* A cursor over the raw bytes of section @name of @elf
 * (elf_section_bytes()); false when they cannot be read so. */
static inline bool elf_section_cursor(Elf *elf, const char *name, struct dw_cursor *out)
{
	size_t size;

	if (!elf_section_bytes(elf, name, &out->p, &size))
		return false;
	out->end = out->p + size;
	out->bad = false;
	return true;
}

#endif
