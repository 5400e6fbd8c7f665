/* test_script.c - lexer, parser, tree dump and semantic checks of the
 * script language.  Parser output is compared as ast_script_dump() golden
 * text; every diagnostic is compared as the full diag_render() text, so a
 * moved caret or a reworded message fails a test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire.h"
#include "script/ast.h"
#include "script/highlight.h"
#include "script/lexer.h"
#include "script/parser.h"
#include "script/walk.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- helpers ---- */

/* Parse and check @text, which must be valid; returns the tree. */
static struct ast_script *parse_ok(const char *text)
{
	struct ast_script *s = NULL;
	struct diag d = { 0 };
	int err = script_parse(text, &s, &d);

	if (err)
		print_message("unexpected parse error: %s\nin: %s\n", d.msg, text);
	assert_int_equal(err, 0);
	assert_non_null(s);
	err = script_check(s, &d);
	if (err)
		print_message("unexpected check error: %s\nin: %s\n", d.msg, text);
	assert_int_equal(err, 0);
	diag_release(&d);
	return s;
}

static void assert_dump(const char *text, const char *want)
{
	struct ast_script *s = parse_ok(text);
	struct strbuf sb = STRBUF_INIT;

	ast_script_dump(s, &sb);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
	ast_script_free(s);
}

/* Parse (and, if that succeeds, check) @text, which must fail with @want_err;
 * compare the rendered diagnostic with @want. */
static void assert_diag(const char *text, int want_err, const char *want)
{
	struct ast_script *s = NULL;
	struct diag d = { 0 };
	struct strbuf sb = STRBUF_INIT;
	int err = script_parse(text, &s, &d);

	if (!err) {
		assert_non_null(s);
		err = script_check(s, &d);
		ast_script_free(s);
	} else {
		assert_null(s);
	}
	diag_render(&d, "t.ws", text, &sb);
	if (err != want_err || strcmp(sb.buf, want))
		print_message("script:\n%s\n", text);
	assert_int_equal(err, want_err);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
	diag_release(&d);
}

/* ---- lexer ---- */

static void test_lexer_tokens(void **state)
{
	static const char text[] = "trace ns::f<int> {\n\tlet x = $pid >= 0x1F; // c\n"
				   "  print \"a\\n\", s.trace[2] << 1 && !y;\n}";
	static const enum tok_kind want[] = {
		TOK_TRACE, TOK_PATTERN, TOK_LBRACE, TOK_LET, TOK_IDENT, TOK_ASSIGN, TOK_SPECIAL,
		TOK_GE, TOK_INT, TOK_SEMI, TOK_PRINT, TOK_STRING, TOK_COMMA, TOK_IDENT, TOK_DOT,
		TOK_TRACE, TOK_LBRACKET, TOK_INT, TOK_RBRACKET, TOK_SHL, TOK_INT, TOK_ANDAND,
		TOK_BANG, TOK_IDENT, TOK_SEMI, TOK_RBRACE, TOK_EOF, TOK_EOF,
	};
	struct lexer lx;
	struct token t;

	(void)state;
	lexer_init(&lx, text, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(lexer_next(&lx, &t, NULL), 0);
		if (t.kind != want[i])
			print_message("token %zu: got %s\n", i, tok_kind_name(t.kind));
		assert_int_equal(t.kind, want[i]);
		if (i == 1) {
			assert_int_equal(t.off, 6);
			assert_int_equal(t.len, 10);
			assert_int_equal(t.loc.line, 1);
			assert_int_equal(t.loc.col, 7);
			assert_int_equal(t.loc.len, 10);
		}
		if (i == 3) { /* `let` after a tab on line 2 */
			assert_int_equal(t.loc.line, 2);
			assert_int_equal(t.loc.col, 2);
		}
		if (i == 8)
			assert_int_equal(t.ival, 31);
		if (i == 11) {
			assert_int_equal(t.loc.line, 3);
			assert_int_equal(t.loc.col, 9);
			assert_int_equal(t.len, 5);
		}
	}
}

/* A path of words joined by "::" is one identifier (a Rust static, a
 * C++ namespace's global); a keyword inside it is a word; a lone ':' is
 * not joined. */
static void test_lexer_paths(void **state)
{
	static const char text[] = "app::stats::HITS + trace::if - a :: b";
	static const enum tok_kind want[] = { TOK_IDENT, TOK_PLUS, TOK_IDENT, TOK_MINUS, TOK_IDENT };
	struct lexer lx;
	struct token t;
	struct diag d = { 0 };

	(void)state;
	lexer_init(&lx, text, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(lexer_next(&lx, &t, NULL), 0);
		assert_int_equal(t.kind, want[i]);
		if (i == 0)
			assert_int_equal(t.len, strlen("app::stats::HITS"));
		if (i == 2)
			assert_int_equal(t.len, strlen("trace::if"));
	}
	/* "a :: b": the spaces part them, and ':' alone is no token */
	assert_int_not_equal(lexer_next(&lx, &t, &d), 0);
	diag_release(&d);
}

/* What a front end colours: every token a span with its class, in order;
 * a malformed stretch one error span, and the text after it classed. */
static void test_highlight(void **state)
{
	static const char text[] = "trace f { print \"a\", $pid + 1; } // c";
	static const struct script_hl_span want[] = {
		{ 0, 5, SCRIPT_HL_KEYWORD }, { 6, 1, SCRIPT_HL_PATTERN }, { 8, 1, SCRIPT_HL_PUNCT },
		{ 10, 5, SCRIPT_HL_KEYWORD }, { 16, 3, SCRIPT_HL_STRING }, { 19, 1, SCRIPT_HL_PUNCT },
		{ 21, 4, SCRIPT_HL_SPECIAL }, { 26, 1, SCRIPT_HL_PUNCT }, { 28, 1, SCRIPT_HL_NUMBER },
		{ 29, 1, SCRIPT_HL_PUNCT }, { 31, 1, SCRIPT_HL_PUNCT }, { 33, 4, SCRIPT_HL_COMMENT },
	};
	struct script_hl_span *v;
	size_t n = script_highlight(text, strlen(text), &v);

	(void)state;
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(v[i].off, want[i].off);
		assert_int_equal(v[i].len, want[i].len);
		assert_int_equal(v[i].kind, want[i].kind);
	}
	free(v);
	/* half-typed: a stray '@', then a keyword still classed */
	n = script_highlight("@ bt", 4, &v);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].kind, SCRIPT_HL_ERROR);
	assert_int_equal(v[1].off, 2);
	assert_int_equal(v[1].kind, SCRIPT_HL_KEYWORD);
	free(v);
	/* only the first @len bytes */
	n = script_highlight(text, 5, &v);
	assert_int_equal(n, 1);
	free(v);
	assert_int_equal(script_highlight("", 0, &v), 0);
	assert_null(v);
}

static void test_lexer_comments_and_classes(void **state)
{
	static const char text[] = "/* a\n b */ bt // x\n;";
	struct lexer lx;
	struct token t;

	(void)state;
	lexer_init(&lx, text, LEXER_KEEP_COMMENTS);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_COMMENT);
	assert_int_equal(t.len, 10);
	assert_int_equal(tok_kind_class(t.kind), SCRIPT_HL_COMMENT);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_BT);
	assert_int_equal(t.loc.line, 2);
	assert_int_equal(t.loc.col, 7);
	assert_int_equal(tok_kind_class(t.kind), SCRIPT_HL_KEYWORD);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_COMMENT);
	assert_int_equal(t.len, 4);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_SEMI);
	assert_int_equal(t.loc.line, 3);
	assert_int_equal(tok_kind_class(t.kind), SCRIPT_HL_PUNCT);

	/* Without the flag comments vanish; "backtrace" is the same keyword. */
	lexer_init(&lx, "/* x */ backtrace", 0);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_BT);
	assert_int_equal(t.off, 8);
	assert_string_equal(tok_kind_name(TOK_SEMI), "';'");
	assert_string_equal(tok_kind_name(TOK_EOF), "end of input");
}

/* A highlighter keeps going after bad text. */
static void test_lexer_error_recovery(void **state)
{
	static const char text[] = "a @ 0xZZ \"open\nb";
	struct lexer lx;
	struct token t;
	struct diag d = { 0 };

	(void)state;
	lexer_init(&lx, text, 0);
	assert_int_equal(lexer_next(&lx, &t, &d), 0);
	assert_int_equal(t.kind, TOK_IDENT);
	assert_int_equal(lexer_next(&lx, &t, &d), -WR_ESYNTAX);
	assert_int_equal(t.kind, TOK_ERROR);
	assert_int_equal(t.off, 2);
	assert_string_equal(d.msg, "unexpected character '@'");
	assert_int_equal(lexer_next(&lx, &t, &d), -WR_ESYNTAX);
	assert_int_equal(t.kind, TOK_ERROR);
	assert_int_equal(t.off, 4);
	assert_int_equal(t.len, 4);
	assert_string_equal(d.msg, "invalid digit 'Z' in integer literal");
	assert_int_equal(d.loc.col, 7);
	assert_int_equal(lexer_next(&lx, &t, NULL), -WR_ESYNTAX);
	assert_int_equal(t.kind, TOK_ERROR);
	assert_int_equal(t.len, 5);
	assert_int_equal(lexer_next(&lx, &t, &d), 0);
	assert_int_equal(t.kind, TOK_IDENT);
	assert_int_equal(t.loc.line, 2);
	assert_int_equal(lexer_next(&lx, &t, &d), 0);
	assert_int_equal(t.kind, TOK_EOF);
	diag_release(&d);
}

