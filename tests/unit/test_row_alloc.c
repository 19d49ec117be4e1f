// SPDX-License-Identifier: GPL-2.0
/*
 * test_row_alloc.c - the free ranges of the rows array (row_alloc.h):
 * rows given back are never lost, not even when memory runs out.
 */
#include <errno.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "unwind/row_alloc.h"

static void *no_memory(void *p, size_t n, size_t size)
{
	(void)p;
	(void)n;
	(void)size;
	errno = ENOMEM;
	return NULL;
}

/*
 * Every other range given back makes a free range of its own, more than
 * the list held when memory ran out: each must still come back, so that
 * once all are given the whole array is one range again.
 */
Test(row_alloc, rows_given_back_without_memory_are_not_lost)
{
	enum { NR = 64, ROWS = NR * 10 };
	struct row_alloc *a = row_alloc__new(ROWS, 0);
	uint32_t first[NR], all;
	bool reused;

	cr_assert_not_null(a);
	for (int i = 0; i < NR; i++)
		cr_assert_eq(row_alloc__take(a, 10, 1000, &first[i], &reused), 0);
	row_alloc__set_realloc(a, no_memory);
	for (int i = 0; i < NR; i += 2)
		row_alloc__give(a, first[i], 10, 1000);
	for (int i = 1; i < NR; i += 2)
		row_alloc__give(a, first[i], 10, 1000);
	cr_assert_eq(row_alloc__used(a), 0);
	cr_assert_eq(row_alloc__take(a, ROWS, 0, &all, &reused), 0,
		     "rows given back without memory were lost");
	cr_assert_eq(all, 0);
	row_alloc__free(a);
}

/* A take that needs memory it cannot have fails whole: nothing taken, nothing lost. */
Test(row_alloc, a_take_without_memory_takes_nothing)
{
	struct row_alloc *a = row_alloc__new(100, 0);
	uint32_t x, y;
	bool reused;

	cr_assert_not_null(a);
	cr_assert_eq(row_alloc__take(a, 10, 0, &x, &reused), 0);
	row_alloc__set_realloc(a, no_memory);
	for (int i = 0; i < 100; i++) {
		int err = row_alloc__take(a, 1, 0, &y, &reused);

		if (err) {
			cr_assert_eq(err, -ENOMEM);
			break;
		}
	}
	row_alloc__set_realloc(a, reallocarray);
	row_alloc__give(a, x, 10, 0);
	cr_assert_eq(row_alloc__take(a, 10, 0, &x, &reused), 0);
	row_alloc__free(a);
}
