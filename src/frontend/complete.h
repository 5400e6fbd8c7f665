/* complete.h - `--complete TEXT`: the shell's completions of command TEXT
 * against the target, one per line, for the bash completion script
 * (scripts/completion/wraith).
 *
 * Layer rule: src/frontend/ (see cli.h).  It opens the target as a dry run
 * (nothing is loaded, no privilege beyond reading the target is needed)
 * and asks the command interpreter, so the shell's Tab and bash's Tab
 * offer the same names.
 */
#ifndef WRAITH_FRONTEND_COMPLETE_H
#define WRAITH_FRONTEND_COMPLETE_H

struct cli_options;

/* Print the completions of o->complete.  Returns the exit status: 0, or 1
 * when the target cannot be opened (nothing is printed then). */
int complete_run(const struct cli_options *o);

#endif
