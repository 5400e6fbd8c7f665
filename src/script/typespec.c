/* typespec.c - C type names as cast() writes them (see typespec.h).
 *
 * A recursive-descent parser over the text of one string literal, the
 * way a C compiler reads a type-name: first the specifiers and
 * qualifiers, in any order, which name the base type; then the abstract
 * declarator.  C spells a declarator inside out - "int (*)[4]" is a
 * pointer to an array, "int *[4]" an array of pointers - so each level
 * reads its pointers, an optional parenthesized inner declarator and its
 * suffixes ([N], (params)), and lists what it read in the order the
 * operations apply to the base: its pointers, then its suffixes from the
 * last to the first, then the inner declarator's.  Spelling goes the
 * other way: from the outermost operation in, wrapping a pointer in
 * parentheses when a suffix follows it.
 */
#include "script/typespec.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16              /* nested declarators and parameter lists */
#define MAX_ELEMENTS (1ull << 32) /* of one array dimension */

struct tp {
	const char *s;
	size_t n;
	size_t pos;
	unsigned depth;
	struct typespec_error *err;
	bool failed;
};

struct oplist {
	struct typespec_op *v;
	size_t n, cap;
};

static void fail(struct tp *p, size_t at, size_t len, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void fail(struct tp *p, size_t at, size_t len, const char *hint, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	p->err->at = at;
	p->err->len = len ? len : 1;
	p->err->hint = hint;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
}

/* ---- characters and words ---- */

static char peek(struct tp *p)
{
	while (p->pos < p->n && isspace((unsigned char)p->s[p->pos]))
		p->pos++;
	return p->pos < p->n ? p->s[p->pos] : '\0';
}

static bool ident_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || (!first && isdigit((unsigned char)c));
}

/* The length of the identifier at the current position (0: none). */
static size_t ident_len(struct tp *p)
{
	size_t i;

	if (!peek(p) || !ident_char(p->s[p->pos], true))
		return 0;
	i = p->pos;
	while (i < p->n && ident_char(p->s[i], false))
		i++;
	return i - p->pos;
}

static bool is_word(struct tp *p, size_t len, const char *w)
{
	return strlen(w) == len && !memcmp(p->s + p->pos, w, len);
}

/* Fail at the current position (or the end) saying what came instead. */
static void unexpected(struct tp *p, const char *wanted, const char *hint)
{
	size_t len = ident_len(p);

	if (p->pos >= p->n)
		fail(p, p->n, 1, hint, "%s, found the end of the type", wanted);
	else
		fail(p, p->pos, len ? len : 1, hint, "%s, found '%.*s'", wanted, (int)(len ? len : 1),
		     p->s + p->pos);
}

static bool expect(struct tp *p, char c, const char *what)
{
	if (peek(p) == c) {
		p->pos++;
		return true;
	}
	unexpected(p, what, NULL);
	return false;
}

/* ---- specifiers ---- */

enum word { W_VOID, W_CHAR, W_SHORT, W_INT, W_LONG, W_FLOAT, W_DOUBLE, W_SIGNED, W_UNSIGNED,
	    W_BOOL, W_CBOOL, W_LLONG, W_COUNT };
#define W(x) (1u << W_##x)

static const char *const arith_words[] = {
	[W_VOID] = "void", [W_CHAR] = "char", [W_SHORT] = "short", [W_INT] = "int",
	[W_LONG] = "long", [W_FLOAT] = "float", [W_DOUBLE] = "double", [W_SIGNED] = "signed",
	[W_UNSIGNED] = "unsigned", [W_BOOL] = "bool", [W_CBOOL] = "_Bool",
};

