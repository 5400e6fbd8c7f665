/* report.c - what script mode and --batch say at the end of a run (see
 * cli.h): a line per probe with where its hits went, and the stacks that
 * `count bt` counted, as files or on stdout.
 */
#include "frontend/cli.h"
#include "render/stacks.h"
#include "tracer/session.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TOP_STACKS 20

static void summary_line(struct session *s, struct probe *p, struct strbuf *out)
{
	uint64_t events = probe_events(p);
	struct session_probe_stats st;

	session_probe_stats(s, p, &st);
	strbuf_addf(out, "wraith: #%u %s: %" PRIu64 " hit%s, %" PRIu64 " delivered, %" PRIu64
		    " filtered, %" PRIu64 " lost", probe_id(p), probe_target(p), (uint64_t)st.hits,
		    st.hits == 1 ? "" : "s", events, (uint64_t)st.filtered, (uint64_t)st.lost);
	if (st.truncated)
		strbuf_addf(out, ", %" PRIu64 " cut short", (uint64_t)st.truncated);
	/* Hits whose events were still in the buffer when the run ended
	 * (--max-events, a signal); a probe that counts stacks sends no
	 * event for its counted hits, so it is not said there. */
	if (!st.counted && !st.count_dropped &&
	    st.hits > events + st.filtered + st.lost)
		strbuf_addf(out, ", %" PRIu64 " not read (the run ended first)",
			    (uint64_t)(st.hits - events - st.filtered - st.lost));
	if (st.counted || st.count_dropped)
		strbuf_addf(out, "; %" PRIu64 " stacks counted, %" PRIu64 " not (maps full)",
			    (uint64_t)st.counted, (uint64_t)st.count_dropped);
	strbuf_addch(out, '\n');
}

/* Say that @n functions of @pattern had no hits, when any did not. */
static void quiet_functions(const char *pattern, size_t *n, struct strbuf *out)
{
	if (*n)
		strbuf_addf(out, "wraith: %s: %zu %sfunction%s of the pattern had no hits\n", pattern, *n,
			    *n == 1 ? "" : "other ", *n == 1 ? "" : "s");
	*n = 0;
}

void cli_report_summary(const struct cli_options *o, struct session *s)
{
	struct strbuf out = STRBUF_INIT;
	bool lost = false;
	struct probe *p;

	const char *pattern = NULL;
	size_t quiet = 0;

	session_for_each_probe(p, s) {
		struct session_probe_stats st;

		session_probe_stats(s, p, &st);
		lost |= st.lost || st.count_dropped;
		/* The functions of one pattern that never fired are counted,
		 * not listed: a pattern may name hundreds. */
		if (pattern && (!probe_pattern(p) || strcmp(pattern, probe_pattern(p))))
			quiet_functions(pattern, &quiet, &out);
		pattern = probe_pattern(p);
		if (pattern && !st.hits)
			quiet++;
		else
			summary_line(s, p, &out);
	}
	if (pattern)
		quiet_functions(pattern, &quiet, &out);
	if (!o->quiet || lost)
		fputs(out.buf, stderr);
	strbuf_release(&out);
}

/* ---- counted stacks ---- */

static int write_file(const char *path, const struct strbuf *data)
{
	int fd = strcmp(path, "-") ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
				   : STDOUT_FILENO;
	size_t done = 0;
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fd == STDOUT_FILENO)
		fflush(stdout);
	while (done < data->len && !err) {
		ssize_t n = write(fd, data->buf + done, data->len - done);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (fd != STDOUT_FILENO && close(fd) && !err)
		err = -errno;
	return err;
}

static int write_stacks_file(struct session *s, const struct stack_set *set,
			     enum stacks_format fmt, const char *path)
{
	struct strbuf out = STRBUF_INIT;
	int err = session_stacks_write(s, set, fmt, 0, &out);

	if (!err)
		err = write_file(path, &out);
	if (err)
		fprintf(stderr, "wraith: cannot write the counted stacks to %s: %s\n", path,
			strerror(err < 0 && err > -4096 ? -err : EIO));
	strbuf_release(&out);
	return err ? 1 : 0;
}

int cli_write_stacks(const struct cli_options *o, struct session *s)
{
	struct strbuf out = STRBUF_INIT;
	struct stack_set set;
	int rc = 0;

	if (!session_counts_stacks(s))
		return 0;
	if (session_stacks(s, &set)) {
		fprintf(stderr, "wraith: cannot read the counted stacks from the kernel\n");
		return 1;
	}
	if (o->folded_file)
		rc |= write_stacks_file(s, &set, STACKS_FOLDED, o->folded_file);
	if (o->pprof_file)
		rc |= write_stacks_file(s, &set, STACKS_PPROF, o->pprof_file);
	if (!o->folded_file && !o->pprof_file) {
		session_stacks_write(s, &set, o->format == RENDER_JSON ? STACKS_JSON : STACKS_TOP,
				     TOP_STACKS, &out);
		fflush(stdout);
		fputs(out.buf, stdout);
		fflush(stdout);
	}
	strbuf_release(&out);
	stack_set_release(&set);
	return rc;
}
