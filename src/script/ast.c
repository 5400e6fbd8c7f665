/* ast.c - freeing and dumping the script syntax tree.
 *
 * The dump is the parser's visible output: `--dry-run -v` shows it and the
 * unit tests compare it as golden text, so its layout is deliberately
 * plain and stable: one line per probe, statement, format piece and print
 * argument, two spaces per nesting level, and expressions fully
 * parenthesised so precedence is visible at a glance.  Trace patterns
 * are classified in pattern.c.
 */
#include "script/ast.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire.h"
#include "script/parser.h"
#include "script/typespec.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void ast_expr_free(struct ast_expr *e)
{
	if (!e)
		return;
	free(e->str);
	typespec_free(e->ctype);
	ast_expr_free(e->lhs);
	ast_expr_free(e->rhs);
	for (size_t i = 0; i < e->n_args; i++)
		ast_expr_free(e->args[i]);
	free(e->args);
	free(e);
}

void ast_block_release(struct ast_block *b)
{
	for (size_t i = 0; i < b->n; i++)
		ast_stmt_free(b->stmts[i]);
	free(b->stmts);
	b->stmts = NULL;
	b->n = 0;
}

void ast_stmt_free(struct ast_stmt *s)
{
	if (!s)
		return;
	free(s->fmt);
	for (size_t i = 0; i < s->n_pieces; i++) {
		free(s->pieces[i].literal);
		free(s->pieces[i].len_var);
	}
	free(s->pieces);
	for (size_t i = 0; i < s->n_args; i++)
		ast_expr_free(s->args[i]);
	free(s->args);
	ast_expr_free(s->cond);
	ast_block_release(&s->then_body);
	for (size_t i = 0; i < s->n_elifs; i++)
		ast_stmt_free(s->elifs[i]);
	free(s->elifs);
	ast_block_release(&s->else_body);
	free(s->name);
	ast_expr_free(s->value);
	free(s);
}

void ast_target_release(struct ast_target *t)
{
	free(t->text);
	free(t->function);
	free(t->file);
	free(t->module);
	t->text = t->function = t->file = t->module = NULL;
}

void ast_probe_free(struct ast_probe *p)
{
	if (!p)
		return;
	ast_target_release(&p->target);
	ast_block_release(&p->body);
	free(p->body_text);
	free(p);
}

void ast_script_free(struct ast_script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_probes; i++)
		ast_probe_free(s->probes[i]);
	free(s->probes);
	free(s);
}

