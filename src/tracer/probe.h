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

struct probe;

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
/* The pattern with wildcards @p is one function of (`do_item_*`), or NULL. */
const char *probe_pattern(const struct probe *p);
/* The probe as a script: `trace PATTERN { BODY }` (what `save` writes). */
const char *probe_source(const struct probe *p);
/* False while `disable`d. */
bool probe_enabled(const struct probe *p);
size_t probe_site_count(const struct probe *p);
/* The source file of site @i (< probe_site_count), its line in *@line;
 * NULL when the site has no line information. */
const char *probe_site_file(const struct probe *p, size_t i, unsigned *line);
/* What @p's events said (`diag`, `info probes`): how many were rendered,
 * how many backtraces they held, and how many stacks its `count bt`
 * counted in the kernel (as of the last session_read_counted()). */
uint64_t probe_events(const struct probe *p);
uint64_t probe_backtraces(const struct probe *p);
uint64_t probe_counted(const struct probe *p);

/* One way @p's walks ended: a status (complete, truncated, ...) or an
 * error code that ended one early, by its number and label as
 * doc/status-codes.md gives them (render/status.h), and how many of the
 * backtraces of @p's events and of the stacks it counted ended so. */
struct probe_bt_end {
	unsigned number;
	const char *label;          /* static */
	const char *explain;        /* static */
	uint64_t count;
};
#define PROBE_BT_ENDS_MAX 16
/* The statuses @p's walks ended with, in their order, and complete even
 * when none did; into @out (room for PROBE_BT_ENDS_MAX).  Returns how
 * many. */
size_t probe_bt_statuses(const struct probe *p, struct probe_bt_end *out);
/* The error codes that ended @p's walks early, likewise (none: 0). */
size_t probe_bt_errors(const struct probe *p, struct probe_bt_end *out);
/* How many of @p's walks reached the depth limit (status truncated). */
uint64_t probe_bt_truncated(const struct probe *p);
/* The places where its backtraces stopped early, in the order first seen;
 * the count in *@n. */
const struct stop_place *probe_stop_places(const struct probe *p, size_t *n);

#endif
