/* lower.c - the statements of one probe to LLVM IR.
 *
 * The generated function is glue: it calls the template's wr_* entry
 * points (event buffer, print items, backtraces) and computes the values
 * of expressions (expr.c).  String literals never travel on the wire: the
 * renderer takes them from the AST.  Every instruction gets the debug
 * location of the script text it came from, so `bpftool prog dump` shows
 * script lines.
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "script/walk.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static LLVMTypeRef i32(struct cg *cg) { return LLVMInt32TypeInContext(cg->ctx); }
static LLVMTypeRef i64(struct cg *cg) { return LLVMInt64TypeInContext(cg->ctx); }

#define c32 cg_i32
#define c64 cg_i64

#define call cg_call

/* ---- statements ---- */

static int lower_block(struct cg *cg, const struct ast_block *b);

/* The placeholder argument @arg of @s is printed by, or NULL (`print x;`);
 * *@is_len says the argument is the length of a {:x.*} dump instead. */
static const struct ast_fmt_piece *arg_piece(const struct ast_stmt *s, size_t arg, bool *is_len)
{
	size_t k = 0;

	*is_len = false;
	for (size_t i = 0; i < s->n_pieces; i++) {
		bool star = s->pieces[i].len_kind == AST_FMT_LEN_STAR;

		if (!s->pieces[i].has_placeholder)
			continue;
		if (k == arg || (star && k + 1 == arg)) {
			*is_len = star && k == arg;
			return &s->pieces[i];
		}
		k += star ? 2 : 1;
	}
	return NULL;
}

/* Under plan.lenient, the error just made for print argument @e becomes
 * a marker this site prints instead (@v), noted for codegen_probe(). */
static int site_marker(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int err)
{
	const struct plan_vars *pv = &cg->plan->vars;

	if (!err || !cg->plan->lenient || !cg->diag->msg)
		return err;
	cg_note_marker(cg, e->loc, cg->diag->msg);
	memset(v, 0, sizeof(*v));
	v->kind = CG_VALUE;
	v->marker = pv->find ? WR_ARG_UNREADABLE : WR_ARG_NO_DEBUG_INFO;
	diag_release(cg->diag);
	memset(cg->diag, 0, sizeof(*cg->diag));
	return 0;
}

/* A print of a variable wholly in a register a probe cannot read (a
 * double in xmm0): gdb's marker for a register it cannot read,
 * <unavailable>, at every site, with why in the site's notes (said once
 * at start, and by --dry-run).  An expression over it stays refused. */
static int unavailable_marker(struct cg *cg, const struct ast_expr *e, struct cg_value *v, int err)
{
	if (!err || !cg->unreadable_reg || e->kind != AST_EXPR_IDENT || !cg->diag->msg)
		return err;
	cg_note_marker(cg, e->loc, cg->diag->msg);
	memset(v, 0, sizeof(*v));
	v->kind = CG_VALUE;
	v->marker = WR_ARG_UNAVAILABLE;
	diag_release(cg->diag);
	memset(cg->diag, 0, sizeof(*cg->diag));
	return 0;
}

/* Emit argument @i of print @s (its value lowered in @vals, read from
 * frame @frame when not the probe's own). */
static int print_arg(struct cg *cg, const struct ast_stmt *s, size_t i, struct cg_value *vals,
		     const char *frame, unsigned index, unsigned *wire)
{
	bool is_len;
	const struct ast_fmt_piece *pc = arg_piece(s, i, &is_len);

	if (is_len)
		return 0; /* the dump after it reads it */
	cg_set_loc(cg, s->args[i]->loc);
	if (pc && pc->len_kind == AST_FMT_LEN_STAR && vals[i - 1].marker)
		vals[i].marker = vals[i - 1].marker; /* no length: no dump either */
	if (vals[i].marker)
		return print_args_lower(cg, s->args[i], &vals[i], AST_FMT_DEFAULT, index, (*wire)++);
	if (pc && pc->len_kind != AST_FMT_LEN_NONE)
		return cg_print_dump(cg, pc, s->args[i], &vals[i],
				     pc->len_kind == AST_FMT_LEN_STAR ? s->args[i - 1] : NULL,
				     pc->len_kind == AST_FMT_LEN_STAR ? &vals[i - 1] : NULL, index,
				     (*wire)++);
	if (vals[i].kind == CG_STRING)
		return 0; /* literals are rendered from the script */
	if (frame)
		cg_note_frame(cg, index, *wire, frame);
	if (print_args_lower(cg, s->args[i], &vals[i], pc ? pc->spec : AST_FMT_DEFAULT, index, *wire) &&
	    (site_marker(cg, s->args[i], &vals[i], -WR_ESEMANTIC) ||
	     print_args_lower(cg, s->args[i], &vals[i], AST_FMT_DEFAULT, index, *wire)))
		return -WR_ESEMANTIC;
	(*wire)++;
	return 0;
}

