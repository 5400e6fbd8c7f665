/* backtrace.c - backtrace items as spans.
 *
 * Shown: `backtrace: <status>, N frames (max D)`, one line per frame
 * (`#i func(params) at file:line:col [module+0xpc]`; each inlined call
 * first as `#i.inline`, innermost first, as gdb shows them; functions that
 * left the stack by tail calls after it as `#i.tail`), and unless the
 * stack was walked to its end, `stopped: <status> (<error>, code=N)`.
 * The header and stop lines carry the status's tone.
 *
 * Data: one JSON frame object per frame line, with index, function,
 * params, file, path, line, column, module, offset, ip, inline and
 * tailcall, null where unknown.  With frame values (`bt args`, `bt full`)
 * the parameters are shown with their values in place of their types,
 * `#1 mid(depth=12, tag=42, ratio=2.5) at ...`, and `bt full` puts the
 * frame's locals under its line (`name = value`, or `No locals.`), as
 * gdb's bt and bt full; as data, "args" and "locals" lists of {name,
 * value}.  `bt raw` shows addresses only, but its
 * data is that of a symbolized backtrace, so a JSON consumer sees one
 * shape whatever the options.
 */
#include "render/render_priv.h"
#include "render/status.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAILS 8
#define MAX_FRAME_VARS 64
#define SIGNAL_FRAME "<signal handler called>"

/* How much of a frame line is shown. */
enum line_show {
	LINE_HIDDEN,   /* data only: inlined and tail-called frames of `bt raw` */
	LINE_RAW,      /* the address and the frame's raw fields */
	LINE_SYMBOLS,  /* function, parameters, location, module */
};

/* What one frame line is made of. */
struct frame_line {
	unsigned index;                    /* the physical frame's number */
	const char *suffix;                /* "", ".inline" or ".tail" */
	const struct wr_bt_frame *f;
	const struct render_frame *rf;
	const struct dw_sym_frame *sym;    /* its function and location as data (NULL: unknown) */
	const struct dw_sym_frame *where;  /* the location shown, when not sym's */
	enum line_show show;
	const struct render_var *vars;     /* frame values (bt args, full), or NULL */
	long n_vars;
	const char *unavailable;           /* why the frame values are not known, or NULL */
	bool locals;                       /* bt full: its locals under it */
};

static void show(struct span_list *out, enum span_role role, enum span_tone tone, const char *text)
{
	if (*text)
		span_add(out, role, tone, text, NULL);
}

/* A field that may be unknown: @data NULL is null; @shown NULL shows
 * nothing. */
static void field(struct span_list *out, enum span_role role, const char *shown, const char *data)
{
	if (data) {
		span_add(out, role, SPAN_TONE_NONE, shown, data);
		return;
	}
	if (shown)
		show(out, role, SPAN_TONE_NONE, shown);
	span_null(out, role);
}

/* A number shown as @shown (0: not shown) with data @data (0: null). */
static void number_field(struct span_list *out, enum span_role role, unsigned shown, unsigned data)
{
	char s[STRBUF_U64_MAX], d[STRBUF_U64_MAX];
	size_t ns = shown ? fmt_u64(s, shown) : 0, nd = data ? fmt_u64(d, data) : 0;

	if (data)
		span_addn(out, role, SPAN_TONE_NONE, shown ? s : NULL, ns, d, nd);
	else
		field(out, role, shown ? s : NULL, NULL);
}

/* A shown-only leaf: @prefix, then @v in hex after "0x". */
static void show_hex(struct span_list *out, enum span_role role, const char *prefix, uint64_t v)
{
	size_t at = span_text_begin(out);

	strbuf_addstr(&out->text, prefix);
	strbuf_add_hex(&out->text, v);
	span_show_end(out, role, SPAN_TONE_NONE, at);
}

