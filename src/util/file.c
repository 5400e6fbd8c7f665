/* file.c - reading a whole file into memory (see file.h).
 *
 * It reads until end of file rather than trusting st_size, because /proc
 * files say 0 and grow while they are read.
 */
#include "util/file.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int file_read(const char *path, char **out, size_t *len)
{
	size_t n = 0, cap = 4096;
	char *buf;
	int fd, err = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap)
			buf = xgrow(buf, &cap, cap + 1, 1);
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out_free;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	close(fd);
	return 0;

out_free:
	free(buf);
	close(fd);
	return err;
}