#define ENTRY_ARGS 8 /* print arguments of one print captured for what the caller passed */

static int lower_print(struct cg *cg, const struct ast_stmt *s)
{
	LLVMValueRef args[3], item;
	long index = ast_probe_index_of(cg->plan->ast, s);
	struct cg_value *vals;
	const char **frames;
	unsigned wire = 0;
	uint64_t entry[ENTRY_ARGS];
	size_t n_entry = 0;
	int err = 0;

	/* Arguments are computed before the item opens: a builtin that fails
	 * appends an error item of its own, which must not land inside it. */
	vals = xcalloc(s->n_args ? s->n_args : 1, sizeof(*vals));
	frames = xcalloc(s->n_args ? s->n_args : 1, sizeof(*frames));
	for (size_t i = 0; i < s->n_args && !err; i++) {
		cg->arg_frame = NULL;
		cg->unreadable_reg = 0;
		err = cg_lower_expr(cg, s->args[i], &vals[i]);
		err = site_marker(cg, s->args[i], &vals[i], unavailable_marker(cg, s->args[i], &vals[i], err));
		frames[i] = vals[i].marker ? NULL : cg->arg_frame;
	}
	if (err)
		goto out;
	args[0] = cg->buf;
	args[1] = c32(cg, WR_ITEM_PRINT);
	args[2] = c32(cg, (unsigned long long)index);
	if (!s->n_args) { /* the format alone: one inlined call */
		call(cg, WR_FN_ITEM_EMPTY, args, 3);
		goto out;
	}
	item = call(cg, WR_FN_ITEM_OPEN, args, 3);
	for (size_t i = 0; i < s->n_args && !err; i++) {
		unsigned at = wire;

		err = print_arg(cg, s, i, vals, frames[i], (unsigned)index, &wire);
		/* a parameter whose value is what the caller passed */
		if (!err && wire == at + 1 && vals[i].entry_reg && !vals[i].marker &&
		    s->args[i]->kind == AST_EXPR_IDENT && n_entry < ENTRY_ARGS)
			entry[n_entry++] = wr_caller_arg(at, vals[i].entry_reg - 1);
	}
	args[0] = cg->buf;
	args[1] = item;
	call(cg, WR_FN_ITEM_CLOSE, args, 2);
	if (!err)
		print_args_caller(cg, (unsigned)index, entry, n_entry);
out:
	free(vals);
	free(frames);
	return err;
}

#define BT_MEMBER_STRINGS 8 /* strings of char pointers inside frame 0's structs, per bt */

struct bt_refs {
	struct cg *cg;
	const struct ast_stmt *s;
	const char *seen[8]; /* names copied (at most 8: the BPF stack is small); an
			      * outer scope's same name is hidden */
	size_t n;
	unsigned strings;    /* char pointers inside structs still to copy */
};

static int bt_ref(const struct dw_var *v, void *ctx)
{
	struct bt_refs *r = ctx;
	struct ast_expr e = { .kind = AST_EXPR_IDENT, .loc = r->s->loc, .str = (char *)v->name,
			      .height = 1 };
	bool copied;

	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->seen[i], v->name) == 0)
			return 0;
	copied = print_args_frame_referent(r->cg, &e, v) == 0;
	if (print_args_frame_strings(r->cg, &e, v, &r->strings) == 0)
		copied = true;
	if (copied)
		r->seen[r->n++] = v->name;
	if (r->cg->diag->msg) { /* not copied: the bt says <unavailable> */
		diag_release(r->cg->diag);
		memset(r->cg->diag, 0, sizeof(*r->cg->diag));
	}
	return r->n == sizeof(r->seen) / sizeof(r->seen[0]);
}

