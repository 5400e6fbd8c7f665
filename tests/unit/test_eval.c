/* test_eval.c - the expression evaluator: C's semantics of script
 * expressions, its located type errors, and probes big enough to test the
 * BPF limits.
 *
 * C semantics are held to the C compiler itself: expressions over typed
 * operands (every integer width and signedness, _Bool, char, enums, and
 * floating constants) are evaluated by the code generator's own folding
 * (codegen_eval()) and by a generated C program built with gcc and, when
 * installed, clang-19 (-fwrapv, operands volatile so the program computes
 * at run time).  Value, size and signedness of every result must agree.
 * Cases C leaves undefined (division by zero, INT_MIN / -1, shift counts
 * outside the width) are left out here; they have tests of their own.
 *
 * The variables come from a fake plan: each has a type built here and a
 * location (a constant, a register, or memory).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "dwarf/vars.h"
#include "runtime/runtime.h"
#include "script/parser.h"
#include "script/typespec.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- types ---- */

#define INT_T(n, sz, sg) { .kind = DW_TYPE_INT, .name = n, .size = sz, .is_signed = sg }
static const struct dw_type t_schar = { .kind = DW_TYPE_INT, .name = "signed char", .size = 1,
					.is_signed = true, .is_char = true };
static const struct dw_type t_uchar = { .kind = DW_TYPE_INT, .name = "unsigned char", .size = 1,
					.is_char = true };
static const struct dw_type t_char = { .kind = DW_TYPE_INT, .name = "char", .size = 1,
				       .is_signed = true, .is_char = true };
static const struct dw_type t_short = INT_T("short", 2, true);
static const struct dw_type t_ushort = INT_T("unsigned short", 2, false);
static const struct dw_type t_int = INT_T("int", 4, true);
static const struct dw_type t_uint = INT_T("unsigned int", 4, false);
static const struct dw_type t_long = INT_T("long", 8, true);
static const struct dw_type t_ulong = INT_T("unsigned long", 8, false);
static const struct dw_type t_bool = { .kind = DW_TYPE_BOOL, .name = "_Bool", .size = 1 };
static const struct dw_type t_enum_u = { .kind = DW_TYPE_ENUM, .name = "enum eu", .size = 4 };
static const struct dw_type t_enum_s = { .kind = DW_TYPE_ENUM, .name = "enum es", .size = 4,
					 .is_signed = true };
static const struct dw_type t_float = { .kind = DW_TYPE_FLOAT, .name = "float", .size = 4 };
static const struct dw_type t_double = { .kind = DW_TYPE_FLOAT, .name = "double", .size = 8 };
static const struct dw_type t_ldouble = { .kind = DW_TYPE_FLOAT, .name = "long double", .size = 16 };
static const struct dw_type t_void = { .kind = DW_TYPE_VOID, .name = "void" };

static const struct dw_member point_members[] = {
	{ .name = "x", .offset = 0, .type = &t_int },
	{ .name = "y", .offset = 4, .type = &t_int },
	{ .name = "flags", .offset = 8, .type = &t_int, .bit_size = 3 },
};
static const struct dw_type t_point = { .kind = DW_TYPE_STRUCT, .name = "struct point", .size = 12,
					.members = point_members, .n_members = 3 };
static const struct dw_type t_int4 = { .kind = DW_TYPE_ARRAY, .name = "int [4]", .size = 16,
				       .target = &t_int, .count = 4 };
static const struct dw_type t_char8 = { .kind = DW_TYPE_ARRAY, .name = "char[8]", .size = 8,
					.target = &t_char, .count = 8, .is_char = true };
static const struct dw_type t_int_p = { .kind = DW_TYPE_POINTER, .name = "int *", .size = 8,
					.target = &t_int };
static const struct dw_type t_char_p = { .kind = DW_TYPE_POINTER, .name = "char *", .size = 8,
					 .target = &t_char };
static const struct dw_type t_point_p = { .kind = DW_TYPE_POINTER, .name = "struct point *",
					  .size = 8, .target = &t_point };
static const struct dw_type t_void_p = { .kind = DW_TYPE_POINTER, .name = "void *", .size = 8,
					 .target = &t_void };

/* ---- the fake plan ---- */

struct fake_var {
	const char *name;
	const struct dw_type *type;
	struct dw_loc loc;
};

struct env {
	struct fake_var *vars; /* owned */
	size_t n, cap;
	struct dw_type **pointers; /* owned: types made by pointer_to */
	size_t n_ptr, cap_ptr;
};

static void env_add(struct env *env, const char *name, const struct dw_type *t, enum dw_loc_kind kind,
		    int reg, int64_t offset)
{
	env->vars = xgrow(env->vars, &env->cap, env->n + 1, sizeof(*env->vars));
	env->vars[env->n++] = (struct fake_var){ xstrdup(name), t, { .kind = kind, .reg = reg,
								      .offset = offset } };
}

static void env_release(struct env *env)
{
	for (size_t i = 0; i < env->n; i++)
		free((char *)env->vars[i].name);
	for (size_t i = 0; i < env->n_ptr; i++) {
		free((char *)env->pointers[i]->name);
		free(env->pointers[i]);
	}
	free(env->vars);
	free(env->pointers);
	memset(env, 0, sizeof(*env));
}

