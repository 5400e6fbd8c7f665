/* script.h - script mode (-s, --script-file): add the script's probes,
 * then print events until stopped; with --dry-run, print the plan instead.
 *
 * Layer rule: src/frontend/ (see cli.h).
 */
#ifndef WRAITH_FRONTEND_SCRIPT_H
#define WRAITH_FRONTEND_SCRIPT_H

struct cli_options;
struct session;

/* The text of o->script or o->script_file, in *@text (caller frees).
 * Returns 0, or the exit status after saying why on stderr. */
int script_mode_load(const struct cli_options *o, char **text);
/* Run @text (from script_mode_load()) in @s.  Returns the exit status. */
int script_mode_run(const struct cli_options *o, struct session *s, const char *text);

#endif