const char *ast_op_name(enum ast_op op)
{
	static const char *const names[] = {
		[AST_OP_NEG] = "-",     [AST_OP_NOT] = "!",     [AST_OP_BITNOT] = "~",
		[AST_OP_DEREF] = "*",   [AST_OP_ADDR] = "&",    [AST_OP_MUL] = "*",
		[AST_OP_DIV] = "/",     [AST_OP_MOD] = "%",     [AST_OP_ADD] = "+",
		[AST_OP_SUB] = "-",     [AST_OP_SHL] = "<<",    [AST_OP_SHR] = ">>",
		[AST_OP_LT] = "<",      [AST_OP_LE] = "<=",     [AST_OP_GT] = ">",
		[AST_OP_GE] = ">=",     [AST_OP_EQ] = "==",     [AST_OP_NE] = "!=",
		[AST_OP_BITAND] = "&",  [AST_OP_BITXOR] = "^",  [AST_OP_BITOR] = "|",
		[AST_OP_AND] = "&&",    [AST_OP_OR] = "||",
	};

	return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

int ast_op_precedence(enum ast_op op)
{
	static const int prec[] = {
		[AST_OP_NEG] = AST_PREC_UNARY,  [AST_OP_NOT] = AST_PREC_UNARY,
		[AST_OP_BITNOT] = AST_PREC_UNARY, [AST_OP_DEREF] = AST_PREC_UNARY,
		[AST_OP_ADDR] = AST_PREC_UNARY,
		[AST_OP_MUL] = 10, [AST_OP_DIV] = 10, [AST_OP_MOD] = 10,
		[AST_OP_ADD] = 9,  [AST_OP_SUB] = 9,
		[AST_OP_SHL] = 8,  [AST_OP_SHR] = 8,
		[AST_OP_LT] = 7,   [AST_OP_LE] = 7,   [AST_OP_GT] = 7,  [AST_OP_GE] = 7,
		[AST_OP_EQ] = 6,   [AST_OP_NE] = 6,
		[AST_OP_BITAND] = 5, [AST_OP_BITXOR] = 4, [AST_OP_BITOR] = 3,
		[AST_OP_AND] = 2,  [AST_OP_OR] = 1,
	};

	return (unsigned)op < sizeof(prec) / sizeof(prec[0]) ? prec[op] : 0;
}

const char *ast_special_name(enum ast_special sp)
{
	static const char *const names[] = {
		[AST_SPECIAL_PID] = "pid", [AST_SPECIAL_TID] = "tid",
		[AST_SPECIAL_TIMESTAMP] = "timestamp", [AST_SPECIAL_PC] = "pc",
		[AST_SPECIAL_SP] = "sp", [AST_SPECIAL_HOST_PID] = "host_pid",
		[AST_SPECIAL_HOST_TID] = "host_tid", [AST_SPECIAL_INPUT_PID] = "input_pid",
	};

	return (unsigned)sp < sizeof(names) / sizeof(names[0]) ? names[sp] : "?";
}

const char *ast_fmt_spec_name(enum ast_fmt_spec spec)
{
	static const char *const names[] = {
		[AST_FMT_DEFAULT] = "", [AST_FMT_HEX] = "x", [AST_FMT_HEX_UPPER] = "X",
		[AST_FMT_PTR] = "p",    [AST_FMT_STR] = "s", [AST_FMT_RAW] = "r",
	};

	return (unsigned)spec < sizeof(names) / sizeof(names[0]) ? names[spec] : "?";
}

void ast_quote_string(const char *s, size_t len, struct strbuf *out)
{
	strbuf_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			strbuf_addstr(out, "\\n");
		else if (c == '\t')
			strbuf_addstr(out, "\\t");
		else if (c == '\r')
			strbuf_addstr(out, "\\r");
		else if (c == '\\' || c == '"')
			strbuf_addf(out, "\\%c", c);
		else if (c == '\0')
			strbuf_addstr(out, "\\0");
		else if (!isprint(c))
			strbuf_addf(out, "\\x%02x", c);
		else
			strbuf_addch(out, (char)c);
	}
	strbuf_addch(out, '"');
}

/* A floating literal as the script would spell it: the shortest text
 * that reads back as the same value, with a '.' or an exponent. */
static void ast_float_text(double v, bool is_float, struct strbuf *out)
{
	char buf[40];

	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (is_float ? (float)strtod(buf, NULL) == (float)v : strtod(buf, NULL) == v)
			break;
	}
	strbuf_addstr(out, buf);
	if (!strpbrk(buf, ".en"))
		strbuf_addstr(out, ".0");
	if (is_float)
		strbuf_addch(out, 'f');
}

/* Source text of a leaf expression (literal, identifier, special). */
void ast_leaf_text(const struct ast_expr *e, struct strbuf *out)
{
	switch (e->kind) {
	case AST_EXPR_INT:
		strbuf_addf(out, "%" PRIu64 "%s%s", (uint64_t)e->ival,
			    e->num_flags & AST_NUM_UNSIGNED ? "u" : "", e->num_flags & AST_NUM_LONG ? "l" : "");
		break;
	case AST_EXPR_FLOAT:
		ast_float_text(e->fval, e->num_flags & AST_NUM_FLOAT, out);
		break;
	case AST_EXPR_BOOL:
		strbuf_addstr(out, e->ival ? "true" : "false");
		break;
	case AST_EXPR_STRING:
		ast_quote_string(e->str, e->str_len, out);
		break;
	case AST_EXPR_IDENT:
		strbuf_addstr(out, e->str);
		break;
	case AST_EXPR_SPECIAL:
		strbuf_addf(out, "$%s", ast_special_name(e->special));
		break;
	default:
		break;
	}
}

