/* frame_values.c - the variables of a backtrace's frames (see
 * frame_values.h): each frame's registers by the CFI, each variable's
 * location evaluated against them and the stack copy, its bytes shown by
 * type.
 */
#include "tracer/frame_values_priv.h"
#include "dwarf/stdlib.h"
#include "dwarf/tailcall.h"
#include "dwarf/vars.h"
#include "render/render.h"
#include "tracer/target.h"
#include "unwind/frame.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUE_BYTES 4096u /* a variable larger than this is not shown */
#define MAX_STRING      200 /* gdb's print elements: more is shown as "..." */
#define VAR_PARAM       ((size_t)1 << 62) /* in fv_walk.off[][0]: a parameter */
#define VAR_ENTRY       ((size_t)1 << 61) /* and its value is the one its caller passed */

struct fv_walk *fv_new(void)
{
	struct fv_walk *w = xcalloc(1, sizeof(*w));

	strbuf_init(&w->text);
	return w;
}

void fv_free(struct fv_walk *w)
{
	if (!w)
		return;
	strbuf_release(&w->text);
	free(w);
}

void fv_forget(struct fv_walk *w)
{
	if (w) {
		w->bt = NULL;
		w->sh = NULL;
	}
}

/* ---- the stack copy and the frames' registers ---- */

int fv_copy_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct ev_backtrace *bt = ctx;
	uint64_t base = bt->stack->base, have = bt->stack->len;

	if (addr < base || addr - base > have || len > have - (addr - base))
		return -1;
	memcpy(buf, bt->stack_data + (addr - base), len);
	return 0;
}

static uint64_t frame_lookup_pc(const struct wr_bt_frame *f)
{
	return (f->flags & WR_FRAME_F_EXACT_IP) || f->pc == 0 ? f->pc : f->pc - 1;
}

/* Frame w->i's CFA and its caller's registers, by its module's CFI. */
static void step(struct fv_walk *w, struct target *t)
{
	const struct wr_bt_frame *f = &w->bt->frames[w->i];
	struct tmodule *m = target_module_by_cookie(t, f->cookie);
	bool caller_exact;

	w->have_cfa = m && uw_frame_step(m->dw, f->pc, f->flags & WR_FRAME_F_EXACT_IP, &w->regs,
					 fv_copy_read, (void *)w->bt, &w->cfa, &w->caller,
					 &caller_exact) == 0;
}

/* The kernel's saved registers in DWARF numbering. */
static void regs_of(const struct wr_stack_regs *r, struct uw_frame_regs *out)
{
	const uint64_t v[UW_FRAME_NREGS] = {
#define REG_VALUE(n, name, field) [n] = r->field,
		X86_DWARF_REGS(REG_VALUE)
#undef REG_VALUE
	};

	memcpy(out->v, v, sizeof(v));
	out->known = (1u << UW_FRAME_NREGS) - 1;
}

static void start(struct fv_walk *w, struct target *t, const struct ev_backtrace *bt)
{
	w->n_wants = 0;
	w->bt = bt;
	w->sh = bt->stack;
	w->i = 0;
	regs_of(bt->regs, &w->regs);
	w->live = true;
	w->valid = bt->frame_count > 0 && bt->regs->ip == bt->frames[0].ip;
	if (w->valid)
		step(w, t);
}

/* Whether frame 0 of @w's backtrace was entered by the call before frame
 * 1's return address - a direct call of its function (not of one that
 * jumped to it, a tail call, which may have changed registers on the
 * way) - and ran only straight-line code since (dw_entry_straight(): no
 * jump of its own lands there, a loop's head): the registers it did not
 * write, all but *@written (bit n: DWARF register n), still hold what
 * they held at the call.  At its first instruction nothing ran; past
 * it, a prologue's pushes and moves (`trace FUNC` stands after them, as
 * gdb's break does). */
static bool called_at_entry(const struct fv_walk *w, struct target *t, uint32_t *written)
{
	const struct wr_bt_frame *f0 = &w->bt->frames[0], *f1 = &w->bt->frames[1];
	struct tmodule *m = target_module_by_cookie(t, f0->cookie);
	uint8_t call[5];
	uint64_t entry;
	const char *key;
	int32_t rel;

	*written = 0;
	if (!m || !dw_function_at(m->dw, f0->pc, &key, &entry) ||
	    !(entry == f0->pc ? dw_entry_only_called(m->dw, entry) : dw_entry_straight(m->dw, entry, f0->pc, written)) ||
	    (f1->flags & WR_FRAME_F_EXACT_IP) || f1->ip < sizeof(call) ||
	    target_read_const(t, (pid_t)w->pid, f1->ip - sizeof(call), call, sizeof(call)) != sizeof(call) ||
	    call[0] != 0xe8) /* call rel32 */
		return false;
	memcpy(&rel, call + 1, sizeof(rel));
	return f1->ip + (uint64_t)(int64_t)rel == f0->ip - (f0->pc - entry);
}

/* Whether frame w->i (a caller, i > 0) is in a unit whose locations at
 * its call say which caller-saved registers survived the call (GCC's:
 * dw_frame_knows_callee_clobbers()), and every frame below it was called
 * (none was interrupted by a signal): what such a location names was
 * left alone by all of them, so it is what the register holds now, at
 * the hit, as gdb reads it. */
static bool callees_left_alone(const struct fv_walk *w, struct target *t)
{
	const struct wr_bt_frame *f = &w->bt->frames[w->i];
	struct tmodule *m = target_module_by_cookie(t, f->cookie);

	for (unsigned k = 1; k <= w->i; k++)
		if (w->bt->frames[k].flags & WR_FRAME_F_EXACT_IP)
			return false;
	return m && dw_frame_knows_callee_clobbers(m->dw, frame_lookup_pc(f));
}

/* Give @to, of a frame whose callees changed nothing of them but the
 * registers in @changed (bit n: DWARF register n), the registers it does
 * not know from @from (its callee's, or the hit's): all but rsp, which
 * the frame's CFA gives. */
static void take_unknown(struct uw_frame_regs *to, const struct uw_frame_regs *from, uint32_t changed)
{
	for (int r = 0; r < WR_DWARF_RIP; r++)
		if (r != WR_DWARF_RSP && !(changed & (1u << r)) && !(to->known & (1u << r)) &&
		    (from->known & (1u << r))) {
			to->v[r] = from->v[r];
			to->known |= 1u << r;
		}
}

/* Move to frame w->i + 1: its registers are the ones frame i's rules
 * restore, and only if they lead where the kernel's walk went.  Frame 1
 * of a frame 0 called at its entry has the registers a callee may
 * clobber too (gdb shows its variables in them: at the entry they are
 * still what they were at the call). */