static unsigned qualifier(struct tp *p, size_t len)
{
	static const struct {
		const char *word;
		unsigned q;
	} words[] = {
		{ "const", TYPESPEC_CONST }, { "volatile", TYPESPEC_VOLATILE },
		{ "restrict", TYPESPEC_RESTRICT }, { "__restrict", TYPESPEC_RESTRICT },
		{ "__restrict__", TYPESPEC_RESTRICT }, { "_Atomic", TYPESPEC_ATOMIC },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (is_word(p, len, words[i].word))
			return words[i].q;
	return 0;
}

static int arith_word(struct tp *p, size_t len)
{
	for (int i = 0; i < W_LLONG; i++)
		if (is_word(p, len, arith_words[i]))
			return i;
	return -1;
}

/* gdb's name of the arithmetic type the words of @mask make, or NULL. */
static const char *arith_name(unsigned mask)
{
	static const struct {
		unsigned mask;
		const char *name;
	} exact[] = {
		{ W(VOID), "void" }, { W(BOOL), "bool" }, { W(CBOOL), "_Bool" }, { W(CHAR), "char" },
		{ W(SIGNED) | W(CHAR), "signed char" }, { W(UNSIGNED) | W(CHAR), "unsigned char" },
		{ W(FLOAT), "float" }, { W(DOUBLE), "double" }, { W(LONG) | W(DOUBLE), "long double" },
	};
	static const struct {
		unsigned size;
		const char *name, *unsigned_name;
	} ints[] = {
		{ W(SHORT), "short", "unsigned short" }, { 0, "int", "unsigned int" },
		{ W(LONG), "long", "unsigned long" }, { W(LLONG), "long long", "unsigned long long" },
	};
	unsigned rest = mask & ~(W(INT) | W(SIGNED) | W(UNSIGNED));

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (mask == exact[i].mask)
			return exact[i].name;
	if ((mask & W(SIGNED)) && (mask & W(UNSIGNED)))
		return NULL;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (rest == ints[i].size)
			return mask & W(UNSIGNED) ? ints[i].unsigned_name : ints[i].name;
	return NULL;
}

/* Template arguments at '<', copied with runs of blanks made one space. */
static bool template_args(struct tp *p, struct strbuf *out)
{
	size_t open = p->pos;
	int depth = 0;

	do {
		char c = p->s[p->pos++];

		depth += (c == '<') - (c == '>');
		if (!isspace((unsigned char)c))
			strbuf_addch(out, c);
		else if (out->len && out->buf[out->len - 1] != ' ')
			strbuf_addch(out, ' ');
	} while (depth > 0 && p->pos < p->n);
	if (depth > 0)
		fail(p, open, 1, NULL, "'<' is not closed");
	return depth == 0;
}

/* A name with C++ scopes and template arguments: "ns::Klass<int>::type". */
static char *scoped_name(struct tp *p)
{
	struct strbuf sb = STRBUF_INIT;

	for (;;) {
		size_t len = ident_len(p);

		if (!len) {
			unexpected(p, "expected a name", NULL);
			break;
		}
		strbuf_add(&sb, p->s + p->pos, len);
		p->pos += len;
		if (p->pos < p->n && p->s[p->pos] == '<' && !template_args(p, &sb))
			break;
		if (p->pos + 1 >= p->n || p->s[p->pos] != ':' || p->s[p->pos + 1] != ':')
			return strbuf_detach(&sb);
		strbuf_addstr(&sb, "::");
		p->pos += 2;
	}
	strbuf_release(&sb);
	return NULL;
}

static const char *tag_keyword(struct tp *p, size_t len)
{
	static const char *const tags[] = { "struct", "union", "enum", "class" };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (is_word(p, len, tags[i]))
			return tags[i];
	return NULL;
}

/* "struct NAME" at a tag keyword of @len bytes. */
static void tagged(struct tp *p, struct typespec *ts, size_t len)
{
	const char *tag = tag_keyword(p, len);
	char *name;

	p->pos += len;
	if (!ident_len(p)) {
		unexpected(p, "expected a name after the keyword", "e.g. \"struct request *\"");
		return;
	}
	name = scoped_name(p);
	if (!name)
		return;
	ts->base = TYPESPEC_TAGGED;
	ts->name = xasprintf("%s %s", tag, name);
	free(name);
}

/* One word of the specifiers (or a tag or a typedef name); @words
 * collects the arithmetic words.  False at the first word that is none. */
static bool specifier(struct tp *p, struct typespec *ts, unsigned *words)
{
	size_t len = ident_len(p), at = p->pos;
	unsigned q = len ? qualifier(p, len) : 0;
	int w = len ? arith_word(p, len) : -1;

	if (!len)
		return false;
	if (q) {
		ts->quals |= q;
		p->pos += len;
		return true;
	}
	if (ts->name || (*words && w < 0)) {
		fail(p, at, len, "a cast names a type alone, without a variable name: \"int *\"",
		     "unexpected '%.*s' after the type", (int)len, p->s + at);
		return false;
	}
	if (w >= 0) {
		if (w == W_LONG && (*words & W(LONG))) {
			*words &= ~W(LONG); /* long long */
			w = W_LLONG;
		}
		if (*words & (1u << w)) {
			fail(p, at, len, NULL, "'%.*s' is given twice", (int)len, p->s + at);
			return false;
		}
		*words |= 1u << w;
		p->pos += len;
	} else if (tag_keyword(p, len)) {
		tagged(p, ts, len);
	} else {
		ts->base = TYPESPEC_NAMED;
		ts->name = scoped_name(p);
	}
	if (ts->name_at == SIZE_MAX)
		ts->name_at = at;
	ts->name_len = p->pos - ts->name_at;
	return !p->failed;
}

static void specifiers(struct tp *p, struct typespec *ts)
{
	unsigned words = 0;
	const char *name;

	ts->name_at = SIZE_MAX;
	while (specifier(p, ts, &words))
		;
	if (p->failed)
		return;
	if (ts->name_at == SIZE_MAX) {
		unexpected(p, "expected a type", "e.g. \"struct request *\", \"uint32_t[4]\"");
		return;
	}
	if (ts->name)
		return;
	name = arith_name(words);
	if (!name) {
		fail(p, ts->name_at, ts->name_len,
		     "type words combine as in C: unsigned long, long long, long double, signed char",
		     "'%.*s' is not a C type", (int)ts->name_len, p->s + ts->name_at);
		return;
	}
	ts->base = TYPESPEC_BUILTIN;
	ts->name = xstrdup(name);
}

/* ---- declarators ---- */

static void push(struct oplist *l, struct typespec_op op)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = op;
}