static void test_lexer_integers(void **state)
{
	static const struct {
		const char *text;
		int64_t value;
		unsigned flags;
	} ok[] = {
		{ "0", 0 }, { "42", 42 }, { "0x1f", 31, AST_NUM_RADIX }, { "0XFF", 255, AST_NUM_RADIX },
		{ "0o17", 15, AST_NUM_RADIX }, { "0b101", 5, AST_NUM_RADIX }, { "007", 7 },
		{ "9223372036854775807", INT64_MAX }, { "0x7fffffffffffffff", INT64_MAX, AST_NUM_RADIX },
		{ "18446744073709551615", -1 },
		{ "0xffffffffffffffffull", -1, AST_NUM_RADIX | AST_NUM_UNSIGNED | AST_NUM_LONG },
		{ "42u", 42, AST_NUM_UNSIGNED },
		{ "7UL", 7, AST_NUM_UNSIGNED | AST_NUM_LONG }, { "7lu", 7, AST_NUM_UNSIGNED | AST_NUM_LONG },
		{ "7ll", 7, AST_NUM_LONG }, { "0x10", 16, AST_NUM_RADIX }, { "0b1u", 1, AST_NUM_RADIX | AST_NUM_UNSIGNED },
	};
	static const char *const bad[] = {
		"18446744073709551616", "0x10000000000000000", "0x", "0b2", "0o8", "12ab", "1_0",
		"1lL", "1uu", "1lll", "1ulu",
	};
	static const struct {
		const char *text;
		double value;
		unsigned flags;
	} floats[] = {
		{ "1.5", 1.5, 0 }, { "2e9", 2e9, 0 }, { "0.25f", 0.25, AST_NUM_FLOAT }, { "1e-3", 1e-3, 0 },
		{ "3.0E+2", 300, 0 },
	};
	struct lexer lx;
	struct token t;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		lexer_init(&lx, ok[i].text, 0);
		assert_int_equal(lexer_next(&lx, &t, NULL), 0);
		assert_int_equal(t.kind, TOK_INT);
		assert_true(t.ival == ok[i].value);
		assert_int_equal(t.num_flags, ok[i].flags);
	}
	for (size_t i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
		lexer_init(&lx, floats[i].text, 0);
		assert_int_equal(lexer_next(&lx, &t, NULL), 0);
		assert_int_equal(t.kind, TOK_FLOAT);
		assert_true(t.fval == floats[i].value);
		assert_int_equal(t.num_flags, floats[i].flags);
		assert_int_equal(t.len, strlen(floats[i].text));
	}
	/* after '.', digits are a tuple index, never a fraction */
	lexer_init(&lx, "t.0.1", 0);
	for (int k = 0; k < 5; k++)
		assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_INT);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lexer_init(&lx, bad[i], 0);
		assert_int_equal(lexer_next(&lx, &t, NULL), -WR_ESYNTAX);
		assert_int_equal(t.kind, TOK_ERROR);
		assert_int_equal(t.len, strlen(bad[i]));
	}
}

static void test_lexer_decode_string(void **state)
{
	static const char text[] = "x \"a\\tb\\x41\\\\\\\"\\0z\"";
	struct strbuf sb = STRBUF_INIT;
	struct lexer lx;
	struct token t;
	size_t *offs, n;

	(void)state;
	lexer_init(&lx, text, 0);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(lexer_next(&lx, &t, NULL), 0);
	assert_int_equal(t.kind, TOK_STRING);
	n = lexer_decode_string(text, &t, &sb, &offs);
	assert_int_equal(n, 8);
	assert_memory_equal(sb.buf, "a\tbA\\\"\0z", 8);
	/* source offsets: a=3 \t=4 b=6 \x41=7 \\=11 \"=13 \0=15 z=17 quote=18 */
	assert_int_equal(offs[0], 3);
	assert_int_equal(offs[1], 4);
	assert_int_equal(offs[3], 7);
	assert_int_equal(offs[4], 11);
	assert_int_equal(offs[6], 15);
	assert_int_equal(offs[7], 17);
	assert_int_equal(offs[8], 18);
	free(offs);
	strbuf_release(&sb);
}

/* ---- trace patterns ---- */

static void test_targets(void **state)
{
	static const struct {
		const char *text;
		enum ast_target_kind kind;
		const char *name;   /* function, file or module */
		uint64_t num;       /* line or address */
	} cases[] = {
		{ "main", AST_TARGET_FUNCTION, "main", 0 },
		{ "ns::Foo::bar", AST_TARGET_FUNCTION, "ns::Foo::bar", 0 },
		{ "Foo::~Foo", AST_TARGET_FUNCTION, "Foo::~Foo", 0 },
		{ "operator==", AST_TARGET_FUNCTION, "operator==", 0 },
		{ "foo<int>", AST_TARGET_FUNCTION, "foo<int>", 0 },
		{ "std::vector<int>::push_back", AST_TARGET_FUNCTION, "std::vector<int>::push_back", 0 },
		{ "Edge::EvaluateCommand[abi:cxx11]", AST_TARGET_FUNCTION, "Edge::EvaluateCommand[abi:cxx11]", 0 },
		{ "ns::f[abi:cxx11]<int>", AST_TARGET_FUNCTION, "ns::f[abi:cxx11]<int>", 0 },
		{ "chain.c:12", AST_TARGET_LINE, "chain.c", 12 },
		{ "/abs/x.c:100", AST_TARGET_LINE, "/abs/x.c", 100 },
		{ "src/x.c:42", AST_TARGET_LINE, "src/x.c", 42 },
		{ "0x401234", AST_TARGET_ADDRESS, NULL, 0x401234 },
		{ "0XaBc", AST_TARGET_ADDRESS, NULL, 0xabc },
		{ "0xffffffffffffffff", AST_TARGET_ADDRESS, NULL, UINT64_MAX },
		{ "libc.so.6:0x1234", AST_TARGET_ADDRESS, "libc.so.6", 0x1234 },
		{ "/abs/lib.so:0x10", AST_TARGET_ADDRESS, "/abs/lib.so", 0x10 },
	};
	struct src_loc loc = { 1, 7, 4 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ast_target t;

		assert_int_equal(script_parse_target(cases[i].text, loc, &t, NULL), 0);
		assert_int_equal(t.kind, cases[i].kind);
		assert_string_equal(t.text, cases[i].text);
		assert_int_equal(t.loc.col, 7);
		switch (t.kind) {
		case AST_TARGET_FUNCTION:
			assert_string_equal(t.function, cases[i].name);
			break;
		case AST_TARGET_LINE:
			assert_string_equal(t.file, cases[i].name);
			assert_int_equal(t.line, cases[i].num);
			break;
		case AST_TARGET_ADDRESS:
			if (cases[i].name)
				assert_string_equal(t.module, cases[i].name);
			else
				assert_null(t.module);
			assert_true(t.address == cases[i].num);
			break;
		}
		ast_target_release(&t);
	}
}

/* C++ names as a user types them: a pattern goes on through the spaces
 * inside its brackets, and an operator's symbol brackets nothing. */
static void test_cxx_patterns(void **state)
{
	static const char *const names[] = {
		"std::vector<int, std::allocator<int> >::push_back",
		"Store::lookup(std::string const&)",
		"inspect(const Cfg &, All &)",
		"std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >::operator[]",
		"Foo::operator<<",
		"Foo::operator>",
		"Foo::operator()(int, char)",
		"Foo::operator()",
		"Foo::~Foo",
		"operator<=<char>",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *text = xasprintf("trace %s { print \"x\"; }\ntrace main { print \"y\"; }\n", names[i]);
		struct ast_script *s = parse_ok(text);

		assert_int_equal(s->n_probes, 2);
		assert_string_equal(s->probes[0]->target.function, names[i]);
		assert_string_equal(s->probes[1]->target.function, "main");
		ast_script_free(s);
		free(text);
	}
}

