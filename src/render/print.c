/* print.c - print items as spans: the format's literal text, the values
 * of its placeholders, and for `print expr;` the expression as written.
 *
 * Print arguments that are string literals are taken from the script (they
 * are not on the wire); every other placeholder consumes one wire argument
 * in order.  Values are shown as the traced program's types say, with the
 * content gdb's `print` shows (value.c); a value that could not be read is
 * shown as why, in its own role.  JSON carries the whole line as one
 * string, and beside it each argument as data: the expression as written,
 * its type, its value in JSON's shape and why it could not be read.
 */
#include "render/render_priv.h"
#include "dwarf/types.h"
#include "script/walk.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---- */

/* The symbol hook of the renderer for one event's process. */
struct symbol_ctx {
	struct renderer *r;
	uint32_t pid;
};

static void event_symbol(void *ctx, uint64_t addr, struct strbuf *out)
{
	struct symbol_ctx *sc = ctx;

	sc->r->hooks.symbol(sc->r->hooks.ctx, sc->pid, addr, out);
}

static long event_vtable(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct symbol_ctx *sc = ctx;

	return sc->r->hooks.vtable(sc->r->hooks.ctx, sc->pid, addr, buf, len);
}

static const struct dw_type *arg_type(const struct render_probe *probe, unsigned print,
				      unsigned arg)
{
	for (size_t i = 0; probe && i < probe->n_arg_types; i++)
		if (probe->arg_types[i].print == print && probe->arg_types[i].arg == arg)
			return probe->arg_types[i].type;
	return NULL;
}

/* The frame print argument @arg of print @print read another frame's
 * variable from, or NULL. */
static const char *arg_frame(const struct render_probe *probe, unsigned print, unsigned arg)
{
	for (size_t i = 0; probe && i < probe->n_arg_frames; i++)
		if (probe->arg_frames[i].print == print && probe->arg_frames[i].arg == arg)
			return probe->arg_frames[i].frame;
	return NULL;
}

/* One placeholder's value: a VALUE span, or a VALUE_ERROR span saying why
 * there is none; a variable of another frame says which after it. */
static void value_span(struct renderer *r, const struct render_value_ctx *vc, const struct ev_arg *a,
		       enum ast_fmt_spec spec, const struct dw_type *t, const char *frame,
		       struct span_list *out)
{
	bool ok;

	strbuf_reset(&r->scratch);
	ok = render_arg(a, spec, t, vc, &r->scratch);
	if (frame)
		strbuf_addf(&r->scratch, " (in %s)", frame);
	span_add(out, ok ? SPAN_VALUE : SPAN_VALUE_ERROR, SPAN_TONE_NONE, r->scratch.buf, NULL);
}

static void dump_span(struct renderer *r, const struct ev_arg *a, enum ast_fmt_spec spec,
		      struct span_list *out)
{
	bool ok;

	strbuf_reset(&r->scratch);
	ok = render_dump_text(a, spec, &r->scratch);
	span_add(out, ok ? SPAN_VALUE : SPAN_VALUE_ERROR, SPAN_TONE_NONE, r->scratch.buf, NULL);
}

static void literal_span(const char *text, struct span_list *out)
{
	if (text && *text)
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, text, NULL);
}

/* `print expr;` shows `expr = value`. */
static void expr_pieces(struct renderer *r, const struct render_value_ctx *vc,
			const struct render_probe *probe, const struct ast_stmt *s,
			const struct ev_print *p, struct span_list *out)
{
	strbuf_reset(&r->scratch);
	ast_expr_text(s->args[0], &r->scratch);
	span_add(out, SPAN_EXPR, SPAN_TONE_NONE, r->scratch.buf, NULL);
	literal_span(" = ", out);
	if (s->args[0]->kind == AST_EXPR_STRING)
		literal_span(s->args[0]->str, out);
	else if (p->n_args)
		value_span(r, vc, &p->args[0], AST_FMT_DEFAULT, arg_type(probe, p->index, 0),
			   arg_frame(probe, p->index, 0), out);
}