/* Move the operations of @from to the end of @to, reversed if @reverse. */
static void append(struct oplist *to, struct oplist *from, bool reverse)
{
	for (size_t i = 0; i < from->n; i++)
		push(to, from->v[reverse ? from->n - 1 - i : i]);
	free(from->v);
	memset(from, 0, sizeof(*from));
}

static void ops_release(struct typespec_op *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < v[i].n_params; j++)
			typespec_free(v[i].params[j]);
		free(v[i].params);
	}
	free(v);
}

static unsigned qualifiers(struct tp *p)
{
	unsigned quals = 0, q;
	size_t len;

	while ((len = ident_len(p)) && (q = qualifier(p, len))) {
		quals |= q;
		p->pos += len;
	}
	return quals;
}

static bool array_length(struct tp *p, uint64_t *out)
{
	size_t at = p->pos;
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)peek(p))) {
		if (peek(p) == ']')
			fail(p, at, 1, "e.g. \"uint32_t[4]\": what a pointer points to, seen as 4 elements",
			     "an array in a cast needs its length");
		else
			unexpected(p, "expected the array's length", NULL);
		return false;
	}
	v = strtoull(p->s + at, &end, 0);
	p->pos = (size_t)(end - p->s);
	if (p->pos > p->n || ident_char(p->s[p->pos], false) || v < 1 || v > MAX_ELEMENTS) {
		for (p->pos = at; p->pos < p->n && ident_char(p->s[p->pos], false); p->pos++)
			;
		fail(p, at, p->pos - at, NULL, "an array's length must be a number from 1 to %llu",
		     MAX_ELEMENTS);
		return false;
	}
	*out = v;
	return true;
}

static void type_name(struct tp *p, struct typespec *ts);

static void parameters(struct tp *p, struct typespec_op *op)
{
	size_t cap = 0, len, save;

	if (peek(p) == ')') {
		op->unprototyped = true;
		return;
	}
	len = ident_len(p);
	save = p->pos;
	if (is_word(p, len, "void")) {
		p->pos += len;
		if (peek(p) == ')')
			return; /* (void) */
		p->pos = save;
	}
	while (!p->failed) {
		struct typespec *param;

		if (op->n_params && peek(p) == '.' && p->n - p->pos >= 3 && !memcmp(p->s + p->pos, "...", 3)) {
			p->pos += 3;
			op->variadic = true;
			return;
		}
		param = xcalloc(1, sizeof(*param));
		type_name(p, param);
		op->params = xgrow(op->params, &cap, op->n_params + 1, sizeof(*op->params));
		op->params[op->n_params++] = param;
		if (peek(p) != ',')
			return;
		p->pos++;
	}
}