/* Methods of the C++ library's values: `v.size()`, no arguments. */
static void test_methods(void **state)
{
	struct ast_script *s = parse_ok("trace main { print \"{}\", p->v.size(); if o.has_value() { print \"y\"; } }");
	struct strbuf sb = STRBUF_INIT;
	struct ast_script *bad = NULL;
	struct diag d = { 0 };

	(void)state;
	ast_expr_text(s->probes[0]->body.stmts[0]->args[0], &sb);
	assert_string_equal(sb.buf, "p->v.size()");
	assert_true(s->probes[0]->body.stmts[0]->args[0]->call);
	assert_true(s->probes[0]->body.stmts[1]->cond->call);
	assert_int_not_equal(script_parse("trace main { print \"{}\", v.size(1); }", &bad, &d), 0);
	assert_non_null(strstr(d.msg, "the library's methods take no arguments"));
	diag_release(&d);
	/* s.starts_with("ab") is the built-in starts_with(s, "ab"), shown as written */
	ast_script_free(s);
	s = parse_ok("trace main { print \"{}\", c->name.starts_with(\"ab\"); }");
	assert_int_equal(s->probes[0]->body.stmts[0]->args[0]->kind, AST_EXPR_CALL);
	assert_int_equal(s->probes[0]->body.stmts[0]->args[0]->n_args, 2);
	strbuf_reset(&sb);
	ast_expr_text(s->probes[0]->body.stmts[0]->args[0], &sb);
	assert_string_equal(sb.buf, "c->name.starts_with(\"ab\")");
	assert_int_not_equal(script_parse("trace main { print \"{}\", s.starts_with(); }", &bad, &d), 0);
	assert_non_null(strstr(d.msg, "expected the prefix"));
	diag_release(&d);
	assert_int_not_equal(script_parse("trace main { print \"{}\", p->starts_with(\"a\"); }", &bad, &d), 0);
	assert_non_null(strstr(d.msg, "not of a pointer"));
	diag_release(&d);
	ast_script_free(bad);
	strbuf_release(&sb);
	ast_script_free(s);
}

/* The shell calls script_parse_target() on its own with a location that
 * is relative to its command line. */
static void test_target_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned col, len;
		const char *msg;
	} cases[] = {
		{ "", 5, 1, "empty trace pattern" },
		{ "file.c:", 11, 1, "missing line number after ':'" },
		{ "file.c:0", 12, 1, "line numbers start at 1" },
		{ "file.c:99999999999", 12, 11, "line number is too large" },
		{ "file.c:abc", 12, 3, "invalid line number in trace pattern" },
		{ ":5", 5, 1, "missing file name before ':'" },
		{ "0x", 5, 2, "address '0x' has no digits" },
		{ "0xZZ", 7, 1, "invalid hex digit 'Z' in address" },
		{ "0x10000000000000000", 5, 19, "address does not fit in 64 bits" },
		{ "lib.so:0x", 12, 2, "address '0x' has no digits" },
		{ "lib.so:0x1g", 15, 1, "invalid hex digit 'g' in address" },
		{ "42", 5, 2, "a trace pattern cannot be a decimal number" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ast_target t;
		struct diag d = { 0 };

		assert_int_equal(script_parse_target(cases[i].text, (struct src_loc){ 3, 5, 1 }, &t, &d),
				 -WR_ESYNTAX);
		assert_string_equal(d.msg, cases[i].msg);
		assert_int_equal(d.loc.line, 3);
		assert_int_equal(d.loc.col, cases[i].col);
		assert_int_equal(d.loc.len, cases[i].len);
		assert_null(t.text);
		assert_null(t.function);
		ast_target_release(&t);
		diag_release(&d);
	}
}

/* ---- parser ---- */

static void test_parse_empty(void **state)
{
	static const char *const texts[] = { "", "   \n\t\n", "// nothing\n/* at\n all */" };

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct ast_script *s = parse_ok(texts[i]);

		assert_int_equal(s->n_probes, 0);
		ast_script_free(s);
	}
	ast_script_free(NULL);
}

static void test_parse_statements(void **state)
{
	(void)state;
	assert_dump("// header\n"
		    "trace main {\n"
		    "  print \"hello\";\n"
		    "  print \"x={} y={:x} z={:X} p={:p} s={:s}\", x, y, z, p, s; /* mid */\n"
		    "  print x;\n"
		    "  bt;\n"
		    "  backtrace raw full;\n"
		    "  bt noinline;\n"
		    "  bt inline raw;\n"
		    "  bt args;\n"
		    "  bt full args noinline;\n"
		    "  let n = 3;\n"
		    "  $pid;\n"
		    "  ;\n"
		    "}\n",
		    "probe function main\n"
		    "  print \"hello\"\n"
		    "    piece \"hello\"\n"
		    "  print \"x={} y={:x} z={:X} p={:p} s={:s}\"\n"
		    "    piece \"x=\" {}\n"
		    "    piece \" y=\" {:x}\n"
		    "    piece \" z=\" {:X}\n"
		    "    piece \" p=\" {:p}\n"
		    "    piece \" s=\" {:s}\n"
		    "    piece \"\"\n"
		    "    arg x\n"
		    "    arg y\n"
		    "    arg z\n"
		    "    arg p\n"
		    "    arg s\n"
		    "  print x\n"
		    "  bt inline\n"
		    "  bt raw full inline\n"
		    "  bt noinline\n"
		    "  bt raw inline\n"
		    "  bt args inline\n"
		    "  bt full args noinline\n"
		    "  let n = 3\n"
		    "  expr $pid\n");
}

static void test_parse_if_chain(void **state)
{
	(void)state;
	assert_dump("trace f {\n"
		    "  if a == 1 {\n"
		    "    print \"one\";\n"
		    "  } else if (a == 2) {\n"
		    "    let t = a * 2;\n"
		    "    if t > 3 { bt; }\n"
		    "  } else {\n"
		    "    print \"{}\", $tid;\n"
		    "  }\n"
		    "  if b {}\n"
		    "}\n",
		    "probe function f\n"
		    "  if (a == 1)\n"
		    "    print \"one\"\n"
		    "      piece \"one\"\n"
		    "  else if (a == 2)\n"
		    "    let t = (a * 2)\n"
		    "    if (t > 3)\n"
		    "      bt inline\n"
		    "  else\n"
		    "    print \"{}\"\n"
		    "      piece \"\" {}\n"
		    "      piece \"\"\n"
		    "      arg $tid\n"
		    "  if b\n");
}

static void test_parse_expressions(void **state)
{
	(void)state;
	assert_dump("trace main {\n"
		    "  print a + b * c - d / e % f;\n"
		    "  print a << 1 + 2 >> 3;\n"
		    "  print a < b == c > d != e <= f >= g;\n"
		    "  print a | b ^ c & d == e;\n"
		    "  print a || b && c || !d;\n"
		    "  print -a.b[1].c * *p & ~m;\n"
		    "  print &arr[i + 1];\n"
		    "  print (a + b) * c;\n"
		    "  print - - 1;\n"
		    "  print x.0.1 + pair.1;\n"
		    "  print $pid + $tid + $timestamp + $pc + $sp;\n"
		    "  print true && false;\n"
		    "  print 0x10 + 0o10 + 0b10 + 10;\n"
		    "  print s.print.let;\n"
		    "  print p->next->x.y - q->0 > -r->n;\n"
		    "  print $host_pid + $host_tid + $input_pid;\n"
		    "}\n",
		    "probe function main\n"
		    "  print ((a + (b * c)) - ((d / e) % f))\n"
		    "  print ((a << (1 + 2)) >> 3)\n"
		    "  print (((a < b) == (c > d)) != ((e <= f) >= g))\n"
		    "  print (a | (b ^ (c & (d == e))))\n"
		    "  print ((a || (b && c)) || (!d))\n"
		    "  print (((-a.b[1].c) * (*p)) & (~m))\n"
		    "  print (&arr[(i + 1)])\n"
		    "  print ((a + b) * c)\n"
		    "  print (-(-1))\n"
		    "  print (x.0.1 + pair.1)\n"
		    "  print (((($pid + $tid) + $timestamp) + $pc) + $sp)\n"
		    "  print (true && false)\n"
		    "  print (((16 + 8) + 2) + 10)\n"
		    "  print s.print.let\n"
		    "  print ((p->next->x.y - q->0) > (-r->n))\n"
		    "  print (($host_pid + $host_tid) + $input_pid)\n");
}

