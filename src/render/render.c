/* render.c - the three output shapes of an event.
 *
 * pretty: a header line `[time] #probe pid/tid target`, then each item's
 *         lines indented by two spaces;
 * plain:  the item lines only;
 * json:   one object per event per line, with stable field names.
 *
 * Print arguments that are string literals are taken from the script (they
 * are not on the wire); every other placeholder consumes one wire argument
 * in order.  Backtrace frames are symbolized through the front end's hook;
 * each inlined call becomes its own line (and JSON frame), innermost first,
 * as gdb shows them.
 */
#include "render/render.h"
#include "render/status.h"
#include "script/walk.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ANSI_RESET  "\033[0m"
#define ANSI_DIM    "\033[2m"
#define ANSI_BOLD   "\033[1m"
#define ANSI_RED    "\033[31m"
#define ANSI_GREEN  "\033[32m"
#define ANSI_YELLOW "\033[33m"
#define ANSI_CYAN   "\033[36m"

#define MAX_TAILS 8

void renderer_init(struct renderer *r, enum render_format format, enum render_color color,
		   const struct render_hooks *hooks)
{
	struct timespec mono, real;

	memset(r, 0, sizeof(*r));
	r->format = format;
	r->color = format == RENDER_PRETTY ? color : RENDER_COLOR_NONE;
	r->hooks = *hooks;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	r->start_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	r->mono_to_real_ns = ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000000ll +
			     ((int64_t)real.tv_nsec - (int64_t)mono.tv_nsec);
}

int render_format_parse(const char *s)
{
	if (strcmp(s, "pretty") == 0)
		return RENDER_PRETTY;
	if (strcmp(s, "plain") == 0)
		return RENDER_PLAIN;
	if (strcmp(s, "json") == 0)
		return RENDER_JSON;
	return -1;
}

static void color_on(const struct renderer *r, struct strbuf *out, const char *code)
{
	if (r->color == RENDER_COLOR_ANSI)
		strbuf_addstr(out, code);
}

static void color_off(const struct renderer *r, struct strbuf *out)
{
	if (r->color == RENDER_COLOR_ANSI)
		strbuf_addstr(out, ANSI_RESET);
}

/* ---- expressions as text ---- */

static int precedence(enum ast_op op)
{
	switch (op) {
	case AST_OP_MUL: case AST_OP_DIV: case AST_OP_MOD: return 10;
	case AST_OP_ADD: case AST_OP_SUB: return 9;
	case AST_OP_SHL: case AST_OP_SHR: return 8;
	case AST_OP_LT: case AST_OP_LE: case AST_OP_GT: case AST_OP_GE: return 7;
	case AST_OP_EQ: case AST_OP_NE: return 6;
	case AST_OP_BITAND: return 5;
	case AST_OP_BITXOR: return 4;
	case AST_OP_BITOR: return 3;
	case AST_OP_AND: return 2;
	case AST_OP_OR: return 1;
	default: return 11;
	}
}

static void expr_text(const struct ast_expr *e, int outer, struct strbuf *out);

static void binary_text(const struct ast_expr *e, int outer, struct strbuf *out)
{
	int p = precedence(e->op);

	if (p < outer)
		strbuf_addch(out, '(');
	expr_text(e->lhs, p, out);
	strbuf_addf(out, " %s ", ast_op_name(e->op));
	expr_text(e->rhs, p + 1, out);
	if (p < outer)
		strbuf_addch(out, ')');
}

static void expr_text(const struct ast_expr *e, int outer, struct strbuf *out)
{
	switch (e->kind) {
	case AST_EXPR_INT:
	case AST_EXPR_BOOL:
	case AST_EXPR_STRING:
	case AST_EXPR_IDENT:
	case AST_EXPR_SPECIAL:
		ast_leaf_text(e, out);
		break;
	case AST_EXPR_UNARY:
		strbuf_addstr(out, ast_op_name(e->op));
		expr_text(e->lhs, 11, out);
		break;
	case AST_EXPR_BINARY:
		binary_text(e, outer, out);
		break;
	case AST_EXPR_MEMBER:
		expr_text(e->lhs, 12, out);
		strbuf_addf(out, ".%s", e->str);
		break;
	case AST_EXPR_INDEX:
		expr_text(e->lhs, 12, out);
		strbuf_addch(out, '[');
		expr_text(e->rhs, 0, out);
		strbuf_addch(out, ']');
		break;
	case AST_EXPR_CALL:
		strbuf_addf(out, "%s(", e->str);
		for (size_t i = 0; i < e->n_args; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			expr_text(e->args[i], 0, out);
		}
		strbuf_addch(out, ')');
		break;
	}
}

