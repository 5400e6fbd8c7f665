/* frame_values_priv.h - what the parts of frame values share (see
 * frame_values.h): the walk over a backtrace's frames, where a frame's
 * variables are read from, and the functions each part gives the others.
 *
 *   frame_values.c  the walk, each variable as text, what callers passed
 *   frame_loc.c     a variable's location evaluated against a frame
 *   frame_outer.c   outer frames' values that point outside the stack
 *                   copy: what a call chain's recipe copies, and its copies
 *   frame_entry.c   what frame 0's caller passed, from a print's capture
 *
 * Private to tracer/frame_*.c.
 */
#ifndef WRAITH_TRACER_FRAME_VALUES_PRIV_H
#define WRAITH_TRACER_FRAME_VALUES_PRIV_H

#include "tracer/frame_values.h"
#include "unwind/frame.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

#define FV_MAX_VARS 64

struct dw_loc;

struct fv_walk {
	const struct ev_backtrace *bt; /* the backtrace the state is of */
	uint32_t pid;                  /* of the process it is of */
	const struct wr_stack_header *sh;
	unsigned i;                    /* the frame regs are of */
	bool valid;                    /* regs hold frame i's registers */
	/* regs are the ones the CPU had at the hit, those a call may
	 * clobber too (frame 0, or its caller while frame 0 stands at its
	 * entry): a register a probe cannot read (xmm0) holds the frame's
	 * value there (<unavailable>); in another frame a call clobbered it
	 * (<optimized out>, as a general-purpose one) */
	bool live;
	struct uw_frame_regs regs;
	bool have_cfa;                 /* frame i stepped: cfa and caller are known */
	uint64_t cfa;
	struct uw_frame_regs caller;
	struct strbuf text;            /* names and values of the last call */
	size_t off[FV_MAX_VARS][2];
	/* what outer frames' values point to outside the stack copy, for
	 * the chain's recipe (fv_wants()), since frame 0 */
	struct fv_want wants[FV_MAX_WANTS];
	size_t n_wants;
	uint32_t recipes_full;         /* bit i: frame i's (fv_recipes_full()) */
	uint32_t recipes_pre;          /* bit i: frame i's (fv_recipes_pre()) */
	const char *not_copied;        /* the variable shown: why what it points
					* to is not shown (fv_not_copied()) */
	uint64_t var_at;               /* the variable shown: its address in the
					* stack copy, else 0 */
	const uint8_t *var_data;       /* and its bytes (NULL while none is) */
	bool unread;                   /* the variable shown: memory its
					* location reads was not copied */
	bool whole;                    /* the variable shown is an outer frame's
					* local of bt full: shown whole where its
					* recipe's walk ran (fv_outer_walked()) */
};

/* A frame's variables are read at: the walk's frame, its module's load
 * bias, and the target (a module's read-only data). */
struct where {
	struct fv_walk *w;
	uint64_t bias;
	const struct render_value_ctx *vc; /* symbols of addresses; may be NULL */
	struct target *t;
	uint32_t pid;
};

/* The @len bytes at @addr of the stack copy of backtrace @ctx (a const
 * struct ev_backtrace *) into @buf: 0, or -1 when they are not all in it
 * (a uw_mem_fn). */
int fv_copy_read(void *ctx, uint64_t addr, void *buf, size_t len);

/* The @size bytes at @addr as the probe copied them at the hit for frame
 * 0's variables (WR_ITEM_REFS: a variable off the stack, a word its
 * location reads; a copy may be wider, a word read whole), or NULL;
 * borrowed from the event.  Any frame's value at that address uses
 * them: they are the memory there at the hit. */
const uint8_t *fv_copied_bytes(const struct ev_backtrace *bt, uint64_t addr, size_t size);

/* The return address of frame @i of @bt, by its CFI: false when it is
 * not known. */
bool fv_return_address(struct fv_walk *w, struct target *t, const struct ev_backtrace *bt, unsigned i,
		       uint64_t *ra);

/* The string a char pointer @p points to (of @width-byte characters: 1,
 * or a wide string's 2 or 4), into @buf (at most @max bytes, up to and
 * with its NUL): from the stack copy, or from the file of the module
 * whose read-only data holds it (a literal); how many bytes, 0 when it
 * is elsewhere (the heap, writable data: it may have changed since the
 * probe fired). */
size_t fv_pointed_string(const struct where *c, uint64_t p, unsigned width, uint8_t *buf, size_t max);

/* ---- frame_statics.c ---- */

struct fv_statics;
/* The C++ static data members a value of @t shows, as frame @c sees
 * them at the hit (frame_statics.c), or NULL when it shows none.  Free
 * with fv_statics_free(). */