static int fake_find(void *ctx, const char *name, struct dw_var *out)
{
	struct env *env = ctx;

	for (size_t i = 0; i < env->n; i++) {
		if (strcmp(env->vars[i].name, name))
			continue;
		memset(out, 0, sizeof(*out));
		out->name = env->vars[i].name;
		out->type = env->vars[i].type;
		out->loc = env->vars[i].loc;
		return 0;
	}
	return -ENOENT;
}

static const struct dw_type *fake_pointer_to(void *ctx, const struct dw_type *target)
{
	struct env *env = ctx;
	struct dw_type *p = xcalloc(1, sizeof(*p));

	p->kind = DW_TYPE_POINTER;
	p->size = 8;
	p->target = target;
	p->name = xasprintf("%s *", target->name);
	env->pointers = xgrow(env->pointers, &env->cap_ptr, env->n_ptr + 1, sizeof(*env->pointers));
	env->pointers[env->n_ptr++] = p;
	return p;
}

/* The types of this file by their C spelling. */
static int fake_find_type(void *ctx, const struct typespec *ts, const struct dw_type **out,
			  struct diag *d)
{
	static const struct dw_type *const known[] = { &t_int, &t_uint, &t_long, &t_ulong, &t_uchar,
						       &t_char, &t_double, &t_float, &t_point, &t_int4,
						       &t_char_p, &t_int_p };
	struct strbuf sb = STRBUF_INIT;

	(void)ctx;
	typespec_spell(ts, NULL, ts->n_ops, &sb);
	*out = NULL;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]) && !*out; i++)
		if (!strcmp(known[i]->name, sb.buf))
			*out = known[i];
	if (!*out)
		diag_set(d, ts->name_loc, NULL, "no type '%s'", sb.buf);
	strbuf_release(&sb);
	return *out ? 0 : -WR_ESEMANTIC;
}

static struct probe_plan make_plan(struct env *env, const struct ast_probe *probe)
{
	struct probe_plan plan = { .probe_id = 1, .ast = probe, .pc = 0x1000, .bt_depth = 8,
				   .name = "f", .cfa_reg = 7, .cfa_off = 8 };

	plan.vars.find = fake_find;
	plan.vars.pointer_to = fake_pointer_to;
	plan.vars.find_type = fake_find_type;
	plan.vars.ctx = env;
	return plan;
}

/* ---- C semantics against the C compiler ---- */

struct operand_type {
	const char *c;              /* its C spelling */
	const struct dw_type *t;
	int64_t values[6];
	size_t n;
};

static const struct operand_type operand_types[] = {
	{ "signed char", &t_schar, { 0, 1, -1, 127, -128, 100 }, 6 },
	{ "unsigned char", &t_uchar, { 0, 1, 255, 200, 7, 128 }, 6 },
	{ "char", &t_char, { 0, 65, -3, 127, -128, 10 }, 6 },
	{ "short", &t_short, { 0, 1, -1, 32767, -32768, 1000 }, 6 },
	{ "unsigned short", &t_ushort, { 0, 1, 65535, 40000, 3, 255 }, 6 },
	{ "int", &t_int, { 0, 1, -1, INT32_MAX, INT32_MIN, -7 }, 6 },
	{ "unsigned int", &t_uint, { 0, 1, UINT32_MAX, 3000000000, 31, 0x80000000 }, 6 },
	{ "long", &t_long, { 0, 1, -1, INT64_MAX, INT64_MIN, -9 }, 6 },
	{ "unsigned long", &t_ulong, { 0, 1, -1 /* ULONG_MAX */, INT64_MIN, 63, 18446744073709551610ull }, 6 },
	{ "_Bool", &t_bool, { 0, 1 }, 2 },
	{ "enum eu", &t_enum_u, { 0, 1, 4000000000, 5 }, 4 },
	{ "enum es", &t_enum_s, { 0, -1, 1, 2 }, 4 },
};
#define N_TYPES (sizeof(operand_types) / sizeof(operand_types[0]))

static const enum ast_op binary_ops[] = {
	AST_OP_MUL, AST_OP_DIV, AST_OP_MOD, AST_OP_ADD, AST_OP_SUB, AST_OP_SHL, AST_OP_SHR,
	AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE, AST_OP_EQ, AST_OP_NE,
	AST_OP_BITAND, AST_OP_BITXOR, AST_OP_BITOR,
};

struct cexpr {
	char script[64];   /* over variables aN and bN */
	char c[256];       /* the same over volatile operands a and b */
	const struct dw_type *ta, *tb;
	int64_t va, vb;
	bool boolean;      /* a comparison or !: compare the value only */
	bool is_float;     /* compare the bits of a floating result */
};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* @v as C converts it to integer type @t, sign-extended to 64 bits when @t
 * is signed. */
static int64_t as_type(int64_t v, const struct dw_type *t)
{
	unsigned bits = t->kind == DW_TYPE_BOOL ? 1 : (unsigned)t->size * 8;

	if (t->kind == DW_TYPE_BOOL)
		return v != 0;
	if (bits >= 64)
		return v;
	v &= (int64_t)((1ull << bits) - 1);
	if (t->is_signed && (v >> (bits - 1)) & 1)
		v -= (int64_t)(1ull << bits);
	return v;
}

/* Division by zero, INT_MIN / -1 and out-of-range shifts are undefined in
 * C: left to tests of their own. */
