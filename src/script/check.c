/* check.c - semantic checks on a parsed script (script_check()).
 *
 * What can be decided without DWARF is decided here, before any target is
 * opened, so a typo costs no symbol loading: `let` scoping (immutable
 * bindings, no redeclaration, no shadowing, no use after the block that
 * bound a name has closed), print placeholder/argument counts, builtin
 * arity and the literal-only arguments of the builtins, and the per-probe
 * bt slot budget.  A name never bound with `let` is assumed to be a DWARF
 * variable and left to the resolver.
 *
 * Scopes are a stack of live bindings tagged with their block depth; when a
 * block closes its bindings move to a "dead" list, which is what lets us
 * tell "outside of its scope" apart from "a DWARF variable".
 */
#include "script/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct binding {
	const char *name;   /* borrowed from the tree */
	struct src_loc loc;
	unsigned depth;
};

struct checker {
	struct diag *diag;
	int err;                  /* first error, sticky */
	struct binding *live;     /* innermost last */
	size_t n_live, cap_live;
	struct binding *dead;     /* bindings of closed blocks, this probe */
	size_t n_dead, cap_dead;
	unsigned depth;
	unsigned n_bt;
};

__attribute__((format(printf, 4, 5)))
static void fail(struct checker *c, struct src_loc loc, const char *hint, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (c->err)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (c->diag)
		diag_set(c->diag, loc, hint, "%s", sb.buf);
	strbuf_release(&sb);
	c->err = -WR_ESEMANTIC;
}

static const struct binding *lookup(const struct binding *b, size_t n, const char *name)
{
	while (n--)
		if (!strcmp(b[n].name, name))
			return &b[n];
	return NULL;
}

static void use_name(struct checker *c, const char *name, struct src_loc loc)
{
	const struct binding *b;
	char hint[160];

	if (lookup(c->live, c->n_live, name) || !(b = lookup(c->dead, c->n_dead, name)))
		return;
	snprintf(hint, sizeof(hint), "'%s' was bound with 'let' at line %u, in a block that has ended",
		 name, b->loc.line);
	fail(c, loc, hint, "use of variable '%s' outside of its scope", name);
}

static void declare(struct checker *c, const struct ast_stmt *s)
{
	const struct binding *b = lookup(c->live, c->n_live, s->name);
	char hint[160];

	if (b && b->depth == c->depth) {
		snprintf(hint, sizeof(hint), "'%s' is already bound at line %u; variables are immutable",
			 s->name, b->loc.line);
		fail(c, s->name_loc, hint, "redeclaration in the same scope is not allowed: '%s'",
		     s->name);
	} else if (b) {
		snprintf(hint, sizeof(hint), "'%s' is bound in an enclosing block at line %u; "
			 "choose another name", s->name, b->loc.line);
		fail(c, s->name_loc, hint, "shadowing is not allowed for immutable variables: '%s'",
		     s->name);
	}
	if (c->err)
		return;
	c->live = xgrow(c->live, &c->cap_live, c->n_live + 1, sizeof(*c->live));
	c->live[c->n_live++] = (struct binding){ s->name, s->name_loc, c->depth };
}

/* ---- expressions and builtins ---- */

static void check_expr(struct checker *c, const struct ast_expr *e, bool hex_ok);

/* A string literal, or a name bound with `let` (a script string). */
static bool stringish(const struct checker *c, const struct ast_expr *e)
{
	return e->kind == AST_EXPR_STRING ||
	       (e->kind == AST_EXPR_IDENT && lookup(c->live, c->n_live, e->str));
}

static bool is_call(const struct ast_expr *e, const char *name)
{
	return e->kind == AST_EXPR_CALL && !strcmp(e->str, name);
}

/* Bytes of a hex("..") literal, or -1 (after failing) if malformed. */
static long hex_bytes(struct checker *c, const struct ast_expr *call)
{
	const struct ast_expr *a = call->args[0];
	size_t digits = 0;

	if (a->kind != AST_EXPR_STRING) {
		fail(c, a->loc, "e.g. hex(\"de ad be ef\")", "hex() takes a string literal of hex digits");
		return -1;
	}
	for (size_t i = 0; i < a->str_len; i++) {
		if (a->str[i] == ' ')
			continue;
		if (!strchr("0123456789abcdefABCDEF", a->str[i]) || !a->str[i]) {
			fail(c, a->loc, "only hex digits and spaces are allowed",
			     "invalid character in hex() literal");
			return -1;
		}
		digits++;
	}
	if (digits == 0)
		fail(c, a->loc, "e.g. hex(\"de ad be ef\")", "hex() literal has no bytes");
	else if (digits % 2)
		fail(c, a->loc, "each byte is two hex digits",
		     "hex() literal has an odd number of digits (%zu)", digits);
	if (c->err)
		return -1;
	return (long)(digits / 2);
}

