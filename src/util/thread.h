/* thread.h - helper threads that leave signals to the main thread. */
#ifndef WRAITH_UTIL_THREAD_H
#define WRAITH_UTIL_THREAD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Start @fn(@arg) on a new thread with every signal blocked, so that
 * Ctrl-C and SIGTERM interrupt the main thread's waits, with a stack of
 * @stack bytes (0: the default).  False when no thread could be made: the
 * caller then runs @fn itself. */
static inline bool thread_start_unsignalled_stack(pthread_t *thread, void *(*fn)(void *),
						  void *arg, size_t stack)
{
	pthread_attr_t attr;
	sigset_t all, old;
	bool made;

	if (pthread_attr_init(&attr))
		return false;
	if (stack)
		pthread_attr_setstacksize(&attr, stack);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	made = pthread_create(thread, &attr, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return made;
}

static inline bool thread_start_unsignalled(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	return thread_start_unsignalled_stack(thread, fn, arg, 0);
}

#endif
