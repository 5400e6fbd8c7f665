/* module.c - opening an ELF file and its debug info once (see module.h).
 *
 * We keep two handles on the file: a plain libelf handle for program
 * headers (cheap, always there) and a libdwfl session with the file as its
 * only module at bias 0, which finds separate debug info by build-id and
 * .gnu_debuglink the way gdb and eu-stack do.  DWARF is only loaded when
 * something asks for it.
 */
#include "dwarf/debugfile.h"
#include "dwarf/elfsec.h"
#include "dwarf/module_priv.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *debuginfo_path = NULL;

/* libdwfl asks here for a separate debug file: the one debugfile.c found
 * and checked (libdwfl's standard search would also ask debuginfod on its
 * own whenever DEBUGINFOD_URLS is set, even with --debuginfod off). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct dw_module *m = *userdata;
	const char *path = m ? dw_module_debug_path(m) : NULL;
	int fd;

	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc;
	if (!path) {
		errno = ENOENT;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = xstrdup(path);
	return fd;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int read_headers(struct dw_module *m)
{
	GElf_Ehdr ehdr;
	size_t n;

	if (!gelf_getehdr(m->elf, &ehdr) || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB || ehdr.e_machine != EM_X86_64)
		return -WR_EELF;
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
		return -WR_EELF;
	m->is_dyn = ehdr.e_type == ET_DYN;
	if (elf_getphdrnum(m->elf, &n) != 0)
		return -WR_EELF;
	m->loads = xcalloc(n ? n : 1, sizeof(*m->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(m->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			m->has_interp = true;
		if (ph.p_type == PT_TLS) {
			m->tls_vaddr = ph.p_vaddr;
			m->tls_memsz = ph.p_memsz;
			m->tls_align = ph.p_align ? ph.p_align : 1;
			m->tls_filesz = ph.p_filesz;
		}
		if (ph.p_type == PT_DYNAMIC)
			m->dynamic_vaddr = ph.p_vaddr;
		if (ph.p_type == PT_GNU_RELRO) {
			m->relro_vaddr = ph.p_vaddr;
			m->relro_memsz = ph.p_memsz;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		m->loads[m->n_loads++] = (struct dw_load_segment){
			.vaddr = ph.p_vaddr, .offset = ph.p_offset,
			.filesz = ph.p_filesz, .memsz = ph.p_memsz, .flags = ph.p_flags,
		};
	}
	return m->n_loads ? 0 : -WR_EELF;
}

static int open_dwfl(struct dw_module *m)
{
	int fd = dup(m->fd);

	if (fd < 0)
		return -errno;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(m->dwfl);
	/* base 0 without adding p_vaddr: the module's bias is 0, so every
	 * address we hand libdwfl is a plain ELF virtual address.  On failure
	 * libdwfl has already closed fd. */
	m->mod = dwfl_report_elf(m->dwfl, m->name, m->path, fd, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (m->mod) {
		void **ud;

		dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = m; /* for find_debuginfo */
	}
	return m->mod ? 0 : -WR_EELF;
}

int dw_module_open(const char *path, struct dw_module **out)
{
	return dw_module_open_as(path, path, out);
}

int dw_module_open_as(const char *path, const char *shown, struct dw_module **out)
{
	struct dw_module *m = xcalloc(1, sizeof(*m));
	const char *slash;
	int err;

	*out = NULL;
	elf_version(EV_CURRENT);
	m->fd = -1;
	m->path = xstrdup(shown);
	slash = strrchr(m->path, '/');
	m->name = slash ? slash + 1 : m->path;
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		err = -errno;
		goto out_free;
	}
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF) {
		err = -WR_EELF;
		goto out_free;
	}
	err = read_headers(m);
	if (err)
		goto out_free;
	err = open_dwfl(m);
	if (err)
		goto out_free;
	*out = m;
	return 0;

out_free:
	dw_module_free(m);
	return err;
}

void dw_module_free(struct dw_module *m)
{
	if (!m)
		return;
	for (int i = 0; i < DW_EXT_COUNT_; i++)
		if (m->ext[i].data && m->ext[i].destroy)
			m->ext[i].destroy(m->ext[i].data);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	free(m->loads);
	free(m->debug_source);
	free(m->debug_path);
	free(m->build_id_hex);
	free(m->path);
	free(m);
}

const char *dw_module_name(const struct dw_module *m)
{
	return m->name;
}

bool dw_module_is_dyn(const struct dw_module *m)
{
	return m->is_dyn;
}

static bool has_section(Elf *elf, const char *name)
{
	GElf_Shdr sh;

	return elf_section_named(elf, name, &sh) && sh.sh_size && sh.sh_type != SHT_NOBITS;
}

