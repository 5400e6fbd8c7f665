/* toml.c - the configuration file's TOML subset (see toml.h).
 *
 * A hand-written reader over the text with a cursor that knows its line
 * and column, so every error points at the byte where it went wrong.
 * Constructs of full TOML that are left out are recognised by their first
 * characters and named in the error, rather than reported as garbage: a
 * user who wrote `timeout = 2.5` learns that floats are not accepted, not
 * that a key is missing.
 */
#include "util/toml.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *p;
	const char *line_start;
	unsigned line;
	struct diag *d;
	bool failed;
};

static struct src_loc loc_at(const struct cursor *c, const char *at, size_t len)
{
	return (struct src_loc){ c->line, (unsigned)(at - c->line_start) + 1, len ? (unsigned)len : 1 };
}

static bool error_at(struct cursor *c, const char *at, size_t len, const char *hint,
		     const char *msg)
{
	if (!c->failed)
		diag_set(c->d, loc_at(c, at, len), hint, "%s", msg);
	c->failed = true;
	return false;
}

static void skip_blank(struct cursor *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		c->p++;
}

/* Blanks and a comment up to (not past) the end of the line. */
static void skip_to_eol(struct cursor *c)
{
	skip_blank(c);
	if (*c->p == '#')
		c->p += strcspn(c->p, "\n");
}

static bool at_eol(const struct cursor *c)
{
	return !*c->p || *c->p == '\n' || (c->p[0] == '\r' && c->p[1] == '\n');
}

static void next_line(struct cursor *c)
{
	if (*c->p == '\r')
		c->p++;
	if (*c->p == '\n') {
		c->p++;
		c->line++;
		c->line_start = c->p;
	}
}

/* Blanks, comments and newlines (inside arrays). */
static void skip_space(struct cursor *c)
{
	for (;;) {
		skip_to_eol(c);
		if (!*c->p || !at_eol(c))
			return;
		next_line(c);
	}
}

static bool is_bare(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '-';
}

/* ---- strings ---- */

/* \uXXXX or \UXXXXXXXX at c->p (after the backslash and letter). */
static bool unicode_escape(struct cursor *c, const char *esc, int digits, struct strbuf *sb)
{
	unsigned long cp = 0;

	for (int i = 0; i < digits; i++) {
		int v = hex_digit_value(c->p[i]);

		if (v < 0)
			return error_at(c, esc, (size_t)(c->p - esc) + (size_t)i, NULL,
					"a \\u escape needs 4 hex digits, \\U needs 8");
		cp = cp << 4 | (unsigned long)v;
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return error_at(c, esc, (size_t)digits + 2, NULL, "not a Unicode scalar value");
	c->p += digits;
	strbuf_add_utf8(sb, (uint32_t)cp);
	return true;
}

static bool escape(struct cursor *c, struct strbuf *sb)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	const char *esc = c->p++;
	const char *hit = *c->p ? strchr(from, *c->p) : NULL;

	if (hit) {
		strbuf_addch(sb, to[hit - from]);
		c->p++;
		return true;
	}
	if (*c->p == 'u' || *c->p == 'U') {
		int digits = *c->p == 'u' ? 4 : 8;

		c->p++;
		return unicode_escape(c, esc, digits, sb);
	}
	return error_at(c, esc, 2, "escapes are \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX",
			"unknown escape in a string");
}

/* A basic ("...") or literal ('...') string at c->p; *out owned. */
static bool string(struct cursor *c, char **out)
{
	const char *start = c->p;
	char quote = *c->p++;
	struct strbuf sb = STRBUF_INIT;

	if (c->p[0] == quote && c->p[1] == quote)
		return error_at(c, start, 3, "write the value on one line", "multi-line strings are "
				"not supported in wraith's configuration");
	while (*c->p != quote) {
		if (!*c->p || *c->p == '\n' || *c->p == '\r') {
			strbuf_release(&sb);
			return error_at(c, start, 1, NULL, "this string is not closed on its line");
		}
		if ((unsigned char)*c->p < 0x20 && *c->p != '\t') {
			strbuf_release(&sb);
			return error_at(c, c->p, 1, "write it as an escape such as \\u001b",
					"a control character inside a string");
		}
		if (*c->p == '\\' && quote == '"') {
			if (!escape(c, &sb)) {
				strbuf_release(&sb);
				return false;
			}
			continue;
		}
		strbuf_addch(&sb, *c->p++);
	}
	c->p++;
	*out = strbuf_detach(&sb);
	return true;
}