static bool negative_literal(const struct ast_expr *e)
{
	return e->kind == AST_EXPR_UNARY && e->op == AST_OP_NEG && e->lhs->kind == AST_EXPR_INT &&
	       e->lhs->ival > 0;
}

static void check_memcmp(struct checker *c, const struct ast_expr *e)
{
	long bytes[2] = { -1, -1 };

	for (size_t i = 0; i < 2; i++) {
		const struct ast_expr *a = e->args[i];

		if (a->kind == AST_EXPR_INT || a->kind == AST_EXPR_BOOL || a->kind == AST_EXPR_STRING)
			fail(c, a->loc, "use hex(\"...\") for literal bytes, or strncmp() for strings",
			     "memcmp compares memory: argument %zu must be a pointer, an array or hex(...)",
			     i + 1);
		else if (is_call(a, "hex"))
			bytes[i] = hex_bytes(c, a);
	}
	if (c->err)
		return;
	if (e->n_args == 2 && bytes[0] < 0 && bytes[1] < 0)
		fail(c, e->loc, "pass the number of bytes: memcmp(a, b, n)",
		     "memcmp without a length needs a hex(...) argument");
	else if (bytes[0] >= 0 && bytes[1] >= 0 && bytes[0] != bytes[1])
		fail(c, e->args[1]->loc, NULL, "hex() literals differ in length (%ld and %ld bytes)",
		     bytes[0], bytes[1]);
	else if (e->n_args == 3 && e->args[2]->kind == AST_EXPR_INT &&
		 e->args[2]->ival > (bytes[0] > bytes[1] ? bytes[0] : bytes[1]) &&
		 (bytes[0] >= 0 || bytes[1] >= 0))
		fail(c, e->args[2]->loc, NULL, "memcmp length %lld is longer than the hex() literal",
		     (long long)e->args[2]->ival);
}

static void check_builtin_rules(struct checker *c, const struct ast_expr *e)
{
	if (!strcmp(e->str, "strncmp") && negative_literal(e->args[2]))
		fail(c, e->args[2]->loc, NULL, "strncmp's length must not be negative");
	if ((!strcmp(e->str, "strncmp") || !strcmp(e->str, "starts_with")) &&
	    !stringish(c, e->args[0]) && !stringish(c, e->args[1]))
		fail(c, e->loc, "e.g. strncmp(name, \"main\", 4)",
		     "%s needs a string literal or a script string variable on one side", e->str);
	if (!strcmp(e->str, "cast") &&
	    (e->args[1]->kind != AST_EXPR_STRING || !e->args[1]->str_len))
		fail(c, e->args[1]->loc, "e.g. cast(p, \"struct request *\")",
		     "cast's second argument must be a string literal naming a type");
	if (!strcmp(e->str, "memcmp"))
		check_memcmp(c, e);
	if (!strcmp(e->str, "hex"))
		hex_bytes(c, e);
}

static void check_call(struct checker *c, const struct ast_expr *e, bool hex_ok)
{
	static const struct {
		const char *name, *usage, *arity;
		size_t min, max;
	} sigs[] = {
		{ "strncmp", "strncmp(a, b, n)", "3 arguments", 3, 3 },
		{ "starts_with", "starts_with(a, prefix)", "2 arguments", 2, 2 },
		{ "memcmp", "memcmp(a, b, n) or memcmp(a, hex(\"..\"))", "2 or 3 arguments", 2, 3 },
		{ "hex", "hex(\"de ad be ef\") inside memcmp()", "1 argument", 1, 1 },
		{ "cast", "cast(expr, \"type\")", "2 arguments", 2, 2 },
	};
	size_t i;
	char hint[96];

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]) && strcmp(sigs[i].name, e->str); i++)
		;
	if (i == sizeof(sigs) / sizeof(sigs[0]))
		return; /* the parser only builds calls to known builtins */
	snprintf(hint, sizeof(hint), "usage: %s", sigs[i].usage);
	if (!strcmp(e->str, "hex") && !hex_ok)
		fail(c, e->loc, hint, "hex() can only be used as an argument of memcmp");
	else if (e->n_args < sigs[i].min || e->n_args > sigs[i].max)
		fail(c, e->loc, hint, "%s takes %s, got %zu", e->str, sigs[i].arity, e->n_args);
	for (size_t a = 0; a < e->n_args && !c->err; a++)
		check_expr(c, e->args[a], !strcmp(e->str, "memcmp") && a < 2);
	if (!c->err)
		check_builtin_rules(c, e);
}

