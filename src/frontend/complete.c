/* complete.c - `--complete TEXT` (see complete.h).
 *
 * Completion runs on every Tab in bash, so it stays quiet: a target that
 * cannot be opened prints nothing rather than an error under the prompt.
 */
#include "frontend/complete.h"
#include "frontend/cli.h"
#include "tracer/command.h"
#include "tracer/session.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(enum wr_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)msg;
	(void)ctx;
}

int complete_run(const struct cli_options *o)
{
	struct session_options so = { .pid = o->pid, .path = o->path, .dry_run = true };
	struct session *s = NULL;
	char **v;
	size_t n = 0;

	wr_log_set_sink(quiet, NULL);
	if (session_new(&so, &s))
		return 1;
	v = command_complete(s, o->complete, strlen(o->complete), &n);
	for (size_t i = 0; i < n; i++) {
		puts(v[i]);
		free(v[i]);
	}
	free(v);
	session_free(s);
	return 0;
}