static void advance(struct fv_walk *w, struct target *t)
{
	const struct wr_bt_frame *next = &w->bt->frames[w->i + 1];
	struct uw_frame_regs callee = w->regs;
	uint32_t written;

	w->i++;
	w->valid = w->valid && w->have_cfa && (w->caller.known & (1u << WR_DWARF_RIP)) &&
		   w->caller.v[WR_DWARF_RIP] == next->ip;
	if (!w->valid)
		return;
	w->regs = w->caller;
	w->live = w->i == 1 && called_at_entry(w, t, &written);
	if (w->live) {
		take_unknown(&w->regs, &callee, written);
	} else if (callees_left_alone(w, t)) {
		struct uw_frame_regs now;

		regs_of(w->bt->regs, &now);
		take_unknown(&w->regs, &now, 0);
	}
	step(w, t);
}

/* ---- locations ---- */

/* ---- values as text ---- */

static bool unit_is_nul(const uint8_t *u, unsigned width)
{
	for (unsigned k = 0; k < width; k++)
		if (u[k])
			return false;
	return true;
}

/* The string a char pointer @p points to (of @width-byte characters: 1,
 * or a wide string's 2 or 4), into @buf (at most @max bytes, up to its
 * NUL): from the stack copy, or from the file of the module whose
 * read-only data holds it (a literal).  Elsewhere (the heap, writable
 * data) it may have changed since the probe fired: not read (the chain's
 * recipe may have copied it: fv_outer_string()). */
size_t fv_pointed_string(const struct where *c, uint64_t p, unsigned width, uint8_t *buf, size_t max)
{
	size_t n = 0;
	long got;

	while (n + width <= max && fv_copy_read((void *)c->w->bt, p + n, buf + n, width) == 0) {
		n += width;
		if (unit_is_nul(buf + n - width, width))
			return n;
	}
	if (n > 0)
		return n;
	got = c->t ? target_read_const(c->t, (pid_t)c->pid, p, buf, max) : -1;
	if (got <= 0)
		return 0;
	for (n = 0; n + width <= (size_t)got; n += width)
		if (unit_is_nul(buf + n, width))
			return n + width;
	return n;
}

static void bytes_text(const struct where *c, const struct dw_type *t, const uint8_t *data,
		       size_t len, uint64_t addr, struct strbuf *out);

static const struct ev_arg *copied_referent(const struct where *c, uint64_t addr);

/* The library's values as gdb's bt shows them (render_frame_value()),
 * what they hold looked up in the stack copy, or in what the probe
 * copied of the value at @addr with it for frame 0, when it did. */
static bool library_text(const struct where *c, const struct dw_type *t, const uint8_t *data, size_t len,
			 uint64_t addr, struct strbuf *out)
{
	const struct ev_backtrace *bt = c->w->bt;
	struct ev_arg stack = { .kind = WR_ARG_MEM, .status = WR_ARG_OK, .value = bt->stack->base,
				.data = bt->stack_data, .len = bt->stack->len };
	const struct ev_arg *copy = addr ? copied_referent(c, addr) : NULL;
	struct render_value_ctx vc = c->vc ? *c->vc : (struct render_value_ctx){ 0 };
	size_t n = bt->outer ? bt->outer->n_attach : 0;
	struct ev_arg *with;
	bool shown;

	if (copy && copy->status == WR_ARG_OK && copy->kind == WR_ARG_BYTES && copy->len == len)
		return render_frame_value(t, copy->data, copy->len, addr, copy->attach, copy->n_attach, c->vc,
					  out);
	vc.not_copied = fv_not_copied(c->w);
	if (!vc.not_copied && !addr && c->w->i > 0)
		/* held in registers, and no recipe was wanted for what they
		 * point to (fv_want_pieces() notes a string's) */
		vc.not_copied = "<unavailable>";
	/* an outer frame's local of bt full whose whole walk its recipe ran */
	if (c->w->whole && addr && fv_outer_walked(bt, addr))
		vc.whole = true;
	if (!n)
		return render_frame_value(t, data, len, addr, &stack, 1, &vc, out);
	/* with what the chain's recipe copied */
	with = xmalloc((n + 1) * sizeof(*with));
	with[0] = stack;
	memcpy(with + 1, bt->outer->attach, n * sizeof(*with));
	shown = render_frame_value(t, data, len, addr, with, n + 1, &vc, out);
	free(with);
	return shown;
}

/* Whether no bit of @size bytes is in @gone (fv_loc_pieces()). */
static bool whole_bytes(const uint8_t *gone, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (gone[i])
			return false;
	return true;
}

/* What frame 0's reference to @addr refers to, or its value at @addr,
 * as the probe copied it at the hit (WR_ITEM_REFS); NULL when it was not
 * copied.  An outer frame's variable at that address uses it too: it is
 * the memory there at the hit, whichever frame names it (a reference
 * passed down the calls to frame 0, a caller's string frame 0 refers
 * to). */
static const struct ev_arg *copied_referent(const struct where *c, uint64_t addr)
{
	const struct ev_backtrace *bt = c->w->bt;

	for (size_t i = 0; i < bt->n_refs; i++)
		for (size_t k = 0; k < bt->refs[i].n_attach; k++)
			if (bt->refs[i].attach[k].kind == WR_ARG_ATTACH &&
			    bt->refs[i].attach[k].aux == WR_ARG_ATTACH_REFERENCE &&
			    bt->refs[i].attach[k].value == addr)
				return &bt->refs[i];
	return NULL;
}

const uint8_t *fv_copied_bytes(const struct ev_backtrace *bt, uint64_t addr, size_t size)
{
	for (size_t i = 0; i < bt->n_refs; i++) {
		const struct ev_arg *a = &bt->refs[i];

		if (a->kind != WR_ARG_BYTES || a->status != WR_ARG_OK || a->len < size)
			continue;
		for (size_t k = 0; k < a->n_attach; k++)
			if (a->attach[k].kind == WR_ARG_ATTACH && a->attach[k].aux == WR_ARG_ATTACH_REFERENCE &&
			    a->attach[k].value == addr)
				return a->data;
	}
	return NULL;
}

/* The referent @a of @size bytes the probe copied, shown as gdb's bt
 * shows it: a library value alone, else `@0x7ffe...: 5`; false when it
 * is not of that size. */
static bool copied_text(const struct where *c, const struct ev_arg *a, const struct dw_type *t,
			size_t size, uint64_t addr, struct strbuf *out)
{
	uint8_t raw[8];

	if (a->status != WR_ARG_OK) {
		strbuf_addf(out, "@0x%" PRIx64 ": <unreadable>", addr);
		return true;
	}
	if (a->kind == WR_ARG_BYTES && a->len == size &&
	    render_frame_value(t, a->data, a->len, addr, a->attach, a->n_attach, c->vc, out))
		return true;
	if (a->kind == WR_ARG_BYTES && a->len == size) {
		/* a struct or array (print_args_frame_referent()) */
		strbuf_addf(out, "@0x%" PRIx64 ": ", addr);
		bytes_text(c, t, a->data, a->len, addr, out);
		return true;
	}
	if (a->kind == WR_ARG_BYTES || size > sizeof(raw))
		return false;
	memcpy(raw, &a->value, sizeof(raw));
	strbuf_addf(out, "@0x%" PRIx64 ": ", addr);
	bytes_text(c, t, raw, size, addr, out);
	return true;
}