static void function_spans(struct span_list *out, const struct frame_line *fl)
{
	const struct dw_sym_frame *sf = fl->sym;
	bool shown = fl->show == LINE_SYMBOLS, tail = fl->rf->tail_pc != 0;

	if (fl->rf->signal_trampoline) {
		if (shown)
			show(out, SPAN_TEXT, SPAN_TONE_NONE, " ");
		span_add(out, SPAN_FUNCTION, SPAN_TONE_NONE, shown ? SIGNAL_FRAME : NULL, SIGNAL_FRAME);
		span_null(out, SPAN_PARAMS);
		return;
	}
	if (!sf && !tail) {
		/* Nothing is known: the address stands in for the name. */
		if (shown)
			show_hex(out, SPAN_ADDRESS, " ",
				 fl->rf->module_name ? (uint64_t)fl->f->pc : (uint64_t)fl->f->ip);
		span_null(out, SPAN_FUNCTION);
		span_null(out, SPAN_PARAMS);
		return;
	}
	if (shown)
		show(out, SPAN_TEXT, SPAN_TONE_NONE, " ");
	field(out, SPAN_FUNCTION, shown ? (sf && sf->function ? sf->function : "??") : NULL,
	      sf ? sf->function : NULL);
	if (shown && sf && sf->params && !fl->vars) {
		size_t at = span_text_begin(out);

		strbuf_addch(&out->text, '(');
		strbuf_addstr(&out->text, sf->params);
		strbuf_addch(&out->text, ')');
		span_show_end(out, SPAN_PARAMS, SPAN_TONE_NONE, at);
	}
	field(out, SPAN_PARAMS, NULL, sf ? sf->params : NULL);
}

/* One variable: a {name, value} object shown as @sep name @eq value. */
static void var_spans(struct span_list *out, const struct render_var *v, const char *sep,
		      const char *eq)
{
	span_open(out, SPAN_OBJECT);
	show(out, SPAN_TEXT, SPAN_TONE_NONE, sep);
	span_add(out, SPAN_VAR_NAME, SPAN_TONE_NONE, v->name, v->name);
	show(out, SPAN_TEXT, SPAN_TONE_NONE, eq);
	if (v->entry) { /* gdb's x=x@entry=5 */
		show(out, SPAN_TEXT, SPAN_TONE_NONE, v->name);
		show(out, SPAN_TEXT, SPAN_TONE_NONE, "@entry=");
	}
	span_add(out, SPAN_VAR_VALUE, SPAN_TONE_NONE, v->value, v->value);
	if (v->entry) {
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "entry");
		span_add(out, SPAN_LITERAL, SPAN_TONE_NONE, NULL, "true");
	}
	span_close(out);
}

/* `<unavailable: why>` shown after @pad when the frame values are not
 * known: never an empty list that reads as a function without
 * parameters.  The reason is data under the frame's values_unavailable. */
static void unavailable_spans(struct span_list *out, const struct frame_line *fl, const char *pad)
{
	if (!fl->unavailable)
		return;
	show(out, SPAN_TEXT, SPAN_TONE_NONE, pad);
	show(out, SPAN_TEXT, SPAN_TONE_NONE, "<unavailable: ");
	show(out, SPAN_TEXT, SPAN_TONE_NONE, fl->unavailable);
	show(out, SPAN_TEXT, SPAN_TONE_NONE, ">");
}

/* `(a=1, b=0x7ffd...)`: the parameters with their values, as gdb's bt. */
static void args_spans(struct span_list *out, const struct frame_line *fl)
{
	bool first = true;

	span_open(out, SPAN_ARGS);
	show(out, SPAN_TEXT, SPAN_TONE_NONE, "(");
	for (long k = 0; k < fl->n_vars; k++) {
		if (!fl->vars[k].param)
			continue;
		var_spans(out, &fl->vars[k], first ? "" : ", ", "=");
		first = false;
	}
	unavailable_spans(out, fl, "");
	show(out, SPAN_TEXT, SPAN_TONE_NONE, ")");
	span_close(out);
}

/* bt full: the locals, a line each under the frame's, as gdb's bt full. */
static void locals_spans(struct span_list *out, const char *indent, const struct frame_line *fl)
{
	bool any = false;
	char pad[32];

	snprintf(pad, sizeof(pad), "%s      ", indent);
	span_open(out, SPAN_LOCALS);
	for (long k = 0; k < fl->n_vars; k++) {
		if (fl->vars[k].param)
			continue;
		var_spans(out, &fl->vars[k], pad, " = ");
		span_eol(out);
		any = true;
	}
	if (!any && fl->unavailable) {
		unavailable_spans(out, fl, pad);
		span_eol(out);
	} else if (!any) {
		show(out, SPAN_TEXT, SPAN_TONE_NONE, pad);
		/* gdb's words: no debug info names the function's variables */
		show(out, SPAN_TEXT, SPAN_TONE_NONE, fl->sym && fl->sym->params ? "No locals."
						     : "No symbol table info available.");
		span_eol(out);
	}
	span_close(out);
}