struct fv_statics *fv_statics_new(const struct where *c, const struct dw_type *t);
/* Their copies as render_value_ctx.statics takes them; borrowed until
 * fv_statics_free().  NULL for NULL. */
const struct ev_arg *fv_statics_arg(const struct fv_statics *s);
void fv_statics_free(struct fv_statics *s); /* NULL is a no-op */

/* ---- frame_loc.c ---- */

/* The address of a variable in memory at @c, for the location kinds that
 * have one (*@is_mem false for the others); false when it is not known. */
bool fv_loc_address(const struct where *c, const struct dw_loc *l, bool *is_mem, uint64_t *out);
/* A value that is not in memory (a register, a computed value), as
 * bytes; false when it is not known (a caller-saved register in an outer
 * frame). */
bool fv_loc_value(const struct where *c, const struct dw_loc *l, uint64_t *out);
/* A value whose location is pieces, its @size bytes into @buf, and in
 * @gone the bits no piece kept or this frame cannot see (a caller-saved
 * register), as the renderer takes them (render_value_ctx.unavail). */
void fv_loc_pieces(struct where *c, const struct dw_loc *l, uint8_t *buf, uint8_t *gone, size_t size);
/* The address of the 8 bytes at @byte of a value whose location is
 * pieces, when one piece in memory holds them all; false otherwise (a
 * register, or parts in several). */
bool fv_loc_piece_address(const struct where *c, const struct dw_loc *l, size_t byte, uint64_t *out);

/* ---- frame_outer.c ---- */

/* The @size bytes at @addr as the chain's recipe copied them after the
 * walk (WR_ITEM_OUTER), or NULL; borrowed from the event. */
const uint8_t *fv_outer_bytes(const struct ev_backtrace *bt, uint64_t addr, size_t size);
/* The string at @addr the chain's recipe copied (a char pointer's, up to
 * its NUL or the cap), into @buf, at most @max bytes: how many, 0 when it
 * was not copied. */
size_t fv_outer_string(const struct ev_backtrace *bt, uint64_t addr, uint8_t *buf, size_t max);
/* The marker in place of what frame w->i's variable shown points to,
 * when the recipe of the frame it was noted for (by the fv_want_ calls
 * for it) did not copy it at this event, saying why: frames 0 to that
 * one not seen together before, whose recipe is learned from their
 * first event; its recipe taken out of the full table; more values than
 * a recipe holds.  NULL when none applies (the recipe ran: its copy or
 * its failure shows). */
const char *fv_not_copied(const struct fv_walk *w);
/* The string at @addr whose copy by the chain's recipe failed (its
 * readable head, when it runs into a page that cannot be read), or NULL;
 * borrowed from the event. */
const struct ev_arg *fv_outer_failed(const struct ev_backtrace *bt, uint64_t addr);
/* Note that frame w->i's variable of @t, at @addr of the stack copy,
 * points outside it (a std::string whose characters are on the heap):
 * later events of the chain copy what it points to (fv_wants()). */
void fv_want_value(struct fv_walk *w, uint64_t addr, const struct dw_type *t);
/* The same for a reference to @addr (of referent type @t), which frame
 * 0's copies lack: through its referent in the stack copy, the
 * reference's own slot (w->var_at), or where its register was saved. */
void fv_want_reference(struct fv_walk *w, uint64_t addr, const struct dw_type *t);
/* The same for a variable of @t at @addr in writable static storage (a
 * caller's static): later events of the chain copy its bytes. */
void fv_want_static(struct fv_walk *w, uint64_t addr, const struct dw_type *t);
/* Whether the chain's recipe ran the whole walk (WR_OUTER_F_WALK) of
 * the value at @addr at this event: what it did not copy of it was cut
 * (by print elements or the event's size). */
bool fv_outer_walked(const struct ev_backtrace *bt, uint64_t addr);
/* The same for a string of @t whose @size bytes @buf frame w->i holds
 * in pieces @l (a Rust &str in two registers) and whose characters lie
 * outside the stack copy: found through the stack slot its piece of the
 * data pointer is in, else where the frames below saved that register
 * or frame 0's register that still holds it (WR_OUTER_F_SPAN). */
void fv_want_pieces(const struct where *c, const struct dw_loc *l, const struct dw_type *t, const uint8_t *buf,
		    size_t size);
/* The same for a char pointer whose value @p points outside the stack
 * copy and a module's read-only data: its string, found through its slot
 * @slot of the stack copy (0: it was in a register). */
void fv_want_string(struct fv_walk *w, uint64_t slot, uint64_t p, const struct dw_type *t);

#endif
