/* editdist.h - how far apart two names are, for "did you mean" hints.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 */
#ifndef WRAITH_UTIL_EDITDIST_H
#define WRAITH_UTIL_EDITDIST_H

#include <stddef.h>

/* The longest name measured; a longer one is @limit + 1 away. */
#define EDIT_MAX_LEN 255

/* The Levenshtein distance of @a (@la bytes) and @b (@lb bytes), or
 * @limit + 1 once it must exceed @limit. */
unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb, unsigned limit);

#endif
