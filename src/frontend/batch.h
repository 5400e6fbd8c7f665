/* batch.h - `--batch FILE`: shell commands from a file, without the TUI.
 *
 * Layer rule: src/frontend/ (see cli.h); commands go to the interpreter in
 * tracer/command.h.
 */
#ifndef WRAITH_FRONTEND_BATCH_H
#define WRAITH_FRONTEND_BATCH_H

struct cli_options;
struct session;

/* Run the commands of o->batch_file.  Returns the exit status. */
int batch_run(const struct cli_options *o, struct session *s);

#endif
