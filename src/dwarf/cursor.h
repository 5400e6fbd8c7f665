/* cursor.h - reading bytes of DWARF sections and expressions: a cursor
 * that marks itself bad instead of reading past its end, and the LEB128
 * numbers both CFI programs and location expressions are written in. */
#ifndef WRAITH_DWARF_CURSOR_H
#define WRAITH_DWARF_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

struct dw_cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

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
