/* span.c - span lists and the writers built on them (see span.h).
 *
 * A list keeps its spans in one array and every text in one buffer, each
 * NUL-terminated, so a span is a few bytes and adding one never allocates
 * once the list has grown to an event's size: the session reuses one list
 * for every event.
 */
#include "render/span.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* KEY_LEN(key): the length of a key given as a string literal, 0 for
 * NULL (whose type is void *, not char *), known at compile time so that
 * the JSON writer copies keys without measuring them. */
#define KEY_LEN(key) _Generic((key), char *: sizeof(key) - 1, default: 0)

static const struct {
	const char *key;
	enum span_json json;
	size_t key_len;
} roles[] = {
#define SPAN_ROLE_INFO(role, key, json) [role] = { key, json, KEY_LEN(key) },
	SPAN_ROLES(SPAN_ROLE_INFO)
#undef SPAN_ROLE_INFO
};

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

void span_list_init(struct span_list *l)
{
	memset(l, 0, sizeof(*l));
	strbuf_init(&l->text);
}

void span_list_release(struct span_list *l)
{
	free(l->v);
	free(l->open);
	strbuf_release(&l->text);
	memset(l, 0, sizeof(*l));
	strbuf_init(&l->text);
}

void span_list_reset(struct span_list *l)
{
	l->n = 0;
	l->depth = 0;
	strbuf_reset(&l->text);
}

const char *span_role_key(enum span_role role)
{
	return role < SPAN_ROLE_COUNT_ ? roles[role].key : NULL;
}

enum span_json span_role_json(enum span_role role)
{
	return role < SPAN_ROLE_COUNT_ ? roles[role].json : SPAN_JSON_NONE;
}

const char *span_show(const struct span_list *l, const struct span *s)
{
	return s->flags & SPAN_F_SHOW ? l->text.buf + s->show : "";
}

const char *span_data(const struct span_list *l, const struct span *s)
{
	return s->flags & SPAN_F_DATA && !(s->flags & SPAN_F_NULL) ? l->text.buf + s->data : "";
}

/* ---- building ---- */

static struct span *push(struct span_list *l, enum span_role role, enum span_tone tone,
			 unsigned flags)
{
	struct span *s;

	if (l->n == l->cap)
		l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	s = &l->v[l->n++];
	*s = (struct span){ .role = (uint8_t)role, .tone = (uint8_t)tone, .flags = (uint8_t)flags };
	return s;
}

static uint32_t keep_textn(struct span_list *l, const char *text, size_t n)
{
	uint32_t at = (uint32_t)l->text.len;

	strbuf_add(&l->text, text, n + 1); /* the NUL too */
	return at;
}

/* A leaf with one text from printf: shown (SPAN_F_SHOW) or data. */
static void add_textv(struct span_list *l, enum span_role role, enum span_tone tone, unsigned flag,
		      const char *fmt, va_list ap)
{
	uint32_t at = (uint32_t)l->text.len, len;
	struct span *s;


	strbuf_vaddf(&l->text, fmt, ap);
	len = (uint32_t)strlen(l->text.buf + at);
	strbuf_addch(&l->text, '\0');
	s = push(l, role, tone, flag);
	if (flag == SPAN_F_SHOW) {
		s->show = at;
		s->show_len = len;
	} else {
		s->data = at;
		s->data_len = len;
	}
}

void span_open(struct span_list *l, enum span_role role)
{
	push(l, role, SPAN_TONE_NONE, SPAN_F_OPEN);
	if (l->depth == l->cap_open)
		l->open = xgrow(l->open, &l->cap_open, l->depth + 1, sizeof(*l->open));
	l->open[l->depth++] = (uint8_t)role;
}

void span_close(struct span_list *l)
{
	if (l->depth)
		push(l, (enum span_role)l->open[--l->depth], SPAN_TONE_NONE, SPAN_F_CLOSE);
}

void span_add(struct span_list *l, enum span_role role, enum span_tone tone, const char *show,
	      const char *data)
{
	span_addn(l, role, tone, show, show ? strlen(show) : 0, data, data ? strlen(data) : 0);
}

void span_showf(struct span_list *l, enum span_role role, enum span_tone tone, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_textv(l, role, tone, SPAN_F_SHOW, fmt, ap);
	va_end(ap);
}

