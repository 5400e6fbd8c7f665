/* pattern.h - trace patterns: the text after `trace` (or of the shell's
 * `trace TARGET`) classified into a struct ast_target.
 *
 * Layer rule: script/ is pure: util/ only.
 */
#ifndef WRAITH_SCRIPT_PATTERN_H
#define WRAITH_SCRIPT_PATTERN_H

#include "script/ast.h"

struct diag;

/* Classify a trace pattern (the text after `trace`) into @t.  Used by the
 * parser and by the shell's `trace TARGET` command.  Returns 0 or
 * -WR_ESYNTAX with @diag (may be NULL) filled; the error location is @loc
 * (where @text starts) moved right to the offending character.  On success
 * @t owns copies of everything (release with ast_target_release()); on
 * failure @t is left empty. */
int script_parse_target(const char *text, struct src_loc loc, struct ast_target *t,
			struct diag *diag);

#endif
