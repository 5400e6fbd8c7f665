/* textfile.h - reading a script or command file that a user named.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 * The name may point at anything: a directory, a FIFO or /dev/zero (which
 * would block or never end), a huge file, or binary data.  Only regular
 * files are read, up to a cap, and a NUL byte is a located error rather
 * than the silent end of the text.
 */
#ifndef WRAITH_UTIL_TEXTFILE_H
#define WRAITH_UTIL_TEXTFILE_H

#include <stddef.h>

struct strbuf;

/* The largest script or command file wraith reads (documented in
 * wraith(1) and doc/script-reference.md). */
#define TEXT_FILE_MAX ((size_t)4 << 20)
#define TEXT_FILE_MAX_TEXT "4 MiB"

/* Read the regular file @path, at most @max bytes, into a new string
 * (caller frees).  Returns 0, or -EISDIR, -WR_ENOTREG, -EFBIG,
 * -WR_ESYNTAX (a NUL byte) or another -errno, with *out NULL and the
 * reason appended to @why: one sentence, or for a NUL byte a located
 * diagnostic (PATH:LINE:COL, source line, caret). */
int text_file_read(const char *path, size_t max, char **out, struct strbuf *why);

#endif
