/* stacks_priv.h - what the writers of counted stacks share.
 *
 * Layer rule: private to src/render/stacks.c and pprof.c.
 */
#ifndef WRAITH_RENDER_STACKS_PRIV_H
#define WRAITH_RENDER_STACKS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "protocol/wire.h"
#include "render/render.h"
#include "render/stacks.h"
#include "util/strbuf.h"

/* Tail-called functions recovered between two frames, at most. */
#define STACKS_MAX_TAILS 8

/* Names, each NUL-terminated in one buffer.  Zeroed with .text =
 * STRBUF_INIT is empty. */
struct name_list {
	struct strbuf text;
	size_t *off; /* owned: where each name starts in text */
	size_t n, cap;
};

void name_list_release(struct name_list *l);

/* The frame names of @smp's stack, innermost first (replaces @l's). */
void stack_frame_names(const struct stack_sample *smp, const struct render_hooks *h,
		       struct name_list *l);
/* The same, and, for a stack the walk did not finish, a last name that
 * says why: "[stopped: truncated]", "[stopped: read-error,
 * return-address-read]" (at the outermost end, where the walk stopped). */
void stack_names(const struct stack_sample *smp, const struct render_hooks *h, struct name_list *l);
/* That last name into @out; false (nothing appended) for a whole stack. */
bool stack_stopped(const struct stack_sample *smp, struct strbuf *out);

#endif