#define BT_STATIC_TYPES 32 /* frame 0's variables whose static members are copied */

struct bt_types {
	const struct dw_type *t[BT_STATIC_TYPES];
	size_t n;
};

static int bt_type(const struct dw_var *v, void *ctx)
{
	struct bt_types *b = ctx;
	const struct dw_type *t = v->type;

	if (t && t->kind == DW_TYPE_POINTER && t->is_reference)
		t = t->target; /* a bt shows the referent */
	if (t)
		b->t[b->n++] = t;
	return b->n == BT_STATIC_TYPES;
}

/* The C++ static data members frame 0's values show, copied now as a
 * print copies them: a bt reads them as the memory was at the hit. */
static void lower_bt_statics(struct cg *cg, const struct ast_stmt *s)
{
	const struct plan_vars *pv = &cg->plan->vars;
	struct ast_expr e = { .kind = AST_EXPR_IDENT, .loc = s->loc, .str = (char *)"", .height = 1 };
	struct bt_types b = { .n = 0 };

	pv->frame_vars(pv->ctx, s->bt_flags & WR_BT_F_FULL, bt_type, &b);
	print_args_frame_statics(cg, &e, b.t, b.n);
	if (cg->diag->msg) { /* not copied: the bt says <unavailable> */
		diag_release(cg->diag);
		memset(cg->diag, 0, sizeof(*cg->diag));
	}
}

/* A bt with frame values: what frame 0's references refer to, and what
 * its strings point to, copied now (the stack copy holds only what lies
 * on the stack), as an item before the backtrace's (WR_ITEM_REFS). */
static void lower_bt_refs(struct cg *cg, const struct ast_stmt *s)
{
	const struct plan_vars *pv = &cg->plan->vars;
	struct bt_refs r = { .cg = cg, .s = s, .strings = BT_MEMBER_STRINGS };
	LLVMValueRef args[3], item;

	if (!(s->bt_flags & (WR_BT_F_ARGS | WR_BT_F_FULL)) || (s->bt_flags & WR_BT_F_RAW) ||
	    !pv->frame_vars || cg->no_frame_copies)
		return;
	cg->frame_copies++;
	args[0] = cg->buf;
	args[1] = c32(cg, WR_ITEM_REFS);
	args[2] = c32(cg, 0);
	item = call(cg, WR_FN_ITEM_OPEN, args, 3);
	pv->frame_vars(pv->ctx, s->bt_flags & WR_BT_F_FULL, bt_ref, &r);
	lower_bt_statics(cg, s);
	args[0] = cg->buf;
	args[1] = item;
	call(cg, WR_FN_ITEM_CLOSE, args, 2);
}

/* The CFI rule of the site's own pc for wr_bt()'s rule0: from the site's
 * table entry when it has one, so that sites whose rules differ (in one
 * module or several) share their forms' programs and frame 0 of every
 * site is unwound by its own rule, whichever site the program was built
 * for. */
static LLVMValueRef site_rule0(struct cg *cg)
{
	return LLVMBuildTrunc(cg->builder, cg_site_const(cg, cg->plan->rule0),
			      LLVMInt32TypeInContext(cg->ctx), "rule0");
}

static void lower_bt(struct cg *cg, const struct ast_stmt *s)
{
	unsigned long long index = (unsigned long long)ast_probe_index_of(cg->plan->ast, s);
	unsigned depth = cg->plan->bt_depth ? cg->plan->bt_depth : WR_BT_DEFAULT_DEPTH;
	LLVMValueRef args[5];

	lower_bt_refs(cg, s);

	args[0] = cg->ctx_arg;
	args[1] = cg->buf;
	args[2] = c32(cg, depth);
	args[3] = c32(cg, wr_bt_flags_index(s->bt_flags, (__u32)index));
	args[4] = site_rule0(cg);
	call(cg, WR_FN_BT, args, 5);
}