static bool undefined(enum ast_op op, const struct dw_type *ta, int64_t a, int64_t b)
{
	unsigned width = ta->size == 8 ? 64 : 32;

	if (op == AST_OP_DIV || op == AST_OP_MOD)
		return b == 0 || (b == -1 && (a == INT32_MIN || a == INT64_MIN));
	if (op == AST_OP_SHL || op == AST_OP_SHR)
		return b < 0 || (uint64_t)b >= width;
	return false;
}

static size_t make_integer_cases(struct cexpr *out, size_t max)
{
	size_t n = 0;

	for (size_t o = 0; o < sizeof(binary_ops) / sizeof(binary_ops[0]); o++) {
		for (size_t i = 0; i < N_TYPES; i++) {
			for (size_t j = 0; j < N_TYPES; j++) {
				const struct operand_type *x = &operand_types[i], *y = &operand_types[j];

				for (int k = 0; k < 2 && n < max; k++) {
					struct cexpr *c = &out[n];
					enum ast_op op = binary_ops[o];

					c->ta = x->t;
					c->tb = y->t;
					c->va = as_type(x->values[rng() % x->n], x->t);
					c->vb = as_type(y->values[rng() % y->n], y->t);
					if ((op == AST_OP_SHL || op == AST_OP_SHR) && rng() % 2)
						c->vb = as_type((int64_t)(rng() % 40), y->t);
					if (undefined(op, x->t, c->va, c->vb))
						continue;
					c->boolean = op >= AST_OP_LT && op <= AST_OP_NE;
					snprintf(c->script, sizeof(c->script), "a%zu %s b%zu", n, ast_op_name(op), n);
					snprintf(c->c, sizeof(c->c), "a %s b", ast_op_name(op));
					n++;
				}
			}
		}
	}
	for (size_t i = 0; i < N_TYPES; i++) {
		for (size_t v = 0; v < operand_types[i].n && n + 3 <= max; v++) {
			static const char *const unary[] = { "-", "~", "!" };

			for (int u = 0; u < 3; u++) {
				struct cexpr *c = &out[n];

				c->ta = c->tb = operand_types[i].t;
				c->va = c->vb = as_type(operand_types[i].values[v], c->ta);
				c->boolean = u == 2;
				snprintf(c->script, sizeof(c->script), "%sa%zu", unary[u], n);
				snprintf(c->c, sizeof(c->c), "%sa", unary[u]);
				n++;
			}
		}
	}
	return n;
}

static const char *c_spelling(const struct dw_type *t)
{
	for (size_t i = 0; i < N_TYPES; i++)
		if (operand_types[i].t == t)
			return operand_types[i].c;
	return t->name;
}

static uint64_t double_bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, 8);
	return b;
}

static uint64_t float_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, 4);
	return b;
}

/* Floating constants: folded at compile time as C folds them. */
static size_t make_float_cases(struct cexpr *out, size_t base, size_t max)
{
	static const struct {
		const struct dw_type *t;
		double v;
	} ops[] = {
		{ &t_double, 0.1 }, { &t_double, -2.5 }, { &t_double, 1e300 }, { &t_float, 0.1f },
		{ &t_float, 3.0f }, { &t_int, 7 }, { &t_uint, 3000000000.0 }, { &t_long, -5 },
		{ &t_double, 0.0 },
	};
	static const char *const fops[] = { "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=" };
	size_t n = 0, k = sizeof(ops) / sizeof(ops[0]);

	for (size_t i = 0; i < k; i++) {
		for (size_t j = 0; j < k; j++) {
			for (size_t o = 0; o < sizeof(fops) / sizeof(fops[0]) && n < max; o++) {
				struct cexpr *c = &out[n];

				if (ops[i].t->kind != DW_TYPE_FLOAT && ops[j].t->kind != DW_TYPE_FLOAT)
					continue;
				if (o == 3 && ops[j].v == 0)
					continue;
				c->ta = ops[i].t;
				c->tb = ops[j].t;
				c->va = ops[i].t == &t_double ? (int64_t)double_bits(ops[i].v)
					: ops[i].t == &t_float ? (int64_t)float_bits((float)ops[i].v) : (int64_t)ops[i].v;
				c->vb = ops[j].t == &t_double ? (int64_t)double_bits(ops[j].v)
					: ops[j].t == &t_float ? (int64_t)float_bits((float)ops[j].v) : (int64_t)ops[j].v;
				c->boolean = o >= 4;
				c->is_float = o < 4;
				snprintf(c->script, sizeof(c->script), "a%zu %s b%zu", base + n, fops[o], base + n);
				snprintf(c->c, sizeof(c->c), "a %s b", fops[o]);
				n++;
			}
		}
	}
	return n;
}

static void c_operand(struct strbuf *sb, const char *name, const struct dw_type *t, int64_t v)
{
	double d;
	float f;

	if (t == &t_double) {
		memcpy(&d, &v, 8);
		strbuf_addf(sb, "volatile double %s = %a; ", name, d);
	} else if (t == &t_float) {
		uint32_t b = (uint32_t)v;

		memcpy(&f, &b, 4);
		strbuf_addf(sb, "volatile float %s = %af; ", name, (double)f);
	} else {
		strbuf_addf(sb, "volatile %s %s = (%s)%lldll; ", c_spelling(t), name, c_spelling(t),
			    (long long)v);
	}
}

