/* decode.c - turning event bytes into struct event (see decode.h).
 *
 * The decoder trusts nothing: every length is checked against what is
 * left before it is used, so a corrupted or truncated event yields
 * -WR_EPROTO, never an out-of-bounds read.
 */
#include "protocol/decode.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void event_decoder_init(struct event_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

void event_decoder_release(struct event_decoder *d)
{
	free(d->copy);
	free(d->items);
	free(d->args);
	free(d->attach);
	memset(d, 0, sizeof(*d));
}

/* The pointer that starts a WR_ARG_CSTR or ATTACH payload. */
static int split_pointer(struct ev_arg *a)
{
	if (a->len < 8)
		return -WR_EPROTO;
	memcpy(&a->value, a->data, sizeof(a->value));
	a->data += 8;
	a->len -= 8;
	return 0;
}

/* A WR_ARG_PIECES payload: the value's bytes (its size in aux), padded
 * to n, then n bytes of mask. */
static int split_mask(struct ev_arg *a)
{
	size_t size = a->aux & WR_PIECES_SIZE_MASK, n = (size + 7) & ~(size_t)7;

	if (size > WR_PIECES_MAX || a->len != 2 * n)
		return -WR_EPROTO;
	a->unavail = a->data + n;
	a->len = size;
	return 0;
}

/* An attached string or memory copy belongs to the argument before it. */
static int attach(struct event_decoder *d, struct ev_arg *owner, const struct ev_arg *a)
{
	if (!owner)
		return -WR_EPROTO;
	if (!owner->n_attach)
		owner->first_attach = d->n_attach;
	d->attach = xgrow(d->attach, &d->cap_attach, d->n_attach + 1, sizeof(*d->attach));
	d->attach[d->n_attach++] = *a;
	owner->n_attach++;
	return 0;
}

static int decode_args(struct event_decoder *d, const uint8_t *p, size_t len, size_t first,
		       size_t *n_args)
{
	size_t off = 0;

	while (off < len) {
		struct wr_arg_header ah;
		struct ev_arg a = { 0 };
		size_t padded;
		int err = 0;

		if (len - off < sizeof(ah))
			return -WR_EPROTO;
		memcpy(&ah, p + off, sizeof(ah));
		off += sizeof(ah);
		padded = ((size_t)ah.len + 7) & ~(size_t)7;
		if (padded > len - off)
			return -WR_EPROTO;
		a.kind = ah.kind;
		a.status = ah.status;
		a.aux = ah.aux;
		a.data = p + off;
		a.len = ah.len;
		if (ah.kind == WR_ARG_CSTR || ah.kind == WR_ARG_ATTACH || ah.kind == WR_ARG_DUMP ||
		    ah.kind == WR_ARG_MEM)
			err = split_pointer(&a);
		else if (ah.kind != WR_ARG_STR && ah.len >= 8)
			memcpy(&a.value, p + off, sizeof(a.value));
		if (ah.kind == WR_ARG_PIECES)
			err = split_mask(&a);
		if (!err && (ah.kind == WR_ARG_ATTACH || ah.kind == WR_ARG_MEM)) {
			err = attach(d, *n_args > first ? &d->args[*n_args - 1] : NULL, &a);
		} else if (!err) {
			d->args = xgrow(d->args, &d->cap_args, *n_args + 1, sizeof(*d->args));
			d->args[(*n_args)++] = a;
		}
		if (err)
			return err;
		off += padded;
	}
	return 0;
}

static int decode_bt(const uint8_t *p, size_t len, struct ev_backtrace *bt)
{
	struct wr_bt_header bh;

	if (len < sizeof(bh))
		return -WR_EPROTO;
	memcpy(&bh, p, sizeof(bh));
	/* The frames area may be cut to the frames used (the last bt of an
	 * event is trimmed before output). */
	/* Frames are read in place: the templates align them, so a frame
	 * area that is not aligned means a malformed event. */
	if (bh.frame_count > bh.requested_depth || bh.requested_depth > WR_BT_MAX_DEPTH ||
	    sizeof(bh) + (size_t)bh.frame_count * sizeof(struct wr_bt_frame) > len ||
	    (uintptr_t)(p + sizeof(bh)) % _Alignof(struct wr_bt_frame))
		return -WR_EPROTO;
	bt->requested_depth = bh.requested_depth;
	bt->frame_count = bh.frame_count;
	bt->flags = bh.flags;
	bt->status = bh.status;
	bt->error = bh.error_code;
	bt->frames = (const struct wr_bt_frame *)(p + sizeof(bh));
	return 0;
}