/* " at file:line:col" as shown (from fl->where, else fl->sym), and file,
 * path, line and column as data (from fl->sym). */
static void location_spans(struct span_list *out, const struct frame_line *fl)
{
	const struct dw_sym_frame *sf = fl->sym, *at = fl->where ? fl->where : fl->sym;
	bool shown = fl->show == LINE_SYMBOLS && at && at->file && at->line;
	bool known = sf && sf->line;

	if (shown)
		show(out, SPAN_TEXT, SPAN_TONE_NONE, " at ");
	field(out, SPAN_FILE, shown ? render_base_name(at->file) : NULL,
	      known ? render_base_name(sf->file) : NULL);
	field(out, SPAN_PATH, NULL, known ? sf->file : NULL);
	if (shown)
		show(out, SPAN_TEXT, SPAN_TONE_NONE, ":");
	number_field(out, SPAN_LINE, shown ? at->line : 0, sf ? sf->line : 0);
	if (shown && at->col)
		show(out, SPAN_TEXT, SPAN_TONE_NONE, ":");
	number_field(out, SPAN_COLUMN, shown ? at->col : 0, sf ? sf->col : 0);
}

/* " [module+0xpc]" as shown (@shown); module, offset and ip as data. */
static void where_spans(struct span_list *out, const struct frame_line *fl, bool shown)
{
	const struct render_frame *rf = fl->rf;
	uint64_t pc = rf->tail_pc ? rf->tail_pc : fl->f->pc;

	if (shown) {
		size_t at = span_text_begin(out);

		strbuf_add(&out->text, " [", 2);
		if (rf->module_name) {
			strbuf_addstr(&out->text, rf->module_name);
			strbuf_addch(&out->text, '+');
		}
		strbuf_add_hex(&out->text, rf->module_name ? pc : (uint64_t)fl->f->ip);
		strbuf_addch(&out->text, ']');
		span_show_end(out, SPAN_WHERE, SPAN_TONE_NONE, at);
	}
	field(out, SPAN_MODULE, NULL, rf->module_path);
	if (rf->module_path)
		span_data_hex(out, SPAN_OFFSET, pc);
	else
		span_null(out, SPAN_OFFSET);
	if (rf->tail_pc)
		span_null(out, SPAN_IP);
	else
		span_data_hex(out, SPAN_IP, fl->f->ip);
}

/* `bt raw`: the address, where it is, and the frame's raw fields. */
static void raw_where_spans(struct span_list *out, const struct frame_line *fl)
{
	const struct wr_bt_frame *f = fl->f;

	where_spans(out, fl, true);
	span_showf(out, SPAN_WHERE, SPAN_TONE_NONE, " raw=0x%" PRIx64 " cookie=0x%04x", (uint64_t)f->ip,
		   (unsigned)f->cookie);
	if (f->flags)
		span_showf(out, SPAN_WHERE, SPAN_TONE_NONE, " flags=0x%x", f->flags);
}