/* [N] or (parameters) */
static void suffix(struct tp *p, struct oplist *out)
{
	struct typespec_op op = { .kind = peek(p) == '[' ? TYPESPEC_ARRAY : TYPESPEC_FUNCTION };

	p->pos++;
	if (op.kind == TYPESPEC_ARRAY) {
		if (array_length(p, &op.count))
			expect(p, ']', "expected ']'");
	} else if (++p->depth > MAX_DEPTH) {
		fail(p, p->pos - 1, 1, NULL, "type nested too deeply");
	} else {
		parameters(p, &op);
		p->depth--;
		if (!p->failed)
			expect(p, ')', "expected ',' or ')' in the parameter list");
	}
	push(out, op);
}

/* After '(': an inner declarator (not a parameter list)? */
static bool inner_follows(struct tp *p)
{
	size_t save = p->pos;
	char c;

	p->pos++;
	c = peek(p);
	p->pos = save;
	return c == '*' || c == '(' || c == '[';
}

static void abstract(struct tp *p, struct oplist *out)
{
	struct oplist ptrs = { 0 }, inner = { 0 }, suffixes = { 0 };

	if (++p->depth > MAX_DEPTH) {
		fail(p, p->pos, 1, NULL, "type nested too deeply");
		return;
	}
	while (peek(p) == '*') {
		p->pos++;
		push(&ptrs, (struct typespec_op){ .kind = TYPESPEC_POINTER, .quals = qualifiers(p) });
	}
	if (peek(p) == '(' && inner_follows(p)) {
		p->pos++;
		abstract(p, &inner);
		if (!p->failed)
			expect(p, ')', "expected ')'");
	}
	while (!p->failed && (peek(p) == '[' || peek(p) == '('))
		suffix(p, &suffixes);
	if (!p->failed && peek(p) == '&')
		fail(p, p->pos, 1, "cast to a pointer instead: \"T *\"", "a cast cannot make a reference");
	append(out, &ptrs, false);
	append(out, &suffixes, true);
	append(out, &inner, false);
	p->depth--;
}

/* C's rules on what may be derived from what. */
static void check_ops(struct tp *p, const struct typespec *ts, size_t at)
{
	for (size_t i = 0; i < ts->n_ops && !p->failed; i++) {
		enum typespec_op_kind k = ts->ops[i].kind;
		int prev = i ? (int)ts->ops[i - 1].kind : -1;

		if (k == TYPESPEC_ARRAY && prev == TYPESPEC_FUNCTION)
			fail(p, at, p->pos - at, "an array of pointers to functions is: \"void (*[4])(int)\"",
			     "there are no arrays of functions");
		else if (k == TYPESPEC_FUNCTION && (prev == TYPESPEC_ARRAY || prev == TYPESPEC_FUNCTION))
			fail(p, at, p->pos - at, NULL, "a function cannot return %s",
			     prev == TYPESPEC_ARRAY ? "an array" : "a function");
		else if (k == TYPESPEC_ARRAY && prev < 0 && ts->base == TYPESPEC_BUILTIN &&
			 !strcmp(ts->name, "void"))
			fail(p, at, p->pos - at, "e.g. \"unsigned char[16]\" for bytes",
			     "there are no arrays of void");
	}
}

static void type_name(struct tp *p, struct typespec *ts)
{
	struct oplist ops = { 0 };
	size_t at;

	peek(p);
	at = p->pos;
	specifiers(p, ts);
	if (p->failed)
		return;
	abstract(p, &ops);
	ts->ops = ops.v;
	ts->n_ops = ops.n;
	check_ops(p, ts, at);
}

/* "MODULE:type": the module ends at the first ':' that is not half of
 * a C++ "::". */
