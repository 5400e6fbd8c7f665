/* cfi.h - compact unwind rows extracted from .eh_frame / .debug_frame.
 *
 * Layer rule: unwind/ holds the unwinder: these rows, the step the BPF
 * templates share (step.h), the walks finished in userspace (walk.h) and
 * every register of a frame for frame values (frame.h).  It depends on
 * util/, the wire layouts in protocol/wire.h (struct wr_cfi_row, struct
 * wr_cfi_rule) and dwarf/ (modules, and their CFI through
 * dwarf/module_cfi.h); with dwarf/ it is the only folder that includes
 * elfutils headers, and only for CFI.  It never includes libbpf: runtime/
 * puts the rows in the kernel.
 *
 * Every FDE's CFA program is executed once, start to end, emitting a row at
 * each location change; rows are sorted by pc, adjacent rows with the same
 * rule are merged, and a gap row (rule WR_CFI_RULE_NONE) closes every range
 * no FDE covers.  Rules are interned in a deduplicated table per module
 * (struct cfi_rules), which becomes that module's rule map in the kernel;
 * its rows index it.
 * Rules that do not fit the compact kinds (DWARF expressions, CFA in another
 * register, offsets beyond the field widths) become WR_ROW_UNSUPPORTED rows;
 * the glibc signal trampoline pattern becomes WR_ROW_SIGNAL.
 * When both sections exist, .eh_frame wins and .debug_frame fills only pcs
 * .eh_frame does not cover.
 */
#ifndef WRAITH_UNWIND_CFI_H
#define WRAITH_UNWIND_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/wire.h"
#include "util/htab.h"

struct dw_module;
struct strbuf;

#define CFI_RULES_RECENT 1024

/* A module's deduplicated rules. */
struct cfi_rules {
	struct wr_cfi_rule *v; /* owned */
	size_t n;
	size_t cap;
	struct htab index;     /* a rule's bytes (keys in v) -> its index */
	/* In front of the index: index + 1 of a recent rule by a hash of its
	 * bytes (0: none).  A big library's million rows use a few hundred
	 * rules, so most lookups end here. */
	uint32_t recent[CFI_RULES_RECENT];
};

void cfi_rules_init(struct cfi_rules *r);
void cfi_rules_release(struct cfi_rules *r);
/* Index of @rule in @r, adding it if new. */
uint32_t cfi_rules_intern(struct cfi_rules *r, const struct wr_cfi_rule *rule);

struct cfi_stats {
	size_t fdes;
	size_t rows_raw;         /* rows before merging */
	size_t rows;             /* rows after merging (gap rows included) */
	size_t unsupported_rows;
	size_t signal_rows;
	double seconds;          /* extraction wall time */
};

/* The rows of one module. */
struct cfi_table {
	struct wr_cfi_row *rows; /* owned, sorted by pc */
	size_t n;
	size_t cap;
	struct cfi_stats stats;
	const char *source;      /* static: ".eh_frame", ".debug_frame", "both" or "none" */
};

void cfi_table_init(struct cfi_table *t);
void cfi_table_release(struct cfi_table *t);

/* Extract the rows of @m into @out, interning rules into @rules.  A module
 * with no CFI at all yields 0 rows and returns 0.  Returns 0 or -errno /
 * -WR_EDWARF on malformed CFI (what was read before the error is kept). */
int cfi_table_extract(struct dw_module *m, struct cfi_rules *rules, struct cfi_table *out);

/* cfi_table_extract() in two steps, so the slow one can run on another
 * thread: cfi_sources_open() finds @m's CFI sections (libelf, libdwfl: on
 * the thread that uses @m); cfi_sources_extract() then reads only their
 * bytes and @m's segment table, and may run on any one thread while the
 * first goes on using @m, as long as nothing closes @m or frees the
 * sources.  Never NULL; cfi_sources_close(NULL) is a no-op. */
struct cfi_sources;
struct cfi_sources *cfi_sources_open(struct dw_module *m);
int cfi_sources_extract(struct cfi_sources *src, struct cfi_rules *rules, struct cfi_table *out);
void cfi_sources_close(struct cfi_sources *src);
/* Bytes of CFI found: how long extraction will take. */
size_t cfi_sources_size(const struct cfi_sources *src);

/* Index of the row covering @pc, or -1 (no row, or a gap row). */
long cfi_table_lookup(const struct cfi_table *t, uint64_t pc);

/* Human-readable rule, e.g. "cfa=rsp+16 ra=c-8 rbp=c-16", matching the
 * notation of `readelf --debug-dump=frames-interp`. */
void cfi_rule_format(const struct wr_cfi_rule *rule, struct strbuf *out);

/* Dump rows (all when @pc is UINT64_MAX, else the row covering @pc) one per
 * line: "0x<start>-0x<end> <rule>". */
void cfi_table_dump(const struct cfi_table *t, const struct cfi_rules *rules, uint64_t pc,
		    struct strbuf *out);

#endif
