/* parser.c - recursive-descent parser for wraith scripts.
 *
 * One function per grammar rule, one token of lookahead, and a stop at the
 * first error: the user gets one precise message (what was expected, what
 * was found, where, and often a hint) rather than a cascade.  Errors are
 * sticky: the first one is kept in the parser and every rule returns NULL
 * once it is set, so rules need no error plumbing beyond "got NULL".
 * Lexer errors surface the same way: the lexer has already written the
 * diag and the parser merely stops at the TOK_ERROR.
 *
 * Expressions use precedence climbing over the binary operator table;
 * print format strings are split into pieces here so a bad placeholder is
 * reported at its column inside the literal.  Trace patterns are classified
 * by script_parse_target() (pattern.c), which the shell also calls.
 */
#include "script/parser.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire.h"
#include "script/lexer.h"
#include "script/typespec.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Parentheses and unary operators nest by recursion here; MAX_NESTING
 * bounds it.  Every later stage recurses over the tree, so the tree's
 * height is bounded as well (SCRIPT_MAX_EXPR_DEPTH, SCRIPT_MAX_BLOCK_DEPTH
 * in parser.h): a script that would blow a stack is a located error. */
#define MAX_NESTING 256

#define PUSH(arr, n, cap, item)                                         \
	do {                                                            \
		(arr) = xgrow((arr), &(cap), (n) + 1, sizeof(*(arr)));  \
		(arr)[(n)++] = (item);                                  \
	} while (0)

struct parser {
	const char *text;   /* borrowed: the whole script */
	struct lexer lx;
	struct token tok;   /* current (lookahead) token */
	struct token prev;  /* the token before it */
	struct diag *diag;
	int err;            /* first error, sticky */
	unsigned depth;     /* expression nesting */
	unsigned blocks;    /* block nesting */
	unsigned stmts;     /* statements in the current probe */
	unsigned mark_line; /* the line of the last AST_DISABLED_MARK comment
			       alone on its line; 0: none */
	char found[96];     /* scratch for describe() */
};

static const char *const builtins[] = { "strncmp", "starts_with", "memcmp", "hex", "cast" };

static const char FMT_HINT[] = "placeholders are {}, {:x}, {:X}, {:p}, {:s}, {:r}, {:x.N}, {:s.N}, "
			       "{:x.*} and {:x.name$}; write '{{' and '}}' for literal braces";

/* The comment just read: the mark `save` writes before a disabled probe
 * when it is alone on its line (no token before it there). */
static void note_comment(struct parser *p)
{
	size_t len = strlen(AST_DISABLED_MARK);

	if (p->tok.len == len && !memcmp(p->text + p->tok.off, AST_DISABLED_MARK, len) &&
	    p->prev.loc.line < p->tok.loc.line)
		p->mark_line = p->tok.loc.line;
}

static void next(struct parser *p)
{
	p->prev = p->tok;
	if (p->err) {
		p->tok.kind = TOK_ERROR;
		return;
	}
	for (;;) {
		p->err = lexer_next(&p->lx, &p->tok, p->diag);
		if (p->err || p->tok.kind != TOK_COMMENT)
			break;
		note_comment(p);
	}
}

static void vfail(struct parser *p, struct src_loc loc, const char *hint, const char *fmt,
		  va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	if (p->err)
		return;
	strbuf_vaddf(&sb, fmt, ap);
	if (p->diag)
		diag_set(p->diag, loc, hint, "%s", sb.buf);
	strbuf_release(&sb);
	p->err = -WR_ESYNTAX;
}

/* Record the first error (later ones are dropped). */
__attribute__((format(printf, 4, 5)))
static void fail(struct parser *p, struct src_loc loc, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(p, loc, hint, fmt, ap);
	va_end(ap);
}

/* Where to point when complaining about the current token: at it, or for
 * the end of input just past the last token (after a trailing newline the
 * caret would otherwise sit on an empty line). */
static struct src_loc here(const struct parser *p)
{
	struct src_loc loc = p->tok.loc;

	if (p->tok.kind == TOK_EOF && p->prev.len) {
		loc = p->prev.loc;
		loc.col += (unsigned)p->prev.len;
		loc.len = 1;
	}
	return loc;
}

/* "identifier 'x'", "'}'", "end of input": how the current token reads in
 * a "found ..." clause.  Valid until the next call. */
static const char *describe(struct parser *p)
{
	const struct token *t = &p->tok;
	int n = t->len > 40 ? 40 : (int)t->len;

	switch (t->kind) {
	case TOK_IDENT:
	case TOK_INT:
	case TOK_FLOAT:
		snprintf(p->found, sizeof(p->found), "%s '%.*s'", tok_kind_name(t->kind), n,
			 p->text + t->off);
		break;
	case TOK_SPECIAL:
	case TOK_PATTERN:
	case TOK_BT: /* "bt" or "backtrace", as written */
		snprintf(p->found, sizeof(p->found), "'%.*s'", n, p->text + t->off);
		break;
	default:
		snprintf(p->found, sizeof(p->found), "%s", tok_kind_name(t->kind));
	}
	return p->found;
}

/* Consume a token of @kind or fail with "expected K @where, found ...". */
static bool expect(struct parser *p, enum tok_kind kind, const char *where, const char *hint)
{
	if (p->err)
		return false;
	if (p->tok.kind != kind) {
		fail(p, here(p), hint, "expected %s %s, found %s", tok_kind_name(kind), where,
		     describe(p));
		return false;
	}
	next(p);
	return true;
}

/* Optimal-string-alignment distance, capped for short keywords. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[33][33];

	if (la > 32 || lb > 32)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

/* A keyword from @words that @word is probably a typo of, or NULL. */
static const char *suggest(const char *word, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned d = edit_distance(word, words[i]);

		if (d > 0 && strlen(word) >= 3 && (d == 1 || (d == 2 && strlen(words[i]) >= 6)))
			return words[i];
	}
	return NULL;
}

