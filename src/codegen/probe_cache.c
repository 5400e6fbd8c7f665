/* probe_cache.c - compiled probe objects on disk (see probe_cache.h).
 *
 * An entry of the disk cache (util/diskcache.h) whose key is "probe",
 * the build-id of wraith and the shape key, and whose value is the
 * program name the object was emitted with (its length, then its bytes)
 * and the object.
 */
#include "codegen/probe_cache.h"
#include "util/diskcache.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 64

struct probe_cache {
	struct disk_cache *dc;
	bool wrote; /* prune when closing */
	unsigned char *build_id; /* owned */
	size_t build_id_len;
};

int probe_cache_open(const char *dir, const unsigned char *build_id, size_t len,
		     struct probe_cache **out, struct strbuf *why)
{
	struct disk_cache *dc;
	int err = disk_cache_open(dir, &dc, why);

	*out = NULL;
	if (err)
		return err;
	*out = xcalloc(1, sizeof(**out));
	(*out)->dc = dc;
	(*out)->build_id = xmalloc(len);
	memcpy((*out)->build_id, build_id, len);
	(*out)->build_id_len = len;
	return 0;
}

void probe_cache_free(struct probe_cache *c)
{
	if (!c)
		return;
	if (c->wrote)
		disk_cache_prune(c->dc);
	disk_cache_free(c->dc);
	free(c->build_id);
	free(c);
}

/* "probe\0", the build-id's length and bytes, the shape key. */
static void full_key(const struct probe_cache *c, const char *key, struct strbuf *out)
{
	uint32_t n = (uint32_t)c->build_id_len;

	strbuf_add(out, "probe", 6);
	strbuf_add(out, &n, sizeof(n));
	strbuf_add(out, c->build_id, c->build_id_len);
	strbuf_addstr(out, key);
}

void probe_cache_file_name(const struct probe_cache *c, const char *key, char *buf)
{
	struct strbuf k = STRBUF_INIT;

	full_key(c, key, &k);
	disk_cache_file_name(k.buf, k.len, buf);
	strbuf_release(&k);
}

size_t probe_cache_rename(unsigned char *data, size_t size, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to), n = 0;
	unsigned char *p = data, *end = data + size;

	if (lt > lf || lf == 0)
		return 0;
	while (p + lf + 2 <= end && (p = memmem(p, (size_t)(end - p), from, lf)) != NULL) {
		if (p > data && p[-1] == '\0' && p + lf < end && p[lf] == '\0') {
			memcpy(p, to, lt);
			memset(p + lt, 0, lf - lt);
			n++;
		}
		p += lf;
	}
	return n;
}

/* The stored name (a NUL-terminated copy in @name) and where the object
 * starts in @value[0..@len), or 0 for a value not so made. */
static size_t split_value(const unsigned char *value, size_t len, char *name)
{
	uint32_t n;

	if (len < sizeof(n))
		return 0;
	memcpy(&n, value, sizeof(n));
	if (n == 0 || n > NAME_MAX_LEN || len <= sizeof(n) + n ||
	    memchr(value + sizeof(n), '\0', n))
		return 0;
	memcpy(name, value + sizeof(n), n);
	name[n] = '\0';
	return sizeof(n) + n;
}

int probe_cache_get(struct probe_cache *c, const char *key, const char *name,
		    struct bpf_blob *out)
{
	struct strbuf k = STRBUF_INIT;
	char stored[NAME_MAX_LEN + 1];
	unsigned char *value;
	size_t len, at;
	int err;

	memset(out, 0, sizeof(*out));
	full_key(c, key, &k);
	err = disk_cache_get(c->dc, k.buf, k.len, (void **)&value, &len);
	strbuf_release(&k);
	if (err)
		return -ENOENT;
	at = split_value(value, len, stored);
	if (!at || probe_cache_rename(value + at, len - at, stored, name) == 0) {
		free(value);
		return -ENOENT;
	}
	out->size = len - at;
	out->data = xmalloc(out->size);
	memcpy(out->data, value + at, out->size);
	out->prog_name = xstrdup(name);
	free(value);
	return 0;
}

int probe_cache_put(struct probe_cache *c, const char *key, const struct bpf_blob *blob)
{
	struct strbuf k = STRBUF_INIT;
	uint32_t n;
	struct iovec iov[3];
	int err;

	if (!blob->prog_name || !*blob->prog_name || strlen(blob->prog_name) > NAME_MAX_LEN ||
	    !blob->size)
		return -EINVAL;
	n = (uint32_t)strlen(blob->prog_name);
	iov[0] = (struct iovec){ &n, sizeof(n) };
	iov[1] = (struct iovec){ blob->prog_name, n };
	iov[2] = (struct iovec){ blob->data, blob->size };
	full_key(c, key, &k);
	err = disk_cache_put(c->dc, k.buf, k.len, iov, 3);
	strbuf_release(&k);
	c->wrote |= err == 0;
	return err;
}
