/* fuzz_wire.c - libFuzzer harness for the wire decoder: the input is one
 * event's bytes as the ring or perf buffer would hand them over.  Decoding
 * must reject what is malformed without reading outside the input; what
 * decodes is walked item by item as a renderer would. */
#include <stddef.h>
#include <stdint.h>

#include "protocol/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t walk(const struct event *ev)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < ev->n_items; i++) {
		const struct ev_item *it = &ev->items[i];

		if (it->type == WR_ITEM_PRINT) {
			for (size_t k = 0; k < it->print.n_args; k++) {
				const struct ev_arg *a = &it->print.args[k];

				sum += a->value + a->len;
				for (size_t b = 0; a->data && b < a->len; b++)
					sum += a->data[b];
				for (size_t b = 0; a->unavail && b < a->len; b++)
					sum += a->unavail[b];
			}
		} else if (it->type == WR_ITEM_BACKTRACE) {
			for (size_t k = 0; k < it->bt.frame_count; k++)
				sum += ev_frame_pc(&it->bt.frames[k]);
		}
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static volatile uint64_t sink;
	struct event_decoder d;
	struct event ev;

	event_decoder_init(&d);
	if (event_decode(&d, data, size, &ev) == 0)
		sink += walk(&ev);
	/* a second event through the same decoder reuses its buffers */
	if (size > 1 && event_decode(&d, data + 1, size - 1, &ev) == 0)
		sink += walk(&ev);
	event_decoder_release(&d);
	return 0;
}