/* ---- expressions ---- */

static struct ast_expr *parse_expr(struct parser *p);

static struct ast_expr *new_expr(enum ast_expr_kind kind, const struct token *t)
{
	struct ast_expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->loc = t->loc;
	e->off = t->off;
	e->end = t->off + t->len;
	e->height = 1;
	return e;
}

/* Set @e's height from its children; a tree higher than the limit is an
 * error at @loc (the operator that made it so). */
static bool set_height(struct parser *p, struct ast_expr *e, struct src_loc loc)
{
	unsigned h = 0;

	if (e->lhs && e->lhs->height > h)
		h = e->lhs->height;
	if (e->rhs && e->rhs->height > h)
		h = e->rhs->height;
	for (size_t i = 0; i < e->n_args; i++)
		if (e->args[i]->height > h)
			h = e->args[i]->height;
	e->height = h + 1;
	if (e->height <= SCRIPT_MAX_EXPR_DEPTH)
		return true;
	fail(p, loc, "split the expression with `let` (each binding is one value)",
	     "expression too deep: more than %d operations nested (a chain such as `a + b + c` "
	     "nests one level per operator)", SCRIPT_MAX_EXPR_DEPTH);
	return false;
}

/* Stretch @e to end at byte @end. */
static void extend(struct ast_expr *e, size_t end)
{
	e->end = end;
	e->loc.len = (unsigned)(end - e->off);
}

static void parse_cast_type(struct parser *p, struct ast_expr *call);

static struct ast_expr *parse_call(struct parser *p, struct ast_expr *callee)
{
	size_t cap = 0;
	bool known = false;

	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		known |= !strcmp(callee->str, builtins[i]);
	callee->kind = AST_EXPR_CALL;
	if (!known) {
		fail(p, callee->loc, "built-in functions are strncmp, starts_with, memcmp, hex and cast",
		     "unknown function '%s'", callee->str);
		goto out_free;
	}
	next(p);
	while (!p->err && p->tok.kind != TOK_RPAREN) {
		struct ast_expr *arg = parse_expr(p);

		if (!arg)
			goto out_free;
		PUSH(callee->args, callee->n_args, cap, arg);
		if (p->tok.kind != TOK_COMMA)
			break;
		next(p);
	}
	if (!p->err && p->tok.kind != TOK_RPAREN)
		fail(p, here(p), NULL, "expected ',' or ')' in the arguments of '%s', found %s",
		     callee->str, describe(p));
	if (p->err || !set_height(p, callee, callee->loc))
		goto out_free;
	extend(callee, p->tok.off + 1);
	if (!strcmp(callee->str, "cast") && (parse_cast_type(p, callee), p->err))
		goto out_free;
	next(p);
	return callee;
out_free:
	ast_expr_free(callee);
	return NULL;
}

static struct ast_expr *parse_special(struct parser *p)
{
	const struct token *t = &p->tok;
	struct ast_expr *e;

	for (size_t i = 0; i < AST_SPECIAL_COUNT; i++) {
		const char *name = ast_special_name((enum ast_special)i);

		if (t->len > 1 && strlen(name) == t->len - 1 && !memcmp(name, p->text + t->off + 1, t->len - 1)) {
			e = new_expr(AST_EXPR_SPECIAL, t);
			e->special = (enum ast_special)i;
			next(p);
			return e;
		}
	}
	fail(p, t->loc, AST_SPECIALS_HINT, "unknown special variable '%.*s'", (int)t->len,
	     p->text + t->off);
	return NULL;
}

/* Words that start a statement, which no cast is followed by. */
static const char *const statement_words[] = { "print", "bt", "backtrace", "if", "else", "let", "trace",
					       "count" };

static bool is_type_word(const char *s, size_t n)
{
	static const char *const words[] = { "struct", "union", "enum", "unsigned", "signed", "char", "short",
					     "int", "long", "float", "double", "void", "_Bool", "bool", "const",
					     "volatile" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], s, n))
			return true;
	return false;
}

/* The length of the type name a C-style cast at @s (just after its '(')
 * holds, up to its ')': words, '*', '&', '::' and template brackets
 * only, with a C type keyword, a '*' or '&' at its end, or (a lone name)
 * an operand right after the ')'; 0 when @s is not one. */
static size_t c_cast_type(const char *s)
{
	size_t n = 0, words = 0;
	bool keyword = false, star = false;
	const char *after;

	while (s[n] && s[n] != ')') {
		if (isalpha((unsigned char)s[n]) || s[n] == '_') {
			size_t w = n;

			while (isalnum((unsigned char)s[n]) || s[n] == '_')
				n++;
			keyword = keyword || is_type_word(s + w, n - w);
			words++;
			star = false;
		} else if (strchr("*&", s[n])) {
			star = words > 0;
			n++;
		} else if (strchr(" \t:<>,", s[n])) {
			n++;
		} else {
			return 0;
		}
	}
	if (s[n] != ')' || !words)
		return 0;
	for (after = s + n + 1; *after == ' ' || *after == '\t'; after++)
		;
	for (size_t i = 0; i < sizeof(statement_words) / sizeof(statement_words[0]); i++)
		if (!strncmp(after, statement_words[i], strlen(statement_words[i])) &&
		    !isalnum((unsigned char)after[strlen(statement_words[i])]) && after[strlen(statement_words[i])] != '_')
			return 0; /* `if (x) print ...`: a statement follows, not an operand */
	if (keyword || star || (words == 1 && (isalnum((unsigned char)*after) || strchr("_($\"", *after))))
		return *after && *after != ';' && *after != ')' && *after != ',' ? n : 0;
	return 0;
}

