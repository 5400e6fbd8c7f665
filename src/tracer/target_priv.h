/* target_priv.h - what the files of the target share (tracer/target*.c);
 * nothing outside them includes it.
 *
 * target.c keeps processes, modules and mappings and the kernel's copy of
 * them; target_frames.c turns backtrace frames into names (symbols, tail
 * calls) and finishes the walks the kernel hands over; target_libs.c finds
 * libraries a process has not loaded yet.
 */
#ifndef WRAITH_TRACER_TARGET_PRIV_H
#define WRAITH_TRACER_TARGET_PRIV_H

#include "tracer/target.h"

/* Bring the mappings of @pid up to date now (adding the process when -t
 * sees it for the first time) and install them.  Returns it, or NULL. */
struct tprocess *target_refresh_process(struct target *t, pid_t pid);

/* The module of file (@dev, @ino), or NULL. */
struct tmodule *target_module_by_identity(struct target *t, uint64_t dev, uint64_t ino);

/* Add the module @path, opened through @open_path (taken over), unless the
 * file (@dev, @ino) is known already (*@out is then that module).
 * Returns 0 or a negative error. */
int target_add_module(struct target *t, const char *path, char *open_path, uint64_t dev,
		      uint64_t ino, struct tmodule **out);

/* Stop the loader thread of target_load_cfi_start() after the module it
 * is reading, and wait for it (target_free()). */
void target_load_cfi_stop(struct target *t);

/* target_install(): mark deferred the big modules the loader has not
 * finished (see target_cfi.c); how many. */
size_t target_cfi_defer(struct target *t);
/* Are @m's rows read, so that loading them does not wait? */
bool target_cfi_ready(struct target *t, const struct tmodule *m);
/* Join the loader once the last deferred module is in (it is done, or
 * about to be). */
void target_cfi_join_late(struct target *t);

#endif