/* The text of a print expression, and what the same text parses to. */
static void expr_as_written(const char *expr, const char *want)
{
	char *script = xasprintf("trace f { print %s; }", expr), *again;
	struct strbuf text = STRBUF_INIT, d1 = STRBUF_INIT, d2 = STRBUF_INIT;
	struct ast_script *s = NULL, *s2 = NULL;
	struct diag d = { 0 };

	assert_int_equal(script_parse(script, &s, &d), 0);
	ast_expr_text(s->probes[0]->body.stmts[0]->args[0], &text);
	assert_string_equal(text.buf, want);
	/* The text means what the expression meant. */
	again = xasprintf("trace f { print %s; }", text.buf);
	assert_int_equal(script_parse(again, &s2, &d), 0);
	ast_expr_dump(s->probes[0]->body.stmts[0]->args[0], &d1);
	ast_expr_dump(s2->probes[0]->body.stmts[0]->args[0], &d2);
	assert_string_equal(d1.buf, d2.buf);
	ast_script_free(s);
	ast_script_free(s2);
	strbuf_release(&text);
	strbuf_release(&d1);
	strbuf_release(&d2);
	diag_release(&d);
	free(script);
	free(again);
}

/* Expressions as a user writes them: the parentheses precedence needs, no
 * others (what `print expr;` shows before " = "). */
static void test_expr_text(void **state)
{
	(void)state;
	expr_as_written("a + b * c - d / e % f", "a + b * c - d / e % f");
	expr_as_written("(a + b) * c", "(a + b) * c");
	expr_as_written("((a)) - (b - c)", "a - (b - c)");
	expr_as_written("(a - b) - c", "a - b - c");
	expr_as_written("a | b ^ c & d == e", "a | b ^ c & d == e");
	expr_as_written("(a || b) && !(c || d)", "(a || b) && !(c || d)");
	expr_as_written("-a.b[1].c * *p & ~m", "-a.b[1].c * *p & ~m");
	expr_as_written("&arr[(i + 1) * 2]", "&arr[(i + 1) * 2]");
	expr_as_written("(*p).x + strncmp(s, \"ab\", 2 + n)", "(*p).x + strncmp(s, \"ab\", 2 + n)");
	expr_as_written("$pid << (1 + 2)", "$pid << 1 + 2");
	assert_int_equal(ast_op_precedence(AST_OP_MUL), 10);
	assert_int_equal(ast_op_precedence(AST_OP_OR), 1);
	assert_int_equal(ast_op_precedence(AST_OP_NOT), AST_PREC_UNARY);
}

static void test_parse_builtins(void **state)
{
	(void)state;
	assert_dump("trace main {\n"
		    "  if strncmp(name, \"abc\", 3) && starts_with(path, \"/tmp\") { }\n"
		    "  if memcmp(buf, hex(\"de ad\")) || memcmp(&a[0], b, n + 1) { }\n"
		    "  print cast($sp, \"unsigned char *\");\n"
		    "  let s = \"q\\\"\\\\\\t\\x01\";\n"
		    "}\n",
		    "probe function main\n"
		    "  if (strncmp(name, \"abc\", 3) && starts_with(path, \"/tmp\"))\n"
		    "  if (memcmp(buf, hex(\"de ad\")) || memcmp((&a[0]), b, (n + 1)))\n"
		    "  print cast($sp, \"unsigned char *\")\n"
		    "  let s = \"q\\\"\\\\\\t\\x01\"\n");
}

static void test_parse_patterns_and_bodies(void **state)
{
	static const char text[] = "trace libc.so.6:0x1234{ bt; }\n"
				   "trace /abs/x.c:100 {\n  print \"{}\", a; // keep\n}\n"
				   "trace Foo::~Foo{}\n"
				   "trace /* c */ ns::op<int> /* d */ {\n}\n";
	struct ast_script *s = parse_ok(text);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(s->n_probes, 4);
	assert_string_equal(s->probes[0]->target.text, "libc.so.6:0x1234");
	assert_string_equal(s->probes[0]->body_text, " bt; ");
	assert_int_equal(s->probes[0]->loc.line, 1);
	assert_int_equal(s->probes[0]->target.loc.col, 7);
	assert_string_equal(s->probes[1]->target.text, "/abs/x.c:100");
	assert_string_equal(s->probes[1]->body_text, "\n  print \"{}\", a; // keep\n");
	assert_int_equal(s->probes[1]->loc.line, 2);
	assert_string_equal(s->probes[2]->body_text, "");
	assert_string_equal(s->probes[3]->target.text, "ns::op<int>");
	assert_int_equal(s->probes[3]->target.loc.col, 15);
	assert_string_equal(s->probes[3]->body_text, "\n");
	ast_script_dump(s, &sb);
	assert_string_equal(sb.buf, "probe address 0x1234 in libc.so.6\n"
				    "  bt inline\n"
				    "probe line /abs/x.c:100\n"
				    "  print \"{}\"\n"
				    "    piece \"\" {}\n"
				    "    piece \"\"\n"
				    "    arg a\n"
				    "probe function Foo::~Foo\n"
				    "probe function ns::op<int>\n");
	strbuf_release(&sb);
	ast_script_free(s);
}

/* The mark `save` writes before a disabled probe: alone on the line right
 * before `trace`, blanks before it allowed; anything else is a comment. */
static void test_parse_disabled_mark(void **state)
{
	static const char text[] = "// disabled:\ntrace a {}\n"
				   "trace b {}\n"
				   "  \t// disabled:\ntrace c {}\n"
				   "// disabled:\n\ntrace d {}\n"
				   "// disabled: x\ntrace e {}\n"
				   "// disabled:\n  trace f {} trace g {}\n"
				   "trace h {} // disabled:\ntrace i {}\n";
	struct ast_script *s = parse_ok(text);
	static const bool want[] = { true, false, true, false, false, true, true, false, false };

	(void)state;
	assert_int_equal(s->n_probes, 9);
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(s->probes[i]->disabled, want[i]);
	ast_script_free(s);
}

static void test_parse_bt_flags(void **state)
{
	static const struct {
		const char *opts;
		unsigned flags;
	} cases[] = {
		{ "", WR_BT_F_INLINE },
		{ "raw", WR_BT_F_RAW | WR_BT_F_INLINE },
		{ "full", WR_BT_F_FULL | WR_BT_F_INLINE },
		{ "inline", WR_BT_F_INLINE },
		{ "noinline", 0 },
		{ "noinline raw", WR_BT_F_RAW },
		{ "full raw inline", WR_BT_F_RAW | WR_BT_F_FULL | WR_BT_F_INLINE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct ast_script *s;

		strbuf_addf(&sb, "trace m { backtrace %s; }", cases[i].opts);
		s = parse_ok(sb.buf);
		assert_int_equal(s->probes[0]->body.n, 1);
		assert_int_equal(s->probes[0]->body.stmts[0]->kind, AST_STMT_BT);
		assert_int_equal(s->probes[0]->body.stmts[0]->bt_flags, cases[i].flags);
		ast_script_free(s);
		strbuf_release(&sb);
	}
}

/* `count bt [options] [, KEY];` and `count` as a plain name elsewhere. */
static void test_parse_count(void **state)
{
	(void)state;
	assert_dump("trace f {\n"
		    "  count bt;\n"
		    "  count backtrace noinline, $tid;\n"
		    "  if x { count bt, req.id % 4; }\n"
		    "  print count;\n"
		    "  let n = count + 1;\n"
		    "}\n",
		    "probe function f\n"
		    "  count bt inline\n"
		    "  count key $tid bt noinline\n"
		    "  if x\n"
		    "    count key (req.id % 4) bt inline\n"
		    "  print count\n"
		    "  let n = (count + 1)\n");
}

static void test_parse_format_pieces(void **state)
{
	static const char text[] = "trace m {\n"
				   "  let n = 2;\n"
				   "  print \"\\t{{a}} {:x.16}|{:s.0x8}|{:x.*}|{:s.*}|{:X.n$}|{:x.0b11}\\n\","
				   " p, p, k, p, k, p, p, p;\n"
				   "}\n";
	struct ast_script *s = parse_ok(text);
	const struct ast_stmt *st = s->probes[0]->body.stmts[1];
	const struct ast_fmt_piece *pc = st->pieces;

	(void)state;
	assert_string_equal(st->fmt, "\t{{a}} {:x.16}|{:s.0x8}|{:x.*}|{:s.*}|{:X.n$}|{:x.0b11}\n");
	assert_int_equal(st->n_pieces, 7);
	assert_int_equal(st->n_args, 8);
	assert_string_equal(pc[0].literal, "\t{a} ");
	assert_true(pc[0].has_placeholder);
	assert_int_equal(pc[0].spec, AST_FMT_HEX);
	assert_int_equal(pc[0].len_kind, AST_FMT_LEN_FIXED);
	assert_int_equal(pc[0].len_value, 16);
	/* The placeholder location is inside the literal: `\t` is two source bytes. */
	assert_int_equal(pc[0].loc.line, 3);
	assert_int_equal(pc[0].loc.col, 18);
	assert_int_equal(pc[0].loc.len, 7);
	assert_string_equal(pc[1].literal, "|");
	assert_int_equal(pc[1].spec, AST_FMT_STR);
	assert_int_equal(pc[1].len_value, 8);
	assert_int_equal(pc[2].spec, AST_FMT_HEX);
	assert_int_equal(pc[2].len_kind, AST_FMT_LEN_STAR);
	assert_int_equal(pc[3].spec, AST_FMT_STR);
	assert_int_equal(pc[3].len_kind, AST_FMT_LEN_STAR);
	assert_int_equal(pc[4].spec, AST_FMT_HEX_UPPER);
	assert_int_equal(pc[4].len_kind, AST_FMT_LEN_VAR);
	assert_string_equal(pc[4].len_var, "n");
	assert_int_equal(pc[5].len_value, 3);
	assert_false(pc[6].has_placeholder);
	assert_string_equal(pc[6].literal, "\n");
	ast_script_free(s);
}

static void test_expr_locations(void **state)
{
	static const char text[] = "trace m {\n  print a.b + f[i] * strncmp(s, \"x\", 1);\n}";
	struct ast_script *s = parse_ok(text);
	const struct ast_expr *e = s->probes[0]->body.stmts[0]->args[0];

	(void)state;
	assert_int_equal(e->kind, AST_EXPR_BINARY);
	assert_int_equal(e->loc.line, 2);
	assert_int_equal(e->loc.col, 9);
	assert_int_equal(e->end - e->off, strlen("a.b + f[i] * strncmp(s, \"x\", 1)"));
	assert_int_equal(e->loc.len, e->end - e->off);
	assert_int_equal(e->lhs->kind, AST_EXPR_MEMBER);
	assert_int_equal(e->lhs->end - e->lhs->off, 3);
	assert_int_equal(e->rhs->rhs->kind, AST_EXPR_CALL);
	assert_int_equal(e->rhs->rhs->loc.col, 22);
	assert_int_equal(e->rhs->rhs->loc.len, 18);
	assert_int_equal(e->rhs->lhs->kind, AST_EXPR_INDEX);
	assert_int_equal(e->rhs->lhs->loc.len, 4);
	ast_script_free(s);
}

static void test_nesting_limit(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ast_script *s = NULL;
	struct diag d = { 0 };

	(void)state;
	strbuf_addstr(&sb, "trace m { print ");
	strbuf_addchars(&sb, '(', 100);
	strbuf_addch(&sb, '1');
	strbuf_addchars(&sb, ')', 100);
	strbuf_addstr(&sb, "; }");
	s = parse_ok(sb.buf);
	ast_script_free(s);
	s = NULL;
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "trace m { print ");
	strbuf_addchars(&sb, '-', 5000);
	strbuf_addstr(&sb, "1; }");
	assert_int_equal(script_parse(sb.buf, &s, &d), -WR_ESYNTAX);
	assert_null(s);
	assert_string_equal(d.msg, "expression nested too deeply (more than 256 levels)");
	diag_release(&d);
	/* A NULL diag is allowed. */
	assert_int_equal(script_parse("trace {", &s, NULL), -WR_ESYNTAX);
	strbuf_release(&sb);
}