/* ---- keys ---- */

/* One key part, bare or quoted, appended to @sb. */
static bool key_part(struct cursor *c, struct strbuf *sb)
{
	const char *start = c->p;
	char *s;

	if (*c->p == '"' || *c->p == '\'') {
		if (!string(c, &s))
			return false;
		strbuf_addstr(sb, s);
		free(s);
		return true;
	}
	while (is_bare(*c->p))
		c->p++;
	if (c->p == start)
		return error_at(c, start, 1, "keys are letters, digits, _ and -, or a quoted string",
				"expected a key");
	strbuf_add(sb, start, (size_t)(c->p - start));
	return true;
}

/* A dotted key (a.b."c d"), parts joined with '.'.  @loc covers it. */
static bool dotted_key(struct cursor *c, struct strbuf *sb, struct src_loc *loc)
{
	const char *start = c->p, *end;

	for (;;) {
		if (!key_part(c, sb))
			return false;
		end = c->p;
		skip_blank(c);
		if (*c->p != '.')
			break;
		c->p++;
		skip_blank(c);
		strbuf_addch(sb, '.');
	}
	*loc = loc_at(c, start, (size_t)(end - start));
	return true;
}

/* ---- values ---- */

static bool value(struct cursor *c, struct toml_value *v, bool in_array);

/* Integers; floats and dates are recognised to say they are left out. */
static bool number(struct cursor *c, struct toml_value *v)
{
	const char *start = c->p;
	const char *digits = start + (*start == '+' || *start == '-');
	size_t n = strspn(c->p, "+-0123456789abcdefABCDEFxob_:.TZ");
	bool prefixed = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b');
	int base = !prefixed ? 10 : digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
	char buf[80], *end;
	size_t k = 0;

	if (memchr(start, ':', n) || (!prefixed && memchr(digits, '-', n - (size_t)(digits - start))))
		return error_at(c, start, n, "write it as a string", "dates and times are not "
				"supported in wraith's configuration");
	if (!prefixed && (memchr(start, '.', n) || memchr(start, 'e', n) || memchr(start, 'E', n) ||
			  !strncmp(digits, "inf", 3) || !strncmp(digits, "nan", 3)))
		return error_at(c, start, n > 3 ? n : 3, "use an integer", "floating-point values are "
				"not supported in wraith's configuration");
	if (!prefixed && digits[0] == '0' && isdigit((unsigned char)digits[1]))
		return error_at(c, start, n, "write 0o17 for an octal number",
				"leading zeros are not allowed in an integer");
	/* The digits without underscores, which must stand between two digits. */
	for (const char *p = prefixed ? digits + 2 : digits; p < start + n && k + 1 < sizeof(buf); p++) {
		if (*p == '_' && (!isxdigit((unsigned char)p[-1]) || !isxdigit((unsigned char)p[1])))
			return error_at(c, p, 1, NULL, "an underscore must stand between two digits");
		if (*p != '_')
			buf[k++] = *p;
	}
	buf[k] = '\0';
	errno = 0;
	if (!k || !isxdigit((unsigned char)buf[0]))
		return error_at(c, start, n ? n : 1, NULL, "not a valid integer");
	if (base == 10) {
		uint64_t u = strtoull(buf, &end, 10);

		if (u > (uint64_t)INT64_MAX + (*start == '-'))
			errno = ERANGE;
		v->i = *start == '-' ? (int64_t)(0 - u) : (int64_t)u;
	} else {
		v->i = (int64_t)strtoull(buf, &end, base);
		if (v->i < 0)
			errno = ERANGE;
		if (*start == '-')
			v->i = -v->i;
	}
	if (errno == ERANGE)
		return error_at(c, start, n, NULL, "this integer does not fit in 64 bits");
	if (*end)
		return error_at(c, start, n, NULL, "not a valid integer");
	v->type = TOML_INT;
	c->p = start + n;
	return true;
}

