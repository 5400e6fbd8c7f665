/* lexer.c - tokens of the script language.
 *
 * A hand-written scanner over a NUL-terminated text.  It validates what it
 * can see locally (escapes, integer digits and range, unterminated strings
 * and comments, stray characters) so the parser only deals with structure.
 * Errors never stop it: the bad text becomes a TOK_ERROR and scanning goes
 * on, which is what the shell's highlighter needs.  Integer literals are
 * i64 like the language's values; a literal that does not fit is an error
 * here rather than a silent wrap later.
 */
#include "script/lexer.h"
#include "script/ast.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct {
	const char *word;
	enum tok_kind kind;
} keywords[] = {
	{ "trace", TOK_TRACE }, { "print", TOK_PRINT }, { "bt", TOK_BT },
	{ "backtrace", TOK_BT }, { "if", TOK_IF },       { "else", TOK_ELSE },
	{ "let", TOK_LET },      { "true", TOK_TRUE },   { "false", TOK_FALSE },
};

/* Operators, longest first so "<<" wins over "<". */
static const struct {
	const char *text;
	enum tok_kind kind;
} puncts[] = {
	{ "->", TOK_ARROW }, { "<<", TOK_SHL }, { ">>", TOK_SHR },    { "<=", TOK_LE },     { ">=", TOK_GE },
	{ "==", TOK_EQ },  { "!=", TOK_NE },     { "&&", TOK_ANDAND }, { "||", TOK_OROR },
	{ "{", TOK_LBRACE }, { "}", TOK_RBRACE }, { "(", TOK_LPAREN },  { ")", TOK_RPAREN },
	{ "[", TOK_LBRACKET }, { "]", TOK_RBRACKET }, { ",", TOK_COMMA }, { ";", TOK_SEMI },
	{ ".", TOK_DOT },  { "=", TOK_ASSIGN },  { "+", TOK_PLUS },    { "-", TOK_MINUS },
	{ "*", TOK_STAR }, { "/", TOK_SLASH },   { "%", TOK_PERCENT }, { "<", TOK_LT },
	{ ">", TOK_GT },   { "&", TOK_AMP },     { "^", TOK_CARET },   { "|", TOK_PIPE },
	{ "!", TOK_BANG }, { "~", TOK_TILDE },
};

static const char *const kind_names[TOK_KIND_COUNT_] = {
	[TOK_EOF] = "end of input",     [TOK_ERROR] = "invalid text",
	[TOK_COMMENT] = "comment",      [TOK_IDENT] = "identifier",
	[TOK_INT] = "integer literal",  [TOK_FLOAT] = "floating literal",
	[TOK_STRING] = "string literal",
	[TOK_SPECIAL] = "special variable", [TOK_PATTERN] = "trace pattern",
	[TOK_TRACE] = "'trace'",   [TOK_PRINT] = "'print'",   [TOK_BT] = "'bt'",
	[TOK_IF] = "'if'",         [TOK_ELSE] = "'else'",     [TOK_LET] = "'let'",
	[TOK_TRUE] = "'true'",     [TOK_FALSE] = "'false'",
	[TOK_LBRACE] = "'{'",      [TOK_RBRACE] = "'}'",      [TOK_LPAREN] = "'('",
	[TOK_RPAREN] = "')'",      [TOK_LBRACKET] = "'['",    [TOK_RBRACKET] = "']'",
	[TOK_COMMA] = "','",       [TOK_SEMI] = "';'",        [TOK_DOT] = "'.'",
	[TOK_ARROW] = "'->'",
	[TOK_ASSIGN] = "'='",      [TOK_PLUS] = "'+'",        [TOK_MINUS] = "'-'",
	[TOK_STAR] = "'*'",        [TOK_SLASH] = "'/'",       [TOK_PERCENT] = "'%'",
	[TOK_SHL] = "'<<'",        [TOK_SHR] = "'>>'",        [TOK_LT] = "'<'",
	[TOK_LE] = "'<='",         [TOK_GT] = "'>'",          [TOK_GE] = "'>='",
	[TOK_EQ] = "'=='",         [TOK_NE] = "'!='",         [TOK_AMP] = "'&'",
	[TOK_CARET] = "'^'",       [TOK_PIPE] = "'|'",        [TOK_ANDAND] = "'&&'",
	[TOK_OROR] = "'||'",       [TOK_BANG] = "'!'",        [TOK_TILDE] = "'~'",
};