/* The @size bytes of a referent at @addr: from the stack copy, what the
 * chain's recipe copied (@outer), or a module's read-only data. */
static bool referent_bytes(const struct where *c, uint64_t addr, bool outer, uint8_t *buf, size_t size)
{
	const uint8_t *copy = outer ? fv_outer_bytes(c->w->bt, addr, size) : NULL;

	if (fv_copy_read((void *)c->w->bt, addr, buf, size) == 0)
		return true;
	if (copy)
		memcpy(buf, copy, size);
	return copy || (c->t && target_read_const(c->t, (pid_t)c->pid, addr, buf, size) == (long)size);
}

/* A C++ reference as gdb's bt shows it, `@0x7ffe...: 5`: the referent
 * from the stack copy, or a module's read-only data, or what the probe
 * copied of it for frame 0 (in any frame that refers to it); elsewhere
 * it is beyond what the probe copied: <unavailable>. */
static void reference_text(const struct where *c, const struct dw_type *t, uint64_t addr,
			   struct strbuf *out)
{
	const struct ev_arg *copied;
	size_t size = (size_t)t->target->size, at = out->len;
	uint8_t *buf;

	strbuf_addf(out, "@0x%" PRIx64 ": ", addr);
	if (!size || size > MAX_VALUE_BYTES) {
		strbuf_addf(out, "<%s>", t->target->name);
		return;
	}
	if (dw_std_walkable(t->target, 0) && !dw_std_recognize(t->target, &(struct dw_std){ 0 })) {
		strbuf_setlen(out, at);
		strbuf_addstr(out, "..."); /* a struct holding them, unread */
		return;
	}
	buf = xmalloc(size);
	copied = copied_referent(c, addr);
	if (!copied)
		fv_want_reference(c->w, addr, t->target);
	if (referent_bytes(c, addr, !copied, buf, size)) {
		/* gdb shows a library value a reference refers to without
		 * the address: name="apple" */
		strbuf_setlen(out, at);
		if (!library_text(c, t->target, buf, size, addr, out)) {
			strbuf_addf(out, "@0x%" PRIx64 ": ", addr);
			bytes_text(c, t->target, buf, size, addr, out);
		}
	} else if (copied && (strbuf_setlen(out, at), copied_text(c, copied, t->target, size, addr, out))) {
		/* shown */
	} else {
		strbuf_setlen(out, at);
		strbuf_addf(out, "@0x%" PRIx64 ": %s", addr,
			    fv_not_copied(c->w) ? fv_not_copied(c->w) : "<unavailable>");
	}
	free(buf);
}

#define MAX_STRINGS 16 /* char pointers inside one value whose strings are read */

/* The strings of a value's char pointers, each keyed by its offset in it. */
struct strings {
	struct ev_arg v[MAX_STRINGS];
	uint8_t text[MAX_STRINGS][(MAX_STRING + 1) * 4]; /* a wide string's too */
	size_t n;
	size_t tried; /* pointers looked at, found or not (the first MAX_STRINGS) */
};

/* A pointer to characters, shown with its string: their width (1, or a
 * wide character's 2 or 4), else 0. */
static unsigned char_pointer_width(const struct dw_type *t)
{
	if (t->kind != DW_TYPE_POINTER || t->is_reference || t->container || !t->target)
		return 0;
	if (t->target->is_char && t->target->size == 1)
		return 1;
	return t->target->char_prefix ? (unsigned)t->target->size : 0;
}

/* The string at @p as the probe copied it at the hit for frame 0's char
 * pointer of that value (WR_ITEM_REFS; its readable head where it could
 * not all be read), or NULL.  An outer frame's pointer of that value uses
 * it too: it is the memory there at the hit. */
static const struct ev_arg *copied_string(const struct where *c, uint64_t p)
{
	const struct ev_backtrace *bt = c->w->bt;

	for (size_t i = 0; i < bt->n_refs; i++)
		if (bt->refs[i].kind == WR_ARG_CSTR && bt->refs[i].value == p && !(bt->refs[i].aux & WR_ARG_AUX_WIDE) &&
		    (bt->refs[i].status == WR_ARG_OK || bt->refs[i].status == WR_ARG_POINTEE_ERROR))
			return &bt->refs[i];
	return NULL;
}

/* The string of the char pointer @t (of @width-byte characters) at @off
 * of @data, as the probe copied it at the hit (copied_string()) or where
 * it can be read (fv_pointed_string()); where a narrow one cannot and @data
 * is the variable's own (not a referent's), noted for the chain's
 * recipe. */
static void add_string(const struct where *c, const struct dw_type *t, const uint8_t *data, size_t off,
		       unsigned width, struct strings *s)
{
	struct ev_arg *a = &s->v[s->n];
	const struct ev_arg *copy;
	uint64_t p;

	memcpy(&p, data + off, 8);
	if (!p || s->tried >= MAX_STRINGS)
		return;
	s->tried++;
	if (width == 1 && (copy = copied_string(c, p))) {
		*a = *copy; /* as a print argument's, cut where its read was */
		a->aux = (uint32_t)off;
		a->attach = NULL;
		a->n_attach = 0;
		s->n++;
		return;
	}
	*a = (struct ev_arg){ .kind = WR_ARG_ATTACH, .status = WR_ARG_OK, .aux = (uint32_t)off,
			      .value = p, .data = s->text[s->n] };
	a->len = fv_pointed_string(c, p, width, s->text[s->n], (MAX_STRING + 1) * width);
	if (!a->len && width == 1 && data == c->w->var_data) /* wanted whether copied or not */
		fv_want_string(c->w, c->w->var_at ? c->w->var_at + off : 0, p, t);
	if (!a->len && width == 1) /* what the chain's recipe copied */
		a->len = fv_outer_string(c->w->bt, p, s->text[s->n], (MAX_STRING + 1) * width);
	if (!a->len && width == 1 && (copy = fv_outer_failed(c->w->bt, p))) {
		/* its head, then the error, as a print argument's */
		*a = (struct ev_arg){ .kind = WR_ARG_ATTACH, .status = WR_ARG_POINTEE_ERROR, .aux = (uint32_t)off,
				      .value = p, .data = copy->data, .len = copy->len };
		s->n++;
	} else if (a->len) {
		s->n++;
	}
}

/* The strings of every char pointer in @t (at @off of @data, @len bytes),
 * in its members and elements at any depth, as the text shows them. */
