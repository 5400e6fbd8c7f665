/* plan.c - walking a probe's statements in the one order that numbers
 * print formats and bt statements on the wire; the IR generator and the
 * renderer both use it, so an index means the same thing on both sides. */
#include "codegen/plan.h"

struct walk {
	enum ast_stmt_kind kind;
	void (*fn)(const struct ast_stmt *s, size_t index, void *ctx);
	void *ctx;
	const struct ast_stmt *want;
	long found;
	size_t n;
};

static void walk_block(const struct ast_block *b, struct walk *w)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ast_stmt *s = b->stmts[i];

		if (s->kind == w->kind) {
			if (s == w->want)
				w->found = (long)w->n;
			if (w->fn)
				w->fn(s, w->n, w->ctx);
			w->n++;
		}
		if (s->kind == AST_STMT_IF) {
			walk_block(&s->then_body, w);
			walk_block(&s->else_body, w);
		}
	}
}

size_t plan_foreach_print(const struct ast_probe *p,
			  void (*fn)(const struct ast_stmt *s, size_t index, void *ctx), void *ctx)
{
	struct walk w = { .kind = AST_STMT_PRINT, .fn = fn, .ctx = ctx, .found = -1 };

	walk_block(&p->body, &w);
	return w.n;
}

static long index_of(const struct ast_probe *p, const struct ast_stmt *s, enum ast_stmt_kind kind)
{
	struct walk w = { .kind = kind, .want = s, .found = -1 };

	walk_block(&p->body, &w);
	return w.found;
}

long plan_print_index(const struct ast_probe *p, const struct ast_stmt *s)
{
	return index_of(p, s, AST_STMT_PRINT);
}

long plan_bt_index(const struct ast_probe *p, const struct ast_stmt *s)
{
	return index_of(p, s, AST_STMT_BT);
}
