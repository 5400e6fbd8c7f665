/* options.h - wraith's settings from four layers: built-in defaults, the
 * configuration file, the environment and the command line, each
 * overriding the one before.
 *
 * Layer rule: src/frontend/, like main.c.  One table names every setting
 * once, with its command-line flag, its configuration key (GhostScope's
 * section and key names where the two tools share a setting, so a
 * GhostScope config keeps working) and its environment variable, and the
 * one function that checks and stores a value; getopt's table and the
 * configuration reader are both made from it.
 *
 * The configuration file is --config PATH, else
 * $XDG_CONFIG_HOME/wraith/config.toml (~/.config/wraith/config.toml),
 * which may be missing.  Its errors are located (FILE:LINE:COL, the line
 * and a caret) and stop wraith with exit status 2.
 */
#ifndef WRAITH_FRONTEND_OPTIONS_H
#define WRAITH_FRONTEND_OPTIONS_H

#include "frontend/cli.h"

struct strbuf;

enum cli_layer { CLI_LAYER_DEFAULT, CLI_LAYER_FILE, CLI_LAYER_ENV, CLI_LAYER_ARGS };

/* Fill @o from all four layers.  Returns 0, or the exit status (2) after
 * printing why on stderr.  Release @o with cli_options_release(). */
int cli_options_parse(int argc, char **argv, struct cli_options *o);
void cli_options_release(struct cli_options *o);

/* A usage error on stderr as "wraith: MESSAGE" and the --help hint;
 * returns 2, the exit status of a usage error. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Apply the configuration text @text (named @file in messages) to @o as the
 * file layer.  Returns 0, or -EINVAL with the located error rendered into
 * @err.  Settings GhostScope has and wraith does not are named in @ignored
 * (one line, empty if none). */
int cli_options_apply_config(struct cli_options *o, const char *file, const char *text,
			     struct strbuf *err, struct strbuf *ignored);

/* A copy of @s that lives as long as @o.  Returns the copy. */
const char *cli_options_keep(struct cli_options *o, const char *s);

#endif
