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