static void module(struct tp *p, struct typespec *ts)
{
	size_t i, start, end;

	for (i = 0; i < p->n; i++) {
		if (p->s[i] == ':' && i + 1 < p->n && p->s[i + 1] == ':')
			i++;
		else if (p->s[i] == ':')
			break;
	}
	if (i == p->n)
		return;
	for (start = 0; start < i && isspace((unsigned char)p->s[start]); start++)
		;
	for (end = i; end > start && isspace((unsigned char)p->s[end - 1]); end--)
		;
	if (end == start) {
		fail(p, i, 1, "e.g. \"libfoo.so:struct node *\"", "a module name must come before ':'");
		return;
	}
	ts->module = xstrndup(p->s + start, end - start);
	ts->module_at = start;
	ts->module_len = end - start;
	p->pos = i + 1;
}

int typespec_parse(const char *text, size_t len, struct typespec **out, struct typespec_error *err)
{
	struct tp p = { .s = text, .n = len, .err = err };
	struct typespec *ts = xcalloc(1, sizeof(*ts));

	*out = NULL;
	memset(err, 0, sizeof(*err));
	if (memchr(text, '\0', len))
		fail(&p, (size_t)((const char *)memchr(text, '\0', len) - text), 1, NULL,
		     "a type name cannot hold a NUL byte");
	module(&p, ts);
	if (!p.failed)
		type_name(&p, ts);
	if (!p.failed && peek(&p))
		unexpected(&p, "expected the end of the type", NULL);
	if (p.failed) {
		typespec_free(ts);
		return -WR_ESYNTAX;
	}
	*out = ts;
	return 0;
}

void typespec_free(struct typespec *ts)
{
	if (!ts)
		return;
	free(ts->module);
	free(ts->name);
	ops_release(ts->ops, ts->n_ops);
	free(ts);
}

/* ---- spelling ---- */

static void add_quals(struct strbuf *sb, unsigned quals, bool before)
{
	static const char *const words[] = { "const", "volatile", "restrict", "_Atomic" };

	for (unsigned i = 0; i < 4; i++) {
		if (!(quals & (1u << i)))
			continue;
		if (!before)
			strbuf_addch(sb, ' ');
		strbuf_addstr(sb, words[i]);
		if (before)
			strbuf_addch(sb, ' ');
	}
}

static void prepend(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s), old = sb->len;

	strbuf_addchars(sb, ' ', n);
	memmove(sb->buf + n, sb->buf, old);
	memcpy(sb->buf, s, n);
}

static void spell_params(const struct typespec_op *op, struct strbuf *out)
{
	strbuf_addch(out, '(');
	for (size_t i = 0; i < op->n_params; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		typespec_spell(op->params[i], NULL, op->params[i]->n_ops, out);
	}
	if (op->variadic)
		strbuf_addstr(out, ", ...");
	else if (!op->n_params && !op->unprototyped)
		strbuf_addstr(out, "void");
	strbuf_addch(out, ')');
}

/* "*", then its qualifiers as gdb spaces them: "* const *". */
static void spell_pointer(const struct typespec_op *op, struct strbuf *decl)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addch(&sb, '*');
	add_quals(&sb, op->quals, false);
	if (op->quals && decl->len)
		strbuf_addch(&sb, ' ');
	prepend(decl, sb.buf);
	strbuf_release(&sb);
}

void typespec_spell(const struct typespec *ts, const char *base, size_t n_ops, struct strbuf *out)
{
	struct strbuf decl = STRBUF_INIT;
	bool pointer = false;

	for (size_t i = n_ops; i-- > 0;) {
		const struct typespec_op *op = &ts->ops[i];

		if (op->kind == TYPESPEC_POINTER) {
			spell_pointer(op, &decl);
			pointer = true;
			continue;
		}
		if (pointer) {
			prepend(&decl, "(");
			strbuf_addch(&decl, ')');
			pointer = false;
		}
		if (op->kind == TYPESPEC_ARRAY)
			strbuf_addf(&decl, "[%llu]", (unsigned long long)op->count);
		else
			spell_params(op, &decl);
	}
	add_quals(out, ts->quals, true);
	strbuf_addstr(out, base ? base : ts->name);
	if (decl.len) {
		strbuf_addch(out, ' ');
		strbuf_addstr(out, decl.buf);
	}
	strbuf_release(&decl);
}
