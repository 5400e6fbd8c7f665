/* diag.h - located diagnostics, rendered once with the source line and a caret.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 * Every stage that reads user text (script parser, semantic checks, target
 * resolution, batch files) reports through a struct diag so the user always
 * sees the same shape:
 *
 *     FILE:LINE:COL: error: MESSAGE
 *         SOURCE LINE
 *         ^~~~
 *     hint: HINT
 *
 * Lines and columns are 1-based; column counts bytes.  A diag owns its
 * strings.
 */
#ifndef WRAITH_UTIL_DIAG_H
#define WRAITH_UTIL_DIAG_H

#include <stddef.h>

struct strbuf;

struct src_loc {
	unsigned line;   /* 1-based; 0 = no location */
	unsigned col;    /* 1-based byte column */
	unsigned len;    /* bytes the caret run covers (>= 1) */
};

struct diag {
	struct src_loc loc;
	char *msg;   /* owned */
	char *hint;  /* owned, may be NULL */
};

/* Fill @d (owned strings).  @hint may be NULL. */
void diag_set(struct diag *d, struct src_loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_release(struct diag *d);

/* Render @d against @source (the whole text, may be NULL) named @file (may
 * be NULL for "<script>").  Appends to @out, ending with a newline. */
void diag_render(const struct diag *d, const char *file, const char *source, struct strbuf *out);

#endif