/* @e as script text.  @outer is how tightly the context binds (0: not at
 * all); with @all_parens every operation is parenthesised (the dump's
 * form), else only where precedence needs it (the form a user writes). */
static void expr_text(const struct ast_expr *e, int outer, bool all_parens, struct strbuf *out)
{
	bool parens = all_parens;

	switch (e->kind) {
	case AST_EXPR_INT:
	case AST_EXPR_FLOAT:
	case AST_EXPR_BOOL:
	case AST_EXPR_STRING:
	case AST_EXPR_IDENT:
	case AST_EXPR_SPECIAL:
		ast_leaf_text(e, out);
		return;
	case AST_EXPR_UNARY:
		parens = all_parens || AST_PREC_UNARY < outer;
		strbuf_addstr(out, parens ? "(" : "");
		strbuf_addstr(out, ast_op_name(e->op));
		expr_text(e->lhs, AST_PREC_UNARY, all_parens, out);
		break;
	case AST_EXPR_BINARY:
		parens = all_parens || ast_op_precedence(e->op) < outer;
		strbuf_addstr(out, parens ? "(" : "");
		expr_text(e->lhs, ast_op_precedence(e->op), all_parens, out);
		strbuf_addf(out, " %s ", ast_op_name(e->op));
		/* Left-associative: an equal operator on the right needs parentheses. */
		expr_text(e->rhs, ast_op_precedence(e->op) + 1, all_parens, out);
		break;
	case AST_EXPR_MEMBER:
		expr_text(e->lhs, AST_PREC_POSTFIX, all_parens, out);
		strbuf_addf(out, "%s%s%s", e->arrow ? "->" : ".", e->str, e->call ? "()" : "");
		return;
	case AST_EXPR_INDEX:
		expr_text(e->lhs, AST_PREC_POSTFIX, all_parens, out);
		strbuf_addch(out, '[');
		expr_text(e->rhs, 0, all_parens, out);
		strbuf_addch(out, ']');
		return;
	case AST_EXPR_CALL:
		if (e->call && e->n_args == 2) { /* written `s.starts_with("ab")` */
			expr_text(e->args[0], AST_PREC_POSTFIX, all_parens, out);
			strbuf_addf(out, ".%s(", e->str);
			expr_text(e->args[1], 0, all_parens, out);
			strbuf_addch(out, ')');
			return;
		}
		strbuf_addf(out, "%s(", e->str);
		for (size_t i = 0; i < e->n_args; i++) {
			strbuf_addstr(out, i ? ", " : "");
			expr_text(e->args[i], 0, all_parens, out);
		}
		strbuf_addch(out, ')');
		return;
	}
	strbuf_addstr(out, parens ? ")" : "");
}

void ast_expr_dump(const struct ast_expr *e, struct strbuf *out)
{
	expr_text(e, 0, true, out);
}

void ast_expr_text(const struct ast_expr *e, struct strbuf *out)
{
	expr_text(e, 0, false, out);
}

static void indent(struct strbuf *out, unsigned depth)
{
	strbuf_addchars(out, ' ', 2 * depth);
}

static void dump_piece(const struct ast_fmt_piece *pc, unsigned depth, struct strbuf *out)
{
	indent(out, depth);
	strbuf_addstr(out, "piece ");
	ast_quote_string(pc->literal, pc->literal_len, out);
	if (pc->has_placeholder) {
		strbuf_addf(out, " {%s%s", pc->spec ? ":" : "", ast_fmt_spec_name(pc->spec));
		if (pc->len_kind == AST_FMT_LEN_FIXED)
			strbuf_addf(out, ".%" PRIu64, pc->len_value);
		else if (pc->len_kind == AST_FMT_LEN_STAR)
			strbuf_addstr(out, ".*");
		else if (pc->len_kind == AST_FMT_LEN_VAR)
			strbuf_addf(out, ".%s$", pc->len_var);
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, '\n');
}

