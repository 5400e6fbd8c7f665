/* btf_cache.h - the kernel BTF cut for the base object (core_btf.h) kept
 * between runs in the disk cache (util/diskcache.h), beside the compiled
 * probes.
 *
 * The cut depends on the kernel's BTF and on the base object's shadows,
 * so the key is: the GNU build-id of the running kernel (its notes in
 * /sys/kernel/notes) and the size of /sys/kernel/btf/vmlinux, wraith's
 * build-id, and the base object's size and hash (the base object is one
 * of those built into this wraith).  Without either build-id nothing is
 * kept.  A kept cut is the bytes a fresh cut writes (btf__raw_data()).
 */
#ifndef WRAITH_RUNTIME_BTF_CACHE_H
#define WRAITH_RUNTIME_BTF_CACHE_H

#include <stddef.h>

struct bpf_blob;
struct strbuf;

/* The key of @base's cut on this kernel in @key (appended).  Returns 0,
 * or -ENOENT when wraith or the kernel has no build-id. */
int btf_cache_key(const struct bpf_blob *base, struct strbuf *key);

/* The cut kept in the disk cache @dir for @base: 0 with *@raw (caller
 * frees) and *@len, or a negative code (a miss: -ENOENT; an unusable
 * directory: its reason in @why, which may be NULL). */
int btf_cache_get(const char *dir, const struct bpf_blob *base, void **raw, size_t *len,
		  struct strbuf *why);

/* Keep @raw[0..@len) as @base's cut in @dir.  Returns 0 or a negative
 * code (with @why as btf_cache_get()). */
int btf_cache_put(const char *dir, const struct bpf_blob *base, const void *raw, size_t len,
		  struct strbuf *why);

#endif
