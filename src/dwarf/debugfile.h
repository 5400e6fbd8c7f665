/* debugfile.h - where a module's debug info comes from: its own sections,
 * a file given with --debug-file, a build-id directory, .gnu_debuglink, or
 * a debuginfod server.
 *
 * Layer rule: dwarf/ (the one directory with elfutils headers; this is
 * also the only file that uses libdebuginfod, through debuginfod.c).
 *
 * A separate debug file is accepted only when it belongs to the module:
 * its build-id note equals the module's, or, for a module without a
 * build-id, the CRC-32 of the whole file equals the module's
 * .gnu_debuglink CRC; and it must hold DWARF (.debug_info).  A file that
 * fails the check is refused with a warning, or used with a warning when
 * the search was set up with @loose (--allow-loose-debug-match).
 *
 * The search runs once per module, on first need (its DWARF, its
 * .debug_frame, its full symbol table, or the start-up report).
 */
#ifndef WRAITH_DWARF_DEBUGFILE_H
#define WRAITH_DWARF_DEBUGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

enum dw_debug_origin {
	DW_DEBUG_NONE,          /* no debug info found */
	DW_DEBUG_EMBEDDED,      /* the module's own .debug_info */
	DW_DEBUG_EXPLICIT,      /* --debug-file */
	DW_DEBUG_BUILD_ID,      /* DIR/.build-id/xx/yyyy.debug */
	DW_DEBUG_DEBUGLINK,     /* the file .gnu_debuglink names, beside the module or in DIR */
	DW_DEBUG_DEBUGINFOD,    /* downloaded from a debuginfod server (or its cache) */
};

struct dw_debug_config {
	const char *const *dirs;    /* debug directories (copied); none: /usr/lib/debug */
	size_t n_dirs;
	bool loose;                 /* use a mismatching file, with a warning */
	bool debuginfod;            /* ask debuginfod servers last */
	const char *const *urls;    /* servers (none: $DEBUGINFOD_URLS) */
	size_t n_urls;
	const char *cache_dir;      /* NULL: libdebuginfod's default */
	unsigned timeout;           /* seconds without progress before giving up; 0: none */
	uint64_t max_size;          /* bytes; 0: no cap */
	/* where the names of each module's globals are kept between runs
	 * (globalnames.c; the probe cache's directory); NULL: not kept */
	const char *index_dir;
	/* Progress of a download, one line of text; NULL text when done. */
	void (*progress)(void *ctx, const char *text);
	void *progress_ctx;
};

/* Set how every module looks for its debug info from now on (process-wide,
 * like libdwfl's debuginfo path).  Call before opening modules, while no
 * other thread runs (it sets libdebuginfod's environment variables). */
void dw_debug_configure(const struct dw_debug_config *c);
/* Free what dw_debug_configure() copied. */
void dw_debug_config_release(void);

/* Use @path as the debug file of @m (--debug-file).  Checks that it holds
 * DWARF and belongs to @m.  Returns 0, -errno, -WR_ENODWARF, or
 * -WR_EMISMATCH (unless loose, then 0 and a warning); message logged. */
int dw_module_set_debug_file(struct dw_module *m, const char *path);

/* Where @m's debug info comes from (searching for it now if not yet). */
enum dw_debug_origin dw_module_debug_origin(struct dw_module *m);
/* The separate debug file in use, or NULL (embedded or none).  Borrowed. */
const char *dw_module_debug_path(struct dw_module *m);
/* @path without the /proc/PID/root prefix through which modules of
 * another mount namespace are opened (a suffix of @path). */
const char *dw_debug_path_shown(const char *path);
/* "embedded", "--debug-file", "build-id directory", "debuglink",
 * "debuginfod", "none".  Static. */
const char *dw_debug_origin_name(enum dw_debug_origin o);
/* The module's build-id in hex ("" when it has none).  Borrowed. */
const char *dw_module_build_id(struct dw_module *m);

#endif
