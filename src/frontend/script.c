/* script.c - script mode and --dry-run (see script.h).
 *
 * The script's probes are added all or nothing; script errors go to
 * stderr as the interpreter rendered them (located, with a caret), and
 * the one status line on stderr says what is traced before events start.
 */
#include "frontend/script.h"
#include "frontend/cli.h"
#include "tracer/session.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/textfile.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int script_mode_load(const struct cli_options *o, char **text)
{
	struct strbuf why = STRBUF_INIT;
	int err;

	if (o->script) {
		*text = xstrdup(o->script);
		return 0;
	}
	err = text_file_read(o->script_file, TEXT_FILE_MAX, text, &why);
	if (err == -WR_ESYNTAX)
		fprintf(stderr, "%s\n", why.buf);
	else if (err)
		fprintf(stderr, "wraith: cannot read script file %s: %s\n", o->script_file, why.buf);
	if (err == -EFBIG)
		fprintf(stderr, "hint: scripts are at most %s\n", TEXT_FILE_MAX_TEXT);
	strbuf_release(&why);
	return err ? 2 : 0;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void report_ready(const struct cli_options *o, struct session *s)
{
	size_t probes = session_probe_count(s), sites = 0;
	struct probe *p;

	if (o->quiet)
		return;
	session_for_each_probe(p, s)
		sites += probe_site_count(p);
	if (o->pid)
		fprintf(stderr, "wraith: tracing %zu probe%s (%zu site%s) in process %d; Ctrl-C stops\n",
			probes, plural(probes), sites, plural(sites), (int)o->pid);
	else
		fprintf(stderr, "wraith: tracing %zu probe%s (%zu site%s) in every process of %s; "
			"Ctrl-C stops\n", probes, plural(probes), sites, plural(sites), o->path);
	fflush(stderr);
}

static void print_plan(struct session *s)
{
	struct strbuf out = STRBUF_INIT;
	struct probe *p;

	session_for_each_probe(p, s)
		session_describe_probe(s, p, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
}

int script_mode_run(const struct cli_options *o, struct session *s, const char *text)
{
	struct strbuf errors = STRBUF_INIT;
	int err = session_start(s);

	if (!err)
		err = session_add_script(s, text, o->script_file ? o->script_file : "<script>", &errors,
					 NULL, 0, NULL);
	fputs(errors.buf, stderr);
	strbuf_release(&errors);
	if (err)
		return cli_exit_status(err);
	if (!session_probe_count(s)) {
		/* Waiting for events that cannot come would never end. */
		fprintf(stderr, "wraith: %s traces nothing: it has no `trace` block\n"
			"hint: a script is `trace FUNCTION { print ...; }`; see wraith(1)\n",
			o->script_file ? o->script_file : "the script");
		return 2;
	}
	if (o->dry_run) {
		print_plan(s);
		return 0;
	}
	report_ready(o, s);
	err = cli_event_loop(o, s);
	session_detach_all(s);
	if (cli_write_stacks(o, s) && !err)
		err = 1;
	cli_report_summary(o, s);
	cli_report_losses(s);
	return err;
}