/* Corrupted debug info would otherwise only show as variables and lines
 * that are not there: say so once per module (on first use), with what
 * will not work.  Every unit header and unit DIE is read (cheap, and libdw
 * keeps them for later); damage inside a unit's DIEs shows when it is
 * read. */
static void check_dwarf(struct dw_module *m)
{
	static const char costs[] = "variables, FILE:LINE probes, parameters and source lines "
				    "of its code will be missing; backtraces still unwind";
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t type;
	int rc;

	if (!m->dwarf) {
		if (has_section(m->elf, ".debug_info"))
			wr_warn("%s: its DWARF debug info (.debug_info) is corrupted (%s): %s",
				m->name, dwfl_errmsg(-1), costs);
		return;
	}
	while ((rc = dwarf_get_units(m->dwarf, cu, &cu, &version, &type, &cudie, NULL)) == 0)
		if (dwarf_tag(&cudie) < 0)
			break;
	if (rc != 1)
		wr_warn("%s: its DWARF debug info (.debug_info) is corrupted (%s): %s", m->name,
			dwarf_errmsg(-1), costs);
}

Dwarf *dw_module_dwarf(struct dw_module *m)
{
	Dwarf_Addr bias;

	if (m->dwarf_state == 0) {
		m->dwarf = dwfl_module_getdwarf(m->mod, &bias);
		m->dwarf_state = m->dwarf ? 1 : -1;
		check_dwarf(m);
	}
	return m->dwarf;
}

bool dw_module_has_dwarf(struct dw_module *m)
{
	return dw_module_dwarf(m) != NULL;
}

const char *dw_module_debug_source(struct dw_module *m)
{
	enum dw_debug_origin o = dw_module_debug_origin(m);

	if (m->debug_source)
		return m->debug_source;
	if (o != DW_DEBUG_EMBEDDED && !dw_module_dwarf(m))
		o = DW_DEBUG_NONE;
	if (m->debug_path && o != DW_DEBUG_NONE)
		m->debug_source = xasprintf("%s (%s)", dw_debug_origin_name(o),
					    dw_debug_path_shown(m->debug_path));
	else
		m->debug_source = xstrdup(dw_debug_origin_name(o));
	return m->debug_source;
}

