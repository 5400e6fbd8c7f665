/* value_data.c - the traced program's values as data spans, for JSON: the
 * walk of value.c over raw bytes and their DWARF type, giving each value
 * its JSON shape instead of C-like text.
 *
 *   integers, bitfields, chars  number
 *   floating point              number; "nan", "inf", "-inf" as strings
 *   complex                     {"real": number, "imag": number}
 *   decimal floating point      number ("1.50", "1E+20"), as floating point
 *   bool                        true, false
 *   enum                        the enumerator's name; a number when none
 *   pointer                     "0x..." (its type is the argument's "type");
 *                               a NULL pointer is null
 *   C++ reference (print arg)   the referent's value ("type" is "int &");
 *                               inside an aggregate, "0x..." as a pointer
 *   char array, string,         string, to the first NUL
 *   char pointer (its string)
 *   memory dump ({:x.N} ...)    array of the byte values read; {:s.N} a
 *                               string of the bytes, to the first NUL
 *   struct, union               object keyed by member name; a C++ base
 *                               class by its name in angle brackets,
 *                               "<Base>"; the members of an anonymous
 *                               struct or union in the object holding
 *                               it, as C names them
 *   char pointer member         its string when the probe read it, else
 *                               "0x..."
 *   Rust tuple, tuple struct    array of the fields
 *   Rust enum with data         the variant's name when it has no fields,
 *                               else {"Variant": its field, or an array
 *                               of its fields, or an object of its named
 *                               fields} (serde's shape)
 *   other arrays                array of the elements that were read
 *   what was not read           null
 *
 * Unlike the text, nothing is elided for width: JSON is for programs, so
 * every element on the wire is there.  Nesting is bounded all the same,
 * since DWARF from the target is not trusted to be acyclic.
 */
#include "dwarf/stdlib.h"
#include "dwarf/types.h"
#include "render/render_priv.h"
#include "util/strbuf.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#define MAX_DEPTH 32

/* Where a walk is in the value: @at, the byte offset of data in it;
 * @gone, bit i set when bit i of data was not kept (WR_ARG_PIECES),
 * moving along with data (NULL when every bit was); the strings char
 * pointers inside it point to, keyed by their offset (WR_ARG_ATTACH). */
struct place {
	size_t at;
	const uint8_t *gone;
	const struct ev_arg *attach;
	size_t n_attach;
	/* The memory the probe copied with the value (containers,
	 * render_snap_new()) and the address of its byte 0; NULL: none.
	 * With it, how many of a container's elements are shown. */
	const struct render_snap *snap;
	uint64_t base;
	const struct render_limits *lim;
};

static struct place inside(const struct place *p, size_t off)
{
	struct place q = *p;

	q.at += off;
	q.gone = p->gone ? p->gone + off : NULL;
	return q;
}

static void typed(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len,
		  int depth, struct span_list *out);

static void integer(uint64_t v, bool is_signed, unsigned bits, struct span_list *out)
{
	if (is_signed)
		span_dataf(out, SPAN_NUMBER, "%" PRId64, render_sign_extend(v, bits));
	else
		span_dataf(out, SPAN_NUMBER, "%" PRIu64, v);
}

/* JSON has no NaN or infinity: those are strings ("nan", "inf", "-inf",
 * and "invalid" for an x87 pattern the FPU refuses). */
static void float_value(const struct dw_type *t, const uint8_t *data, struct span_list *out)
{
	char buf[RENDER_FLOAT_MAX];
	enum render_float_class class = t->kind == DW_TYPE_DECIMAL ? render_decimal(t, data, buf, sizeof(buf))
								   : render_float(t, data, buf, sizeof(buf));

	switch (class) {
	case RENDER_FLOAT_NUMBER:
		span_dataf(out, SPAN_NUMBER, "%s", buf);
		break;
	case RENDER_FLOAT_NAN:
		span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, "nan");
		break;
	case RENDER_FLOAT_INF:
		span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, buf[0] == '-' ? "-inf" : "inf");
		break;
	case RENDER_FLOAT_INVALID:
		span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, "invalid");
		break;
	default:
		span_null(out, SPAN_LITERAL);
	}
}