/* The key of `count bt, KEY`: an integer, a pointer or a boolean, as
 * an i64 in *@out.  A key whose reads failed, or that has no value at
 * this hit (an entry value no known call site gave), counts nothing: the
 * event gets an expression error, as a failed condition does: the
 * builder is left where the key was read, and *@end (if not NULL) is
 * where both go on after the count. */
static int count_key(struct cg *cg, const struct ast_expr *e, LLVMValueRef *out, LLVMBasicBlockRef *end)
{
	struct cg_value key;
	char desc[160];
	int err = cg_lower_expr(cg, e, &key);

	if (!err)
		err = cg_operand(cg, e, &key);
	if (err)
		return err;
	if (key.kind != CG_VALUE || !ctype_is_scalar(key.dt) || key.dt->kind == DW_TYPE_FLOAT ||
	    key.dt->size > 8)
		return cg_fail(cg, e->loc, "count by an integer: a number, a pointer, $tid, ...",
			       "a count key must be an integer or a pointer, not %s",
			       cg_describe(&key, desc, sizeof(desc)));
	if (key.optimized_out)
		return cg_fail(cg, e->loc, "count by a value the probe can read here",
			       "this value is optimized out at this pc of %s", cg->plan->name);
	*out = key.v;
	*end = NULL;
	if (key.status) {
		LLVMBasicBlockRef fail_bb = cg_block(cg, "count.failed"), ok_bb = cg_block(cg, "count.ok");
		LLVMValueRef code = LLVMBuildZExt(cg->builder, key.status, LLVMInt64TypeInContext(cg->ctx), "");

		*end = cg_block(cg, "count.end");
		LLVMBuildCondBr(cg->builder, LLVMBuildICmp(cg->builder, LLVMIntNE, code, c64(cg, 0), ""),
				fail_bb, ok_bb);
		LLVMPositionBuilderAtEnd(cg->builder, fail_bb);
		cg_expr_error(cg, e, code, key.fail_addr ? key.fail_addr : c64(cg, 0));
		LLVMBuildBr(cg->builder, *end);
		LLVMPositionBuilderAtEnd(cg->builder, ok_bb);
	}
	return 0;
}

/* `count bt [, KEY]`: a bt the step program counts instead of sending. */
static int lower_count(struct cg *cg, const struct ast_stmt *s)
{
	unsigned long long index = (unsigned long long)ast_probe_index_of(cg->plan->ast, s);
	unsigned depth = cg->plan->bt_depth ? cg->plan->bt_depth : WR_BT_DEFAULT_DEPTH;
	LLVMValueRef args[6];
	LLVMBasicBlockRef end = NULL;
	int err;

	args[5] = c64(cg, 0);
	if (s->value) {
		err = count_key(cg, s->value, &args[5], &end);
		if (err)
			return err;
		cg_set_loc(cg, s->loc);
	}
	args[0] = cg->ctx_arg;
	args[1] = cg->buf;
	args[2] = c32(cg, depth < WR_COUNT_MAX_DEPTH ? depth : WR_COUNT_MAX_DEPTH);
	args[3] = c32(cg, wr_bt_flags_index(s->bt_flags, (__u32)index));
	args[4] = site_rule0(cg);
	call(cg, WR_FN_COUNT_BT, args, 6);
	if (end) {
		LLVMBuildBr(cg->builder, end);
		LLVMPositionBuilderAtEnd(cg->builder, end);
	}
	return 0;
}

/* A condition whose reads failed is neither true nor false: the event
 * gets an expression error (the address and why) and neither branch runs,
 * but an `else if` that follows is still tried. */
