/* buildid.h - GNU build-ids of the running wraith and the running kernel:
 * what caches kept between runs are keyed by (util/diskcache.h).
 *
 * Layer rule: util/ depends on nothing else in wraith.
 */
#ifndef WRAITH_UTIL_BUILDID_H
#define WRAITH_UTIL_BUILDID_H

#include <stddef.h>

/* The build-id of the running executable (the first object
 * dl_iterate_phdr() reports): *@id borrowed (static), *@len its length.
 * Returns 0, or -ENOENT when it has none. */
int build_id_self(const unsigned char **id, size_t *len);

/* The running kernel's build-id, from the notes in /sys/kernel/notes:
 * as build_id_self().  Returns 0, or -ENOENT (no note, or no file). */
int build_id_kernel(const unsigned char **id, size_t *len);

/* The build-id in the ELF notes @notes[0..@size) (the contents of a
 * PT_NOTE segment or SHT_NOTE section): *@id points into @notes.
 * Returns 0 or -ENOENT. */
int build_id_in_notes(const void *notes, size_t size, const unsigned char **id, size_t *len);

#endif
