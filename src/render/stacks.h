/* stacks.h - stacks counted in the kernel (`count bt`) written out: as
 * folded stacks, as a pprof profile, and as a listing of the top stacks.
 *
 * Layer rule: render/.  Like the event renderer it looks nothing up
 * itself: frames are named through the front end's render_hooks, the
 * counts come from tracer/ as a struct stack_set.
 *
 * Frames are named as backtraces name them: each inlined call is a frame
 * of its own (unless the statement said `noinline`), functions that left
 * the stack by a tail call are recovered, a frame without a function is
 * `module+0xpc`, one in no known module `0xIP`.
 */
#ifndef WRAITH_RENDER_STACKS_H
#define WRAITH_RENDER_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct render_hooks;     /* render/render.h: names frames */
struct strbuf;
struct wr_count_stack;   /* protocol/wire.h: a stack the kernel counted */

/* One counted (probe, stack, key). */
struct stack_sample {
	unsigned probe;                     /* the user-visible probe number */
	const char *target;                 /* borrowed: the probe's pattern */
	const char *key_text;               /* borrowed: KEY as written, NULL without one */
	int64_t key;
	uint64_t count;
	uint64_t stack_id;
	const struct wr_count_stack *stack; /* borrowed; NULL when its frames were not kept */
};

/* Every counted stack of a session at one moment. */
struct stack_set {
	struct stack_sample *v;  /* owned array; most counted first */
	size_t n;
	uint64_t total;          /* sum of the counts */
	uint64_t dropped;        /* hits not counted: the maps were full */
	uint64_t start_ns;       /* wall clock (ns since the epoch) when counting began */
	uint64_t duration_ns;    /* how long it has run */
};

void stack_set_release(struct stack_set *set);

/* Folded stacks, the input of flamegraph.pl, inferno and speedscope: one
 * line per distinct stack, `KEY;outermost;...;innermost COUNT`, where the
 * first element is `KEYTEXT=VALUE` for stacks counted with a KEY, and a
 * stack the walk did not finish starts with a frame saying why,
 * `[stopped: truncated]`; equal lines (from several probes) are merged;
 * sorted.  Appends to @out. */
void stacks_write_folded(const struct stack_set *set, const struct render_hooks *hooks,
			 struct strbuf *out);

/* The set as a gzip-compressed pprof profile (profile.proto): one sample
 * per (probe, stack, key) with string labels "probe" ("#1 leaf") and,
 * with a KEY, the key's text and its value in decimal; a stack the walk
 * did not finish has an outermost location whose function says why
 * (`[stopped: truncated]`), as folded stacks have.  Appends the bytes to @out.  Returns 0, or -WR_ENOMEM
 * when compression failed. */
int stacks_write_pprof(const struct stack_set *set, const struct render_hooks *hooks,
		       struct strbuf *out);

/* The version of the stack lines, as doc/event.schema.json has it. */
#define STACKS_JSON_VERSION 1

/* One NDJSON object per stack: {"type":"stack", "version", "probe",
 * "target", "key_expr" and "key" (with a KEY), "count", "share", "status",
 * "status_code", "error", "error_code" (how the walk ended; null when the
 * stack was not kept), "frames": [names, innermost first]}.  Appends to
 * @out. */
void stacks_write_json(const struct stack_set *set, const struct render_hooks *hooks,
		       struct strbuf *out);

/* The @max most counted stacks as text: a summary line, then per stack
 * its count, share and frames, innermost first.  Appends to @out. */
void stacks_write_top(const struct stack_set *set, const struct render_hooks *hooks, size_t max,
		      struct strbuf *out);

/* ---- rows of a live view of the counted stacks ---- */

enum stacks_order {
	STACKS_BY_COUNT, /* most counted first */
	STACKS_BY_NAME,  /* by function names, innermost frame first */
};

/* One row: a counted stack, or with collapsing, every stack whose frames
 * name the same functions. */
struct stack_row {
	uint64_t count;
	int status;            /* enum wr_bt_status of its stacks; -1 when unknown */
	unsigned probe;        /* 0: merged from several probes */
	const char *target;    /* borrowed from the set's samples; NULL when merged */
	const char *key_text;  /* borrowed; NULL without a KEY or when merged */
	int64_t key;
	size_t merged;         /* how many counted stacks the row adds up */
	char *frames;          /* owned: the names, innermost first, one per line */
};

struct stack_rows {
	struct stack_row *v;   /* owned */
	size_t n;
	uint64_t total, dropped;
};

/* The rows of @set in @order; with @collapse, stacks whose frames are the
 * same functions are one row (their counts added up; lines, addresses,
 * probes and keys ignored: a frame without a function counts as its
 * module).  Frames are named as stacks_write_top() names them.  Replaces
 * @out's rows. */
void stack_rows_build(const struct stack_set *set, const struct render_hooks *hooks,
		      enum stacks_order order, bool collapse, struct stack_rows *out);
void stack_rows_release(struct stack_rows *rows);

#endif