static bool error_loc(struct cursor *c, struct src_loc loc, const char *hint, const char *msg)
{
	if (!c->failed) {
		diag_set(c->d, loc, hint, "%s", msg);
		c->failed = true;
	}
	return false;
}

static bool array_item_ok(struct cursor *c, struct toml_value *arr, const struct toml_value *it)
{
	if (it->type == TOML_ARRAY)
		return error_loc(c, it->loc, NULL,
				 "nested arrays are not supported in wraith's configuration");
	if (it->type == TOML_BOOL)
		return error_loc(c, it->loc, NULL,
				 "arrays hold strings or integers in wraith's configuration");
	if (arr->n && it->type != arr->elem)
		return error_loc(c, it->loc, "an array holds strings only or integers only",
				 "this item's type differs from the array's first item");
	arr->elem = it->type;
	return true;
}

static bool array(struct cursor *c, struct toml_value *v)
{
	struct src_loc open = loc_at(c, c->p, 1);
	size_t cap = 0;

	v->type = TOML_ARRAY;
	v->elem = TOML_STRING;
	c->p++;
	for (;;) {
		struct toml_value it = { 0 };

		skip_space(c);
		if (*c->p == ']')
			break;
		if (!*c->p)
			return error_loc(c, open, "close it with ']'", "this array is not closed");
		if (!value(c, &it, true) || !array_item_ok(c, v, &it)) {
			free(it.str);
			free(it.items);
			return false;
		}
		v->items = xgrow(v->items, &cap, v->n + 1, sizeof(*v->items));
		v->items[v->n++] = it;
		skip_space(c);
		if (*c->p == ',') {
			c->p++;
			continue;
		}
		if (!*c->p)
			return error_loc(c, open, "close it with ']'", "this array is not closed");
		if (*c->p != ']')
			return error_at(c, c->p, 1, NULL, "expected ',' or ']' in the array");
	}
	c->p++;
	return true;
}

static bool word(const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && !is_bare(p[n]);
}

static bool value(struct cursor *c, struct toml_value *v, bool in_array)
{
	const char *start = c->p;
	struct src_loc loc = loc_at(c, start, 1);
	bool ok;

	if (*c->p == '"' || *c->p == '\'') {
		v->type = TOML_STRING;
		ok = string(c, &v->str);
	} else if (word(c->p, "true") || word(c->p, "false")) {
		v->type = TOML_BOOL;
		v->b = *c->p == 't';
		c->p += v->b ? 4 : 5;
		ok = true;
	} else if (*c->p == '[') {
		ok = array(c, v);
	} else if (*c->p == '{') {
		ok = error_at(c, start, 1, "write each key under a [table] header instead",
			      "inline tables are not supported in wraith's configuration");
	} else if (isdigit((unsigned char)*c->p) || *c->p == '+' || *c->p == '-' ||
		   word(c->p, "inf") || word(c->p, "nan")) {
		ok = number(c, v);
	} else {
		ok = error_at(c, start, at_eol(c) ? 1 : strcspn(start, " \t\r\n,]#"),
			      "a value is a number, a \"string\", true, false or [an, array]",
			      in_array ? "expected a value in the array" : "expected a value after '='");
	}
	/* The location covers the value's text when it is on one line. */
	if (loc.line == c->line)
		loc.len = c->p > start ? (unsigned)(c->p - start) : 1;
	v->loc = loc;
	return ok;
}

/* ---- lines ---- */

static struct toml_entry *add_entry(struct toml_doc *doc, const char *table)
{
	struct toml_entry *e;

	doc->v = xgrow(doc->v, &doc->cap, doc->n + 1, sizeof(*doc->v));
	e = &doc->v[doc->n++];
	memset(e, 0, sizeof(*e));
	e->table = xstrdup(table);
	return e;
}

