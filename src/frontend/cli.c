/* cli.c - what script mode and --batch share (see cli.h): the session
 * with stdout as its sink, the event loop with its stop conditions
 * (--max-events, --timeout, SIGINT/SIGTERM, the traced process's end),
 * the final report of lost events, and exit statuses.
 */
#include "frontend/cli.h"
#include "render/span.h"
#include "tracer/session.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_exit_status(int err)
{
	switch (-err) {
	case 0:
		return 0;
	case WR_ESYNTAX:
	case WR_ESEMANTIC:
	case WR_ENOTARGET:
	case WR_ENOPROC:
	case WR_EKTHREAD:
	case WR_EUSAGE:
	case WR_ECOMMAND:
	case WR_EMISMATCH:
	case WR_ENODWARF:
	case ENOENT:
		return 2;
	default:
		return 1;
	}
}

/* The first error writing events (0: none); EPIPE means the reader went
 * away (`wraith ... | head -2`).  A stop signal interrupting a write that
 * blocked on a full pipe (EINTR) is no failure: the run is ending. */
static int output_errno;

static void note_output_error(void)
{
	if (errno == EINTR)
		clearerr(stdout);
	else if (!output_errno)
		output_errno = errno;
}

/* Events on stdout, as the options say, gathered in one buffer and
 * written in large writes: a write per event cost more than rendering it.
 * The buffer goes out when it holds OUTPUT_BATCH bytes and whenever a poll
 * has read what the kernel had (cli_flush_output()), which is at least every
 * tick of the reader's timer, so a terminal sees events as they come. */
#define OUTPUT_BATCH (256u << 10)
/* A pipe on stdout is widened to this (fs.pipe-max-size's default): with
 * the usual 64 KiB, wraith and the reader take turns four times a batch. */
#define OUTPUT_PIPE_SIZE (1 << 20)

static struct stdout_writer {
	bool json;
	enum span_color color;
	struct strbuf buf;
} writer = { .buf = STRBUF_INIT };

static void write_out(struct stdout_writer *w)
{
	if (!output_errno && w->buf.len && fwrite(w->buf.buf, 1, w->buf.len, stdout) != w->buf.len)
		note_output_error();
	strbuf_reset(&w->buf);
}

static void write_event(void *ctx, const struct span_list *event)
{
	struct stdout_writer *w = ctx;

	if (output_errno)
		return;
	if (w->json)
		span_write_json(event, &w->buf);
	else
		span_write_text(event, w->color, &w->buf);
	if (w->buf.len >= OUTPUT_BATCH)
		write_out(w);
}

int cli_flush_output(void)
{
	write_out(&writer);
	if (!output_errno && fflush(stdout) != 0)
		note_output_error();
	return output_errno;
}

/* Best effort: a pipe the system will not widen keeps its size, and
 * output to a pipe that stays full blocks wraith's write (the kernel's
 * buffer then holds events, and what does not fit is counted as lost). */
static void widen_stdout_pipe(void)
{
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    fcntl(STDOUT_FILENO, F_GETPIPE_SZ) < OUTPUT_PIPE_SIZE)
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, OUTPUT_PIPE_SIZE);
}

/* The progress line a terminal shows now (no newline after it), or
 * empty. */
static char progress_shown[256];

static void progress(void *ctx, const char *text)
{
	(void)ctx;
	if (!isatty(STDERR_FILENO))
		return;
	if (!text)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[Kwraith: %s", text);
	fflush(stderr);
	snprintf(progress_shown, sizeof(progress_shown), "%s", text ? text : "");
}

/* A message while a progress line shows goes above it, on a line of its
 * own, and the progress line is drawn again under it. */
static void log_over_progress(enum wr_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (progress_shown[0])
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "wraith: %s%s\n", level == WR_LOG_WARN ? "warning: " : "", msg);
	if (progress_shown[0])
		fprintf(stderr, "wraith: %s", progress_shown);
	fflush(stderr);
}

int cli_open_session(const struct cli_options *o, const char *script, struct session **out)
{
	struct session_print print = { o->print_elements, o->print_depth };
	struct session_options so = {
		.pid = o->pid, .path = o->path, .transport = o->transport, .fault_in = o->fault_in,
		.debug = {
			.debug_file = o->debug_file, .loose = o->loose_debug_match,
			.dirs = o->debug_dirs.v, .n_dirs = o->debug_dirs.n,
			.debuginfod = o->debuginfod != CLI_DEBUGINFOD_OFF,
			.urls = o->debuginfod_urls.v, .n_urls = o->debuginfod_urls.n,
			.cache_dir = o->debuginfod_cache, .timeout = (unsigned)o->debuginfod_timeout,
			.max_size = o->debuginfod_max_size,
		},
		.bt_depth = o->bt_depth, .format = o->format,
		.dry_run = o->dry_run, .verbose = o->verbose, .relative_time = o->relative_time,
		/* A script's probes are loaded next: the kernel side's maps
		 * and unwinder load while the target opens. */
		.start_kernel = script != NULL, .only_script = script,
		.max_events = o->max_events, .pending = o->pending, .buffer_bytes = o->buffer_bytes,
		.stack_entries = o->stack_entries, .probe_cache_dir = o->probe_cache_dir,
		.print = &print,
	};
	struct session_sink sink = { write_event, &writer };
	int err;

	/* Nothing can answer a prompt in a script or a batch, and the shell
	 * is not up yet when debug files are looked for. */
	if (o->debuginfod == CLI_DEBUGINFOD_ASK)
		wr_warn("debuginfod: 'ask' works as 'on': wraith does not prompt, it fetches "
			"missing debug files without asking");
	/* Compiling gets ready while the target opens. */
	session_prepare(&so);
	err = session_new(&so, out);

	if (err)
		return err;
	/* A terminal cannot show more anyway; a program reading a pipe gets
	 * every event unless it asks for a limit. */
	session_set_rate_limit(*out, o->events_per_sec >= 0 ? (uint64_t)o->events_per_sec
			       : isatty(STDOUT_FILENO) ? CLI_TTY_EVENTS_PER_SEC : 0);
	widen_stdout_pipe();
	writer.json = o->format == RENDER_JSON;
	writer.color = o->format == RENDER_PRETTY ? o->color : SPAN_COLOR_NONE;
	session_set_sink(*out, &sink);
	session_set_progress(*out, progress, NULL);
	if (isatty(STDERR_FILENO))
		wr_log_set_sink(log_over_progress, NULL);
	if (o->status) {
		struct strbuf report = STRBUF_INIT;

		session_status_report(*out, &report);
		fputs(report.buf, stderr);
		strbuf_release(&report);
	}
	return 0;
}

