/* signature.c - C++ overload signatures in trace patterns (see
 * signature.h).  Both sides are brought to one spelling: spaces only
 * between two identifier characters, a parameter's leading const moved
 * after its type as the demangler writes it, std::string and
 * std::string_view spelled out as each library names them.
 */
#include "tracer/signature.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <string.h>

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

long signature_params_at(const char *s)
{
	size_t n = strlen(s);
	int depth = 0;

	if (!n || s[n - 1] != ')')
		return -1;
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')') {
			depth++;
		} else if (s[i] == '(' && --depth == 0) {
			/* `operator()` alone has no parameter list */
			if (i + 2 == n && i >= 8 && !strncmp(s + i - 8, "operator", 8))
				return -1;
			return i ? (long)i : -1;
		}
	}
	return -1;
}

/* @s with spaces only between identifier characters. */
static void squeeze(const char *s, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!isspace((unsigned char)s[i])) {
			strbuf_addch(out, s[i]);
			continue;
		}
		while (i + 1 < n && isspace((unsigned char)s[i + 1]))
			i++;
		if (out->len && ident_char(out->buf[out->len - 1]) && i + 1 < n && ident_char(s[i + 1]))
			strbuf_addch(out, ' ');
	}
}

/* One parameter, squeezed: `const T&` as `T const&`. */
static void parameter(const char *s, size_t n, struct strbuf *out)
{
	struct strbuf p = STRBUF_INIT;
	size_t end;

	squeeze(s, n, &p);
	if (!strncmp(p.buf, "const ", 6)) {
		for (end = p.len; end > 6 && strchr("&*", p.buf[end - 1]); end--)
			;
		strbuf_add(out, p.buf + 6, end - 6);
		strbuf_addstr(out, ident_char(p.buf[end - 1]) ? " const" : "const");
		strbuf_addstr(out, p.buf + end);
	} else {
		strbuf_addstr(out, p.buf);
	}
	strbuf_release(&p);
}

/* Parameter list @s (from '(' on) parameter by parameter. */
static void params_text(const char *s, struct strbuf *out)
{
	size_t n = strlen(s), start = 1;
	int depth = 0;

	strbuf_addch(out, '(');
	for (size_t i = 1; i < n; i++) {
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && depth > 0)
			depth--;
		else if ((s[i] == ',' && depth == 0) || (s[i] == ')' && depth == 0 && i + 1 == n)) {
			parameter(s + start, i - start, out);
			strbuf_addch(out, s[i]);
			start = i + 1;
		}
	}
}

/* Replace the whole words @from in @sb with @to. */
static void replace_word(struct strbuf *sb, const char *from, const char *to)
{
	struct strbuf r = STRBUF_INIT;
	size_t n = strlen(from);

	for (size_t i = 0; i < sb->len;) {
		if (!strncmp(sb->buf + i, from, n) && (i == 0 || (!ident_char(sb->buf[i - 1]) && sb->buf[i - 1] != ':')) &&
		    !ident_char(sb->buf[i + n])) {
			strbuf_addstr(&r, to);
			i += n;
		} else {
			strbuf_addch(&r, sb->buf[i++]);
		}
	}
	strbuf_reset(sb);
	strbuf_addstr(sb, r.buf);
	strbuf_release(&r);
}

#define GLIBCXX_STRING "std::__cxx11::basic_string<char,std::char_traits<char>,std::allocator<char>>"
#define LIBCXX_STRING "std::__1::basic_string<char,std::__1::char_traits<char>,std::__1::allocator<char>>"

/* Whether parameter list @params, spelled out with @string for
 * std::string, is @got (already params_text()). */
static bool same_params(const char *params, const char *string, const char *got)
{
	struct strbuf raw = STRBUF_INIT, want = STRBUF_INIT;
	bool same;

	strbuf_addstr(&raw, params);
	replace_word(&raw, "std::string", string);
	params_text(raw.buf, &want);
	same = !strcmp(want.buf, got);
	strbuf_release(&raw);
	strbuf_release(&want);
	return same;
}

bool signature_matches(const char *symbol, const char *name, const char *params)
{
	struct strbuf raw = STRBUF_INIT, got = STRBUF_INIT;
	const char *open = symbol ? strchr(symbol, '(') : NULL;
	size_t len = open ? (size_t)(open - symbol) : 0;
	bool ok;

	if (!open || strlen(name) != len || strncmp(symbol, name, len))
		return false;
	/* the symbol's parameters end at its last ')' (then +offset) */
	strbuf_add(&raw, open, (size_t)(strrchr(symbol, ')') - open) + 1);
	params_text(raw.buf, &got);
	ok = same_params(params, GLIBCXX_STRING, got.buf) || same_params(params, LIBCXX_STRING, got.buf);
	strbuf_release(&raw);
	strbuf_release(&got);
	return ok;
}
