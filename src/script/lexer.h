/* lexer.h - splitting script text into tokens.
 *
 * Layer rule: script/ is pure: it depends on util/ only.
 * The lexer is shared by the parser and by the highlighter front ends
 * use (highlight.h), so it never stops at an error: a malformed stretch of text becomes one
 * TOK_ERROR token (the lexer has already moved past it) and the next call
 * carries on.  Every token knows its byte range in the text and its
 * line/column, so a highlighter colours by offset and the parser reports
 * by location.
 *
 * The text after the keyword `trace` is a raw pattern (`ns::f<int>`,
 * `/a/b.c:12`, `libc.so.6:0x10`), not ordinary tokens: the lexer returns it
 * as one TOK_PATTERN running up to whitespace, '{', '}' or ';'.
 *
 * Ownership: a struct lexer borrows @text for its whole life; tokens hold
 * offsets into it, never copies.
 */
#ifndef WRAITH_SCRIPT_LEXER_H
#define WRAITH_SCRIPT_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "script/ast.h"
#include "script/highlight.h"
#include "util/diag.h"

struct strbuf;

enum tok_kind {
	TOK_EOF,
	TOK_ERROR,    /* malformed text (unterminated string, stray '@', ...) */
	TOK_COMMENT,  /* only returned with LEXER_KEEP_COMMENTS */
	TOK_IDENT,
	TOK_INT,      /* .ival holds the value's 64 bits, .num_flags its spelling */
	TOK_FLOAT,    /* .fval holds the value, .num_flags its spelling */
	TOK_STRING,   /* quotes included; decode with lexer_decode_string() */
	TOK_SPECIAL,  /* `$name`, the '$' included */
	TOK_PATTERN,  /* raw trace pattern following `trace` */
	/* keywords */
	TOK_TRACE, TOK_PRINT, TOK_BT /* bt or backtrace */, TOK_IF, TOK_ELSE,
	TOK_LET, TOK_TRUE, TOK_FALSE,
	/* punctuation */
	TOK_LBRACE, TOK_RBRACE, TOK_LPAREN, TOK_RPAREN, TOK_LBRACKET, TOK_RBRACKET,
	TOK_COMMA, TOK_SEMI, TOK_DOT, TOK_ARROW, TOK_ASSIGN,
	/* operators */
	TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PERCENT, TOK_SHL, TOK_SHR,
	TOK_LT, TOK_LE, TOK_GT, TOK_GE, TOK_EQ, TOK_NE,
	TOK_AMP, TOK_CARET, TOK_PIPE, TOK_ANDAND, TOK_OROR, TOK_BANG, TOK_TILDE,
	TOK_KIND_COUNT_
};

struct token {
	enum tok_kind kind;
	size_t off;          /* byte offset of the first byte in the text */
	size_t len;          /* bytes (a comment may span lines) */
	struct src_loc loc;  /* line/col of the first byte; .len = len */
	int64_t ival;        /* TOK_INT only: the value's bits (up to UINT64_MAX) */
	double fval;         /* TOK_FLOAT only */
	unsigned num_flags;  /* TOK_INT, TOK_FLOAT: AST_NUM_* (suffix and base) */
};

#define LEXER_KEEP_COMMENTS 0x1u

struct lexer {
	const char *text;     /* borrowed */
	size_t pos;
	unsigned line;
	size_t line_start;    /* offset of the current line's first byte */
	unsigned flags;       /* LEXER_* */
	bool want_pattern;    /* the previous token was the keyword `trace` */
	enum tok_kind prev;
};

/* Start lexing @text (borrowed, NUL-terminated).  @flags: LEXER_*. */
void lexer_init(struct lexer *lx, const char *text, unsigned flags);

/* Read the next token into @tok.  Returns 0, or -WR_ESYNTAX for malformed
 * text: then @tok is a TOK_ERROR covering it, @diag (may be NULL) says what
 * is wrong, and the next call continues after it.  At the end of the text
 * every call returns TOK_EOF. */
int lexer_next(struct lexer *lx, struct token *tok, struct diag *diag);

/* Resolve the escapes of string token @tok (from @text) into @out
 * (appended).  When @src_off is non-NULL it receives a new array (caller
 * frees) with, for each byte appended, the offset in @text of the source
 * character it came from, followed by one entry for the closing quote, so
 * errors found later in the string can point inside the literal.  Returns
 * the number of bytes appended.  @tok must be a TOK_STRING returned by
 * lexer_next() (escapes already validated). */
size_t lexer_decode_string(const char *text, const struct token *tok, struct strbuf *out,
			   size_t **src_off);

/* Static display name of a kind: "';'", "identifier", "end of input". */
const char *tok_kind_name(enum tok_kind kind);
/* The coarse class of a kind, as script_highlight() gives it. */
enum script_hl tok_kind_class(enum tok_kind kind);

/* Past C++'s `operator` at byte @at of @text and its symbol
 * (`operator<<`, `operator()`, `operator[]`, `operator*`), which brackets
 * nothing and is no wildcard; @at when none starts there (@start: where
 * the name began, so `xoperator` is not one). */
size_t lexer_past_operator(const char *text, size_t start, size_t at);

#endif