void render_expr_text(const struct ast_expr *e, struct strbuf *out)
{
	expr_text(e, 0, out);
}

/* ---- print items ---- */

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
	default:
		strbuf_addf(out, "<error status=%u>", a->status);
	}
	return true;
}

static void hex_bytes(const struct ev_arg *a, struct strbuf *out)
{
	for (size_t i = 0; i < a->len; i++)
		strbuf_addf(out, i ? " %02x" : "%02x", a->data[i]);
}

static void text_arg(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t,
		     struct strbuf *out)
{
	size_t n = strnlen((const char *)a->data, a->len);

	if (spec == AST_FMT_DEFAULT && t) {
		strbuf_addch(out, '"');
		for (size_t i = 0; i < n; i++) {
			unsigned char c = a->data[i];

			if (c == '"' || c == '\\')
				strbuf_addf(out, "\\%c", c);
			else if (c >= 0x20 && c < 0x7f)
				strbuf_addch(out, (char)c);
			else
				strbuf_addf(out, "\\x%02x", c);
		}
		strbuf_addch(out, '"');
		return;
	}
	strbuf_add(out, a->data, n);
}

static void arg_text(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t,
		     struct strbuf *out)
{
	bool hex = spec == AST_FMT_HEX || spec == AST_FMT_HEX_UPPER || spec == AST_FMT_PTR;

	if (arg_failed(a, out))
		return;
	if (a->kind == WR_ARG_STR) {
		text_arg(a, spec, t, out);
		return;
	}
	if (a->kind == WR_ARG_BYTES) {
		if (t && !hex)
			render_typed_value(t, a->data, a->len, out);
		else
			hex_bytes(a, out);
		return;
	}
	if (hex) {
		strbuf_addf(out, spec == AST_FMT_HEX_UPPER ? "0x%" PRIX64 : "0x%" PRIx64, a->value);
		return;
	}
	if (t && (a->kind == WR_ARG_ENUM || a->kind == WR_ARG_PTR || a->kind == WR_ARG_CHAR)) {
		uint8_t raw[8];

		memcpy(raw, &a->value, sizeof(raw));
		render_typed_value(t, raw, sizeof(raw), out);
		return;
	}
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
	case WR_ARG_CHAR:
		strbuf_addf(out, "'%c'", (char)a->value);
		break;
	default:
		strbuf_addf(out, "%" PRId64, (int64_t)a->value);
		break;
	}
}

static const struct dw_type *arg_type(const struct render_probe *probe, unsigned print,
				      unsigned arg)
{
	for (size_t i = 0; probe && i < probe->n_arg_types; i++)
		if (probe->arg_types[i].print == print && probe->arg_types[i].arg == arg)
			return probe->arg_types[i].type;
	return NULL;
}

void render_print_text(const struct render_probe *probe, const struct ev_print *p,
		       struct strbuf *out)
{
	const struct ast_stmt *s = probe && probe->ast ? ast_probe_nth(probe->ast, AST_STMT_PRINT, p->index)
						   : NULL;
	size_t next_wire = 0, next_expr = 0;

	if (!s) {
		strbuf_addf(out, "<print #%u with %zu values>", p->index, p->n_args);
		return;
	}
	if (!s->fmt) {
		/* `print expr;` shows `expr = value` */
		render_expr_text(s->args[0], out);
		strbuf_addstr(out, " = ");
		if (s->args[0]->kind == AST_EXPR_STRING)
			strbuf_addstr(out, s->args[0]->str);
		else if (p->n_args)
			arg_text(&p->args[0], AST_FMT_DEFAULT, arg_type(probe, p->index, 0), out);
		return;
	}
	for (size_t i = 0; i < s->n_pieces; i++) {
		const struct ast_fmt_piece *piece = &s->pieces[i];
		const struct ast_expr *e;

		strbuf_addstr(out, piece->literal ? piece->literal : "");
		if (!piece->has_placeholder)
			continue;
		e = next_expr < s->n_args ? s->args[next_expr++] : NULL;
		if (e && e->kind == AST_EXPR_STRING)
			strbuf_addstr(out, e->str);
		else if (next_wire < p->n_args) {
			arg_text(&p->args[next_wire], piece->spec,
				 arg_type(probe, p->index, (unsigned)next_wire), out);
			next_wire++;
		}
		else
			strbuf_addstr(out, "<missing>");
	}
}

/* ---- backtraces ---- */

