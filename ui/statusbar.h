/* statusbar.h - the bottom line: target, probes, events per second, lost
 * events, transport, and a short message when something needs saying
 * ("press Ctrl-C again to quit", start-up progress).
 *
 * Layer rule: ui/ only (see draw.h).
 */
#ifndef WRAITH_UI_STATUSBAR_H
#define WRAITH_UI_STATUSBAR_H

#include <curses.h>
#include <stdint.h>

struct session;

struct statusbar {
	double since;        /* start of the current rate window */
	uint64_t events_then;/* session events at `since` */
	double rate;         /* events per second over the last window */
	uint64_t lost;       /* last computed */
	char lost_by[64];    /* which probes lost events: "#1 120, #3 4" */
	char message[160];   /* shown until `message_until` */
	double message_until;
};

/* Update the rate and the loss count (about four times a second). */
void statusbar_tick(struct statusbar *b, struct session *s, double now);
/* Show @msg for @seconds instead of the help hint. */
void statusbar_message(struct statusbar *b, const char *msg, double seconds, double now);
void statusbar_draw(const struct statusbar *b, struct session *s, WINDOW *w, double now);

#endif