static void enum_value(const struct dw_type *t, uint64_t raw, struct span_list *out)
{
	int64_t v = t->is_signed ? render_sign_extend(raw, (unsigned)(8 * t->size)) : (int64_t)raw;

	for (size_t i = 0; i < t->n_enumerators; i++) {
		if (t->enumerators[i].value == v) {
			span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, t->enumerators[i].name);
			return;
		}
	}
	integer(raw, t->is_signed, (unsigned)(8 * t->size), out);
}

static bool is_char_pointer(const struct dw_type *t)
{
	const struct dw_type *e = t->target;

	return e && e->is_char && e->size == 1 && !t->is_reference;
}

void render_units_utf8(const uint8_t *data, size_t n, unsigned width, bool to_nul, struct strbuf *sb)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t c = (uint32_t)render_read_uint(data + i * width, width), lo;

		if (!c && to_nul)
			break;
		if (width == 1) {
			strbuf_addch(sb, (char)c);
			continue;
		}
		if (width == 2 && c >= 0xd800 && c < 0xdc00 && i + 1 < n &&
		    (lo = (uint32_t)render_read_uint(data + (i + 1) * width, width)) >= 0xdc00 && lo < 0xe000) {
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			i++;
		} else if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff) {
			c = 0xfffd;
		}
		strbuf_add_utf8(sb, c);
	}
}

/* @n wide characters of @width bytes at @data (UTF-16 or UTF-32, as
 * char16_t and char32_t hold them; wchar_t is UTF-32 here) as a JSON
 * string, up to the first NUL when @to_nul. */
static void wide_string(const uint8_t *data, size_t n, unsigned width, bool to_nul, struct span_list *out)
{
	struct strbuf sb = STRBUF_INIT;

	render_units_utf8(data, n, width, to_nul, &sb);
	span_datan(out, SPAN_STRING, sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
}

/* A wide string the probe read to its limit (WR_ARG_AUX_WIDE) for a
 * pointer to characters of type @e. */
static void wide_pointed(const struct ev_arg *s, const struct dw_type *e, struct span_list *out)
{
	unsigned width = e && e->size ? (unsigned)e->size : 4;

	wide_string(s->data, s->data ? s->len / width : 0, width, true, out);
}

/* A char pointer's string, as the text shows it (the probe read it:
 * attached at the pointer's offset, or, inside a container, copied
 * among its memory at the address @v); false when it did not. */
static bool pointed_string(const struct dw_type *t, uint64_t v, const struct place *p,
			   struct span_list *out)
{
	const struct ev_arg *copy = p && is_char_pointer(t) ? render_snap_string(p->snap, v) : NULL;

	if (copy && copy->status == WR_ARG_OK) {
		span_datan(out, SPAN_STRING, (const char *)copy->data,
			   strnlen((const char *)copy->data, copy->len));
		return true;
	}
	for (size_t i = 0; p && (is_char_pointer(t) || (t->target && t->target->char_prefix)) && i < p->n_attach;
	     i++) {
		const struct ev_arg *s = &p->attach[i];

		if (s->kind != WR_ARG_ATTACH || (s->aux & ~WR_ARG_AUX_WIDE) != p->at)
			continue;
		if (s->status != WR_ARG_OK && s->status != WR_ARG_TRUNCATED)
			return false;
		if (s->aux & WR_ARG_AUX_WIDE) {
			wide_pointed(s, t->target, out);
			return true;
		}
		span_datan(out, SPAN_STRING, (const char *)s->data,
			   s->data ? strnlen((const char *)s->data, s->len) : 0);
		return true;
	}
	return false;
}

static void scalar(const struct dw_type *t, const uint8_t *data, const struct place *p,
		   struct span_list *out)
{
	uint64_t v = render_read_uint(data, t->size);

	switch (t->kind) {
	case DW_TYPE_BOOL:
		span_add(out, SPAN_LITERAL, SPAN_TONE_NONE, NULL, v ? "true" : "false");
		break;
	case DW_TYPE_ENUM:
		enum_value(t, v, out);
		break;
	case DW_TYPE_POINTER:
		if (!v)
			span_null(out, SPAN_LITERAL);
		else if (!pointed_string(t, v, p, out))
			span_dataf(out, SPAN_STRING, "0x%" PRIx64, v);
		break;
	case DW_TYPE_FLOAT:
	case DW_TYPE_DECIMAL:
		float_value(t, data, out);
		break;
	case DW_TYPE_COMPLEX: {
		struct dw_type part;

		render_complex_part(t, &part);
		span_open(out, SPAN_OBJECT);
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "real");
		float_value(&part, data, out);
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "imag");
		float_value(&part, data + part.size, out);
		span_close(out);
		break;
	}
	case DW_TYPE_INT:
		if (t->size == 16) {
			char buf[48];

			render_int128(data, t->is_signed, buf);
			span_dataf(out, SPAN_NUMBER, "%s", buf);
		} else {
			integer(v, t->is_signed, (unsigned)(8 * (t->size > 8 ? 8 : t->size)), out);
		}
		break;
	default:
		span_null(out, SPAN_LITERAL);
	}
}

