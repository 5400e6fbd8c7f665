/* frame_outer.c - outer frames' values that point outside the stack copy
 * (see frame_values_priv.h): where a later event of the same call chain
 * finds them, for its recipe (wire.h: struct wr_outer_recipe), and what
 * the recipe copied.
 *
 * The probe's program is built for frame 0's function, so the first
 * event of a chain shows an outer frame's reference to the heap, a
 * string's heap characters, a char pointer's string as markers; reading
 * it, userspace notes where each such value lies from frame 0's sp: the
 * value in the stack copy, the word that holds its address (its own
 * slot, or where a callee saved the register that held it), or frame 0's
 * register that still holds it.  A slot or register that holds the
 * address by chance only makes later events copy memory no variable
 * shows: the copies are found by address, never shown for another.
 * Where a value is not copied, a marker says why (fv_not_copied()).
 */
#include "tracer/frame_values_priv.h"
#include "codegen/codegen.h"
#include "dwarf/types.h"
#include "protocol/wire.h"

#include <string.h>

static bool in_stack(const struct ev_backtrace *bt, uint64_t addr, uint64_t size)
{
	return addr >= bt->stack->base && addr - bt->stack->base <= bt->stack->len &&
	       size <= bt->stack->len - (addr - bt->stack->base);
}

/* The recipe's copy that holds [@addr, @addr + @size), or NULL. */
static const struct ev_arg *outer_arg(const struct ev_backtrace *bt, uint64_t addr, size_t size)
{
	for (size_t k = 0; bt->outer && k < bt->outer->n_attach; k++) {
		const struct ev_arg *m = &bt->outer->attach[k];

		if (m->kind == WR_ARG_MEM && m->status == WR_ARG_OK && addr >= m->value &&
		    addr - m->value <= m->len && size <= m->len - (addr - m->value))
			return m;
	}
	return NULL;
}

const uint8_t *fv_outer_bytes(const struct ev_backtrace *bt, uint64_t addr, size_t size)
{
	const struct ev_arg *m = outer_arg(bt, addr, size);

	return m ? m->data + (addr - m->value) : NULL;
}

const struct ev_arg *fv_outer_failed(const struct ev_backtrace *bt, uint64_t addr)
{
	for (size_t k = 0; bt->outer && k < bt->outer->n_attach; k++) {
		const struct ev_arg *m = &bt->outer->attach[k];

		if (m->kind == WR_ARG_MEM && m->status == WR_ARG_READ_ERROR && m->value == addr && m->aux == 0)
			return m;
	}
	return NULL;
}

size_t fv_outer_string(const struct ev_backtrace *bt, uint64_t addr, uint8_t *buf, size_t max)
{
	const struct ev_arg *m = outer_arg(bt, addr, 1);
	size_t n, have;

	if (!m || m->value != addr || m->aux != 0) /* a string's copy starts at it, whole */
		return 0;
	have = m->len < max ? m->len : max;
	n = strnlen((const char *)m->data, have);
	if (n == have && have < max)
		return 0; /* another value's copy, not a whole string */
	memcpy(buf, m->data, n < have ? n + 1 : have);
	return n < have ? n + 1 : have;
}

/* Where the frames below frame w->i saved the word @v (a callee-saved
 * register's value, pushed by a callee): the first such slot of the
 * stack copy between frame 0's sp and the frame's, else 0.  Not below
 * frame 0's sp: the copy starts there, but what lies below is what
 * calls that returned left (a copy of the value there at one event,
 * overwritten at another by a deeper call). */
static uint64_t saved_slot(const struct fv_walk *w, uint64_t v)
{
	const struct wr_stack_header *sh = w->bt->stack;
	uint64_t sp = w->regs.v[WR_DWARF_RSP], word;
	uint64_t from = sh->sp > sh->base ? sh->sp : sh->base;

	if (!(w->regs.known & (1u << WR_DWARF_RSP)))
		return 0;
	for (uint64_t a = (from + 7) & ~7ull; a + 8 <= sp && a + 8 - sh->base <= sh->len; a += 8) {
		memcpy(&word, w->bt->stack_data + (a - sh->base), 8);
		if (word == v)
			return a;
	}
	return 0;
}

/* The markers of fv_not_copied(), as the doc lists them. */
#define NOT_COPIED_NEW   "<not copied: new call chain>"
#define NOT_COPIED_FULL  "<not copied: call chain table full>"
#define NOT_COPIED_OVER  "<not copied: over 16 values in frame>"
WR_STATIC_ASSERT(WR_OUTER_ROOTS == 16, "NOT_COPIED_OVER names the recipe's roots");
WR_STATIC_ASSERT(WR_OUTER_CHAIN_FRAMES <= 32, "a frame's bit in a 32-bit mask");

