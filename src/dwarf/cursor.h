/* cursor.h - reading bytes of DWARF sections and expressions: a cursor
 * that marks itself bad instead of reading past its end, and the LEB128
 * numbers both CFI programs and location expressions are written in. */
#ifndef WRAITH_DWARF_CURSOR_H
#define WRAITH_DWARF_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dw_cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

/* Little-endian @n-byte value, n <= 8 (the modules are x86-64); 0 and
 * the cursor bad when it runs off the end. */
static inline uint64_t dw_read_fixed(struct dw_cursor *c, size_t n)
{
	uint64_t v = 0;

	if (n > sizeof(v) || c->p > c->end || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

static inline void dw_skip(struct dw_cursor *c, uint64_t n)
{
	if (c->p > c->end || (uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
}

/* A NUL-terminated string in place; NULL and the cursor bad without
 * its NUL. */
static inline const char *dw_read_cstr(struct dw_cursor *c)
{
	const char *s = (const char *)c->p;
	const uint8_t *nul = c->p < c->end ? memchr(c->p, '\0', (size_t)(c->end - c->p)) : NULL;

	if (!nul) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* Unsigned LEB128; 0 and the cursor bad when it runs off the end.  Bits
 * past the 64th are dropped. */
static inline uint64_t dw_read_uleb(struct dw_cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

/* Signed LEB128, sign-extended from its last byte's bit 6. */
static inline int64_t dw_read_sleb(struct dw_cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (int64_t)v;
		}
	}
	c->bad = true;
	return 0;
}

#endif