static void find_strings(const struct where *c, const struct dw_type *t, const uint8_t *data,
			 size_t len, size_t off, int depth, struct strings *s)
{
	if (depth > 8 || off > len || t->size > len - off)
		return;
	if (char_pointer_width(t) && t->size == 8) {
		add_string(c, t, data, off, char_pointer_width(t), s);
	} else if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION) {
		for (size_t i = 0; i < t->n_members; i++)
			if (!t->members[i].bit_size && !t->members[i].is_virtual)
				find_strings(c, t->members[i].type, data, len, off + t->members[i].offset,
					     depth + 1, s);
	} else if (t->kind == DW_TYPE_ARRAY && t->target && t->target->size) {
		for (uint64_t i = 0; i < t->count && s->tried < MAX_STRINGS; i++)
			find_strings(c, t->target, data, len, off + i * t->target->size, depth + 1, s);
	}
}

/* A frame's variable as gdb's bt shows it, as a value inside another: a
 * pointer is its address and symbol without its type, a char 113 'q', a
 * char pointer its string where it can be read (pointed_string), inside
 * a struct or an array too. */
static void bytes_text(const struct where *c, const struct dw_type *t, const uint8_t *data,
		       size_t len, uint64_t addr, struct strbuf *out)
{
	struct render_value_ctx with = c->vc ? *c->vc : (struct render_value_ctx){ 0 };
	struct fv_statics *statics;
	struct strings *s;
	uint64_t p = 0;

	if (t->kind == DW_TYPE_POINTER && t->is_reference && t->target && len == 8) {
		memcpy(&p, data, 8);
		reference_text(c, t, p, out);
		return;
	}
	if (library_text(c, t, data, len, addr, out))
		return;
	s = xmalloc(sizeof(*s));
	s->n = 0;
	s->tried = 0;
	find_strings(c, t, data, len, 0, 0, s);
	with.attach = s->v;
	with.n_attach = s->n;
	statics = fv_statics_new(c, t);
	with.statics = fv_statics_arg(statics);
	with.not_copied = fv_not_copied(c->w);
	render_value(t, data, len, false, &with, out);
	fv_statics_free(statics);
	free(s);
}

/* ---- values in pieces (DW_OP_piece) ---- */

/* Whether @a and @b of @size bytes are the same where @gone (NULL: none)
 * says they were kept. */
static bool same_kept(const uint8_t *a, const uint8_t *b, const uint8_t *gone, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if ((a[i] ^ b[i]) & (gone ? (uint8_t)~gone[i] : 0xff))
			return false;
	return true;
}

/* Frame 0's value in pieces (a &str in two registers, a std::string of
 * clang -O2 in registers and stack slots) as the probe assembled it at
 * the hit, with what it points to copied (print_args_frame_referent()):
 * the one of the same bytes, kept where the same bits are. */
static const struct ev_arg *copied_pieces(const struct where *c, const uint8_t *buf, const uint8_t *gone,
					  size_t size)
{
	const struct ev_backtrace *bt = c->w->bt;

	if (c->w->i != 0)
		return NULL;
	for (size_t i = 0; i < bt->n_refs; i++) {
		const struct ev_arg *a = &bt->refs[i];
		bool a_gone = render_bits_gone(a->unavail, 0, size * 8, false);

		if (a->kind != WR_ARG_PIECES || a->status != WR_ARG_OK || a->len != size)
			continue;
		if (!a_gone && !render_bits_gone(gone, 0, size * 8, false) && !memcmp(a->data, buf, size))
			return a;
		if (a_gone && gone && !memcmp(a->unavail, gone, size) && same_kept(a->data, buf, gone, size))
			return a;
	}
	return NULL;
}

/* A variable in static storage or off the stack (the heap) as the probe
 * copied it at the hit (frame 0's, print_args_frame_referent()), found
 * by its address: true when it was, and is shown.  An outer frame's
 * variable at that address uses it too: it is the memory there at the
 * hit. */
static bool static_copied(const struct where *c, const struct dw_var *v, uint64_t addr, struct strbuf *out)
{
	const struct ev_arg *copy = copied_referent(c, addr);

	if (!copy || copy->kind != WR_ARG_BYTES || copy->status != WR_ARG_OK || copy->len != v->type->size)
		return false;
	bytes_text(c, v->type, copy->data, copy->len, addr, out);
	return true;
}

/* An outer frame's variable in writable static storage (a caller's
 * static) at @addr: its @size bytes as the chain's recipe copied them at
 * the hit, into @buf; false when it did not (noted for the recipe, and
 * why in fv_not_copied()). */
static bool outer_static(struct where *c, const struct dw_type *t, uint64_t addr, uint8_t *buf, size_t size)
{
	const uint8_t *copy;

	fv_want_static(c->w, addr, t);
	copy = fv_outer_bytes(c->w->bt, addr, size);
	if (copy)
		memcpy(buf, copy, size);
	return copy != NULL;
}

