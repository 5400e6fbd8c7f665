/* draw.h - how the shell puts text on the screen: the roles text plays
 * (event header, backtrace status, error, keyword, ...) and their
 * attributes, and width-aware drawing of UTF-8 text.
 *
 * Layer rule: ui/ draws and handles keys; it uses src/ through the
 * tracer's public headers and is never used by src/.  Every other ui/ file
 * asks this one for attributes, so colour (or its absence under NO_COLOR)
 * is decided in one place.
 */
#ifndef WRAITH_UI_DRAW_H
#define WRAITH_UI_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "render/span.h"

enum ui_role {
	ROLE_NORMAL,
	ROLE_DIM,
	ROLE_TITLE,        /* a panel's title line */
	ROLE_TITLE_FOCUS,  /* the title of the panel that has the keys */
	ROLE_STATUS,       /* the status bar */
	ROLE_ALERT,        /* a message in the status bar that wants attention */
	ROLE_ECHO,         /* a command as typed */
	ROLE_ERROR,
	ROLE_WARN,
	ROLE_EVENT,        /* an event's header line */
	ROLE_BT_COMPLETE,  /* backtrace header and stop lines, by the status's tone */
	ROLE_BT_WARN,
	ROLE_BT_ERROR,
	ROLE_FRAME,        /* a backtrace frame */
	ROLE_SELECTED,     /* a selected row */
	ROLE_MATCH,        /* a search match */
	ROLE_PROBE_LINE,   /* a source line where a probe sits */
	ROLE_LINENO,
	ROLE_HEADING,      /* a section heading in the diagnosis view */
	/* script syntax, by token class */
	ROLE_KEYWORD,
	ROLE_STRING,
	ROLE_NUMBER,
	ROLE_COMMENT,
	ROLE_SPECIAL,
	ROLE_PATTERN,
	ROLE_PUNCT,
	ROLE_COUNT_
};

/* Set up the attributes of every role; colours only when @color (the
 * terminal has them and NO_COLOR is unset).  Call after initscr. */
void draw_theme_init(bool color);
attr_t draw_attr(enum ui_role role);
/* The role of text in @tone (span.h): how a backtrace ended. */
enum ui_role draw_tone_role(enum span_tone tone);

/* Display columns of the first @n bytes of @s (UTF-8; a byte that is not
 * valid UTF-8 counts one column). */
size_t draw_width(const char *s, size_t n);
/* How many bytes of @s (at most @n) fit in @cols columns, never splitting
 * a character. */
size_t draw_fit(const char *s, size_t n, size_t cols);
/* Length in bytes of the character starting at @s (1 for invalid bytes). */
size_t draw_char_len(const char *s, size_t n);

/* Draw at most @n bytes of @s at (@y, @x) of @w in @role, cut at @cols
 * columns.  Returns the columns drawn. */
int draw_text(WINDOW *w, int y, int x, const char *s, size_t n, int cols, enum ui_role role);
/* Fill row @y of @w with one title: @left from column 1, @right ending at
 * the last column (either may be NULL), in the title role (@focus: the
 * focused-panel variant). */
void draw_title(WINDOW *w, int y, const char *left, const char *right, bool focus);

/* Copy @n bytes of @s into a new string (caller frees) fit for the screen:
 * tabs expanded to 8 columns, ANSI escape sequences removed, other control
 * bytes shown as '?'. */
char *draw_sanitize(const char *s, size_t n);
/* The same, appended to @out, whose text is the start of the same screen
 * line (tab stops count from there). */
void draw_sanitize_add(struct strbuf *out, const char *s, size_t n);

#endif