const char *tok_kind_name(enum tok_kind kind)
{
	if ((unsigned)kind >= TOK_KIND_COUNT_ || !kind_names[kind])
		return "token";
	return kind_names[kind];
}

enum script_hl tok_kind_class(enum tok_kind kind)
{
	switch (kind) {
	case TOK_EOF: return SCRIPT_HL_NONE;
	case TOK_ERROR: return SCRIPT_HL_ERROR;
	case TOK_COMMENT: return SCRIPT_HL_COMMENT;
	case TOK_IDENT: return SCRIPT_HL_IDENT;
	case TOK_INT: case TOK_FLOAT: return SCRIPT_HL_NUMBER;
	case TOK_STRING: return SCRIPT_HL_STRING;
	case TOK_SPECIAL: return SCRIPT_HL_SPECIAL;
	case TOK_PATTERN: return SCRIPT_HL_PATTERN;
	case TOK_TRACE: case TOK_PRINT: case TOK_BT: case TOK_IF: case TOK_ELSE:
	case TOK_LET: case TOK_TRUE: case TOK_FALSE:
		return SCRIPT_HL_KEYWORD;
	default:
		return SCRIPT_HL_PUNCT;
	}
}

void lexer_init(struct lexer *lx, const char *text, unsigned flags)
{
	memset(lx, 0, sizeof(*lx));
	lx->text = text;
	lx->line = 1;
	lx->flags = flags;
	lx->prev = TOK_EOF;
}

static struct src_loc loc_at(const struct lexer *lx, size_t off, size_t len)
{
	return (struct src_loc){ .line = lx->line,
				 .col = (unsigned)(off - lx->line_start + 1),
				 .len = len ? (unsigned)len : 1 };
}

/* Move to @to, counting the newlines passed over. */
static void advance_to(struct lexer *lx, size_t to)
{
	for (size_t i = lx->pos; i < to; i++) {
		if (lx->text[i] == '\n') {
			lx->line++;
			lx->line_start = i + 1;
		}
	}
	lx->pos = to;
}

static void begin(struct lexer *lx, struct token *tok, enum tok_kind kind)
{
	tok->kind = kind;
	tok->off = lx->pos;
	tok->len = 0;
	tok->loc = loc_at(lx, lx->pos, 1);
	tok->ival = 0;
	tok->fval = 0;
	tok->num_flags = 0;
}

/* Finish @tok at offset @end (exclusive) and move the lexer there. */
static void finish(struct lexer *lx, struct token *tok, size_t end)
{
	tok->len = end - tok->off;
	tok->loc.len = tok->len ? (unsigned)tok->len : 1;
	advance_to(lx, end);
}

/* Turn @tok into an error spanning up to @end; the diag points at
 * [@at, @at + @at_len) on the token's line.  @msg is the finished text. */
static int fail(struct lexer *lx, struct token *tok, size_t end, size_t at, size_t at_len,
		struct diag *diag, const char *hint, const char *msg)
{
	struct src_loc loc = tok->loc;

