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
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addchars(struct strbuf *sb, char c, size_t n);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append @s as a JSON string literal, quotes included. */
void strbuf_add_json_str(struct strbuf *sb, const char *s);
void strbuf_setlen(struct strbuf *sb, size_t len);

/* Value of the hex digit @c (either case), or -1 if it is not one. */
int hex_digit_value(char c);

#endif