/* One frame line: a SPAN_FRAME group. */
static void frame_spans(struct span_list *out, const char *indent, const struct frame_line *fl)
{
	bool is_inline = fl->suffix[0] == '.' && fl->suffix[1] == 'i';
	char shown[STRBUF_U64_MAX + 16] = "#", data[STRBUF_U64_MAX];
	size_t n = fmt_u64(data, fl->index), len = strlen(fl->suffix);

	span_open(out, SPAN_FRAME);
	if (fl->show != LINE_HIDDEN)
		show(out, SPAN_TEXT, SPAN_TONE_NONE, indent);
	/* "#3.inline" shown, 3 as data */
	memcpy(shown + 1, data, n);
	memcpy(shown + 1 + n, fl->suffix, len + 1);
	span_addn(out, SPAN_FRAME_NO, SPAN_TONE_NONE, fl->show != LINE_HIDDEN ? shown : NULL,
		  1 + n + len, data, n);
	if (fl->show == LINE_RAW)
		show_hex(out, SPAN_ADDRESS, " ", ev_frame_pc(fl->f));
	function_spans(out, fl);
	/* as a plain bt: a function whose parameters are unknown (no debug
	 * info: _start) has no parentheses */
	if (fl->vars && fl->sym && fl->sym->params)
		args_spans(out, fl);
	if (fl->unavailable) {
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "values_unavailable");
		span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, fl->unavailable);
	}
	location_spans(out, fl);
	if (fl->show == LINE_RAW)
		raw_where_spans(out, fl);
	else
		where_spans(out, fl, fl->show == LINE_SYMBOLS && !is_inline);
	span_add(out, SPAN_INLINE, SPAN_TONE_NONE, NULL, is_inline ? "true" : "false");
	span_add(out, SPAN_TAILCALL, SPAN_TONE_NONE, NULL, fl->rf->tail_pc ? "true" : "false");
	if (fl->show != LINE_HIDDEN)
		span_eol(out);
	if (fl->vars && fl->locals)
		locals_spans(out, indent, fl);
	span_close(out);
}

/* What a values hook gave (@n, or -1 with @v[0].value saying why) into
 * @fl (whose sym is set). */
static void take_vars(long n, struct render_var *v, struct frame_line *fl)
{
	fl->n_vars = n;
	fl->vars = v;
	if (fl->n_vars >= 0)
		return;
	fl->n_vars = 0;
	if (fl->sym && fl->sym->params)
		fl->unavailable = v[0].value ? v[0].value : "not known";
	else
		fl->vars = NULL; /* no debug info: no values to miss, a plain line */
}

/* Whether the bt shows frame values (and the hook @hook to get them is set). */
static bool wants_vars(const struct ev_backtrace *bt, const void *hook)
{
	return (bt->flags & (WR_BT_F_ARGS | WR_BT_F_FULL)) && !(bt->flags & WR_BT_F_RAW) && hook;
}

/* The frame values of function level @level of frame @i into @v and
 * @fl (whose sym is set), when the bt asks for them: fl->vars stays NULL
 * when it does not, and fl->unavailable says why when they are not known. */
static void frame_vars(struct renderer *r, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
		       size_t level, struct render_var *v, struct frame_line *fl)
{
	fl->vars = NULL;
	fl->n_vars = 0;
	fl->unavailable = NULL;
	if (!wants_vars(bt, r->hooks.values))
		return;
	v[0].value = NULL;
	take_vars(r->hooks.values(r->hooks.ctx, pid, bt, i, (unsigned)level, bt->flags & WR_BT_F_FULL, v,
				  MAX_FRAME_VARS),
		  v, fl);
}

/* Tail-called functions between frame @i and its caller (none recorded
 * on the stack; recovered from call-site debug info), with their values
 * when the bt shows values. */
static void tail_spans(struct renderer *r, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
		       const char *indent, struct span_list *out)
{
	struct render_frame tf[MAX_TAILS];
	struct render_var v[MAX_FRAME_VARS];
	size_t n;

	if (!r->hooks.tailcalls || i + 1 >= bt->frame_count)
		return;
	n = r->hooks.tailcalls(r->hooks.ctx, &bt->frames[i], &bt->frames[i + 1], tf, MAX_TAILS);
	for (size_t k = 0; k < n; k++) {
		struct frame_line fl = {
			.index = i, .suffix = ".tail", .f = &bt->frames[i], .rf = &tf[k],
			.sym = tf[k].sym.n ? &tf[k].sym.frames[0] : NULL,
			.show = bt->flags & WR_BT_F_RAW ? LINE_HIDDEN : LINE_SYMBOLS,
			.locals = bt->flags & WR_BT_F_FULL,
		};

		if (fl.sym && wants_vars(bt, r->hooks.tail_values)) {
			v[0].value = NULL;
			take_vars(r->hooks.tail_values(r->hooks.ctx, pid, bt, i, &tf[k], bt->flags & WR_BT_F_FULL, v,
						       MAX_FRAME_VARS),
				  v, &fl);
		}
		frame_spans(out, indent, &fl);
	}
}