/* The C program: one line "size signed value" per case. */
static char *c_program(const struct cexpr *cases, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "#include <stdio.h>\n#include <string.h>\n"
		      "enum eu { EU_A, EU_BIG = 4000000000u };\nenum es { ES_N = -1, ES_P = 1 };\n"
		      "#define SIGNED(x) ((__typeof__(x))-1 < 0)\n"
		      "static unsigned long long fbits(double d, int is_float) { unsigned long long b = 0;"
		      " float f = (float)d; if (is_float) memcpy(&b, &f, 4); else memcpy(&b, &d, 8); return b; }\n"
		      "#define FOUT(x) printf(\"%d 1 %llu\\n\", (int)sizeof(x), fbits((x), sizeof(x) == 4))\n"
		      "#define OUT(x) printf(\"%d %d %llu\\n\", (int)sizeof(x), SIGNED(x), SIGNED(x) ? "
		      "(unsigned long long)(long long)(x) : (unsigned long long)(x))\n"
		      "int main(void) {\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&sb, "{ ");
		c_operand(&sb, "a", cases[i].ta, cases[i].va);
		c_operand(&sb, "b", cases[i].tb, cases[i].vb);
		strbuf_addf(&sb, "%s(%s); }\n", cases[i].is_float ? "FOUT" : "OUT", cases[i].c);
	}
	strbuf_addstr(&sb, "return 0; }\n");
	return strbuf_detach(&sb);
}

/* Build @src with @cc and run it; its output, or NULL when @cc is missing. */
static char *compile_and_run(const char *cc, const char *src)
{
	char dir[] = "/tmp/wraith-ceval-XXXXXX", path[128], cmd[512];
	struct strbuf out = STRBUF_INIT;
	FILE *f;
	char buf[4096];
	size_t got;
	int rc;

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", cc);
	if (system(cmd) != 0)
		return NULL;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/eval.c", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -O0 -fwrapv -w -o %s/eval %s && %s/eval", cc, dir, path, dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&out, buf, got);
	rc = pclose(f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		print_message("could not remove %s\n", dir);
	if (rc != 0)
		fail_msg("%s failed to build or run the generated program", cc);
	return strbuf_detach(&out);
}

/* The case on script line @line: each probe of 500 takes 502 lines. */
static size_t case_of_line(unsigned line)
{
	return (line - 1) / 502 * 500 + (line - 1) % 502 - 1;
}

/* Parse each case's script expression and evaluate them all at once. */
static void wraith_eval(struct cexpr *cases, size_t n, struct codegen_const *out)
{
	struct strbuf text = STRBUF_INIT;
	struct ast_script *script = NULL;
	const struct ast_expr **exprs = xcalloc(n, sizeof(*exprs));
	struct env env = { 0 };
	struct diag d = { 0 };
	struct probe_plan plan;
	char name[32];

	/* a probe holds at most 1000 statements: 500 per probe */
	for (size_t i = 0; i < n; i++) {
		if (i % 500 == 0)
			strbuf_addstr(&text, i ? "}\ntrace f {\n" : "trace f {\n");
		strbuf_addf(&text, "print %s;\n", cases[i].script);
		snprintf(name, sizeof(name), "a%zu", i);
		env_add(&env, name, cases[i].ta, DW_LOC_CONST, 0, cases[i].va);
		snprintf(name, sizeof(name), "b%zu", i);
		env_add(&env, name, cases[i].tb, DW_LOC_CONST, 0, cases[i].vb);
	}
	strbuf_addstr(&text, "}\n");
	assert_int_equal(script_parse(text.buf, &script, &d), 0);
	for (size_t i = 0; i < n; i++)
		exprs[i] = script->probes[i / 500]->body.stmts[i % 500]->args[0];
	plan = make_plan(&env, script->probes[0]);
	if (codegen_eval(&plan, exprs, n, &d, out) != 0)
		fail_msg("codegen_eval: %d:%d: %s (%s with a = %lld, b = %lld)", d.loc.line, d.loc.col, d.msg,
			 cases[case_of_line(d.loc.line)].script, (long long)cases[case_of_line(d.loc.line)].va,
			 (long long)cases[case_of_line(d.loc.line)].vb);
	diag_release(&d);
	ast_script_free(script);
	strbuf_release(&text);
	free(exprs);
	env_release(&env);
}

static void compare_with(const char *cc, struct cexpr *cases, size_t n, const struct codegen_const *got)
{
	char *src = c_program(cases, n), *want = compile_and_run(cc, src), *line, *save = NULL;
	size_t i = 0, bad = 0;

	free(src);
	if (!want) {
		print_message("%s is not installed: not compared with it\n", cc);
		return;
	}
	for (line = strtok_r(want, "\n", &save); line && i < n; line = strtok_r(NULL, "\n", &save), i++) {
		int size, is_signed;
		unsigned long long value;

		assert_int_equal(sscanf(line, "%d %d %llu", &size, &is_signed, &value), 3);
		if (!got[i].type) {
			print_message("%s: not a constant\n", cases[i].script);
			bad++;
			continue;
		}
		if (got[i].value == value && (cases[i].boolean || cases[i].is_float ||
					      (got[i].type->size == (uint64_t)size &&
					       got[i].type->is_signed == (is_signed != 0))))
			continue;
		if (bad++ < 20)
			print_message("%s (%s) with a = (%s)%lld, b = (%s)%lld: %s says %llu (%d bytes, %s), "
				      "wraith %llu (%s)\n", cases[i].c, cases[i].script, c_spelling(cases[i].ta),
				      (long long)cases[i].va, c_spelling(cases[i].tb), (long long)cases[i].vb, cc,
				      value, size, is_signed ? "signed" : "unsigned",
				      (unsigned long long)got[i].value, got[i].type->name);
	}
	assert_int_equal(i, n);
	free(want);
	assert_int_equal(bad, 0);
}

