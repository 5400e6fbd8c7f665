/* clock.h - the one clock that durations, deadlines and rates are measured
 * with.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 */
#ifndef WRAITH_UTIL_CLOCK_H
#define WRAITH_UTIL_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything; never goes
 * back when the wall clock is set. */
double now_seconds(void);

/* Seconds of CPU the calling thread has used (CLOCK_THREAD_CPUTIME_ID):
 * what a phase costs, whatever else the machine is doing. */
double thread_cpu_seconds(void);

#endif