void span_datan(struct span_list *l, enum span_role role, const char *data, size_t n)
{
	uint32_t at = (uint32_t)l->text.len;
	size_t len = strnlen(data, n);
	struct span *s;

	strbuf_add(&l->text, data, len);
	strbuf_addch(&l->text, '\0');
	s = push(l, role, SPAN_TONE_NONE, SPAN_F_DATA);
	s->data = at;
	s->data_len = (uint32_t)len;
}

void span_addn(struct span_list *l, enum span_role role, enum span_tone tone, const char *show,
	       size_t show_len, const char *data, size_t data_len)
{
	uint32_t show_at = show ? keep_textn(l, show, show_len) : 0;
	uint32_t data_at = data ? keep_textn(l, data, data_len) : 0;
	struct span *s = push(l, role, tone, (show ? SPAN_F_SHOW : 0) | (data ? SPAN_F_DATA : 0));

	s->show = show_at;
	s->data = data_at;
	s->show_len = show ? (uint32_t)show_len : 0;
	s->data_len = data ? (uint32_t)data_len : 0;
}

void span_data_u64(struct span_list *l, enum span_role role, uint64_t v)
{
	char d[STRBUF_U64_MAX];

	span_addn(l, role, SPAN_TONE_NONE, NULL, 0, d, fmt_u64(d, v));
	l->v[l->n - 1].value = v;
}

void span_data_hex(struct span_list *l, enum span_role role, uint64_t v)
{
	char d[STRBUF_U64_MAX + 2] = "0x";

	span_addn(l, role, SPAN_TONE_NONE, NULL, 0, d, 2 + fmt_hex(d + 2, v));
	l->v[l->n - 1].value = v;
}

void span_show_u64(struct span_list *l, enum span_role role, enum span_tone tone, uint64_t v)
{
	char d[STRBUF_U64_MAX];

	span_addn(l, role, tone, d, fmt_u64(d, v), NULL, 0);
	l->v[l->n - 1].value = v;
}

void span_dataf(struct span_list *l, enum span_role role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_textv(l, role, SPAN_TONE_NONE, SPAN_F_DATA, fmt, ap);
	va_end(ap);
}

size_t span_text_begin(const struct span_list *l)
{
	return l->text.len;
}

void span_show_end(struct span_list *l, enum span_role role, enum span_tone tone, size_t at)
{
	uint32_t len = (uint32_t)(l->text.len - at);
	struct span *s;

	strbuf_addch(&l->text, '\0');
	s = push(l, role, tone, SPAN_F_SHOW);
	s->show = (uint32_t)at;
	s->show_len = len;
}

void span_data_end(struct span_list *l, enum span_role role, size_t at)
{
	uint32_t len = (uint32_t)(l->text.len - at);
	struct span *s;

	strbuf_addch(&l->text, '\0');
	s = push(l, role, SPAN_TONE_NONE, SPAN_F_DATA);
	s->data = (uint32_t)at;
	s->data_len = len;
}

void span_null(struct span_list *l, enum span_role role)
{
	push(l, role, SPAN_TONE_NONE, SPAN_F_DATA | SPAN_F_NULL);
}

void span_eol(struct span_list *l)
{
	span_add(l, SPAN_EOL, SPAN_TONE_NONE, "\n", NULL);
}

void span_append(struct span_list *l, const struct span_list *frag)
{
	uint32_t base = (uint32_t)l->text.len;
	struct span *v;

	if (l->n + frag->n > l->cap)
		l->v = xgrow(l->v, &l->cap, l->n + frag->n, sizeof(*l->v));
	v = l->v + l->n;
	memcpy(v, frag->v, frag->n * sizeof(*v));
	for (size_t i = 0; i < frag->n; i++) {
		v[i].show += base;
		v[i].data += base;
	}
	l->n += frag->n;
	strbuf_add(&l->text, frag->text.buf, frag->text.len);
}

/* Copy span @s of @frag to the end of @l with its texts. */
static void copy_span(struct span_list *l, const struct span_list *frag, const struct span *s)
{
	struct span *d;

	if (l->n == l->cap)
		l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	d = &l->v[l->n++];
	*d = *s;
	if (s->flags & SPAN_F_SHOW)
		d->show = keep_textn(l, frag->text.buf + s->show, s->show_len);
	if ((s->flags & SPAN_F_DATA) && !(s->flags & SPAN_F_NULL))
		d->data = keep_textn(l, frag->text.buf + s->data, s->data_len);
}

