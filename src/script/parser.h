/* parser.h - turning script text into a checked syntax tree.
 *
 * Layer rule: script/ is pure: util/ only.
 * The parser is hand-written recursive descent so every error can name the
 * exact place: on failure the diag holds a location inside @text and the
 * caller renders it with diag_render() (FILE:LINE:COL, source line, caret).
 */
#ifndef WRAITH_SCRIPT_PARSER_H
#define WRAITH_SCRIPT_PARSER_H

#include "script/ast.h"

struct diag;

/* Parse a whole script (any number of `trace` blocks).  Returns 0 and a new
 * tree in *out (caller frees with ast_script_free), or -WR_ESYNTAX with
 * @diag filled and *out NULL.  An empty script parses to zero probes. */
int script_parse(const char *text, struct ast_script **out, struct diag *diag);

/* Semantic checks on a parsed tree: scoping and immutability of `let`,
 * placeholder/argument counts of print, builtin arity and argument kinds,
 * duplicate bt options.  Returns 0, or -WR_ESEMANTIC with @diag filled. */
int script_check(const struct ast_script *s, struct diag *diag);

/* Classify a trace pattern (the text after `trace`) into @t.  Used by the
 * parser and by the shell's `trace TARGET` command.  Returns 0 or
 * -WR_ESYNTAX with @diag filled (location relative to @loc). */
int script_parse_target(const char *text, struct src_loc loc, struct ast_target *t,
			struct diag *diag);
void ast_target_release(struct ast_target *t);

#endif