/* Why want @k (w->n_wants: one not noted, the list full) is not copied
 * at this event (fv_not_copied()): by its frame's recipe, whose
 * WR_OUTER_ROOTS first values it names. */
static const char *why_not_copied(const struct fv_walk *w, size_t k)
{
	unsigned f = k < w->n_wants ? w->wants[k].frame : w->i;
	size_t index = k < w->n_wants ? 0 : WR_OUTER_ROOTS;

	for (size_t j = 0; j < k && j < w->n_wants; j++)
		index += w->wants[j].frame == f;
	if (!w->bt->outer || f >= WR_OUTER_CHAIN_FRAMES || !(w->bt->outer->aux >> f & 1))
		return f < WR_OUTER_CHAIN_FRAMES && (w->recipes_full >> f & 1) ? NOT_COPIED_FULL : NOT_COPIED_NEW;
	return index >= WR_OUTER_ROOTS ? NOT_COPIED_OVER : NULL;
}

/* Note that an outer frame's value of @t, found as @kind says at @at,
 * points outside the stack copy (@string: a char pointer's string):
 * later events whose frames up to this one are the same copy it, by the
 * frame's recipe (fv_wants()), the frame's first WR_OUTER_ROOTS. */
static void want(struct fv_walk *w, enum fv_want_at kind, uint64_t at, const struct dw_type *t, bool string)
{
	size_t k;

	if (w->i == 0 || w->i >= WR_OUTER_CHAIN_FRAMES ||
	    (kind != FV_AT_REG && kind != FV_AT_STATIC && !in_stack(w->bt, at, kind == FV_AT_DEREF ? 8 : t->size)) ||
	    (!string && kind != FV_AT_STATIC && !codegen_bt_copies(t, kind != FV_AT_VALUE)))
		return;
	for (k = 0; k < w->n_wants; k++)
		if (w->wants[k].at == at && w->wants[k].kind == kind)
			break;
	w->not_copied = why_not_copied(w, k);
	if (k < w->n_wants || w->n_wants >= FV_MAX_WANTS)
		return;
	w->wants[w->n_wants++] = (struct fv_want){ .at = at, .kind = kind, .type = t, .string = string, .frame = w->i };
}

/* Where a later event of the chain finds the address @p an outer frame
 * held in a register, not in its frame: a slot the frames below saved it
 * in, or frame 0's register that still holds it. */
static void want_in_register(struct fv_walk *w, uint64_t p, const struct dw_type *t, bool string)
{
	uint64_t slot = saved_slot(w, p), word;

	if (slot) {
		want(w, FV_AT_DEREF, slot, t, string);
		return;
	}
	for (size_t off = 0; w->bt->regs && off + 8 <= sizeof(*w->bt->regs); off += 8) {
		memcpy(&word, (const uint8_t *)w->bt->regs + off, 8);
		if (word == p) {
			want(w, FV_AT_REG, off, t, string);
			return;
		}
	}
}

void fv_want_value(struct fv_walk *w, uint64_t addr, const struct dw_type *t)
{
	want(w, FV_AT_VALUE, addr, t, false);
}

void fv_want_reference(struct fv_walk *w, uint64_t addr, const struct dw_type *t)
{
	if (in_stack(w->bt, addr, t->size))
		want(w, FV_AT_VALUE, addr, t, false);
	else if (w->var_at)
		want(w, FV_AT_DEREF, w->var_at, t, false);
	else
		want_in_register(w, addr, t, false);
}

void fv_want_static(struct fv_walk *w, uint64_t addr, const struct dw_type *t)
{
	if (t->size && t->size <= WR_WALK_COPY_MAX)
		want(w, FV_AT_STATIC, addr, t, false);
}

void fv_want_string(struct fv_walk *w, uint64_t slot, uint64_t p, const struct dw_type *t)
{
	if (slot)
		want(w, FV_AT_DEREF, slot, t, true);
	else
		want_in_register(w, p, t, true);
}

size_t fv_wants(const struct fv_walk *w, const struct fv_want **out)
{
	*out = w->wants;
	return w->n_wants;
}

const char *fv_not_copied(const struct fv_walk *w)
{
	return w->not_copied;
}

void fv_recipes_full(struct fv_walk *w, unsigned i, bool full)
{
	if (i == 0)
		w->recipes_full = 0;
	else if (i < WR_OUTER_CHAIN_FRAMES)
		w->recipes_full = (w->recipes_full & ~(1u << i)) | (uint32_t)full << i;
}