static void bitfield(const struct dw_member *mb, const uint8_t *data, struct span_list *out)
{
	uint64_t v = render_read_uint(data + mb->offset, mb->type->size) >> mb->bit_offset;

	v &= mb->bit_size >= 64 ? ~0ull : (1ull << mb->bit_size) - 1;
	integer(v, mb->type->is_signed, mb->bit_size, out);
}

/* The value of member @mb of the struct at @data (null when it is not
 * within @len bytes or its bits were not kept). */
static void member_value(const struct dw_member *mb, const uint8_t *data, const struct place *p, size_t len,
			 int depth, struct span_list *out)
{
	struct place q = inside(p, mb->offset);

	if (mb->offset > len || (mb->offset == len && !dw_type_is_flexible(mb->type)) ||
	    mb->type->size > len - mb->offset)
		span_null(out, SPAN_LITERAL); /* a flexible array member: at the end */
	else if (mb->bit_size && render_bits_gone(p->gone, mb->offset * 8 + mb->bit_offset, mb->bit_size, false))
		span_null(out, SPAN_LITERAL);
	else if (mb->bit_size)
		bitfield(mb, data, out);
	else
		typed(mb->type, data + mb->offset, &q, len - mb->offset, depth + 1, out);
}

static const char *tag_less(const char *name)
{
	if (!strncmp(name, "struct ", 7))
		return name + 7;
	if (!strncmp(name, "class ", 6))
		return name + 6;
	if (!strncmp(name, "union ", 6))
		return name + 6;
	return name;
}

static bool is_base(const struct dw_member *mb)
{
	return mb->name && !strcmp(mb->name, "<base>");
}

/* The members of @t as keys of the object being written: a base class
 * under "<Base>", an anonymous struct or union's members in line. */
static void member_keys(const struct dw_type *t, const uint8_t *data, const struct place *p,
			size_t len, int depth, struct span_list *out)
{
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];
		struct place q = inside(p, mb->offset);
		bool fits = mb->offset < len && mb->type->size <= len - mb->offset;

		if (!mb->name && fits && !mb->bit_size && depth < MAX_DEPTH &&
		    (mb->type->kind == DW_TYPE_STRUCT || mb->type->kind == DW_TYPE_UNION)) {
			member_keys(mb->type, data + mb->offset, &q, len - mb->offset, depth + 1, out);
			continue;
		}
		if (is_base(mb) && dw_std_is_pair(t))
			continue; /* gdb's printer: first and second alone */
		if (is_base(mb)) {
			struct strbuf key = STRBUF_INIT;

			strbuf_addf(&key, "<%s>", mb->type->name ? tag_less(mb->type->name) : "base");
			span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, key.buf);
			strbuf_release(&key);
		} else {
			span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, mb->name ? mb->name : "<anonymous>");
		}
		if (mb->is_virtual)
			span_null(out, SPAN_LITERAL); /* its place is in the vtable, not here */
		else
			member_value(mb, data, p, len, depth, out);
	}
}

static void members(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len,
		    int depth, struct span_list *out)
{
	span_open(out, SPAN_OBJECT);
	member_keys(t, data, p, len, depth, out);
	span_close(out);
}