static void dump_print(const struct ast_stmt *s, unsigned depth, struct strbuf *out)
{
	if (!s->fmt) {
		strbuf_addstr(out, "print ");
		ast_expr_dump(s->args[0], out);
		strbuf_addch(out, '\n');
		return;
	}
	strbuf_addstr(out, "print ");
	ast_quote_string(s->fmt, s->fmt_len, out);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < s->n_pieces; i++)
		dump_piece(&s->pieces[i], depth + 1, out);
	for (size_t i = 0; i < s->n_args; i++) {
		indent(out, depth + 1);
		strbuf_addstr(out, "arg ");
		ast_expr_dump(s->args[i], out);
		strbuf_addch(out, '\n');
	}
}

static void dump_bt(unsigned flags, struct strbuf *out)
{
	strbuf_addstr(out, "bt");
	if (flags & WR_BT_F_RAW)
		strbuf_addstr(out, " raw");
	if (flags & WR_BT_F_FULL)
		strbuf_addstr(out, " full");
	if (flags & WR_BT_F_ARGS)
		strbuf_addstr(out, " args");
	strbuf_addstr(out, flags & WR_BT_F_INLINE ? " inline\n" : " noinline\n");
}

static void dump_block(const struct ast_block *b, unsigned depth, struct strbuf *out);

static void dump_stmt(const struct ast_stmt *s, unsigned depth, struct strbuf *out)
{
	indent(out, depth);
	switch (s->kind) {
	case AST_STMT_PRINT:
		dump_print(s, depth, out);
		break;
	case AST_STMT_BT:
		dump_bt(s->bt_flags, out);
		break;
	case AST_STMT_IF:
		strbuf_addstr(out, "if ");
		ast_expr_dump(s->cond, out);
		strbuf_addch(out, '\n');
		dump_block(&s->then_body, depth + 1, out);
		for (size_t i = 0; i < s->n_elifs; i++) {
			indent(out, depth);
			strbuf_addstr(out, "else if ");
			ast_expr_dump(s->elifs[i]->cond, out);
			strbuf_addch(out, '\n');
			dump_block(&s->elifs[i]->then_body, depth + 1, out);
		}
		if (s->else_body.n) {
			indent(out, depth);
			strbuf_addstr(out, "else\n");
			dump_block(&s->else_body, depth + 1, out);
		}
		break;
	case AST_STMT_LET:
		strbuf_addf(out, "let %s = ", s->name);
		ast_expr_dump(s->value, out);
		strbuf_addch(out, '\n');
		break;
	case AST_STMT_EXPR:
		strbuf_addstr(out, "expr ");
		ast_expr_dump(s->value, out);
		strbuf_addch(out, '\n');
		break;
	case AST_STMT_COUNT:
		strbuf_addstr(out, "count ");
		if (s->value) {
			strbuf_addstr(out, "key ");
			ast_expr_dump(s->value, out);
			strbuf_addch(out, ' ');
		}
		dump_bt(s->bt_flags, out);
		break;
	}
}

static void dump_block(const struct ast_block *b, unsigned depth, struct strbuf *out)
{
	for (size_t i = 0; i < b->n; i++)
		dump_stmt(b->stmts[i], depth, out);
}

static void dump_target(const struct ast_target *t, struct strbuf *out)
{
	switch (t->kind) {
	case AST_TARGET_FUNCTION:
		strbuf_addf(out, "probe function %s\n", t->function);
		break;
	case AST_TARGET_LINE:
		strbuf_addf(out, "probe line %s:%u\n", t->file, t->line);
		break;
	case AST_TARGET_ADDRESS:
		strbuf_addf(out, "probe address 0x%" PRIx64, t->address);
		if (t->module)
			strbuf_addf(out, " in %s", t->module);
		strbuf_addch(out, '\n');
		break;
	}
}

void ast_script_dump(const struct ast_script *s, struct strbuf *out)
{
	for (size_t i = 0; i < s->n_probes; i++) {
		dump_target(&s->probes[i]->target, out);
		dump_block(&s->probes[i]->body, 1, out);
	}
}
