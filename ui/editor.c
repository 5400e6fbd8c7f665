/* editor.c - the script editor (see editor.h).
 *
 * A plain line editor: the text is an array of lines, the cursor a line
 * and a byte column kept on character boundaries.  Highlighting classes the
 * whole text again on every draw (script/highlight.h); scripts are a few
 * lines, and half-typed text still gets its colours.
 */
#include "editor.h"
#include "script/highlight.h"
#include "draw.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INDENT 4
#define KEY_CTRL(c) ((c) & 0x1f)

struct editor {
	char *title;          /* owned */
	struct strbuf *lines; /* owned */
	size_t n, cap;
	size_t row, col;      /* cursor: line, byte in the line */
	size_t top;           /* first visible line */
	size_t left;          /* first visible column */
	char *error;          /* owned: the interpreter's message, or NULL */
	unsigned error_line;  /* 1-based, 0: none */
};

static struct strbuf *insert_line(struct editor *e, size_t at)
{
	e->lines = xgrow(e->lines, &e->cap, e->n + 1, sizeof(*e->lines));
	memmove(&e->lines[at + 1], &e->lines[at], (e->n - at) * sizeof(*e->lines));
	e->n++;
	strbuf_init(&e->lines[at]);
	return &e->lines[at];
}

struct editor *editor_new(const char *title, const char *text, unsigned line)
{
	struct editor *e = xcalloc(1, sizeof(*e));

	e->title = xstrdup(title);
	do {
		size_t len = strcspn(text, "\n");

		strbuf_add(insert_line(e, e->n), text, len);
		text += len + (text[len] == '\n');
	} while (*text);
	e->row = line > 0 && line <= e->n ? line - 1 : 0;
	e->col = e->lines[e->row].len;
	return e;
}

void editor_free(struct editor *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		strbuf_release(&e->lines[i]);
	free(e->lines);
	free(e->title);
	free(e->error);
	free(e);
}