static int decode_expr_error(const uint8_t *p, struct wr_item_header ih, struct ev_expr_error *out)
{
	struct wr_expr_error x;

	if (ih.length != sizeof(x))
		return -WR_EPROTO;
	memcpy(&x, p, sizeof(x));
	out->index = ih.index;
	out->code = x.code;
	out->flags = x.flags;
	out->addr = x.addr;
	return 0;
}

/* A stack copy: validated, and attached to its backtrace once all items
 * are decoded. */
static int decode_stack(const uint8_t *p, size_t len, const struct wr_stack_header **out)
{
	const struct wr_stack_header *sh = (const struct wr_stack_header *)p;

	size_t regs = 0;

	if (((uintptr_t)p & 7) != 0 || len < sizeof(*sh))
		return -WR_EPROTO;
	if (sh->flags & WR_STACK_F_REGS)
		regs = sizeof(struct wr_stack_regs);
	/* A copy for a handover starts at the stop's sp (aligned down); one
	 * for frame values at frame 0's, below it. */
	if (len - sizeof(*sh) < regs || sh->len > len - sizeof(*sh) - regs || sh->base > sh->sp ||
	    (!regs && sh->sp - sh->base >= 8))
		return -WR_EPROTO;
	*out = sh;
	return 0;
}

static int attach_stack(struct ev_item *items, size_t n, const struct wr_stack_header *sh,
			const struct ev_arg *outer)
{
	size_t bt = 0;

	for (size_t i = 0; i < n; i++) {
		if (items[i].type != WR_ITEM_BACKTRACE)
			continue;
		if (bt++ == sh->bt_index) {
			if (items[i].bt.stack || items[i].bt.frame_count == 0)
				return -WR_EPROTO;
			items[i].bt.stack = sh;
			items[i].bt.outer = outer;
			items[i].bt.stack_data = (const uint8_t *)(sh + 1);
			if (sh->flags & WR_STACK_F_REGS) {
				items[i].bt.regs = (const struct wr_stack_regs *)(sh + 1);
				items[i].bt.stack_data += sizeof(struct wr_stack_regs);
			}
			return 0;
		}
	}
	return -WR_EPROTO;
}

/* Why @bt has no stack copy (enum ev_no_stack); @copied: some bt of
 * the event has it. */
static uint8_t no_stack(const struct ev_backtrace *bt, bool copied)
{
	if (bt->stack || !(bt->flags & (WR_BT_F_ARGS | WR_BT_F_FULL)) || (bt->flags & WR_BT_F_RAW))
		return EV_STACK_OK;
	if (bt->flags & WR_BT_F_STACK)
		return EV_STACK_LOST;
	if (bt->flags & WR_BT_F_NO_ROOM)
		return EV_STACK_NO_ROOM;
	if (copied)
		return EV_STACK_OTHER_BT;
	if (bt->status == WR_BT_INTERNAL_ERROR)
		return EV_STACK_UNFINISHED;
	return EV_STACK_NOT_TRIED;
}

/* Items point at args by index while the args array may still move, so
 * they are fixed up once all are decoded. */
