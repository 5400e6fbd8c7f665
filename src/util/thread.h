/* thread.h - helper threads that leave signals to the main thread. */
#ifndef WRAITH_UTIL_THREAD_H
#define WRAITH_UTIL_THREAD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

/* Start @fn(@arg) on a new thread with every signal blocked, so that
 * Ctrl-C and SIGTERM interrupt the main thread's waits.  False when no
 * thread could be made: the caller then runs @fn itself. */
static inline bool thread_start_unsignalled(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	bool made;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	made = pthread_create(thread, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return made;
}

#endif
