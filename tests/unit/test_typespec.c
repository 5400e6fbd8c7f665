/* test_typespec.c - the parser of the type names cast() takes: each
 * accepted form is compared as its canonical spelling and its structure
 * (base, qualifiers, operations in the order they apply), each refused
 * one as its message, hint and the bytes the error is about. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/typespec.h"
#include "util/error.h"
#include "util/strbuf.h"

/* "[module] kind name quals: op op ..." with ops "*", "*c" (a const
 * pointer), "[4]", "(2)" (two parameters), "(..)" (variadic), "()" (no
 * prototype). */
static void structure(const struct typespec *ts, struct strbuf *out)
{
	static const char *const kinds[] = { "builtin", "tagged", "named" };

	if (ts->module)
		strbuf_addf(out, "[%s] ", ts->module);
	strbuf_addf(out, "%s '%s' q%u:", kinds[ts->base], ts->name, ts->quals);
	for (size_t i = 0; i < ts->n_ops; i++) {
		const struct typespec_op *op = &ts->ops[i];

		if (op->kind == TYPESPEC_POINTER)
			strbuf_addf(out, " *%s", op->quals & TYPESPEC_CONST ? "c" : "");
		else if (op->kind == TYPESPEC_ARRAY)
			strbuf_addf(out, " [%llu]", (unsigned long long)op->count);
		else if (op->unprototyped)
			strbuf_addstr(out, " ()");
		else
			strbuf_addf(out, " (%zu%s)", op->n_params, op->variadic ? ".." : "");
	}
}

