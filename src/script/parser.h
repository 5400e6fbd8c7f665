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
#include "script/pattern.h"

struct diag;

/* How high an expression tree and how deep nested blocks may be: every
 * stage after the parser (checks, code generation, dumps) recurses over
 * the tree, and must not overflow its stack, sanitizers included. */
#define SCRIPT_MAX_EXPR_DEPTH 1000
#define SCRIPT_MAX_BLOCK_DEPTH 100
/* Statements in one probe: code generation and the BPF program's size grow
 * with them (a jump in BPF reaches at most 32767 instructions). */
#define SCRIPT_MAX_PROBE_STMTS 1000

/* Parse a whole script (any number of `trace` blocks).  Returns 0 and a new
 * tree in *out (caller frees with ast_script_free), or -WR_ESYNTAX with
 * @diag filled and *out NULL.  An empty script parses to zero probes.
 * @text is borrowed for the call only (the tree copies what it keeps).
 * @diag must be zeroed or released (diag_set() replaces its strings); the
 * caller releases it.  Duplicate or contradictory bt options, unknown bt
 * options, unknown builtins and bad format placeholders are syntax errors. */
int script_parse(const char *text, struct ast_script **out, struct diag *diag);

/* Semantic checks on a parsed tree: scoping and immutability of `let`,
 * placeholder/argument counts of print, builtin arity and argument kinds,
 * at most WR_BT_MAX_SLOTS bt statements per probe.  Names never bound with
 * `let` are taken for DWARF variables and not checked.  Returns 0, or
 * -WR_ESEMANTIC with @diag filled (same rules as script_parse()). */
int script_check(const struct ast_script *s, struct diag *diag);


/* The words a probe body may start a name with, for completion: the
 * statement words, the built-in functions and the special variables
 * ("$pid").  Calls @fn with each. */
void script_foreach_word(void (*fn)(const char *word, void *ctx), void *ctx);

#endif