/* Parse and check @text, which must fail with @want_err and @want_msg;
 * returns the error's location. */
static struct src_loc parse_fails(const char *text, int want_err, const char *want_msg)
{
	struct ast_script *s = NULL;
	struct diag d = { 0 };
	struct src_loc loc;
	int err = script_parse(text, &s, &d);

	if (!err) {
		err = script_check(s, &d);
		ast_script_free(s);
	}
	assert_int_equal(err, want_err);
	assert_string_equal(d.msg, want_msg);
	loc = d.loc;
	diag_release(&d);
	return loc;
}

/* Deep and big scripts: every stage after the parser recurses over the
 * tree, so its height is limited with a located error; chains that do
 * not nest (else-if, many statements) stay flat. */
static void test_deep_expressions(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ast_script *s;
	struct src_loc loc;

	(void)state;
	/* 50,000 terms: the error is at the operator that went too deep */
	strbuf_addstr(&sb, "trace m { print \"{}\", a");
	for (int i = 1; i < 50000; i++)
		strbuf_addstr(&sb, " + a");
	strbuf_addstr(&sb, "; }");
	loc = parse_fails(sb.buf, -WR_ESYNTAX, "expression too deep: more than 1000 operations "
			  "nested (a chain such as `a + b + c` nests one level per operator)");
	assert_int_equal(loc.line, 1);
	assert_int_equal(loc.col, 25 + 4 * 999); /* the 1000th + */
	/* at the limit: accepted, checked, dumped and freed */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "trace m { print \"{}\", a");
	for (int i = 1; i <= SCRIPT_MAX_EXPR_DEPTH - 1; i++)
		strbuf_addstr(&sb, " + a");
	strbuf_addstr(&sb, "; }");
	s = parse_ok(sb.buf);
	assert_int_equal(s->probes[0]->body.stmts[0]->args[0]->height, SCRIPT_MAX_EXPR_DEPTH);
	strbuf_reset(&sb);
	ast_script_dump(s, &sb);
	ast_script_free(s);
	/* member and index chains nest too */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "trace m { print \"{}\", a");
	for (int i = 0; i < 3000; i++)
		strbuf_addstr(&sb, i % 2 ? ".b" : "[0]");
	strbuf_addstr(&sb, "; }");
	parse_fails(sb.buf, -WR_ESYNTAX, "expression too deep: more than 1000 operations nested "
		    "(a chain such as `a + b + c` nests one level per operator)");
	strbuf_release(&sb);
}

static void test_deep_blocks(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ast_script *s;
	struct src_loc loc;

	(void)state;
	strbuf_addstr(&sb, "trace m {");
	for (int i = 0; i < 30000; i++)
		strbuf_addstr(&sb, " if a {");
	for (int i = 0; i < 30000; i++)
		strbuf_addstr(&sb, " }");
	strbuf_addstr(&sb, " }");
	loc = parse_fails(sb.buf, -WR_ESYNTAX, "blocks nested too deeply (more than 100 levels)");
	assert_int_equal(loc.col, 9 + 7 * 99 + 7); /* the '{' of the 101st block */
	/* 99 nested ifs in the probe's block: fine */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "trace m {");
	for (int i = 0; i < SCRIPT_MAX_BLOCK_DEPTH - 1; i++)
		strbuf_addstr(&sb, " if a {");
	strbuf_addstr(&sb, " print \"deep\";");
	for (int i = 0; i < SCRIPT_MAX_BLOCK_DEPTH; i++)
		strbuf_addstr(&sb, " }");
	s = parse_ok(sb.buf);
	ast_script_free(s);
	strbuf_release(&sb);
}

static void test_long_chains(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ast_script *s;
	const struct ast_stmt *st;
	struct src_loc loc;

	(void)state;
	/* an else-if chain is flat: 499 arms cost no depth */
	strbuf_addstr(&sb, "trace m { if a == 0 { bt; }");
	for (int i = 1; i < 499; i++)
		strbuf_addf(&sb, " else if a == %d { print \"%d\"; }", i, i);
	strbuf_addstr(&sb, " else { bt; } }");
	s = parse_ok(sb.buf);
	st = s->probes[0]->body.stmts[0];
	assert_int_equal(s->probes[0]->body.n, 1);
	assert_int_equal(st->n_elifs, 498);
	assert_int_equal(st->elifs[497]->cond->rhs->ival, 498);
	assert_int_equal(st->else_body.n, 1);
	/* statements are numbered in order through the arms */
	assert_ptr_equal(ast_probe_nth(s->probes[0], AST_STMT_BT, 1), st->else_body.stmts[0]);
	assert_int_equal(ast_probe_index_of(s->probes[0], st->elifs[497]->then_body.stmts[0]), 497);
	ast_script_free(s);
	/* 10,000 arms: too many statements for one probe, said at once */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "trace m { if a == 0 { }");
	for (int i = 1; i < 10000; i++)
		strbuf_addf(&sb, " else if a == %d { }", i);
	strbuf_addstr(&sb, " }");
	loc = parse_fails(sb.buf, -WR_ESYNTAX, "too many statements in one probe (more than 1000; "
			  "an `else if` counts as one)");
	assert_int_equal(loc.line, 1);
	assert_true(loc.col > 100000);
	strbuf_release(&sb);
}

/* ---- golden diagnostics ---- */

struct diag_case {
	const char *text;
	const char *want;
};

static void run_diag_cases(const struct diag_case *cases, size_t n, int err)
{
	for (size_t i = 0; i < n; i++)
		assert_diag(cases[i].text, err, cases[i].want);
}

