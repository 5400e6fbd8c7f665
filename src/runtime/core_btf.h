/* core_btf.h - the kernel BTF that the base object's CO-RE relocations
 * are resolved against, cut down to what they name.
 *
 * The object reads a few kernel structures through shadows named
 * NAME___wr (bpf-templates/wraith.bpf.c).  libbpf matches each shadow's
 * fields by name against the kernel's struct NAME; given a BTF holding
 * just those structs with just those members, at the running kernel's
 * offsets (bpf_object_open_opts.btf_custom_path), it finds the same
 * offsets without loading the kernel's whole BTF.  A member or struct the
 * kernel lacks is left out, so libbpf fails (or a guarded read skips) as
 * it would against the full BTF.
 */
#ifndef WRAITH_RUNTIME_CORE_BTF_H
#define WRAITH_RUNTIME_CORE_BTF_H

#include <stddef.h>

struct btf;
struct kbtf;

/* The BTF of the ELF object @data (its .BTF section), or NULL (errno set). */
struct btf *core_btf_of_object(const void *data, size_t size);

/* The cut-down BTF for @local's shadows, from kernel BTF @k.  NULL with
 * errno set when it cannot be built. */
struct btf *core_btf_build(const struct btf *local, const struct kbtf *k);

/* Write @btf into a memory file; returns its descriptor (the file is
 * /proc/self/fd/N) or a negative errno. */
int core_btf_memfd(const struct btf *btf);
/* The same for raw BTF bytes @raw[0..@size) (a cut kept on disk). */
int core_btf_memfd_raw(const void *raw, size_t size);

#endif
