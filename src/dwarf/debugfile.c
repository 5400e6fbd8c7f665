/* debugfile.c - finding, checking and remembering a module's separate
 * debug file (see debugfile.h).
 *
 * The search order is gdb's: the build-id directory of each debug
 * directory, then the .gnu_debuglink name beside the module, in its .debug
 * directory and under each debug directory, then debuginfod.  Each
 * candidate is checked before use, since a stale file left over from an
 * older build would name the wrong functions and lines.  libdwfl asks for
 * the file through module.c's find_debuginfo callback, which hands over
 * what this search found, so DWARF, CFI and symbols all come from the one
 * file the start-up report names.
 */
#include "dwarf/debugfile.h"
#include "dwarf/debuginfod.h"
#include "dwarf/elfsec.h"
#include "dwarf/module_priv.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static struct {
	char **dirs;
	size_t n_dirs;
	bool loose;
	bool debuginfod;
	char *index_dir;
	void (*progress)(void *ctx, const char *text);
	void *progress_ctx;
} cfg;

static const char *const default_dirs[] = { "/usr/lib/debug" };

void dw_debug_config_release(void)
{
	for (size_t i = 0; i < cfg.n_dirs; i++)
		free(cfg.dirs[i]);
	free(cfg.dirs);
	free(cfg.index_dir);
	dw_global_names_close();
	memset(&cfg, 0, sizeof(cfg));
}

void dw_debug_configure(const struct dw_debug_config *c)
{
	const char *const *dirs = c->n_dirs ? c->dirs : default_dirs;
	size_t n = c->n_dirs ? c->n_dirs : 1;

	dw_debug_config_release();
	cfg.dirs = xcalloc(n, sizeof(*cfg.dirs));
	for (size_t i = 0; i < n; i++)
		cfg.dirs[i] = xstrdup(dirs[i]);
	cfg.n_dirs = n;
	cfg.loose = c->loose;
	cfg.debuginfod = c->debuginfod;
	cfg.index_dir = c->index_dir ? xstrdup(c->index_dir) : NULL;
	cfg.progress = c->progress;
	cfg.progress_ctx = c->progress_ctx;
	if (c->debuginfod)
		dw_debuginfod_configure(c->urls, c->n_urls, c->cache_dir, c->timeout, c->max_size);
}

const char *dw_debug_index_dir(void)
{
	return cfg.index_dir;
}

const char *dw_debug_origin_name(enum dw_debug_origin o)
{
	static const char *const names[] = {
		[DW_DEBUG_NONE] = "none", [DW_DEBUG_EMBEDDED] = "embedded",
		[DW_DEBUG_EXPLICIT] = "--debug-file", [DW_DEBUG_BUILD_ID] = "build-id directory",
		[DW_DEBUG_DEBUGLINK] = "debuglink", [DW_DEBUG_DEBUGINFOD] = "debuginfod",
	};

	return o <= DW_DEBUG_DEBUGINFOD ? names[o] : "?";
}

/* @path as the traced process names it: modules of another process are
 * opened through /proc/PID/root, which says nothing to the user. */
static const char *shown(const char *path)
{
	const char *p = path;

	if (strncmp(p, "/proc/", 6) != 0)
		return path;
	p += 6;
	while (*p >= '0' && *p <= '9')
		p++;
	return !strncmp(p, "/root/", 6) ? p + 5 : path;
}

/* ---- facts about ELF files ---- */

static bool has_section(Elf *elf, const char *name)
{
	GElf_Shdr sh;

	return elf_section_named(elf, name, &sh) && sh.sh_type != SHT_NOBITS;
}

const char *dw_module_build_id(struct dw_module *m)
{
	const void *id;
	ssize_t n;
	struct strbuf sb = STRBUF_INIT;

	if (m->build_id_hex)
		return m->build_id_hex;
	n = dwelf_elf_gnu_build_id(m->elf, &id);
	for (ssize_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%02x", ((const unsigned char *)id)[i]);
	m->build_id_hex = strbuf_detach(&sb);
	return m->build_id_hex;
}

static bool crc_of_file(int fd, uint32_t *out)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) || st.st_size <= 0)
		return false;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return false;
	*out = (uint32_t)crc32(0, p, (uInt)st.st_size);
	munmap(p, (size_t)st.st_size);
	return true;
}

/* Does the debug file @elf (open as @fd) belong to @m?  0 yes, -WR_EMISMATCH
 * (the reason in @why), -WR_ENODWARF. */
static int check_file(struct dw_module *m, Elf *elf, int fd, struct strbuf *why)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	const char *want = dw_module_build_id(m), *link;
	GElf_Word crc;
	uint32_t got;

	if (!has_section(elf, ".debug_info"))
		return -WR_ENODWARF;
	if (*want) {
		struct strbuf have = STRBUF_INIT;

		for (ssize_t i = 0; i < n; i++)
			strbuf_addf(&have, "%02x", ((const unsigned char *)id)[i]);
		if (strcmp(have.buf, want))
			strbuf_addf(why, "its build-id is %s, %s's is %s", n > 0 ? have.buf : "missing",
				    m->name, want);
		strbuf_release(&have);
		return why->len ? -WR_EMISMATCH : 0;
	}
	link = dwelf_elf_gnu_debuglink(m->elf, &crc);
	if (link && crc_of_file(fd, &got) && got != crc) {
		strbuf_addf(why, "its CRC-32 is %08x, %s's .gnu_debuglink wants %08x", got, m->name, crc);
		return -WR_EMISMATCH;
	}
	return 0;
}