static const struct diag_case syntax_cases[] = {
	{ "trace main {\n  print cast(p, \"uint32_t[]\");\n}\n",
	  "t.ws:2:27: error: an array in a cast needs its length\n"
	  "      print cast(p, \"uint32_t[]\");\n"
	  "                              ^\n"
	  "hint: e.g. \"uint32_t[4]\": what a pointer points to, seen as 4 elements\n" },
	{ "trace main {\n  print cast(p, \"long char *\");\n}\n",
	  "t.ws:2:18: error: 'long char' is not a C type\n"
	  "      print cast(p, \"long char *\");\n"
	  "                     ^~~~~~~~~\n"
	  "hint: type words combine as in C: unsigned long, long long, long double, signed char\n" },
	{ "trace main {\n  print cast(p, \"struct \\x41 x *\");\n}\n",
	  "t.ws:2:30: error: unexpected 'x' after the type\n"
	  "      print cast(p, \"struct \\x41 x *\");\n"
	  "                                 ^\n"
	  "hint: a cast names a type alone, without a variable name: \"int *\"\n" },
	{ "trace main {\n  print cast(p, \"int (*\");\n}\n",
	  "t.ws:2:24: error: expected ')', found the end of the type\n"
	  "      print cast(p, \"int (*\");\n"
	  "                           ^\n" },
	{ "trace main {\n  print cast(p, \":int\");\n}\n",
	  "t.ws:2:18: error: a module name must come before ':'\n"
	  "      print cast(p, \":int\");\n"
	  "                     ^\n"
	  "hint: e.g. \"libfoo.so:struct node *\"\n" },
	{ "trace main {\n    print \"hi\"}\n",
	  "t.ws:2:15: error: expected ';' after print statement, found '}'\n"
	  "        print \"hi\"}\n"
	  "                  ^\n"
	  "hint: statements end with ';'\n" },
	{ "trace main {\n  print \"hi\"\n",
	  "t.ws:2:13: error: expected ';' after print statement, found end of input\n"
	  "      print \"hi\"\n"
	  "                ^\n"
	  "hint: statements end with ';'\n" },
	{ "trace main {\n  prnt \"hi\";\n}\n",
	  "t.ws:2:3: error: unknown statement 'prnt'\n"
	  "      prnt \"hi\";\n"
	  "      ^~~~\n"
	  "hint: did you mean 'print'?\n" },
	{ "trace main {\n  print \"a {:q} b\", x;\n}\n",
	  "t.ws:2:12: error: unknown format specifier '{:q}'\n"
	  "      print \"a {:q} b\", x;\n"
	  "               ^~~~\n"
	  "hint: placeholders are {}, {:x}, {:X}, {:p}, {:s}, {:r}, {:x.N}, {:s.N}, {:x.*} and "
	  "{:x.name$}; write '{{' and '}}' for literal braces\n" },
	{ "trace main {\n  print \"a\\tb {:x\", x;\n}\n",
	  "t.ws:2:15: error: unclosed '{' in format string\n"
	  "      print \"a\\tb {:x\", x;\n"
	  "                  ^\n"
	  "hint: close it with '}', or write '{{' for a literal '{'\n" },
	{ "trace main {\n  print \"}\";\n}\n",
	  "t.ws:2:10: error: unmatched '}' in format string\n"
	  "      print \"}\";\n"
	  "             ^\n"
	  "hint: write '}}' for a literal '}'\n" },
	{ "trace main {\n  print \"{:x.abc}\", p;\n}\n",
	  "t.ws:2:10: error: invalid memory dump length 'abc'\n"
	  "      print \"{:x.abc}\", p;\n"
	  "             ^~~~~~~~\n"
	  "hint: use a number ({:x.16}), '*' to take it from the arguments ({:x.*}) or a script "
	  "variable ({:x.len$})\n" },
	{ "trace main {\n  print \"unterminated;\n}\n",
	  "t.ws:2:9: error: unterminated string literal\n"
	  "      print \"unterminated;\n"
	  "            ^\n"
	  "hint: close the string with '\"' on the same line\n" },
	{ "trace main {\n  /* never closed\n  print 1;\n",
	  "t.ws:2:3: error: unterminated comment\n"
	  "      /* never closed\n"
	  "      ^~\n"
	  "hint: close the comment with '*/'\n" },
	{ "trace main {\n  print \"a\\qb\";\n}\n",
	  "t.ws:2:11: error: invalid escape sequence '\\q' in string literal\n"
	  "      print \"a\\qb\";\n"
	  "              ^~\n"
	  "hint: valid escapes are \\n \\t \\r \\\\ \\\" \\0 \\xHH\n" },
	{ "trace main {\n  x = 1;\n}\n",
	  "t.ws:2:5: error: assignment is not supported: variables are immutable\n"
	  "      x = 1;\n"
	  "        ^\n"
	  "hint: use 'let NAME = ...' to bind a value once\n" },
	{ "trace main {\n  bt raw fancy;\n}\n",
	  "t.ws:2:10: error: unknown bt option 'fancy'\n"
	  "      bt raw fancy;\n"
	  "             ^~~~~\n"
	  "hint: valid bt options are raw, full, args, inline and noinline\n" },
	{ "trace main {\n  bt inline noinline;\n}\n",
	  "t.ws:2:13: error: bt options 'inline' and 'noinline' contradict each other\n"
	  "      bt inline noinline;\n"
	  "                ^~~~~~~~\n"
	  "hint: inline frames are shown by default; use 'noinline' alone to hide them\n" },
	{ "trace main {\n  bt raw raw;\n}\n",
	  "t.ws:2:10: error: duplicate bt option 'raw'\n"
	  "      bt raw raw;\n"
	  "             ^~~\n" },
	{ "trace main {\n  bt 5;\n}\n",
	  "t.ws:2:6: error: expected ';' after bt statement, found integer literal '5'\n"
	  "      bt 5;\n"
	  "         ^\n"
	  "hint: the depth is global (--backtrace-depth), not per statement\n" },
	{ "trace main {\n  print $foo;\n}\n",
	  "t.ws:2:9: error: unknown special variable '$foo'\n"
	  "      print $foo;\n"
	  "            ^~~~\n"
	  "hint: special variables are $pid, $tid, $host_pid, $host_tid, $input_pid, $timestamp, $pc and $sp\n" },
	{ "trace main {\n  trace foo { }\n}\n",
	  "t.ws:2:3: error: 'trace' blocks cannot be nested\n"
	  "      trace foo { }\n"
	  "      ^~~~~\n"
	  "hint: close the enclosing block with '}' before the next 'trace'\n" },
	{ "trace file.c: {\n}\n",
	  "t.ws:1:13: error: missing line number after ':'\n"
	  "    trace file.c: {\n"
	  "                ^\n"
	  "hint: write FILE:LINE, e.g. 'main.c:42'\n" },
	{ "trace file.c:0 {\n}\n",
	  "t.ws:1:14: error: line numbers start at 1\n"
	  "    trace file.c:0 {\n"
	  "                 ^\n" },
	{ "trace 0x {\n}\n",
	  "t.ws:1:7: error: address '0x' has no digits\n"
	  "    trace 0x {\n"
	  "          ^~\n"
	  "hint: write the address in hex, e.g. 0x401000\n" },
	{ "trace 0xZZ {\n}\n",
	  "t.ws:1:9: error: invalid hex digit 'Z' in address\n"
	  "    trace 0xZZ {\n"
	  "            ^\n" },
	{ "trace {\n}\n",
	  "t.ws:1:7: error: expected a trace pattern after 'trace', found '{'\n"
	  "    trace {\n"
	  "          ^\n"
	  "hint: e.g. 'trace main {', 'trace file.c:42 {' or 'trace 0x401000 {'\n" },
	{ "trace main\n",
	  "t.ws:1:11: error: expected '{' after the trace pattern, found end of input\n"
	  "    trace main\n"
	  "              ^\n"
	  "hint: the probe body is a block: trace PATTERN { ... }\n" },
	{ "trace main {\n  print 1;\n",
	  "t.ws:1:12: error: unclosed '{': expected '}' before end of input\n"
	  "    trace main {\n"
	  "               ^\n"
	  "hint: add the missing '}'\n" },
	{ "print 1;\n",
	  "t.ws:1:1: error: expected 'trace' at top level, found 'print'\n"
	  "    print 1;\n"
	  "    ^~~~~\n"
	  "hint: statements must be inside a 'trace PATTERN { ... }' block\n" },
	{ "trce main {}\n",
	  "t.ws:1:1: error: expected 'trace' at top level, found identifier 'trce'\n"
	  "    trce main {}\n"
	  "    ^~~~\n"
	  "hint: did you mean 'trace'?\n" },
	{ "trace main {\n  print 99999999999999999999;\n}\n",
	  "t.ws:2:9: error: integer literal '99999999999999999999' is too large\n"
	  "      print 99999999999999999999;\n"
	  "            ^~~~~~~~~~~~~~~~~~~~\n"
	  "hint: integers have 64 bits (at most 18446744073709551615)\n" },
	{ "trace main {\n  print 1_000;\n}\n",
	  "t.ws:2:10: error: invalid digit '_' in integer literal\n"
	  "      print 1_000;\n"
	  "             ^\n"
	  "hint: digit separators are not supported\n" },
	{ "trace main {\n\tprint a @ b;\n}\n",
	  "t.ws:2:10: error: unexpected character '@'\n"
	  "    \tprint a @ b;\n"
	  "    \t        ^\n" },
	{ "trace main {\n  print foo(1);\n}\n",
	  "t.ws:2:9: error: unknown function 'foo'\n"
	  "      print foo(1);\n"
	  "            ^~~\n"
	  "hint: built-in functions are strncmp, starts_with, memcmp, hex and cast\n" },
	{ "trace main {\n  print \"a\" x;\n}\n",
	  "t.ws:2:13: error: expected ';' after print statement, found identifier 'x'\n"
	  "      print \"a\" x;\n"
	  "                ^\n"
	  "hint: separate the arguments with ','\n" },
	{ "trace main {\n  print a, b;\n}\n",
	  "t.ws:2:10: error: expected ';' after print statement, found ','\n"
	  "      print a, b;\n"
	  "             ^\n"
	  "hint: to print several values use a format string: print \"{} {}\", a, b;\n" },
	{ "trace main {\n  if (x) print 1;\n}\n",
	  "t.ws:2:10: error: expected '{' after the if condition, found 'print'\n"
	  "      if (x) print 1;\n"
	  "             ^~~~~\n"
	  "hint: the body of 'if' must be enclosed in braces\n" },
	{ "trace main {\n  if x { } else print 1;\n}\n",
	  "t.ws:2:17: error: expected '{' or 'if' after 'else', found 'print'\n"
	  "      if x { } else print 1;\n"
	  "                    ^~~~~\n" },
	{ "trace main {\n  else { }\n}\n",
	  "t.ws:2:3: error: 'else' without a matching 'if'\n"
	  "      else { }\n"
	  "      ^~~~\n" },
	{ "trace main {\n  let = 3;\n}\n",
	  "t.ws:2:7: error: expected a variable name after 'let', found '='\n"
	  "      let = 3;\n"
	  "          ^\n" },
	{ "trace main {\n  let x 3;\n}\n",
	  "t.ws:2:9: error: expected '=' after 'let x', found integer literal '3'\n"
	  "      let x 3;\n"
	  "            ^\n" },
	{ "trace main {\n  print \"{}\", (char *)p->name;\n}\n",
	  "t.ws:2:15: error: a C-style cast is not part of the script language\n"
	  "      print \"{}\", (char *)p->name;\n"
	  "                  ^~~~~~~~\n"
	  "hint: write cast(p->name, \"char *\") (doc/script-reference.md: cast)\n" },
	/* an operator right after the type, then the text's end (both found
	 * by fuzz_script) */
	{ "trace main {\n  print (int)>->",
	  "t.ws:2:9: error: a C-style cast is not part of the script language\n"
	  "      print (int)>->\n"
	  "            ^~~~~\n"
	  "hint: write cast(EXPR, \"int\") (doc/script-reference.md: cast)\n" },
	{ "trace main {\n  print (((int )r",
	  "t.ws:2:11: error: a C-style cast is not part of the script language\n"
	  "      print (((int )r\n"
	  "              ^~~~~~\n"
	  "hint: write cast(r, \"int\") (doc/script-reference.md: cast)\n" },
	{ "trace main {\n  print \"{}\", (uint32_t) x + (unsigned)(y);\n}\n",
	  "t.ws:2:15: error: a C-style cast is not part of the script language\n"
	  "      print \"{}\", (uint32_t) x + (unsigned)(y);\n"
	  "                  ^~~~~~~~~~\n"
	  "hint: write cast(x, \"uint32_t\") (doc/script-reference.md: cast)\n" },
	{ "trace main {\n  print (a + b;\n}\n",
	  "t.ws:2:15: error: expected ')' to match the '(' at 2:9, found ';'\n"
	  "      print (a + b;\n"
	  "                  ^\n" },
	{ "trace main {\n  print a[1;\n}\n",
	  "t.ws:2:12: error: expected ']' after the index, found ';'\n"
	  "      print a[1;\n"
	  "               ^\n" },
	{ "trace main {\n  print a + ;\n}\n",
	  "t.ws:2:13: error: expected an expression, found ';'\n"
	  "      print a + ;\n"
	  "                ^\n" },
	{ "trace main {\n  print strncmp(a \"b\");\n}\n",
	  "t.ws:2:19: error: expected ',' or ')' in the arguments of 'strncmp', found string literal\n"
	  "      print strncmp(a \"b\");\n"
	  "                      ^~~\n" },
	{ "trace main {\n  print s.;\n}\n",
	  "t.ws:2:11: error: expected a member name after '.', found ';'\n"
	  "      print s.;\n"
	  "              ^\n" },
	{ "trace main {\n  print t.0x1;\n}\n",
	  "t.ws:2:11: error: tuple index must be a decimal number, found '0x1'\n"
	  "      print t.0x1;\n"
	  "              ^~~\n" },
	{ "trace main {\n  print;\n}\n",
	  "t.ws:2:8: error: expected a format string or an expression after 'print', found ';'\n"
	  "      print;\n"
	  "           ^\n" },
	{ "trace main {\n  print \"{:p.4}\", p;\n}\n",
	  "t.ws:2:10: error: '{:p}' does not take a length\n"
	  "      print \"{:p.4}\", p;\n"
	  "             ^~~~~~\n" },
	{ "trace main {\n  print \"{:x.0}\", p;\n}\n",
	  "t.ws:2:10: error: memory dump length must be at least 1\n"
	  "      print \"{:x.0}\", p;\n"
	  "             ^~~~~~\n" },
	{ "trace main {\n  count bt 3;\n}\n",
	  "t.ws:2:12: error: expected ';' after count statement, found integer literal '3'\n"
	  "      count bt 3;\n"
	  "               ^\n"
	  "hint: count bt; counts the stack, count bt, KEY; counts it per value of KEY\n" },
	{ "trace main {\n  count bt full;\n}\n",
	  "t.ws:2:12: error: count bt takes no frame values ('args', 'full')\n"
	  "      count bt full;\n"
	  "               ^~~~\n"
	  "hint: count the stacks with count bt, and show values with bt args or bt full\n" },
	{ "trace main {\n  count bt tid;\n}\n",
	  "t.ws:2:12: error: unknown bt option 'tid'\n"
	  "      count bt tid;\n"
	  "               ^~~\n"
	  "hint: valid bt options are raw, full, args, inline and noinline\n" },
	{ "trace main { }\n}\n",
	  "t.ws:2:1: error: expected 'trace' at top level, found '}'\n"
	  "    }\n"
	  "    ^\n"
	  "hint: this '}' has no matching '{'\n" },
};

