/* batch.h - `--batch FILE`: shell commands from a file, without the TUI.
 *
 * Layer rule: tracer/ (uses the command interpreter in command.h).
 */
#ifndef WRAITH_TRACER_BATCH_H
#define WRAITH_TRACER_BATCH_H

struct cli_options;
struct session;

/* Run the commands of o->batch_file.  Returns the exit status. */
int batch_run(const struct cli_options *o, struct session *s);

/* Shared with cli.c. */
int cli_event_loop(const struct cli_options *o, struct session *s);
void cli_report_losses(struct session *s);

#endif
