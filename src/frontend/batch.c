/* batch.c - `--batch FILE`: the shell's commands read from a file.
 *
 * Lines are gathered until a `trace` block's braces close, then handed to
 * the command interpreter.  Located script errors keep the file's line
 * numbers: the block's text is preceded by as many newlines as lines came
 * before it, so the parser's line N is the file's line N.  Command output
 * goes to stdout, except in --script-output json, where stdout carries only
 * events (one JSON object per line) and command output goes to stderr.
 */
#include "frontend/batch.h"
#include "frontend/cli.h"
#include "tracer/command.h"
#include "tracer/session.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct batch {
	const struct cli_options *o;
	struct session *s;
	FILE *cmd_out;
	unsigned errors;
};

/* Let events arrive for @seconds, or until @events more were rendered. */
static int wait_for(struct batch *b, double seconds, uint64_t events)
{
	double deadline = seconds > 0 ? now_seconds() + seconds : 0;
	uint64_t goal = session_events(b->s) + events;
	int err = 0;

	while (!*b->o->stop_signal && !session_done(b->s)) {
		int n;

		if (deadline && now_seconds() >= deadline)
			break;
		if (events && session_events(b->s) >= goal)
			break;
		session_set_budget(b->s, events ? goal - session_events(b->s) : UINT64_MAX);
		n = session_poll(b->s, 50);
		cli_flush_output();
		cli_report_suppressed(b->s, b->o, false);
		if (n < 0 && n != -EINTR) {
			err = n;
			break;
		}
	}
	/* Between waits, nothing is rendered: events wait for the next one. */
	session_set_budget(b->s, 0);
	return err;
}

/* Run one command that started on line @line of the file. */
static int run_one(struct batch *b, const char *text, unsigned line)
{
	struct strbuf out = STRBUF_INIT, located = STRBUF_INIT;
	struct cmd_result res;
	int rc = 0;

	strbuf_addchars(&located, '\n', line - 1);
	strbuf_addstr(&located, text);
	command_run(b->s, located.buf, b->o->batch_file, &out, &res);
	if (res.status == CMD_FAILED) {
		/* Script errors are already located; other failures get the line. */
		if (strncmp(out.buf, b->o->batch_file, strlen(b->o->batch_file)) != 0)
			fprintf(stderr, "%s:%u: error: ", b->o->batch_file, line);
		fputs(out.buf, stderr);
		b->errors++;
		rc = 2;
	} else {
		fputs(out.buf, b->cmd_out);
	}
	fflush(b->cmd_out);
	if (res.status == CMD_EDIT) {
		fprintf(stderr, "%s:%u: error: `trace %s` needs a { ... } body in a batch file\n",
			b->o->batch_file, line, res.edit_target);
		b->errors++;
		rc = 2;
	} else if (res.status == CMD_WAIT_TIME || res.status == CMD_WAIT_EVENTS) {
		rc = wait_for(b, res.wait_seconds, res.wait_events) ? 1 : 0;
	} else if (res.status == CMD_QUIT) {
		rc = -1;
	}
	cmd_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&located);
	return rc;
}

int batch_run(const struct cli_options *o, struct session *s)
{
	struct batch b = { .o = o, .s = s, .cmd_out = o->format == RENDER_JSON ? stderr : stdout };
	struct strbuf pending = STRBUF_INIT;
	char *text = NULL, *line, *next;
	unsigned lineno = 0, start = 0;
	int rc = 0, err = text_file_read(o->batch_file, TEXT_FILE_MAX, &text, &pending);

	if (err) {
		if (err == -WR_ESYNTAX)
			fprintf(stderr, "%s\n", pending.buf);
		else
			fprintf(stderr, "wraith: cannot read batch file %s: %s\n", o->batch_file,
				pending.buf);
		strbuf_release(&pending);
		return 2;
	}
	session_set_budget(s, 0);
	for (line = text; line && rc >= 0 && !*o->stop_signal; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!pending.len)
			start = lineno;
		strbuf_addf(&pending, "%s\n", line);
		if (command_is_incomplete(pending.buf) && next)
			continue;
		rc = run_one(&b, pending.buf, start);
		strbuf_reset(&pending);
		if (rc > 0 && !o->keep_going)
			break;
		if (rc > 0)
			rc = 0;
	}
	cli_report_suppressed(s, o, true);
	session_detach_all(s);
	if ((o->folded_file || o->pprof_file) && cli_write_stacks(o, s) && rc == 0)
		rc = 1;
	cli_report_losses(s);
	strbuf_release(&pending);
	free(text);
	if (rc > 0)
		return rc;
	return b.errors ? 2 : 0;
}
