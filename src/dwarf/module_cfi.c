/* module_cfi.c - a module's call frame information as elfutils gives it
 * (see module_cfi.h): its sections' bytes for unwind/'s rows, libdw's CFI
 * and register rules for unwind/'s frame registers.
 */
#include "dwarf/module_cfi.h"
#include "dwarf/elfsec.h"
#include "dwarf/module_priv.h"

#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Section @name of @elf into @s; false when absent or empty. */
static bool open_section(Elf *elf, const char *name, struct dw_section *s)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(elf, name, &sh);

	if (!scn || sh.sh_type == SHT_NOBITS)
		return false;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return false;
	s->data = elf_getdata(scn, NULL);
	if (!s->data || !s->data->d_buf || s->data->d_size == 0)
		return false;
	s->name = name;
	s->buf = s->data->d_buf;
	s->vaddr = sh.sh_addr;
	s->ident = (const unsigned char *)elf_getident(elf, NULL);
	return s->ident != NULL;
}

bool dw_module_section(struct dw_module *m, const char *name, struct dw_section *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	return open_section(m->elf, name, out);
}

/* The separate debug file is found by dw_module_find_debug_file(), which
 * leaves libdwfl's state alone (libdwfl's own search would adopt the
 * handle into the module, and closing it here would then break the
 * module's DWARF). */
bool dw_module_debug_frame(struct dw_module *m, struct dw_section *out)
{
	char *path;

	if (dw_module_section(m, ".debug_frame", out))
		return true;
	if (m->dwarf_state == 1) {
		Elf *elf = dwarf_getelf(m->dwarf);

		return elf && elf != m->elf && open_section(elf, ".debug_frame", out);
	}
	path = dw_module_find_debug_file(m);
	if (!path)
		return false;
	out->fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (out->fd < 0)
		return false;
	out->elf = elf_begin(out->fd, ELF_C_READ_MMAP, NULL);
	if (out->elf && open_section(out->elf, ".debug_frame", out))
		return true;
	dw_section_close(out);
	return false;
}

void dw_section_close(struct dw_section *s)
{
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	s->elf = NULL;
	s->fd = -1;
	s->data = NULL;
}

Elf *dw_module_elf(struct dw_module *m)
{
	return m->elf;
}

Dwarf_CFI *dw_module_cfi(struct dw_module *m)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(m->mod, &bias);

	return cfi ? cfi : dwfl_module_dwarf_cfi(m->mod, &bias);
}

#define DW_REG_RAX 0
#define DW_REG_RBX 3

int dw_cfi_register(Dwarf_Frame *frame, int reg, Dwarf_Op mem[3], Dwarf_Op **ops, size_t *n)
{
	int err = dwarf_frame_register(frame, reg, mem, ops, n);

	if (err != 0 || *n != 0)
		return err;
	if (reg == DW_REG_RBX && *ops) /* undefined: the same value */
		*ops = NULL;
	else if (reg == DW_REG_RAX && !*ops) /* the same value: undefined */
		*ops = mem;
	return 0;
}