/* A C-style cast, `(char *)p`: not the script's, which writes it
 * cast(p, "char *"); said with the hint, at the parenthesized type. */
static bool refuse_c_cast(struct parser *p, const struct token *open)
{
	const char *s = p->text + open->off + 1, *op;
	size_t n = c_cast_type(s), type_end = n, op_len;
	struct src_loc loc = open->loc;
	char hint[192];

	if (!n)
		return false;
	while (type_end && s[type_end - 1] == ' ')
		type_end--;
	for (op = s + n + 1; *op == ' '; op++)
		;
	/* the operand C's cast takes: a name and its members and elements */
	for (op_len = 0; op[op_len]; op_len++) {
		if (op[op_len] == '-' && op[op_len + 1] == '>')
			op_len++;
		else if (!isalnum((unsigned char)op[op_len]) && !strchr("_.[]", op[op_len]))
			break;
	}
	if (!memchr(s, '\n', n))
		loc.len = (unsigned)n + 2;
	snprintf(hint, sizeof(hint), "write cast(%.*s, \"%.*s\")%s", op_len && op_len < 40 ? (int)op_len : 4,
		 op_len && op_len < 40 ? op : "EXPR", (int)(type_end < 80 ? type_end : 80), s,
		 " (doc/script-reference.md: cast)");
	fail(p, loc, hint, "a C-style cast is not part of the script language");
	return true;
}

static struct ast_expr *parse_paren(struct parser *p)
{
	struct token open = p->tok;
	struct ast_expr *e;

	if (refuse_c_cast(p, &open))
		return NULL;
	next(p);
	e = parse_expr(p);
	if (e && p->tok.kind != TOK_RPAREN)
		fail(p, here(p), NULL, "expected ')' to match the '(' at %u:%u, found %s",
		     open.loc.line, open.loc.col, describe(p));
	if (p->err) {
		ast_expr_free(e);
		return NULL;
	}
	next(p);
	return e;
}

static struct ast_expr *parse_primary(struct parser *p)
{
	struct ast_expr *e = NULL;
	struct strbuf sb = STRBUF_INIT;

	switch (p->tok.kind) {
	case TOK_INT:
	case TOK_TRUE:
	case TOK_FALSE:
		e = new_expr(p->tok.kind == TOK_INT ? AST_EXPR_INT : AST_EXPR_BOOL, &p->tok);
		e->ival = p->tok.kind == TOK_INT ? p->tok.ival : p->tok.kind == TOK_TRUE;
		e->num_flags = p->tok.num_flags;
		break;
	case TOK_FLOAT:
		e = new_expr(AST_EXPR_FLOAT, &p->tok);
		e->fval = p->tok.fval;
		e->num_flags = p->tok.num_flags;
		break;
	case TOK_STRING:
		e = new_expr(AST_EXPR_STRING, &p->tok);
		e->str_len = lexer_decode_string(p->text, &p->tok, &sb, NULL);
		e->str = strbuf_detach(&sb);
		break;
	case TOK_IDENT:
		e = new_expr(AST_EXPR_IDENT, &p->tok);
		e->str = xstrndup(p->text + p->tok.off, p->tok.len);
		next(p);
		return p->tok.kind == TOK_LPAREN ? parse_call(p, e) : e;
	case TOK_SPECIAL:
		return parse_special(p);
	case TOK_LPAREN:
		return parse_paren(p);
	default:
		fail(p, here(p), NULL, "expected an expression, found %s", describe(p));
		return NULL;
	}
	next(p);
	return e;
}

/* The name after '.' or '->': a field (keywords allowed: C fields may be
 * called `trace`) or a decimal tuple index. */
static char *member_name(struct parser *p, bool arrow)
{
	const struct token *t = &p->tok;
	const char *s = p->text + t->off;

	if (t->kind == TOK_INT && strspn(s, "0123456789") < t->len) {
		fail(p, t->loc, NULL, "tuple index must be a decimal number, found '%.*s'",
		     (int)t->len, s);
		return NULL;
	}
	if (t->kind != TOK_INT && t->kind != TOK_IDENT && tok_kind_class(t->kind) != SCRIPT_HL_KEYWORD) {
		fail(p, t->loc, NULL, "expected a member name after '%s', found %s", arrow ? "->" : ".",
		     describe(p));
		return NULL;
	}
	return xstrndup(s, t->len);
}

static struct ast_expr *wrap(enum ast_expr_kind kind, struct ast_expr *lhs)
{
	struct ast_expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->loc = lhs->loc;
	e->off = lhs->off;
	e->end = lhs->end;
	e->lhs = lhs;
	return e;
}

/* `s.starts_with("pre")`, as C++20's std::string and Rust's str write
 * it: the built-in starts_with(s, "pre").  @e is the member `starts_with`
 * of the string, the token after its '('; NULL on error (@e freed). */
static struct ast_expr *method_starts_with(struct parser *p, struct ast_expr *e)
{
	struct ast_expr *prefix;
	size_t cap = 0;

	if (e->arrow) {
		fail(p, e->loc, "write (*p).starts_with(\"...\") or starts_with(*p, \"...\")",
		     "starts_with is a method of a string, not of a pointer to one");
		ast_expr_free(e);
		return NULL;
	}
	prefix = p->tok.kind == TOK_RPAREN ? NULL : parse_expr(p);
	if (!p->err && (!prefix || p->tok.kind != TOK_RPAREN))
		fail(p, here(p), "starts_with takes one argument, the prefix: s.starts_with(\"ab\")",
		     "expected %s, found %s", prefix ? "')'" : "the prefix", describe(p));
	if (p->err) {
		ast_expr_free(prefix);
		ast_expr_free(e);
		return NULL;
	}
	e->kind = AST_EXPR_CALL;
	e->call = true;
	PUSH(e->args, e->n_args, cap, e->lhs);
	PUSH(e->args, e->n_args, cap, prefix);
	e->lhs = NULL;
	if (!set_height(p, e, e->loc)) {
		ast_expr_free(e);
		return NULL;
	}
	extend(e, p->tok.off + p->tok.len);
	next(p);
	return e;
}

