/* eventbuf.h - building wire-format events in tests, the way the BPF
 * templates lay them out (see src/protocol/wire.h). */
#ifndef WRAITH_TESTS_EVENTBUF_H
#define WRAITH_TESTS_EVENTBUF_H

#include <stdint.h>
#include <string.h>

#include "protocol/wire.h"

struct eventbuf {
	uint8_t data[WR_EVENT_MAX];
	size_t len;
	size_t item; /* offset of the open item */
};

static inline void eb_begin(struct eventbuf *b, uint32_t probe, uint32_t pid, uint32_t tid,
			    uint64_t ts)
{
	struct wr_event_header h = { .magic = WR_EVENT_MAGIC, .probe_id = probe, .pid = pid,
				     .tid = tid, .timestamp_ns = ts };

	memset(b, 0, sizeof(*b));
	memcpy(b->data, &h, sizeof(h));
	b->len = sizeof(h);
}

static inline void eb_put(struct eventbuf *b, const void *p, size_t n)
{
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void eb_item(struct eventbuf *b, uint8_t type, uint16_t index)
{
	struct wr_item_header ih = { .type = type, .index = index };

	b->item = b->len;
	eb_put(b, &ih, sizeof(ih));
}

static inline void eb_arg(struct eventbuf *b, uint8_t kind, uint64_t value)
{
	struct wr_arg_header ah = { .kind = kind, .len = 8, .aux = 8 };

	eb_put(b, &ah, sizeof(ah));
	eb_put(b, &value, sizeof(value));
}

static inline void eb_str(struct eventbuf *b, const char *s)
{
	struct wr_arg_header ah = { .kind = WR_ARG_STR, .len = (uint16_t)(strlen(s) + 1) };
	size_t pad = ((size_t)ah.len + 7) / 8 * 8;

	eb_put(b, &ah, sizeof(ah));
	memset(b->data + b->len, 0, pad);
	memcpy(b->data + b->len, s, ah.len);
	b->len += pad;
}

static inline void eb_bt(struct eventbuf *b, uint16_t depth, uint8_t flags, uint8_t status,
			 uint16_t error, const struct wr_bt_frame *frames, uint16_t n)
{
	struct wr_bt_header bh = { .requested_depth = depth, .frame_count = n, .flags = flags,
				   .status = status, .error_code = error };
	struct wr_bt_frame zero = { 0 };

	eb_put(b, &bh, sizeof(bh));
	for (uint16_t i = 0; i < depth; i++)
		eb_put(b, i < n ? &frames[i] : &zero, sizeof(zero));
}

/* Close the open item and the event. */
static inline void eb_close_item(struct eventbuf *b)
{
	struct wr_item_header ih;
	struct wr_event_header h;

	memcpy(&ih, b->data + b->item, sizeof(ih));
	ih.length = (uint16_t)(b->len - b->item - sizeof(ih));
	memcpy(b->data + b->item, &ih, sizeof(ih));
	memcpy(&h, b->data, sizeof(h));
	h.payload_len = (uint32_t)(b->len - sizeof(h));
	h.n_items++;
	memcpy(b->data, &h, sizeof(h));
}

#endif
