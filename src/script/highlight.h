/* highlight.h - script text classed for colouring, for front ends.
 *
 * Layer rule: script/ depends on util/ only.  This is the one header of
 * script/ a front end includes (the shell's script editor): it says what
 * each stretch of a script is (a keyword, a string, a trace pattern...)
 * without handing out the lexer's tokens, which stay the parser's.
 * Half-typed text is classed too: the lexer never stops at an error, a
 * malformed stretch is one SCRIPT_HL_ERROR span and what follows goes on.
 */
#ifndef WRAITH_SCRIPT_HIGHLIGHT_H
#define WRAITH_SCRIPT_HIGHLIGHT_H

#include <stddef.h>

/* What a stretch of script text is. */
enum script_hl {
	SCRIPT_HL_NONE,     /* the end of the text */
	SCRIPT_HL_ERROR,    /* malformed (an unterminated string, a stray '@') */
	SCRIPT_HL_COMMENT,
	SCRIPT_HL_KEYWORD,
	SCRIPT_HL_IDENT,
	SCRIPT_HL_NUMBER,
	SCRIPT_HL_STRING,
	SCRIPT_HL_SPECIAL,  /* $pid ... */
	SCRIPT_HL_PATTERN,  /* what follows `trace` */
	SCRIPT_HL_PUNCT,    /* braces, parentheses, operators */
};

struct script_hl_span {
	size_t off;          /* byte offset in the text */
	size_t len;          /* bytes (a comment may span lines) */
	enum script_hl kind;
};

/* The spans of @text (NUL-terminated, its first @len bytes classed), in
 * order, each token one; whitespace lies between them, unclassed.  Sets
 * *@out to a new array (caller frees; NULL when there is none) and
 * returns how many. */
size_t script_highlight(const char *text, size_t len, struct script_hl_span **out);

#endif