void cli_report_suppressed(struct session *s, const struct cli_options *o, bool final)
{
	static double last_time;
	static uint64_t last_count;
	struct session_losses l;
	double now = now_seconds();

	if (!final && now - last_time < 1.0)
		return;
	session_losses(s, &l);
	if (l.suppressed > last_count)
		wr_warn("output saturated: %llu events not shown in the last %s (%llu in all, limit "
			"%lld/s, --script-output-events-per-sec); the kernel's buffers may drop "
			"events too", (unsigned long long)(l.suppressed - last_count),
			final ? "moments" : "second", (unsigned long long)l.suppressed,
			o->events_per_sec >= 0 ? o->events_per_sec : CLI_TTY_EVENTS_PER_SEC);
	last_time = now;
	last_count = l.suppressed;
}

void cli_close_session(struct session *s)
{
	cli_flush_output();
	session_free(s);
	strbuf_release(&writer.buf);
}

void cli_report_losses(struct session *s)
{
	struct session_losses l;

	session_losses(s, &l);
	if (l.lost)
		wr_warn("%llu events were lost because the event buffer was full; a larger "
			"--buffer-size, fewer hits (a condition) or less output per hit helps",
			(unsigned long long)l.lost);
	if (l.truncated)
		wr_warn("%llu events were cut short because they exceeded %u bytes",
			(unsigned long long)l.truncated, session_max_event_bytes());
	if (l.dropped)
		wr_warn("%llu events were dropped while no `wait` was reading them",
			(unsigned long long)l.dropped);
	if (l.malformed)
		wr_warn("%llu malformed events were dropped", (unsigned long long)l.malformed);
}

/* The run ends (Ctrl-C, --timeout, the process exited): show what the
 * event buffer still holds, the events of hits before the end, instead of
 * counting them as not read.  At most DRAIN_SECONDS of a process that keeps
 * hitting; a second Ctrl-C stops at once.  Not after --max-events (the
 * rest is not wanted) or once the output is closed. */
#define DRAIN_SECONDS 2.0

static void drain_buffered(const struct cli_options *o, struct session *s)
{
	sig_atomic_t sig = *o->stop_signal;
	double until = now_seconds() + DRAIN_SECONDS;
	int n;

	if (o->max_events && session_events(s) >= o->max_events)
		return;
	*o->stop_signal = 0;
	do {
		n = session_read_buffered(s);
		if (cli_flush_output())
			break;
	} while (n > 0 && !*o->stop_signal && now_seconds() < until);
	if (!*o->stop_signal)
		*o->stop_signal = sig;
}

int cli_event_loop(const struct cli_options *o, struct session *s)
{
	double deadline = o->timeout > 0 ? now_seconds() + o->timeout : 0;

	while (!*o->stop_signal && !session_done(s)) {
		int wait_ms = 100, n;

		if (deadline) {
			double left = deadline - now_seconds();

			if (left <= 0)
				break;
			if (left < 0.1)
				wait_ms = (int)(left * 1000) + 1;
		}
		n = session_poll(s, wait_ms);
		if (cli_flush_output())
			break;
		if (n < 0 && n != -EINTR) {
			wr_error("reading events failed: %s", wr_strerror(n));
			return 1;
		}
		cli_report_suppressed(s, o, false);
	}
	if (!cli_flush_output())
		drain_buffered(o, s);
	cli_report_suppressed(s, o, true);
	/* SIGPIPE is ignored so that a closed output ends the run here, the
	 * ordinary way, with every probe detached when the session is freed:
	 * a reader that stopped reading is a normal end (status 0). */
	if (cli_flush_output() == EPIPE) {
		if (!o->quiet)
			fprintf(stderr, "wraith: the output was closed; stopping\n");
		return 0;
	}
	if (output_errno) {
		wr_error("writing events failed: %s", strerror(output_errno));
		return 1;
	}
	if (session_target_exited(s) && !o->quiet) {
		struct strbuf why = STRBUF_INIT;

		session_end_text(s, &why);
		fprintf(stderr, "wraith: %s\n", why.buf);
		strbuf_release(&why);
	}
	return 0;
}
