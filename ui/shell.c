/* shell.c - placeholder until the interactive shell lands. */
#include "tracer/cli.h"
#include "util/log.h"

int ui_run(struct session *s, const struct cli_options *o);

int ui_run(struct session *s, const struct cli_options *o)
{
	(void)s;
	(void)o;
	wr_error("the interactive shell is not available in this build yet; use -s or --script-file");
	return 1;
}