void span_append_json(struct span_list *l, const struct span_list *frag)
{
	for (size_t i = 0; i < frag->n; i++) {
		const struct span *s = &frag->v[i];

		if (!(s->flags & SPAN_F_JSON)) {
			copy_span(l, frag, s);
			continue;
		}
		/* the group's JSON, without the spans it holds */
		copy_span(l, frag, s);
		l->v[l->n - 1].data = keep_textn(l, frag->text.buf + s->data, s->data_len);
		l->v[l->n - 1].show_len = 0;
		i += s->show_len;
	}
}

/* ---- text ---- */

#define ANSI_RESET  "\033[0m"

static const char *ansi_color(const struct span *s)
{
	switch (s->tone) {
	case SPAN_TONE_GOOD: return "\033[32m";
	case SPAN_TONE_WARN: return "\033[33m";
	case SPAN_TONE_BAD: return "\033[31m";
	default: break;
	}
	return s->role == SPAN_TIME ? "\033[36m" : NULL;
}

void span_write_text(const struct span_list *l, enum span_color color, struct strbuf *out)
{
	const char *on = NULL;

	for (size_t i = 0; i < l->n; i++) {
		const struct span *s = &l->v[i];
		const char *want;

		if (!(s->flags & SPAN_F_SHOW))
			continue;
		want = color == SPAN_COLOR_ANSI ? ansi_color(s) : NULL;
		if (want != on) {
			if (on)
				strbuf_addstr(out, ANSI_RESET);
			if (want)
				strbuf_addstr(out, want);
			on = want;
		}
		strbuf_add(out, l->text.buf + s->show, s->show_len);
	}
	if (on)
		strbuf_addstr(out, ANSI_RESET);
}

/* ---- JSON ---- */

/* An open JSON container (or a display-only group, SPAN_JSON_NONE). */
struct json_level {
	enum span_json kind;
	bool any;  /* a member was written: the next needs a comma */
};

#define JSON_LEVELS_INLINE 32

struct json_writer {
	struct json_level *v;  /* inline[] until a value nests deeper */
	size_t n, cap;
	struct json_level *cur; /* the innermost real container; NULL at the top level */
	struct strbuf *out;
	const char *key;       /* a SPAN_KEY's name for the next member, or NULL */
	bool lines;            /* a newline after each top-level value (NDJSON) */
	struct json_level inline_v[JSON_LEVELS_INLINE];
};

/* The innermost real container, or NULL at the top level. */
static struct json_level *container(struct json_writer *w)
{
	for (size_t i = w->n; i-- > 0;)
		if (w->v[i].kind != SPAN_JSON_NONE)
			return &w->v[i];
	return NULL;
}

