/* session_types.h - the plain values a front end hands a session and gets
 * back: the buffer events travel in and a probe's counters in the kernel.
 *
 * Layer rule: tracer/, for front ends.  It depends on nothing, so a front
 * end that includes it (or session.h) sees neither the wire format
 * (protocol/wire.h) nor the stages behind the session; the session turns
 * these into the wire's own values.
 */
#ifndef WRAITH_TRACER_SESSION_TYPES_H
#define WRAITH_TRACER_SESSION_TYPES_H

#include <stdint.h>

/* How events travel from the kernel (--transport). */
enum session_transport {
	SESSION_TRANSPORT_RINGBUF,  /* the BPF ring buffer */
	SESSION_TRANSPORT_PERF,     /* the perf buffer (older kernels, --perf-buffer) */
};

/* Kernel-side counters of a probe, summed over its sites. */
struct session_probe_stats {
	uint64_t hits;
	uint64_t lost;              /* not sent: the buffer was full */
	uint64_t truncated;         /* sent cut short: the event did not fit */
	uint64_t bt_errors;         /* the unwinder's tail call failed or its state was missing */
	uint64_t filtered;          /* the probe's conditions chose to send nothing */
	uint64_t counted;           /* `count bt` stacks counted */
	uint64_t count_dropped;     /* `count bt` stacks not counted: the stack maps were full */
};

#endif
