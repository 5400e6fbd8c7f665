/* linefiles.c - can a module's line tables name a source file at all?
 *
 * A file:line probe looks in every module of the process, and opening a
 * library's DWARF to find out that it never names the file costs tens of
 * milliseconds each (libdw reads and, for Debian's -dbg files,
 * decompresses every debug section).  Every file a line table names is a
 * string in .debug_line (DWARF 4, DW_FORM_string), .debug_line_str or
 * .debug_str (DWARF 5), so when none of those holds the file's base name
 * the module cannot have code of it.  Only those sections are read, and
 * only their raw bytes.  Whatever this cannot read with certainty (no such
 * section, a supplementary file, old .zdebug compression, a failed
 * decompression) answers "maybe": the module is searched as before.
 */
#include "dwarf/debugfile.h"
#include "dwarf/module_priv.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum scan { SCAN_NO, SCAN_YES, SCAN_MAYBE };

static const char *const line_sections[] = { ".debug_line", ".debug_line_str", ".debug_str" };

static bool is_line_section(const char *name)
{
	for (size_t i = 0; i < sizeof(line_sections) / sizeof(line_sections[0]); i++)
		if (strcmp(name, line_sections[i]) == 0)
			return true;
	return false;
}

/* Does section @scn hold @base as the tail of a string?  Only the end is
 * checked: the linker merges strings by their tails, so "u0.c" may be the
 * end of "xu0.c" there; a false "yes" only costs the full search. */
static enum scan scan_section(Elf_Scn *scn, const GElf_Shdr *sh, const char *base)
{
	size_t blen = strlen(base);
	Elf_Data *d;
	const char *p, *end;

	if (sh->sh_flags & SHF_COMPRESSED && elf_compress(scn, 0, 0) < 0)
		return SCAN_MAYBE;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return SCAN_MAYBE;
	p = d->d_buf;
	end = p + d->d_size;
	while ((p = memmem(p, (size_t)(end - p), base, blen))) {
		if (p + blen < end && p[blen] == '\0')
			return SCAN_YES;
		p++;
	}
	return SCAN_NO;
}

static enum scan scan_elf(Elf *elf, const char *base)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool line = false;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return SCAN_MAYBE;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		enum scan r;

		if (!gelf_getshdr(scn, &sh))
			return SCAN_MAYBE;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			return SCAN_MAYBE;
		if (strncmp(name, ".zdebug", 7) == 0 || strcmp(name, ".gnu_debugaltlink") == 0)
			return SCAN_MAYBE;
		if (!is_line_section(name) || sh.sh_type == SHT_NOBITS)
			continue;
		line |= strcmp(name, ".debug_line") == 0;
		r = scan_section(scn, &sh, base);
		if (r != SCAN_NO)
			return r;
	}
	return line ? SCAN_NO : SCAN_MAYBE;
}

static enum scan scan_file(const char *path, const char *base)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum scan r = SCAN_MAYBE;
	Elf *elf;

	if (fd < 0)
		return SCAN_MAYBE;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		r = scan_elf(elf, base);
	elf_end(elf);
	close(fd);
	return r;
}

bool dw_module_may_name_file(struct dw_module *m, const char *file)
{
	char *q = dw_path_normalize(file);
	const char *base = strrchr(q, '/') ? strrchr(q, '/') + 1 : q;
	const char *debug;
	enum scan r = SCAN_MAYBE;

	/* Open DWARF is searched anyway: the saving is in not opening it. */
	if (m->dwarf_state != 0 || !*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		free(q);
		return true;
	}
	debug = dw_module_debug_path(m);
	if (dw_module_debug_origin(m) == DW_DEBUG_EMBEDDED)
		r = scan_elf(m->elf, base);
	else if (debug)
		r = scan_file(debug, base);
	free(q);
	return r != SCAN_NO;
}