/* A flexible array member: a char one's string, else its address, as a
 * char pointer shows (the text shows both); null when neither is known. */
static void flexible(const struct dw_type *t, const struct place *p, struct span_list *out)
{
	for (size_t i = 0; i < p->n_attach; i++) {
		const struct ev_arg *s = &p->attach[i];

		if (s->kind != WR_ARG_ATTACH || s->aux != p->at)
			continue;
		if (t->is_char && s->status != WR_ARG_OK && s->status != WR_ARG_TRUNCATED)
			span_null(out, SPAN_LITERAL);
		else if (t->is_char)
			span_datan(out, SPAN_STRING, (const char *)s->data,
				   s->data ? strnlen((const char *)s->data, s->len) : 0);
		else
			span_dataf(out, SPAN_STRING, "0x%" PRIx64, s->value);
		return;
	}
	if (p->base && p->base < WR_WALK_LOCAL)
		span_dataf(out, SPAN_STRING, "0x%" PRIx64, p->base + p->at);
	else
		span_null(out, SPAN_LITERAL);
}

static void elements(const struct dw_type *t, const uint8_t *data, const struct place *p,
		     size_t len, int depth, struct span_list *out)
{
	const struct dw_type *e = t->target;
	size_t n = t->count < len ? (size_t)t->count : len;

	if (dw_type_is_vla(t)) {
		span_null(out, SPAN_LITERAL); /* its length was not read */
		return;
	}
	if (dw_type_is_flexible(t)) {
		flexible(t, p, out);
		return;
	}

	if (e->is_char && e->size == 1 && !render_bits_gone(p->gone, 0, n * 8, false)) {
		span_datan(out, SPAN_STRING, (const char *)data, n);
		return;
	}
	if (e->char_prefix && e->kind == DW_TYPE_INT && !render_bits_gone(p->gone, 0, n * 8, false)) {
		wide_string(data, n / e->size < t->count ? n / e->size : t->count, (unsigned)e->size, false, out);
		return;
	}
	span_open(out, SPAN_ARRAY);
	for (size_t i = 0; e->size && i < n && (i + 1) * e->size <= len; i++) {
		struct place q = inside(p, i * e->size);

		typed(e, data + i * e->size, &q, len - i * e->size, depth + 1, out);
	}
	span_close(out);
}

/* Rust: a tuple's or tuple struct's fields as an array; an enum with
 * data as serde writes one: a unit variant as its name, else an object
 * with one key, the variant's name, for its field (one), fields (an
 * array) or named fields (an object). */
static void rust_tuple(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len,
		       int depth, struct span_list *out)
{
	span_open(out, SPAN_ARRAY);
	for (size_t i = 0; i < t->n_members; i++)
		member_value(&t->members[i], data, p, len, depth, out);
	span_close(out);
}

static void rust_enum(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len,
		      int depth, struct span_list *out)
{
	const struct dw_variant *v = dw_type_variant(t, data, len);
	const struct dw_type *f = v ? v->type : NULL;
	struct place q;

	/* a discriminant with a byte not kept would name a guessed variant */
	if (!v || v->offset >= len ||
	    (p->gone && render_bits_gone(p->gone, t->discr_offset * 8, t->discr_size * 8, false))) {
		span_null(out, SPAN_LITERAL);
		return;
	}
	if (!f->n_members) {
		span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, v->name ? v->name : "?");
		return;
	}
	span_open(out, SPAN_OBJECT);
	span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, v->name ? v->name : "?");
	q = inside(p, v->offset);
	data += v->offset;
	len -= v->offset;
	if (f->n_members == 1 && dw_type_is_tuple(f))
		member_value(&f->members[0], data, &q, len, depth, out);
	else if (dw_type_is_tuple(f))
		rust_tuple(f, data, &q, len, depth + 1, out);
	else
		members(f, data, &q, len, depth + 1, out);
	span_close(out);
}

/* As the text does (value.c): null for a scalar with a bit not kept, or
 * for the whole value (@depth 0) when none of its bits were. */