/* The print statement item @p comes from, or NULL when unknown. */
static const struct ast_stmt *print_stmt(const struct render_probe *probe, const struct ev_print *p)
{
	return probe && probe->ast ? ast_probe_nth(probe->ast, AST_STMT_PRINT, p->index) : NULL;
}

static void pieces(struct renderer *r, const struct render_value_ctx *vc,
		   const struct render_probe *probe, const struct ev_print *p, struct span_list *out)
{
	const struct ast_stmt *s = print_stmt(probe, p);
	size_t next_wire = 0, next_expr = 0;

	if (!s) {
		span_showf(out, SPAN_VALUE_ERROR, SPAN_TONE_NONE, "<print #%u with %zu values>",
			   p->index, p->n_args);
		return;
	}
	if (!s->fmt) {
		expr_pieces(r, vc, probe, s, p, out);
		return;
	}
	for (size_t i = 0; i < s->n_pieces; i++) {
		const struct ast_fmt_piece *piece = &s->pieces[i];
		const struct ast_expr *e;

		literal_span(piece->literal, out);
		if (!piece->has_placeholder)
			continue;
		if (piece->len_kind == AST_FMT_LEN_STAR)
			next_expr++; /* the length argument */
		e = next_expr < s->n_args ? s->args[next_expr++] : NULL;
		if (next_wire < p->n_args && p->args[next_wire].kind == WR_ARG_DUMP) {
			dump_span(r, &p->args[next_wire++], piece->spec, out);
		} else if (e && e->kind == AST_EXPR_STRING) {
			literal_span(e->str, out);
		} else if (next_wire < p->n_args) {
			value_span(r, vc, &p->args[next_wire], piece->spec,
				   arg_type(probe, p->index, (unsigned)next_wire),
				   arg_frame(probe, p->index, (unsigned)next_wire), out);
			next_wire++;
		} else {
			span_add(out, SPAN_VALUE_ERROR, SPAN_TONE_NONE, "<missing>", NULL);
		}
	}
}

/* ---- what the caller passed ---- */

/* The wire kind of a value of type @t the caller passed (a register's
 * worth), or 0 for one that needs more than the value: a char pointer's
 * string, which only the hit could have read. */
static uint8_t passed_kind(const struct dw_type *t)
{
	if (!t || !t->size || t->size > 8)
		return 0;
	switch (t->kind) {
	case DW_TYPE_BOOL: return WR_ARG_BOOL;
	case DW_TYPE_ENUM: return WR_ARG_ENUM;
	case DW_TYPE_POINTER:
		if (t->is_reference || t->container || !t->target || t->target->is_char || t->target->char_prefix)
			return 0;
		return WR_ARG_PTR;
	case DW_TYPE_INT:
		if (t->is_char && t->size == 1)
			return WR_ARG_CHAR;
		return t->is_signed ? WR_ARG_I64 : WR_ARG_U64;
	default:
		return 0;
	}
}

/* Register value @v as a value of type @t: its low bytes, extended by
 * its signedness, as the probe reads a value of that size. */