int dw_module_vaddr_to_offset(const struct dw_module *m, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < m->n_loads; i++) {
		const struct dw_load_segment *s = &m->loads[i];

		if (vaddr >= s->vaddr && vaddr < s->vaddr + s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ERANGE;
}

int dw_module_offset_to_vaddr(const struct dw_module *m, uint64_t offset, uint64_t *vaddr)
{
	/* A mapping's offset is page-aligned and may precede the segment's own
	 * offset by less than a page: prefer the segment that starts in the
	 * mapping's first page, then any whose page-rounded range holds it. */
	for (size_t i = 0; i < m->n_loads; i++) {
		const struct dw_load_segment *s = &m->loads[i];

		if ((s->offset & ~0xfffull) == offset) {
			*vaddr = s->vaddr - (s->offset - offset);
			return 0;
		}
	}
	for (size_t i = 0; i < m->n_loads; i++) {
		const struct dw_load_segment *s = &m->loads[i];
		uint64_t page_off = s->offset & ~0xfffull;

		if (offset >= page_off && offset < s->offset + (s->filesz ? s->filesz : 1)) {
			*vaddr = s->vaddr - (s->offset - offset);
			return 0;
		}
	}
	return -ERANGE;
}

/* Bytes at @vaddr of a segment that is read-only in the process (or, with
 * @relro, of the part the loader makes read-only once relocated). */
static long read_file_bytes(const struct dw_module *m, uint64_t vaddr, void *buf, size_t len, bool relro)
{
	bool in_relro = relro && vaddr >= m->relro_vaddr && vaddr - m->relro_vaddr < m->relro_memsz;

	for (size_t i = 0; i < m->n_loads; i++) {
		const struct dw_load_segment *s = &m->loads[i];
		uint64_t left = s->vaddr + s->filesz - vaddr;

		if (((s->flags & PF_W) && !in_relro) || vaddr < s->vaddr || vaddr >= s->vaddr + s->filesz)
			continue;
		if (in_relro && left > m->relro_vaddr + m->relro_memsz - vaddr)
			left = m->relro_vaddr + m->relro_memsz - vaddr;
		if (m->fd < 0)
			return -1;
		return (long)pread(m->fd, buf, len < left ? len : (size_t)left,
				   (off_t)(s->offset + (vaddr - s->vaddr)));
	}
	return -1;
}

long dw_module_read_const(const struct dw_module *m, uint64_t vaddr, void *buf, size_t len)
{
	return read_file_bytes(m, vaddr, buf, len, false);
}

long dw_module_read_unrelocated(const struct dw_module *m, uint64_t vaddr, void *buf, size_t len)
{
	return read_file_bytes(m, vaddr, buf, len, true);
}

bool dw_module_vaddr_is_code(const struct dw_module *m, uint64_t vaddr)
{
	for (size_t i = 0; i < m->n_loads; i++) {
		const struct dw_load_segment *s = &m->loads[i];

		if ((s->flags & PF_X) && vaddr >= s->vaddr && vaddr < s->vaddr + s->memsz)
			return true;
	}
	return false;
}

char *dw_path_normalize(const char *path)
{
	size_t len = strlen(path), n = 0, depth = 0, dotdots = 0;
	size_t *marks = xcalloc(len + 1, sizeof(*marks)); /* where each kept component began */
	char *out = xmalloc(len + 2);
	bool absolute = path[0] == '/';

	/* Components are copied one by one; ".." drops the last one kept, or
	 * stays (at the start of a relative path), or is dropped (at the root). */
	for (const char *p = path; *p;) {
		size_t c = strcspn(p, "/");
		bool up = c == 2 && p[0] == '.' && p[1] == '.';

		if (c == 0 || (c == 1 && p[0] == '.')) {
			/* nothing */
		} else if (up && depth > dotdots) {
			n = marks[--depth];
		} else if (!(up && absolute)) {
			marks[depth++] = n;
			dotdots += up;
			if (n || absolute)
				out[n++] = '/';
			memcpy(out + n, p, c);
			n += c;
		}
		p += c + (p[c] == '/');
	}
	if (!n)
		out[n++] = absolute ? '/' : '.';
	out[n] = '\0';
	free(marks);
	return out;
}

char *dw_unit_path(Dwarf_Die *cudie, const char *file)
{
	Dwarf_Attribute a;
	const char *dir;
	char *joined, *out;

	/* A relative compilation directory (glibc's "./stdlib", from
	 * -fdebug-prefix-map) is already part of the names libdw returns. */
	if (file[0] == '/' || !cudie || !dwarf_attr(cudie, DW_AT_comp_dir, &a) ||
	    !(dir = dwarf_formstring(&a)) || dir[0] != '/')
		return dw_path_normalize(file);
	joined = xasprintf("%s/%s", dir, file);
	out = dw_path_normalize(joined);
	free(joined);
	return out;
}

int dw_module_tls(const struct dw_module *m, struct dw_tls_segment *out)
{
	if (!m->tls_align)
		return -ENOENT;
	*out = (struct dw_tls_segment){ .vaddr = m->tls_vaddr, .filesz = m->tls_filesz,
					.memsz = m->tls_memsz, .align = m->tls_align };
	return 0;
}

uint64_t dw_module_dynamic_vaddr(const struct dw_module *m)
{
	return m->dynamic_vaddr;
}

bool dw_module_is_program(const struct dw_module *m)
{
	return m->has_interp;
}

/* One entry of the dynamic section into @out; @strtab is its strings. */
static void take_dyn(Elf *elf, size_t strtab, const GElf_Dyn *dyn, struct dw_dynamic_deps *out)
{
	const char *str;

	if (dyn->d_tag != DT_NEEDED && dyn->d_tag != DT_RUNPATH && dyn->d_tag != DT_RPATH)
		return;
	str = elf_strptr(elf, strtab, dyn->d_un.d_val);
	if (!str)
		return;
	if (dyn->d_tag == DT_NEEDED) {
		out->needed = xrealloc(out->needed, (out->n_needed + 1) * sizeof(*out->needed));
		out->needed[out->n_needed++] = xstrdup(str);
	} else if (dyn->d_tag == DT_RUNPATH && !out->runpath) {
		out->runpath = xstrdup(str);
	} else if (dyn->d_tag == DT_RPATH && !out->rpath) {
		out->rpath = xstrdup(str);
	}
}

int dw_module_dynamic_deps(const struct dw_module *m, struct dw_dynamic_deps *out)
{
	Elf_Scn *scn = NULL;

	memset(out, 0, sizeof(*out));
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			take_dyn(m->elf, sh.sh_link, &dyn, out);
		}
		break;
	}
	return 0;
}

void dw_dynamic_deps_release(struct dw_dynamic_deps *d)
{
	for (size_t i = 0; i < d->n_needed; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->runpath);
	free(d->rpath);
	memset(d, 0, sizeof(*d));
}

int dw_module_static_tls_offset(const struct dw_module *m, uint64_t *off)
{
	uint64_t align = m->tls_align, first;

	if (!align || !m->has_interp || (align & (align - 1)))
		return -ENOENT;
	/* glibc's placement of the first module's block below the thread
	 * pointer (TLS_TCB_AT_TP, dl-tls.c): rounded up to its alignment,
	 * keeping the segment's offset within the alignment. */
	first = (0 - m->tls_vaddr) & (align - 1);
	*off = ((m->tls_memsz - first + align - 1) & ~(align - 1)) + first;
	return 0;
}