static void var_text(struct where *c, const struct dw_var *v, struct strbuf *out)
{
	const struct dw_type *t = v->type;
	size_t size = t ? (size_t)t->size : 0;
	uint64_t addr, scalar;
	uint8_t *buf;
	bool is_mem;

	c->w->not_copied = NULL;
	c->w->unread = false;
	if (t && dw_type_is_vla(t) && v->loc.kind != DW_LOC_OPTIMIZED_OUT) {
		strbuf_addstr(out, RENDER_VLA_MARKER); /* its length was not read */
		return;
	}
	if (t && dw_type_is_flexible(t) && (t->target->kind == DW_TYPE_ARRAY || !t->target->is_char) &&
	    v->loc.kind != DW_LOC_OPTIMIZED_OUT && fv_loc_address(c, &v->loc, &is_mem, &addr) && is_mem) {
		strbuf_addf(out, "0x%" PRIx64, addr); /* an array of no length: its address, as gdb shows it */
		return;
	}
	if (v->loc.kind == DW_LOC_OPTIMIZED_OUT || !t || size == 0 || size > MAX_VALUE_BYTES) {
		strbuf_addstr(out, "<optimized out>");
		return;
	}
	if (v->loc.kind == DW_LOC_IMPLICIT_PTR) {
		strbuf_addstr(out, "<synthetic pointer>"); /* optimized away, its target known */
		return;
	}
	if (v->loc.kind == DW_LOC_PIECES) {
		/* members not kept are <optimized out>, all of them: the whole */
		struct render_value_ctx with = c->vc ? *c->vc : (struct render_value_ctx){ 0 };
		uint8_t *gone = xmalloc(size);

		const struct ev_arg *copy;

		buf = xmalloc(size);
		fv_loc_pieces(c, &v->loc, buf, gone, size);
		with.unavail = gone;
		copy = copied_pieces(c, buf, gone, size);
		if (!copy && whole_bytes(gone, size))
			fv_want_pieces(c, &v->loc, t, buf, size); /* an outer frame's: its recipe's */
		if (copy ? render_frame_value(t, buf, size, 0, copy->attach, copy->n_attach, &with, out)
			 : whole_bytes(gone, size) && library_text(c, t, buf, size, 0, out)) {
			; /* a library value (a Rust &str in two registers), as gdb's bt shows it */
		} else {
			struct fv_statics *statics = fv_statics_new(c, t);

			with.statics = fv_statics_arg(statics);
			render_value(t, buf, size, false, &with, out);
			fv_statics_free(statics);
		}
		free(gone);
		free(buf);
	} else if (fv_loc_address(c, &v->loc, &is_mem, &addr) && v->loc.kind == DW_LOC_MEM_ADDR &&
		   static_copied(c, v, addr, out)) {
		;
	} else if (fv_loc_address(c, &v->loc, &is_mem, &addr)) {
		buf = xmalloc(size);
		/* else a constant in a module's read-only data (a static const
		 * array) is what its file holds, or, relocated (RELRO: a
		 * static const array of pointers), what the process holds,
		 * which cannot have changed since; the heap and writable data
		 * are beyond what the probe copied */
		if (fv_copy_read((void *)c->w->bt, addr, buf, size) == 0) {
			if (!t->is_reference && !copied_referent(c, addr))
				fv_want_value(c->w, addr, t);
			c->w->var_at = addr;
			c->w->var_data = buf;
			bytes_text(c, t, buf, size, addr, out);
			c->w->var_at = 0;
			c->w->var_data = NULL;
		} else if (static_copied(c, v, addr, out)) {
			; /* off the stack, copied at the hit */
		} else if ((c->t && target_read_const(c->t, (pid_t)c->pid, addr, buf, size) == (long)size) ||
			   (c->t && target_read_stable(c->t, (pid_t)c->pid, addr, buf, size) == size)) {
			bytes_text(c, t, buf, size, addr, out);
		} else if (v->loc.kind == DW_LOC_MEM_ADDR && outer_static(c, t, addr, buf, size)) {
			bytes_text(c, t, buf, size, addr, out);
		} else {
			strbuf_addstr(out, fv_not_copied(c->w) ? fv_not_copied(c->w) : "<unavailable>");
		}
		free(buf);
	} else if (!is_mem && (size <= 8 || t->container) && v->loc.bit_shift < 64 &&
		   fv_loc_value(c, &v->loc, &scalar)) {
		/* a member function pointer in a register: its function (the
		 * adjustment after it is not shown) */
		uint64_t words[2] = { scalar >> v->loc.bit_shift, 0 };
		size_t len = size <= 8 ? size : sizeof(words);
		/* frame 0's Rc or Box in a register: the probe assembled it at
		 * the hit, with what it points to (an Rc's counts) */
		const struct ev_arg *copy = t->kind == DW_TYPE_STRUCT && len == size
						    ? copied_pieces(c, (const uint8_t *)words, NULL, size) : NULL;

		c->w->var_data = (const uint8_t *)words;
		if (!copy || !render_frame_value(t, (const uint8_t *)words, size, 0, copy->attach, copy->n_attach,
						 c->vc, out))
			bytes_text(c, t, (const uint8_t *)words, len, 0, out);
		c->w->var_data = NULL;
	} else if (c->w->unread) { /* computed from memory not copied at the hit */
		strbuf_addstr(out, fv_not_copied(c->w) ? fv_not_copied(c->w) : "<unavailable>");
	} else if (v->loc.unreadable_reg && c->w->live) {
		/* in (or computed from) a register the CPU holds and a probe
		 * cannot read (xmm0), or at the function's entry what the
		 * call passed there when no call site says: gdb's marker for
		 * it, as print shows it */
		strbuf_addstr(out, "<unavailable>");
	} else {
		strbuf_addstr(out, "<optimized out>");
	}
}

struct collect {
	struct where where;
	struct fv_walk *w;
	size_t n;
	struct fv_walk *up;      /* the caller's frame, walked to on first need; owned */
	bool up_tried;
	/* A function that left by a tail call (fv_tail_frame): the jump it
	 * left by, in module tail_mod (else 0: the frame's own function) */
	uint64_t tail_pc;
	struct tmodule *tail_mod;
	/* the tail calls between the frame and its caller, innermost first,
	 * found on first need */
	struct render_frame tails[DW_TAILCALL_MAX];
	size_t n_tails;
	bool tails_tried;
	struct dw_module *dw;    /* the frame's module's debug info */
	struct fv_walk *jumper;  /* the registers at those jumps; owned */
	unsigned depth;          /* callers' callers followed (caller_entry_value) */
};

/* ---- what the caller passed (its call site, by the return address) ---- */

/* Whether the frame @c stands at is at its function's first instruction,
 * reached only by calls: no jump of the function's own lands there (a
 * loop's head), so nothing of it ran since it was entered. */
static bool at_entry(struct collect *c)
{
	const struct wr_bt_frame *f = &c->w->bt->frames[c->w->i];
	struct tmodule *m = target_module_by_cookie(c->where.t, f->cookie);
	const char *key;
	uint64_t entry;

	return m && dw_function_at(m->dw, f->pc, &key, &entry) && entry == f->pc &&
	       dw_entry_only_called(m->dw, entry);
}

/* The frame that called the one @c stands at, walked to (registers and
 * CFA); NULL when it is not known or the call is not a call (a signal
 * interrupted it). */
static struct fv_walk *caller_of(struct collect *c)
{
	const struct fv_walk *w = c->w;

	if (!c->up_tried) {
		c->up_tried = true;
		if (w->valid && w->i + 1 < w->bt->frame_count &&
		    !(w->bt->frames[w->i + 1].flags & WR_FRAME_F_EXACT_IP)) {
			c->up = xmalloc(sizeof(*c->up));
			*c->up = *w;
			strbuf_init(&c->up->text);
			advance(c->up, c->where.t);
			if (!c->up->valid) {
				fv_free(c->up);
				c->up = NULL;
			} else if (w->i == 0 && !c->tail_pc && at_entry(c)) {
				/* nothing ran since the call: the registers the
				 * callee may clobber still hold the caller's */
				c->up->live = true;
				take_unknown(&c->up->regs, &w->regs, 0);
			}
		}
	}
	return c->up;
}

/* The registers of a function that tail-called the function of frame
 * @w (stepped): at its jump, those the frame had at its entry - all of
 * them when the frame is frame 0 at its entry, else the ones its caller
 * gets back; its CFA is the frame's.  Caller frees. */
static struct fv_walk *jumper_of(const struct fv_walk *w, bool at_entry)
{
	struct fv_walk *g = xmalloc(sizeof(*g));

