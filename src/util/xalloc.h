/* xalloc.h - allocation that cannot fail.
 *
 * Layer rule: util/ depends on nothing else in wraith.  A tracer that runs
 * out of memory cannot do anything useful, so these abort with a message
 * instead of making every caller handle NULL.
 */
#ifndef WRAITH_UTIL_XALLOC_H
#define WRAITH_UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array of @elem-sized items so index @need - 1 fits; doubles. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string.  Caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
