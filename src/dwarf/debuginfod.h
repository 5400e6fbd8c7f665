/* debuginfod.h - debug files from debuginfod servers, through elfutils'
 * own client (libdebuginfod).
 *
 * Layer rule: private to src/dwarf/ (debugfile.c asks it).
 */
#ifndef WRAITH_DWARF_DEBUGINFOD_H
#define WRAITH_DWARF_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>

/* Servers, cache, timeout and size cap (see struct dw_debug_config).  The
 * client reads them from its environment variables, so they are set here,
 * before any other thread runs. */
void dw_debuginfod_configure(const char *const *urls, size_t n_urls, const char *cache_dir,
			     unsigned timeout, uint64_t max_size);

/* Fetch (or find in the cache) the debug file of build-id @id (hex) of the
 * module named @name.  @progress, if not NULL, gets one line of text while
 * the download runs and NULL at its end.  Returns 0 and the cached file's
 * path in *path (caller frees), or a negative error; what went wrong
 * (nothing on the servers, a timeout, no server set) is logged once as a
 * warning naming the module. */
int dw_debuginfod_find(const char *id, const char *name,
		       void (*progress)(void *ctx, const char *text), void *ctx, char **path);

#endif