static void test_c_semantics(void **state)
{
	size_t max = 12000, n;
	struct cexpr *cases = xcalloc(max, sizeof(*cases));
	struct codegen_const *got;

	(void)state;
	n = make_integer_cases(cases, max);
	n += make_float_cases(cases + n, n, max - n);
	assert_true(n > 5000);
	got = xcalloc(n, sizeof(*got));
	wraith_eval(cases, n, got);
	compare_with("gcc", cases, n, got);
	compare_with("clang-19", cases, n, got);
	free(got);
	free(cases);
}

/* ---- constants, literals and the results C leaves undefined ---- */

struct expect {
	const char *expr;
	const char *type;    /* C type of the result */
	uint64_t value;
};

static void eval_one(struct env *env, const char *expr, struct codegen_const *out, struct diag *d,
		     int want_err)
{
	struct strbuf text = STRBUF_INIT;
	struct ast_script *script = NULL;
	const struct ast_expr *e;
	struct probe_plan plan;
	int err;

	strbuf_addf(&text, "trace f { print %s; }", expr);
	if (script_parse(text.buf, &script, d))
		fail_msg("%s: %s", expr, d->msg);
	e = script->probes[0]->body.stmts[0]->args[0];
	plan = make_plan(env, script->probes[0]);
	err = codegen_eval(&plan, &e, 1, d, out);
	if (err != want_err)
		fail_msg("%s: got %d, wanted %d (%s)", expr, err, want_err, d->msg ? d->msg : "");
	ast_script_free(script);
	strbuf_release(&text);
}

static void test_literals_and_constants(void **state)
{
	static const struct expect cases[] = {
		{ "2147483647", "int", 2147483647 },
		{ "2147483648", "long", 2147483648u },
		{ "0xffffffff", "unsigned int", 0xffffffffu },
		{ "4294967296", "long", 4294967296u },
		{ "18446744073709551615", "unsigned long", UINT64_MAX },
		{ "5u", "unsigned int", 5 },
		{ "5l", "long", 5 },
		{ "5ul", "unsigned long", 5 },
		{ "0x8000000000000000", "unsigned long", 0x8000000000000000ull },
		{ "2147483647 + 1", "int", (uint64_t)(int64_t)INT32_MIN },
		{ "-2147483648", "long", (uint64_t)-2147483648ll },
		{ "~0u", "unsigned int", 0xffffffffu },
		{ "-1 > 0u", "bool", 1 },
		{ "-1 < 0", "bool", 1 },
		{ "-7 / 2", "int", (uint64_t)-3 },
		{ "-7 % 3", "int", (uint64_t)-1 },
		{ "7u / 2", "unsigned int", 3 },
		{ "18446744073709551610 > 9223372036854775807", "bool", 1 },
		{ "1ul << 40", "unsigned long", 1ull << 40 },
		{ "-8 >> 1", "int", (uint64_t)-4 },
		{ "1.5 + 2", "double", 0x400c000000000000ull },
		{ "0.1f", "float", 0x3dcccccd },
		{ "1.0 / 3 > 0.33", "bool", 1 },
		{ "!0.0", "bool", 1 },
		{ "-0.0 == 0.0", "bool", 1 },
		{ "true && 2", "bool", 1 },
		{ "(\"abc\" == \"abc\")", "bool", 1 },
		{ "strncmp(\"abc\", \"abd\", 2)", "bool", 1 },
		{ "strncmp(\"abc\", \"abd\", 3)", "bool", 0 },
		{ "strncmp(\"ab\", \"abc\", 9)", "bool", 0 },
		{ "starts_with(\"hello\", \"he\")", "bool", 1 },
		{ "memcmp(hex(\"01 02\"), hex(\"0102\"))", "bool", 1 },
		{ "memcmp(hex(\"01 02\"), hex(\"01 03\"), 1)", "bool", 1 },
		{ "memcmp(hex(\"01 02\"), hex(\"01 03\"))", "bool", 0 },
		{ "memcmp(hex(\"01 02\"), hex(\"03 04\"), -1)", "bool", 1 },
		{ "memcmp(hex(\"01 02\"), hex(\"03 04\"), 3 - 5)", "bool", 1 },
		{ "memcmp(hex(\"01 02\"), hex(\"03 04\"), 0)", "bool", 1 },
	};
	struct env env = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct codegen_const c;
		struct diag d = { 0 };

		eval_one(&env, cases[i].expr, &c, &d, 0);
		if (!c.type)
			fail_msg("%s is not a constant", cases[i].expr);
		if (strcmp(c.type->name, cases[i].type) || c.value != cases[i].value)
			fail_msg("%s: got %s %#llx, wanted %s %#llx", cases[i].expr, c.type->name,
				 (unsigned long long)c.value, cases[i].type, (unsigned long long)cases[i].value);
		diag_release(&d);
	}
	env_release(&env);
}

/* ---- located type errors ---- */