/* `"key":` of @role, in one copy: the writer does this for every member. */
static void add_role_key(struct strbuf *out, enum span_role role)
{
	size_t n = role < SPAN_ROLE_COUNT_ ? roles[role].key_len : 0;
	char *p;

	strbuf_grow(out, n + 3);
	p = out->buf + out->len;
	*p++ = '"';
	if (n)
		memcpy(p, roles[role].key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	*p = '\0';
	out->len = (size_t)(p - out->buf);
}

/* Start a member of the current container: a comma after the first, and
 * in an object its key (a SPAN_KEY's name, else the role's: the table's
 * keys are plain identifiers, written without escaping).  Nothing at the
 * top level. */
static void begin_member(struct json_writer *w, enum span_role role)
{
	struct json_level *c = w->cur;
	const char *key = w->key;

	w->key = NULL;
	if (!c)
		return;
	if (c->any)
		strbuf_addch(w->out, ',');
	c->any = true;
	if (c->kind != SPAN_JSON_OBJECT)
		return;
	if (key) {
		strbuf_add_json_str(w->out, key);
		strbuf_addch(w->out, ':');
	} else {
		add_role_key(w->out, role);
	}
}

static void json_push(struct json_writer *w, enum span_json kind)
{
	if (w->n == w->cap) {
		struct json_level *old = w->v;

		w->v = w->v == w->inline_v ? NULL : w->v;
		w->v = xgrow(w->v, &w->cap, w->n + 1, sizeof(*w->v));
		if (old == w->inline_v)
			memcpy(w->v, old, sizeof(w->inline_v));
	}
	w->v[w->n++] = (struct json_level){ kind, false };
	w->cur = container(w);
}

static void json_open(struct json_writer *w, const struct span *s)
{
	enum span_json kind = span_role_json(s->role);

	if (kind == SPAN_JSON_OBJECT || kind == SPAN_JSON_ARRAY) {
		begin_member(w, s->role);
		strbuf_addch(w->out, kind == SPAN_JSON_OBJECT ? '{' : '[');
	} else {
		kind = SPAN_JSON_NONE;
	}
	json_push(w, kind);
}

static void json_close(struct json_writer *w)
{
	enum span_json kind;

	if (!w->n)
		return;
	kind = w->v[--w->n].kind;
	w->cur = container(w);
	if (kind == SPAN_JSON_NONE)
		return;
	strbuf_addch(w->out, kind == SPAN_JSON_OBJECT ? '}' : ']');
	if (!w->cur && w->lines)
		strbuf_addch(w->out, '\n');
}

/* A group sealed by span_seal_json(): its value as written then. */
static void json_sealed(struct json_writer *w, const struct span_list *l, const struct span *s)
{
	begin_member(w, s->role);
	strbuf_add(w->out, l->text.buf + s->data, s->data_len);
	if (!w->cur && w->lines)
		strbuf_addch(w->out, '\n');
}

static void json_leaf(struct json_writer *w, const struct span_list *l, const struct span *s)
{
	enum span_json kind = span_role_json(s->role);

	if (s->role == SPAN_KEY && (s->flags & SPAN_F_DATA))
		w->key = span_data(l, s);
	if (!(s->flags & SPAN_F_DATA) || !w->cur || kind == SPAN_JSON_NONE)
		return;
	begin_member(w, s->role);
	if (s->flags & SPAN_F_NULL)
		strbuf_add(w->out, "null", 4);
	else if (kind == SPAN_JSON_STRING)
		strbuf_add_json_str(w->out, l->text.buf + s->data);
	else
		strbuf_add(w->out, l->text.buf + s->data, s->data_len);
}

/* Spans @from to @to of @l through @w, which is then done. */
static void json_spans(struct json_writer *w, const struct span_list *l, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct span *s = &l->v[i];

		if (s->flags & SPAN_F_JSON) {
			json_sealed(w, l, s);
			i += s->show_len;
		} else if (s->flags & SPAN_F_OPEN) {
			json_open(w, s);
		} else if (s->flags & SPAN_F_CLOSE) {
			json_close(w);
		} else {
			json_leaf(w, l, s);
		}
	}
	if (w->v != w->inline_v)
		free(w->v);
}

void span_write_json(const struct span_list *l, struct strbuf *out)
{
	struct json_writer w = { .out = out, .cap = JSON_LEVELS_INLINE, .lines = true };

	w.v = w.inline_v;
	json_spans(&w, l, 0, l->n);
}

/* The index one past the close of the group @open opens. */
static size_t group_end(const struct span_list *l, size_t open)
{
	size_t depth = 0, i = open;

	do {
		if (l->v[i].flags & SPAN_F_JSON)
			i += l->v[i].show_len;
		else if (l->v[i].flags & SPAN_F_OPEN)
			depth++;
		else if (l->v[i].flags & SPAN_F_CLOSE)
			depth--;
		i++;
	} while (depth && i < l->n);
	return i;
}

void span_seal_json(struct span_list *l)
{
	struct strbuf value = STRBUF_INIT;

	for (size_t i = 0; i < l->n;) {
		struct span *s = &l->v[i];
		enum span_json kind = span_role_json(s->role);
		size_t end = group_end(l, i);
		struct json_writer w = { .out = &value, .cap = JSON_LEVELS_INLINE };

		if (!(s->flags & SPAN_F_OPEN) || (s->flags & SPAN_F_JSON) ||
		    (kind != SPAN_JSON_OBJECT && kind != SPAN_JSON_ARRAY)) {
			i = end;
			continue;
		}
		w.v = w.inline_v;
		strbuf_reset(&value);
		json_spans(&w, l, i, end);
		/* the writer read l's text: only now may it grow */
		s->data = (uint32_t)l->text.len;
		s->data_len = (uint32_t)value.len;
		s->show_len = (uint32_t)(end - i - 1);
		s->flags |= SPAN_F_JSON;
		strbuf_add(&l->text, value.buf, value.len + 1);
		i = end;
	}
	strbuf_release(&value);
}