static int decode_items(struct event_decoder *d, const uint8_t *p, size_t len, struct event *out)
{
	const struct wr_stack_header *stack = NULL;
	size_t off = 0, n_args = 0, refs = 0, n_refs = 0, outer = SIZE_MAX;
	bool have_refs = false;
	int err = 0;

	out->n_items = 0;
	d->n_attach = 0;
	while (off < len && !err) {
		struct wr_item_header ih;
		struct ev_item *it;

		if (len - off < sizeof(ih))
			return -WR_EPROTO;
		memcpy(&ih, p + off, sizeof(ih));
		off += sizeof(ih);
		if (ih.length > len - off)
			return -WR_EPROTO;
		if (ih.type == WR_ITEM_STACK) {
			err = stack ? -WR_EPROTO : decode_stack(p + off, ih.length, &stack);
			off += ih.length;
			continue;
		}
		if (ih.type == WR_ITEM_COUNT) {
			/* A stack counted in the kernel: nothing to show. */
			off += ih.length;
			continue;
		}
		if (ih.type == WR_ITEM_OUTER) {
			/* the outer frames' copies, for the bt the stack is of */
			outer = n_args;
			err = decode_args(d, p + off, ih.length, n_args, &n_args);
			off += ih.length;
			continue;
		}
		if (ih.type == WR_ITEM_CALLER) {
			/* the capture of the print just before it */
			it = out->n_items ? &d->items[out->n_items - 1] : NULL;
			if (!it || it->type != WR_ITEM_PRINT || it->print.index != ih.index || it->print.n_caller)
				return -WR_EPROTO;
			it->print.first_caller = n_args;
			err = decode_args(d, p + off, ih.length, n_args, &n_args);
			it->print.n_caller = n_args - it->print.first_caller;
			off += ih.length;
			continue;
		}
		if (ih.type == WR_ITEM_REFS) {
			/* the referents of the backtrace that follows */
			refs = n_args;
			have_refs = true;
			err = decode_args(d, p + off, ih.length, n_args, &n_args);
			n_refs = n_args - refs;
			off += ih.length;
			continue;
		}
		d->items = xgrow(d->items, &d->cap_items, out->n_items + 1, sizeof(*d->items));
		it = &d->items[out->n_items++];
		memset(it, 0, sizeof(*it));
		it->type = ih.type;
		if (ih.type == WR_ITEM_PRINT) {
			it->print.index = ih.index;
			it->print.first_arg = n_args;
			err = decode_args(d, p + off, ih.length, n_args, &n_args);
			it->print.n_args = n_args - it->print.first_arg;
		} else if (ih.type == WR_ITEM_BACKTRACE) {
			it->bt.index = ih.index;
			err = decode_bt(p + off, ih.length, &it->bt);
			it->bt.first_ref = refs;
			it->bt.n_refs = have_refs ? n_refs : 0;
			have_refs = false;
		} else if (ih.type == WR_ITEM_EXPR_ERROR) {
			err = decode_expr_error(p + off, ih, &it->xerr);
		}
		off += ih.length;
	}
	for (size_t i = 0; i < out->n_items && !err; i++) {
		struct ev_item *it = &d->items[i];

		/* no argument in any print yet: d->args is still NULL */
		if (it->type == WR_ITEM_PRINT && d->args)
			it->print.args = d->args + it->print.first_arg;
		if (it->type == WR_ITEM_PRINT && it->print.n_caller)
			it->print.caller = d->args + it->print.first_caller;
		if (it->type == WR_ITEM_BACKTRACE && it->bt.n_refs)
			it->bt.refs = d->args + it->bt.first_ref;
	}
	for (size_t i = 0; i < n_args && !err; i++)
		d->args[i].attach = d->args[i].n_attach ? d->attach + d->args[i].first_attach : NULL;
	if (stack && !err)
		err = attach_stack(d->items, out->n_items, stack, outer < n_args ? &d->args[outer] : NULL);
	for (size_t i = 0; i < out->n_items && !err; i++)
		if (d->items[i].type == WR_ITEM_BACKTRACE)
			d->items[i].bt.no_stack = no_stack(&d->items[i].bt, stack != NULL);
	out->items = d->items;
	return err;
}

int event_decode(struct event_decoder *d, const void *data, size_t size, struct event *out)
{
	size_t words = (size + 7) / 8;

	memset(out, 0, sizeof(*out));
	if (size < sizeof(struct wr_event_header) || size > WR_EVENT_MAX + 64)
		return -WR_EPROTO;
	d->copy = xgrow(d->copy, &d->copy_cap, words, sizeof(*d->copy));
	memcpy(d->copy, data, size);
	memcpy(&out->hdr, d->copy, sizeof(out->hdr));
	if (out->hdr.magic != WR_EVENT_MAGIC ||
	    out->hdr.payload_len > size - sizeof(struct wr_event_header))
		return -WR_EPROTO;
	return decode_items(d, (const uint8_t *)d->copy + sizeof(struct wr_event_header),
			    out->hdr.payload_len, out);
}
