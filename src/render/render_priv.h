/* render_priv.h - what the parts of the renderer share.
 *
 * Layer rule: private to src/render.  render.c renders an event and its
 * header; print.c and backtrace.c render its items.
 */
#ifndef WRAITH_RENDER_RENDER_PRIV_H
#define WRAITH_RENDER_RENDER_PRIV_H

#include "render/render.h"

#include <stdint.h>
#include <string.h>

/* The spans of print item @p of @probe (NULL when unknown) in an event
 * of process @pid, its line indented by @indent. */
void render_print(struct renderer *r, const struct render_probe *probe, uint32_t pid,
		  const struct ev_print *p, const char *indent, struct span_list *out);

/* An expression-error item (exprerr.c). */
void render_expr_error(struct renderer *r, const struct render_probe *probe,
		       const struct ev_expr_error *x, const char *indent, struct span_list *out);
/* The spans of backtrace @bt of an event of probe site @wire_id, its
 * header indented by @indent. */
void render_backtrace(struct renderer *r, uint32_t pid, uint32_t wire_id, const struct ev_backtrace *bt,
		      const char *indent, struct span_list *out);

/* Print argument @a as data: its "type" (@t's name, else what the probe
 * sent), its "value" in JSON's shape, and the "error" that kept it from
 * being read (null when none); @spec its format: {:r} shows the
 * standard library's values member by member, {:s.N} a dump as a string;
 * its containers' elements at most @lim's.  See value_data.c. */
void render_arg_data(const struct ev_arg *a, const struct dw_type *t, enum ast_fmt_spec spec,
		     const struct render_limits *lim, struct span_list *out);

/* @vc's limits, or gdb's when @vc or its limits are NULL (value.c). */
struct render_limits render_limits_of(const struct render_value_ctx *vc);

/* ---- container.c: the standard library's values from the memory the
 * probe copied (WR_ARG_MEM attachments) ---- */
struct dw_std;
struct render_value_ctx;
struct render_snap;
/* The copies attached to @a, by address; NULL when it has none.  Borrows
 * from @a; free with render_snap_free(). */
struct render_snap *render_snap_new(const struct ev_arg *a);
void render_snap_free(struct render_snap *s);
/* The value's own copy, whole (WR_MEM_F_ROOT), or NULL. */
const struct ev_arg *render_snap_root(const struct render_snap *s);
/* For a value the probe walked nothing of (a unique_ptr, an atomic, an
 * optional of a number: a printer needs only its bytes): one copy, @a's
 * own bytes, as its root at WR_WALK_LOCAL.  Borrows from @a; free with
 * render_snap_free(). */
struct render_snap *render_snap_self(const struct ev_arg *a);
/* The bytes [@addr, @addr + @n) as copied, or NULL; *@failed when the
 * copy at @addr was tried and failed. */
const uint8_t *render_snap_find(const struct render_snap *s, uint64_t addr, size_t n, bool *failed);
/* The readable head of a string at @addr whose whole read failed
 * (WR_MEM_F_TORN), or NULL. */
/* The copy of a C++ static data member tagged @tag (WR_MEM_F_STATIC),
 * whatever its status, or NULL. */
const struct ev_arg *render_snap_static(const struct render_snap *s, uint64_t tag);
const struct ev_arg *render_snap_torn(const struct render_snap *s, uint64_t addr);
/* The string copied at @addr (a char * inside a container), or NULL. */
const struct ev_arg *render_snap_string(const struct render_snap *s, uint64_t addr);
/* Whether a value of the library's @s (its bytes @data, @len) assembled
 * from pieces keeps what its printer reads, @gone its mask from bit @bit
 * (bit i set: bit @bit + i not kept; NULL: every bit is): a string's
 * pointer and length (libc++'s short one: its length byte and
 * characters), any other value's every bit.  A string shows as gdb's
 * printer shows it so when the compiler kept no other member. */
bool render_std_kept(const struct dw_std *s, const uint8_t *data, size_t len, const uint8_t *gone, size_t bit);
/* Container @s (its bytes @data, @len at @addr) as gdb's printer shows it;
 * @elide: its head only, its elements {...} (gdb's print max-depth). */