/* Open @path and check it.  Returns 0, -errno, -WR_ENODWARF or -WR_EMISMATCH. */
static int check_path(struct dw_module *m, const char *path, struct strbuf *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf && elf_kind(elf) == ELF_K_ELF ? check_file(m, elf, fd, why) : -WR_EELF;
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* ---- the search ---- */

struct search {
	struct dw_module *m;
	char *loose_path;              /* first mismatching file, for --allow-loose-debug-match */
	enum dw_debug_origin loose_origin;
};

/* Try @path (taken over); true when it is the module's debug file. */
static bool try_path(struct search *s, char *path, enum dw_debug_origin origin)
{
	struct strbuf why = STRBUF_INIT;
	int err = check_path(s->m, path, &why);

	if (!err) {
		s->m->debug_origin = origin;
		s->m->debug_path = path;
	} else if (err == -WR_EMISMATCH && !s->loose_path) {
		if (!cfg.loose)
			wr_warn("ignoring %s as debug info of %s: %s (--allow-loose-debug-match uses "
				"it anyway)", shown(path), shown(s->m->path), why.buf);
		s->loose_path = xstrdup(path);
		s->loose_origin = origin;
	} else if (err != -ENOENT) {
		wr_debug("not using %s as debug info of %s: %s", shown(path), shown(s->m->path),
			 wr_strerror(err));
	}
	strbuf_release(&why);
	if (err)
		free(path);
	return !err;
}

static bool by_build_id(struct search *s)
{
	const char *id = dw_module_build_id(s->m);

	for (size_t i = 0; strlen(id) > 2 && i < cfg.n_dirs; i++)
		if (try_path(s, xasprintf("%s/.build-id/%.2s/%s.debug", cfg.dirs[i], id, id + 2),
			     DW_DEBUG_BUILD_ID))
			return true;
	return false;
}

static bool by_debuglink(struct search *s)
{
	const char *path = s->m->path, *slash = strrchr(path, '/'), *link;
	int dir = slash ? (int)(slash - path) : 0;
	GElf_Word crc;

	link = dwelf_elf_gnu_debuglink(s->m->elf, &crc);
	if (!link)
		return false;
	if (try_path(s, xasprintf("%.*s/%s", dir, path, link), DW_DEBUG_DEBUGLINK) ||
	    try_path(s, xasprintf("%.*s/.debug/%s", dir, path, link), DW_DEBUG_DEBUGLINK))
		return true;
	for (size_t i = 0; i < cfg.n_dirs; i++)
		if (try_path(s, xasprintf("%s%.*s/%s", cfg.dirs[i], dir, path, link), DW_DEBUG_DEBUGLINK) ||
		    try_path(s, xasprintf("%s/%s", cfg.dirs[i], link), DW_DEBUG_DEBUGLINK) ||
		    try_path(s, xasprintf("%s/.debug/%s", cfg.dirs[i], link), DW_DEBUG_DEBUGLINK))
			return true;
	return false;
}

static bool by_debuginfod(struct search *s)
{
	const char *id = dw_module_build_id(s->m);
	char *path = NULL;

	if (!cfg.debuginfod || !*id)
		return false;
	if (dw_debuginfod_find(id, s->m->name, cfg.progress, cfg.progress_ctx, &path))
		return false;
	return try_path(s, path, DW_DEBUG_DEBUGINFOD);
}

static void search(struct dw_module *m)
{
	struct search s = { .m = m };

	if (m->debug_searched)
		return;
	m->debug_searched = true;
	if (has_section(m->elf, ".debug_info")) {
		m->debug_origin = DW_DEBUG_EMBEDDED;
		return;
	}
	if (!by_build_id(&s) && !by_debuglink(&s) && !by_debuginfod(&s) && s.loose_path && cfg.loose) {
		wr_warn("using %s as debug info of %s although it does not match "
			"(--allow-loose-debug-match)", shown(s.loose_path), shown(m->path));
		m->debug_origin = s.loose_origin;
		m->debug_path = s.loose_path;
		s.loose_path = NULL;
	}
	free(s.loose_path);
}

int dw_module_set_debug_file(struct dw_module *m, const char *path)
{
	struct strbuf why = STRBUF_INIT;
	int err = check_path(m, path, &why);

	if (err == -WR_EMISMATCH && cfg.loose) {
		wr_warn("--debug-file %s does not match %s: %s; using it anyway "
			"(--allow-loose-debug-match)", path, shown(m->path), why.buf);
		err = 0;
	} else if (err == -WR_EMISMATCH) {
		wr_error("--debug-file %s does not belong to %s: %s (--allow-loose-debug-match uses "
			 "it anyway)", path, shown(m->path), why.buf);
	} else if (err == -WR_ENODWARF) {
		wr_error("--debug-file %s has no DWARF debug info (.debug_info)", path);
	} else if (err) {
		wr_error("--debug-file %s: %s", path, wr_strerror(err));
	}
	strbuf_release(&why);
	if (err)
		return err;
	if (has_section(m->elf, ".debug_info"))
		wr_warn("--debug-file %s: %s has debug info of its own, which is used", path,
			shown(m->path));
	m->debug_searched = true;
	m->debug_origin = has_section(m->elf, ".debug_info") ? DW_DEBUG_EMBEDDED : DW_DEBUG_EXPLICIT;
	free(m->debug_path);
	m->debug_path = m->debug_origin == DW_DEBUG_EXPLICIT ? xstrdup(path) : NULL;
	return 0;
}

enum dw_debug_origin dw_module_debug_origin(struct dw_module *m)
{
	search(m);
	return m->debug_origin;
}

const char *dw_module_debug_path(struct dw_module *m)
{
	search(m);
	return m->debug_path;
}

const char *dw_debug_path_shown(const char *path)
{
	return shown(path);
}

char *dw_module_find_debug_file(struct dw_module *m)
{
	const char *p = dw_module_debug_path(m);

	return p ? xstrdup(p) : NULL;
}
