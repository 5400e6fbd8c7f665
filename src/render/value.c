/* value.c - the traced program's values as text, from raw bytes and their
 * DWARF type, with the content gdb's `print` shows: the same digits, names,
 * signs and strings (notes: gdb-values.md).  Only the shape is wraith's
 * own: `{x: 7}` for gdb's `{x = 7}` and `[1, 2]` for an array's `{1, 2}`.
 *
 * - integers by size and signedness; a character as `65 'A'`; _Bool as
 *   true/false;
 * - floating values with the digits that read back as the same value
 *   (9 significant for float, 17 for double, 21 for x87 long double), NaN
 *   with its sign and payload;
 * - enums by enumerator name; an enum whose enumerators are distinct bits
 *   as `(F_A | F_C)`, with `unknown: 0x8` for bits no enumerator names;
 * - functions as `{void (int)} 0x401136 <f>`;
 * - pointers as addresses with `<symbol+offset>` when they point into a
 *   known object, at top level after their type as `(int *) 0x...`; char
 *   pointers with the string they point to;
 * - C++ references as `(int &) @0x7ffe...: 5` (the referent's value came
 *   as the argument, its address attached), inside a value `@0x7ffe...`;
 *   pointers to data members as `&Point::y`, enum class values as
 *   `Color::green`;
 * - char arrays as strings with every byte (NULs escaped), runs of more
 *   than 10 equal elements as `<repeats N times>`, at most 200 elements;
 * - structs and unions member by member, signed bitfields sign-extended,
 *   anonymous members without a name.
 */
#include "dwarf/stdlib.h"
#include "dwarf/types.h"
#include "render/render.h"
#include "render/render_priv.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <wctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 20       /* gdb's `print max-depth` */
#define REPEAT_THRESHOLD 10 /* gdb's `print repeats`: longer runs collapse */

#define MAX_VBASES 8
#define MAX_STATICS_SEEN 32

struct walk {
	const struct render_value_ctx *vc;
	struct render_limits lim; /* render_limits_of(vc) */
	int depth;
	bool top; /* the value stands on its own (not inside another) */
	/* The memory the probe copied with the value (containers), or NULL;
	 * then the address of data[0], and whether it is a container's
	 * element (its char pointers' strings are copies, not attachments). */
	const struct render_snap *snap;
	uint64_t base;
	bool in_elem;
	bool raw; /* {:r}: no printers, the members as they are */
	bool elide; /* a bt's: containers' heads only, their elements {...} */
	/* The C++ virtual base classes shown in the object being shown: gdb
	 * shows each once, where it meets it first; as_base: the struct met
	 * next is a base class of that object, not an object of its own. */
	const struct dw_type *vbases[MAX_VBASES];
	size_t n_vbases;
	bool as_base;
	/* C++ static data members: the probe's copies of them (WR_MEM_F_STATIC;
	 * NULL: none came), and, as gdb keeps them while it prints a value,
	 * the static members of class type (by tag) and the element types of
	 * static arrays shown so far, each shown once, then `<same as static
	 * member of an already seen type>`. */
	const struct render_snap *statics;
	uint64_t seen_statics[MAX_STATICS_SEEN];
	size_t n_seen_statics;
};

static void typed(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
		  struct walk *w, struct strbuf *out);

static uint64_t read_uint(const uint8_t *data, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, data, size > 8 ? 8 : size);
	return v;
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
	unsigned shift = bits >= 64 ? 0 : 64 - bits;

	return bits == 0 ? 0 : (int64_t)(v << shift) >> shift;
}

/* ---- characters and strings ---- */

/* Whether the terminal's character set is UTF-8 (render_set_utf8()):
 * gdb then shows a string's printable non-ASCII characters as
 * themselves, where in the C locale it escapes their bytes. */
static bool host_utf8;

void render_set_utf8(bool on)
{
	host_utf8 = on;
}

/* One character (a unit of a string: a byte, or a wide character's 2
 * or 4 bytes) inside quotes @quote, escaped as gdb escapes it: printable
 * ASCII as itself, else in octal when it fits three digits, else in hex,
 * after which a hex digit is escaped too (*@hex: the unit before was a
 * hex escape). */
static void escaped(uint32_t c, char quote, bool *hex, struct strbuf *out)
{
	static const char from[] = "\a\b\f\n\r\t\v", to[] = "abfnrtv";
	const char *e = c && c < 0x80 ? strchr(from, (int)c) : NULL;
	bool after_hex = *hex;

	*hex = false;
	if (e) {
		strbuf_addf(out, "\\%c", to[e - from]);
	} else if (c >= 0x20 && c < 0x7f && !(after_hex && isxdigit((int)c))) {
		if (c == '\\' || c == (unsigned char)quote)
			strbuf_addch(out, '\\');
		strbuf_addch(out, (char)c);
	} else if (c <= 0777) {
		strbuf_addf(out, "\\%03o", c);
	} else {
		strbuf_addf(out, "\\x%x", c);
		*hex = true;
	}
}

/* Whether code point @c is shown as itself: a printable character past
 * ASCII, in a UTF-8 locale (what is printable is the locale's word). */
static bool shown_as_itself(uint32_t c)
{
	return host_utf8 && c >= 0x80 && c <= 0x10ffff && !(c >= 0xd800 && c < 0xe000) &&
	       iswprint((wint_t)c);
}

/* Character @c in quotes: as itself when @itself (shown_as_itself()). */
static void char_literal(uint32_t c, const char *prefix, bool itself, bool *hex, struct strbuf *out)
{
	strbuf_addf(out, "%s'", prefix ? prefix : "");
	if (itself) {
		strbuf_add_utf8(out, c);
		*hex = false;
	} else {
		escaped(c, '\'', hex, out);
	}
	strbuf_addch(out, '\'');
}

/* Unit @i of text @s of @width-byte units. */
static uint32_t unit_at(const uint8_t *s, size_t i, unsigned width)
{
	uint32_t u = 0;

	memcpy(&u, s + i * width, width > 4 ? 4 : width);
	return width == 1 ? (uint8_t)u : width == 2 ? (uint16_t)u : u;
}

/* The code point of the UTF-8 sequence at @s (@n bytes there), its
 * length in *@len; 0 when the bytes are not one (a stray or missing
 * continuation byte, an overlong form, a surrogate, past U+10FFFF). */