	*g = *w;
	strbuf_init(&g->text);
	if (!(w->i == 0 && at_entry)) {
		g->live = false;
		g->regs = w->caller;
		/* at the jump its stack held the return address, as at entry */
		g->regs.v[WR_DWARF_RSP] = w->cfa - 8;
		g->regs.known |= 1u << WR_DWARF_RSP;
	}
	return g;
}

/* ---- the chain of tail calls between the frame and its caller ---- */

static size_t chain_of(struct collect *c)
{
	struct fv_walk *up = caller_of(c);

	if (!c->tails_tried && up && c->w->have_cfa)
		c->n_tails = target_tailcalls(c->where.t, &c->w->bt->frames[c->w->i], &up->bt->frames[up->i],
					      c->tails, DW_TAILCALL_MAX);
	c->tails_tried = true;
	return c->n_tails;
}

/* Where the function @c shows is in the chain: -1 for the frame's own,
 * else its index in c->tails; -2 when it is not there. */
static int chain_pos(struct collect *c)
{
	size_t n;

	if (!c->tail_pc)
		return -1;
	n = chain_of(c);
	for (size_t k = 0; k < n; k++)
		if (c->tails[k].tail_pc == c->tail_pc && c->tails[k].tail_module == c->tail_mod->cookie)
			return (int)k;
	return -2;
}

/* The function at chain position @p (chain_pos()): its module, key
 * (dw_function_at()) and entry address. */
static bool function_of(struct collect *c, int p, struct tmodule **m, const char **key, uint64_t *entry)
{
	const struct wr_bt_frame *f = &c->w->bt->frames[c->w->i];

	*m = p < 0 ? target_module_by_cookie(c->where.t, f->cookie)
		   : target_module_by_cookie(c->where.t, c->tails[p].tail_module);
	return *m && dw_function_at((*m)->dw, p < 0 ? frame_lookup_pc(f) : c->tails[p].tail_pc, key, entry);
}

/* Module @m's load bias in @c's process: that of @c's frame or of its
 * caller when it is theirs (as the kernel saw them), else from the
 * process's mappings. */
static bool bias_of(const struct collect *c, const struct tmodule *m, uint64_t *bias)
{
	const struct ev_backtrace *bt = c->w->bt;

	for (unsigned k = c->w->i; k < bt->frame_count && k <= c->w->i + 1; k++)
		if (m == target_module_by_cookie(c->where.t, bt->frames[k].cookie)) {
			*bias = bt->frames[k].ip - bt->frames[k].pc;
			return true;
		}
	return target_module_bias(c->where.t, (pid_t)c->where.pid, m, bias);
}

/* Whether call site @cs, read in @at, calls the function @key entered
 * at @entry (in the process). */
static bool calls(const struct where *at, const struct dw_call_site *cs, const char *key, uint64_t entry)
{
	uint64_t called;

	if (cs->callee)
		return strcmp(cs->callee, key) == 0;
	return fv_loc_value(at, &cs->target, &called) && called == entry;
}

static bool entering_site(struct collect *c, int p, int reg, struct dw_call_site *cs, struct where *at);
static bool caller_site(struct collect *c, struct tmodule *cm, uint64_t return_pc, int reg, struct dw_call_site *cs,
			const struct where *at);

/* What a function of the chain had on entry (dw_entry_values): what the
 * jump or call that entered it passed. */
struct chain_entry {
	struct collect *c;
	int p;
};

static bool chain_entry_value(void *ctx, int reg, uint64_t *value)
{
	struct chain_entry *ce = ctx;
	struct dw_call_site cs;
	struct where at;

	return entering_site(ce->c, ce->p, reg, &cs, &at) && fv_loc_value(&at, &cs.value, value);
}

/* Callers' callers followed for a call site that passes on what its
 * caller had on entry (gdb follows such hand-offs as far as they go). */
#define MAX_CALLER_ENTRY 8

/* What the caller @at stands in (a frame of its own, called) had on
 * entry in register @reg: what its own caller's call site passed, one
 * frame further out (dw_entry_values for its call site's values). */
static bool caller_entry_value(void *ctx, int reg, uint64_t *value)
{
	struct collect *c = ctx, up = { .where = c->where, .w = c->where.w, .depth = c->depth + 1 };
	struct dw_call_site cs;
	struct where at;
	bool ok;

	if (up.depth > MAX_CALLER_ENTRY)
		return false;
	ok = entering_site(&up, -1, reg, &cs, &at) && fv_loc_value(&at, &cs.value, value);
	fv_free(up.up);
	fv_free(up.jumper);
	return ok;
}

/* The call site at return address @return_pc of module @cm, in the
 * caller @at, and what it passed in DWARF register @reg.  A value that
 * is the caller's own entry value is read one frame further out, as gdb
 * reads it; when that frame cannot be reached, as the probe reads it
 * (the trees of the caller's callers, dw_call_site_value() without
 * entry values). */
static bool caller_site(struct collect *c, struct tmodule *cm, uint64_t return_pc, int reg, struct dw_call_site *cs,
			const struct where *at)
{
	struct collect caller = { .where = *at, .depth = c->depth };
	const struct dw_entry_values cev = { caller_entry_value, &caller };
	uint64_t v;

	if (dw_call_site_value(cm->dw, return_pc, reg, &cev, cs) == 0 && fv_loc_value(at, &cs->value, &v))
		return true;
	return dw_call_site_value(cm->dw, return_pc, reg, NULL, cs) == 0;
}

/* The call that entered the function at chain position @p and what it
 * passed in DWARF register @reg: the next jump out (as gdb resolves it
 * through its tailcall frames; only jumps with a return address, as gdb
 * 13 reads them: GCC's), read with the registers the jumps had, its own
 * entry values the next one's; else the caller's call site at its return
 * address, read in the caller's frame.  @at is the frame it is read in.
 * False when none says, or it calls another function. */
static bool entering_site(struct collect *c, int p, int reg, struct dw_call_site *cs, struct where *at)
{
	struct fv_walk *up = caller_of(c);
	size_t n = chain_of(c);
	struct chain_entry ce = { c, p + 1 };
	const struct dw_entry_values ev = { chain_entry_value, &ce };
	const struct wr_bt_frame *cf;
	struct tmodule *m, *cm, *tm;
	const char *key;
	uint64_t entry, bias;

	/* gdb trusts no call site of a function whose tail calls could
	 * lead back to it */
	if (!up || !function_of(c, p, &m, &key, &entry) || !bias_of(c, m, &bias) ||
	    !dw_tailcall_entry_values(m->dw, entry))
		return false;
	cf = &up->bt->frames[up->i];
	cm = target_module_by_cookie(c->where.t, cf->cookie);
	*at = c->where;
	at->w = up;
	at->bias = cf->ip - cf->pc;
	/* the frame's own function: the caller's call may call it (else a
	 * clone GCC gave the constants passes nothing: the jumps say) */
	if (p < 0 || (size_t)(p + 1) >= n) {
		if (cm && caller_site(c, cm, cf->pc, reg, cs, at) && calls(at, cs, key, entry + bias))
			return true;
		if ((size_t)(p + 1) >= n)
			return false;
	}
	tm = target_module_by_cookie(c->where.t, c->tails[p + 1].tail_module);
	if (!tm || !bias_of(c, tm, &at->bias) ||
	    dw_call_site_value(tm->dw, c->tails[p + 1].tail_pc + 1, reg, &ev, cs) != 0)
		return false;
	if (!c->jumper)
		c->jumper = jumper_of(c->w, c->w->i == 0 && at_entry(c));
	at->w = c->jumper;
	return calls(at, cs, key, entry + bias);
}

