/* render_priv.h - what the parts of the renderer share.
 *
 * Layer rule: private to src/render.  render.c renders an event and its
 * header; print.c and backtrace.c render its items.
 */
#ifndef WRAITH_RENDER_RENDER_PRIV_H
#define WRAITH_RENDER_RENDER_PRIV_H

#include "render/render.h"

/* The spans of print item @p of @probe (NULL when unknown), its line
 * indented by @indent. */
void render_print(struct renderer *r, const struct render_probe *probe, const struct ev_print *p,
		  const char *indent, struct span_list *out);

/* The spans of backtrace @bt, its header indented by @indent. */
void render_backtrace(struct renderer *r, const struct ev_backtrace *bt, const char *indent,
		      struct span_list *out);

/* The last component of @path (NULL stays NULL). */
const char *render_base_name(const char *path);

#endif