static const char *status_color(unsigned status)
{
	if (status == WR_BT_COMPLETE)
		return ANSI_GREEN;
	if (status == WR_BT_TRUNCATED || status == WR_BT_DWARF_UNAVAILABLE ||
	    status == WR_BT_UNSUPPORTED_CFI || status == WR_BT_NO_ROWS_FOR_PC ||
	    status == WR_BT_OFFSETS_UNAVAILABLE)
		return ANSI_YELLOW;
	return ANSI_RED;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

static void location_text(const struct dw_sym_frame *sf, struct strbuf *out)
{
	if (!sf->file || !sf->line)
		return;
	strbuf_addf(out, " at %s:%u", base_name(sf->file), sf->line);
	if (sf->col)
		strbuf_addf(out, ":%u", sf->col);
}

static void where_text(const struct wr_bt_frame *f, const struct render_frame *rf,
		       struct strbuf *out)
{
	if (rf->module_name)
		strbuf_addf(out, " [%s+0x%" PRIx64 "]", rf->module_name, (uint64_t)f->pc);
	else
		strbuf_addf(out, " [0x%" PRIx64 "]", (uint64_t)f->ip);
}

static void function_text(const struct dw_sym_frame *sf, struct strbuf *out)
{
	strbuf_addstr(out, sf->function ? sf->function : "??");
	if (sf->params)
		strbuf_addf(out, "(%s)", sf->params);
}

/* Lines of one physical frame (its inlined calls first). */
static void frame_lines(struct renderer *r, const struct ev_backtrace *bt, unsigned i,
			const char *indent, struct strbuf *out)
{
	const struct wr_bt_frame *f = &bt->frames[i];
	struct render_frame rf = { 0 };
	const struct dw_sym_frame *phys;
	bool show_inline = bt->flags & WR_BT_F_INLINE;

	if (bt->flags & WR_BT_F_RAW) {
		strbuf_addf(out, "%s#%u 0x%" PRIx64, indent, i, ev_frame_pc(f));
		r->hooks.frame(r->hooks.ctx, f, &rf);
		where_text(f, &rf, out);
		strbuf_addf(out, " raw=0x%" PRIx64 " cookie=0x%04x", (uint64_t)f->ip, (unsigned)f->cookie);
		if (f->flags)
			strbuf_addf(out, " flags=0x%x", f->flags);
		strbuf_addch(out, '\n');
		return;
	}
	r->hooks.frame(r->hooks.ctx, f, &rf);
	if (rf.signal_trampoline) {
		strbuf_addf(out, "%s#%u <signal handler called>", indent, i);
		where_text(f, &rf, out);
		strbuf_addch(out, '\n');
		return;
	}
	if (rf.sym.n == 0) {
		strbuf_addf(out, "%s#%u 0x%" PRIx64, indent, i, rf.module_name ? (uint64_t)f->pc : (uint64_t)f->ip);
		where_text(f, &rf, out);
		strbuf_addch(out, '\n');
		return;
	}
	for (size_t k = 0; show_inline && k + 1 < rf.sym.n; k++) {
		strbuf_addf(out, "%s#%u.inline ", indent, i);
		function_text(&rf.sym.frames[k], out);
		location_text(&rf.sym.frames[k], out);
		strbuf_addch(out, '\n');
	}
	phys = &rf.sym.frames[rf.sym.n - 1];
	strbuf_addf(out, "%s#%u ", indent, i);
	function_text(phys, out);
	location_text(show_inline ? phys : &rf.sym.frames[0], out);
	where_text(f, &rf, out);
	strbuf_addch(out, '\n');
}

/* Tail-called functions between frame @i and its caller (none recorded
 * on the stack; recovered from call-site debug info). */
static size_t tails_after(struct renderer *r, const struct ev_backtrace *bt, unsigned i,
			  struct render_frame *tf, size_t max)
{
	if (!r->hooks.tailcalls || i + 1 >= bt->frame_count)
		return 0;
	return r->hooks.tailcalls(r->hooks.ctx, &bt->frames[i], &bt->frames[i + 1], tf, max);
}

static void tail_lines(struct renderer *r, const struct ev_backtrace *bt, unsigned i,
		       const char *indent, struct strbuf *out)
{
	struct render_frame tf[MAX_TAILS];
	size_t n = tails_after(r, bt, i, tf, MAX_TAILS);

	for (size_t k = 0; k < n; k++) {
		strbuf_addf(out, "%s#%u.tail ", indent, i);
		if (tf[k].sym.n) {
			function_text(&tf[k].sym.frames[0], out);
			location_text(&tf[k].sym.frames[0], out);
		} else {
			strbuf_addstr(out, "??");
		}
		strbuf_addf(out, " [%s+0x%" PRIx64 "]\n", tf[k].module_name, tf[k].tail_pc);
	}
}

static void bt_text(struct renderer *r, const struct ev_backtrace *bt, const char *indent,
		    struct strbuf *out)
{
	char sub[16];

	snprintf(sub, sizeof(sub), "%s  ", indent);
	strbuf_addstr(out, indent);
	color_on(r, out, status_color(bt->status));
	strbuf_addf(out, "backtrace: %s, %u frame%s (max %u)", bt_status_label(bt->status),
		    bt->frame_count, bt->frame_count == 1 ? "" : "s", bt->requested_depth);
	if (bt->flags & WR_BT_F_RAW)
		strbuf_addstr(out, " raw");
	color_off(r, out);
	strbuf_addch(out, '\n');
	for (unsigned i = 0; i < bt->frame_count; i++) {
		frame_lines(r, bt, i, sub, out);
		if (!(bt->flags & WR_BT_F_RAW))
			tail_lines(r, bt, i, sub, out);
	}
	if (bt->status != WR_BT_COMPLETE) {
		strbuf_addstr(out, indent);
		color_on(r, out, status_color(bt->status));
		strbuf_addf(out, "stopped: %s", bt_status_label(bt->status));
		if (bt->error)
			strbuf_addf(out, " (%s, code=%u)", bt_error_label(bt->error), bt->error);
		color_off(r, out);
		strbuf_addch(out, '\n');
	}
}

/* ---- JSON ---- */

static void json_str_or_null(struct strbuf *out, const char *key, const char *val)
{
	strbuf_addf(out, "\"%s\":", key);
	if (val)
		strbuf_add_json_str(out, val);
	else
		strbuf_addstr(out, "null");
}

static void json_uint_or_null(struct strbuf *out, const char *key, unsigned val)
{
	if (val)
		strbuf_addf(out, "\"%s\":%u", key, val);
	else
		strbuf_addf(out, "\"%s\":null", key);
}

static void json_frame(struct strbuf *out, unsigned index, const struct wr_bt_frame *f,
		       const struct render_frame *rf, const struct dw_sym_frame *sf, bool is_inline)
{
	uint64_t pc = rf->tail_pc ? rf->tail_pc : f->pc;

	strbuf_addf(out, "{\"index\":%u,", index);
	json_str_or_null(out, "function", rf->signal_trampoline ? "<signal handler called>"
				 : sf ? sf->function : NULL);
	strbuf_addch(out, ',');
	json_str_or_null(out, "params", sf ? sf->params : NULL);
	strbuf_addch(out, ',');
	json_str_or_null(out, "file", sf && sf->line ? base_name(sf->file) : NULL);
	strbuf_addch(out, ',');
	json_str_or_null(out, "path", sf && sf->line ? sf->file : NULL);
	strbuf_addch(out, ',');
	json_uint_or_null(out, "line", sf ? sf->line : 0);
	strbuf_addch(out, ',');
	json_uint_or_null(out, "column", sf ? sf->col : 0);
	strbuf_addch(out, ',');
	json_str_or_null(out, "module", rf->module_path);
	strbuf_addf(out, ",\"offset\":");
	if (rf->module_path)
		strbuf_addf(out, "\"0x%" PRIx64 "\"", pc);
	else
		strbuf_addstr(out, "null");
	if (rf->tail_pc)
		strbuf_addstr(out, ",\"ip\":null");
	else
		strbuf_addf(out, ",\"ip\":\"0x%" PRIx64 "\"", (uint64_t)f->ip);
	strbuf_addf(out, ",\"inline\":%s,\"tailcall\":%s}", is_inline ? "true" : "false",
		    rf->tail_pc ? "true" : "false");
}

static void json_tails(struct renderer *r, const struct ev_backtrace *bt, unsigned i,
		       struct strbuf *out)
{
	struct render_frame tf[MAX_TAILS];
	size_t n = tails_after(r, bt, i, tf, MAX_TAILS);

	for (size_t k = 0; k < n; k++) {
		strbuf_addch(out, ',');
		json_frame(out, i, &bt->frames[i], &tf[k], tf[k].sym.n ? &tf[k].sym.frames[0] : NULL,
			   false);
	}
}

static void bt_json(struct renderer *r, const struct ev_backtrace *bt, struct strbuf *out)
{
	bool first = true;

	strbuf_addf(out, "{\"type\":\"backtrace\",\"status\":\"%s\",\"status_code\":%u,"
		    "\"error\":\"%s\",\"error_code\":%u,\"max_depth\":%u,\"frame_count\":%u,\"frames\":[",
		    bt_status_label(bt->status), bt->status, bt_error_label(bt->error), bt->error,
		    bt->requested_depth, bt->frame_count);
	for (unsigned i = 0; i < bt->frame_count; i++) {
		const struct wr_bt_frame *f = &bt->frames[i];
		struct render_frame rf = { 0 };
		size_t n;

		r->hooks.frame(r->hooks.ctx, f, &rf);
		n = rf.sym.n;
		for (size_t k = 0; (bt->flags & WR_BT_F_INLINE) && k + 1 < n; k++) {
			strbuf_addstr(out, first ? "" : ",");
			json_frame(out, i, f, &rf, &rf.sym.frames[k], true);
			first = false;
		}
		strbuf_addstr(out, first ? "" : ",");
		json_frame(out, i, f, &rf, n ? &rf.sym.frames[n - 1] : NULL, false);
		first = false;
		json_tails(r, bt, i, out);
	}
	strbuf_addstr(out, "]}");
}

static void event_json(struct renderer *r, const struct render_probe *probe,
		       const struct event *ev, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(out, "{\"seq\":%" PRIu64 ",\"probe\":%u,", r->seq,
		    probe ? probe->id : ev->hdr.probe_id);
	json_str_or_null(out, "target", probe ? probe->target : NULL);
	strbuf_addf(out, ",\"pid\":%u,\"tid\":%u,\"timestamp_ns\":%" PRIu64 ",", ev->hdr.pid,
		    ev->hdr.tid, (uint64_t)ev->hdr.timestamp_ns);
	if (ev->hdr.flags & WR_EVENT_F_TRUNCATED)
		strbuf_addstr(out, "\"truncated\":true,");
	strbuf_addstr(out, "\"items\":[");
	for (size_t i = 0; i < ev->n_items; i++) {
		const struct ev_item *it = &ev->items[i];

		if (i)
			strbuf_addch(out, ',');
		if (it->type == WR_ITEM_PRINT) {
			strbuf_reset(&text);
			render_print_text(probe, &it->print, &text);
			strbuf_addstr(out, "{\"type\":\"print\",\"text\":");
			strbuf_add_json_str(out, text.buf);
			strbuf_addch(out, '}');
		} else if (it->type == WR_ITEM_BACKTRACE) {
			bt_json(r, &it->bt, out);
		} else {
			strbuf_addf(out, "{\"type\":\"unknown\",\"code\":%u}", it->type);
		}
	}
	strbuf_addstr(out, "]}\n");
	strbuf_release(&text);
}

/* ---- text ---- */

static void header_text(struct renderer *r, const struct render_probe *probe,
			const struct event *ev, struct strbuf *out)
{
	int64_t ns = (int64_t)ev->hdr.timestamp_ns + r->mono_to_real_ns;
	time_t secs = (time_t)(ns / 1000000000ll);
	struct tm tm;

	color_on(r, out, ANSI_CYAN);
	if (r->relative_time) {
		strbuf_addf(out, "[+%.6f]", (double)(ev->hdr.timestamp_ns - r->start_ns) / 1e9);
	} else {
		localtime_r(&secs, &tm);
		strbuf_addf(out, "[%02d:%02d:%02d.%03d]", tm.tm_hour, tm.tm_min, tm.tm_sec,
			    (int)((ns / 1000000) % 1000));
	}
	color_off(r, out);
	strbuf_addf(out, " #%u %u/%u %s", probe ? probe->id : ev->hdr.probe_id, ev->hdr.pid,
		    ev->hdr.tid, probe && probe->target ? probe->target : "?");
	if (ev->hdr.flags & WR_EVENT_F_TRUNCATED)
		strbuf_addstr(out, " (truncated: the event exceeded its size limit)");
	strbuf_addch(out, '\n');
}

void render_event(struct renderer *r, const struct event *ev, struct strbuf *out)
{
	const struct render_probe *probe = r->hooks.probe(r->hooks.ctx, ev->hdr.probe_id);
	const char *indent = r->format == RENDER_PRETTY ? "  " : "";

	r->seq++;
	if (r->format == RENDER_JSON) {
		event_json(r, probe, ev, out);
		return;
	}
	if (r->format == RENDER_PRETTY)
		header_text(r, probe, ev, out);
	for (size_t i = 0; i < ev->n_items; i++) {
		const struct ev_item *it = &ev->items[i];

		if (it->type == WR_ITEM_PRINT) {
			strbuf_addstr(out, indent);
			render_print_text(probe, &it->print, out);
			strbuf_addch(out, '\n');
		} else if (it->type == WR_ITEM_BACKTRACE) {
			bt_text(r, &it->bt, indent, out);
		}
	}
}
