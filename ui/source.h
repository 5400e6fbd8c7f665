/* source.h - the source panel: the file of the selected probe (or of the
 * function being edited), probe lines marked, scrolling and `/` search.
 *
 * Layer rule: ui/ only (see draw.h); reads the session's probes and the
 * target's debug info through public headers, changes nothing.
 */
#ifndef WRAITH_UI_SOURCE_H
#define WRAITH_UI_SOURCE_H

#include <curses.h>
#include <stdbool.h>

struct session;
struct source;

/* A new, empty panel.  Caller frees. */
struct source *source_new(void);
/* NULL is a no-op. */
void source_free(struct source *src);

/* Select probe @id and show the source of its first site that has one. */
void source_show_probe(struct source *src, struct session *s, unsigned id);
/* Show where the trace pattern @pattern ("leaf", "chain.c:12", "0x1139")
 * is, without selecting a probe. */
void source_show_target(struct source *src, struct session *s, const char *pattern);
/* After probes were deleted: keep the selection on a probe that exists. */
void source_sync(struct source *src, struct session *s);
/* The selected probe id, 0 for none. */
unsigned source_probe(const struct source *src);

/* Handle @key while the panel has the focus: Up/Down/PgUp/PgDn/Home/End
 * scroll, `/` searches (then n/N), `[`/`]` select the previous/next probe.
 * Returns true when the key was used. */
bool source_key(struct source *src, struct session *s, int key);
/* True while a search pattern is being typed (every key goes here). */
bool source_in_search(const struct source *src);

/* Draw title and body into @w. */
void source_draw(struct source *src, struct session *s, WINDOW *w, bool focus);

#endif