static void add_runtime_vars(struct env *env)
{
	env_add(env, "i", &t_int, DW_LOC_REG, 5, 0);
	env_add(env, "u", &t_uint, DW_LOC_REG, 4, 0);
	env_add(env, "l", &t_long, DW_LOC_REG, 1, 0);
	env_add(env, "flag", &t_bool, DW_LOC_REG, 2, 0);
	env_add(env, "p", &t_int_p, DW_LOC_REG, 3, 0);
	env_add(env, "s", &t_char_p, DW_LOC_REG, 8, 0);
	env_add(env, "vp", &t_void_p, DW_LOC_REG, 9, 0);
	env_add(env, "sp", &t_point_p, DW_LOC_REG, 10, 0);
	env_add(env, "pt", &t_point, DW_LOC_MEM_CFA, 0, -32);
	env_add(env, "arr", &t_int4, DW_LOC_MEM_CFA, 0, -48);
	env_add(env, "name", &t_char8, DW_LOC_MEM_CFA, 0, -56);
	env_add(env, "d", &t_double, DW_LOC_MEM_CFA, 0, -64);
	env_add(env, "f", &t_float, DW_LOC_MEM_CFA, 0, -68);
	env_add(env, "ld", &t_ldouble, DW_LOC_MEM_CFA, 0, -96);
}

static int mismatches;

/* Compile `trace f { BODY }` and compare the error with @want (the
 * rendered diagnostic), or expect success when @want is NULL. */
static void assert_body(struct env *env, const char *body, const char *want)
{
	struct strbuf text = STRBUF_INIT, got = STRBUF_INIT;
	struct ast_script *script = NULL;
	struct bpf_blob blob = { 0 };
	struct codegen_options opt = { .transport = WR_TRANSPORT_RINGBUF };
	struct diag d = { 0 };
	struct probe_plan plan;
	int err;

	strbuf_addf(&text, "trace f { %s }", body);
	if (script_parse(text.buf, &script, &d) || script_check(script, &d))
		fail_msg("%s: %s", body, d.msg);
	plan = make_plan(env, script->probes[0]);
	err = codegen_probe(&opt, &plan, &blob, NULL, &d, NULL);
	if (want) {
		if (err != -WR_ESEMANTIC)
			fail_msg("%s: compiled, wanted an error", body);
		diag_render(&d, "t.ws", text.buf, &got);
		if (strcmp(got.buf, want)) {
			print_message("%s:\ngot:\n%s\nwanted:\n%s", body, got.buf, want);
			mismatches++;
		}
	} else if (err) {
		fail_msg("%s: %d: %s", body, err, d.msg ? d.msg : "(no message)");
	}
	bpf_blob_release(&blob);
	diag_release(&d);
	ast_script_free(script);
	strbuf_release(&text);
	strbuf_release(&got);
}

