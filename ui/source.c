/* source.c - the source panel (see source.h).
 *
 * Files are found by the path DWARF recorded; when the target runs in
 * another mount namespace the same path is tried under /proc/PID/root.
 * Probe marks are recomputed on every draw from the session's probes, so
 * enabling, disabling and deleting show at once: '>' marks an enabled
 * probe's line, 'o' a disabled one, and the selected probe's lines are
 * highlighted.
 */
#include "source.h"
#include "tracer/session.h"
#include "draw.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct source {
	char *path;          /* owned: as DWARF names it; NULL when nothing is shown */
	char *note;          /* owned: why nothing is shown, or NULL */
	char **lines;        /* owned, sanitized */
	size_t n_lines;
	size_t top;          /* first visible line, 0-based */
	unsigned mark;       /* the line to highlight (1-based), 0 for none */
	bool center_pending; /* put `mark` in the middle at the next draw */
	unsigned probe;      /* selected probe id, 0 for none */
	int rows;            /* body rows at the last draw, for paging */
	bool searching;
	struct strbuf query; /* being typed */
	char *pattern;       /* owned: the last search, or NULL */
	const char *search_note; /* static: "not found", ... */
};

struct source *source_new(void)
{
	struct source *src = xcalloc(1, sizeof(*src));

	strbuf_init(&src->query);
	src->rows = 10;
	return src;
}

static void drop_file(struct source *src)
{
	for (size_t i = 0; i < src->n_lines; i++)
		free(src->lines[i]);
	free(src->lines);
	free(src->path);
	free(src->note);
	src->lines = NULL;
	src->path = src->note = NULL;
	src->n_lines = src->top = 0;
	src->mark = 0;
}

void source_free(struct source *src)
{
	if (!src)
		return;
	drop_file(src);
	strbuf_release(&src->query);
	free(src->pattern);
	free(src);
}

unsigned source_probe(const struct source *src)
{
	return src->probe;
}

static void split_lines(struct source *src, const char *text)
{
	size_t cap = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");

		src->lines = xgrow(src->lines, &cap, src->n_lines + 1, sizeof(*src->lines));
		src->lines[src->n_lines++] = draw_sanitize(text, n);
		text += n + (text[n] == '\n');
	}
}

/* Load @path (unless already shown) and put @line in view. */
static void show_file(struct source *src, struct session *s, const char *path, unsigned line)
{
	char *text = NULL;

	if (!src->path || strcmp(src->path, path) != 0) {
		drop_file(src);
		src->path = xstrdup(path);
		if (file_read(path, &text, NULL) && session_pid(s) > 0) {
			char *alt = xasprintf("/proc/%d/root%s", (int)session_pid(s), path);

			file_read(alt, &text, NULL);
			free(alt);
		}
		if (text)
			split_lines(src, text);
		else
			src->note = xasprintf("cannot read %s", path);
		free(text);
	}
	src->mark = line;
	src->center_pending = true;
}

static void show_nothing(struct source *src, const char *why)
{
	drop_file(src);
	src->note = xstrdup(why);
}

void source_show_probe(struct source *src, struct session *s, unsigned id)
{
	struct probe *p = session_probe(s, id);

	src->probe = p ? id : 0;
	if (!p)
		return;
	for (size_t i = 0; i < probe_site_count(p); i++) {
		unsigned line;
		const char *file = probe_site_file(p, i, &line);

		if (file) {
			show_file(src, s, file, line);
			return;
		}
	}
	show_nothing(src, "this probe's code has no line information");
}

void source_sync(struct source *src, struct session *s)
{
	struct probe *p, *last = NULL;

	if (!src->probe || session_probe(s, src->probe))
		return;
	src->probe = 0;
	session_for_each_probe(p, s)
		last = p;
	if (last)
		source_show_probe(src, s, probe_id(last));
}

/* ---- finding a pattern's source ---- */

void source_show_target(struct source *src, struct session *s, const char *pattern)
{
	char *file = NULL;
	unsigned line = 0;

	if (session_pattern_source(s, pattern, &file, &line) == 0)
		show_file(src, s, file, line);
	free(file);
}

/* ---- search ---- */

static bool line_matches(const struct source *src, size_t i)
{
	return src->pattern && *src->pattern && strcasestr(src->lines[i], src->pattern);
}

/* Move to the next (@dir 1) or previous (-1) line matching the pattern. */
static void search_step(struct source *src, int dir)
{
	size_t n = src->n_lines, from = src->mark ? src->mark - 1 : src->top;

	src->search_note = NULL;
	for (size_t k = 1; k <= n; k++) {
		size_t i = (from + n + (size_t)dir * k) % n;

		if (line_matches(src, i)) {
			src->mark = (unsigned)i + 1;
			src->center_pending = true;
			return;
		}
	}
	src->search_note = n ? "not found" : "no file";
}

static void search_key(struct source *src, int key)
{
	if (key == 27) {
		src->searching = false;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		src->searching = false;
		free(src->pattern);
		src->pattern = xstrdup(src->query.buf);
		search_step(src, 1);
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		size_t len = src->query.len;

		while (len > 0 && ((unsigned char)src->query.buf[len - 1] & 0xc0) == 0x80)
			len--;
		strbuf_setlen(&src->query, len ? len - 1 : 0);
	} else if (key >= 32 && key < 256) {
		strbuf_addch(&src->query, (char)key);
	}
}

bool source_in_search(const struct source *src)
{
	return src->searching;
}

/* ---- keys ---- */

static void select_step(struct source *src, struct session *s, int dir)
{
	size_t n = session_probe_count(s), at = n, i = 0;
	struct probe **v, *p;

	if (!n)
		return;
	v = xcalloc(n, sizeof(*v));
	session_for_each_probe(p, s) {
		if (probe_id(p) == src->probe)
			at = i;
		v[i++] = p;
	}
	if (at == n)
		at = dir > 0 ? n - 1 : 0;
	at = (at + n + (size_t)dir) % n;
	source_show_probe(src, s, probe_id(v[at]));
	free(v);
}

