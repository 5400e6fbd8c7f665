/* value.c - the traced program's values as text, from raw bytes and their
 * DWARF type: integers by size and signedness, enums by enumerator name,
 * pointers with their type, char arrays as quoted strings, structs and
 * arrays recursively (to a bounded depth and width). */
#include "dwarf/vars.h"
#include "render/render.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <string.h>

#define MAX_DEPTH 4
#define MAX_ELEMENTS 16

static void typed(const struct dw_type *t, const uint8_t *data, size_t len, int depth,
		  struct strbuf *out);

static uint64_t read_uint(const uint8_t *data, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, data, size > 8 ? 8 : size);
	return v;
}

static int64_t sign_extend(uint64_t v, size_t size)
{
	unsigned shift = (unsigned)(64 - 8 * (size > 8 ? 8 : size));

	return shift >= 64 ? 0 : (int64_t)(v << shift) >> shift;
}

static void quoted(const uint8_t *s, size_t len, struct strbuf *out)
{
	strbuf_addch(out, '"');
	for (size_t i = 0; i < len && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\\')
			strbuf_addf(out, "\\%c", s[i]);
		else if (s[i] >= 0x20 && s[i] < 0x7f)
			strbuf_addch(out, (char)s[i]);
		else
			strbuf_addf(out, "\\x%02x", s[i]);
	}
	strbuf_addch(out, '"');
}

static void enum_text(const struct dw_type *t, int64_t v, struct strbuf *out)
{
	for (size_t i = 0; i < t->n_enumerators; i++) {
		if (t->enumerators[i].value == v) {
			strbuf_addstr(out, t->enumerators[i].name);
			return;
		}
	}
	strbuf_addf(out, "%" PRId64, v);
}

static void scalar(const struct dw_type *t, const uint8_t *data, size_t len, struct strbuf *out)
{
	uint64_t v = read_uint(data, t->size < len ? t->size : len);

	switch (t->kind) {
	case DW_TYPE_BOOL:
		strbuf_addstr(out, v ? "true" : "false");
		return;
	case DW_TYPE_ENUM:
		enum_text(t, t->is_signed ? sign_extend(v, t->size) : (int64_t)v, out);
		return;
	case DW_TYPE_POINTER:
		if (v)
			strbuf_addf(out, "0x%" PRIx64 " (%s)", v, t->name);
		else
			strbuf_addf(out, "NULL (%s)", t->name);
		return;
	case DW_TYPE_FLOAT:
		if (t->size == 4) {
			float f;

			memcpy(&f, data, 4);
			strbuf_addf(out, "%g", (double)f);
		} else if (t->size == 8) {
			double d;

			memcpy(&d, data, 8);
			strbuf_addf(out, "%g", d);
		} else {
			strbuf_addstr(out, "<long double>");
		}
		return;
	default:
		if (t->is_char && t->size == 1 && v >= 0x20 && v < 0x7f)
			strbuf_addf(out, "'%c'", (char)v);
		else if (t->is_signed)
			strbuf_addf(out, "%" PRId64, sign_extend(v, t->size));
		else
			strbuf_addf(out, "%" PRIu64, v);
	}
}

static void members(const struct dw_type *t, const uint8_t *data, size_t len, int depth,
		    struct strbuf *out)
{
	strbuf_addch(out, '{');
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];

		if (i)
			strbuf_addstr(out, ", ");
		strbuf_addf(out, "%s: ", mb->name ? mb->name : "<anonymous>");
		if (mb->offset >= len || mb->offset + mb->type->size > len) {
			strbuf_addstr(out, "<not read>");
		} else if (mb->bit_size) {
			uint64_t v = read_uint(data + mb->offset, mb->type->size) >> mb->bit_offset;

			v &= mb->bit_size >= 64 ? ~0ull : (1ull << mb->bit_size) - 1;
			strbuf_addf(out, "%" PRIu64, v);
		} else {
			typed(mb->type, data + mb->offset, len - mb->offset, depth + 1, out);
		}
	}
	strbuf_addch(out, '}');
}

static void elements(const struct dw_type *t, const uint8_t *data, size_t len, int depth,
		     struct strbuf *out)
{
	const struct dw_type *e = t->target;
	size_t n = t->count;

	if (e->is_char && e->size == 1) {
		quoted(data, n < len ? n : len, out);
		return;
	}
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		if (i == MAX_ELEMENTS || (i + 1) * e->size > len) {
			strbuf_addstr(out, "...");
			break;
		}
		typed(e, data + i * e->size, len - i * e->size, depth + 1, out);
	}
	strbuf_addch(out, ']');
}

static void typed(const struct dw_type *t, const uint8_t *data, size_t len, int depth,
		  struct strbuf *out)
{
	if (depth > MAX_DEPTH) {
		strbuf_addstr(out, "...");
		return;
	}
	if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION)
		members(t, data, len, depth, out);
	else if (t->kind == DW_TYPE_ARRAY)
		elements(t, data, len, depth, out);
	else if (t->size && t->size <= len)
		scalar(t, data, len, out);
	else
		strbuf_addf(out, "<%s>", t->name);
}

void render_typed_value(const struct dw_type *t, const uint8_t *data, size_t len, struct strbuf *out)
{
	typed(t, data, len, 0, out);
}