static uint32_t utf8_at(const uint8_t *s, size_t n, size_t *len)
{
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t k = s[0] >= 0xf0 && s[0] < 0xf8 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	uint32_t c;

	if (!k || k > n || s[0] >= 0xf8)
		return 0;
	c = s[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < least[k] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	*len = k;
	return c;
}

/* Whether the @n bytes at @s are the start of a UTF-8 sequence that the
 * text ends in (gdb's "incomplete sequence"), as glibc's iconv, which gdb
 * converts with, judges it: by the lead byte alone, its old 5- and 6-byte
 * forms (\370-\375) included, \300 and \301 (never a lead) and
 * \376, \377 not. */
static bool utf8_cut(const uint8_t *s, size_t n)
{
	size_t k = s[0] >= 0xfc ? 6 : s[0] >= 0xf8 ? 5 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (!k || n >= k || s[0] >= 0xfe)
		return false;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/* The character at unit @i of @n: its code point in *@c and the units
 * it takes; *@itself: shown as itself (a printable character in a UTF-8
 * locale, from a UTF-8 sequence or a UTF-16 surrogate pair), else *@c is
 * the unit, escaped. */
static size_t char_at(const uint8_t *s, size_t n, size_t i, unsigned width, uint32_t *c, bool *itself)
{
	size_t len = 1;
	uint32_t u = unit_at(s, i, width), lo, cp = u;

	*c = u;
	*itself = false;
	if (!host_utf8 || u < 0x80)
		return 1;
	if (width == 1) {
		cp = utf8_at(s + i, n - i, &len);
	} else if (width == 2 && u >= 0xd800 && u < 0xdc00 && i + 1 < n &&
		   (lo = unit_at(s, i + 1, width)) >= 0xdc00 && lo < 0xe000) {
		cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		len = 2;
	}
	if (!shown_as_itself(cp))
		return 1;
	*c = cp;
	*itself = true;
	return len;
}

/* @n units of @width bytes at @s as gdb shows a string (render_text()),
 * after the literal's @prefix (NULL: none; once, before all). */
static void units_text(const uint8_t *s, size_t n, unsigned width, const char *prefix, bool more,
		       struct strbuf *out)
{
	bool quoted = false, any = false, hex = false;

	strbuf_addstr(out, prefix ? prefix : "");
	for (size_t i = 0; i < n;) {
		uint32_t c, c2;
		bool itself, itself2;
		size_t len, run = 1;

		if (host_utf8 && width == 1 && utf8_cut(s + i, n - i)) {
			strbuf_addstr(out, quoted ? "\", " : any ? ", " : "");
			strbuf_addstr(out, "<incomplete sequence ");
			for (; i < n; i++)
				strbuf_addf(out, "\\%03o", s[i]);
			strbuf_addch(out, '>');
			quoted = false;
			any = true;
			break;
		}
		len = char_at(s, n, i, width, &c, &itself);

		while (i + run * len < n && char_at(s, n, i + run * len, width, &c2, &itself2) == len &&
		       c2 == c && itself2 == itself)
			run++;
		if (run > REPEAT_THRESHOLD) {
			strbuf_addstr(out, quoted ? "\", " : any ? ", " : "");
			char_literal(c, NULL, itself, &hex, out);
			strbuf_addf(out, " <repeats %zu times>", run);
			quoted = false;
		} else {
			if (!quoted)
				strbuf_addstr(out, any ? ", \"" : "\"");
			for (size_t k = 0; k < run; k++) {
				if (itself) {
					strbuf_add_utf8(out, c);
					hex = false;
				} else {
					escaped(c, '"', &hex, out);
				}
			}
			quoted = true;
		}
		any = true;
		i += run * len;
	}
	if (quoted)
		strbuf_addch(out, '"');
	if (!any)
		strbuf_addstr(out, "\"\"");
	if (more)
		strbuf_addstr(out, "...");
}

void render_units(const uint8_t *s, size_t n, unsigned width, const char *prefix, bool more,
		  struct strbuf *out)
{
	units_text(s, n, width, prefix, more, out);
}

void render_text(const uint8_t *s, size_t n, bool more, struct strbuf *out)
{
	units_text(s, n, 1, NULL, more, out);
}

/* ---- scalars ---- */

static void float_text(const struct dw_type *t, const uint8_t *data, struct strbuf *out)
{
	char buf[RENDER_FLOAT_MAX];

	render_float(t, data, buf, sizeof(buf));
	strbuf_addstr(out, buf);
}

static void decimal_text(const struct dw_type *t, const uint8_t *data, struct strbuf *out)
{
	char buf[RENDER_FLOAT_MAX];

	render_decimal(t, data, buf, sizeof(buf));
	strbuf_addstr(out, buf);
}

/* gdb's "1.5 + -2i": the real part, then the imaginary one. */
static void complex_text(const struct dw_type *t, const uint8_t *data, struct strbuf *out)
{
	struct dw_type part;

	render_complex_part(t, &part);
	float_text(&part, data, out);
	strbuf_addstr(out, " + ");
	float_text(&part, data + part.size, out);
	strbuf_addch(out, 'i');
}

/* gdb shows an enum whose enumerators are 0 or single distinct bits as a
 * set of flags. */
static bool is_flag_enum(const struct dw_type *t)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < t->n_enumerators; i++) {
		uint64_t v = (uint64_t)t->enumerators[i].value;

		if (t->enumerators[i].value < 0 || (v & (v - 1)) || (mask & v))
			return false;
		mask |= v;
	}
	return true; /* no enumerators at all (std::byte): gdb too says "(unknown: 0xf0)" */
}

/* Enumerator @i of @t as gdb names it: scoped by the enum class
 * (Color::green), else by the scopes of a C++ enum
 * (Plan::kEdgeSucceeded), else bare. */
static void enumerator_name(const struct dw_type *t, size_t i, struct strbuf *out)
{
	if (t->scoped)
		strbuf_addf(out, "%s::", strncmp(t->name, "enum ", 5) ? t->name : t->name + 5);
	else if (t->enum_scope)
		strbuf_addstr(out, t->enum_scope);
	strbuf_addstr(out, t->enumerators[i].name);
}

static void enum_flags(const struct dw_type *t, uint64_t v, struct strbuf *out)
{
	bool first = true;

	for (size_t i = 0; i < t->n_enumerators && v; i++) {
		uint64_t bit = (uint64_t)t->enumerators[i].value;

		if (!(v & bit))
			continue;
		strbuf_addstr(out, first ? "(" : " | ");
		enumerator_name(t, i, out);
		v &= ~bit;
		first = false;
	}
	if (v)
		strbuf_addf(out, "%sunknown: 0x%" PRIx64 ")", first ? "(" : " | ", v);
	else
		strbuf_addstr(out, first ? "0" : ")");
}

/* Enumerator values compare at the enum's width: DWARF may give an
 * unsigned enumerator (4000000000U) as a negative number. */
static void enum_text(const struct dw_type *t, uint64_t raw, struct strbuf *out)
{
	unsigned bits = t->size && t->size < 8 ? (unsigned)t->size * 8 : 64;
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	for (size_t i = 0; i < t->n_enumerators; i++) {
		if (((uint64_t)t->enumerators[i].value & mask) == (raw & mask)) {
			enumerator_name(t, i, out);
			return;
		}
	}
	if (is_flag_enum(t))
		enum_flags(t, raw & mask, out);
	else if (t->is_signed)
		strbuf_addf(out, "%" PRId64, sign_extend(raw, bits));
	else
		strbuf_addf(out, "%" PRIu64, raw & mask);
}

void render_int128(const uint8_t *data, bool is_signed, char buf[48])
{
	unsigned __int128 v;
	char digits[48];
	size_t n = 0, k = 0;
	bool neg;

	memcpy(&v, data, sizeof(v));
	neg = is_signed && (v >> 127);
	if (neg)
		v = -v; /* the magnitude, also of the least value */
	do {
		digits[n++] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v);
	if (neg)
		buf[k++] = '-';
	while (n)
		buf[k++] = digits[--n];
	buf[k] = '\0';
}

/* An integer value @raw of @bits bits (a bitfield, or the type's size). */
static void integer_text(const struct dw_type *t, uint64_t raw, unsigned bits, struct strbuf *out)
{
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	if (t->kind == DW_TYPE_ENUM) {
		raw &= mask; /* a bitfield's neighbours are not its value */
		enum_text(t, t->is_signed ? (uint64_t)sign_extend(raw, bits) : raw, out);
	} else if (t->kind == DW_TYPE_BOOL && (raw & mask) <= 1) {
		strbuf_addstr(out, raw & mask ? "true" : "false");
	} else {
		/* the character shown beside the number is the value's, sign
		 * extended as gdb does: a 4-bit -1 is '\377', not '\017' */
		uint64_t v = t->is_signed ? (uint64_t)sign_extend(raw, bits) : raw & mask;

		if (t->is_signed)
			strbuf_addf(out, "%" PRId64, (int64_t)v);
		else
			strbuf_addf(out, "%" PRIu64, v);
		if (t->is_char && t->size == 1 && t->kind == DW_TYPE_INT) {
			strbuf_addch(out, ' ');
			char_literal((unsigned char)v, NULL, false, &(bool){ false }, out);
		} else if (t->char_prefix && bits == t->size * 8) {
			strbuf_addch(out, ' ');
			char_literal((uint32_t)(raw & mask), t->char_prefix, shown_as_itself((uint32_t)(raw & mask)),
				     &(bool){ false }, out);
		}
	}
}