static bool not_kept(const struct dw_type *t, const uint8_t *gone, size_t len, int depth)
{
	size_t size = t->size < len ? (size_t)t->size : len;
	bool aggregate = t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION || t->kind == DW_TYPE_ARRAY;

	if (!gone || !size)
		return false;
	if (depth == 0 && render_bits_gone(gone, 0, size * 8, true))
		return true;
	return !aggregate && render_bits_gone(gone, 0, size * 8, false);
}

/* One of the C++ library's, in its JSON shape (container.c). */
static bool library_value(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len,
			  int depth, struct span_list *out)
{
	struct dw_std s;

	/* a part its printer reads not kept (a &str's data pointer): its
	 * members show which */
	if (!p->snap || t->kind != DW_TYPE_STRUCT || t->size > len || !dw_std_recognize(t, &s) ||
	    !render_std_kept(&s, data, t->size, p->gone, 0))
		return false;
	render_container_data(p->snap, &s, data, len, p->base + p->at, p->lim, depth, out);
	return true;
}

/* Rust's NonZero<T>: its number, as the text shows it. */
static bool nonzero(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len, int depth,
		    struct span_list *out)
{
	uint64_t off;
	const struct dw_type *in = dw_std_nonzero(t, &off);
	struct place q;

	if (!in || off + in->size > len)
		return false;
	q = inside(p, off);
	typed(in, data + off, &q, len - off, depth + 1, out);
	return true;
}

static void typed(const struct dw_type *t, const uint8_t *data, const struct place *p, size_t len,
		  int depth, struct span_list *out)
{
	if (depth > MAX_DEPTH || not_kept(t, p->gone, len, depth))
		span_null(out, SPAN_LITERAL);
	else if (library_value(t, data, p, len, depth, out))
		;
	else if (nonzero(t, data, p, len, depth, out))
		;
	else if (t->n_variants)
		rust_enum(t, data, p, len, depth, out);
	else if (dw_type_is_tuple(t))
		rust_tuple(t, data, p, len, depth, out);
	else if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION)
		members(t, data, p, len, depth, out);
	else if (t->kind == DW_TYPE_ARRAY && t->target)
		elements(t, data, p, len, depth, out);
	else if (t->size && t->size <= len)
		scalar(t, data, p, out);
	else
		span_null(out, SPAN_LITERAL);
}

void render_value_data(const struct dw_type *t, const uint8_t *data, size_t len,
		       struct span_list *out)
{
	struct place p = { 0 };

	typed(t, data, &p, len, 0, out);
}

void render_value_data_at(const struct render_snap *snap, const struct dw_type *t, uint64_t addr,
			  const struct render_limits *lim, int depth, struct span_list *out)
{
	struct place p = { .snap = snap, .base = addr, .lim = lim };
	bool failed;
	const uint8_t *data = render_snap_find(snap, addr, t->size, &failed);

	if (!data)
		span_null(out, SPAN_LITERAL);
	else
		typed(t, data, &p, t->size, depth + 1, out);
}

/* ---- print arguments ---- */

/* What a value without a DWARF type is, from the kind the probe sent. */
static const char *kind_type(unsigned kind)
{
	switch (kind) {
	case WR_ARG_U64:
	case WR_ARG_HEX: return "unsigned long";
	case WR_ARG_BOOL: return "bool";
	case WR_ARG_STR: return "string";
	case WR_ARG_CHAR: return "char";
	case WR_ARG_PTR: return "void *";
	case WR_ARG_BYTES:
	case WR_ARG_PIECES:
	case WR_ARG_DUMP: return "bytes";
	case WR_ARG_CSTR: return "char *";
	default: return "long";
	}
}

/* Why there is no value, as doc/script-reference.md names it; NULL when
 * there is one, or when it is a NULL string pointer (a value: null). */