static uint64_t passed_fit(const struct dw_type *t, uint64_t v)
{
	unsigned bits = (unsigned)t->size * 8;

	if (bits >= 64)
		return v;
	v &= (1ull << bits) - 1;
	if (t->is_signed && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	return v;
}

/* Whether @t is a pointer to narrow characters, shown with its string. */
static bool narrow_text_pointer(const struct dw_type *t)
{
	return t && t->kind == DW_TYPE_POINTER && !t->is_reference && !t->container && t->target &&
	       t->target->is_char && t->target->size == 1 && t->target->kind == DW_TYPE_INT;
}

/* A char pointer @v the caller passed, as argument @a: with its string
 * where `bt args` reads it too (into @buf, WR_ARG_STR_MAX bytes); false,
 * @a left as it is, where it cannot (on the heap, in writable data: it
 * was not copied at the hit). */
static bool passed_string(struct renderer *r, uint32_t pid, const struct ev_print *p, uint64_t v,
			  uint8_t *buf, struct ev_arg *a)
{
	size_t n;

	if (!v) {
		*a = (struct ev_arg){ .kind = WR_ARG_PTR, .status = WR_ARG_OK, .aux = 8, .len = 8 };
		return true;
	}
	if (!r->hooks.caller_string ||
	    !(n = r->hooks.caller_string(r->hooks.ctx, pid, p->caller, p->n_caller, v, buf, WR_ARG_STR_MAX)))
		return false;
	*a = (struct ev_arg){ .kind = WR_ARG_CSTR, .status = WR_ARG_OK, .value = v, .data = buf, .len = n };
	return true;
}

/* @p's arguments into @args (a copy), each the probe could not read but
 * its caller item says (wire.h: WR_ITEM_CALLER) given the value the
 * caller passed, as `bt args` finds it; a char pointer's string into
 * @strings (WR_ARG_STR_MAX bytes an argument). */
static void passed_values(struct renderer *r, const struct render_probe *probe, uint32_t pid,
			  const struct ev_print *p, struct ev_arg *args, uint8_t *strings)
{
	memcpy(args, p->args, p->n_args * sizeof(*args));
	for (size_t k = WR_CALLER_REGS + WR_CALLER_DUMPS; k < p->n_caller; k++) {
		unsigned wire = wr_caller_wire_of(p->caller[k].value);
		const struct dw_type *t;
		uint64_t v;
		uint8_t kind;

		if (p->caller[k].kind != WR_ARG_U64 || wire >= p->n_args ||
		    args[wire].status != WR_ARG_OPTIMIZED_OUT)
			continue;
		t = arg_type(probe, p->index, wire);
		kind = passed_kind(t);
		if ((!kind && !narrow_text_pointer(t)) ||
		    !r->hooks.caller_value(r->hooks.ctx, pid, p->caller, p->n_caller,
					   wr_caller_reg_of(p->caller[k].value), &v))
			continue;
		if (!kind) {
			passed_string(r, pid, p, v, strings + wire * WR_ARG_STR_MAX, &args[wire]);
			continue;
		}
		args[wire] = (struct ev_arg){ .kind = kind, .status = WR_ARG_OK, .aux = (uint32_t)t->size,
					      .value = passed_fit(t, v), .len = 8 };
	}
}

/* ---- variable-length arrays ---- */

#define MAX_VALUE_SIZE 65536u /* gdb's max-value-size: it shows no larger value */

/* The lengths VLA argument @a came with (wire.h: WR_ARG_ATTACH_VLA_ADDR)
 * into @counts, and its address: how many, 0 when not all came or one
 * could not be read. */
static size_t vla_lengths(const struct ev_arg *a, uint64_t *counts, uint64_t *addr)
{
	size_t n = 0;
	bool at = false;

	for (size_t i = 0; i < a->n_attach; i++) {
		const struct ev_arg *c = &a->attach[i];

		if (c->kind != WR_ARG_ATTACH || c->aux < WR_ARG_ATTACH_VLA_ADDR ||
		    c->aux >= WR_ARG_ATTACH_VLA_DIM + WR_ARG_ATTACH_VLA_DIMS)
			continue;
		if (c->aux == WR_ARG_ATTACH_VLA_ADDR) {
			*addr = c->value;
			at = true;
		} else if (c->status != WR_ARG_OK || c->aux - WR_ARG_ATTACH_VLA_DIM != n) {
			return 0;
		} else {
			counts[n++] = c->value;
		}
	}
	return at ? n : 0;
}

/* VLA argument @a of type @t as the lengths the probe read say: the
 * array of those lengths (made in @m's type cache), with @a as it is;
 * else NULL, and @a says what is shown in its place: <variable length
 * array> when the lengths are not known, gdb's error for an array
 * larger than gdb reads (a length not set yet at the pc, perhaps), and
 * an array of no elements as gdb shows one, its address (a char one's
 * string there was not read: marked). */
static const struct dw_type *vla_sized(struct dw_module *m, const struct dw_type *t, struct ev_arg *a)
{
	uint64_t counts[WR_ARG_ATTACH_VLA_DIMS], addr = 0;
	size_t n = vla_lengths(a, counts, &addr);
	const struct dw_type *sized = m && n ? dw_type_vla_sized(m, t, counts, n) : NULL;

	if (sized && sized->size > MAX_VALUE_SIZE) {
		*a = (struct ev_arg){ .kind = WR_ARG_U64, .status = WR_ARG_TOO_LARGE, .value = sized->size };
		return NULL;
	}
	if (sized && dw_type_is_flexible(sized) &&
	    (sized->target->kind == DW_TYPE_ARRAY || (!sized->target->is_char && !sized->target->char_prefix))) {
		*a = (struct ev_arg){ .kind = WR_ARG_CSTR, .status = WR_ARG_OK, .value = addr, .data = a->data };
		return sized;
	}
	if (!sized || dw_type_is_flexible(sized) || !sized->size)
		*a = (struct ev_arg){ .kind = WR_ARG_I64, .status = WR_ARG_VARIABLE_LENGTH };
	return sized;
}

/* Each argument of @p that is a VLA with its lengths (kind BYTES) as
 * vla_sized() shows it: into @args (a copy of @p's) and @types (a copy
 * of the probe's, @n of them). */
static void vla_args(const struct ev_print *p, struct ev_arg *args, struct render_arg_type *types, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct render_arg_type *at = &types[i];
		const struct dw_type *sized;

		if (at->print != p->index || at->arg >= p->n_args || !at->type || !dw_type_is_vla(at->type) ||
		    args[at->arg].kind != WR_ARG_BYTES || args[at->arg].status != WR_ARG_OK)
			continue;
		sized = vla_sized(at->module, at->type, &args[at->arg]);
		if (sized)
			at->type = sized;
	}
}