static void int128_text(const struct dw_type *t, const uint8_t *data, struct strbuf *out)
{
	char buf[48];

	render_int128(data, t->is_signed, buf);
	strbuf_addstr(out, buf);
}

/* ---- pointers ---- */

static const char *strip_qualifiers(const char *name)
{
	for (;;) {
		if (!strncmp(name, "const ", 6))
			name += 6;
		else if (!strncmp(name, "volatile ", 9))
			name += 9;
		else
			return name;
	}
}

/* gdb leaves the type out before a plain `char *` (a string shows what it
 * is); a typedef of one keeps it. */
static bool shows_type(const struct dw_type *t)
{
	return !dw_type_is_flexible(t) &&
	       !(strchr(t->name, '*') && t->target &&
		 (!strcmp(strip_qualifiers(t->target->name), "char") || t->target->char_prefix));
}

static const struct ev_arg *attachment(const struct render_value_ctx *vc, size_t at)
{
	for (size_t i = 0; vc && i < vc->n_attach; i++)
		if ((vc->attach[i].kind == WR_ARG_ATTACH || vc->attach[i].kind == WR_ARG_CSTR) &&
		    (vc->attach[i].aux & ~WR_ARG_AUX_WIDE) == at)
			return &vc->attach[i];
	return NULL;
}

/* Whether the read of char string @s (@n characters before its NUL)
 * filled its buffer: bpf_probe_read_user_str ends what it cuts with a
 * NUL, so a string that fills it may go on past it (`...`, never a
 * silent cut).  The buffer is WR_ARG_STR_MAX bytes for a print
 * argument, WR_ARG_ATTACH_STR for a member's string, @max + 1 (at most
 * WR_ARG_STR_MAX) for a container element's copy. */
static bool read_full(const struct ev_arg *s, size_t n, size_t max)
{
	size_t room = s->kind == WR_ARG_CSTR	 ? WR_ARG_STR_MAX
		      : s->kind == WR_ARG_ATTACH ? WR_ARG_ATTACH_STR
						 : (max < WR_ARG_STR_MAX - 1 ? max : WR_ARG_STR_MAX - 1) + 1;

	return n + 1 == s->len && s->len == room;
}

/* The string a char pointer points to, as read at run time; a wide
 * one's (@e: its characters' type) up to its first NUL character, which
 * the probe does not look for; one whose read failed, its readable head
 * (the characters before the page that could not be read) and the
 * error, as gdb shows it. */
static void pointed_text(const struct ev_arg *s, const struct dw_type *e, size_t max, struct strbuf *out)
{
	unsigned width = e && e->char_prefix ? (unsigned)e->size : 1;
	size_t n = 0, units = s->data ? s->len / width : 0;

	while (n < units && unit_at(s->data, n, width))
		n++;
	if (s->status == WR_ARG_OK || s->status == WR_ARG_TRUNCATED) {
		strbuf_addch(out, ' ');
		units_text(s->data, n > max ? max : n, width, width > 1 ? e->char_prefix : NULL,
			   n >= units || n > max || (width == 1 && read_full(s, n, max)), out);
	} else if ((s->status == WR_ARG_POINTEE_ERROR || s->status == WR_ARG_READ_ERROR) && n && n == units) {
		/* its head, up to the page that could not be read: gdb's
		 * "head"<error: Cannot access memory at address 0x...> */
		strbuf_addch(out, ' ');
		units_text(s->data, n > max ? max : n, width, width > 1 ? e->char_prefix : NULL, n > max, out);
		if (n <= max)
			strbuf_addf(out, "<error: Cannot access memory at address 0x%" PRIx64 ">",
				    s->value + (uint64_t)n * width);
	} else if (s->status == WR_ARG_POINTEE_ERROR) {
		strbuf_addf(out, " <error: Cannot access memory at address 0x%" PRIx64 ">", s->value);
	}
}

void render_pointer(const struct dw_type *t, uint64_t v, const struct ev_arg *text, bool top,
		    const struct render_value_ctx *vc, struct strbuf *out)
{
	if (top && shows_type(t))
		strbuf_addf(out, "(%s) ", t->name);
	strbuf_addf(out, "0x%" PRIx64, v);
	if (v && vc && vc->symbol)
		vc->symbol(vc->ctx, v, out);
	/* an array's string: of chars, not of char arrays (char [][4]) */
	if (v && text && !(t->kind == DW_TYPE_ARRAY && (!t->is_char || t->target->kind == DW_TYPE_ARRAY)))
		pointed_text(text, t->target, render_limits_of(vc).elements, out);
	else if (v && !text && vc && vc->not_copied && t->kind == DW_TYPE_POINTER && t->target && t->target->is_char)
		strbuf_addf(out, " %s", vc->not_copied);
}

/* ---- C++ references and pointers to members ---- */

/* A C++ base class as gdb names it: without "struct " or "union ". */
static const char *tag_less(const char *name)
{
	if (!strncmp(name, "struct ", 7))
		return name + 7;
	if (!strncmp(name, "union ", 6))
		return name + 6;
	return name;
}


/* A reference without its referent (inside an aggregate): `@0x7ffe...`;
 * the referent follows as `: 5` where it was read (render_arg). */
static void reference_text(uint64_t v, bool top, const struct dw_type *t, struct strbuf *out)
{
	if (top)
		strbuf_addf(out, "(%s) ", t->name);
	strbuf_addf(out, "@0x%" PRIx64, v);
}

/* gdb's `&Point::y` for a pointer to a data member (its value is the
 * member's offset); a pointer to a member function shows its type and
 * function, as a function pointer does at top level, wherever it is. */
static void member_pointer_text(const struct dw_type *t, const uint8_t *data,
				const struct render_value_ctx *vc, struct strbuf *out)
{
	const struct dw_type *k = t->container;
	int64_t off = (int64_t)read_uint(data, 8);

	if (t->target && t->target->kind == DW_TYPE_FUNCTION) {
		render_pointer(t, (uint64_t)off, NULL, true, vc, out);
		return;
	}
	for (size_t i = 0; k && i < k->n_members; i++) {
		const struct dw_member *mb = &k->members[i];

		if (mb->name && strcmp(mb->name, "<base>") && !mb->bit_size && (int64_t)mb->offset == off) {
			strbuf_addf(out, "&%s::%s", tag_less(k->name), mb->name);
			return;
		}
	}
	strbuf_addf(out, "%" PRId64, off);
}

/* ---- aggregates ---- */

struct render_limits render_limits_of(const struct render_value_ctx *vc)
{
	return vc && vc->limits ? *vc->limits : RENDER_LIMITS_GDB;
}

bool render_bits_gone(const uint8_t *mask, size_t bit, size_t n, bool all)
{
	if (!mask || !n)
		return false;
	for (size_t i = bit; i < bit + n; i++)
		if (((mask[i / 8] >> (i % 8)) & 1) != all)
			return !all;
	return all;
}

/* gdb's <optimized out> for a value the probe assembled from pieces
 * (WR_ARG_PIECES): a scalar with a bit not kept, or the whole value when
 * none of its bits were.  A struct or array inside it shows its members
 * or elements one by one, kept or not, as gdb does. */
static bool not_kept(const struct walk *w, const struct dw_type *t, size_t len, size_t at)
{
	const uint8_t *m = w->vc ? w->vc->unavail : NULL;
	size_t size = t->size < len ? (size_t)t->size : len;

	if (t->container && size > 8)
		size = 8; /* a member function pointer shows its function, not its adjustment */
	if (!m || !size)
		return false;
	if (w->depth == 1 && render_bits_gone(m, at * 8, size * 8, true))
		return true;
	return t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION && t->kind != DW_TYPE_ARRAY &&
	       render_bits_gone(m, at * 8, size * 8, false);
}

