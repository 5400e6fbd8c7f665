/* script.h - script mode (-s, --script-file): add the script's probes,
 * then print events until stopped; with --dry-run, print the plan instead.
 *
 * Layer rule: src/frontend/ (see cli.h).
 */
#ifndef WRAITH_FRONTEND_SCRIPT_H
#define WRAITH_FRONTEND_SCRIPT_H

struct cli_options;
struct session;

/* Run the script of o->script or o->script_file.  Returns the exit status. */
int script_mode_run(const struct cli_options *o, struct session *s);

#endif