static struct ast_expr *parse_postfix(struct parser *p)
{
	struct ast_expr *e = parse_primary(p);

	while (e && (p->tok.kind == TOK_DOT || p->tok.kind == TOK_ARROW ||
		     p->tok.kind == TOK_LBRACKET)) {
		bool arrow = p->tok.kind == TOK_ARROW, dot = arrow || p->tok.kind == TOK_DOT;
		struct src_loc op = p->tok.loc;

		e = wrap(dot ? AST_EXPR_MEMBER : AST_EXPR_INDEX, e);
		e->arrow = arrow;
		next(p);
		if (dot)
			e->str = member_name(p, arrow);
		else if ((e->rhs = parse_expr(p)) && p->tok.kind != TOK_RBRACKET)
			fail(p, here(p), NULL, "expected ']' after the index, found %s", describe(p));
		if (p->err || !set_height(p, e, op)) {
			ast_expr_free(e);
			return NULL;
		}
		extend(e, p->tok.off + p->tok.len);
		next(p);
		if (dot && p->tok.kind == TOK_LPAREN) {
			next(p);
			if (!strcmp(e->str, "starts_with")) {
				e = method_starts_with(p, e);
				continue;
			}
			if (p->tok.kind != TOK_RPAREN) {
				fail(p, here(p), "size(), length(), empty(), has_value(), get() take none",
				     "expected ')': the library's methods take no arguments, found %s",
				     describe(p));
				ast_expr_free(e);
				return NULL;
			}
			e->call = true;
			extend(e, p->tok.off + p->tok.len);
			next(p);
		}
	}
	return e;
}

static struct ast_expr *parse_unary(struct parser *p)
{
	static const struct {
		enum tok_kind tok;
		enum ast_op op;
	} ops[] = {
		{ TOK_MINUS, AST_OP_NEG }, { TOK_BANG, AST_OP_NOT }, { TOK_TILDE, AST_OP_BITNOT },
		{ TOK_STAR, AST_OP_DEREF }, { TOK_AMP, AST_OP_ADDR },
	};
	struct ast_expr *e = NULL, *operand;
	size_t i;

	if (++p->depth > MAX_NESTING) {
		fail(p, here(p), NULL, "expression nested too deeply (more than %d levels)",
		     MAX_NESTING);
		goto out;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && ops[i].tok != p->tok.kind; i++)
		;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		e = parse_postfix(p);
		goto out;
	}
	e = new_expr(AST_EXPR_UNARY, &p->tok);
	e->op = ops[i].op;
	next(p);
	operand = parse_unary(p);
	if (operand)
		e->lhs = operand;
	if (!operand || !set_height(p, e, e->loc)) {
		ast_expr_free(e);
		e = NULL;
		goto out;
	}
	extend(e, operand->end);
out:
	p->depth--;
	return e;
}

/* The binary operators by token; how tightly each binds is
 * ast_op_precedence(), shared with the printers. */
static const struct binop {
	enum tok_kind tok;
	enum ast_op op;
} binops[] = {
	{ TOK_STAR, AST_OP_MUL },     { TOK_SLASH, AST_OP_DIV },    { TOK_PERCENT, AST_OP_MOD },
	{ TOK_PLUS, AST_OP_ADD },     { TOK_MINUS, AST_OP_SUB },
	{ TOK_SHL, AST_OP_SHL },      { TOK_SHR, AST_OP_SHR },
	{ TOK_LT, AST_OP_LT },        { TOK_LE, AST_OP_LE },
	{ TOK_GT, AST_OP_GT },        { TOK_GE, AST_OP_GE },
	{ TOK_EQ, AST_OP_EQ },        { TOK_NE, AST_OP_NE },
	{ TOK_AMP, AST_OP_BITAND },   { TOK_CARET, AST_OP_BITXOR },
	{ TOK_PIPE, AST_OP_BITOR },   { TOK_ANDAND, AST_OP_AND },
	{ TOK_OROR, AST_OP_OR },
};

static const struct binop *find_binop(enum tok_kind kind)
{
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (binops[i].tok == kind)
			return &binops[i];
	return NULL;
}

/* Precedence climbing: operands bind tighter than @min_prec; all binary
 * operators are left-associative. */
static struct ast_expr *parse_binary(struct parser *p, int min_prec)
{
	struct ast_expr *lhs = parse_unary(p), *rhs;
	const struct binop *b;

	while (lhs && (b = find_binop(p->tok.kind)) && ast_op_precedence(b->op) >= min_prec) {
		struct src_loc op = p->tok.loc;

		next(p);
		rhs = parse_binary(p, ast_op_precedence(b->op) + 1);
		if (!rhs) {
			ast_expr_free(lhs);
			return NULL;
		}
		lhs = wrap(AST_EXPR_BINARY, lhs);
		lhs->op = b->op;
		lhs->rhs = rhs;
		extend(lhs, rhs->end);
		if (!set_height(p, lhs, op)) {
			ast_expr_free(lhs);
			return NULL;
		}
	}
	return lhs;
}

static struct ast_expr *parse_expr(struct parser *p)
{
	return parse_binary(p, 1);
}

/* ---- print format strings ---- */

