/* probe_cache.c - compiled probe objects on disk (see probe_cache.h).
 *
 * An entry is one file, "<16 hex digits>.wpc": a header (magic, format
 * version, the lengths of what follows), then the build-id, the shape key,
 * the program name the object was emitted with, and the object.  Every
 * file operation goes through the directory's descriptor, opened once and
 * checked then, so a directory swapped for a link later is never followed.
 * A hit touches its file's mtime, which is what pruning orders by.
 */
#include "codegen/probe_cache.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "wraithPC"
#define ENTRY_VERSION 1u
#define ENTRY_SUFFIX ".wpc"
#define ENTRY_MAX_SIZE (16u << 20) /* larger files are not ours: a miss */
#define TEMP_PREFIX "tmp."
#define TEMP_STALE_SECONDS 600 /* a temporary file this old lost its writer */

struct entry_header {
	char magic[8];
	uint32_t version;
	uint32_t build_id_len;
	uint32_t key_len;
	uint32_t name_len;
	uint64_t object_size;
};
_Static_assert(sizeof(struct entry_header) == 32, "entry header layout");

struct probe_cache {
	int dir_fd;
	unsigned char *build_id; /* owned */
	size_t build_id_len;
	bool wrote;              /* prune when closing */
};

/* ---- this build's identity ---- */

static unsigned char self_id[64];
static size_t self_id_len;

/* The first object dl_iterate_phdr() reports is the executable. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const unsigned char *name = p + sizeof(*n);
			const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    n->n_descsz > 0 && n->n_descsz <= sizeof(self_id)) {
				memcpy(self_id, desc, n->n_descsz);
				self_id_len = n->n_descsz;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1; /* only the executable counts */
}

int probe_cache_build_id(const unsigned char **id, size_t *len)
{
	static bool looked;

	if (!looked)
		dl_iterate_phdr(find_build_id, NULL);
	looked = true;
	*id = self_id;
	*len = self_id_len;
	return self_id_len ? 0 : -ENOENT;
}

/* ---- the directory ---- */

/* mkdir -p @dir, each missing component mode 0700. */
static void make_dirs(const char *dir)
{
	char *path = xstrdup(dir);

	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		(void)mkdir(path, 0700);
		*s = '/';
	}
	(void)mkdir(path, 0700);
	free(path);
}

/* The directory @fd may hold entries: ours, and no one else can write in. */
static int check_dir(int fd, struct strbuf *why)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		strbuf_addf(why, "cannot stat it: %s", strerror(errno));
		return -errno;
	}
	if (st.st_uid != geteuid()) {
		strbuf_addf(why, "it belongs to uid %u, not to uid %u that runs wraith",
			    (unsigned)st.st_uid, (unsigned)geteuid());
		return -WR_EUNSAFE;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		strbuf_addf(why, "others may write to it (mode %04o)", (unsigned)(st.st_mode & 07777));
		return -WR_EUNSAFE;
	}
	return 0;
}

int probe_cache_open(const char *dir, const unsigned char *build_id, size_t len,
		     struct probe_cache **out, struct strbuf *why)
{
	struct probe_cache *c;
	int fd, err;

	*out = NULL;
	if (!dir || dir[0] != '/') {
		strbuf_addstr(why, "not an absolute path");
		return -EINVAL;
	}
	make_dirs(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		strbuf_addf(why, "cannot open it: %s", strerror(errno));
		return err;
	}
	err = check_dir(fd, why);
	if (err) {
		close(fd);
		return err;
	}
	c = xcalloc(1, sizeof(*c));
	c->dir_fd = fd;
	c->build_id = xmalloc(len);
	memcpy(c->build_id, build_id, len);
	c->build_id_len = len;
	*out = c;
	return 0;
}

/* ---- names ---- */

/* FNV-1a, 64 bits, over @len bytes of @p from @h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

void probe_cache_file_name(const struct probe_cache *c, const char *key, char *buf)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ull, c->build_id, c->build_id_len);

	h = fnv1a(h, key, strlen(key));
	snprintf(buf, 32, "%016" PRIx64 ENTRY_SUFFIX, h);
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

/* ---- reading ---- */

/* All of the regular file @fd of ours into a new buffer (caller frees). */
static int read_entry_file(int fd, unsigned char **data, size_t *size)
{
	struct stat st;
	size_t got = 0;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size < (off_t)sizeof(struct entry_header) || st.st_size > ENTRY_MAX_SIZE)
		return -ENOENT;
	*size = (size_t)st.st_size;
	*data = xmalloc(*size);
	while (got < *size) {
		ssize_t n = pread(fd, *data + got, *size - got, (off_t)got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != *size) {
		free(*data);
		*data = NULL;
		return -ENOENT;
	}
	return 0;
}

/* Whether @data[0..@size) is a whole entry for @c's build and @key; its
 * stored name and object then in @name (NUL-terminated copy, caller
 * frees) and @object/@object_size (pointing into @data). */
