/* textfile.c - bounded reading of user-named text files (see textfile.h). */
#include "util/textfile.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* O_NONBLOCK: opening a FIFO must not wait for a writer before fstat()
 * can tell it is not a file. */
static int open_regular(const char *path, struct strbuf *why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;

	if (fd < 0) {
		strbuf_addstr(why, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return fd;
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		strbuf_addstr(why, "it is a directory, not a file");
		return -EISDIR;
	}
	strbuf_addstr(why, "it is not a regular file (a FIFO, device or socket could block or "
		      "never end)");
	return -WR_ENOTREG;
}

/* Read at most @max bytes; one more means the file is too big. */
static int read_capped(int fd, size_t max, struct strbuf *sb, struct strbuf *why)
{
	char buf[8192];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			strbuf_addstr(why, strerror(errno));
			return -errno;
		}
		if (n == 0)
			return 0;
		if (sb->len + (size_t)n > max) {
			strbuf_addf(why, "it is larger than %zu bytes, the most wraith reads", max);
			return -EFBIG;
		}
		strbuf_add(sb, buf, (size_t)n);
	}
}

/* A NUL byte would end the text silently where the parser stops: point at it. */
static int check_nul(const char *path, const struct strbuf *sb, struct strbuf *why)
{
	const char *nul = memchr(sb->buf, '\0', sb->len), *line;
	struct diag d = { 0 };
	unsigned lineno = 1;

	if (!nul)
		return 0;
	line = sb->buf;
	for (const char *p = sb->buf; p < nul; p++)
		if (*p == '\n') {
			lineno++;
			line = p + 1;
		}
	diag_set(&d, (struct src_loc){ lineno, (unsigned)(nul - line) + 1, 1 },
		 "a script is text: is this the right file?", "NUL byte in the file");
	diag_render(&d, path, sb->buf, why);
	diag_release(&d);
	strbuf_setlen(why, why->len ? why->len - 1 : 0); /* one trailing newline less */
	return -WR_ESYNTAX;
}

int text_file_read(const char *path, size_t max, char **out, struct strbuf *why)
{
	struct strbuf sb = STRBUF_INIT;
	int fd = open_regular(path, why), err;

	*out = NULL;
	if (fd < 0)
		return fd;
	err = read_capped(fd, max, &sb, why);
	close(fd);
	if (!err)
		err = check_nul(path, &sb, why);
	if (err) {
		strbuf_release(&sb);
		return err;
	}
	*out = strbuf_detach(&sb);
	return 0;
}
