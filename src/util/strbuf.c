/* strbuf.c - growable strings (see strbuf.h for the rules). */
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty_[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty_;
	sb->len = 0;
	sb->cap = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->cap ? sb->buf : xstrdup("");

	strbuf_init(sb);
	return s;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->cap)
		return;
	sb->len = len < sb->len ? len : sb->len;
	sb->buf[sb->len] = '\0';
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	if (!sb->cap)
		sb->buf = NULL;
	sb->buf = xgrow(sb->buf, &sb->cap, need, 1);
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void strbuf_addchars(struct strbuf *sb, char c, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also stops at the NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static const char hex_digits[] = "0123456789abcdef";

/* Bytes JSON takes as they are: ASCII from the space up (DEL too) but the
 * quote (0x22) and the backslash (0x5c).  (UTF-8 is checked sequence by
 * sequence.)  A table, as the writer asks it of every byte it writes. */
static const bool json_plain_byte[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true,
};

static bool json_plain(unsigned char c)
{
	return json_plain_byte[c];
}

/* The escape of ASCII byte @c that is not json_plain(): \" \\ \n \t or
 * \u00NN; its length. */
static size_t json_escape(unsigned char c, char out[6])
{
	out[0] = '\\';
	if (c == '"' || c == '\\' || c == '\n' || c == '\t') {
		out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
		return 2;
	}
	memcpy(out + 1, "u00", 3);
	out[4] = hex_digits[c >> 4];
	out[5] = hex_digits[c & 15];
	return 6;
}

/* JSON text must be UTF-8: a byte that is not part of a well-formed
 * sequence becomes the four characters \xNN (as the text renderer shows
 * unprintable bytes), so the line stays valid for any strict decoder.
 * Runs of bytes that need nothing are copied whole. */
void strbuf_add_json_str(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(sb, '"');
	while (*p) {
		const unsigned char *run = p;
		char esc[6];
		size_t n;

		while (json_plain(*p))
			p++;
		if (p > run)
			strbuf_add(sb, run, (size_t)(p - run));
		if (!*p)
			break;
		n = *p < 0x80 ? 0 : utf8_len(p);
		if (n) {
			strbuf_add(sb, p, n);
			p += n;
			continue;
		}
		if (*p < 0x80) {
			strbuf_add(sb, esc, json_escape(*p, esc));
		} else {
			char x[5] = { '\\', '\\', 'x', hex_digits[*p >> 4], hex_digits[*p & 15] };

			strbuf_add(sb, x, sizeof(x));
		}
		p++;
	}
	strbuf_addch(sb, '"');
}

size_t fmt_u64(char out[STRBUF_U64_MAX], uint64_t v)
{
	char tmp[STRBUF_U64_MAX];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}

size_t fmt_hex(char out[STRBUF_U64_MAX], uint64_t v)
{
	size_t n = 1;

	for (uint64_t t = v >> 4; t; t >>= 4)
		n++;
	out[n] = '\0';
	for (size_t i = n; i-- > 0; v >>= 4)
		out[i] = hex_digits[v & 15];
	return n;
}

void strbuf_add_u64(struct strbuf *sb, uint64_t v)
{
	char tmp[STRBUF_U64_MAX];

	strbuf_add(sb, tmp, fmt_u64(tmp, v));
}

void strbuf_add_hex(struct strbuf *sb, uint64_t v)
{
	char tmp[STRBUF_U64_MAX + 2] = "0x";

	strbuf_add(sb, tmp, 2 + fmt_hex(tmp + 2, v));
}

int hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void strbuf_add_utf8(struct strbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		n = 4;
	}
	for (size_t i = 1; i < n; i++)
		b[i] = (char)(0x80 | (cp >> 6 * (n - 1 - i) & 0x3f));
	strbuf_add(sb, b, n);
}