/* What the caller of @c's function passed in DWARF register @reg - 1,
 * as a variable of @v's type in @out (@at reads it); false when its call
 * site does not say, or calls another function. */
static bool passed_value(struct collect *c, const struct dw_var *v, unsigned reg, struct dw_var *out,
			 struct where *at)
{
	struct dw_call_site cs;
	int p = chain_pos(c);

	/* A reference's value at entry is its referent's, which only a call
	 * site's DW_AT_call_data_value gives: gdb shows no @entry without it,
	 * and neither does this. */
	if (!reg || p < -1 || (v->type && v->type->is_reference) || !entering_site(c, p, (int)reg - 1, &cs, at))
		return false;
	*out = *v;
	out->loc = cs.value;
	return true;
}

/* Whether parameter @v of the frame's own function is, at its pc, wholly
 * in DWARF register @reg - 1, the one its caller passed it in, which a
 * probe cannot read (xmm0), while nothing of the function ran (frame 0
 * at its entry): the register still holds what the call passed, so the
 * value is the entry value (gdb reads the register and finds them
 * equal: `x=x@entry=1.5`). */
static bool still_passed(struct collect *c, const struct dw_var *v, unsigned reg)
{
	return v->entry_reg == reg && v->loc.kind == DW_LOC_UNSUPPORTED && v->loc.unreadable_reg == reg &&
	       !v->loc.unreadable_computed &&
	       c->w->i == 0 && c->w->live && !c->tail_pc && at_entry(c);
}

/* @v's text in @out as the frame at @c sees it; *@entry says the value is
 * also the one the caller passed (gdb's `x=x@entry=5`); else a value the
 * caller passed that differs is added after it as `x@entry`. */
static void param_text(struct collect *c, const struct dw_var *v, bool *entry, struct strbuf *out,
		       struct strbuf *entry_out)
{
	struct dw_var passed;
	struct where at;
	struct strbuf pt = STRBUF_INIT;
	size_t from = out->len;
	unsigned reg = v->entry_reg ? v->entry_reg : v->loc.entry_reg;

	*entry = false;
	var_text(&c->where, v, out);
	if (!reg || !passed_value(c, v, reg, &passed, &at))
		return;
	var_text(&at, &passed, &pt);
	if (pt.buf[0] == '<') { /* the caller did not keep it either: gdb says nothing */
		strbuf_release(&pt);
		return;
	}
	if ((strcmp(out->buf + from, "<optimized out>") == 0 && v->loc.entry_reg) || still_passed(c, v, reg)) {
		/* the value is the entry value, which only the call says */
		strbuf_setlen(out, from);
		strbuf_addstr(out, pt.buf);
	}
	if (strcmp(out->buf + from, pt.buf) == 0)
		*entry = true;
	else if (v->entry_reg)
		strbuf_addstr(entry_out, pt.buf);
	strbuf_release(&pt);
}

/* VLA @v with the lengths its dimensions have in this frame (as gdb
 * reads them), its type sized, into @out; false when one cannot be read,
 * or a dimension has no length at all (gcc -O2 may drop an inner one's):
 * it then shows the marker. */
static bool vla_sized(struct collect *c, const struct dw_var *v, struct dw_var *out)
{
	uint64_t counts[DW_VLA_DIMS];

	for (unsigned i = 0; i < v->n_vla; i++)
		if (!fv_loc_value(&c->where, &v->vla_len[i], &counts[i]))
			return false;
	*out = *v;
	out->type = c->dw ? dw_type_vla_sized(c->dw, v->type, counts, v->n_vla) : NULL;
	return out->type && out->type->size;
}

/* A local as gdb's bt full shows it: whole, as print shows it.  Frame
 * 0's the probe copied at the hit, its containers' elements too; an
 * outer frame's in the stack copy, once the chain's recipe ran its whole
 * walk (library_text()), else short, as a parameter (the chain's first
 * events, a walk left out).  A local that is only what a register held
 * at the function's entry (`struct calls *c = ud;` once ud is dead) has
 * the value the call that entered it passed, as a parameter has, when
 * its module's own callers do not say (a call through a pointer, a
 * caller in another module): gdb shows it so, without `@entry`. */
static void local_text(struct collect *c, const struct dw_var *v, struct strbuf *out)
{
	struct render_value_ctx whole = c->where.vc ? *c->where.vc : (struct render_value_ctx){ 0 };
	struct where at = c->where, passed_at;
	struct dw_var passed;
	size_t from = out->len;

	if (c->w->i == 0 && !c->tail_pc) {
		whole.whole = true;
		at.vc = &whole;
	}
	c->w->whole = c->w->i > 0 && !c->tail_pc;
	var_text(&at, v, out);
	c->w->whole = false;
	if (v->loc.entry_reg && strcmp(out->buf + from, "<optimized out>") == 0 &&
	    passed_value(c, v, v->loc.entry_reg, &passed, &passed_at)) {
		struct strbuf pt = STRBUF_INIT;

		var_text(&passed_at, &passed, &pt);
		if (pt.buf[0] != '<') { /* the caller did not keep it either */
			strbuf_setlen(out, from);
			strbuf_addstr(out, pt.buf);
		}
		strbuf_release(&pt);
	}
}

static int collect_var(const struct dw_var *v, void *ctx)
{
	struct collect *c = ctx;
	struct fv_walk *w = c->w;
	struct dw_var sized;

	struct strbuf entry = STRBUF_INIT;
	bool is_entry = false;

	w->off[c->n][0] = w->text.len;
	strbuf_addstr(&w->text, v->name);
	strbuf_addch(&w->text, '\0');
	w->off[c->n][1] = w->text.len;
	if (v->type && dw_type_is_vla(v->type) && vla_sized(c, v, &sized))
		v = &sized;
	if (v->scope == DW_VAR_PARAMETER)
		param_text(c, v, &is_entry, &w->text, &entry);
	else
		local_text(c, v, &w->text);
	strbuf_addch(&w->text, '\0');
	w->off[c->n][0] |= (v->scope == DW_VAR_PARAMETER ? VAR_PARAM : 0) | (is_entry ? VAR_ENTRY : 0);
	if (entry.len && c->n + 1 < FV_MAX_VARS) {
		/* what the caller passed differs: gdb's `x=3, x@entry=5` */
		c->n++;
		w->off[c->n][0] = w->text.len | VAR_PARAM;
		strbuf_addf(&w->text, "%s@entry", v->name);
		strbuf_addch(&w->text, '\0');
		w->off[c->n][1] = w->text.len;
		strbuf_addstr(&w->text, entry.buf);
		strbuf_addch(&w->text, '\0');
	}
	strbuf_release(&entry);
	return ++c->n >= FV_MAX_VARS;
}