/* Whether print @p has a VLA argument the probe read the lengths of. */
static bool has_vla(const struct render_probe *probe, const struct ev_print *p)
{
	for (size_t i = 0; probe && i < probe->n_arg_types; i++) {
		const struct render_arg_type *at = &probe->arg_types[i];

		if (at->print == p->index && at->arg < p->n_args && at->type && dw_type_is_vla(at->type) &&
		    p->args[at->arg].kind == WR_ARG_BYTES)
			return true;
	}
	return false;
}

/* ---- arguments as data ---- */

/* One argument: {"expr", "type", "value", "error"}.  @e is NULL when the
 * probe's script is unknown, @a when no value came for it. */
static void arg_data(struct renderer *r, const struct ast_expr *e, const struct ev_arg *a,
		     const struct dw_type *t, enum ast_fmt_spec spec, const char *frame,
		     struct span_list *out)
{
	span_open(out, SPAN_ARG);
	if (e) {
		strbuf_reset(&r->scratch);
		ast_expr_text(e, &r->scratch);
		span_add(out, SPAN_EXPR, SPAN_TONE_NONE, NULL, r->scratch.buf);
	} else {
		span_null(out, SPAN_EXPR);
	}
	if (e && e->kind == AST_EXPR_STRING) {
		span_add(out, SPAN_VALUE_TYPE, SPAN_TONE_NONE, NULL, "string");
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "value");
		span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, e->str);
		span_null(out, SPAN_VALUE_ERROR);
	} else if (a) {
		render_arg_data(a, t, spec, &r->limits, out);
		if (frame) {
			span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "frame");
			span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, frame);
		}
	} else {
		span_null(out, SPAN_VALUE_TYPE);
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "value");
		span_null(out, SPAN_LITERAL);
		span_add(out, SPAN_VALUE_ERROR, SPAN_TONE_NONE, NULL, "missing");
	}
	span_close(out);
}

