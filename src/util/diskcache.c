/* diskcache.c - values kept on disk between runs (see diskcache.h).
 *
 * Every file operation goes through the directory's descriptor, opened
 * once and checked then, so a directory swapped for a link later is never
 * followed.
 */
#include "util/diskcache.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "wraithDC"
#define ENTRY_VERSION 2u
#define ENTRY_SUFFIX ".wpc"
#define ENTRY_MAX_SIZE (16u << 20) /* larger files are not ours: a miss */
#define TEMP_PREFIX "tmp."
#define TEMP_STALE_SECONDS 600 /* a temporary file this old lost its writer */
#define MAX_PIECES 8

struct entry_header {
	char magic[8];
	uint32_t version;
	uint32_t key_len;
	uint64_t value_len;
	uint64_t check; /* fnv1a() of key and value: a damaged value is a miss too */
};
_Static_assert(sizeof(struct entry_header) == 32, "entry header layout");

struct disk_cache {
	int dir_fd;
};

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

int disk_cache_open(const char *dir, struct disk_cache **out, struct strbuf *why)
{
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
	*out = xcalloc(1, sizeof(**out));
	(*out)->dir_fd = fd;
	return 0;
}

void disk_cache_file_name(const void *key, size_t key_len, char *buf)
{
	snprintf(buf, 32, "%016" PRIx64 ENTRY_SUFFIX, fnv1a(FNV1A_BASIS, key, key_len));
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

/* Whether @data[0..@size) is a whole entry for @key. */
static bool entry_matches(const unsigned char *data, size_t size, const void *key, size_t key_len)
{
	struct entry_header h;

	memcpy(&h, data, sizeof(h));
	return !memcmp(h.magic, ENTRY_MAGIC, sizeof(h.magic)) && h.version == ENTRY_VERSION &&
	       h.key_len == key_len && sizeof(h) + (uint64_t)h.key_len + h.value_len == size &&
	       !memcmp(data + sizeof(h), key, key_len) &&
	       fnv1a(FNV1A_BASIS, data + sizeof(h), size - sizeof(h)) == h.check;
}

int disk_cache_get(struct disk_cache *c, const void *key, size_t key_len, void **value,
		   size_t *len)
{
	unsigned char *data = NULL;
	size_t size, off = sizeof(struct entry_header) + key_len;
	char file[32];
	int fd;

	*value = NULL;
	*len = 0;
	disk_cache_file_name(key, key_len, file);
	fd = openat(c->dir_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -ENOENT;
	if (read_entry_file(fd, &data, &size) || !entry_matches(data, size, key, key_len)) {
		free(data);
		close(fd);
		return -ENOENT;
	}
	(void)futimens(fd, NULL); /* recently used: pruned last */
	close(fd);
	/* the value moves to the start of the buffer, which the caller frees */
	memmove(data, data + off, size - off);
	*value = data;
	*len = size - off;
	return 0;
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

int disk_cache_put(struct disk_cache *c, const void *key, size_t key_len, const struct iovec *iov,
		   int n)
{
	static unsigned serial;
	struct entry_header h = { .version = ENTRY_VERSION, .key_len = (uint32_t)key_len };
	struct iovec all[MAX_PIECES + 2];
	char file[32], temp[64];
	int fd, err;

	if (n > MAX_PIECES || key_len > UINT32_MAX)
		return -EINVAL;
	memcpy(h.magic, ENTRY_MAGIC, sizeof(h.magic));
	all[0] = (struct iovec){ &h, sizeof(h) };
	all[1] = (struct iovec){ (void *)key, key_len };
	h.check = fnv1a(FNV1A_BASIS, key, key_len);
	for (int i = 0; i < n; i++) {
		all[2 + i] = iov[i];
		h.value_len += iov[i].iov_len;
		h.check = fnv1a(h.check, iov[i].iov_base, iov[i].iov_len);
	}
	disk_cache_file_name(key, key_len, file);
	snprintf(temp, sizeof(temp), TEMP_PREFIX "%d.%u", (int)getpid(),
		 __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED)); /* two threads may store */
	fd = openat(c->dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_all(fd, all, n + 2);
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && renameat(c->dir_fd, temp, c->dir_fd, file) != 0)
		err = -errno;
	if (err)
		(void)unlinkat(c->dir_fd, temp, 0);
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

void disk_cache_prune(struct disk_cache *c)
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
	for (i = 0; i < n && (total > DISK_CACHE_MAX_BYTES || n - i > DISK_CACHE_MAX_FILES); i++) {
		(void)unlinkat(c->dir_fd, v[i].name, 0);
		total -= (uint64_t)v[i].size;
	}
	free(v);
}

void disk_cache_free(struct disk_cache *c)
{
	if (!c)
		return;
	close(c->dir_fd);
	free(c);
}