static void skip_failed(struct cg *cg, const struct ast_stmt *s, const struct cg_value *c,
			LLVMBasicBlockRef next_bb)
{
	LLVMBasicBlockRef fail_bb = cg_block(cg, "if.failed"), ok_bb = cg_block(cg, "if.ok");
	LLVMValueRef code = LLVMBuildZExt(cg->builder, c->status, LLVMInt64TypeInContext(cg->ctx), "");

	LLVMBuildCondBr(cg->builder, LLVMBuildICmp(cg->builder, LLVMIntNE, code, c64(cg, 0), ""),
			fail_bb, ok_bb);
	LLVMPositionBuilderAtEnd(cg->builder, fail_bb);
	cg_expr_error(cg, s->cond, code, c->fail_addr ? c->fail_addr : c64(cg, 0));
	LLVMBuildBr(cg->builder, next_bb);
	LLVMPositionBuilderAtEnd(cg->builder, ok_bb);
}

/* One arm of an if/else-if chain: its body when @arm's condition holds,
 * then on to @end_bb; the builder is left where the next arm goes. */
static int lower_arm(struct cg *cg, const struct ast_stmt *arm, LLVMBasicBlockRef end_bb, bool last)
{
	LLVMBasicBlockRef then_bb = cg_block(cg, "if.then"), else_bb = cg_block(cg, "if.else");
	struct cg_value c;
	LLVMValueRef truth = NULL;
	int err = cg_lower_expr(cg, arm->cond, &c);

	if (!err)
		err = cg_truth(cg, arm->cond, &c, "an if condition", &truth);
	if (err)
		return err;
	if (c.status)
		skip_failed(cg, arm, &c, last ? end_bb : else_bb);
	LLVMBuildCondBr(cg->builder, truth, then_bb, else_bb);
	LLVMPositionBuilderAtEnd(cg->builder, then_bb);
	err = lower_block(cg, &arm->then_body);
	if (err)
		return err;
	LLVMBuildBr(cg->builder, end_bb);
	LLVMPositionBuilderAtEnd(cg->builder, else_bb);
	return 0;
}

/* An else-if chain is a flat list of arms (ast.h): a loop, not recursion. */
static int lower_if(struct cg *cg, const struct ast_stmt *s)
{
	LLVMBasicBlockRef end_bb = cg_block(cg, "if.end");
	int err = lower_arm(cg, s, end_bb, s->n_elifs == 0);

	for (size_t i = 0; i < s->n_elifs && !err; i++) {
		cg_set_loc(cg, s->elifs[i]->loc);
		err = lower_arm(cg, s->elifs[i], end_bb, i + 1 == s->n_elifs);
	}
	if (!err)
		err = lower_block(cg, &s->else_body);
	if (err)
		return err;
	LLVMBuildBr(cg->builder, end_bb);
	LLVMMoveBasicBlockAfter(end_bb, LLVMGetInsertBlock(cg->builder));
	LLVMPositionBuilderAtEnd(cg->builder, end_bb);
	return 0;
}

static int lower_let(struct cg *cg, const struct ast_stmt *s)
{
	struct cg_value v;
	int err = cg_lower_expr(cg, s->value, &v);

	if (err)
		return err;
	cg->vars = xgrow(cg->vars, &cg->cap_vars, cg->n_vars + 1, sizeof(*cg->vars));
	cg->vars[cg->n_vars++] = (struct cg_binding){ .name = s->name, .val = v, .depth = cg->depth };
	return 0;
}

static int lower_stmt(struct cg *cg, const struct ast_stmt *s)
{
	struct cg_value ignored;

	cg_set_loc(cg, s->loc);
	switch (s->kind) {
	case AST_STMT_PRINT:
		return lower_print(cg, s);
	case AST_STMT_BT:
		lower_bt(cg, s);
		return 0;
	case AST_STMT_IF:
		return lower_if(cg, s);
	case AST_STMT_LET:
		return lower_let(cg, s);
	case AST_STMT_EXPR:
		return cg_lower_expr(cg, s->value, &ignored);
	case AST_STMT_COUNT:
		return lower_count(cg, s);
	}
	return 0;
}

static int lower_block(struct cg *cg, const struct ast_block *b)
{
	size_t saved = cg->n_vars;
	int err = 0;

	cg->depth++;
	for (size_t i = 0; i < b->n && !err; i++)
		err = lower_stmt(cg, b->stmts[i]);
	cg->n_vars = saved;
	cg->depth--;
	return err;
}

