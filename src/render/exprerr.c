/* exprerr.c - expression-error items as spans, as GhostScope writes them:
 *
 *   ExprError: memcmp(p, hex("504f")) (read error at 0x0000000000001000, flags: first-arg read-fail)
 *
 * The expression's text comes from the probe's script (the item carries
 * its number, script/walk.h); JSON carries expr, code, reason, addr and
 * flags.
 */
#include "render/render_priv.h"
#include "script/walk.h"

#include <inttypes.h>

static const char *reason(unsigned code)
{
	switch (code) {
	case WR_ARG_NULL_DEREF: return "null deref";
	case WR_ARG_READ_ERROR: return "read error";
	case WR_ARG_TRUNCATED: return "truncated";
	case WR_ARG_OFFSETS_UNAVAILABLE: return "offsets unavailable";
	case WR_ARG_OPTIMIZED_OUT: return "optimized out";
	case WR_ARG_INDEX_RANGE: return "index out of range";
	case WR_ARG_TLS_UNALLOCATED: return "not allocated in this thread";
	case WR_ARG_SYNTHETIC_POINTER: return "synthetic pointer";
	case WR_ARG_UNREADABLE: return "unreadable at this site";
	case WR_ARG_NO_DEBUG_INFO: return "no debug info";
	case WR_ARG_UNAVAILABLE: return "unavailable";
	case WR_ARG_VARIABLE_LENGTH: return "variable length";
	case WR_ARG_TOO_LARGE: return "too large";
	default: return "error";
	}
}

/* "first-arg read-fail,len-clamped"; unknown bits as 0xNN. */
static void flag_names(unsigned flags, struct strbuf *out)
{
	static const char *const names[] = { "first-arg read-fail", "second-arg read-fail",
					     "len-clamped", "len=0" };
	const char *sep = "";

	for (unsigned i = 0; i < 8; i++) {
		if (!(flags & (1u << i)))
			continue;
		if (i < 4)
			strbuf_addf(out, "%s%s", sep, names[i]);
		else
			strbuf_addf(out, "%s0x%02x", sep, 1u << i);
		sep = ",";
	}
}

void render_expr_error(struct renderer *r, const struct render_probe *probe,
		       const struct ev_expr_error *x, const char *indent, struct span_list *out)
{
	const struct ast_expr *e = probe && probe->ast ? ast_probe_nth_expr(probe->ast, x->index) : NULL;

	span_add(out, SPAN_TYPE, SPAN_TONE_NONE, NULL, "expr_error");
	if (*indent)
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, indent, NULL);
	span_add(out, SPAN_TEXT, SPAN_TONE_BAD, "ExprError:", NULL);
	span_add(out, SPAN_TEXT, SPAN_TONE_NONE, " ", NULL);
	strbuf_reset(&r->scratch);
	if (e)
		ast_expr_text(e, &r->scratch);
	else
		strbuf_addf(&r->scratch, "expression #%u", x->index);
	span_add(out, SPAN_EXPR_SOURCE, SPAN_TONE_NONE, r->scratch.buf, r->scratch.buf);
	span_dataf(out, SPAN_CODE, "%u", x->code);
	span_add(out, SPAN_TEXT, SPAN_TONE_NONE, " (", NULL);
	span_add(out, SPAN_REASON, SPAN_TONE_NONE, reason(x->code), reason(x->code));
	strbuf_reset(&r->scratch);
	strbuf_addf(&r->scratch, "0x%" PRIx64, x->addr);
	/* a value with no address to name (optimized out) says no "at" */
	if (x->addr || x->code == WR_ARG_NULL_DEREF || x->code == WR_ARG_READ_ERROR)
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, " at ", NULL);
	if (x->addr)
		span_showf(out, SPAN_FAIL_ADDR, SPAN_TONE_NONE, "0x%016" PRIx64, x->addr);
	else if (x->code == WR_ARG_NULL_DEREF || x->code == WR_ARG_READ_ERROR)
		span_add(out, SPAN_FAIL_ADDR, SPAN_TONE_NONE, "NULL", NULL);
	span_dataf(out, SPAN_FAIL_ADDR, "%s", r->scratch.buf);
	strbuf_reset(&r->scratch);
	flag_names(x->flags, &r->scratch);
	if (x->flags) {
		span_add(out, SPAN_TEXT, SPAN_TONE_NONE, ", flags: ", NULL);
		span_add(out, SPAN_FLAGS, SPAN_TONE_NONE, r->scratch.buf, r->scratch.buf);
	} else {
		span_add(out, SPAN_FLAGS, SPAN_TONE_NONE, NULL, "");
	}
	span_add(out, SPAN_TEXT, SPAN_TONE_NONE, ")", NULL);
	span_eol(out);
}