/* Where the decoded format bytes came from in the source. */
struct fmt_src {
	const struct token *tok;
	const size_t *offs;   /* decoded byte -> script offset, plus the closing quote */
};

/* Location of decoded bytes [@i, @j] inside the literal. */
static struct src_loc fmt_loc(const struct fmt_src *fs, size_t i, size_t j)
{
	struct src_loc loc = fs->tok->loc;

	loc.col += (unsigned)(fs->offs[i] - fs->tok->off);
	loc.len = (unsigned)(fs->offs[j + 1] - fs->offs[i]);
	return loc;
}

/* Location of @len decoded bytes from @at (of @n) inside the literal; at
 * its end, the closing quote. */
static struct src_loc span_loc(const struct fmt_src *fs, size_t at, size_t len, size_t n)
{
	struct src_loc loc = fs->tok->loc;

	if (at < n)
		return fmt_loc(fs, at, (at + len < n ? at + len : n) - 1);
	loc.col += (unsigned)(fs->offs[n] - fs->tok->off);
	loc.len = 1;
	return loc;
}

/* cast(e, "TYPE"): the type is parsed here, so that a mistake in it is
 * shown at its column inside the literal; where its module and base type
 * are is kept for the errors of later stages. */
static void parse_cast_type(struct parser *p, struct ast_expr *call)
{
	const struct ast_expr *lit = call->n_args == 2 ? call->args[1] : NULL;
	struct token tok;
	struct strbuf sb = STRBUF_INIT;
	struct fmt_src fs = { .tok = &tok };
	struct typespec_error err;
	struct typespec *ts;
	size_t *offs;

	if (!lit || lit->kind != AST_EXPR_STRING || !lit->str_len)
		return; /* the checker says what is wrong */
	tok = (struct token){ .kind = TOK_STRING, .off = lit->off, .len = lit->end - lit->off,
			      .loc = lit->loc };
	lexer_decode_string(p->text, &tok, &sb, &offs);
	fs.offs = offs;
	if (typespec_parse(sb.buf, sb.len, &ts, &err)) {
		fail(p, span_loc(&fs, err.at, err.len, sb.len), err.hint, "%s", err.msg);
	} else {
		ts->name_loc = span_loc(&fs, ts->name_at, ts->name_len, sb.len);
		if (ts->module)
			ts->module_loc = span_loc(&fs, ts->module_at, ts->module_len, sb.len);
		call->ctype = ts;
	}
	free(offs);
	strbuf_release(&sb);
}