static void test_syntax_diagnostics(void **state)
{
	(void)state;
	run_diag_cases(syntax_cases, sizeof(syntax_cases) / sizeof(syntax_cases[0]), -WR_ESYNTAX);
}

static const struct diag_case semantic_cases[] = {
	{ "trace main {\n  let x = 1;\n  let x = 2;\n}\n",
	  "t.ws:3:7: error: redeclaration in the same scope is not allowed: 'x'\n"
	  "      let x = 2;\n"
	  "          ^\n"
	  "hint: 'x' is already bound at line 2; variables are immutable\n" },
	{ "trace main {\n  let x = 1;\n  if a { let x = 2; }\n}\n",
	  "t.ws:3:14: error: shadowing is not allowed for immutable variables: 'x'\n"
	  "      if a { let x = 2; }\n"
	  "                 ^\n"
	  "hint: 'x' is bound in an enclosing block at line 2; choose another name\n" },
	{ "trace main {\n  if a { let y = 1; } else { print y; }\n}\n",
	  "t.ws:2:36: error: use of variable 'y' outside of its scope\n"
	  "      if a { let y = 1; } else { print y; }\n"
	  "                                       ^\n"
	  "hint: 'y' was bound with 'let' at line 2, in a block that has ended\n" },
	{ "trace main {\n  if a {\n    let y = 1;\n  }\n  print \"{}\", y + 1;\n}\n",
	  "t.ws:5:15: error: use of variable 'y' outside of its scope\n"
	  "      print \"{}\", y + 1;\n"
	  "                  ^\n"
	  "hint: 'y' was bound with 'let' at line 3, in a block that has ended\n" },
	{ "trace main {\n  print \"{} {}\", a;\n}\n",
	  "t.ws:2:13: error: placeholder has no matching argument\n"
	  "      print \"{} {}\", a;\n"
	  "                ^~\n"
	  "hint: the format string takes 2 arguments but 1 was given\n" },
	{ "trace main {\n  print \"{}\", a, b;\n}\n",
	  "t.ws:2:18: error: argument has no matching placeholder\n"
	  "      print \"{}\", a, b;\n"
	  "                     ^\n"
	  "hint: the format string takes 1 argument but 2 were given\n" },
	{ "trace main {\n  print \"{:x.*}\", p;\n}\n",
	  "t.ws:2:10: error: placeholder has no matching argument\n"
	  "      print \"{:x.*}\", p;\n"
	  "             ^~~~~~\n"
	  "hint: the format string takes 2 arguments but 1 was given; {:x.*} takes two: the "
	  "length, then the value\n" },
	{ "trace main {\n  print \"{:x.n$}\", p;\n}\n",
	  "t.ws:2:10: error: memory dump length 'n' is not a script variable\n"
	  "      print \"{:x.n$}\", p;\n"
	  "             ^~~~~~~\n"
	  "hint: bind it first: let n = ...;\n" },
	{ "trace main {\n  if strncmp(name, \"ab\", -1) { }\n}\n",
	  "t.ws:2:26: error: strncmp's length must not be negative\n"
	  "      if strncmp(name, \"ab\", -1) { }\n"
	  "                             ^~\n" },
	{ "trace main {\n  if strncmp(name, other, 2) { }\n}\n",
	  "t.ws:2:6: error: strncmp needs a string literal or a script string variable on one side\n"
	  "      if strncmp(name, other, 2) { }\n"
	  "         ^~~~~~~~~~~~~~~~~~~~~~~\n"
	  "hint: e.g. strncmp(name, \"main\", 4)\n" },
	{ "trace main {\n  if starts_with(name) { }\n}\n",
	  "t.ws:2:6: error: starts_with takes 2 arguments, got 1\n"
	  "      if starts_with(name) { }\n"
	  "         ^~~~~~~~~~~~~~~~~\n"
	  "hint: usage: starts_with(a, prefix)\n" },
	{ "trace main {\n  print hex(\"de ad\");\n}\n",
	  "t.ws:2:9: error: hex() can only be used as an argument of memcmp\n"
	  "      print hex(\"de ad\");\n"
	  "            ^~~~~~~~~~~~\n"
	  "hint: usage: hex(\"de ad be ef\") inside memcmp()\n" },
	{ "trace main {\n  if memcmp(p, hex(\"dea\")) { }\n}\n",
	  "t.ws:2:20: error: hex() literal has an odd number of digits (3)\n"
	  "      if memcmp(p, hex(\"dea\")) { }\n"
	  "                       ^~~~~\n"
	  "hint: each byte is two hex digits\n" },
	{ "trace main {\n  if memcmp(p, hex(\"xy\")) { }\n}\n",
	  "t.ws:2:20: error: invalid character in hex() literal\n"
	  "      if memcmp(p, hex(\"xy\")) { }\n"
	  "                       ^~~~\n"
	  "hint: only hex digits and spaces are allowed\n" },
	{ "trace main {\n  if memcmp(p, q) { }\n}\n",
	  "t.ws:2:6: error: memcmp without a length needs a hex(...) argument\n"
	  "      if memcmp(p, q) { }\n"
	  "         ^~~~~~~~~~~~\n"
	  "hint: pass the number of bytes: memcmp(a, b, n)\n" },
	{ "trace main {\n  if memcmp(1, hex(\"de ad\")) {}\n}\n",
	  "t.ws:2:13: error: memcmp compares memory: argument 1 must be a pointer, an array or "
	  "hex(...)\n"
	  "      if memcmp(1, hex(\"de ad\")) {}\n"
	  "                ^\n"
	  "hint: use hex(\"...\") for literal bytes, or strncmp() for strings\n" },
	{ "trace main {\n  if memcmp(hex(\"00\"), hex(\"00 11\")) {}\n}\n",
	  "t.ws:2:24: error: hex() literals differ in length (1 and 2 bytes)\n"
	  "      if memcmp(hex(\"00\"), hex(\"00 11\")) {}\n"
	  "                           ^~~~~~~~~~~~\n" },
	{ "trace main {\n  print cast(p, t);\n}\n",
	  "t.ws:2:17: error: cast's second argument must be a string literal naming a type\n"
	  "      print cast(p, t);\n"
	  "                    ^\n"
	  "hint: e.g. cast(p, \"struct request *\")\n" },
	{ "trace main {\n  bt; bt; bt; bt;\n  bt; bt; bt; bt;\n  if x { bt full; }\n}\n",
	  "t.ws:4:10: error: too many bt statements in one probe (at most 8)\n"
	  "      if x { bt full; }\n"
	  "             ^~\n"
	  "hint: each bt uses one of the probe's backtrace slots\n" },
	{ "trace main {\n  bt; bt; bt; bt;\n  bt; bt; bt; bt;\n  count bt;\n}\n",
	  "t.ws:4:3: error: too many bt statements in one probe (at most 8)\n"
	  "      count bt;\n"
	  "      ^~~~~\n"
	  "hint: each bt and count bt uses one of the probe's backtrace slots\n" },
	/* Errors are found in the second probe too. */
	{ "trace a { let v = 1; }\ntrace b {\n  let v = 1;\n  let v = 2;\n}\n",
	  "t.ws:4:7: error: redeclaration in the same scope is not allowed: 'v'\n"
	  "      let v = 2;\n"
	  "          ^\n"
	  "hint: 'v' is already bound at line 3; variables are immutable\n" },
};