/* Every argument of print @s in order, string literals included; the
 * others take the wire's values in turn, as the placeholders do. */
static void args_data(struct renderer *r, const struct render_probe *probe,
		      const struct ast_stmt *s, const struct ev_print *p, struct span_list *out)
{
	size_t next_wire = 0, piece = 0;

	span_open(out, SPAN_ARGS);
	for (size_t i = 0; s && i < s->n_args; i++) {
		const struct ast_expr *e = s->args[i];
		const struct ev_arg *a = NULL;
		const struct dw_type *t = NULL;
		const char *frame = NULL;
		enum ast_fmt_spec spec = AST_FMT_DEFAULT;

		/* The length of a {:x.*} dump is part of the dump, as in the
		 * text: it has no wire value and no entry of its own. */
		while (s->fmt && piece < s->n_pieces && !s->pieces[piece].has_placeholder)
			piece++;
		if (s->fmt && piece < s->n_pieces)
			spec = s->pieces[piece].spec;
		if (s->fmt && piece < s->n_pieces && s->pieces[piece++].len_kind == AST_FMT_LEN_STAR) {
			if (++i >= s->n_args)
				break;
			e = s->args[i];
		}
		if (e->kind != AST_EXPR_STRING && next_wire < p->n_args) {
			t = arg_type(probe, p->index, (unsigned)next_wire);
			frame = arg_frame(probe, p->index, (unsigned)next_wire);
			a = &p->args[next_wire++];
		}
		arg_data(r, e, a, t, spec, frame, out);
	}
	for (size_t i = 0; !s && i < p->n_args; i++)
		arg_data(r, NULL, &p->args[i], NULL, AST_FMT_DEFAULT, NULL, out);
	span_close(out);
}

void render_print(struct renderer *r, const struct render_probe *probe, uint32_t pid,
		  const struct ev_print *p, const char *indent, struct span_list *out)
{
	struct symbol_ctx sc = { r, pid };
	struct render_value_ctx vc = { .symbol = r->hooks.symbol ? event_symbol : NULL,
				       .vtable = r->hooks.vtable ? event_vtable : NULL, .ctx = &sc,
				       .limits = &r->limits };
	struct ev_print with;
	struct render_probe sized;
	struct render_arg_type *types = NULL;
	struct ev_arg *args = NULL;
	uint8_t *strings = NULL;
	size_t first;

	if (p->n_caller > WR_CALLER_REGS + WR_CALLER_DUMPS && p->n_args && r->hooks.caller_value) {
		args = xmalloc(p->n_args * sizeof(*args));
		strings = xmalloc(p->n_args * WR_ARG_STR_MAX);
		passed_values(r, probe, pid, p, args, strings);
		with = *p;
		with.args = args;
		p = &with;
	}
	if (has_vla(probe, p)) {
		if (!args) {
			args = xmalloc(p->n_args * sizeof(*args));
			memcpy(args, p->args, p->n_args * sizeof(*args));
			with = *p;
			with.args = args;
			p = &with;
		}
		types = xmalloc(probe->n_arg_types * sizeof(*types));
		memcpy(types, probe->arg_types, probe->n_arg_types * sizeof(*types));
		vla_args(p, args, types, probe->n_arg_types);
		sized = *probe;
		sized.arg_types = types;
		probe = &sized;
	}
	span_add(out, SPAN_TYPE, SPAN_TONE_NONE, NULL, "print");
	literal_span(indent, out);
	first = out->n;
	pieces(r, &vc, probe, p, out);
	strbuf_reset(&r->scratch);
	for (size_t i = first; i < out->n; i++)
		strbuf_addstr(&r->scratch, span_show(out, &out->v[i]));
	span_add(out, SPAN_PRINT_TEXT, SPAN_TONE_NONE, NULL, r->scratch.buf);
	args_data(r, probe, print_stmt(probe, p), p, out);
	span_eol(out);
	free(types);
	free(strings);
	free(args);
}