	loc.col += (unsigned)(at - tok->off);
	loc.len = at_len ? (unsigned)at_len : 1;
	if (diag)
		diag_set(diag, loc, hint, "%s", msg);
	tok->kind = TOK_ERROR;
	finish(lx, tok, end);
	return -WR_ESYNTAX;
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Skip blanks; returns true if a comment starts at the new position. */
static bool skip_space(struct lexer *lx)
{
	size_t p = lx->pos;

	while (isspace((unsigned char)lx->text[p]))
		p++;
	advance_to(lx, p);
	return lx->text[p] == '/' && (lx->text[p + 1] == '/' || lx->text[p + 1] == '*');
}

static int lex_comment(struct lexer *lx, struct token *tok, struct diag *diag)
{
	const char *t = lx->text;
	size_t p = lx->pos + 2;
	const char *end;

	begin(lx, tok, TOK_COMMENT);
	if (t[lx->pos + 1] == '/') {
		finish(lx, tok, p + strcspn(t + p, "\n"));
		return 0;
	}
	end = strstr(t + p, "*/");
	if (!end)
		return fail(lx, tok, p + strlen(t + p), tok->off, 2, diag,
			    "close the comment with '*/'", "unterminated comment");
	finish(lx, tok, (size_t)(end - t) + 2);
	return 0;
}

/* The AST_NUM_* flags of integer suffix @s (@n bytes: u, l, ll, ul, lu,
 * ull, llu in either case, ll written LL or ll), or -1 when it is not one. */
static int int_suffix(const char *s, size_t n)
{
	static const char *const valid[] = { "", "u", "l", "ll", "ul", "lu", "ull", "llu" };
	char low[4] = "";

	if (n > 3)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (i && tolower((unsigned char)s[i]) == 'l' && (s[i - 1] ^ s[i]) == ('l' ^ 'L'))
			return -1; /* lL, Ll */
		low[i] = (char)tolower((unsigned char)s[i]);
	}
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		if (!strcmp(low, valid[i]))
			return (strchr(low, 'u') ? (int)AST_NUM_UNSIGNED : 0) |
			       (strchr(low, 'l') ? (int)AST_NUM_LONG : 0);
	return -1;
}

/* Length of a decimal floating literal at @s (digits with a fraction
 * and/or an exponent, an optional f suffix), or 0 when @s is not one. */
static size_t float_len(const char *s)
{
	size_t i = strspn(s, "0123456789"), e;
	bool frac = s[i] == '.' && isdigit((unsigned char)s[i + 1]);

	if (frac)
		i += 1 + strspn(s + i + 1, "0123456789");
	e = i + (s[i] == 'e' || s[i] == 'E');
	if (e > i) {
		e += s[e] == '+' || s[e] == '-';
		if (!isdigit((unsigned char)s[e]))
			return frac ? i : 0;
		i = e + strspn(s + e, "0123456789");
	} else if (!frac) {
		return 0;
	}
	return i;
}

static int lex_float(struct lexer *lx, struct token *tok, size_t len, struct diag *diag)
{
	const char *t = lx->text + lx->pos;
	size_t end = len;
	char buf[64];

	begin(lx, tok, TOK_FLOAT);
	if (t[end] == 'f' || t[end] == 'F') {
		tok->num_flags = AST_NUM_FLOAT;
		end++;
	}
	if (is_ident_char(t[end]) || len >= sizeof(buf)) {
		while (is_ident_char(t[end]))
			end++;
		return fail(lx, tok, lx->pos + end, tok->off, end, diag,
			    "floating literals are written 1.5, 2e9 or 0.25f",
			    "malformed floating literal");
	}
	memcpy(buf, t, len);
	buf[len] = '\0';
	tok->fval = strtod(buf, NULL);
	finish(lx, tok, lx->pos + end);
	return 0;
}