char *editor_text(const struct editor *e)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < e->n; i++) {
		strbuf_add(&sb, e->lines[i].buf, e->lines[i].len);
		if (i + 1 < e->n)
			strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

/* The first ":LINE:COL:" in the first line of @msg, or 0. */
static unsigned located_line(const char *msg)
{
	size_t first = strcspn(msg, "\n");

	for (size_t i = 0; i < first; i++) {
		char *end, *end2;
		unsigned long line;

		if (msg[i] != ':' || !isdigit((unsigned char)msg[i + 1]))
			continue;
		line = strtoul(msg + i + 1, &end, 10);
		if (*end == ':' && isdigit((unsigned char)end[1])) {
			strtoul(end + 1, &end2, 10);
			if (*end2 == ':')
				return (unsigned)line;
		}
	}
	return 0;
}

void editor_set_error(struct editor *e, const char *message)
{
	free(e->error);
	e->error = message && *message ? xstrdup(message) : NULL;
	e->error_line = e->error ? located_line(e->error) : 0;
	if (e->error_line > e->n)
		e->error_line = 0;
}

/* ---- editing ---- */

static struct strbuf *cur(struct editor *e)
{
	return &e->lines[e->row];
}

static bool is_cont(const struct strbuf *l, size_t at)
{
	return at < l->len && ((unsigned char)l->buf[at] & 0xc0) == 0x80;
}

/* Keep the cursor on a character boundary within its line. */
static void clamp_col(struct editor *e)
{
	if (e->col > cur(e)->len)
		e->col = cur(e)->len;
	while (e->col > 0 && is_cont(cur(e), e->col))
		e->col--;
}

static void insert_bytes(struct editor *e, const char *s, size_t n)
{
	struct strbuf *l = cur(e);
	size_t tail = l->len - e->col;

	strbuf_grow(l, n);
	memmove(l->buf + e->col + n, l->buf + e->col, tail);
	memcpy(l->buf + e->col, s, n);
	l->len += n; /* strbuf_setlen() only shortens */
	l->buf[l->len] = '\0';
	e->col += n;
}

static size_t leading_spaces(const struct strbuf *l)
{
	size_t n = 0;

	while (n < l->len && (l->buf[n] == ' ' || l->buf[n] == '\t'))
		n++;
	return n;
}

/* Enter: split the line, indenting the new one like this one (one level
 * more after an opening brace). */
static void newline(struct editor *e)
{
	struct strbuf *l = cur(e), *next;
	size_t indent = leading_spaces(l), at = e->col;
	bool opens = at > 0 && l->buf[at - 1] == '{';

	if (indent > at)
		indent = at;
	next = insert_line(e, e->row + 1);
	l = cur(e); /* insert_line may have moved the array */
	strbuf_addchars(next, ' ', indent + (opens ? INDENT : 0));
	strbuf_add(next, l->buf + at, l->len - at);
	strbuf_setlen(l, at);
	e->row++;
	e->col = indent + (opens ? INDENT : 0);
}

static void join_next(struct editor *e)
{
	struct strbuf *l = cur(e), *next = &e->lines[e->row + 1];

	strbuf_add(l, next->buf, next->len);
	strbuf_release(next);
	memmove(next, next + 1, (e->n - e->row - 2) * sizeof(*e->lines));
	e->n--;
}

static void delete_forward(struct editor *e)
{
	struct strbuf *l = cur(e);
	size_t n;

	if (e->col >= l->len) {
		if (e->row + 1 < e->n)
			join_next(e);
		return;
	}
	for (n = 1; is_cont(l, e->col + n); n++)
		;
	memmove(l->buf + e->col, l->buf + e->col + n, l->len - e->col - n);
	strbuf_setlen(l, l->len - n);
}

static void move_left(struct editor *e)
{
	if (e->col > 0) {
		e->col--;
		clamp_col(e);
	} else if (e->row > 0) {
		e->row--;
		e->col = cur(e)->len;
	}
}

static void move_right(struct editor *e)
{
	if (e->col < cur(e)->len) {
		e->col++;
		while (is_cont(cur(e), e->col))
			e->col++;
	} else if (e->row + 1 < e->n) {
		e->row++;
		e->col = 0;
	}
}

static void backspace(struct editor *e)
{
	if (e->col == 0 && e->row == 0)
		return;
	move_left(e);
	delete_forward(e);
}

static void move_rows(struct editor *e, long delta)
{
	long row = (long)e->row + delta;

	e->row = row < 0 ? 0 : row >= (long)e->n ? e->n - 1 : (size_t)row;
	clamp_col(e);
}

/* A '}' typed on a line of only spaces closes a block: dedent first. */
static void insert_char(struct editor *e, char c)
{
	struct strbuf *l = cur(e);

	if (c == '}' && e->col == l->len && leading_spaces(l) == l->len && l->len >= INDENT) {
		strbuf_setlen(l, l->len - INDENT);
		e->col = l->len;
	}
	insert_bytes(e, &c, 1);
}

static void kill_to_end(struct editor *e)
{
	if (e->col < cur(e)->len)
		strbuf_setlen(cur(e), e->col);
	else if (e->row + 1 < e->n)
		join_next(e);
}

enum editor_action editor_key(struct editor *e, int key)
{
	static const char spaces[] = "        ";

	switch (key) {
	case KEY_CTRL('s'): return EDITOR_SUBMIT;
	case 27: return EDITOR_CANCEL;
	case KEY_LEFT: move_left(e); break;
	case KEY_RIGHT: move_right(e); break;
	case KEY_UP: move_rows(e, -1); break;
	case KEY_DOWN: move_rows(e, 1); break;
	case KEY_PPAGE: move_rows(e, -10); break;
	case KEY_NPAGE: move_rows(e, 10); break;
	case KEY_HOME: case KEY_CTRL('a'): e->col = 0; break;
	case KEY_END: case KEY_CTRL('e'): e->col = cur(e)->len; break;
	case '\n': case '\r': case KEY_ENTER: newline(e); break;
	case KEY_BACKSPACE: case 127: case KEY_CTRL('h'): backspace(e); break;
	case KEY_DC: case KEY_CTRL('d'): delete_forward(e); break;
	case KEY_CTRL('k'): kill_to_end(e); break;
	case '\t': insert_bytes(e, spaces, INDENT - e->col % INDENT); break;
	default:
		if (key >= 32 && key < 256 && key != 127)
			insert_char(e, (char)key);
		break;
	}
	return EDITOR_NONE;
}

/* ---- drawing ---- */

static enum ui_role class_role(enum script_hl c)
{
	switch (c) {
	case SCRIPT_HL_ERROR: return ROLE_ERROR;
	case SCRIPT_HL_COMMENT: return ROLE_COMMENT;
	case SCRIPT_HL_KEYWORD: return ROLE_KEYWORD;
	case SCRIPT_HL_NUMBER: return ROLE_NUMBER;
	case SCRIPT_HL_STRING: return ROLE_STRING;
	case SCRIPT_HL_SPECIAL: return ROLE_SPECIAL;
	case SCRIPT_HL_PATTERN: return ROLE_PATTERN;
	case SCRIPT_HL_PUNCT: return ROLE_PUNCT;
	default: return ROLE_NORMAL;
	}
}

/* The role of every byte of @text, from script/highlight.h.  Caller frees. */
static uint8_t *highlight(const char *text, size_t len)
{
	uint8_t *roles = xcalloc(len + 1, 1);
	struct script_hl_span *spans;
	size_t n = script_highlight(text, len, &spans);

	for (size_t i = 0; i < n; i++)
		memset(roles + spans[i].off, class_role(spans[i].kind), spans[i].len);
	free(spans);
	return roles;
}

/* Draw line @i (its roles at @roles) at row @y from column @x. */
static void draw_line(struct editor *e, WINDOW *w, int y, int x, size_t i, const uint8_t *roles)
{
	const struct strbuf *l = &e->lines[i];
	size_t at = draw_fit(l->buf, l->len, e->left);
	int cols = getmaxx(w) - x;

	while (at < l->len && cols > 0) {
		size_t run = 1;
		int used;

		while (at + run < l->len && roles[at + run] == roles[at])
			run++;
		used = draw_text(w, y, x, l->buf + at, run, cols, (enum ui_role)roles[at]);
		x += used;
		cols -= used;
		at += run;
	}
}

/* Rows for the message area under the text. */
static int message_rows(const struct editor *e, int rows)
{
	int n = 0, max = rows / 3 > 3 ? rows / 3 : 3;

	if (!e->error)
		return 1;
	for (const char *p = e->error; *p && n < max; p += strcspn(p, "\n"), p += *p == '\n')
		n++;
	return n + 1;
}

static void draw_messages(struct editor *e, WINDOW *w, int y, int rows)
{
	static const char hint[] = "Enter indents; Tab inserts spaces; Ctrl-K cuts to the end of the "
				   "line; the probe starts when added";
	const char *p = e->error;
	int cols = getmaxx(w);

	if (!p) {
		draw_text(w, y, 1, hint, strlen(hint), cols - 2, ROLE_DIM);
		return;
	}
	draw_title(w, y++, "the script was not accepted", "fix it and press Ctrl-S again", false);
	for (int k = 0; *p && k < rows - 1; k++, y++) {
		size_t n = strcspn(p, "\n");
		char *line = draw_sanitize(p, n);

		draw_text(w, y, 1, line, strlen(line), cols - 2, k == 0 ? ROLE_ERROR : ROLE_NORMAL);
		free(line);
		p += n + (p[n] == '\n');
	}
}

/* Scroll so the cursor is visible in @rows x @cols of text. */
static void follow_cursor(struct editor *e, int rows, int cols)
{
	size_t x = draw_width(cur(e)->buf, e->col);

	if (e->row < e->top)
		e->top = e->row;
	if (e->row >= e->top + (size_t)rows)
		e->top = e->row - (size_t)rows + 1;
	if (x < e->left)
		e->left = x;
	if (x >= e->left + (size_t)cols)
		e->left = x - (size_t)cols + 1;
}

void editor_draw(struct editor *e, WINDOW *w)
{
	char *text = editor_text(e), gutter[32];
	uint8_t *roles = highlight(text, strlen(text));
	int rows = getmaxy(w), msg = message_rows(e, rows), body = rows - 1 - msg, gw = 5;
	size_t off = 0;

	werase(w);
	draw_title(w, 0, e->title, "Ctrl-S add probe  Esc cancel", true);
	follow_cursor(e, body > 0 ? body : 1, getmaxx(w) - gw);
	for (size_t i = 0; i < e->n; off += e->lines[i].len + 1, i++) {
		int y = 1 + (int)(i - e->top);
		bool bad = e->error_line == i + 1;

		if (i < e->top || y > body)
			continue;
		snprintf(gutter, sizeof(gutter), "%3zu%c ", i + 1, bad ? '!' : ' ');
		draw_text(w, y, 0, gutter, strlen(gutter), gw, bad ? ROLE_ERROR : ROLE_LINENO);
		draw_line(e, w, y, gw, i, roles + off);
	}
	draw_messages(e, w, rows - msg, msg);
	wmove(w, 1 + (int)(e->row - e->top),
	      gw + (int)(draw_width(cur(e)->buf, e->col) - e->left));
	free(roles);
	free(text);
}