void render_container(const struct render_snap *snap, const struct dw_std *s, const uint8_t *data,
		      size_t len, uint64_t addr, const struct render_value_ctx *vc, int depth, bool elide,
		      struct strbuf *out);
/* Container @s in its JSON shape (doc/event.schema.json: "container"),
 * at most @lim's elements. */
void render_container_data(const struct render_snap *snap, const struct dw_std *s, const uint8_t *data,
			   size_t len, uint64_t addr, const struct render_limits *lim, int depth,
			   struct span_list *out);
/* value_data.c: the value of type @t at @addr in JSON's shape as the
 * snapshot holds it (null when it was not copied or its copy failed). */
void render_value_data_at(const struct render_snap *snap, const struct dw_type *t, uint64_t addr,
			  const struct render_limits *lim, int depth, struct span_list *out);
/* value.c: the value of type @t at @addr as the snapshot holds it, at
 * nesting @depth (`...` when it was not copied, `<unreadable>` when its
 * copy failed). */
void render_value_at(const struct render_snap *snap, const struct dw_type *t, uint64_t addr,
		     const struct render_value_ctx *vc, int depth, struct strbuf *out);

/* The unsigned integer in the first @size bytes at @data (at most 8). */
/* @n characters of @width bytes (1, 2 or 4) at @s as gdb shows a
 * string (render_text()), after the literal's @prefix (NULL: none; once,
 * before all): L"abc". */
void render_units(const uint8_t *s, size_t n, unsigned width, const char *prefix, bool more,
		  struct strbuf *out);
/* @n characters of @width bytes at @s as UTF-8 (UTF-16 pairs decoded, a
 * unit that is no character U+FFFD; bytes as they are when @width is 1),
 * up to the first NUL when @to_nul: the text of a wide string in JSON
 * and under {:s}. */
void render_units_utf8(const uint8_t *s, size_t n, unsigned width, bool to_nul, struct strbuf *out);

static inline uint64_t render_read_uint(const uint8_t *data, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, data, size > 8 ? 8 : size);
	return v;
}

/* A 16-byte integer (__int128, Rust's u128 and i128) at @data in
 * decimal, as gdb prints it, into @buf (41 bytes hold any). */
void render_int128(const uint8_t *data, bool is_signed, char buf[48]);

/* What a floating value's text is (render_float). */
enum render_float_class {
	RENDER_FLOAT_NUMBER,
	RENDER_FLOAT_NAN,
	RENDER_FLOAT_INF,
	RENDER_FLOAT_INVALID, /* an x87 pattern the FPU refuses: "<invalid float value>" */
	RENDER_FLOAT_UNKNOWN, /* a size of no known format: "<name>" */
};

#define RENDER_FLOAT_MAX 64 /* holds any text render_float writes */

/* gdb's text of the floating value of type @t (t->size bytes at @data)
 * into @buf of @n bytes (RENDER_FLOAT_MAX hold any): the digits that read
 * back as the same value, "inf", "-nan(0x8000000000000)",
 * "<invalid float value>" (float.c).  Returns which it is. */
enum render_float_class render_float(const struct dw_type *t, const uint8_t *data, char *buf, size_t n);

/* gdb's text of the decimal floating value of type @t (_Decimal32, 64
 * or 128, BID-encoded, t->size bytes at @data) into @buf of @n bytes
 * (RENDER_FLOAT_MAX hold any): the decimal standard's scientific string,
 * "1.50", "1E+20", "-0.000001", "Infinity", "NaN" (float.c). */
enum render_float_class render_decimal(const struct dw_type *t, const uint8_t *data, char *buf, size_t n);

/* Either part of a value of complex type @t (real, then imaginary) into
 * @part: a float of half its size, named as @t is so that a _Float128's
 * parts read as quads (float.c). */
void render_complex_part(const struct dw_type *t, struct dw_type *part);

/* The low @bits bits of @v as a signed number (0 bits: 0). */
static inline int64_t render_sign_extend(uint64_t v, unsigned bits)
{
	unsigned shift = 64 - (bits > 64 ? 64 : bits);

	return bits == 0 ? 0 : (int64_t)(v << shift) >> shift;
}

/* Free backtrace.c's cache of frame lines (NULL: none). */
void render_lines_free(struct render_lines *c);

/* The last component of @path (NULL stays NULL). */
const char *render_base_name(const char *path);

#endif