static void check_expr(struct checker *c, const struct ast_expr *e, bool hex_ok)
{
	if (c->err || !e)
		return;
	switch (e->kind) {
	case AST_EXPR_IDENT:
		use_name(c, e->str, e->loc);
		break;
	case AST_EXPR_CALL:
		check_call(c, e, hex_ok);
		break;
	case AST_EXPR_UNARY:
	case AST_EXPR_BINARY:
	case AST_EXPR_MEMBER:
	case AST_EXPR_INDEX:
		check_expr(c, e->lhs, false);
		check_expr(c, e->rhs, false);
		break;
	default:
		break;
	}
}

/* ---- statements ---- */

static void check_block(struct checker *c, const struct ast_block *b);

static void check_dump_var(struct checker *c, const struct ast_fmt_piece *pc)
{
	char hint[96];

	if (pc->len_kind != AST_FMT_LEN_VAR || lookup(c->live, c->n_live, pc->len_var))
		return;
	use_name(c, pc->len_var, pc->loc);
	snprintf(hint, sizeof(hint), "bind it first: let %s = ...;", pc->len_var);
	fail(c, pc->loc, hint, "memory dump length '%s' is not a script variable", pc->len_var);
}

static void check_print(struct checker *c, const struct ast_stmt *s)
{
	const struct ast_fmt_piece *missing = NULL;
	size_t need = 0;
	bool star = false;
	char hint[160];

	for (size_t i = 0; i < s->n_pieces; i++) {
		const struct ast_fmt_piece *pc = &s->pieces[i];
		size_t k = pc->len_kind == AST_FMT_LEN_STAR ? 2 : 1;

		if (!pc->has_placeholder)
			continue;
		star |= k == 2;
		if (!missing && need + k > s->n_args)
			missing = pc;
		need += k;
		check_dump_var(c, pc);
	}
	snprintf(hint, sizeof(hint), "the format string takes %zu argument%s but %zu %s given%s", need,
		 need == 1 ? "" : "s", s->n_args, s->n_args == 1 ? "was" : "were",
		 star ? "; {:x.*} takes two: the length, then the value" : "");
	if (s->fmt && missing)
		fail(c, missing->loc, hint, "placeholder has no matching argument");
	else if (s->fmt && need < s->n_args)
		fail(c, s->args[need]->loc, hint, "argument has no matching placeholder");
	for (size_t i = 0; i < s->n_args; i++)
		check_expr(c, s->args[i], false);
}

static void check_stmt(struct checker *c, const struct ast_stmt *s)
{
	switch (s->kind) {
	case AST_STMT_PRINT:
		check_print(c, s);
		break;
	case AST_STMT_BT:
		if (++c->n_bt > WR_BT_MAX_SLOTS)
			fail(c, s->loc, "each bt uses one of the probe's backtrace slots",
			     "too many bt statements in one probe (at most %u)", WR_BT_MAX_SLOTS);
		break;
	case AST_STMT_IF:
		check_expr(c, s->cond, false);
		check_block(c, &s->then_body);
		for (size_t i = 0; i < s->n_elifs && !c->err; i++) {
			check_expr(c, s->elifs[i]->cond, false);
			check_block(c, &s->elifs[i]->then_body);
		}
		check_block(c, &s->else_body);
		break;
	case AST_STMT_LET:
		check_expr(c, s->value, false);
		if (!c->err)
			declare(c, s);
		break;
	case AST_STMT_EXPR:
		check_expr(c, s->value, false);
		break;
	case AST_STMT_COUNT:
		if (++c->n_bt > WR_BT_MAX_SLOTS)
			fail(c, s->loc, "each bt and count bt uses one of the probe's backtrace slots",
			     "too many bt statements in one probe (at most %u)", WR_BT_MAX_SLOTS);
		if (s->value)
			check_expr(c, s->value, false);
		break;
	}
}

/* Every block is a scope: its bindings die at its '}'. */
static void check_block(struct checker *c, const struct ast_block *b)
{
	c->depth++;
	for (size_t i = 0; i < b->n && !c->err; i++)
		check_stmt(c, b->stmts[i]);
	while (c->n_live && c->live[c->n_live - 1].depth == c->depth) {
		c->dead = xgrow(c->dead, &c->cap_dead, c->n_dead + 1, sizeof(*c->dead));
		c->dead[c->n_dead++] = c->live[--c->n_live];
	}
	c->depth--;
}

int script_check(const struct ast_script *s, struct diag *diag)
{
	struct checker c = { .diag = diag };

	for (size_t i = 0; i < s->n_probes && !c.err; i++) {
		c.n_live = c.n_dead = 0;
		c.n_bt = 0;
		check_block(&c, &s->probes[i]->body);
	}
	free(c.live);
	free(c.dead);
	return c.err;
}