/* Tests of the verifier-rejection path set WRAITH_FAULT=verifier: the
 * probe then reads from address 8, which the real verifier must refuse. */
static void inject_fault(struct cg *cg)
{
	const char *fault = getenv("WRAITH_FAULT");
	LLVMValueRef load;

	if (!fault || strcmp(fault, "verifier") != 0)
		return;
	load = LLVMBuildLoad2(cg->builder, i64(cg),
			      LLVMConstIntToPtr(c64(cg, 8), LLVMPointerTypeInContext(cg->ctx, 0)), "");
	LLVMSetVolatile(load, 1);
}

/* The body of cg->plan, into cg->fn from a block of its own (cg->entry)
 * on, with cg->builder. */
static int lower_body(struct cg *cg)
{
	LLVMBasicBlockRef entry, body, skip;
	LLVMValueRef args[4], isnull, ret, cookie;
	int err;

	cg->ctx_arg = LLVMGetParam(cg->fn, 0);
	entry = cg_block(cg, "entry");
	cg->entry = entry;
	body = cg_block(cg, "body");
	skip = cg_block(cg, "skip");
	LLVMPositionBuilderAtEnd(cg->builder, entry);
	cg_set_loc(cg, cg->plan->ast->loc);
	cg->n_params = 0;
	/* The process or thread filter is in the cookie too, not the program;
	 * read once (a helper call) for the site's data and the event. */
	args[0] = cg->ctx_arg;
	cookie = cg->cookie ? cg->cookie : call(cg, WR_FN_PROBE_COOKIE, args, 1);
	if (cg->plan->site_table) {
		/* a hit at a site whose entry is not there is dropped */
		LLVMBasicBlockRef begin = cg_block(cg, "begin");

		args[0] = cookie;
		cg->site_params = call(cg, WR_FN_SITE_PARAMS, args, 1);
		isnull = LLVMBuildIsNull(cg->builder, cg->site_params, "");
		LLVMBuildCondBr(cg->builder, isnull, skip, begin);
		LLVMPositionBuilderAtEnd(cg->builder, begin);
	}
	args[0] = cg->ctx_arg;
	args[1] = cookie;
	cg->buf = call(cg, WR_FN_EVENT_BEGIN, args, 2);
	isnull = LLVMBuildIsNull(cg->builder, cg->buf, "");
	LLVMBuildCondBr(cg->builder, isnull, skip, body);
	LLVMPositionBuilderAtEnd(cg->builder, skip);
	LLVMBuildRet(cg->builder, LLVMConstInt(i32(cg), 0, 0));
	LLVMPositionBuilderAtEnd(cg->builder, body);
	if (ast_probe_count(cg->plan->ast, AST_STMT_PRINT) + ast_probe_count(cg->plan->ast, AST_STMT_BT) +
	    ast_probe_count(cg->plan->ast, AST_STMT_COUNT)) {
		args[0] = cg->buf;
		call(cg, WR_FN_EVENT_DROP_EMPTY, args, 1);
	}
	inject_fault(cg);
	err = lower_block(cg, &cg->plan->ast->body);
	if (err)
		return err;
	cg_set_loc(cg, cg->plan->ast->loc);
	args[0] = cg->ctx_arg;
	args[1] = cg->buf;
	ret = call(cg, WR_FN_EVENT_END, args, 2);
	LLVMBuildRet(cg->builder, ret);
	return 0;
}

int lower_probe(struct cg *cg)
{
	cg->builder = LLVMCreateBuilderInContext(cg->ctx);
	return lower_body(cg);
}

/* The dispatch of lower_forms(): the site's entry read, and its form's
 * code jumped to (@first[i], form i's); a hit at a site without an entry,
 * or of a form the program does not have, is dropped. */