/* Why @bt, whose values are wanted, carries no copy of the registers
 * and stack (decode.h, enum ev_no_stack). */
static const char *no_copy_why(const struct ev_backtrace *bt)
{
	switch (bt->no_stack) {
	case EV_STACK_NO_ROOM:
		return "the event carries no copy of the registers and stack: no room was left for "
		       "it (an event holds 32 KiB at most)";
	case EV_STACK_OTHER_BT:
		return "the event carries no copy of the registers and stack for this backtrace: "
		       "its one copy is another backtrace's";
	case EV_STACK_UNFINISHED:
		return "the event carries no copy of the registers and stack: the walk did not end "
		       "in the kernel";
	case EV_STACK_LOST:
		return "the event carries no copy of the registers and stack: the kernel attached "
		       "one, which was lost on the way (a decoding error)";
	case EV_STACK_NOT_TRIED:
		return "the event carries no copy of the registers and stack: the kernel did not "
		       "attach one, and says nothing of why";
	default:
		return "the event carries no copy of the registers and stack";
	}
}

/* Walks @w to frame @i of @bt: the frame's module, or NULL with *@why. */
static struct tmodule *reach(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
			     unsigned i, const char **why)
{
	struct tmodule *m;

	if (w->pid != pid)
		w->bt = NULL; /* walked for another process: again */
	w->pid = pid;
	if (!bt->regs || !bt->stack || i >= bt->frame_count) {
		*why = no_copy_why(bt);
		return NULL;
	}
	/* Each backtrace is rendered from frame 0: start again there (a new
	 * event may reuse the same memory). */
	if (i == 0 || w->bt != bt || w->sh != bt->stack || w->i > i)
		start(w, t, bt);
	while (w->i < i && w->valid)
		advance(w, t);
	m = target_module_by_cookie(t, bt->frames[i].cookie);
	if (!w->valid || !m) {
		*why = !w->valid ? (i == 0 ? "the registers are not frame 0's"
					   : "this frame's registers could not be recovered")
				 : "no module is known at this address";
		return NULL;
	}
	return m;
}

/* The variables of function level @level at @pc of @m, into @out, as
 * @c's frame sees them; the texts are in c->w's text. */
static long gather(struct collect *c, struct tmodule *m, uint64_t pc, unsigned level, bool locals,
		   struct fv_var *out, size_t max)
{
	struct fv_walk *w = c->w;
	const struct wr_bt_frame *f = &w->bt->frames[w->i];

	strbuf_reset(&w->text);
	c->dw = m->dw;
	/* a caller stopped in its call: also where the call returns to */
	dw_frame_vars_returning(m->dw, pc, !c->tail_pc && pc + 1 == f->pc ? f->pc : 0, level, true, locals,
				collect_var, c);
	fv_free(c->up);
	fv_free(c->jumper);
	for (size_t k = 0; k < c->n && k < max; k++) {
		size_t name = w->off[k][0] & ~(VAR_PARAM | VAR_ENTRY);

		out[k].name = w->text.buf + name;
		out[k].value = w->text.buf + w->off[k][1];
		out[k].param = (w->off[k][0] & VAR_PARAM) != 0;
		out[k].entry = (w->off[k][0] & VAR_ENTRY) != 0;
	}
	return (long)(c->n < max ? c->n : max);
}

static void where_init(struct where *at, struct fv_walk *w, struct target *t, uint32_t pid,
		       const struct render_value_ctx *vc)
{
	const struct wr_bt_frame *f = &w->bt->frames[w->i];

	at->w = w;
	at->bias = f->ip - f->pc;
	at->vc = vc;
	at->t = t;
	at->pid = pid;
}

long fv_frame(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
	      unsigned i, unsigned level, bool locals, const struct render_value_ctx *vc,
	      struct fv_var *out, size_t max, const char **why)
{
	struct tmodule *m = reach(w, t, pid, bt, i, why);
	struct collect c = { .w = w };

	if (!m)
		return -1;
	where_init(&c.where, w, t, pid, vc);
	return gather(&c, m, frame_lookup_pc(&bt->frames[i]), level, locals, out, max);
}

long fv_tail_frame(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
		   unsigned i, uint64_t tail_module, uint64_t tail_pc, bool locals,
		   const struct render_value_ctx *vc, struct fv_var *out, size_t max, const char **why)
{
	struct tmodule *m = reach(w, t, pid, bt, i, why);
	struct collect c = { .w = w, .tail_pc = tail_pc, .tail_mod = target_module_by_cookie(t, tail_module) };
	struct fv_walk *g;
	long n;

	if (!m)
		return -1;
	if (!w->have_cfa) {
		*why = "this frame's registers could not be recovered";
		return -1;
	}
	where_init(&c.where, w, t, pid, vc);
	if (!c.tail_mod || !bias_of(&c, c.tail_mod, &c.where.bias)) {
		*why = "the module of this function is not mapped in the process";
		return -1;
	}
	/* the function's frame is the one its jump left: that frame's
	 * registers at its entry, read into w's text */
	g = jumper_of(w, i == 0 && at_entry(&c));
	strbuf_release(&g->text);
	g->text = w->text;
	c.w = c.where.w = g;
	n = gather(&c, c.tail_mod, tail_pc, 0, locals, out, max);
	w->text = g->text;
	free(g);
	return n;
}

bool fv_entry_value(struct fv_walk *w, struct target *t, uint32_t pid, const struct ev_backtrace *bt,
		    int reg, uint64_t *value)
{
	struct collect c = { .w = w };
	struct dw_call_site cs;
	struct where at;
	const char *why;
	bool ok;

	if (!reach(w, t, pid, bt, 0, &why))
		return false;
	where_init(&c.where, w, t, pid, NULL);
	ok = entering_site(&c, chain_pos(&c), reg, &cs, &at) && fv_loc_value(&at, &cs.value, value);
	fv_free(c.up);
	fv_free(c.jumper);
	return ok;
}

bool fv_return_address(struct fv_walk *w, struct target *t, const struct ev_backtrace *bt, unsigned i,
		       uint64_t *ra)
{
	const char *why;

	if (!reach(w, t, w->pid, bt, i, &why) || !w->have_cfa || !(w->caller.known & (1u << WR_DWARF_RIP)))
		return false;
	*ra = w->caller.v[WR_DWARF_RIP];
	return true;
}
