/* safefile.h - writing files as root without being tricked into writing
 * somewhere else.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 * wraith runs as root, but the paths it writes to (`save FILE`,
 * --log-file, the shell history) often lie in directories other users can
 * write to: their $HOME under `sudo -E`, /tmp, a shared directory.  A
 * plain open() there lets such a user point the name at any file on the
 * system with a symbolic or hard link, and root then truncates, appends
 * to or chmods that file.  These writers therefore:
 *   - never follow a symbolic link as the last component (O_NOFOLLOW) and
 *     refuse a last component that is one;
 *   - refuse a file that is not regular, has more than one hard link, or
 *     belongs to another non-root user;
 *   - refuse a path whose directory (or a symbolic link on the way to it)
 *     belongs to another non-root user;
 *   - replace files by writing a new file (O_EXCL) beside them and renaming
 *     it over the old one, so a link swapped in meanwhile is replaced, not
 *     written through;
 *   - create new files with the mode given (0600 for logs and history).
 * "Another user" is anyone but root, the effective and real user and, when
 * root runs wraith through sudo, the user in $SUDO_UID.
 *
 * Forcing (SAFE_FILE_FORCE, or safe_file_set_force() for the whole
 * process: the --unsafe-paths option) skips every check and opens the path
 * the ordinary way, following links.
 */
#ifndef WRAITH_UTIL_SAFEFILE_H
#define WRAITH_UTIL_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct strbuf;

enum safe_file_flags {
	SAFE_FILE_FORCE = 1 << 0,  /* no checks: follow links, write in place */
};

/* Make every later call behave as if SAFE_FILE_FORCE were given. */
void safe_file_set_force(bool force);

/* Open @path for appending, creating it with @mode if it does not exist.
 * Returns an fd (caller closes) or a negative code: -WR_EUNSAFE when a
 * check refused the path, else -errno.  On failure @why (may be NULL)
 * receives one sentence saying why, without the path's prefix. */
int safe_file_open_append(const char *path, mode_t mode, unsigned flags, struct strbuf *why);

/* Replace @path with @len bytes of @data: a new file of @mode (or the old
 * file's owner and mode when it existed) renamed over it.  Returns 0, or a
 * code and @why as safe_file_open_append(). */
int safe_file_replace(const char *path, const void *data, size_t len, mode_t mode,
		      unsigned flags, struct strbuf *why);

/* The hint every refusal ends with: how to force the write. */
extern const char safe_file_force_hint[];

#endif
