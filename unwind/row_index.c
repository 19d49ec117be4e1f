// SPDX-License-Identifier: GPL-2.0
/*
 * row_index.c - a table's page index (unwind_row.h): for each page of its
 * pcs, the first row that may hold a pc of it, so that the BPF side finds
 * a row in a few reads instead of a binary search over the whole table.
 */
#include <stdint.h>
#include <string.h>

#include "unwind/row_index.h"

_Static_assert(sizeof(struct unwind_index_head) == sizeof(struct unwind_row),
	       "the head takes a row");

/* The head of the index of rows[0, nr): the smallest shift that keeps it small. */
static struct unwind_index_head index_head(const struct unwind_row *rows, size_t nr)
{
	uint64_t span, limit = nr / UNW_INDEX_DENSITY;
	struct unwind_index_head h = { 0 };

	if (limit < 1)
		limit = 1;
	h.shift = UNW_INDEX_MIN_SHIFT;
	for (;;) {
		h.base = (uint32_t)((uint64_t)rows[0].pc >> h.shift << h.shift);
		span = (uint64_t)rows[nr - 1].pc - h.base;
		/* pages up to the one after the last row's: first[nr_pages] = nr */
		h.nr_pages = (uint32_t)((span >> h.shift) + 1);
		if (h.nr_pages <= limit || h.shift == UNW_INDEX_MAX_SHIFT)
			return h;
		h.shift++;
	}
}

size_t row_index__size(const struct unwind_row *rows, size_t nr)
{
	struct unwind_index_head h = index_head(rows, nr);

	return 1 + (h.nr_pages + 1 + UNW_INDEX_PER_ROW - 1) / UNW_INDEX_PER_ROW;
}

void row_index__build(const struct unwind_row *rows, size_t nr, struct unwind_row *out)
{
	struct unwind_index_head h = index_head(rows, nr);
	size_t size = row_index__size(rows, nr), r = 0;
	uint32_t *first = (uint32_t *)(out + 1);

	memset(out, 0, size * sizeof(*out));
	memcpy(out, &h, sizeof(h));
	for (uint64_t p = 0; p <= h.nr_pages; p++) {
		uint64_t start = h.base + (p << h.shift);

		while (r < nr && rows[r].pc <= start)
			r++;
		first[p] = (uint32_t)r;
	}
}