static void test_semantic_diagnostics(void **state)
{
	(void)state;
	run_diag_cases(semantic_cases, sizeof(semantic_cases) / sizeof(semantic_cases[0]),
		       -WR_ESEMANTIC);
}

/* Scripts the checker must accept: each rule's allowed side. */
static void test_check_accepts(void **state)
{
	static const char *const ok[] = {
		/* sibling scopes may reuse a name */
		"trace m { if a { let y = 1; } else { let y = 2; } if b { let y = 3; } }",
		/* unknown names are DWARF variables, also one bound in another probe */
		"trace m { let v = 1; }\ntrace n { print v; print \"{}\", w.x[v]; }",
		/* inner scopes see outer bindings */
		"trace m { let k = 1; if k { if k { print \"{}\", k; } } }",
		/* eight bt statements, also across branches */
		"trace m { bt; bt; bt; bt; bt; bt; if a { bt; } else { bt; } }",
		"trace m { bt; bt; bt; bt; bt; bt; bt; bt; }\ntrace n { bt; }",
		/* placeholder counts with star and variable lengths */
		"trace m { let n = 4; print \"{:x.*} {:s.n$} {{}} {}\", 8, p, q, r; }",
		"trace m { print \"no placeholders\"; print \"{{literal}}\"; }",
		/* builtins in their allowed forms */
		"trace m { let s = \"ab\"; if strncmp(s, name, 0) || starts_with(s, n) {} }",
		"trace m { let k = 3; if strncmp(p, \"ab\", k + len - 1) && memcmp(p, q, n * 2) {} }",
		"trace m { if memcmp(&buf[0], hex(\"de ad\")) && memcmp(hex(\"DEAD\"), p, 2) {} }",
		"trace m { if memcmp(a, b, n + 1) && memcmp(hex(\"00\"), hex(\"ff\")) {} }",
		/* a memcmp length of 0 or less compares nothing */
		"trace m { if memcmp(p, q, -4) && memcmp(p, hex(\"00\"), -1) {} }",
		"trace m { print cast($sp, \"unsigned char *\"); let v = cast(10, \"u8 *\"); }",
		/* a let may use a DWARF variable of the same name in its value */
		"trace m { let count = count + 1; print count; }",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ast_script_free(parse_ok(ok[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lexer_tokens),
		cmocka_unit_test(test_lexer_paths),
		cmocka_unit_test(test_lexer_comments_and_classes),
		cmocka_unit_test(test_highlight),
		cmocka_unit_test(test_lexer_error_recovery),
		cmocka_unit_test(test_lexer_integers),
		cmocka_unit_test(test_lexer_decode_string),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_cxx_patterns),
		cmocka_unit_test(test_methods),
		cmocka_unit_test(test_target_errors),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_statements),
		cmocka_unit_test(test_parse_if_chain),
		cmocka_unit_test(test_parse_expressions),
		cmocka_unit_test(test_expr_text),
		cmocka_unit_test(test_parse_builtins),
		cmocka_unit_test(test_parse_patterns_and_bodies),
		cmocka_unit_test(test_parse_disabled_mark),
		cmocka_unit_test(test_parse_bt_flags),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_parse_format_pieces),
		cmocka_unit_test(test_expr_locations),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_deep_expressions),
		cmocka_unit_test(test_deep_blocks),
		cmocka_unit_test(test_long_chains),
		cmocka_unit_test(test_syntax_diagnostics),
		cmocka_unit_test(test_semantic_diagnostics),
		cmocka_unit_test(test_check_accepts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
