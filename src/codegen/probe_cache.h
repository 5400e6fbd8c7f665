/* probe_cache.h - compiled probe objects kept on disk between runs.
 *
 * Layer rule: part of codegen/, without LLVM: codegen.c asks it before
 * optimising and emitting a probe, and hands it what it emitted.
 *
 * An entry is found by the probe's shape key (codegen.c: the lowered
 * function's IR text, its name and metadata blanked, and the template's
 * options) together with the identity of this wraith build (the GNU
 * build-id of the running executable).  The file's name is a hash of both;
 * the file holds them in full, and a lookup compares them byte for byte,
 * so a hash collision, a truncated or a corrupt file is a miss, never a
 * wrong program.  A build without a build-id has no cache.
 *
 * An object carries its program's name ("wr<pid>_<id>", in .strtab and in
 * the BTF strings).  A hit renames it to the name asked for, padded with
 * NULs to the stored name's length; a longer name is a miss (the caller
 * compiles and the entry is replaced).
 *
 * Entries live in a disk cache (util/diskcache.h: how it is kept safe),
 * which a run that stored probes prunes as it ends.
 */
#ifndef WRAITH_CODEGEN_PROBE_CACHE_H
#define WRAITH_CODEGEN_PROBE_CACHE_H

#include <stddef.h>

#include "protocol/blob.h"

struct strbuf;

struct probe_cache;

/* Open the cache in @dir (created, with its missing parents, mode 0700)
 * for the build @build_id[0..@len) (@len > 0).  Returns 0 with *@out
 * (caller frees with probe_cache_free()), or a negative code with one
 * sentence in @why saying why the cache cannot be used (an unsafe
 * directory: -WR_EUNSAFE). */
int probe_cache_open(const char *dir, const unsigned char *build_id, size_t len,
		     struct probe_cache **out, struct strbuf *why);

/* Close the cache, first pruning it if this run wrote to it.  NULL is a
 * no-op. */
void probe_cache_free(struct probe_cache *c);

/* The entry for @key: the object in @out (caller releases), its program
 * renamed to @name (out->prog_name is a copy of @name).  Returns 0, or
 * -ENOENT for a miss (no entry, another key or build, a damaged file, a
 * name longer than the stored one). */
int probe_cache_get(struct probe_cache *c, const char *key, const char *name,
		    struct bpf_blob *out);

/* Store @blob (its program named blob->prog_name) under @key, replacing
 * any entry there.  Returns 0 or -errno (nothing stored). */
int probe_cache_put(struct probe_cache *c, const char *key, const struct bpf_blob *blob);

/* The file name of @key's entry in the directory (for tests): a NUL-
 * terminated string in @buf, which holds at least 32 bytes. */
void probe_cache_file_name(const struct probe_cache *c, const char *key, char *buf);

/* Rename the program in the object @data[0..@size) from @from to @to:
 * every "\0<from>\0" becomes "\0<to>" padded with NULs to the same length.
 * Returns how many were replaced, or 0 (nothing changed) when @to is
 * longer than @from. */
size_t probe_cache_rename(unsigned char *data, size_t size, const char *from, const char *to);

#endif