/* Elements at @a and @b (@size bytes) were kept alike, so one may stand
 * for a run of both. */
static bool kept_alike(const struct walk *w, size_t a, size_t b, size_t size)
{
	const uint8_t *m = w->vc ? w->vc->unavail : NULL;

	return !m || !memcmp(m + a, m + b, size);
}

static void bitfield(const struct dw_member *mb, const uint8_t *data, size_t len, struct strbuf *out)
{
	size_t bytes = (mb->bit_offset + mb->bit_size + 7) / 8;
	uint64_t v;

	if (mb->offset + bytes > len) {
		strbuf_addstr(out, "<unavailable>");
		return;
	}
	v = read_uint(data + mb->offset, bytes > 8 ? 8 : bytes) >> mb->bit_offset;
	integer_text(mb->type, v, mb->bit_size, out);
}

/* Whether member @mb lies past the @len bytes held of its struct.  A
 * member without bytes (Rust's PhantomData, alloc::alloc::Global) is
 * never missing, even at the struct's very end. */
static bool member_missing(const struct dw_member *mb, size_t len)
{
	return mb->type->size && (mb->offset >= len || mb->offset + mb->type->size > len);
}

/* Whether virtual base class @t was shown already in the object being
 * shown; marks it shown. */
static bool vbase_seen(struct walk *w, const struct dw_type *t)
{
	for (size_t i = 0; i < w->n_vbases; i++)
		if (w->vbases[i] == t)
			return true;
	if (w->n_vbases < MAX_VBASES)
		w->vbases[w->n_vbases++] = t;
	return false;
}

/* Virtual base @mb of the aggregate at @data: where its vtable (the
 * aggregate's first 8 bytes point into it) says it lies. */
static void virtual_base(const struct dw_member *mb, const uint8_t *data, size_t len, size_t at,
			 struct walk *w, struct strbuf *out)
{
	int64_t off;

	if (!mb->vbase_slot || len < 8 || !w->vc || !w->vc->vtable ||
	    w->vc->vtable(w->vc->ctx, read_uint(data, 8) - mb->vbase_slot, &off, sizeof(off)) != sizeof(off) ||
	    off < 0 || (uint64_t)off >= len || mb->type->size > len - (uint64_t)off) {
		strbuf_addstr(out, "<unavailable>");
		return;
	}
	w->as_base = true;
	typed(mb->type, data + off, len - (size_t)off, at + (size_t)off, w, out);
}

/* Whether member @mb lies past the @len bytes copied of its struct: it
 * starts there, or it is not an array or struct whose head can be shown
 * (elements() and members() cut those where the copy ends). */
static bool past_copy(const struct dw_member *mb, size_t len)
{
	const struct dw_type *t = mb->type;

	return member_missing(mb, len) && !mb->bit_size && !mb->is_virtual &&
	       (mb->offset >= len || !(t->kind == DW_TYPE_ARRAY || t->kind == DW_TYPE_STRUCT));
}

static void members_of(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
		       struct walk *w, bool of_static, struct strbuf *out);

/* Whether @key (a static member's tag, a static array's element type) was
 * shown already; else it is from now on. */
static bool static_seen(struct walk *w, uint64_t key)
{
	for (size_t i = 0; i < w->n_seen_statics; i++)
		if (w->seen_statics[i] == key)
			return true;
	if (w->n_seen_statics < MAX_STATICS_SEEN)
		w->seen_statics[w->n_seen_statics++] = key;
	return false;
}

/* The probe's copy of static member @st: its record (NULL: none came). */
static const struct ev_arg *static_copy(const struct walk *w, const struct dw_static *st)
{
	const struct ev_arg *c = render_snap_static(w->statics, dw_static_tag(st));

	return c;
}

/* `static count: 3`, as gdb shows a C++ static data member among the
 * members: read at the hit (or the constant the compiler folded); a
 * member of class type printed member by member (no printer, as gdb),
 * once; <optimized out> when the program has no such variable (declared,
 * never defined), <unavailable> when the probe did not copy it (an outer
 * frame's marker, render_value_ctx.not_copied, when one says why). */
static void static_member(const struct dw_static *st, struct walk *w, struct strbuf *out)
{
	const struct dw_type *t = st->type;
	const struct ev_arg *c = st->has_const ? NULL : static_copy(w, st);
	const uint8_t *data = st->has_const ? st->cval : c && c->status == WR_ARG_OK ? c->data : NULL;
	struct walk sub;
	size_t len = st->has_const ? sizeof(st->cval) : c ? c->len : 0;

	strbuf_addf(out, "static %s: ", st->name);
	if (!t || (!st->has_const && c && c->status == WR_ARG_NULL_DEREF)) {
		strbuf_addstr(out, "<optimized out>");
		return;
	}
	if (t->kind == DW_TYPE_STRUCT && static_seen(w, dw_static_tag(st))) {
		strbuf_addstr(out, "<same as static member of an already seen type>");
		return;
	}
	if (t->kind == DW_TYPE_ARRAY && static_seen(w, (uint64_t)(uintptr_t)t->target)) {
		strbuf_addstr(out, "<same as static member of an already seen type>");
		return;
	}
	if (!data || len < t->size) {
		/* an outer frame's that its chain's recipe did not copy says why */
		strbuf_addstr(out, c && c->status == WR_ARG_READ_ERROR ? "<unreadable>"
				   : !c && w->vc && w->vc->not_copied ? w->vc->not_copied : "<unavailable>");
		return;
	}
	/* a variable of its own: no attachment, piece or copy of the value
	 * it is printed with is its */
	sub = *w;
	sub.vc = &(struct render_value_ctx){ .symbol = w->vc ? w->vc->symbol : NULL,
					     .ctx = w->vc ? w->vc->ctx : NULL,
					     .limits = w->vc ? w->vc->limits : NULL };
	sub.snap = w->statics;
	sub.base = 0;
	sub.in_elem = true; /* a char pointer's string is found by its address */
	sub.top = false;
	if (t->kind == DW_TYPE_STRUCT && !t->rust) {
		sub.depth++;
		members_of(t, data, t->size, 0, &sub, true, out);
	} else {
		typed(t, data, t->size, 0, &sub, out);
	}
	w->n_seen_statics = sub.n_seen_statics;
	memcpy(w->seen_statics, sub.seen_statics, sizeof(w->seen_statics));
}

static void members(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
		    struct walk *w, struct strbuf *out)
{
	members_of(t, data, len, at, w, false, out);
}

/* @of_static: the members of a static member's value, whose statics are
 * marked as seen for the rest of the printed value (gdb pops them only
 * at the end of a value of its own). */
static void members_of(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
		       struct walk *w, bool of_static, struct strbuf *out)
{
	bool pair = !w->raw && dw_std_is_pair(t), first = true, object = !w->as_base;
	size_t seen = w->n_vbases, seen_statics = w->n_seen_statics, k = 0;

	w->as_base = false;
	if (object)
		w->n_vbases = 0;
	strbuf_addch(out, '{');
	for (size_t i = 0; i <= t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];

		for (; k < t->n_statics && t->statics[k].before <= i; k++) {
			if (!first)
				strbuf_addstr(out, ", ");
			first = false;
			static_member(&t->statics[k], w, out);
		}
		if (i == t->n_members)
			break;