static int lex_number(struct lexer *lx, struct token *tok, struct diag *diag)
{
	const char *t = lx->text;
	size_t p = lx->pos, end = p, digits_end, flen;
	unsigned base = 10;
	uint64_t v = 0;
	int suffix;
	char msg[96];

	/* `.0` after a '.' (or '->') is a tuple member, never a fraction. */
	flen = lx->prev == TOK_DOT || lx->prev == TOK_ARROW ? 0 : float_len(t + p);
	if (flen)
		return lex_float(lx, tok, flen, diag);
	begin(lx, tok, TOK_INT);
	while (is_ident_char(t[end]))
		end++;
	if (t[p] == '0' && t[p + 1] && strchr("xXoObB", t[p + 1])) {
		base = strchr("xX", t[p + 1]) ? 16 : strchr("oO", t[p + 1]) ? 8 : 2;
		tok->num_flags |= AST_NUM_RADIX;
		p += 2;
	}
	for (digits_end = end; digits_end > p && strchr("uUlL", t[digits_end - 1]); digits_end--)
		;
	suffix = int_suffix(t + digits_end, end - digits_end);
	if (p == digits_end) {
		snprintf(msg, sizeof(msg), "integer literal '%.2s' has no digits", t + tok->off);
		return fail(lx, tok, end, tok->off, end - tok->off, diag, NULL, msg);
	}
	if (suffix < 0)
		return fail(lx, tok, end, digits_end, end - digits_end, diag,
			    "integer suffixes are u, l, ll and their combinations (42u, 7ul)",
			    "invalid integer suffix");
	tok->num_flags |= (unsigned)suffix;
	for (; p < digits_end; p++) {
		unsigned d = (unsigned)hex_digit_value(t[p]);

		if (d >= base) {
			snprintf(msg, sizeof(msg), "invalid digit '%c' in integer literal", t[p]);
			return fail(lx, tok, end, p, 1, diag,
				    t[p] == '_' ? "digit separators are not supported" : NULL, msg);
		}
		if (v > (UINT64_MAX - d) / base) {
			snprintf(msg, sizeof(msg), "integer literal '%.*s' is too large",
				 (int)(end - tok->off > 40 ? 40 : end - tok->off), t + tok->off);
			return fail(lx, tok, end, tok->off, end - tok->off, diag,
				    "integers have 64 bits (at most 18446744073709551615)", msg);
		}
		v = v * base + d;
	}
	tok->ival = (int64_t)v;
	finish(lx, tok, end);
	return 0;
}

/* Length of the escape at @p (just after the backslash), or 0 if invalid. */
static size_t escape_len(const char *p)
{
	if (*p && strchr("ntr\\\"0", *p))
		return 1;
	if (*p == 'x' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2]))
		return 3;
	return 0;
}

/* Offset just past the end of the string starting at @p (after its
 * opening quote): after the closing quote, or at the newline/NUL. */
static size_t string_end(const char *t, size_t p)
{
	while (t[p] && t[p] != '\n' && t[p] != '"')
		p += t[p] == '\\' && t[p + 1] && t[p + 1] != '\n' ? 2 : 1;
	return t[p] == '"' ? p + 1 : p;
}

static int lex_string(struct lexer *lx, struct token *tok, struct diag *diag)
{
	const char *t = lx->text;
	size_t p = lx->pos + 1, n;
	char msg[96];

	begin(lx, tok, TOK_STRING);
	while (t[p] != '"') {
		if (t[p] == '\0' || t[p] == '\n')
			return fail(lx, tok, p, tok->off, 1, diag,
				    "close the string with '\"' on the same line",
				    "unterminated string literal");
		if (t[p] != '\\') {
			p++;
			continue;
		}
		n = escape_len(t + p + 1);
		if (!n) {
			bool shown = isgraph((unsigned char)t[p + 1]);

			snprintf(msg, sizeof(msg), "invalid escape sequence '\\%.*s' in string literal",
				 shown ? 1 : 0, t + p + 1);
			return fail(lx, tok, string_end(t, p + 1), p, shown ? 2 : 1, diag,
				    "valid escapes are \\n \\t \\r \\\\ \\\" \\0 \\xHH", msg);
		}
		p += 1 + n;
	}
	finish(lx, tok, p + 1);
	return 0;
}

