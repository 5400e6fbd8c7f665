/* probe.h - what a front end may know of a probe.
 *
 * Layer rule: tracer/.  A probe is opaque outside tracer/ (its struct is
 * in session_priv.h); front ends find probes through session.h and read
 * them with these accessors, so the bookkeeping behind them can change
 * without touching ui/ or src/frontend/.
 *
 * A user-level probe (`trace leaf { ... }`, id 1, 2, ...) has one site per
 * resolved address: every inlined copy of a function is a site.  Strings
 * and arrays returned here are borrowed: valid until the probe is deleted
 * (session_delete(), session_free()), and counters and stop places until
 * the next session_poll().
 */
#ifndef WRAITH_TRACER_PROBE_H
#define WRAITH_TRACER_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire.h"

struct probe;

/* Counters behind `diag` and `info probes`: of the backtraces that came
 * in events, and of the stacks `count bt` counted in the kernel (as of
 * the last session_read_counted()). */
struct probe_counts {
	uint64_t events;
	uint64_t backtraces;
	uint64_t by_status[WR_BT_STATUS_COUNT_];
	uint64_t by_error[WR_BTE_COUNT_];
	uint64_t counted;
	uint64_t counted_by_status[WR_BT_STATUS_COUNT_];
	uint64_t counted_by_error[WR_BTE_COUNT_];
};

/* Where a backtrace stopped early, with how often and one sample. */
struct stop_place {
	uint64_t cookie;
	uint64_t pc;
	uint8_t status;
	uint16_t error;
	bool exact;                 /* pc is exact (frame 0 or after a signal), not a return address */
	uint64_t count;
	char *sample;               /* owned by the probe: plain text of the first such event */
};

/* The user-visible number (1, 2, ...). */
unsigned probe_id(const struct probe *p);
/* The pattern as written: "leaf", "chain.c:12". */
const char *probe_target(const struct probe *p);
/* The probe as a script: `trace PATTERN { BODY }` (what `save` writes). */
const char *probe_source(const struct probe *p);
/* False while `disable`d. */
bool probe_enabled(const struct probe *p);
size_t probe_site_count(const struct probe *p);
/* The source file of site @i (< probe_site_count), its line in *@line;
 * NULL when the site has no line information. */
const char *probe_site_file(const struct probe *p, size_t i, unsigned *line);
const struct probe_counts *probe_counts(const struct probe *p);
/* The places where its backtraces stopped early, in the order first seen;
 * the count in *@n. */
const struct stop_place *probe_stop_places(const struct probe *p, size_t *n);

#endif
