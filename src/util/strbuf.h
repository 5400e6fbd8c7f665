/* strbuf.h - a growable, always NUL-terminated string.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 * Rules: a strbuf is embedded (strbuf_init / strbuf_release) or zeroed with
 * STRBUF_INIT; buf is never NULL after init and always NUL-terminated; len
 * excludes the NUL.  strbuf_detach() hands the string to the caller, who
 * frees it, and leaves the strbuf empty and reusable.
 */
#ifndef WRAITH_UTIL_STRBUF_H
#define WRAITH_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

extern char strbuf_empty_[];
#define STRBUF_INIT { strbuf_empty_, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Returns the string (caller frees); sb is left empty. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_addchars(struct strbuf *sb, char c, size_t n);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append @s as a JSON string literal, quotes included. */
void strbuf_add_json_str(struct strbuf *sb, const char *s);
void strbuf_setlen(struct strbuf *sb, size_t len);

/* The adders below are inline: rendering an event calls them hundreds of
 * times, and with room in the buffer each is a copy and a store. */
static inline void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	if (sb->len + n >= sb->cap)
		strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

static inline void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

static inline void strbuf_addch(struct strbuf *sb, char c)
{
	if (sb->len + 1 >= sb->cap)
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

/* Number formatting without printf (a printf call costs more than the
 * rest of a frame's rendering): @v in decimal, or in lowercase hex without
 * a prefix, into @out, NUL-terminated; returns the length (no NUL). */
#define STRBUF_U64_MAX 21 /* bytes the longest number takes, NUL included */
size_t fmt_u64(char out[STRBUF_U64_MAX], uint64_t v);
size_t fmt_hex(char out[STRBUF_U64_MAX], uint64_t v);
/* Append @v in decimal; in lowercase hex after "0x". */
void strbuf_add_u64(struct strbuf *sb, uint64_t v);
void strbuf_add_hex(struct strbuf *sb, uint64_t v);

/* Append the code point @cp (at most U+10FFFF; the caller replaces
 * what is not a character) in UTF-8. */
void strbuf_add_utf8(struct strbuf *sb, uint32_t cp);

/* Value of the hex digit @c (either case), or -1 if it is not one. */
int hex_digit_value(char c);

#endif
