/* kbtf.h - the running kernel's BTF (/sys/kernel/btf/vmlinux), read in
 * place: mapped read-only where the kernel allows it (Linux 6.16 and
 * later), else read once into one buffer, and searched without building
 * libbpf's copy of it.  libbpf's own load of it (read in 4 KiB pieces,
 * copied again, every type indexed) was the largest part of the base
 * object's start-up; wraith needs a dozen types of it.
 */
#ifndef WRAITH_RUNTIME_KBTF_H
#define WRAITH_RUNTIME_KBTF_H

#include <stdint.h>
#include <stddef.h>

struct btf_type;
struct kbtf;

/* Open the kernel's BTF at @path (NULL: /sys/kernel/btf/vmlinux).
 * Returns 0, -ENOENT when the kernel has none, or another negative errno
 * (a file that is not BTF: -EPROTO). */
int kbtf_open(const char *path, struct kbtf **out);
void kbtf_close(struct kbtf *k);

/* Type @id (1 .. count), NULL when out of range. */
const struct btf_type *kbtf_type(const struct kbtf *k, uint32_t id);
/* The string at @off of the string section ("" when out of range). */
const char *kbtf_str(const struct kbtf *k, uint32_t off);
/* @id with typedefs and modifiers (const, volatile, restrict, type tags)
 * skipped; 0 for void or a broken chain. */
uint32_t kbtf_resolve(const struct kbtf *k, uint32_t id);

/* In one pass over the types, fn(ctx, i, id) for every struct (or union,
 * as kinds[i] says: BTF_KIND_STRUCT or BTF_KIND_UNION) named names[i]: a
 * kernel may have more than one of a name.  The first pass over a kbtf
 * also indexes its types for kbtf_type(), which is then slow from @fn
 * (it makes its own pass): note the ids and look types up after. */
void kbtf_each_composite(const struct kbtf *k, const char *const *names, const int *kinds,
			 size_t n, void (*fn)(void *ctx, size_t i, uint32_t id), void *ctx);
/* ids[i] = the first of kbtf_each_composite()'s finds for names[i], or 0. */
void kbtf_find_composites(const struct kbtf *k, const char *const *names, const int *kinds,
			  size_t n, uint32_t *ids);

/* Member @name of composite type @id, looked for in anonymous members
 * too (their offsets added).  Returns 0 and its offset and size in bits
 * (size 0 unless a bitfield) and its type, or -ENOENT. */
int kbtf_member(const struct kbtf *k, uint32_t id, const char *name, uint32_t *bit_off,
		uint32_t *bit_size, uint32_t *type);

#endif