/* A word, or a path of them joined by "::" (a Rust static, a C++
 * namespace's global: `rust_global_program::G_COUNTER`), one identifier. */
static void lex_word(struct lexer *lx, struct token *tok)
{
	const char *t = lx->text;
	size_t end = lx->pos;
	bool path = false;

	begin(lx, tok, TOK_IDENT);
	while (is_ident_char(t[end]))
		end++;
	while (t[end] == ':' && t[end + 1] == ':' && is_ident_start(t[end + 2])) {
		path = true;
		end += 2;
		while (is_ident_char(t[end]))
			end++;
	}
	for (size_t i = 0; !path && i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		if (strlen(keywords[i].word) == end - lx->pos &&
		    !memcmp(keywords[i].word, lx->text + lx->pos, end - lx->pos))
			tok->kind = keywords[i].kind;
	}
	finish(lx, tok, end);
}

static int lex_special(struct lexer *lx, struct token *tok, struct diag *diag)
{
	size_t end = lx->pos + 1;

	begin(lx, tok, TOK_SPECIAL);
	while (is_ident_char(lx->text[end]))
		end++;
	if (end == lx->pos + 1)
		return fail(lx, tok, end, tok->off, 1, diag,
			    AST_SPECIALS_HINT,
			    "expected a name after '$'");
	finish(lx, tok, end);
	return 0;
}

/* The end of a Rust path segment in braces that starts at @at, just after
 * "::" ("{closure#0}", "{impl#1}"): past its '}', or @at when it is not
 * one (then '{' opens the probe's body). */
static size_t braced_segment(const char *text, size_t at)
{
	size_t end = at + 1;

	if (at < 2 || text[at] != '{' || text[at - 1] != ':' || text[at - 2] != ':')
		return at;
	while (text[end] && text[end] != '}' && !isspace((unsigned char)text[end]) &&
	       !strchr("{;", text[end]))
		end++;
	return text[end] == '}' ? end + 1 : at;
}

/* The end of the angle brackets that open at @at, spaces and all
 * ("<rscopes::Conn as rscopes::Handler>", "<int, std::allocator<int> >"):
 * past the '>' that closes them, or @at when none does on this line
 * before the probe's body. */
static size_t angled(const char *text, size_t at)
{
	int depth = 0;

	for (size_t i = at; text[i] && !strchr("{};\n", text[i]); i++) {
		if (text[i] == '<')
			depth++;
		else if (text[i] == '>' && --depth == 0)
			return i + 1;
	}
	return at;
}

/* The end of a parameter list that opens at @at, spaces and all
 * ("(std::string const&, int)"): past its ')', or @at when none closes
 * it before the probe's body. */
static size_t parenthesized(const char *text, size_t at)
{
	int depth = 0;

	for (size_t i = at; text[i] && !strchr("{};\n", text[i]); i++) {
		if (text[i] == '(')
			depth++;
		else if (text[i] == ')' && --depth == 0)
			return i + 1;
	}
	return at;
}

size_t lexer_past_operator(const char *text, size_t start, size_t at)
{
	size_t end = at + 8;

	if (strncmp(text + at, "operator", 8) || (at > start && is_ident_char(text[at - 1])) ||
	    is_ident_char(text[end]))
		return at;
	if (!strncmp(text + end, "()", 2) || !strncmp(text + end, "[]", 2))
		return end + 2;
	while (text[end] && strchr("<>=!+-*/%&|^~,", text[end]))
		end++;
	return end;
}

/* A trace pattern ends at a space, '{', '}' or ';' outside the brackets
 * of C++ and Rust names: `std::vector<int, std::allocator<int> >::push_back`,
 * `Store::lookup(std::string const&)`, `operator==`, `~Store`,
 * `main::{closure#0}`. */
