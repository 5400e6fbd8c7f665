/* recover.h - values a probe could not read, read again where they cannot
 * have changed since the hit.
 *
 * bpf_probe_read_user cannot fault a page in, so a library's read-only
 * data that the program has not touched yet (a const array, the string a
 * pointer points to) comes back as a read error.  Before an event is
 * rendered, each such read whose address lies in a private read-only
 * mapping of a file (proc/stable.h) is made again with process_vm_readv,
 * with the probe's own length limits, and the event then shows the bytes
 * as if the probe had read them.  Writable memory is never read again: it
 * may hold a later value than the hit's.
 *
 * Layer rule: tracer/ may use proc/ and protocol/.
 */
#ifndef WRAITH_TRACER_RECOVER_H
#define WRAITH_TRACER_RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/decode.h"

struct proc_stable_cache;

struct read_recovery {
	struct proc_stable_cache *cache; /* owned; made on first use */
	uint8_t **bufs;                  /* owned: bytes read for the last event */
	size_t n_bufs, cap_bufs;
	uint64_t recovered;              /* reads made good so far */
};

/* Read again what @ev's probe failed to read, where allowed; the event's
 * arguments then point into buffers @r owns until the next call. */
void recover_reads(struct read_recovery *r, struct event *ev);
void recover_release(struct read_recovery *r);

#endif
