/* editdist.c - see editdist.h.  One row of the distance matrix, given up
 * as soon as every entry of a row exceeds the limit. */
#include "util/editdist.h"

unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb, unsigned limit)
{
	unsigned row[EDIT_MAX_LEN + 1];

	if (la > EDIT_MAX_LEN || lb > EDIT_MAX_LEN || (la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0], lowest;

		row[0] = (unsigned)i;
		lowest = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
			if (best < lowest)
				lowest = best;
		}
		if (lowest > limit)
			return limit + 1;
	}
	return row[lb] <= limit ? row[lb] : limit + 1;
}