static void lex_pattern(struct lexer *lx, struct token *tok)
{
	const char *text = lx->text;
	size_t end = lx->pos, seg;

	begin(lx, tok, TOK_PATTERN);
	while (text[end] && !isspace((unsigned char)text[end])) {
		if (strchr("};", text[end]))
			break;
		if ((seg = lexer_past_operator(text, lx->pos, end)) != end) {
			end = seg;
			continue;
		}
		seg = text[end] == '{' ? braced_segment(text, end)
		    : text[end] == '<' ? angled(text, end)
		    : text[end] == '(' ? parenthesized(text, end) : end + 1;
		if (seg == end && text[end] == '{')
			break;
		end = seg == end ? end + 1 : seg;
	}
	finish(lx, tok, end);
}

static int lex_punct(struct lexer *lx, struct token *tok, struct diag *diag)
{
	const char *s = lx->text + lx->pos;
	char msg[64];

	begin(lx, tok, TOK_ERROR);
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		size_t n = strlen(puncts[i].text);

		if (!strncmp(s, puncts[i].text, n)) {
			tok->kind = puncts[i].kind;
			finish(lx, tok, lx->pos + n);
			return 0;
		}
	}
	if (isgraph((unsigned char)*s))
		snprintf(msg, sizeof(msg), "unexpected character '%c'", *s);
	else
		snprintf(msg, sizeof(msg), "unexpected byte 0x%02x", (unsigned char)*s);
	return fail(lx, tok, lx->pos + 1, lx->pos, 1, diag, NULL, msg);
}

static int lex_one(struct lexer *lx, struct token *tok, struct diag *diag)
{
	char c = lx->text[lx->pos];

	if (c == '\0') {
		begin(lx, tok, TOK_EOF);
		return 0;
	}
	if (lx->want_pattern && !strchr("{};", c))
		lex_pattern(lx, tok);
	else if (isdigit((unsigned char)c))
		return lex_number(lx, tok, diag);
	else if (c == '"')
		return lex_string(lx, tok, diag);
	else if (is_ident_start(c))
		lex_word(lx, tok);
	else if (c == '$')
		return lex_special(lx, tok, diag);
	else
		return lex_punct(lx, tok, diag);
	return 0;
}

int lexer_next(struct lexer *lx, struct token *tok, struct diag *diag)
{
	int err;

	for (;;) {
		if (!skip_space(lx))
			break;
		err = lex_comment(lx, tok, diag);
		if (err || (lx->flags & LEXER_KEEP_COMMENTS))
			return err;
	}
	err = lex_one(lx, tok, diag);
	/* `s.trace` is a member named trace, not the start of a probe. */
	lx->want_pattern = tok->kind == TOK_TRACE && lx->prev != TOK_DOT && lx->prev != TOK_ARROW;
	lx->prev = tok->kind;
	return err;
}

static void push_off(size_t **arr, size_t *cap, size_t n, size_t off)
{
	if (!arr)
		return;
	*arr = xgrow(*arr, cap, n + 1, sizeof(**arr));
	(*arr)[n] = off;
}

size_t lexer_decode_string(const char *text, const struct token *tok, struct strbuf *out,
			   size_t **src_off)
{
	size_t p = tok->off + 1, end = tok->off + tok->len - 1, n = 0, cap = 0;
	static const char from[] = "ntr\\\"0", to[] = "\n\t\r\\\"\0";

	if (src_off)
		*src_off = NULL;
	while (p < end) {
		char c = text[p];
		size_t at = p, step = 1;

		if (c == '\\' && text[p + 1] == 'x') {
			c = (char)(hex_digit_value(text[p + 2]) * 16 + hex_digit_value(text[p + 3]));
			step = 4;
		} else if (c == '\\') {
			c = to[strchr(from, text[p + 1]) - from];
			step = 2;
		}
		strbuf_addch(out, c);
		push_off(src_off, &cap, n++, at);
		p += step;
	}
	push_off(src_off, &cap, n, end);
	return n;
}