static void test_type_errors(void **state)
{
	static const struct {
		const char *body, *want;
	} cases[] = {
		{ "if p > 0 { print \"x\"; }",
		  "t.ws:1:18: error: '>' orders a pointer (int *) against an integer (int): only two "
		  "pointers have an order\n    trace f { if p > 0 { print \"x\"; } }\n"
		  "                     ^\nhint: test a pointer with `if p`, `p != 0` or `p == 0`\n" },
		{ "print (0 || *sp);",
		  "t.ws:1:23: error: '||' needs a number, a pointer or a boolean, not a struct (struct "
		  "point)\n    trace f { print (0 || *sp); }\n                          ^~~\nhint: test one of its "
		  "members (s.count != 0), or the pointer it came from\n" },
		{ "if strncmp(s, \"ab\", 2) == 0 { print \"x\"; }",
		  "t.ws:1:14: error: '==' compares the boolean result of strncmp() with an integer (int)\n"
		  "    trace f { if strncmp(s, \"ab\", 2) == 0 { print \"x\"; } }\n"
		  "                 ^~~~~~~~~~~~~~~~~~~\nhint: strncmp() returns a boolean here (true when "
		  "they match), not C's <0, 0, >0: write `strncmp(...)` or `!strncmp(...)`\n" },
		{ "print i << 32;",
		  "t.ws:1:22: error: shift count 32 is not less than the width of the shifted type (32 bits)\n"
		  "    trace f { print i << 32; }\n                         ^~\n"
		  "hint: widen the left operand first, e.g. 1ul << 40\n" },
		{ "print pt->x;",
		  "t.ws:1:17: error: '->x' needs a pointer, but pt is a struct (struct point)\n"
		  "    trace f { print pt->x; }\n                    ^~~~~\n"
		  "hint: use '.' for a member of a struct or union itself\n" },
		{ "print memcmp(p, s, 65);",
		  "t.ws:1:30: error: at most 64 bytes can be compared, not 65\n"
		  "    trace f { print memcmp(p, s, 65); }\n                                 ^~\n"
		  "hint: compare in several calls, each at most 64 bytes\n" },
		{ "print memcmp(i + 1, s, 2);",
		  "t.ws:1:24: error: an integer (int) has no address here: it is held in a register or computed\n"
		  "    trace f { print memcmp(i + 1, s, 2); }\n                           ^~~~~\n"
		  "hint: pass a pointer, an array, or a variable that lives in memory\n" },
		{ "print memcmp(hex(\"01\"), hex(\"01\"), i);",
		  "t.ws:1:46: error: comparing two hex() literals needs a constant length\n"
		  "    trace f { print memcmp(hex(\"01\"), hex(\"01\"), i); }\n"
		  "                                                 ^\n" },
		{ "print strncmp(s, \"a\", d);",
		  "t.ws:1:33: error: a length must be an integer, not a floating-point value (double)\n"
		  "    trace f { print strncmp(s, \"a\", d); }\n                                    ^\n" },
		{ "print i / 0;",
		  "t.ws:1:21: error: division by zero\n    trace f { print i / 0; }\n                        ^\n" },
		{ "print d + 1;",
		  "t.ws:1:17: error: '+' cannot compute with a floating-point value (double)\n"
		  "    trace f { print d + 1; }\n                    ^\nhint: BPF has no floating-point unit: "
		  "floating-point values can be printed and compared, integers can be computed with\n" },
		{ "print p * 2;",
		  "t.ws:1:17: error: '*' needs integers, not a pointer (int *)\n"
		  "    trace f { print p * 2; }\n                    ^\n"
		  "hint: pointers take only p + n, p - n and p - q (elements), and comparisons\n" },
		{ "print p + s;",
		  "t.ws:1:17: error: pointers cannot be added\n    trace f { print p + s; }\n"
		  "                    ^~~~~\nhint: p + n moves by n elements; p - q counts the elements between\n" },
		{ "print p - s;",
		  "t.ws:1:17: error: '-' subtracts pointers to different types (int * and char *)\n"
		  "    trace f { print p - s; }\n                    ^~~~~\nhint: cast one side: cast(q, \"T *\")\n" },
		{ "print p == 5;",
		  "t.ws:1:22: error: '==' compares an integer (int) with int *\n"
		  "    trace f { print p == 5; }\n                         ^\nhint: a pointer equals another "
		  "pointer or 0 (NULL); cast(p, \"unsigned long\") compares its address as a number\n" },
		{ "print pt + 1;",
		  "t.ws:1:17: error: '+' needs integers, not a struct (struct point)\n"
		  "    trace f { print pt + 1; }\n                    ^~\nhint: use one of its members, e.g. s.field\n" },
		{ "print *vp;",
		  "t.ws:1:18: error: void * points to void, which has no value to read\n"
		  "    trace f { print *vp; }\n                     ^~\nhint: cast it to a pointer to what it "
		  "points to: cast(p, \"T *\")\n" },
		{ "print &i;",
		  "t.ws:1:18: error: this expression has no address\n    trace f { print &i; }\n"
		  "                     ^\nhint: it lives in a register (or is computed), not in memory\n" },
		{ "print &pt.flags;",
		  "t.ws:1:18: error: a bitfield has no address of its own\n    trace f { print &pt.flags; }\n"
		  "                     ^~~~~~~~\n" },
		{ "print ~d;",
		  "t.ws:1:18: error: '~' needs an integer, not a floating-point value (double)\n"
		  "    trace f { print ~d; }\n                     ^\nhint: '~' works on the bits of integers\n" },
		{ "print d < l;",
		  "t.ws:1:17: error: '<' would convert long to double, which a probe cannot do\n"
		  "    trace f { print d < l; }\n                    ^~~~~\nhint: BPF has no floating-point unit: "
		  "compare values of the same floating type, or a value with a constant\n" },
		{ "print flag < \"x\";",
		  "t.ws:1:24: error: '<' cannot take a string literal\n    trace f { print flag < \"x\"; }\n"
		  "                           ^~~\nhint: strings compare with == and != (or starts_with, strncmp)\n" },
		{ "if (i < 2) == 1 { print \"x\"; }",
		  "t.ws:1:15: error: '==' compares a boolean with an integer (int)\n"
		  "    trace f { if (i < 2) == 1 { print \"x\"; } }\n                  ^~~~~~~~~~~\n"
		  "hint: a boolean is tested directly (`if ok`, `if !ok`) or compared with another boolean\n" },
		{ "if pt { print \"x\"; }",
		  "t.ws:1:14: error: an if condition needs a number, a pointer or a boolean, not a struct "
		  "(struct point)\n    trace f { if pt { print \"x\"; } }\n                 ^~\nhint: test one of "
		  "its members (s.count != 0), or the pointer it came from\n" },
		{ "print arr[p];",
		  "t.ws:1:21: error: an index must be an integer, not a pointer (int *)\n"
		  "    trace f { print arr[p]; }\n                        ^\n" },
		{ "print arr[2305843009213693952];",
		  "t.ws:1:21: error: index 2305843009213693952 of an array (int [4]) is out of range: its byte "
		  "offset (4 bytes an element) wraps around the address space\n"
		  "    trace f { print arr[2305843009213693952]; }\n"
		  "                        ^~~~~~~~~~~~~~~~~~~\n"
		  "hint: an index times the element size must fit in 64 bits\n" },
		{ "print i.x;",
		  "t.ws:1:17: error: '.x' needs a struct, a union or a pointer to one, not an integer (int)\n"
		  "    trace f { print i.x; }\n                    ^~~\n" },
		{ "print 1 - p;",
		  "t.ws:1:17: error: an integer minus a pointer has no meaning\n    trace f { print 1 - p; }\n"
		  "                    ^\nhint: write p - n\n" },
		{ "print ld == 1.5;",
		  "t.ws:1:17: error: '==' cannot compare a floating-point value (long double) with a "
		  "floating-point value\n    trace f { print ld == 1.5; }\n                    ^~\n" },
	};
	struct env env = { 0 };

	(void)state;
	add_runtime_vars(&env);
	mismatches = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_body(&env, cases[i].body, cases[i].want);
	env_release(&env);
	assert_int_equal(mismatches, 0);
}