		if (pair && mb->name && !strcmp(mb->name, "<base>"))
			continue; /* gdb's printer: first and second alone */
		if (mb->is_virtual && vbase_seen(w, mb->type))
			continue;
		if (past_copy(mb, len)) {
			/* the probe's copy of the value ended (WR_WALK_COPY_MAX,
			 * or the event's room): what a limit cut is `...`, as
			 * gdb's `print elements` cut is (once: a member cut
			 * before it said it) */
			if (out->len < 3 || memcmp(out->buf + out->len - 3, "...", 3))
				strbuf_addstr(out, "...");
			break;
		}
		if (!first)
			strbuf_addstr(out, ", ");
		first = false;
		if (mb->name && !strcmp(mb->name, "<base>"))
			strbuf_addf(out, "<%s>: ", tag_less(mb->type->name));
		else if (mb->name)
			strbuf_addf(out, "%s: ", mb->name);
		if (mb->bit_size && mb->offset + (mb->bit_offset + mb->bit_size + 7) / 8 <= len &&
		    w->vc && render_bits_gone(w->vc->unavail, (at + mb->offset) * 8 + mb->bit_offset,
					      mb->bit_size, false))
			strbuf_addstr(out, "<optimized out>");
		else if (mb->bit_size)
			bitfield(mb, data, len, out);
		else if (mb->is_virtual)
			virtual_base(mb, data, len, at, w, out);
		else { /* an array or struct the copy ends in shows its head */
			w->as_base = mb->name && !strcmp(mb->name, "<base>");
			typed(mb->type, data + mb->offset, len - mb->offset, at + mb->offset, w, out);
		}
	}
	strbuf_addch(out, '}');
	if (object)
		w->n_vbases = seen;
	if (!of_static)
		w->n_seen_statics = seen_statics;
}

/* How many of @s's @n characters (@width-byte units) gdb shows under
 * `print elements` @max: whole runs of one character, until @max
 * characters are behind. */
static size_t text_cut(const uint8_t *s, size_t n, unsigned width, size_t max)
{
	size_t i = 0;

	while (i < n && i < max) {
		size_t run = 1;

		while (i + run < n && unit_at(s, i + run, width) == unit_at(s, i, width))
			run++;
		i += run;
	}
	return i;
}

/* Where the run of equal characters that ends @s's @n starts. */
static size_t last_run_start(const uint8_t *s, size_t n, unsigned width)
{
	size_t k = n - 1;

	while (k && unit_at(s, k - 1, width) == unit_at(s, n - 1, width))
		k--;
	return k;
}

/* A char array (or one of wide characters): every character, less one
 * NUL at the end, as gdb shows it. */
static void char_array(const struct dw_type *t, const uint8_t *data, size_t len, size_t max,
		       struct strbuf *out)
{
	unsigned width = (unsigned)t->target->size;
	size_t n = t->count < len / width ? t->count : len / width, cut;
	bool short_copy = n < t->count;

	if (!short_copy && n && !unit_at(data, n - 1, width))
		n--;
	/* the copy ended inside the array: its last run may go on past it,
	 * and is not counted */
	if (short_copy && n)
		n = last_run_start(data, n, width);
	cut = text_cut(data, n, width, max);
	units_text(data, cut, width, t->target->char_prefix, short_copy || cut < n, out);
}

static void elements(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
		     struct walk *w, struct strbuf *out)
{
	const struct dw_type *e = t->target;
	size_t size = e->size ? e->size : 1, n = t->count, shown = 0;
	const struct ev_arg *flex = dw_type_is_flexible(t) && !w->in_elem ? attachment(w->vc, at) : NULL;

	if (dw_type_is_vla(t)) {
		strbuf_addstr(out, RENDER_VLA_MARKER);
		return;
	}
	if (flex && flex->kind == WR_ARG_ATTACH) { /* a flexible array member */
		render_pointer(t, flex->value, flex, false, w->vc, out);
		return;
	}
	if (dw_type_is_flexible(t) && w->base && w->base < WR_WALK_LOCAL) {
		render_pointer(t, w->base + at, NULL, false, w->vc, out);
		return;
	}
	/* a char array with a byte not kept: gdb shows its elements */
	if (((e->is_char && e->size == 1) || e->char_prefix) && e->kind == DW_TYPE_INT &&
	    !(w->vc && render_bits_gone(w->vc->unavail, at * 8, (t->count * e->size < len ? t->count * e->size : len) * 8,
					false))) {
		char_array(t, data, len, w->lim.elements, out);
		return;
	}
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n;) {
		size_t run = 1;

		if (shown >= w->lim.elements) {
			strbuf_addstr(out, "..."); /* gdb's: {1, 2, 3...} */
			break;
		}
		if ((i + 1) * size > len) {
			strbuf_addstr(out, i ? ", ..." : "..."); /* the copy ended */
			break;
		}
		while (i + run < n && (i + run + 1) * size <= len &&
		       !memcmp(data + i * size, data + (i + run) * size, size) &&
		       kept_alike(w, at + i * size, at + (i + run) * size, size))
			run++;
		if (run > REPEAT_THRESHOLD && i + run < n && (i + run + 1) * size > len) {
			/* the run reaches the end of the copy: its count is
			 * not known */
			strbuf_addstr(out, i ? ", ..." : "...");
			break;
		}
		if (i)
			strbuf_addstr(out, ", ");
		typed(e, data + i * size, len - i * size, at + i * size, w, out);
		if (run > REPEAT_THRESHOLD) {
			strbuf_addf(out, " <repeats %zu times>", run);
			shown += REPEAT_THRESHOLD;
		} else {
			run = 1;
			shown++;
		}
		i += run;
	}
	strbuf_addch(out, ']');
}

/* ---- Rust, as rust-gdb shows it ---- */

/* The fields of @t (a struct at @data): "(1, 2)" for a tuple's, else
 * "{w: 3, h: 4}". */
static void rust_fields(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
			struct walk *w, struct strbuf *out)
{
	bool tuple = dw_type_is_tuple(t);

	strbuf_addch(out, tuple ? '(' : '{');
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];

		if (i)
			strbuf_addstr(out, ", ");
		if (!tuple && mb->name)
			strbuf_addf(out, "%s: ", mb->name);
		if (member_missing(mb, len))
			strbuf_addstr(out, "<unavailable>");
		else
			typed(mb->type, data + mb->offset, len - mb->offset, at + mb->offset, w, out);
	}
	strbuf_addch(out, tuple ? ')' : '}');
}

/* An enum with data: "core::option::Option<u32>::Some(3)",
 * "rstd::Shape::Rect{w: 3, h: 4}", "rstd::Shape::Empty". */
static void rust_enum(const struct dw_type *t, const uint8_t *data, size_t len, size_t at, struct walk *w,
		      struct strbuf *out)
{
	const struct dw_variant *v = dw_type_variant(t, data, len);
	const uint8_t *m = w->vc ? w->vc->unavail : NULL;

	/* a discriminant with a byte not kept would name a guessed variant */
	if (m && t->discr_offset + t->discr_size <= len &&
	    render_bits_gone(m, (at + t->discr_offset) * 8, t->discr_size * 8, false)) {
		strbuf_addstr(out, "<optimized out>");
		return;
	}
	if (!v) {
		strbuf_addf(out, "%s::<%s>", t->name,
			    t->discr_offset + t->discr_size > len ? "unavailable" : "no variant");
		return;
	}
	strbuf_addf(out, "%s::%s", t->name, v->name ? v->name : "?");
	if (v->type->n_members && v->offset < len)
		rust_fields(v->type, data + v->offset, len - v->offset, at + v->offset, w, out);
}

/* A reference to an unsized struct (`&CStr`: a data pointer and a
 * length), as gdb shows it: its type and address,
 * `&core::ffi::c_str::CStr 0x5555556315d0` (`&std::path::Path []` when
 * empty); false for another value, or
 * when its data pointer was not kept. */
