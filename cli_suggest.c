// SPDX-License-Identifier: GPL-2.0
/*
 * cli_suggest.c - the long option nearest to a mistyped one, by the
 * number of letters left out, added, changed or swapped with their
 * neighbour (the optimal string alignment distance).
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cli_suggest.h"

/* Longer words are no option names: nothing to suggest. */
#define MAX_WORD 64
#define MAX_EDITS 2

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Edits from a[0, la) to b[0, lb), both at most MAX_WORD long. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[MAX_WORD + 1][MAX_WORD + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t change = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + change);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *cli_suggest__option(const char *word, const struct option *opts)
{
	size_t len = strcspn(word, "="), best = MAX_EDITS + 1;
	const char *found = NULL;
	bool tie = false;

	if (!len || len > MAX_WORD)
		return NULL;
	for (const struct option *o = opts; o->name; o++) {
		size_t lo = strlen(o->name), d, allowed;

		if (lo > MAX_WORD)
			continue;
		d = distance(word, len, o->name, lo);
		allowed = lo / 4 ? lo / 4 : 1;
		if (d > allowed || d > best)
			continue;
		tie = d == best;
		best = d;
		found = o->name;
	}
	return tie ? NULL : found;
}
