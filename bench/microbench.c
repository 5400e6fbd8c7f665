/* microbench.c - user-space costs of wraith's DWARF layer, measured on real
 * modules: CFI row extraction and PC symbolization.
 *
 * It links libwraith.a and calls the same functions a session calls:
 * dw_module_open(), cfi_table_extract() and dw_symbolize().  Each
 * measurement opens the module afresh, so nothing cached by a previous
 * repetition is reused.  Output is one line per repetition of
 * "key=value" pairs for bench/run.py to parse; nothing is summarized here.
 * A cfi line also says whether libdw's debuginfod client is mapped by then
 * (its first load is part of the first extraction's time).
 *
 *   microbench cfi REPS PATH...    extraction time, rows, rules, FDEs
 *   microbench sym REPS K PATH     first use, K cold pcs, the same K warm
 *
 * The pcs to symbolize are the start addresses of the module's own CFI
 * rows (instruction boundaries inside functions), spread evenly over the
 * module.  A warm pass repeats the cold pcs WARM_PASSES times.
 */
#include "dwarf/module.h"
#include "dwarf/symbolize.h"
#include "unwind/cfi.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM_PASSES 20

/* True when libdw has loaded its debuginfod client into this process: it
 * does so on the first debug-info search, with ~30 libraries behind it. */
static int debuginfod_mapped(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "libdebuginfod") != NULL;
	fclose(f);
	return found;
}

static int open_module(const char *path, struct dw_module **out)
{
	int err = dw_module_open(path, out);

	if (err)
		fprintf(stderr, "microbench: cannot open %s: %s\n", path, wr_strerror(err));
	return err;
}

/* One extraction of @path; prints its line.  Returns 0 or a negative error. */
static int cfi_once(const char *path, int rep)
{
	struct cfi_rules rules;
	struct cfi_table t;
	struct dw_module *m;
	double t0, t1, t2;
	int err;

	t0 = now_seconds();
	err = open_module(path, &m);
	if (err)
		return err;
	cfi_rules_init(&rules);
	cfi_table_init(&t);
	t1 = now_seconds();
	err = cfi_table_extract(m, &rules, &t);
	t2 = now_seconds();
	if (!err)
		printf("cfi rep=%d path=%s open_s=%.6f extract_s=%.6f rows=%zu rules=%zu fdes=%zu "
		       "rows_raw=%zu unsupported=%zu signal=%zu source=%s debuginfod=%d\n",
		       rep, path, t1 - t0, t2 - t1, t.n, rules.n, t.stats.fdes, t.stats.rows_raw,
		       t.stats.unsupported_rows, t.stats.signal_rows, t.source, debuginfod_mapped());
	else
		fprintf(stderr, "microbench: %s: %s\n", path, wr_strerror(err));
	cfi_table_release(&t);
	cfi_rules_release(&rules);
	dw_module_free(m);
	return err;
}

/* Up to @k distinct row start pcs of @m, evenly spread; caller frees. */
static uint64_t *pick_pcs(struct dw_module *m, size_t k, size_t *n_out)
{
	struct cfi_rules rules;
	struct cfi_table t;
	uint64_t *pcs = xcalloc(k ? k : 1, sizeof(*pcs));
	size_t n = 0, usable = 0;

	cfi_rules_init(&rules);
	cfi_table_init(&t);
	cfi_table_extract(m, &rules, &t);
	for (size_t i = 0; i < t.n; i++)
		usable += t.rows[i].rule != WR_CFI_RULE_NONE;
	for (size_t i = 0, seen = 0; i < t.n && n < k; i++) {
		if (t.rows[i].rule == WR_CFI_RULE_NONE)
			continue;
		/* Take row number `seen` when it crosses the next k-quantile. */
		if (usable <= k || (seen * k) / usable != ((seen + 1) * k) / usable)
			pcs[n++] = t.rows[i].pc;
		seen++;
	}
	cfi_table_release(&t);
	cfi_rules_release(&rules);
	*n_out = n;
	return pcs;
}

/* Symbolize @pcs once each; returns the frames produced (inline ones
 * included) and adds the named ones to *named. */
static size_t sym_pass(struct dw_module *m, const uint64_t *pcs, size_t n, size_t *named)
{
	size_t frames = 0;

	for (size_t i = 0; i < n; i++) {
		struct dw_sym sym;

		dw_symbolize(m, pcs[i], &sym);
		frames += sym.n;
		*named += sym.frames[sym.n - 1].function != NULL;
	}
	return frames;
}

static int sym_once(const char *path, size_t k, int rep)
{
	size_t n, named = 0, frames, warm_named = 0;
	struct dw_module *m;
	double t0, t1, t2, t3;
	uint64_t *pcs;
	int err;

	err = open_module(path, &m);
	if (err)
		return err;
	pcs = pick_pcs(m, k, &n);
	if (n < 2) {
		fprintf(stderr, "microbench: %s: too few pcs to symbolize\n", path);
		err = -WR_EDWARF;
		goto out_free;
	}
	t0 = now_seconds();
	frames = sym_pass(m, pcs, 1, &named);
	t1 = now_seconds();
	frames += sym_pass(m, pcs + 1, n - 1, &named);
	t2 = now_seconds();
	for (int pass = 0; pass < WARM_PASSES; pass++)
		sym_pass(m, pcs, n, &warm_named);
	t3 = now_seconds();
	printf("sym rep=%d path=%s pcs=%zu frames=%zu named=%zu first_s=%.6f cold_s=%.6f "
	       "warm_lookups=%zu warm_s=%.6f dwarf=%d\n",
	       rep, path, n, frames, named, t1 - t0, t2 - t1, n * WARM_PASSES, t3 - t2,
	       (int)dw_module_has_dwarf(m));
out_free:
	free(pcs);
	dw_module_free(m);
	return err;
}

static int usage(void)
{
	fprintf(stderr, "usage: microbench cfi REPS PATH...\n"
			"       microbench sym REPS K PATH\n");
	return 2;
}

int main(int argc, char **argv)
{
	int reps, err = 0;

	if (argc < 4)
		return usage();
	reps = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "cfi") == 0) {
		for (int r = 0; r < reps && !err; r++)
			for (int i = 3; i < argc && !err; i++)
				err = cfi_once(argv[i], r);
	} else if (strcmp(argv[1], "sym") == 0 && argc == 5) {
		for (int r = 0; r < reps && !err; r++)
			err = sym_once(argv[4], (size_t)atol(argv[3]), r);
	} else {
		return usage();
	}
	return err ? 1 : 0;
}