static const char *arg_error(const struct ev_arg *a)
{
	switch (a->status) {
	case WR_ARG_OK: return NULL;
	case WR_ARG_NULL_DEREF:
		return a->kind == WR_ARG_STR || a->kind == WR_ARG_CSTR ? NULL : "null-pointer";
	case WR_ARG_READ_ERROR:
	case WR_ARG_POINTEE_ERROR: return "read-error";
	case WR_ARG_TRUNCATED: return "truncated";
	case WR_ARG_OFFSETS_UNAVAILABLE: return "offsets-unavailable";
	case WR_ARG_OPTIMIZED_OUT: return "optimized-out";
	case WR_ARG_INDEX_RANGE: return "index-out-of-range";
	case WR_ARG_TLS_UNALLOCATED: return "tls-unallocated";
	case WR_ARG_SYNTHETIC_POINTER: return "synthetic-pointer";
	case WR_ARG_UNREADABLE: return "unreadable-at-site";
	case WR_ARG_NO_DEBUG_INFO: return "no-debug-info";
	case WR_ARG_UNAVAILABLE: return "unavailable";
	case WR_ARG_VARIABLE_LENGTH: return "variable-length";
	case WR_ARG_TOO_LARGE: return "too-large";
	default: return "unknown";
	}
}

static void untyped(const struct ev_arg *a, struct span_list *out)
{
	switch (a->kind) {
	case WR_ARG_BOOL:
		span_add(out, SPAN_LITERAL, SPAN_TONE_NONE, NULL, a->value ? "true" : "false");
		break;
	case WR_ARG_U64:
	case WR_ARG_HEX:
		integer(a->value, false, 64, out);
		break;
	case WR_ARG_PTR:
		if (a->value)
			span_dataf(out, SPAN_STRING, "0x%" PRIx64, a->value);
		else
			span_null(out, SPAN_LITERAL);
		break;
	case WR_ARG_CHAR:
		integer(a->value, true, 8, out);
		break;
	default:
		integer(a->value, true, 64, out);
	}
}

/* A value that came with copies of the memory its containers hold: from
 * its own whole copy, its containers through the others. */
static void walked_value(const struct ev_arg *a, const struct dw_type *t, const struct render_limits *lim,
			 struct span_list *out)
{
	struct render_snap *snap = render_snap_new(a);
	const struct ev_arg *root = render_snap_root(snap);
	/* a value assembled from pieces was walked at WR_WALK_LOCAL */
	bool local = !root && snap && a->kind == WR_ARG_PIECES;
	struct place p = { .attach = a->attach, .n_attach = a->n_attach, .snap = root || local ? snap : NULL,
			   .base = root ? root->value : local ? WR_WALK_LOCAL : 0,
			   .gone = a->kind == WR_ARG_PIECES ? a->unavail : NULL, .lim = lim };

	typed(t, root ? root->data : a->data, &p, root ? root->len : a->len, 0, out);
	render_snap_free(snap);
}

/* A char pointer whose string runs into a page that could not be read:
 * the characters before that page, as the text shows them, {"head":
 * "...", "unreadable_at": "0x..."} (as a std::string's); false when no
 * character was read (null then). */
static bool torn_head(const struct ev_arg *a, const struct dw_type *t, struct span_list *out)
{
	const struct dw_type *e = t && t->kind == DW_TYPE_POINTER ? t->target : NULL;
	unsigned width = e && e->char_prefix && (e->size == 2 || e->size == 4) ? (unsigned)e->size : 1;
	size_t n = 0, units = a->data ? a->len / width : 0;
	struct strbuf sb = STRBUF_INIT;

	while (n < units && render_read_uint(a->data + n * width, width))
		n++;
	if (!n || n != units) /* none read, or a NUL: not a head */
		return false;
	render_units_utf8(a->data, n, width, false, &sb);
	span_open(out, SPAN_OBJECT);
	span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "head");
	span_datan(out, SPAN_STRING, sb.buf ? sb.buf : "", sb.len);
	span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "unreadable_at");
	span_dataf(out, SPAN_STRING, "0x%" PRIx64, a->value + (uint64_t)n * width);
	span_close(out);
	strbuf_release(&sb);
	return true;
}