static bool unsized_reference(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
			      const struct walk *w, struct strbuf *out)
{
	uint64_t off, loff;

	if (t->name[0] != '&' || t->n_members != 2 || !dw_type_member(t, "data_ptr", &off) ||
	    !dw_type_member(t, "length", &loff) || off + 8 > len || dw_std_recognize(t, &(struct dw_std){ 0 }) ||
	    (w->vc && render_bits_gone(w->vc->unavail, (at + off) * 8, 64, false)))
		return false;
	if (loff + 8 <= len && !read_uint(data + loff, 8) && /* as gdb: an empty one */
	    !(w->vc && render_bits_gone(w->vc->unavail, (at + loff) * 8, 64, false)))
		strbuf_addf(out, "%s []", t->name);
	else
		strbuf_addf(out, "%s 0x%" PRIx64, t->name, read_uint(data + off, 8));
	return true;
}

/* core::num::nonzero::NonZero<T> as rust-gdb's printer shows it: the
 * number alone, `12`; false for another type. */
static bool nonzero(const struct dw_type *t, const uint8_t *data, size_t len, size_t at, struct walk *w,
		    struct strbuf *out)
{
	uint64_t off;
	const struct dw_type *in = dw_std_nonzero(t, &off);

	if (!in || off + in->size > len)
		return false;
	typed(in, data + off, len - off, at + off, w, out);
	return true;
}

static const char *const adapters[] = { "std::queue<", "std::stack<", "std::priority_queue<" };

/* Whether the library's printers show @t (gdb's pretty printers): its
 * containers, strings and wrappers, the adapters, std::bitset. */
static bool has_printer(const struct dw_type *t)
{
	const char *n = t->tag_name ? t->tag_name : t->name; /* without const */

	if (t->kind != DW_TYPE_STRUCT || t->rust)
		return false;
	for (size_t i = 0; i < sizeof(adapters) / sizeof(adapters[0]); i++)
		if (!strncmp(n, adapters[i], strlen(adapters[i])))
			return true;
	return !strncmp(n, "std::bitset<", 12) || dw_std_recognize(t, &(struct dw_std){ 0 });
}

/* libstdc++'s container adapters as its printers show them: "std::queue
 * wrapping: std::deque with 2 elements = {4, 5}", the container they
 * wrap (their member c) shown as itself; false for another type. */
static bool adapter(const struct dw_type *t, const uint8_t *data, size_t len, size_t at, struct walk *w,
		    struct strbuf *out)
{
	const char *n = t->tag_name ? t->tag_name : t->name, *const *names = adapters;
	const struct dw_member *c;
	uint64_t off;

	for (size_t i = 0; i < sizeof(adapters) / sizeof(adapters[0]); i++) {
		if (strncmp(n, names[i], strlen(names[i])) != 0)
			continue;
		c = dw_type_member(t, "c", &off);
		if (!c || off + c->type->size > len)
			return false;
		strbuf_addf(out, "%.*s wrapping: ", (int)strlen(names[i]) - 1, names[i]);
		typed(c->type, data + off, len - (size_t)off, at + (size_t)off, w, out);
		return true;
	}
	return false;
}

/* libstdc++'s std::bitset as its printer shows it, the bits that are
 * set: "std::bitset = {[0] = 1, [7] = 1}" ("std::bitset" when none is);
 * false for another type. */
static bool bitset(const struct dw_type *t, const uint8_t *data, size_t len, size_t at, struct walk *w,
		   struct strbuf *out)
{
	const struct dw_member *words;
	uint64_t off, bits;
	size_t shown = 0;

	const char *n = t->tag_name ? t->tag_name : t->name;

	if (strncmp(n, "std::bitset<", 12) != 0 || !(words = dw_type_member(t, "_M_w", &off)) ||
	    off + words->type->size > len || (w->vc && render_bits_gone(w->vc->unavail, (at + off) * 8,
									  words->type->size * 8, false)))
		return false;
	bits = strtoull(n + 12, NULL, 10);
	strbuf_addstr(out, "std::bitset");
	for (uint64_t i = 0; i < bits && i < words->type->size * 8; i++) {
		if (!(data[off + i / 8] >> (i % 8) & 1))
			continue;
		if (shown == w->lim.elements) {
			strbuf_addstr(out, "...");
			break;
		}
		strbuf_addf(out, "%s[%" PRIu64 "] = 1", shown++ ? ", " : " = {", i);
	}
	if (shown)
		strbuf_addch(out, '}');
	return true;
}

/* A Rust struct, tuple or enum with data: "rstd::Item {id: 1, name: ...}",
 * "rstd::Point (-1, 2)", "(1, 3.5)", "alloc::alloc::Global". */
static void rust_aggregate(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
			   struct walk *w, struct strbuf *out)
{
	if (!w->raw && (unsized_reference(t, data, len, at, w, out) || nonzero(t, data, len, at, w, out)))
		return;
	if (t->n_variants) {
		rust_enum(t, data, len, at, w, out);
		return;
	}
	if (t->name[0] != '(')
		strbuf_addstr(out, t->name);
	if (!t->n_members)
		return;
	if (t->name[0] != '(')
		strbuf_addch(out, ' ');
	rust_fields(t, data, len, at, w, out);
}

/* A char, a Unicode scalar value, as rust-gdb shows one whatever the
 * locale: "113 'q'", "10 '\n'", "0 '\0'", "233 '\xe9'", "8364 '\u{0020ac}'". */
static void rust_char(uint32_t c, struct strbuf *out)
{
	static const char from[] = "\t\n\r\\'", to[] = "tnr\\'";
	const char *e = c && c < 0x80 ? strchr(from, (int)c) : NULL;

	strbuf_addf(out, "%u '", c);
	if (!c)
		strbuf_addstr(out, "\\0");
	else if (e)
		strbuf_addf(out, "\\%c", to[e - from]);
	else if (c >= 0x20 && c < 0x7f)
		strbuf_addch(out, (char)c);
	else if (c <= 0xff)
		strbuf_addf(out, "\\x%02x", c);
	else
		strbuf_addf(out, "\\u{%06x}", c);
	strbuf_addch(out, '\'');
}

/* A function (its bytes on the wire are its address), as gdb shows one:
 * `{void (int)} 0x401136 <f>`. */
static void function_text(const struct dw_type *t, uint64_t addr, const struct render_value_ctx *vc,
			  struct strbuf *out)
{
	strbuf_addf(out, "{%s} 0x%" PRIx64, t->name, addr);
	if (addr && vc && vc->symbol)
		vc->symbol(vc->ctx, addr, out);
}

/* One of the standard library's, shown as its printer shows it. */
static bool library_value(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
			  struct walk *w, struct strbuf *out)
{
	struct dw_std s;

	if (w->raw || !w->snap || t->kind != DW_TYPE_STRUCT || !dw_std_recognize(t, &s) || t->size > len)
		return false;
	/* a part its printer reads not kept (a &str's data pointer): its
	 * members show which */
	if (w->vc && !render_std_kept(&s, data, t->size, w->vc->unavail, at * 8))
		return false;
	render_container(w->snap, &s, data, len, w->base + at, w->vc, w->depth,
			 w->elide || w->depth > (int)w->lim.depth, out);
	return true;
}

/* As gdb's `print max-depth`: a struct, union or array nested as deep as
 * the limit is {...} (a container: its head, then {...}). */
static bool too_deep(const struct dw_type *t, const struct walk *w)
{
	if (w->depth >= MAX_DEPTH)
		return true;
	if (w->depth < (int)w->lim.depth || (w->snap && !w->raw && dw_std_recognize(t, &(struct dw_std){ 0 })))
		return false;
	return t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION ||
	       (t->kind == DW_TYPE_ARRAY && !(t->target && (t->target->is_char || t->target->char_prefix)));
}

