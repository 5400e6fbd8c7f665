/* safefile.c - symlink- and hard-link-safe writers (see safefile.h).
 *
 * Every check is made on what was actually opened (fstat of the fd, or of
 * the directory fd the file is then opened relative to), so a link planted
 * between a check and the open cannot slip through: the last component is
 * opened with O_NOFOLLOW, and a replaced file is a new O_EXCL file renamed
 * into place.  What remains racy is only the walk over the directories
 * above the parent, which catches a planted directory symlink.
 */
#include "util/safefile.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char safe_file_force_hint[] =
	"choose a path in a directory only root or you can write to, or pass --unsafe-paths "
	"to write it anyway";

static bool force_all;

void safe_file_set_force(bool force)
{
	force_all = force;
}

static bool trusted_uid(uid_t uid)
{
	const char *sudo = getenv("SUDO_UID");
	char *end;
	unsigned long v;

	if (uid == 0 || uid == geteuid() || uid == getuid())
		return true;
	if (!sudo || !*sudo)
		return false;
	errno = 0;
	v = strtoul(sudo, &end, 10);
	return !errno && !*end && v == (unsigned long)uid;
}

static int refuse(struct strbuf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		strbuf_vaddf(why, fmt, ap);
		va_end(ap);
	}
	return -WR_EUNSAFE;
}

static int sys_fail(struct strbuf *why, int err)
{
	if (why)
		strbuf_addstr(why, strerror(-err));
	return err;
}

/* Split @path into a directory (owned) and the last component (inside
 * @path).  "x" has the directory ".". */
static char *split_dir(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*base = path;
		return xstrdup(".");
	}
	*base = slash + 1;
	return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

/* A symbolic link on the way to @dir that another user owns could point
 * anywhere: refuse it. */
static int check_walk(const char *dir, struct strbuf *why)
{
	char *p = xstrdup(dir);
	struct stat st;
	int err = 0;

	for (char *s = strchr(p + 1, '/'); !err; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && !trusted_uid(st.st_uid))
			err = refuse(why, "%s is a symbolic link owned by uid %u, another user",
				     p, (unsigned)st.st_uid);
		if (!s)
			break;
		*s = '/';
	}
	free(p);
	return err;
}

/* Open the directory of @path (returned, caller closes) after checking
 * that no other user controls it; *base is the last component. */
static int open_parent(const char *path, const char **base, struct strbuf *why)
{
	char *dir = split_dir(path, base);
	struct stat st;
	int fd, err;

	if (!**base) {
		err = refuse(why, "the path names a directory, not a file");
		goto out;
	}
	err = check_walk(dir, why);
	if (err)
		goto out;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = sys_fail(why, -errno);
		goto out;
	}
	if (fstat(fd, &st) == 0 && !trusted_uid(st.st_uid)) {
		close(fd);
		err = refuse(why, "its directory %s belongs to uid %u, another user", dir,
			     (unsigned)st.st_uid);
		goto out;
	}
	err = fd;
out:
	free(dir);
	return err;
}

/* What makes an existing file unsafe to write as root. */
static int check_file(const struct stat *st, struct strbuf *why)
{
	if (S_ISLNK(st->st_mode))
		return refuse(why, "it is a symbolic link");
	if (!S_ISREG(st->st_mode))
		return refuse(why, "it is not a regular file");
	if (st->st_nlink > 1)
		return refuse(why, "it has %lu hard links: another name may be a file root must "
			      "not touch", (unsigned long)st->st_nlink);
	if (!trusted_uid(st->st_uid))
		return refuse(why, "it belongs to uid %u, another user", (unsigned)st->st_uid);
	return 0;
}

static int open_append_forced(const char *path, mode_t mode, struct strbuf *why)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, mode);

	return fd < 0 ? sys_fail(why, -errno) : fd;
}

int safe_file_open_append(const char *path, mode_t mode, unsigned flags, struct strbuf *why)
{
	const char *base;
	struct stat st;
	int dfd, fd, err;

	if ((flags & SAFE_FILE_FORCE) || force_all)
		return open_append_forced(path, mode, why);
	dfd = open_parent(path, &base, why);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
		    O_NONBLOCK, mode);
	err = fd < 0 ? -errno : 0;
	close(dfd);
	if (err == -ELOOP)
		return refuse(why, "it is a symbolic link");
	if (err)
		return sys_fail(why, err);
	err = fstat(fd, &st) ? sys_fail(why, -errno) : check_file(&st, why);
	if (!err && fcntl(fd, F_SETFL, O_APPEND) != 0)
		err = sys_fail(why, -errno);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int replace_forced(const char *path, const void *data, size_t len, mode_t mode,
			  struct strbuf *why)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, mode);
	int err;

	if (fd < 0)
		return sys_fail(why, -errno);
	err = write_all(fd, data, len);
	if (close(fd) != 0 && !err)
		err = -errno;
	return err ? sys_fail(why, err) : 0;
}

/* A new file beside @base in @dfd; its name goes to @tmp. */
static int create_temp(int dfd, const char *base, mode_t mode, struct strbuf *tmp)
{
	for (unsigned tries = 0; tries < 100; tries++) {
		struct timespec ts;
		int fd;

		clock_gettime(CLOCK_REALTIME, &ts);
		strbuf_reset(tmp);
		strbuf_addf(tmp, ".%s.%d.%lx.tmp", base, (int)getpid(),
			    (unsigned long)(ts.tv_nsec ^ (long)tries * 7919));
		fd = openat(dfd, tmp->buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* Write the new content under a temporary name, then rename it over
 * @base; an old file's owner and mode carry over. */
static int replace_at(int dfd, const char *base, const struct stat *old, const void *data,
		      size_t len, mode_t mode)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd = create_temp(dfd, base, mode, &tmp), err;

	if (fd < 0) {
		strbuf_release(&tmp);
		return fd;
	}
	err = write_all(fd, data, len);
	if (!err && old && (fchown(fd, old->st_uid, old->st_gid) != 0 ||
			    fchmod(fd, old->st_mode & 07777) != 0))
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && renameat(dfd, tmp.buf, dfd, base) != 0)
		err = -errno;
	if (err)
		unlinkat(dfd, tmp.buf, 0);
	strbuf_release(&tmp);
	return err;
}

int safe_file_replace(const char *path, const void *data, size_t len, mode_t mode,
		      unsigned flags, struct strbuf *why)
{
	const char *base;
	struct stat st;
	bool exists;
	int dfd, err;

	if ((flags & SAFE_FILE_FORCE) || force_all)
		return replace_forced(path, data, len, mode, why);
	dfd = open_parent(path, &base, why);
	if (dfd < 0)
		return dfd;
	exists = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	err = exists ? check_file(&st, why) : 0;
	if (!err && !exists && errno != ENOENT)
		err = sys_fail(why, -errno);
	if (!err) {
		err = replace_at(dfd, base, exists ? &st : NULL, data, len, mode);
		if (err)
			sys_fail(why, err);
	}
	close(dfd);
	return err;
}