/* The lines of physical frame @i: its inlined calls, itself, and the
 * functions that left between it and its caller by tail calls. */
static void render_lines(struct renderer *r, uint32_t pid, uint32_t wire_id, const struct ev_backtrace *bt,
			 unsigned i, const char *indent, struct span_list *out)
{
	bool raw = bt->flags & WR_BT_F_RAW, with_inline = bt->flags & WR_BT_F_INLINE;
	struct render_frame rf = { 0 };
	struct render_var v[MAX_FRAME_VARS];
	struct frame_line fl = { .index = i, .suffix = ".inline", .f = &bt->frames[i], .rf = &rf,
				 .show = raw ? LINE_HIDDEN : LINE_SYMBOLS,
				 .locals = bt->flags & WR_BT_F_FULL };
	size_t hidden = 0;

	r->hooks.frame(r->hooks.ctx, fl.f, &rf);
	if (i == 0 && r->hooks.hidden_inlines)
		hidden = r->hooks.hidden_inlines(r->hooks.ctx, wire_id, fl.f, &rf);
	for (size_t k = hidden; with_inline && k + 1 < rf.sym.n; k++) {
		fl.sym = &rf.sym.frames[k];
		frame_vars(r, pid, bt, i, k, v, &fl);
		frame_spans(out, indent, &fl);
	}
	fl.suffix = "";
	fl.sym = rf.sym.n ? &rf.sym.frames[rf.sym.n - 1] : NULL;
	fl.vars = NULL;
	fl.unavailable = NULL;
	if (rf.sym.n && !rf.signal_trampoline)
		frame_vars(r, pid, bt, i, rf.sym.n - 1, v, &fl);
	/* Without inline frames, the line is where the pc is (as the
	 * innermost frame shown has it). */
	fl.where = rf.sym.n && !with_inline ? &rf.sym.frames[hidden < rf.sym.n ? hidden : 0] : NULL;
	fl.show = raw ? LINE_RAW : LINE_SYMBOLS;
	frame_spans(out, indent, &fl);
	tail_spans(r, pid, bt, i, indent, out);
}

/* ---- frame lines rendered before ----
 *
 * A probe on a hot function sends the same stacks again and again.  The
 * lines of a physical frame depend only on the frame, on its caller (for
 * tail calls), on its number, on the bt's options and the indent (the
 * renderer's format is its own for good), and what they show is cached
 * per module and pc for the session (symbolize.c, target_frames.c): so
 * are the lines.  An entry keeps their spans and texts, so a hit is two
 * copies; for NDJSON each frame object's JSON is sealed in as well
 * (span_seal_json()), and the writer copies it whole.  Frame values (`bt
 * args`, `bt full`) are read from each event's stack and are never
 * cached.
 */
#define LINE_CACHE 4096 /* entries, a power of two: deep stacks of several probes */

struct line_key {
	struct wr_bt_frame frame, caller; /* caller zeroed for the last frame */
	uint32_t index;
	uint32_t site;    /* frame 0: the probe site's wire id (its inline frames hidden) */
	uint8_t bt_flags;
	char indent[15];
};

struct line_entry {
	struct line_key key;
	bool used;
	struct span_list spans;
};

struct render_lines {
	struct line_entry v[LINE_CACHE];
};

void render_lines_free(struct render_lines *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < LINE_CACHE; i++)
		if (c->v[i].used)
			span_list_release(&c->v[i].spans);
	free(c);
}

static uint64_t line_hash(const struct line_key *k)
{
	uint64_t h = k->frame.ip * 0x9e3779b97f4a7c15ull;

	h ^= (k->caller.ip + k->index) * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)k->bt_flags << 7 ^ (uint64_t)(unsigned char)k->indent[0] << 17;
	return h ^ h >> 29;
}

