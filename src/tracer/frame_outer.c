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

bool fv_outer_walked(const struct ev_backtrace *bt, uint64_t addr)
{
	for (size_t k = 0; bt->outer && k < bt->outer->n_attach; k++) {
		const struct ev_arg *m = &bt->outer->attach[k];

		if (m->kind == WR_ARG_MEM && m->status == WR_ARG_OK && (m->aux & WR_MEM_F_WALKED) && m->value == addr)
			return true;
	}
	return false;
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

/* The string at @addr in copy @m (which holds @addr), into @buf, at most
 * @max bytes: how many, 0 when the copy does not hold it whole (up to its
 * NUL, or @max bytes of it). */
static size_t string_in(const struct ev_arg *m, uint64_t addr, uint8_t *buf, size_t max)
{
	size_t from = (size_t)(addr - m->value), have, n;

	if (m->len <= from)
		return 0;
	have = m->len - from < max ? m->len - from : max;
	n = strnlen((const char *)m->data + from, have);
	if (n == have && have < max)
		return 0; /* cut before its NUL */
	memcpy(buf, m->data + from, n < have ? n + 1 : have);
	return n < have ? n + 1 : have;
}

/* A copy that starts at @addr first: its string's own; else one that
 * holds it with its NUL (another string that runs through it: `cont`
 * inside `command`'s), the same memory read at the same hit. */
size_t fv_outer_string(const struct ev_backtrace *bt, uint64_t addr, uint8_t *buf, size_t max)
{
	size_t got = 0;

	for (int exact = 1; exact >= 0 && !got; exact--)
		for (size_t k = 0; bt->outer && k < bt->outer->n_attach && !got; k++) {
			const struct ev_arg *m = &bt->outer->attach[k];

			if (m->kind == WR_ARG_MEM && m->status == WR_ARG_OK && m->aux == 0 &&
			    (exact ? m->value == addr : addr > m->value && addr - m->value < m->len))
				got = string_in(m, addr, buf, max);
		}
	return got;
}

/* How far from @p a pointer kept in a register or slot may be for @p to
 * be found from it: code that computes one pointer from another
 * (`el = cont - 1`, `end = p + n` for a small n) keeps only the other. */
#define MAX_ADDEND 16

/* The order in which differences are tried: 0, 1, -1, 2, -2, ... (a
 * smaller rank is nearer); beyond MAX_ADDEND, -1. */
static int addend_rank(uint64_t word, uint64_t p)
{
	int64_t d = (int64_t)(p - word);

	if (!word || d > MAX_ADDEND || d < -MAX_ADDEND)
		return -1;
	return d > 0 ? (int)(2 * d - 1) : (int)(-2 * d);
}

/* Where the frames below frame w->i saved the word @p, or one at most
 * MAX_ADDEND bytes from it (a callee-saved register's value, pushed by a
 * callee): of the nearest, the first slot of the stack copy between frame
 * 0's sp and the frame's, its rank in *@rank; else 0.  Not below frame
 * 0's sp: the copy starts there, but what lies below is what calls that
 * returned left (a copy of the value there at one event, overwritten at
 * another by a deeper call).  One pass over the copy. */
static uint64_t saved_slot(const struct fv_walk *w, uint64_t p, int *rank)
{
	const struct wr_stack_header *sh = w->bt->stack;
	uint64_t sp = w->regs.v[WR_DWARF_RSP], word, best = 0;
	uint64_t from = sh->sp > sh->base ? sh->sp : sh->base;

	*rank = -1;
	if (!(w->regs.known & (1u << WR_DWARF_RSP)))
		return 0;
	for (uint64_t a = (from + 7) & ~7ull; a + 8 <= sp && a + 8 - sh->base <= sh->len && *rank != 0; a += 8) {
		int r;

		memcpy(&word, w->bt->stack_data + (a - sh->base), 8);
		r = addend_rank(word, p);
		if (r >= 0 && (*rank < 0 || r < *rank)) {
			*rank = r;
			best = a;
		}
	}
	return best;
}

/* The markers of fv_not_copied(), as the doc lists them. */
#define NOT_COPIED_NEW   "<not copied: new call chain>"
#define NOT_COPIED_FULL  "<not copied: call chain table full>"
#define NOT_COPIED_OVER  "<not copied: over 16 values in frame>"
WR_STATIC_ASSERT(WR_OUTER_ROOTS == 16, "NOT_COPIED_OVER names the recipe's roots");
WR_STATIC_ASSERT(WR_OUTER_CHAIN_FRAMES <= 32, "a frame's bit in a 32-bit mask");

/* Why want @k (w->n_wants: one not noted, the list full) is not copied
 * at this event (fv_not_copied()): by its frame's recipe, whose
 * WR_OUTER_ROOTS first values it names, those a bt shows before the
 * locals shown whole (learn_outer(): their whole walks take what is
 * left). */
static const char *why_not_copied(const struct fv_walk *w, size_t k)
{
	unsigned f = k < w->n_wants ? w->wants[k].frame : w->i;
	size_t index = k < w->n_wants ? 0 : WR_OUTER_ROOTS;
	bool whole = k < w->n_wants && w->wants[k].whole;

	for (size_t j = 0; j < k && j < w->n_wants; j++)
		index += w->wants[j].frame == f && (whole || !w->wants[j].whole);
	if (!w->bt->outer || f >= WR_OUTER_CHAIN_FRAMES || !(w->bt->outer->aux >> f & 1))
		return f < WR_OUTER_CHAIN_FRAMES && (w->recipes_full >> f & 1) ? NOT_COPIED_FULL : NOT_COPIED_NEW;
	/* the recipe ran: shown only when what it copied does not hold it
	 * (a recipe learned before this value was wanted, or its address
	 * found where another pointer lay by chance) */
	if (index >= WR_OUTER_ROOTS)
		return NOT_COPIED_OVER;
	/* written at attach, from no event: the first event of the chain
	 * teaches it what those could not see */
	return f < WR_OUTER_CHAIN_FRAMES && (w->recipes_pre >> f & 1) ? NOT_COPIED_NEW : "<unavailable>";
}

/* Note that an outer frame's value of @t, found as @kind says at @at,
 * points outside the stack copy (@string: a char pointer's string):
 * later events whose frames up to this one are the same copy it, by the
 * frame's recipe (fv_wants()), the frame's first WR_OUTER_ROOTS. */
static void want_off(struct fv_walk *w, enum fv_want_at kind, uint64_t at, int32_t addend, const struct dw_type *t,
		     bool string, bool span)
{
	/* a local of bt full shown whole: a container's elements too */
	bool whole = w->whole && kind == FV_AT_VALUE && !string && codegen_bt_shows_whole(t);
	size_t k;

	if (w->i == 0 || w->i >= WR_OUTER_CHAIN_FRAMES ||
	    (kind != FV_AT_REG && kind != FV_AT_STATIC && !in_stack(w->bt, at, kind == FV_AT_DEREF ? 8 : t->size)) ||
	    (!string && !span && !whole && kind != FV_AT_STATIC && !codegen_bt_copies(t, kind != FV_AT_VALUE)))
		return;
	for (k = 0; k < w->n_wants; k++)
		if (w->wants[k].at == at && w->wants[k].kind == kind && w->wants[k].addend == addend &&
		    w->wants[k].span == span)
			break;
	if (k == w->n_wants && w->n_wants < FV_MAX_WANTS)
		w->wants[w->n_wants++] = (struct fv_want){ .at = at, .kind = kind, .type = t, .string = string,
							   .span = span, .frame = w->i, .addend = addend };
	if (k < w->n_wants && whole && w->wants[k].type == t)
		w->wants[k].whole = true;
	w->not_copied = why_not_copied(w, k);
}

static void want(struct fv_walk *w, enum fv_want_at kind, uint64_t at, const struct dw_type *t, bool string)
{
	want_off(w, kind, at, 0, t, string, false);
}

/* Frame 0's register (its byte offset in the copy, +1) that holds @p,
 * or the nearest pointer at most MAX_ADDEND bytes from it (its rank in
 * *@rank), else 0. */
static size_t register_holding(const struct fv_walk *w, uint64_t p, int *rank)
{
	size_t best = 0;
	uint64_t word;

	*rank = -1;
	for (size_t off = 0; w->bt->regs && off + 8 <= sizeof(*w->bt->regs); off += 8) {
		int r;

		memcpy(&word, (const uint8_t *)w->bt->regs + off, 8);
		r = addend_rank(word, p);
		if (r >= 0 && (*rank < 0 || r < *rank)) {
			*rank = r;
			best = off + 1;
		}
	}
	return best;
}

/* Where a later event of the chain finds the address @p an outer frame
 * held in a register, not in its frame: a slot the frames below saved it
 * in, or frame 0's register that still holds it; else the nearest
 * pointer at most MAX_ADDEND bytes from it, a slot before a register,
 * with the difference to add (its copy is matched to @p by address, so a
 * wrong guess copies nothing that is shown).  Where none is found, the
 * value is unavailable and says so. */
static void want_in_register(struct fv_walk *w, uint64_t p, const struct dw_type *t, bool string, bool span)
{
	int in_slot, in_reg;
	uint64_t slot = saved_slot(w, p, &in_slot), word;
	size_t reg = register_holding(w, p, &in_reg);

	if (slot && (in_reg < 0 || in_slot <= in_reg)) {
		memcpy(&word, w->bt->stack_data + (slot - w->bt->stack->base), 8);
		want_off(w, FV_AT_DEREF, slot, (int32_t)(p - word), t, string, span);
	} else if (reg) {
		memcpy(&word, (const uint8_t *)w->bt->regs + reg - 1, 8);
		want_off(w, FV_AT_REG, reg - 1, (int32_t)(p - word), t, string, span);
	} else if (w->i > 0 && w->i < WR_OUTER_CHAIN_FRAMES) {
		w->not_copied = "<unavailable>";
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
		want_in_register(w, addr, t, false, false);
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
		want_in_register(w, p, t, true, false);
}

/* The data pointer of a string of @t whose @size bytes are @buf (a
 * Rust &str, a String, a std::string), by its printer's walk: where it
 * points, into *@p, and at which byte of the value it lies, into *@at;
 * false when it has no characters outside the value (empty, a libc++
 * short string). */
static bool span_of(const struct dw_type *t, const uint8_t *buf, size_t size, uint64_t *p, size_t *at)
{
	struct wr_walk_op ops[WR_WALK_MAX_OPS];
	const struct wr_walk_op *op;
	unsigned n = 0;
	int k = codegen_bt_walk(t, 1, ops, &n);
	uint64_t len;

	if (k < 0 || ops[k].code != WR_WALK_STRING)
		return false;
	op = &ops[k];
	if (op->a < 0 || op->b < 0 || (size_t)op->a + 8 > size || (size_t)op->b + 8 > size ||
	    ((op->flags & WR_WALK_F_LIBCXX) && !(buf[0] & 1)))
		return false;
	memcpy(p, buf + op->a, 8);
	memcpy(&len, buf + op->b, 8);
	*p += (uint64_t)(int64_t)op->c;
	*at = (size_t)op->a;
	return *p && len;
}

void fv_want_pieces(const struct where *c, const struct dw_loc *l, const struct dw_type *t, const uint8_t *buf,
		    size_t size)
{
	struct fv_walk *w = c->w;
	uint64_t p, slot, word;
	size_t at;

	if (w->i == 0 || !span_of(t, buf, size, &p, &at) || in_stack(w->bt, p, 1))
		return; /* frame 0's the probe copied; in the stack, the renderer reads it */
	if (fv_loc_piece_address(c, l, at, &slot) && in_stack(w->bt, slot, 8)) {
		memcpy(&word, w->bt->stack_data + (slot - w->bt->stack->base), 8);
		want_off(w, FV_AT_DEREF, slot, (int32_t)(p - word), t, false, true);
	} else {
		want_in_register(w, p, t, false, true);
	}
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

void fv_recipes_pre(struct fv_walk *w, unsigned i, bool pre)
{
	if (i == 0)
		w->recipes_pre = 0;
	else if (i < WR_OUTER_CHAIN_FRAMES)
		w->recipes_pre = (w->recipes_pre & ~(1u << i)) | (uint32_t)pre << i;
}

void fv_recipes_full(struct fv_walk *w, unsigned i, bool full)
{
	if (i == 0)
		w->recipes_full = 0;
	else if (i < WR_OUTER_CHAIN_FRAMES)
		w->recipes_full = (w->recipes_full & ~(1u << i)) | (uint32_t)full << i;
}
