/* btf_cache.c - the kernel BTF cut kept between runs (see btf_cache.h). */
#include "runtime/btf_cache.h"
#include "protocol/blob.h"
#include "util/buildid.h"
#include "util/diskcache.h"
#include "util/hash.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

static void add_id(struct strbuf *key, const unsigned char *id, size_t len)
{
	uint32_t n = (uint32_t)len;

	strbuf_add(key, &n, sizeof(n));
	strbuf_add(key, id, len);
}

int btf_cache_key(const struct bpf_blob *base, struct strbuf *key)
{
	const unsigned char *self, *kernel;
	size_t self_len, kernel_len;
	uint64_t words[3];
	struct stat st;

	if (build_id_self(&self, &self_len) || build_id_kernel(&kernel, &kernel_len) ||
	    stat(VMLINUX_BTF, &st) != 0)
		return -ENOENT;
	strbuf_add(key, "kernel-btf-cut", 15);
	add_id(key, kernel, kernel_len);
	add_id(key, self, self_len);
	words[0] = (uint64_t)st.st_size;
	words[1] = base->size;
	words[2] = fnv1a(FNV1A_BASIS, base->data, base->size);
	strbuf_add(key, words, sizeof(words));
	return 0;
}

int btf_cache_get(const char *dir, const struct bpf_blob *base, void **raw, size_t *len,
		  struct strbuf *why)
{
	struct strbuf key = STRBUF_INIT, ignored = STRBUF_INIT;
	struct disk_cache *dc = NULL;
	int err = btf_cache_key(base, &key);

	*raw = NULL;
	*len = 0;
	if (!err)
		err = disk_cache_open(dir, &dc, why ? why : &ignored);
	if (!err)
		err = disk_cache_get(dc, key.buf, key.len, raw, len);
	disk_cache_free(dc);
	strbuf_release(&key);
	strbuf_release(&ignored);
	return err;
}

int btf_cache_put(const char *dir, const struct bpf_blob *base, const void *raw, size_t len,
		  struct strbuf *why)
{
	struct strbuf key = STRBUF_INIT, ignored = STRBUF_INIT;
	struct iovec iov = { (void *)raw, len };
	struct disk_cache *dc = NULL;
	int err = btf_cache_key(base, &key);

	if (!err)
		err = disk_cache_open(dir, &dc, why ? why : &ignored);
	if (!err)
		err = disk_cache_put(dc, key.buf, key.len, &iov, 1);
	disk_cache_free(dc);
	strbuf_release(&key);
	strbuf_release(&ignored);
	return err;
}
