/* draw.c - roles to attributes, and UTF-8 text to screen cells.
 *
 * With colour, every role that needs one gets its own pair on the
 * terminal's default background; without (NO_COLOR, --color never, or a
 * terminal without colours) roles fall back to bold, reverse, underline
 * and dim, so backtrace statuses and errors still stand out.  Text is
 * measured with wcwidth() so a wide character never straddles the right
 * edge of a panel.
 */
#include "draw.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <string.h>
#include <wchar.h>

static attr_t attrs[ROLE_COUNT_];

struct role_style {
	short fg, bg;      /* -1: default; both -1: no colour pair */
	attr_t color_attr; /* with colour */
	attr_t mono_attr;  /* without */
};

static const struct role_style styles[ROLE_COUNT_] = {
	[ROLE_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
	[ROLE_DIM] = { -1, -1, A_DIM, A_DIM },
	[ROLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE },
	[ROLE_TITLE_FOCUS] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
	[ROLE_STATUS] = { COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE },
	[ROLE_ALERT] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[ROLE_ECHO] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[ROLE_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[ROLE_WARN] = { COLOR_YELLOW, -1, A_NORMAL, A_BOLD },
	[ROLE_EVENT] = { COLOR_CYAN, -1, A_NORMAL, A_BOLD },
	[ROLE_BT_COMPLETE] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[ROLE_BT_WARN] = { COLOR_YELLOW, -1, A_NORMAL, A_UNDERLINE },
	[ROLE_BT_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[ROLE_FRAME] = { -1, -1, A_NORMAL, A_NORMAL },
	[ROLE_SELECTED] = { -1, -1, A_REVERSE, A_REVERSE },
	[ROLE_MATCH] = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_STANDOUT | A_UNDERLINE },
	[ROLE_PROBE_LINE] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
	[ROLE_LINENO] = { -1, -1, A_DIM, A_DIM },
	[ROLE_HEADING] = { -1, -1, A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE },
	[ROLE_KEYWORD] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
	[ROLE_STRING] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[ROLE_NUMBER] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[ROLE_COMMENT] = { COLOR_BLUE, -1, A_DIM, A_DIM },
	[ROLE_SPECIAL] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[ROLE_PATTERN] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[ROLE_PUNCT] = { -1, -1, A_NORMAL, A_NORMAL },
};

void draw_theme_init(bool color)
{
	if (color) {
		start_color();
		use_default_colors();
	}
	for (int r = 0; r < ROLE_COUNT_; r++) {
		const struct role_style *st = &styles[r];

		if (!color) {
			attrs[r] = st->mono_attr;
			continue;
		}
		attrs[r] = st->color_attr;
		if (st->fg != -1 || st->bg != -1) {
			init_pair((short)(r + 1), st->fg, st->bg);
			attrs[r] |= COLOR_PAIR(r + 1);
		}
	}
}

attr_t draw_attr(enum ui_role role)
{
	return role < ROLE_COUNT_ ? attrs[role] : A_NORMAL;
}

size_t draw_char_len(const char *s, size_t n)
{
	mbstate_t st;
	size_t len;

	memset(&st, 0, sizeof(st));
	len = mbrlen(s, n, &st);
	return len == 0 || len > n ? 1 : len;
}

/* Columns of the character at @s of @len bytes. */
static int char_cols(const char *s, size_t len)
{
	mbstate_t st;
	wchar_t wc;
	int w;

	memset(&st, 0, sizeof(st));
	if (mbrtowc(&wc, s, len, &st) > len)
		return 1;
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

size_t draw_width(const char *s, size_t n)
{
	size_t cols = 0;

	for (size_t i = 0; i < n;) {
		size_t len = draw_char_len(s + i, n - i);

		cols += (size_t)char_cols(s + i, len);
		i += len;
	}
	return cols;
}

size_t draw_fit(const char *s, size_t n, size_t cols)
{
	size_t used = 0, i = 0;

	while (i < n) {
		size_t len = draw_char_len(s + i, n - i);
		size_t w = (size_t)char_cols(s + i, len);

		if (used + w > cols)
			break;
		used += w;
		i += len;
	}
	return i;
}

int draw_text(WINDOW *w, int y, int x, const char *s, size_t n, int cols, enum ui_role role)
{
	size_t fit;

	if (cols <= 0 || !n)
		return 0;
	fit = draw_fit(s, n, (size_t)cols);
	wattrset(w, draw_attr(role));
	mvwaddnstr(w, y, x, s, (int)fit);
	wattrset(w, A_NORMAL);
	return (int)draw_width(s, fit);
}

enum ui_role draw_tone_role(enum span_tone tone)
{
	switch (tone) {
	case SPAN_TONE_GOOD: return ROLE_BT_COMPLETE;
	case SPAN_TONE_WARN: return ROLE_BT_WARN;
	case SPAN_TONE_BAD: return ROLE_BT_ERROR;
	default: return ROLE_NORMAL;
	}
}

void draw_title(WINDOW *w, int y, const char *left, const char *right, bool focus)
{
	int cols = getmaxx(w), used = 0;
	enum ui_role role = focus ? ROLE_TITLE_FOCUS : ROLE_TITLE;

	mvwhline(w, y, 0, ' ' | draw_attr(role), cols);
	if (left)
		used = 1 + draw_text(w, y, 1, left, strlen(left), cols - 2, role);
	if (right) {
		int rw = (int)draw_width(right, strlen(right));

		if (used + 2 + rw < cols)
			draw_text(w, y, cols - 1 - rw, right, strlen(right), rw, role);
	}
	wattrset(w, A_NORMAL);
}

/* Skip an escape sequence starting at @s[0] == ESC; returns its length. */
static size_t escape_len(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 2)
		return 1;
	if (s[1] != '[')
		return 2;
	for (i = 2; i < n; i++)
		if (s[i] >= 0x40 && s[i] <= 0x7e)
			return i + 1;
	return n;
}

void draw_sanitize_add(struct strbuf *out, const char *s, size_t n)
{
	struct strbuf *sb = out;
	size_t col = draw_width(out->buf, out->len);

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\033') {
			i += escape_len(s + i, n - i);
			continue;
		}
		if (c == '\t') {
			strbuf_addchars(sb, ' ', 8 - col % 8);
			col += 8 - col % 8;
		} else if (c < 0x20 || c == 0x7f) {
			strbuf_addch(sb, '?');
			col++;
		} else {
			strbuf_addch(sb, (char)c);
			col += (c & 0xc0) != 0x80;
		}
		i++;
	}
}

char *draw_sanitize(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	draw_sanitize_add(&sb, s, n);
	return strbuf_detach(&sb);
}