static void typed(const struct dw_type *t, const uint8_t *data, size_t len, size_t at,
		  struct walk *w, struct strbuf *out)
{
	if (too_deep(t, w)) {
		strbuf_addstr(out, "{...}");
		return;
	}
	w->depth++;
	if (not_kept(w, t, len, at))
		strbuf_addstr(out, "<optimized out>");
	else if (library_value(t, data, len, at, w, out))
		;
	else if (t->rust && (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION))
		rust_aggregate(t, data, len, at, w, out);
	else if (t->kind == DW_TYPE_STRUCT && !w->raw &&
		 (adapter(t, data, len, at, w, out) || bitset(t, data, len, at, w, out)))
		;
	else if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION)
		members(t, data, len, at, w, out);
	else if (t->kind == DW_TYPE_ARRAY)
		elements(t, data, len, at, w, out);
	else if (t->kind == DW_TYPE_FUNCTION && len >= 8)
		function_text(t, read_uint(data, 8), w->vc, out);
	else if (t->rust && !t->size && t->kind != DW_TYPE_ARRAY)
		strbuf_addstr(out, "()");
	else if (!t->size || t->size > len)
		strbuf_addf(out, "<%s>", t->name);
	else if (t->rust && t->is_char && t->size == 4)
		rust_char((uint32_t)read_uint(data, 4), out);
	else if (t->kind == DW_TYPE_FLOAT)
		float_text(t, data, out);
	else if (t->kind == DW_TYPE_COMPLEX)
		complex_text(t, data, out);
	else if (t->kind == DW_TYPE_DECIMAL)
		decimal_text(t, data, out);
	else if (t->kind == DW_TYPE_POINTER && t->is_reference)
		reference_text(read_uint(data, 8), w->top && w->depth == 1, t, out);
	else if (t->kind == DW_TYPE_POINTER && t->container)
		member_pointer_text(t, data, w->vc, out);
	else if (t->kind == DW_TYPE_POINTER)
		render_pointer(t, read_uint(data, 8),
			       w->in_elem ? render_snap_string(w->snap, read_uint(data, 8)) : attachment(w->vc, at),
			       w->top && w->depth == 1, w->vc, out);
	else if (t->kind == DW_TYPE_INT && t->size == 16)
		int128_text(t, data, out);
	else
		integer_text(t, read_uint(data, t->size), t->size >= 8 ? 64 : (unsigned)t->size * 8, out);
	w->depth--;
}

void render_value(const struct dw_type *t, const uint8_t *data, size_t len, bool top,
		  const struct render_value_ctx *vc, struct strbuf *out)
{
	struct walk w = { .vc = vc, .lim = render_limits_of(vc), .top = top };
	struct render_snap *statics = vc && vc->statics ? render_snap_new(vc->statics) : NULL;

	w.statics = statics;
	typed(t, data, len, 0, &w, out);
	render_snap_free(statics);
}

void render_value_at(const struct render_snap *snap, const struct dw_type *t, uint64_t addr,
		     const struct render_value_ctx *vc, int depth, struct strbuf *out)
{
	struct render_value_ctx elem = { 0 };
	struct walk w = { .vc = &elem, .lim = render_limits_of(vc), .depth = depth, .snap = snap,
			  .base = addr, .in_elem = true, .statics = snap };
	bool failed;
	const uint8_t *data = render_snap_find(snap, addr, t->size, &failed);

	if (vc) {
		elem.symbol = vc->symbol;
		elem.vtable = vc->vtable;
		elem.ctx = vc->ctx;
		elem.limits = vc->limits;
		elem.not_copied = vc->not_copied;
	}
	if (!data)
		strbuf_addstr(out, failed ? "<unreadable>" : "...");
	else
		typed(t, data, t->size, 0, &w, out);
}

/* A value that came with copies of the memory its printers read: shown
 * from its own whole copy, its containers through the others. */
static void walked_value(const struct ev_arg *a, const struct dw_type *t, bool top, bool raw,
			 const struct render_value_ctx *vc, struct strbuf *out)
{
	/* statics: the static members' copies, also where the value's own
	 * copy is not in snap (nothing walked) */
	struct render_snap *snap = render_snap_new(a), *statics = render_snap_new(a);
	const struct ev_arg *root = render_snap_root(snap);
	struct walk w = { .vc = vc, .lim = render_limits_of(vc), .top = top, .snap = snap, .raw = raw,
			  .statics = statics };

	if (root) {
		w.base = root->value;
		typed(t, root->data, root->len, 0, &w, out);
	} else if (snap && a->kind == WR_ARG_PIECES) {
		w.base = WR_WALK_LOCAL; /* assembled from pieces, walked there */
		typed(t, a->data, a->len, 0, &w, out);
	} else {
		/* the probe walked nothing (a reference's attached address is
		 * not a walk): the printers that need only the value's bytes */
		render_snap_free(snap);
		snap = raw ? NULL : render_snap_self(a);
		w.snap = snap;
		w.base = WR_WALK_LOCAL;
		typed(t, a->data, a->len, 0, &w, out);
	}
	render_snap_free(snap);
	render_snap_free(statics);
}

/* A value the probe walked nothing of: the library's printers still show
 * what needs only its bytes (a unique_ptr's get(), an atomic's value). */
static void unwalked_value(const struct ev_arg *a, const struct dw_type *t, bool top, bool raw,
			   const struct render_value_ctx *vc, struct strbuf *out)
{
	struct render_snap *snap = raw ? NULL : render_snap_self(a);
	struct walk w = { .vc = vc, .lim = render_limits_of(vc), .top = top, .raw = raw, .snap = snap,
			  .base = WR_WALK_LOCAL };

	typed(t, a->data, a->len, 0, &w, out);
	render_snap_free(snap);
}

bool render_frame_value(const struct dw_type *t, const uint8_t *data, size_t len, uint64_t addr,
			const struct ev_arg *mem, size_t n_mem, const struct render_value_ctx *vc,
			struct strbuf *out)
{
	struct ev_arg owner = { .attach = mem, .n_attach = n_mem };
	struct render_snap *snap;
	struct dw_std s = { 0 };
	bool whole;

	if (!t || t->size > len)
		return false;
	if (!dw_std_walkable(t, 0)) {
		/* a unique_ptr or an atomic: its bytes are all its printer
		 * needs (`std::unique_ptr<Item> = {get() = 0x...}`) */
		struct ev_arg self = { .kind = WR_ARG_BYTES, .status = WR_ARG_OK, .data = data, .len = len };

		if (!dw_std_recognize(t, &s) || (s.kind != DW_STD_UNIQUE_PTR && s.kind != DW_STD_ATOMIC))
			return false;
		unwalked_value(&self, t, false, false, vc, out);
		return true;
	}
	whole = vc && vc->whole;
	if (!dw_std_recognize(t, &s) && !t->rust && !whole) {
		strbuf_addstr(out, "...");
		return true;
	}
	if (s.kind != DW_STD_NONE && vc && !render_std_kept(&s, data, t->size, vc->unavail, 0))
		return false; /* in pieces, some of what its printer reads not kept */
	if (s.kind == DW_STD_NONE && vc && render_bits_gone(vc->unavail, 0, t->size * 8, false))
		return false;
	snap = render_snap_new(&owner);
	if (s.kind != DW_STD_NONE) {
		render_container(snap, &s, data, len, addr, vc, 1, !whole, out);
	} else {
		/* a Rust struct or enum: its fields, the strings in them as
		 * far as they were copied (`...` where not); a C++ struct
		 * shown whole likewise */
		struct walk w = { .vc = vc, .lim = render_limits_of(vc), .snap = snap, .base = addr,
				  .elide = !whole };

		typed(t, data, len, 0, &w, out);
	}
	render_snap_free(snap);
	return true;
}

/* ---- print arguments ---- */

