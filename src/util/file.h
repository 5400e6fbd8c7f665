/* file.h - reading a whole file into memory.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 */
#ifndef WRAITH_UTIL_FILE_H
#define WRAITH_UTIL_FILE_H

#include <stddef.h>

/* Read all of @path into a new NUL-terminated string (*@out, caller
 * frees), its length in *@len (may be NULL).  Works for files whose size
 * the kernel does not know in advance (/proc).  Returns 0 or -errno, with
 * *@out NULL. */
int file_read(const char *path, char **out, size_t *len);

#endif