static void lower_dispatch(struct cg *cg, LLVMBasicBlockRef dispatch, const LLVMBasicBlockRef *first,
			   size_t n)
{
	LLVMBasicBlockRef skip = cg_block(cg, "no_form"), read = cg_block(cg, "form");
	LLVMValueRef args[1] = { cg->cookie }, sp, idx, form, sw;

	LLVMPositionBuilderAtEnd(cg->builder, dispatch);
	cg_set_loc(cg, cg->plan->ast->loc);
	sp = call(cg, WR_FN_SITE_PARAMS, args, 1);
	LLVMBuildCondBr(cg->builder, LLVMBuildIsNull(cg->builder, sp, ""), skip, read);
	LLVMPositionBuilderAtEnd(cg->builder, read);
	idx = cg_i64(cg, WR_SITE_FORM);
	form = LLVMBuildLoad2(cg->builder, i64(cg),
			      LLVMBuildGEP2(cg->builder, i64(cg), sp, &idx, 1, ""), "form");
	sw = LLVMBuildSwitch(cg->builder, form, skip, (unsigned)n);
	for (size_t i = 0; i < n; i++)
		LLVMAddCase(sw, cg_i64(cg, i), first[i]);
	LLVMPositionBuilderAtEnd(cg->builder, skip);
	LLVMBuildRet(cg->builder, LLVMConstInt(i32(cg), 0, 0));
}

int lower_forms(struct cg *cg, const struct probe_plan *const *plans, size_t n)
{
	LLVMBasicBlockRef dispatch = cg_block(cg, "dispatch");
	LLVMBasicBlockRef *first = xcalloc(n, sizeof(*first));
	LLVMValueRef scratch = NULL, text_buf = NULL;
	int err = 0;

	cg->builder = LLVMCreateBuilderInContext(cg->ctx);
	cg->slots = dispatch;
	/* The cookie first, in the dispatch, which every form's code follows:
	 * one helper call a hit, for the dispatch and the form alike. */
	LLVMPositionBuilderAtEnd(cg->builder, dispatch);
	cg->plan = plans[0];
	cg_set_loc(cg, cg->plan->ast->loc);
	cg->cookie = call(cg, WR_FN_PROBE_COOKIE, (LLVMValueRef[]){ LLVMGetParam(cg->fn, 0) }, 1);
	for (size_t i = 0; i < n && !err; i++) {
		cg->plan = plans[i];
		cg->scratch = scratch;
		cg->text_buf = text_buf;
		err = lower_body(cg);
		first[i] = cg->entry;
		/* one form runs per hit: its scalar and text slots are the
		 * next form's too */
		scratch = cg->scratch;
		text_buf = cg->text_buf;
		if (i + 1 < n)
			lower_release(cg);
	}
	if (!err)
		lower_dispatch(cg, dispatch, first, n);
	cg->slots = NULL;
	cg->cookie = NULL;
	free(first);
	return err;
}

void lower_eval_begin(struct cg *cg)
{
	LLVMBasicBlockRef body;

	cg->builder = LLVMCreateBuilderInContext(cg->ctx);
	cg->ctx_arg = LLVMGetParam(cg->fn, 0);
	cg->entry = cg_block(cg, "entry");
	body = cg_block(cg, "body");
	LLVMPositionBuilderAtEnd(cg->builder, cg->entry);
	LLVMBuildBr(cg->builder, body);
	LLVMPositionBuilderAtEnd(cg->builder, body);
	cg_set_loc(cg, cg->plan->ast ? cg->plan->ast->loc : (struct src_loc){ .line = 1, .col = 1 });
}

void lower_eval_end(struct cg *cg)
{
	LLVMBuildRet(cg->builder, LLVMConstInt(i32(cg), 0, 0));
}

/* Forget everything that belongs to the function just lowered: the key
 * module lowers one probe after another into the same struct cg, and a
 * slot or register read of a deleted function must not be reused. */
void lower_release(struct cg *cg)
{
	free(cg->vars);
	cg->vars = NULL;
	codegen_args_release(&cg->args);
	cg->n_vars = cg->cap_vars = 0;
	cg->depth = 0;
	memset(cg->regs, 0, sizeof(cg->regs));
	cg->entry = NULL;
	cg->ctx_arg = cg->buf = cg->scratch = cg->text_buf = cg->cmp_buf = NULL;
	cg->site_params = NULL;
}