/* What C allows compiles. */
static void test_accepted(void **state)
{
	static const char *const bodies[] = {
		"print \"{} {} {} {} {} {} {} {} {}\", arr + 1, *arr, arr[2], &arr[3] - &arr[0], *&pt.x, &pt, "
		"&pt.x, sp.x, (*sp).y;",
		"print \"{} {} {}\", arr[2305843009213693951], arr[-2305843009213693952], arr[i * 1000];",
		"if p { print \"x\"; } if !p { print \"y\"; } if p == 0 { print \"z\"; } if 0 != p { print \"w\"; }",
		"if p < p + 1 && vp == p && s != 0 { print \"x\"; }",
		"if flag == 0 || flag == true { print \"x\"; }",
		"if d > 0.5 && f < 1 && f == 0.1 && d != 2.5f && -d < 0 && !d { print \"x\"; }",
		"if d == d && f >= f { print \"x\"; }",
		"print \"{} {} {} {} {} {} {} {} {} {} {} {} {}\", d, f, ld, -f, arr, name, s, pt, $pc, $sp, "
		"$pid, $tid, $timestamp;",
		"if name == \"abc\" && starts_with(s, \"a\") && !strncmp(s, \"ab\", 2) { print \"x\"; }",
		"print \"{} {} {} {} {} {} {} {} {}\", u + i, u > i, l % u, u >> 3, ~u, -u, i << u, vp + 1, "
		"pt.flags - 8;",
		"print \"{} {} {} {}\", cast(l, \"int\"), cast(u, \"unsigned char\"), cast(p, \"unsigned long\"), "
		"cast(l, \"char *\");",
		"print \"{} {} {}\", cast(1, \"double\"), cast(2.5, \"int\"), cast(pt, \"int[4]\");",
		"let x = i + 1; let y = arr; print \"{} {} {}\", x * 2, y[1], y + 1;",
		"print \"{} {} {} {} {}\", memcmp(p, hex(\"01 02\")), memcmp(arr, s, i), memcmp(&pt, sp, 8), "
		"strncmp(vp, \"ab\", i + 1), starts_with(arr, \"x\");",
		"let t = \"ab\"; if strncmp(t, s, l) || memcmp(name, hex(\"61\"), 0) { print \"x\"; }",
		"print sp->x; print (*sp).y;",
	};
	struct env env = { 0 };

	(void)state;
	add_runtime_vars(&env);
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		assert_body(&env, bodies[i], NULL);
	env_release(&env);
}

/* ---- big probes ---- */

static char *big_body(void)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < 100; i++)
		strbuf_addf(&sb, "if name == \"n%d\" || i == %d { print \"%d {} {} {}\", i, name, arr[%d]; }\n",
			    i, i, i, i % 4);
	for (int i = 0; i < 100; i++)
		strbuf_addf(&sb, "print \"{} {}\", pt.x + %d, s;\n", i);
	for (int i = 0; i < 20; i++)
		strbuf_addf(&sb, "if memcmp(sp, hex(\"%02x\")) || strncmp(s, \"n%d\", i) { print \"{}\", "
			    "memcmp(arr, name, i + %d); }\n", i, i, i);
	strbuf_addstr(&sb, "bt;\n");
	return strbuf_detach(&sb);
}

/* 100 ifs and 200 prints in one probe compile, and the kernel's verifier
 * loads them (as root; the suite's CI runs as root). */
static void test_big_probe(void **state)
{
	struct codegen_options opt = { .transport = WR_TRANSPORT_RINGBUF };
	char *body = big_body(), *text = xasprintf("trace f {\n%s}\n", body);
	struct ast_script *script = NULL;
	struct bpf_blob base = { 0 }, blob = { 0 };
	struct runtime *rt = NULL;
	struct rt_probe *probe = NULL;
	struct env env = { 0 };
	struct diag d = { 0 };
	struct probe_plan plan;
	char *why = NULL;
	int err;

	(void)state;
	add_runtime_vars(&env);
	assert_int_equal(script_parse(text, &script, &d), 0);
	plan = make_plan(&env, script->probes[0]);
	err = codegen_probe(&opt, &plan, &blob, NULL, &d, NULL);
	if (err)
		fail_msg("compile: %d %s", err, d.msg ? d.msg : "");
	if (geteuid() != 0) {
		print_message("not root: the verifier was not asked\n");
	} else {
		assert_int_equal(codegen_base(&opt, &base), 0);
		assert_int_equal(runtime_new(&(struct rt_options){ .transport = WR_TRANSPORT_RINGBUF }, &base,
					     &rt), 0);
		err = runtime_load_probe(rt, &blob, 1, &probe, &why);
		if (err)
			fail_msg("the verifier refused the probe: %s", why ? why : "?");
		runtime_unload(rt, probe);
		runtime_free(rt);
		bpf_blob_release(&base);
	}
	free(why);
	bpf_blob_release(&blob);
	diag_release(&d);
	ast_script_free(script);
	env_release(&env);
	free(text);
	free(body);
}

static int teardown(void **state)
{
	(void)state;
	codegen_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals_and_constants),
		cmocka_unit_test(test_c_semantics),
		cmocka_unit_test(test_type_errors),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_big_probe),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