/* The lines of physical frame @i, from the cache when they can be. */
static void frame_lines(struct renderer *r, uint32_t pid, uint32_t wire_id, const struct ev_backtrace *bt,
			unsigned i, const char *indent, struct span_list *out)
{
	struct line_key key;
	struct line_entry *e;

	if ((bt->flags & (WR_BT_F_ARGS | WR_BT_F_FULL)) || strlen(indent) >= sizeof(key.indent)) {
		render_lines(r, pid, wire_id, bt, i, indent, out);
		return;
	}
	memset(&key, 0, sizeof(key));
	key.frame = bt->frames[i];
	if (r->hooks.tailcalls && i + 1 < bt->frame_count)
		key.caller = bt->frames[i + 1];
	key.index = i;
	key.site = i == 0 ? wire_id : 0;
	key.bt_flags = bt->flags;
	strcpy(key.indent, indent);
	if (!r->lines)
		r->lines = xcalloc(1, sizeof(*r->lines));
	e = &r->lines->v[line_hash(&key) & (LINE_CACHE - 1)];
	if (!e->used || memcmp(&e->key, &key, sizeof(key)) != 0) {
		if (!e->used)
			span_list_init(&e->spans);
		span_list_reset(&e->spans);
		e->used = true;
		memcpy(&e->key, &key, sizeof(key));
		render_lines(r, pid, wire_id, bt, i, indent, &e->spans);
		if (r->format == RENDER_JSON)
			span_seal_json(&e->spans);
	}
	if (r->format == RENDER_JSON && r->json_only)
		span_append_json(out, &e->spans);
	else
		span_append(out, &e->spans);
}

static void header_spans(const struct ev_backtrace *bt, const char *indent, struct span_list *out)
{
	enum span_tone tone = bt_status_tone(bt->status);

	show(out, SPAN_TEXT, SPAN_TONE_NONE, indent);
	show(out, SPAN_TEXT, tone, "backtrace: ");
	span_add(out, SPAN_STATUS, tone, bt_status_label(bt->status), bt_status_label(bt->status));
	span_data_u64(out, SPAN_STATUS_CODE, bt->status);
	span_add(out, SPAN_ERROR, SPAN_TONE_NONE, NULL, bt_error_label(bt->error));
	span_data_u64(out, SPAN_ERROR_CODE, bt->error);
	span_data_u64(out, SPAN_DEPTH, bt->requested_depth);
	span_data_u64(out, SPAN_FRAME_COUNT, bt->frame_count);
	show(out, SPAN_TEXT, tone, ", ");
	span_show_u64(out, SPAN_FRAME_COUNT, tone, bt->frame_count);
	show(out, SPAN_TEXT, tone, bt->frame_count == 1 ? " frame (max " : " frames (max ");
	span_show_u64(out, SPAN_DEPTH, tone, bt->requested_depth);
	show(out, SPAN_TEXT, tone, bt->flags & WR_BT_F_RAW ? ") raw" : ")");
	span_eol(out);
}

/* `stopped: <status> (<error>, code=N)`, shown only. */
static void stop_spans(const struct ev_backtrace *bt, const char *indent, struct span_list *out)
{
	enum span_tone tone = bt_status_tone(bt->status);

	show(out, SPAN_TEXT, SPAN_TONE_NONE, indent);
	show(out, SPAN_TEXT, tone, "stopped: ");
	show(out, SPAN_STATUS, tone, bt_status_label(bt->status));
	if (bt->error) {
		show(out, SPAN_TEXT, tone, " (");
		show(out, SPAN_ERROR, tone, bt_error_label(bt->error));
		show(out, SPAN_TEXT, tone, ", code=");
		span_show_u64(out, SPAN_ERROR_CODE, tone, bt->error);
		show(out, SPAN_TEXT, tone, ")");
	}
	span_eol(out);
}

void render_backtrace(struct renderer *r, uint32_t pid, uint32_t wire_id, const struct ev_backtrace *bt,
		      const char *indent, struct span_list *out)
{
	char sub[16];

	snprintf(sub, sizeof(sub), "%s  ", indent);
	span_add(out, SPAN_TYPE, SPAN_TONE_NONE, NULL, "backtrace");
	header_spans(bt, indent, out);
	span_open(out, SPAN_FRAMES);
	for (unsigned i = 0; i < bt->frame_count; i++)
		frame_lines(r, pid, wire_id, bt, i, sub, out);
	span_close(out);
	if (bt->status != WR_BT_COMPLETE)
		stop_spans(bt, indent, out);
}
