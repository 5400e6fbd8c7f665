/* cli.c - script mode, --dry-run, and the plumbing every mode shares:
 * opening the session, the event loop with its stop conditions
 * (--max-events, --timeout, SIGINT/SIGTERM), and the final report of lost
 * events.  --batch lives in batch.c and the shell in ui/.
 */
#include "frontend/cli.h"
#include "runtime/runtime.h"
#include "frontend/batch.h"
#include "tracer/session.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	case ENOENT:
		return 2;
	default:
		return 1;
	}
}

static void write_event(void *ctx, const char *text, const struct event *ev)
{
	(void)ctx;
	(void)ev;
	fputs(text, stdout);
}

static void progress(void *ctx, const char *what, size_t done, size_t total)
{
	(void)ctx;
	if (!isatty(STDERR_FILENO))
		return;
	if (!what)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[Kwraith: reading unwind tables %zu/%zu: %s", done + 1, total, what);
	fflush(stderr);
}

static int open_session(const struct cli_options *o, struct session **out)
{
	struct session_options so = {
		.pid = o->pid, .path = o->path, .transport = o->transport,
		.bt_depth = o->bt_depth, .format = o->format, .color = o->color,
		.dry_run = o->dry_run, .verbose = o->verbose, .relative_time = o->relative_time,
	};
	int err = session_new(&so, out);

	if (err)
		return err;
	(*out)->max_events = o->max_events;
	(*out)->sink = (struct session_sink){ write_event, NULL };
	session_set_progress(*out, progress, NULL);
	return 0;
}

static size_t count_sites(struct session *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_probes; i++)
		n += s->probes[i]->n_sites;
	return n;
}

static void report_ready(const struct cli_options *o, struct session *s)
{
	size_t sites = count_sites(s);

	if (o->quiet)
		return;
	if (o->pid)
		fprintf(stderr, "wraith: tracing %zu probe%s (%zu site%s) in process %d; Ctrl-C stops\n",
			s->n_probes, s->n_probes == 1 ? "" : "s", sites, sites == 1 ? "" : "s",
			(int)o->pid);
	else
		fprintf(stderr, "wraith: tracing %zu probe%s (%zu site%s) in every process of %s; "
			"Ctrl-C stops\n", s->n_probes, s->n_probes == 1 ? "" : "s", sites,
			sites == 1 ? "" : "s", o->path);
	fflush(stderr);
}

/* Lost and malformed events are never silent. */
void cli_report_losses(struct session *s)
{
	uint64_t lost = session_lost_events(s) - s->backlog_dropped, truncated = 0;

	for (size_t i = 0; i < s->n_probes; i++) {
		struct wr_probe_stats st;

		session_probe_stats(s, s->probes[i], &st);
		truncated += st.truncated;
	}
	if (lost)
		wr_warn("%llu events were lost because the event buffer was full; slow the "
			"probed code down or print less", (unsigned long long)lost);
	if (truncated)
		wr_warn("%llu events were cut short because they exceeded %u bytes",
			(unsigned long long)truncated, WR_EVENT_MAX);
	if (s->backlog_dropped)
		wr_warn("%llu events were dropped while no `wait` was reading them",
			(unsigned long long)s->backlog_dropped);
	if (s->malformed)
		wr_warn("%llu malformed events were dropped", (unsigned long long)s->malformed);
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
		fflush(stdout);
		if (n < 0 && n != -EINTR) {
			wr_error("reading events failed: %s", wr_strerror(n));
			return 1;
		}
	}
	fflush(stdout);
	if (session_target_exited(s) && !o->quiet)
		fprintf(stderr, "wraith: process %d exited\n", (int)o->pid);
	return 0;
}

static int load_script_text(const struct cli_options *o, char **text)
{
	int err;

	if (o->script) {
		*text = xstrdup(o->script);
		return 0;
	}
	err = file_read(o->script_file, text, NULL);
	if (err)
		fprintf(stderr, "wraith: cannot read script file %s: %s\n", o->script_file,
			strerror(-err));
	return err;
}

static int run_script(const struct cli_options *o, struct session *s)
{
	struct strbuf errors = STRBUF_INIT;
	char *text = NULL;
	int err = load_script_text(o, &text);

	if (err)
		return 2;
	err = session_start(s);
	if (!err)
		err = session_add_script(s, text, o->script_file ? o->script_file : "<script>", &errors,
					 NULL, 0, NULL);
	fputs(errors.buf, stderr);
	strbuf_release(&errors);
	free(text);
	if (err)
		return cli_exit_status(err);
	if (o->dry_run) {
		struct strbuf out = STRBUF_INIT;

		for (size_t i = 0; i < s->n_probes; i++)
			session_describe_probe(s, s->probes[i], &out);
		fputs(out.buf, stdout);
		strbuf_release(&out);
		return 0;
	}
	report_ready(o, s);
	err = cli_event_loop(o, s);
	cli_report_losses(s);
	return err;
}

int cli_run(const struct cli_options *o, cli_shell_fn shell)
{
	struct session *s = NULL;
	int err = open_session(o, &s), rc;

	if (err)
		return cli_exit_status(err);
	if (o->batch_file)
		rc = batch_run(o, s);
	else if (o->script || o->script_file)
		rc = run_script(o, s);
	else
		rc = shell(s, o);
	session_free(s);
	return rc;
}