static void scroll_by(struct source *src, long lines)
{
	long max = (long)src->n_lines - 1, top = (long)src->top + lines;

	src->top = (size_t)(top > max ? (max < 0 ? 0 : max) : top < 0 ? 0 : top);
}

bool source_key(struct source *src, struct session *s, int key)
{
	if (src->searching) {
		search_key(src, key);
		return true;
	}
	switch (key) {
	case KEY_UP: scroll_by(src, -1); break;
	case KEY_DOWN: scroll_by(src, 1); break;
	case KEY_PPAGE: scroll_by(src, -(src->rows - 1)); break;
	case KEY_NPAGE: scroll_by(src, src->rows - 1); break;
	case KEY_HOME: src->top = 0; break;
	case KEY_END: scroll_by(src, (long)src->n_lines); break;
	case '/':
		src->searching = true;
		src->search_note = NULL;
		strbuf_reset(&src->query);
		break;
	case 'n': search_step(src, 1); break;
	case 'N': search_step(src, -1); break;
	case ']': select_step(src, s, 1); break;
	case '[': select_step(src, s, -1); break;
	default: return false;
	}
	return true;
}

/* ---- drawing ---- */

static bool same_file(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la < lb) {
		const char *t = a;

		a = b;
		b = t;
		la = lb;
		lb = strlen(b);
	}
	return strcmp(a + la - lb, b) == 0 && (la == lb || a[la - lb - 1] == '/');
}

/* '>' or 'o' when an enabled or disabled probe sits at @line; *selected
 * when it is the selected probe. */
static char probe_mark(const struct source *src, struct session *s, unsigned line, bool *selected)
{
	char mark = ' ';

	struct probe *p;

	*selected = false;
	session_for_each_probe(p, s) {
		for (size_t k = 0; k < probe_site_count(p); k++) {
			unsigned at;
			const char *file = probe_site_file(p, k, &at);

			if (at != line || !file || !same_file(file, src->path))
				continue;
			if (mark != '>')
				mark = probe_enabled(p) ? '>' : 'o';
			*selected |= probe_id(p) == src->probe;
		}
	}
	return mark;
}

/* Draw @text in @role with the search pattern's matches highlighted. */
static void draw_matches(const struct source *src, WINDOW *w, int y, int x, const char *text,
			 int cols, enum ui_role role)
{
	size_t plen = src->pattern ? strlen(src->pattern) : 0;

	while (*text && cols > 0) {
		const char *m = plen ? strcasestr(text, src->pattern) : NULL;
		size_t before = m ? (size_t)(m - text) : strlen(text);
		int used = draw_text(w, y, x, text, before, cols, role);

		x += used;
		cols -= used;
		if (!m)
			break;
		used = draw_text(w, y, x, m, plen, cols, ROLE_MATCH);
		x += used;
		cols -= used;
		text = m + plen;
	}
}

static void draw_line(const struct source *src, struct session *s, WINDOW *w, int y, size_t i,
		      int digits)
{
	bool selected;
	char mark = probe_mark(src, s, (unsigned)i + 1, &selected), gutter[32];
	int cols = getmaxx(w), x;
	enum ui_role role = mark != ' ' ? ROLE_PROBE_LINE : ROLE_NORMAL;

	if (selected || src->mark == i + 1)
		role = ROLE_SELECTED;
	snprintf(gutter, sizeof(gutter), "%*zu%c ", digits, i + 1, mark);
	x = draw_text(w, y, 0, gutter, strlen(gutter), cols, mark != ' ' ? ROLE_PROBE_LINE : ROLE_LINENO);
	if (role == ROLE_SELECTED)
		mvwhline(w, y, x, ' ' | draw_attr(ROLE_SELECTED), cols - x);
	draw_matches(src, w, y, x, src->lines[i], cols - x, role);
}

static void draw_heading(struct source *src, WINDOW *w, bool focus)
{
	char left[512], right[64] = "";
	const char *base = src->path ? strrchr(src->path, '/') : NULL;

	if (src->searching)
		snprintf(left, sizeof(left), "source  /%s_", src->query.buf);
	else
		snprintf(left, sizeof(left), "source: %s", src->path ? (base ? base + 1 : src->path) : "");
	if (src->search_note)
		snprintf(right, sizeof(right), "/%s: %s", src->pattern ? src->pattern : "", src->search_note);
	else if (src->probe)
		snprintf(right, sizeof(right), "probe #%u  [ ] other probes", src->probe);
	draw_title(w, 0, left, right, focus);
}

void source_draw(struct source *src, struct session *s, WINDOW *w, bool focus)
{
	int rows = getmaxy(w) - 1, digits = snprintf(NULL, 0, "%zu", src->n_lines);
	static const char hint[] = "no source yet: `trace FUNCTION` shows its file here";

	werase(w);
	src->rows = rows > 1 ? rows : 1;
	draw_heading(src, w, focus);
	if (!src->n_lines) {
		const char *msg = src->note ? src->note : hint;

		draw_text(w, 1, 1, msg, strlen(msg), getmaxx(w) - 2, ROLE_DIM);
		return;
	}
	if (src->center_pending && src->mark) {
		src->top = src->mark > (unsigned)rows / 2 ? src->mark - 1 - (unsigned)rows / 2 : 0;
		src->center_pending = false;
	}
	for (int y = 0; y < rows && src->top + (size_t)y < src->n_lines; y++)
		draw_line(src, s, w, y + 1, src->top + (size_t)y, digits < 3 ? 3 : digits);
}
