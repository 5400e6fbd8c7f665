/* walk.c - numbering statements in wire order (see walk.h). */
#include "script/walk.h"

struct walk {
	enum ast_stmt_kind kind;
	const struct ast_stmt *want_stmt; /* find this one's index */
	size_t want_index;                /* or the statement with this index */
	const struct ast_stmt *found;
	long found_index;
	size_t n;
};

/* Returns 1 once the walk found what it looks for. */
static int walk_block(const struct ast_block *b, struct walk *w)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ast_stmt *s = b->stmts[i];

		if (s->kind == w->kind) {
			if (s == w->want_stmt || (!w->want_stmt && w->n == w->want_index)) {
				w->found = s;
				w->found_index = (long)w->n;
				return 1;
			}
			w->n++;
		}
		if (s->kind != AST_STMT_IF)
			continue;
		if (walk_block(&s->then_body, w))
			return 1;
		for (size_t k = 0; k < s->n_elifs; k++)
			if (walk_block(&s->elifs[k]->then_body, w))
				return 1;
		if (walk_block(&s->else_body, w))
			return 1;
	}
	return 0;
}

long ast_probe_index_of(const struct ast_probe *p, const struct ast_stmt *s)
{
	struct walk w = { .kind = s->kind, .want_stmt = s, .found_index = -1 };

	walk_block(&p->body, &w);
	return w.found_index;
}

const struct ast_stmt *ast_probe_nth(const struct ast_probe *p, enum ast_stmt_kind kind, size_t n)
{
	struct walk w = { .kind = kind, .want_index = n, .found_index = -1 };

	walk_block(&p->body, &w);
	return w.found;
}

size_t ast_probe_count(const struct ast_probe *p, enum ast_stmt_kind kind)
{
	struct walk w = { .kind = kind, .want_index = (size_t)-1, .found_index = -1 };

	walk_block(&p->body, &w);
	return w.n;
}

/* ---- expressions ---- */

struct expr_walk {
	const struct ast_expr *want;   /* find this one's number */
	size_t want_index;             /* or the expression with this number */
	const struct ast_expr *found;
	long found_index;
	size_t n;
};

/* Every expression node, pre-order: the node, then its operands and
 * arguments left to right.  Returns 1 once found. */
static int walk_expr(const struct ast_expr *e, struct expr_walk *w)
{
	if (!e)
		return 0;
	if (e == w->want || (!w->want && w->n == w->want_index)) {
		w->found = e;
		w->found_index = (long)w->n;
		return 1;
	}
	w->n++;
	if (walk_expr(e->lhs, w) || walk_expr(e->rhs, w))
		return 1;
	for (size_t i = 0; i < e->n_args; i++)
		if (walk_expr(e->args[i], w))
			return 1;
	return 0;
}

static int walk_exprs(const struct ast_block *b, struct expr_walk *w)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ast_stmt *s = b->stmts[i];

		if (walk_expr(s->cond, w) || walk_expr(s->value, w))
			return 1;
		for (size_t k = 0; k < s->n_args; k++)
			if (walk_expr(s->args[k], w))
				return 1;
		if (s->kind != AST_STMT_IF)
			continue;
		if (walk_exprs(&s->then_body, w))
			return 1;
		for (size_t k = 0; k < s->n_elifs; k++)
			if (walk_expr(s->elifs[k]->cond, w) || walk_exprs(&s->elifs[k]->then_body, w))
				return 1;
		if (walk_exprs(&s->else_body, w))
			return 1;
	}
	return 0;
}

long ast_probe_expr_index(const struct ast_probe *p, const struct ast_expr *e)
{
	struct expr_walk w = { .want = e, .found_index = -1 };

	walk_exprs(&p->body, &w);
	return w.found_index;
}

const struct ast_expr *ast_probe_nth_expr(const struct ast_probe *p, size_t n)
{
	struct expr_walk w = { .want_index = n, .found_index = -1 };

	walk_exprs(&p->body, &w);
	return w.found;
}