static bool arg_failed(const struct ev_arg *a, struct strbuf *out)
{
	switch (a->status) {
	case WR_ARG_OK:
		return false;
	case WR_ARG_OPTIMIZED_OUT:
		strbuf_addstr(out, "<optimized out>");
		break;
	case WR_ARG_NULL_DEREF:
		strbuf_addstr(out, a->kind == WR_ARG_STR ? "NULL" : "<null pointer>");
		break;
	case WR_ARG_READ_ERROR:
		strbuf_addstr(out, "<read error>");
		break;
	case WR_ARG_INDEX_RANGE:
		strbuf_addstr(out, "<index out of range>");
		break;
	case WR_ARG_TLS_UNALLOCATED:
		strbuf_addstr(out, "<not allocated in this thread>");
		break;
	case WR_ARG_SYNTHETIC_POINTER:
		strbuf_addstr(out, "<synthetic pointer>");
		break;
	case WR_ARG_UNREADABLE:
		strbuf_addstr(out, "<unreadable at this site>");
		break;
	case WR_ARG_NO_DEBUG_INFO:
		strbuf_addstr(out, "<no debug info>");
		break;
	case WR_ARG_UNAVAILABLE:
		strbuf_addstr(out, "<unavailable>");
		break;
	case WR_ARG_VARIABLE_LENGTH:
		strbuf_addstr(out, RENDER_VLA_MARKER);
		break;
	case WR_ARG_TOO_LARGE: /* gdb's error */
		strbuf_addf(out, "<error: value requires %" PRIu64 " bytes, which is more than max-value-size>",
			    a->value);
		break;
	default:
		strbuf_addf(out, "<error status=%u>", a->status);
	}
	return true;
}

/* A byte not kept (WR_ARG_PIECES) shows as ??. */
static void hex_bytes(const struct ev_arg *a, struct strbuf *out)
{
	for (size_t i = 0; i < a->len; i++) {
		if (i)
			strbuf_addch(out, ' ');
		if (render_bits_gone(a->unavail, i * 8, 8, false))
			strbuf_addstr(out, "??");
		else
			strbuf_addf(out, "%02x", a->data[i]);
	}
}

/* {:s}: the bytes up to the first NUL, as they are; the characters of a
 * wide string (@t: a pointer to them or an array of them) up to the
 * first NUL character, in UTF-8. */
static void bare_text(const struct ev_arg *a, const struct dw_type *t, struct strbuf *out)
{
	const struct dw_type *e = t && (t->kind == DW_TYPE_POINTER || t->kind == DW_TYPE_ARRAY) ? t->target : NULL;
	unsigned width = e && e->char_prefix && (e->size == 2 || e->size == 4) ? (unsigned)e->size : 1;

	if (width > 1 && a->data)
		render_units_utf8(a->data, a->len / width, width, true, out);
	else
		strbuf_add(out, a->data, strnlen((const char *)a->data, a->len));
}

/* A print argument without a type (literals of old probes, raw kinds). */
static void untyped(const struct ev_arg *a, struct strbuf *out)
{
	switch (a->kind) {
	case WR_ARG_BOOL:
		strbuf_addstr(out, a->value ? "true" : "false");
		break;
	case WR_ARG_U64:
		strbuf_addf(out, "%" PRIu64, a->value);
		break;
	case WR_ARG_HEX:
	case WR_ARG_PTR:
		strbuf_addf(out, "0x%" PRIx64, a->value);
		break;
	case WR_ARG_STR:
		render_text(a->data, strnlen((const char *)a->data, a->len), false, out);
		break;
	case WR_ARG_BYTES:
	case WR_ARG_PIECES:
		hex_bytes(a, out);
		break;
	default:
		strbuf_addf(out, "%" PRId64, (int64_t)a->value);
		break;
	}
}

static bool arg_text(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t, bool top,
		     const struct render_value_ctx *vc, struct strbuf *out);

/* A C++ reference printed as gdb prints it, `(int &) @0x7ffe...: 5`: the
 * argument is its referent's value, the address came attached.  A
 * referent the library's printers show is shown alone, as gdb shows it
 * (`std::map with 2 elements = {...}`). */
static bool reference_arg(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t,
			  const struct render_value_ctx *vc, struct strbuf *out)
{
	const struct ev_arg *addr = NULL;

	for (size_t i = 0; i < a->n_attach; i++)
		if (a->attach[i].aux == WR_ARG_ATTACH_REFERENCE)
			addr = &a->attach[i];
	if (addr && spec == AST_FMT_DEFAULT && !has_printer(t->target)) {
		reference_text(addr->value, true, t, out);
		strbuf_addstr(out, ": ");
	}
	return arg_text(a, spec, t->target, false, vc, out);
}

bool render_arg(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t,
		const struct render_value_ctx *vc, struct strbuf *out)
{
	if (t && t->is_reference && t->target)
		return reference_arg(a, spec, t, vc, out);
	return arg_text(a, spec, t, true, vc, out);
}

/* Whether @t is one of the library's strings (std::string, String,
 * &str): {:s} shows its characters. */
static bool library_string(const struct dw_type *t)
{
	struct dw_std s;

	return t && t->kind == DW_TYPE_STRUCT && dw_std_recognize(t, &s) && s.kind == DW_STD_STRING;
}

static bool arg_text(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t, bool top,
		     const struct render_value_ctx *vc, struct strbuf *out)
{
	bool hex = spec == AST_FMT_HEX || spec == AST_FMT_HEX_UPPER || spec == AST_FMT_PTR;
	struct render_value_ctx with = { 0 };
	uint8_t raw[8];

	if (a->status == WR_ARG_POINTEE_ERROR && a->kind == WR_ARG_CSTR && t && spec == AST_FMT_DEFAULT) {
		render_pointer(t, a->value, a, top, vc, out);
		return true;
	}
	if (arg_failed(a, out))
		return false;
	if (spec == AST_FMT_STR && library_string(t) && (a->kind == WR_ARG_BYTES || a->kind == WR_ARG_PIECES)) {
		if (vc)
			with = *vc;
		with.bare_text = true;
		walked_value(a, t, top, false, &with, out);
	} else if (spec == AST_FMT_STR && (a->kind == WR_ARG_STR || a->kind == WR_ARG_CSTR || a->kind == WR_ARG_BYTES ||
				    a->kind == WR_ARG_PIECES)) {
		bare_text(a, t, out);
	} else if (hex && (a->kind == WR_ARG_BYTES || a->kind == WR_ARG_STR || a->kind == WR_ARG_PIECES)) {
		hex_bytes(a, out);
	} else if (hex) {
		strbuf_addf(out, spec == AST_FMT_HEX_UPPER ? "0x%" PRIX64 : "0x%" PRIx64, a->value);
	} else if (!t) {
		untyped(a, out);
	} else if (a->kind == WR_ARG_CSTR) {
		render_pointer(t, a->value, a, top, vc, out);
	} else {
		if (vc)
			with = *vc;
		with.attach = a->attach;
		with.n_attach = a->n_attach;
		with.unavail = a->unavail;
		memcpy(raw, &a->value, sizeof(raw));
		if (a->kind == WR_ARG_PIECES && (a->aux & WR_PIECES_F_UNINIT))
			strbuf_addstr(out, "[uninitialized] "); /* as gdb marks it */
		if ((a->kind == WR_ARG_BYTES || a->kind == WR_ARG_PIECES) && a->n_attach)
			walked_value(a, t, top, spec == AST_FMT_RAW, &with, out);
		else if (a->kind == WR_ARG_BYTES || a->kind == WR_ARG_PIECES)
			unwalked_value(a, t, top, spec == AST_FMT_RAW, &with, out);
		else
			render_value(t, raw, sizeof(raw), top, &with, out);
	}
	return true;
}

void render_typed_value(const struct dw_type *t, const uint8_t *data, size_t len, struct strbuf *out)
{
	render_value(t, data, len, false, NULL, out);
}