static void arg_value(const struct ev_arg *a, const struct dw_type *t, enum ast_fmt_spec spec,
		      const struct render_limits *lim, struct span_list *out)
{
	uint8_t word[8];

	if (a->kind == WR_ARG_CSTR && (a->status == WR_ARG_POINTEE_ERROR || a->status == WR_ARG_READ_ERROR) &&
	    torn_head(a, t, out)) {
		;
	} else if (a->status != WR_ARG_OK) {
		span_null(out, SPAN_LITERAL);
	} else if (a->kind == WR_ARG_STR || a->kind == WR_ARG_CSTR) {
		/* A char pointer is its string, as the schema has it; a NULL
		 * one is null. */
		if (a->kind == WR_ARG_CSTR && !a->value)
			span_null(out, SPAN_LITERAL);
		else if (t && dw_type_is_flexible(t) && !t->is_char)
			span_dataf(out, SPAN_STRING, "0x%" PRIx64, a->value); /* its address */
		else if (a->kind == WR_ARG_CSTR && (a->aux & WR_ARG_AUX_WIDE))
			wide_pointed(a, t && t->target ? t->target : NULL, out);
		else
			span_datan(out, SPAN_STRING, (const char *)a->data, a->len);
	} else if (a->kind == WR_ARG_DUMP && spec == AST_FMT_STR) {
		/* {:s.N}: text, as the text output shows it */
		const void *nul = memchr(a->data, '\0', a->len);

		span_datan(out, SPAN_STRING, (const char *)a->data,
			   nul ? (size_t)((const uint8_t *)nul - a->data) : a->len);
	} else if (a->kind == WR_ARG_DUMP) {
		span_open(out, SPAN_ARRAY);
		for (size_t i = 0; i < a->len; i++)
			span_dataf(out, SPAN_NUMBER, "%u", a->data[i]);
		span_close(out);
	} else if ((a->kind == WR_ARG_BYTES || a->kind == WR_ARG_PIECES) && t && a->n_attach && spec != AST_FMT_RAW) {
		walked_value(a, t, lim, out);
	} else if (a->kind == WR_ARG_BYTES || a->kind == WR_ARG_PIECES) {
		/* walked nothing: the printers that need only its bytes */
		struct render_snap *self = spec == AST_FMT_RAW ? NULL : render_snap_self(a);
		struct place p = { .gone = a->unavail, .attach = a->attach, .n_attach = a->n_attach, .lim = lim,
				   .snap = self, .base = WR_WALK_LOCAL };

		if (t) {
			typed(t, a->data, &p, a->len, 0, out);
		} else {
			span_open(out, SPAN_ARRAY);
			for (size_t i = 0; i < a->len; i++)
				span_dataf(out, SPAN_NUMBER, "%u", a->data[i]);
			span_close(out);
		}
		render_snap_free(self);
	} else if (t && (a->kind == WR_ARG_ENUM || a->kind == WR_ARG_PTR || a->kind == WR_ARG_CHAR) &&
		   t->size <= sizeof(word)) {
		/* As the text does: the type names a scalar's enumerator or
		 * pointer; a computed integer stays the 64-bit value it is. */
		struct place p = { 0 };

		memcpy(word, &a->value, sizeof(word));
		typed(t, word, &p, sizeof(word), 0, out);
	} else {
		untyped(a, out);
	}
}

void render_arg_data(const struct ev_arg *a, const struct dw_type *t, enum ast_fmt_spec spec,
		     const struct render_limits *lim, struct span_list *out)
{
	const char *why = arg_error(a);

	/* A dump is bytes, whatever the type of the expression it starts at. */
	if (a->kind == WR_ARG_DUMP)
		t = NULL;
	/* a site that could not give the value has no type for it */
	if (!t && (a->status == WR_ARG_UNREADABLE || a->status == WR_ARG_NO_DEBUG_INFO ||
		   a->status == WR_ARG_UNAVAILABLE))
		span_null(out, SPAN_VALUE_TYPE);
	else
		span_add(out, SPAN_VALUE_TYPE, SPAN_TONE_NONE, NULL,
			 t && t->name ? t->name : kind_type(a->kind));
	span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "value");
	/* a C++ reference's value is its referent's; "type" says it is one */
	arg_value(a, t && t->is_reference && t->target ? t->target : t, spec, lim, out);
	if (why)
		span_add(out, SPAN_VALUE_ERROR, SPAN_TONE_NONE, NULL, why);
	else
		span_null(out, SPAN_VALUE_ERROR);
}