static const struct toml_entry *find_entry(const struct toml_doc *doc, const char *table,
					   const char *key)
{
	for (size_t i = 0; i < doc->n; i++) {
		const struct toml_entry *e = &doc->v[i];

		if (!strcmp(e->table, table) && ((!key && !e->key) || (key && e->key && !strcmp(e->key, key))))
			return e;
	}
	return NULL;
}

static bool header(struct cursor *c, struct toml_doc *doc, struct strbuf *table)
{
	const char *start = c->p;
	const struct toml_entry *seen;
	struct src_loc loc;

	if (c->p[1] == '[')
		return error_at(c, start, 2, NULL, "arrays of tables ([[...]]) are not supported in "
				"wraith's configuration");
	c->p++;
	skip_blank(c);
	strbuf_reset(table);
	if (!dotted_key(c, table, &loc))
		return false;
	if (*c->p != ']')
		return error_at(c, c->p, 1, NULL, "expected ']' to close the table header");
	c->p++;
	seen = find_entry(doc, table->buf, NULL);
	if (seen) {
		char msg[64];

		snprintf(msg, sizeof(msg), "table [%s] was already defined on line %u",
			 strlen(table->buf) < 30 ? table->buf : "...", seen->loc.line);
		return error_at(c, start + 1, loc.len, "put all its keys under one header", msg);
	}
	add_entry(doc, table->buf)->loc = loc;
	return true;
}

static bool key_value(struct cursor *c, struct toml_doc *doc, const char *table)
{
	struct strbuf key = STRBUF_INIT;
	struct toml_entry *e;
	struct src_loc loc;
	const char *key_start = c->p;

	if (!dotted_key(c, &key, &loc))
		goto out_fail;
	if (*c->p != '=') {
		error_at(c, c->p, 1, "write key = value", "expected '=' after the key");
		goto out_fail;
	}
	c->p++;
	skip_blank(c);
	if (find_entry(doc, table, key.buf)) {
		error_at(c, key_start, loc.len, NULL, "this key is already set in this table");
		goto out_fail;
	}
	e = add_entry(doc, table);
	e->key = strbuf_detach(&key);
	e->loc = loc;
	return value(c, &e->value, false);

out_fail:
	strbuf_release(&key);
	return false;
}

static void value_release(struct toml_value *v)
{
	for (size_t i = 0; i < v->n; i++)
		value_release(&v->items[i]);
	free(v->items);
	free(v->str);
}

void toml_doc_release(struct toml_doc *doc)
{
	for (size_t i = 0; i < doc->n; i++) {
		free(doc->v[i].table);
		free(doc->v[i].key);
		value_release(&doc->v[i].value);
	}
	free(doc->v);
	memset(doc, 0, sizeof(*doc));
}

int toml_parse(const char *text, struct toml_doc *doc, struct diag *d)
{
	struct cursor c = { text, text, 1, d, false };
	struct strbuf table = STRBUF_INIT;

	if (!strncmp(c.p, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark */
		c.p = c.line_start = text + 3;
	while (!c.failed && *c.p) {
		skip_to_eol(&c);
		if (*c.p == '[')
			header(&c, doc, &table);
		else if (!at_eol(&c))
			key_value(&c, doc, table.buf);
		if (c.failed)
			break;
		skip_to_eol(&c);
		if (!at_eol(&c)) {
			error_at(&c, c.p, strcspn(c.p, "\r\n"), "one key = value or [table] per line",
				 "unexpected text after the end of the line's content");
			break;
		}
		next_line(&c);
	}
	strbuf_release(&table);
	if (c.failed) {
		toml_doc_release(doc);
		return -EINVAL;
	}
	return 0;
}

const char *toml_value_kind(const struct toml_value *v)
{
	switch (v->type) {
	case TOML_STRING:
		return "a string";
	case TOML_INT:
		return "an integer";
	case TOML_BOOL:
		return "a boolean";
	case TOML_ARRAY:
		return !v->n ? "an empty array" : v->elem == TOML_INT ? "an array of integers"
			: "an array of strings";
	}
	return "a value";
}