static void test_accepted(void **state)
{
	static const struct {
		const char *text, *spelled, *structure;
	} cases[] = {
		{ "int", "int", "builtin 'int' q0:" },
		{ "unsigned", "unsigned int", "builtin 'unsigned int' q0:" },
		{ "long unsigned int", "unsigned long", "builtin 'unsigned long' q0:" },
		{ "long long", "long long", "builtin 'long long' q0:" },
		{ "unsigned long long int", "unsigned long long", "builtin 'unsigned long long' q0:" },
		{ "int long long", "long long", "builtin 'long long' q0:" },
		{ "signed", "int", "builtin 'int' q0:" },
		{ "short int unsigned", "unsigned short", "builtin 'unsigned short' q0:" },
		{ "signed char", "signed char", "builtin 'signed char' q0:" },
		{ "char unsigned", "unsigned char", "builtin 'unsigned char' q0:" },
		{ "long double", "long double", "builtin 'long double' q0:" },
		{ "bool", "bool", "builtin 'bool' q0:" },
		{ "_Bool *", "_Bool *", "builtin '_Bool' q0: *" },
		{ "void *", "void *", "builtin 'void' q0: *" },
		{ "  const volatile struct CastNode *  ", "const volatile struct CastNode *",
		  "tagged 'struct CastNode' q3: *" },
		{ "volatile const struct CastNode*", "const volatile struct CastNode *",
		  "tagged 'struct CastNode' q3: *" },
		{ "struct CastNode const volatile *", "const volatile struct CastNode *",
		  "tagged 'struct CastNode' q3: *" },
		{ "union CastPayload *", "union CastPayload *", "tagged 'union CastPayload' q0: *" },
		{ "enum CastColor", "enum CastColor", "tagged 'enum CastColor' q0:" },
		{ "uint32_t[4]", "uint32_t [4]", "named 'uint32_t' q0: [4]" },
		{ "uint32_t [0x10]", "uint32_t [16]", "named 'uint32_t' q0: [16]" },
		{ "int [2][3]", "int [2][3]", "builtin 'int' q0: [3] [2]" },
		{ "int *[4]", "int *[4]", "builtin 'int' q0: * [4]" },
		{ "int (*)[4]", "int (*)[4]", "builtin 'int' q0: [4] *" },
		{ "int (**)[4]", "int (**)[4]", "builtin 'int' q0: [4] * *" },
		{ "char * const *", "char * const *", "builtin 'char' q0: *c *" },
		{ "char*const*const", "char * const * const", "builtin 'char' q0: *c *c" },
		{ "const char **", "const char **", "builtin 'char' q1: * *" },
		{ "void (*)(int, char *)", "void (*)(int, char *)", "builtin 'void' q0: (2) *" },
		{ "int (*)(void)", "int (*)(void)", "builtin 'int' q0: (0) *" },
		{ "int (*)()", "int (*)()", "builtin 'int' q0: () *" },
		{ "int (*)(const char *, ...)", "int (*)(const char *, ...)", "builtin 'int' q0: (1..) *" },
		{ "void (*[4])(int)", "void (*[4])(int)", "builtin 'void' q0: (1) * [4]" },
		{ "int (*(*)(int))[2]", "int (*(*)(int))[2]", "builtin 'int' q0: [2] * (1) *" },
		{ "void (*(*)(int (*)[3]))(void)", "void (*(*)(int (*)[3]))(void)",
		  "builtin 'void' q0: (0) * (1) *" },
		{ "cast_node_t *", "cast_node_t *", "named 'cast_node_t' q0: *" },
		{ "const cast_node_t", "const cast_node_t", "named 'cast_node_t' q1:" },
		{ "std::vector<int,  std::allocator<int> >::iterator *",
		  "std::vector<int, std::allocator<int> >::iterator *",
		  "named 'std::vector<int, std::allocator<int> >::iterator' q0: *" },
		{ "libfix_casta-O0.so:struct CastDup *", "struct CastDup *",
		  "[libfix_casta-O0.so] tagged 'struct CastDup' q0: *" },
		{ " /opt/lib/libx.so.1 : std::string", "std::string", "[/opt/lib/libx.so.1] named 'std::string' q0:" },
		{ "libstdc++.so.6:std::string *", "std::string *", "[libstdc++.so.6] named 'std::string' q0: *" },
		{ "int restrict * restrict", "restrict int * restrict", "builtin 'int' q4: *" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct typespec *ts = NULL;
		struct typespec_error err;
		struct strbuf sb = STRBUF_INIT;
		int rc = typespec_parse(cases[i].text, strlen(cases[i].text), &ts, &err);

		if (rc)
			print_message("%s: %s\n", cases[i].text, err.msg);
		assert_int_equal(rc, 0);
		typespec_spell(ts, NULL, ts->n_ops, &sb);
		assert_string_equal(sb.buf, cases[i].spelled);
		strbuf_reset(&sb);
		structure(ts, &sb);
		assert_string_equal(sb.buf, cases[i].structure);
		strbuf_release(&sb);
		typespec_free(ts);
	}
}

/* The spelling of a type with fewer operations applied: what each level
 * of a cast's type is called. */
static void test_levels(void **state)
{
	static const char *const want[] = { "const volatile struct CastNode",
					     "const volatile struct CastNode [4]",
					     "const volatile struct CastNode (* const)[4]",
					     "const volatile struct CastNode (* const *)[4]" };
	const char *text = "volatile struct CastNode const (* const *)[4]";
	struct typespec *ts = NULL;
	struct typespec_error err;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(typespec_parse(text, strlen(text), &ts, &err), 0);
	assert_int_equal(ts->n_ops, 3);
	for (size_t n = 0; n <= ts->n_ops; n++) {
		strbuf_reset(&sb);
		typespec_spell(ts, NULL, n, &sb);
		assert_string_equal(sb.buf, want[n]);
	}
	strbuf_reset(&sb);
	typespec_spell(ts, "CastNode", 1, &sb);
	assert_string_equal(sb.buf, "const volatile CastNode [4]");
	/* where the base type is named: "volatile struct CastNode const" */
	assert_int_equal(ts->name_at, 9);
	assert_int_equal(ts->name_len, 15);
	strbuf_release(&sb);
	typespec_free(ts);
}

static void test_refused(void **state)
{
	static const struct {
		const char *text;
		size_t at, len;
		const char *msg, *hint;
	} cases[] = {
		{ "", 0, 1, "expected a type, found the end of the type",
		  "e.g. \"struct request *\", \"uint32_t[4]\"" },
		{ "const", 5, 1, "expected a type, found the end of the type",
		  "e.g. \"struct request *\", \"uint32_t[4]\"" },
		{ "struct", 6, 1, "expected a name after the keyword, found the end of the type",
		  "e.g. \"struct request *\"" },
		{ "struct *", 7, 1, "expected a name after the keyword, found '*'", "e.g. \"struct request *\"" },
		{ "long char", 0, 9, "'long char' is not a C type",
		  "type words combine as in C: unsigned long, long long, long double, signed char" },
		{ "signed unsigned", 0, 15, "'signed unsigned' is not a C type",
		  "type words combine as in C: unsigned long, long long, long double, signed char" },
		{ "long long long", 0, 14, "'long long long' is not a C type",
		  "type words combine as in C: unsigned long, long long, long double, signed char" },
		{ "int int", 4, 3, "'int' is given twice", NULL },
		{ "int x", 4, 1, "unexpected 'x' after the type",
		  "a cast names a type alone, without a variable name: \"int *\"" },
		{ "unsigned uint32_t", 9, 8, "unexpected 'uint32_t' after the type",
		  "a cast names a type alone, without a variable name: \"int *\"" },
		{ "uint32_t[]", 9, 1, "an array in a cast needs its length",
		  "e.g. \"uint32_t[4]\": what a pointer points to, seen as 4 elements" },
		{ "uint32_t[0]", 9, 1, "an array's length must be a number from 1 to 4294967296", NULL },
		{ "uint32_t[4x]", 9, 2, "an array's length must be a number from 1 to 4294967296", NULL },
		{ "uint32_t[n]", 9, 1, "expected the array's length, found 'n'", NULL },
		{ "uint32_t[4", 10, 1, "expected ']', found the end of the type", NULL },
		{ "int (*", 6, 1, "expected ')', found the end of the type", NULL },
		{ "int *)", 5, 1, "expected the end of the type, found ')'", NULL },
		{ "int (*)(int", 11, 1, "expected ',' or ')' in the parameter list, found the end of the type",
		  NULL },
		{ "int (*)(...)", 8, 1, "expected a type, found '.'", "e.g. \"struct request *\", \"uint32_t[4]\"" },
		{ "void [4]", 0, 8, "there are no arrays of void", "e.g. \"unsigned char[16]\" for bytes" },
		{ "int (*)(int)[2]", 0, 15, "a function cannot return an array", NULL },
		{ "int (*)(int)(int)", 0, 17, "a function cannot return a function", NULL },
		{ "int [2](int)", 0, 12, "there are no arrays of functions",
		  "an array of pointers to functions is: \"void (*[4])(int)\"" },
		{ "int &", 4, 1, "a cast cannot make a reference", "cast to a pointer instead: \"T *\"" },
		{ ":int", 0, 1, "a module name must come before ':'", "e.g. \"libfoo.so:struct node *\"" },
		{ "vec<int", 3, 1, "'<' is not closed", NULL },
		{ "libx.so:", 8, 1, "expected a type, found the end of the type",
		  "e.g. \"struct request *\", \"uint32_t[4]\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct typespec *ts = (struct typespec *)&ts;
		struct typespec_error err;
		int rc = typespec_parse(cases[i].text, strlen(cases[i].text), &ts, &err);

		if (rc != -WR_ESYNTAX)
			print_message("accepted: %s\n", cases[i].text);
		assert_int_equal(rc, -WR_ESYNTAX);
		assert_null(ts);
		if (strcmp(err.msg, cases[i].msg) || err.at != cases[i].at || err.len != cases[i].len)
			print_message("%s: %zu:%zu %s\n", cases[i].text, err.at, err.len, err.msg);
		assert_string_equal(err.msg, cases[i].msg);
		assert_int_equal(err.at, cases[i].at);
		assert_int_equal(err.len, cases[i].len);
		if (cases[i].hint)
			assert_string_equal(err.hint, cases[i].hint);
		else
			assert_null(err.hint);
	}
}

/* Deep nesting is refused, not recursed into without end. */
static void test_depth(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct typespec *ts = NULL;
	struct typespec_error err;

	(void)state;
	strbuf_addstr(&sb, "int ");
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&sb, "(*");
	assert_int_equal(typespec_parse(sb.buf, sb.len, &ts, &err), -WR_ESYNTAX);
	assert_string_equal(err.msg, "type nested too deeply");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "int ");
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&sb, "(int ");
	assert_int_equal(typespec_parse(sb.buf, sb.len, &ts, &err), -WR_ESYNTAX);
	assert_string_equal(err.msg, "type nested too deeply");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