/* Parse a dump length "16", "0x10", "0b1", "0o7".  Returns false if invalid. */
static bool parse_dump_len(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (n > 2 && s[0] == '0' && strchr("xob", s[1])) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2;
		n -= 2;
	}
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = isdigit((unsigned char)s[i]) ? (unsigned)(s[i] - '0')
			   : isxdigit((unsigned char)s[i]) ? (unsigned)(tolower(s[i]) - 'a' + 10) : 99;

		if (d >= base || v > (UINT32_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

static bool is_ident(const char *s, size_t n)
{
	if (!n || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* The ".N" / ".*" / ".name$" part of a placeholder (after the '.'). */
static void parse_dump_spec(struct parser *p, const char *s, size_t n, struct ast_fmt_piece *pc)
{
	if (n == 1 && s[0] == '*') {
		pc->len_kind = AST_FMT_LEN_STAR;
	} else if (n >= 2 && s[n - 1] == '$' && is_ident(s, n - 1)) {
		pc->len_kind = AST_FMT_LEN_VAR;
		pc->len_var = xstrndup(s, n - 1);
	} else if (parse_dump_len(s, n, &pc->len_value)) {
		pc->len_kind = AST_FMT_LEN_FIXED;
		if (!pc->len_value)
			fail(p, pc->loc, NULL, "memory dump length must be at least 1");
	} else {
		fail(p, pc->loc,
		     "use a number ({:x.16}), '*' to take it from the arguments ({:x.*}) "
		     "or a script variable ({:x.len$})",
		     "invalid memory dump length '%.*s'", (int)n, s);
	}
}

/* Fill @pc from the text between the braces of a placeholder. */
static void parse_spec(struct parser *p, const char *s, size_t n, struct ast_fmt_piece *pc)
{
	static const char letters[] = "xXpsr";
	static const enum ast_fmt_spec specs[] = { AST_FMT_HEX, AST_FMT_HEX_UPPER, AST_FMT_PTR,
						   AST_FMT_STR, AST_FMT_RAW };
	const char *l;

	pc->spec = AST_FMT_DEFAULT;
	if (!n)
		return;
	l = n >= 2 && s[0] == ':' ? strchr(letters, s[1]) : NULL;
	if (!l || !*l || (n > 2 && s[2] != '.')) {
		fail(p, pc->loc, FMT_HINT, "unknown format specifier '{%.*s}'", (int)n, s);
		return;
	}
	pc->spec = specs[l - letters];
	if (n == 2)
		return;
	if (pc->spec == AST_FMT_PTR || pc->spec == AST_FMT_RAW) {
		fail(p, pc->loc, NULL, "'{:%c}' does not take a length", s[1]);
		return;
	}
	parse_dump_spec(p, s + 3, n - 3, pc);
}

/* Split the decoded format @buf (@n bytes) into @s->pieces. */
static void split_format(struct parser *p, const struct fmt_src *fs, const char *buf, size_t n,
			 struct ast_stmt *s)
{
	struct strbuf lit = STRBUF_INIT;
	struct ast_fmt_piece pc;
	size_t cap = 0, i = 0, j;

	while (i < n && !p->err) {
		if ((buf[i] == '{' || buf[i] == '}') && i + 1 < n && buf[i + 1] == buf[i]) {
			strbuf_addch(&lit, buf[i]);
			i += 2;
			continue;
		}
		if (buf[i] == '}') {
			fail(p, fmt_loc(fs, i, i), "write '}}' for a literal '}'",
			     "unmatched '}' in format string");
			break;
		}
		if (buf[i] != '{') {
			strbuf_addch(&lit, buf[i++]);
			continue;
		}
		for (j = i + 1; j < n && buf[j] != '}'; j++)
			;
		if (j == n) {
			fail(p, fmt_loc(fs, i, i), "close it with '}', or write '{{' for a literal '{'",
			     "unclosed '{' in format string");
			break;
		}
		memset(&pc, 0, sizeof(pc));
		pc.has_placeholder = true;
		pc.loc = fmt_loc(fs, i, j);
		parse_spec(p, buf + i + 1, j - i - 1, &pc);
		pc.literal_len = lit.len;
		pc.literal = strbuf_detach(&lit);
		PUSH(s->pieces, s->n_pieces, cap, pc);
		i = j + 1;
	}
	memset(&pc, 0, sizeof(pc));
	pc.literal_len = lit.len;
	pc.literal = strbuf_detach(&lit);
	PUSH(s->pieces, s->n_pieces, cap, pc);
}

static void parse_format(struct parser *p, struct ast_stmt *s)
{
	struct strbuf raw = STRBUF_INIT;
	struct fmt_src fs = { .tok = &p->tok };
	size_t *offs, n;

	n = lexer_decode_string(p->text, &p->tok, &raw, &offs);
	fs.offs = offs;
	split_format(p, &fs, raw.buf, n, s);
	s->fmt_len = n;
	s->fmt = strbuf_detach(&raw);
	free(offs);
	next(p);
}

/* ---- statements ---- */

static void parse_block(struct parser *p, struct ast_block *b, size_t *body_off,
			size_t *body_end);

static struct ast_stmt *new_stmt(enum ast_stmt_kind kind, const struct token *t)
{
	struct ast_stmt *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->loc = t->loc;
	return s;
}

static bool starts_expr(enum tok_kind k)
{
	return k == TOK_IDENT || k == TOK_INT || k == TOK_FLOAT || k == TOK_STRING || k == TOK_SPECIAL ||
	       k == TOK_LPAREN || k == TOK_TRUE || k == TOK_FALSE;
}

static struct ast_stmt *parse_print(struct parser *p)
{
	struct ast_stmt *s = new_stmt(AST_STMT_PRINT, &p->tok);
	struct ast_expr *arg;
	size_t cap = 0;

	next(p);
	if (p->tok.kind == TOK_STRING) {
		parse_format(p, s);
		while (!p->err && p->tok.kind == TOK_COMMA) {
			next(p);
			if ((arg = parse_expr(p)))
				PUSH(s->args, s->n_args, cap, arg);
		}
	} else if (p->tok.kind == TOK_SEMI || p->tok.kind == TOK_RBRACE) {
		fail(p, here(p), NULL,
		     "expected a format string or an expression after 'print', found %s", describe(p));
	} else if ((arg = parse_expr(p))) {
		PUSH(s->args, s->n_args, cap, arg);
		if (p->tok.kind == TOK_COMMA)
			fail(p, here(p), "to print several values use a format string: print \"{} {}\", a, b;",
			     "expected ';' after print statement, found ','");
	}
	expect(p, TOK_SEMI, "after print statement",
	       s->fmt && starts_expr(p->tok.kind) ? "separate the arguments with ','"
						   : "statements end with ';'");
	if (p->err) {
		ast_stmt_free(s);
		return NULL;
	}
	return s;
}

/* Apply one bt option word; @seen collects the words already given. */
static void bt_option(struct parser *p, struct ast_stmt *s, unsigned *seen)
{
	static const char *const names[] = { "raw", "full", "inline", "noinline", "args" };
	const char *w = p->text + p->tok.off;
	size_t i;

	for (i = 0; i < 5 && !(strlen(names[i]) == p->tok.len && !memcmp(names[i], w, p->tok.len)); i++)
		;
	if (i == 5) {
		fail(p, here(p), "valid bt options are raw, full, args, inline and noinline",
		     "unknown bt option '%.*s'", (int)p->tok.len, w);
	} else if (*seen & (1u << i)) {
		fail(p, here(p), NULL, "duplicate bt option '%s'", names[i]);
	} else if ((i == 2 || i == 3) && (*seen & (1u << (5 - i)))) {
		fail(p, here(p), "inline frames are shown by default; use 'noinline' alone to hide them",
		     "bt options 'inline' and 'noinline' contradict each other");
	}
	*seen |= 1u << i;
	if (i == 0)
		s->bt_flags |= WR_BT_F_RAW;
	else if (i == 1)
		s->bt_flags |= WR_BT_F_FULL;
	else if (i == 3)
		s->bt_flags &= ~WR_BT_F_INLINE;
	else if (i == 4)
		s->bt_flags |= WR_BT_F_ARGS;
	next(p);
}

static struct ast_stmt *parse_bt(struct parser *p)
{
	struct ast_stmt *s = new_stmt(AST_STMT_BT, &p->tok);
	unsigned seen = 0;

	s->bt_flags = WR_BT_F_INLINE;
	next(p);
	while (!p->err && p->tok.kind == TOK_IDENT)
		bt_option(p, s, &seen);
	expect(p, TOK_SEMI, "after bt statement",
	       p->tok.kind == TOK_INT ? "the depth is global (--backtrace-depth), not per statement"
				      : "valid bt options are raw, full, args, inline and noinline");
	if (p->err) {
		ast_stmt_free(s);
		return NULL;
	}
	return s;
}

/* After the word `count`, is the next token `bt`?  (`count` is not a
 * keyword: a program variable may be called count.) */
static bool count_bt_ahead(const struct parser *p)
{
	struct lexer lx = p->lx;
	struct token t;

	return p->tok.kind == TOK_IDENT && p->tok.len == 5 && !memcmp(p->text + p->tok.off, "count", 5) &&
	       lexer_next(&lx, &t, NULL) == 0 && t.kind == TOK_BT;
}

/* `count bt [OPTIONS] [, KEY];` */
static struct ast_stmt *parse_count(struct parser *p)
{
	struct ast_stmt *s = new_stmt(AST_STMT_COUNT, &p->tok);
	unsigned seen = 0;

	s->bt_flags = WR_BT_F_INLINE;
	next(p); /* count */
	next(p); /* bt */
	while (!p->err && p->tok.kind == TOK_IDENT) {
		struct src_loc at = p->tok.loc;

		bt_option(p, s, &seen);
		/* A counted stack keeps its frames only, never their values. */
		if (!p->err && (s->bt_flags & (WR_BT_F_ARGS | WR_BT_F_FULL)))
			fail(p, at, "count the stacks with count bt, and show values with bt args or bt full",
			     "count bt takes no frame values ('args', 'full')");
	}
	if (!p->err && p->tok.kind == TOK_COMMA) {
		next(p);
		s->value = parse_expr(p);
	}
	expect(p, TOK_SEMI, "after count statement",
	       "count bt; counts the stack, count bt, KEY; counts it per value of KEY");
	if (p->err) {
		ast_stmt_free(s);
		return NULL;
	}
	return s;
}

/* `if COND { ... }` at the 'if': one arm of a chain.  NULL on error. */
static struct ast_stmt *parse_arm(struct parser *p)
{
	struct ast_stmt *s = new_stmt(AST_STMT_IF, &p->tok);

	next(p);
	s->cond = parse_expr(p);
	if (s->cond && p->tok.kind != TOK_LBRACE)
		fail(p, here(p), "the body of 'if' must be enclosed in braces",
		     "expected '{' after the if condition, found %s", describe(p));
	if (!p->err)
		parse_block(p, &s->then_body, NULL, NULL);
	if (p->err) {
		ast_stmt_free(s);
		return NULL;
	}
	return s;
}

/* A whole if / else if ... / else chain; the arms after the first go
 * into a flat list (see ast.h), read in a loop. */
static struct ast_stmt *parse_if(struct parser *p)
{
	struct ast_stmt *s = parse_arm(p), *arm;
	size_t cap = 0;

	while (s && !p->err && p->tok.kind == TOK_ELSE) {
		next(p);
		if (p->tok.kind == TOK_LBRACE) {
			parse_block(p, &s->else_body, NULL, NULL);
			break;
		}
		if (p->tok.kind != TOK_IF) {
			fail(p, here(p), NULL, "expected '{' or 'if' after 'else', found %s",
			     describe(p));
			break;
		}
		if ((arm = parse_arm(p)))
			PUSH(s->elifs, s->n_elifs, cap, arm);
	}
	if (p->err) {
		ast_stmt_free(s);
		return NULL;
	}
	return s;
}

static struct ast_stmt *parse_let(struct parser *p)
{
	struct ast_stmt *s = new_stmt(AST_STMT_LET, &p->tok);

	next(p);
	if (p->tok.kind != TOK_IDENT) {
		fail(p, here(p), NULL, "expected a variable name after 'let', found %s",
		     describe(p));
		goto out_free;
	}
	s->name = xstrndup(p->text + p->tok.off, p->tok.len);
	s->name_loc = p->tok.loc;
	next(p);
	if (p->tok.kind != TOK_ASSIGN)
		fail(p, here(p), NULL, "expected '=' after 'let %s', found %s", s->name,
		     describe(p));
	next(p);
	if (!p->err)
		s->value = parse_expr(p);
	expect(p, TOK_SEMI, "after let statement", "statements end with ';'");
	if (!p->err)
		return s;
out_free:
	ast_stmt_free(s);
	return NULL;
}

static struct ast_stmt *parse_expr_stmt(struct parser *p)
{
	static const char *const stmt_words[] = { "print", "backtrace", "let", "else" };
	struct ast_stmt *s = new_stmt(AST_STMT_EXPR, &p->tok);
	const char *kw;

	s->value = parse_expr(p);
	if (p->err)
		goto out_free;
	if (p->tok.kind == TOK_ASSIGN) {
		fail(p, here(p), "use 'let NAME = ...' to bind a value once",
		     "assignment is not supported: variables are immutable");
	} else if (p->tok.kind != TOK_SEMI && s->value->kind == AST_EXPR_IDENT &&
		   (kw = suggest(s->value->str, stmt_words, 4))) {
		char hint[64];

		snprintf(hint, sizeof(hint), "did you mean '%s'?", kw);
		fail(p, s->value->loc, hint, "unknown statement '%s'", s->value->str);
	}
	expect(p, TOK_SEMI, "after expression", "statements end with ';'");
	if (!p->err)
		return s;
out_free:
	ast_stmt_free(s);
	return NULL;
}

/* One statement, or NULL for an empty one (`;`) or on error. */
static struct ast_stmt *parse_stmt(struct parser *p)
{
	switch (p->tok.kind) {
	case TOK_PRINT:
		return parse_print(p);
	case TOK_BT:
		return parse_bt(p);
	case TOK_IF:
		return parse_if(p);
	case TOK_LET:
		return parse_let(p);
	case TOK_SEMI:
		next(p);
		return NULL;
	case TOK_TRACE:
		fail(p, here(p), "close the enclosing block with '}' before the next 'trace'",
		     "'trace' blocks cannot be nested");
		return NULL;
	case TOK_ELSE:
		fail(p, here(p), NULL, "'else' without a matching 'if'");
		return NULL;
	default:
		if (count_bt_ahead(p))
			return parse_count(p);
		return parse_expr_stmt(p);
	}
}

/* Parse `{ stmts }` starting at the '{'.  @body_off/@body_end (may be NULL)
 * receive the byte range between the braces. */
static void parse_block(struct parser *p, struct ast_block *b, size_t *body_off,
			size_t *body_end)
{
	struct token open = p->tok;
	struct ast_stmt *s;
	size_t cap = 0;

	if (++p->blocks > SCRIPT_MAX_BLOCK_DEPTH) {
		fail(p, open.loc, "an `else if` chain does not nest: write `} else if ... {` instead "
		     "of `} else { if ... }`", "blocks nested too deeply (more than %d levels)",
		     SCRIPT_MAX_BLOCK_DEPTH);
		return;
	}
	next(p);
	while (!p->err && p->tok.kind != TOK_RBRACE) {
		if (p->tok.kind == TOK_EOF) {
			fail(p, open.loc, "add the missing '}'",
			     "unclosed '{': expected '}' before end of input");
			break;
		}
		if (!(s = parse_stmt(p)))
			continue;
		PUSH(b->stmts, b->n, cap, s);
		p->stmts += 1 + (unsigned)s->n_elifs;
		if (p->stmts > SCRIPT_MAX_PROBE_STMTS)
			fail(p, s->n_elifs ? s->elifs[s->n_elifs - 1]->loc : s->loc,
			     "split the work over several probes on the same target",
			     "too many statements in one probe (more than %d; an `else if` "
			     "counts as one)", SCRIPT_MAX_PROBE_STMTS);
	}
	p->blocks--;
	if (p->err)
		return;
	if (body_off)
		*body_off = open.off + 1;
	if (body_end)
		*body_end = p->tok.off;
	next(p);
}

static void parse_pattern(struct parser *p, struct ast_probe *pr)
{
	char *pat;
	int err;

	if (p->tok.kind != TOK_PATTERN) {
		fail(p, here(p), "e.g. 'trace main {', 'trace file.c:42 {' or 'trace 0x401000 {'",
		     "expected a trace pattern after 'trace', found %s", describe(p));
		return;
	}
	pat = xstrndup(p->text + p->tok.off, p->tok.len);
	err = script_parse_target(pat, p->tok.loc, &pr->target, p->diag);
	free(pat);
	if (err)
		p->err = err;
	next(p);
}

static struct ast_probe *parse_probe(struct parser *p)
{
	struct ast_probe *pr = xcalloc(1, sizeof(*pr));
	size_t off = 0, end = 0;

	pr->loc = p->tok.loc;
	/* the mark on the line before `trace` (the comment reader noted it) */
	pr->disabled = p->mark_line && p->mark_line + 1 == p->tok.loc.line;
	p->stmts = 0;
	next(p);
	parse_pattern(p, pr);
	if (!p->err && p->tok.kind != TOK_LBRACE)
		fail(p, here(p), "the probe body is a block: trace PATTERN { ... }",
		     "expected '{' after the trace pattern, found %s", describe(p));
	if (!p->err)
		parse_block(p, &pr->body, &off, &end);
	if (p->err) {
		ast_probe_free(pr);
		return NULL;
	}
	pr->body_text = xstrndup(p->text + off, end - off);
	return pr;
}

static void fail_top_level(struct parser *p)
{
	static const char *const trace_word[] = { "trace" };
	const char *hint = "a script is a list of 'trace PATTERN { ... }' blocks";
	char buf[64];

	if (p->tok.kind == TOK_IDENT) {
		char *w = xstrndup(p->text + p->tok.off, p->tok.len);

		if (suggest(w, trace_word, 1))
			hint = "did you mean 'trace'?";
		free(w);
	} else if (p->tok.kind == TOK_PRINT || p->tok.kind == TOK_BT || p->tok.kind == TOK_IF ||
		   p->tok.kind == TOK_LET) {
		hint = "statements must be inside a 'trace PATTERN { ... }' block";
	} else if (p->tok.kind == TOK_RBRACE) {
		hint = "this '}' has no matching '{'";
	}
	snprintf(buf, sizeof(buf), "%s", describe(p));
	fail(p, here(p), hint, "expected 'trace' at top level, found %s", buf);
}

int script_parse(const char *text, struct ast_script **out, struct diag *diag)
{
	struct parser p = { .text = text, .diag = diag };
	struct ast_script *s = xcalloc(1, sizeof(*s));
	struct ast_probe *pr;
	size_t cap = 0;

	*out = NULL;
	lexer_init(&p.lx, text, LEXER_KEEP_COMMENTS);
	next(&p);
	while (!p.err && p.tok.kind != TOK_EOF) {
		if (p.tok.kind != TOK_TRACE)
			fail_top_level(&p);
		else if ((pr = parse_probe(&p)))
			PUSH(s->probes, s->n_probes, cap, pr);
	}
	if (p.err) {
		ast_script_free(s);
		return p.err;
	}
	*out = s;
	return 0;
}

void script_foreach_word(void (*fn)(const char *word, void *ctx), void *ctx)
{
	static const char *const statements[] = { "print", "bt", "backtrace", "count", "if", "else",
						  "let", "true", "false" };
	char name[32];

	for (size_t i = 0; i < sizeof(statements) / sizeof(statements[0]); i++)
		fn(statements[i], ctx);
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		fn(builtins[i], ctx);
	for (size_t i = 0; i < AST_SPECIAL_COUNT; i++) {
		snprintf(name, sizeof(name), "$%s", ast_special_name((enum ast_special)i));
		fn(name, ctx);
	}
}
