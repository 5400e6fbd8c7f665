/* walk.h - the one statement order that numbers print formats and bt
 * statements on the wire.
 *
 * Layer rule: script/ is pure (util/ only).  The IR generator numbers
 * items with these functions and the renderer finds them again with them,
 * so an index means the same statement on both sides: pre-order, a
 * block's statements in order, an if's then-branch before its else-branch.
 */
#ifndef WRAITH_SCRIPT_WALK_H
#define WRAITH_SCRIPT_WALK_H

#include <stddef.h>

#include "script/ast.h"

/* Index of @s among the statements of its kind in @p, or -1. */
long ast_probe_index_of(const struct ast_probe *p, const struct ast_stmt *s);
/* The @n-th statement of @kind in @p, or NULL. */
const struct ast_stmt *ast_probe_nth(const struct ast_probe *p, enum ast_stmt_kind kind, size_t n);
/* Number of statements of @kind in @p. */
size_t ast_probe_count(const struct ast_probe *p, enum ast_stmt_kind kind);

/* Expressions are numbered the same way for expression-error items:
 * statements in wire order, in each its condition, value and arguments,
 * every node pre-order.  The number of @e in @p, or -1; the expression
 * numbered @n, or NULL. */
long ast_probe_expr_index(const struct ast_probe *p, const struct ast_expr *e);
const struct ast_expr *ast_probe_nth_expr(const struct ast_probe *p, size_t n);

#endif
