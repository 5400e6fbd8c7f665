/* batch.c - placeholder until the command interpreter lands. */
#include "tracer/batch.h"
#include "util/log.h"

int batch_run(const struct cli_options *o, struct session *s)
{
	(void)o;
	(void)s;
	wr_error("--batch is not available in this build yet");
	return 1;
}