static bool parse_entry(const struct probe_cache *c, const char *key, const unsigned char *data,
			size_t size, char **name, const unsigned char **object, size_t *object_size)
{
	struct entry_header h;
	const unsigned char *p = data + sizeof(h);
	size_t key_len = strlen(key);

	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, ENTRY_MAGIC, sizeof(h.magic)) || h.version != ENTRY_VERSION ||
	    h.build_id_len != c->build_id_len || h.key_len != key_len || h.name_len == 0 ||
	    h.name_len > 64 || h.object_size == 0 ||
	    sizeof(h) + (uint64_t)h.build_id_len + h.key_len + h.name_len + h.object_size != size)
		return false;
	if (memcmp(p, c->build_id, c->build_id_len) != 0)
		return false;
	p += h.build_id_len;
	if (memcmp(p, key, key_len) != 0)
		return false;
	p += key_len;
	if (memchr(p, '\0', h.name_len))
		return false;
	*name = xstrndup((const char *)p, h.name_len);
	*object = p + h.name_len;
	*object_size = (size_t)h.object_size;
	return true;
}

int probe_cache_get(struct probe_cache *c, const char *key, const char *name,
		    struct bpf_blob *out)
{
	char file[32], *stored = NULL;
	unsigned char *data = NULL;
	const unsigned char *object;
	size_t size, object_size;
	int fd, err = -ENOENT;

	memset(out, 0, sizeof(*out));
	probe_cache_file_name(c, key, file);
	fd = openat(c->dir_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -ENOENT;
	if (read_entry_file(fd, &data, &size) || !parse_entry(c, key, data, size, &stored, &object,
							       &object_size))
		goto out;
	out->data = xmalloc(object_size);
	memcpy(out->data, object, object_size);
	out->size = object_size;
	if (probe_cache_rename(out->data, out->size, stored, name) == 0) {
		bpf_blob_release(out);
		goto out;
	}
	out->prog_name = xstrdup(name);
	(void)futimens(fd, NULL); /* recently used: pruned last */
	err = 0;
out:
	free(stored);
	free(data);
	close(fd);
	return err;
}

/* ---- writing ---- */

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int probe_cache_put(struct probe_cache *c, const char *key, const struct bpf_blob *blob)
{
	static unsigned serial;
	struct entry_header h = { .version = ENTRY_VERSION };
	struct iovec iov[5];
	char file[32], temp[64];
	int fd, err;

	if (!blob->prog_name || !*blob->prog_name || strlen(blob->prog_name) > 64 || !blob->size)
		return -EINVAL;
	memcpy(h.magic, ENTRY_MAGIC, sizeof(h.magic));
	h.build_id_len = (uint32_t)c->build_id_len;
	h.key_len = (uint32_t)strlen(key);
	h.name_len = (uint32_t)strlen(blob->prog_name);
	h.object_size = blob->size;
	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ c->build_id, c->build_id_len };
	iov[2] = (struct iovec){ (void *)key, h.key_len };
	iov[3] = (struct iovec){ blob->prog_name, h.name_len };
	iov[4] = (struct iovec){ blob->data, blob->size };
	probe_cache_file_name(c, key, file);
	snprintf(temp, sizeof(temp), TEMP_PREFIX "%d.%u", (int)getpid(), serial++);
	fd = openat(c->dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_all(fd, iov, 5);
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && renameat(c->dir_fd, temp, c->dir_fd, file) != 0)
		err = -errno;
	if (err)
		(void)unlinkat(c->dir_fd, temp, 0);
	else
		c->wrote = true;
	return err;
}

/* ---- pruning ---- */

struct pruned {
	char name[32];
	struct timespec mtime;
	off_t size;
};

static int older_first(const void *a, const void *b)
{
	const struct pruned *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return 0;
}

/* Whether @name is an entry's name, or a temporary file no writer will
 * finish (removed here). */
static bool is_entry(int dir_fd, const char *name, const struct stat *st)
{
	size_t len = strlen(name);

	if (!strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX))) {
		if (S_ISREG(st->st_mode) && time(NULL) - st->st_mtime > TEMP_STALE_SECONDS)
			(void)unlinkat(dir_fd, name, 0);
		return false;
	}
	return S_ISREG(st->st_mode) && len == 16 + strlen(ENTRY_SUFFIX) &&
	       !strcmp(name + 16, ENTRY_SUFFIX);
}

/* Drop the least recently used entries until both bounds hold. */
static void prune(struct probe_cache *c)
{
	int fd = dup(c->dir_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct pruned *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;

		if (fstatat(c->dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !is_entry(c->dir_fd, e->d_name, &st))
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
		v[n].mtime = st.st_mtim;
		v[n].size = st.st_size;
		total += (uint64_t)st.st_size;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), older_first);
	for (i = 0; i < n && (total > PROBE_CACHE_MAX_BYTES || n - i > PROBE_CACHE_MAX_FILES); i++) {
		(void)unlinkat(c->dir_fd, v[i].name, 0);
		total -= (uint64_t)v[i].size;
	}
	free(v);
}

void probe_cache_free(struct probe_cache *c)
{
	if (!c)
		return;
	if (c->wrote)
		prune(c);
	close(c->dir_fd);
	free(c->build_id);
	free(c);
}
