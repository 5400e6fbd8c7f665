/* diag.c - rendering of located diagnostics (see diag.h). */
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_set(struct diag *d, struct src_loc loc, const char *hint, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag_release(d);
	d->loc = loc;
	d->msg = strbuf_detach(&sb);
	d->hint = hint ? xstrdup(hint) : NULL;
}

void diag_release(struct diag *d)
{
	free(d->msg);
	free(d->hint);
	d->msg = NULL;
	d->hint = NULL;
}

/* Find line @line (1-based) in @source; returns its start and sets *len. */
static const char *find_line(const char *source, unsigned line, size_t *len)
{
	const char *p = source;

	for (unsigned i = 1; i < line && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return NULL;
	*len = strcspn(p, "\n");
	return p;
}

/* A long line (a generated script may have one of megabytes) is shown as
 * the part around the caret, "..." marking what was left out. */
#define LINE_SHOWN 160
#define BEFORE_CARET 60

static void render_caret(const char *text, size_t text_len, const struct src_loc *loc,
			 struct strbuf *out)
{
	size_t col = loc->col ? loc->col - 1 : 0;
	size_t run = loc->len ? loc->len : 1;
	bool cut_left = false, cut_right = false;

	if (text_len > LINE_SHOWN) {
		size_t start = col > BEFORE_CARET ? col - BEFORE_CARET : 0;

		if (start > text_len)
			start = text_len;
		cut_left = start > 0;
		cut_right = text_len - start > LINE_SHOWN;
		text += start;
		text_len = cut_right ? LINE_SHOWN : text_len - start;
		col -= start;
	}
	strbuf_addstr(out, cut_left ? "    ..." : "    ");
	strbuf_add(out, text, text_len);
	strbuf_addstr(out, cut_right ? "...\n    " : "\n    ");
	if (cut_left)
		strbuf_addstr(out, "   ");
	/* Keep tabs so the caret lines up under tab-indented source. */
	for (size_t i = 0; i < col; i++)
		strbuf_addch(out, i < text_len && text[i] == '\t' ? '\t' : ' ');
	strbuf_addch(out, '^');
	if (col < text_len && run > text_len - col)
		run = text_len - col;
	if (run > 1)
		strbuf_addchars(out, '~', run - 1);
	strbuf_addch(out, '\n');
}

void diag_render(const struct diag *d, const char *file, const char *source, struct strbuf *out)
{
	const char *name = file ? file : "<script>";
	const char *text = NULL;
	size_t text_len = 0;

	if (d->loc.line) {
		strbuf_addf(out, "%s:%u:%u: error: %s\n", name, d->loc.line, d->loc.col, d->msg);
		if (source)
			text = find_line(source, d->loc.line, &text_len);
		if (text)
			render_caret(text, text_len, &d->loc, out);
	} else {
		strbuf_addf(out, "%s: error: %s\n", name, d->msg);
	}
	if (d->hint)
		strbuf_addf(out, "hint: %s\n", d->hint);
}
