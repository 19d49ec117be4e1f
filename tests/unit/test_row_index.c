// SPDX-License-Identifier: GPL-2.0
/*
 * test_row_index.c - a table's page index (unwind/row_index.c): for the
 * pcs of every page, the row that holds them lies among the rows the
 * index gives that page, and the index stays small however far apart
 * the rows are.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "unwind/cfi_table.h"
#include "symbols/budget.h"
#include "unwind/row_index.h"
#include "sym_fixtures.h"

#define FIXTURE_UNWIND FIXTURE_DIR "/fixture_unwind"

struct index {
	struct unwind_row *rows;
	size_t size;
	struct unwind_index_head h;
	const uint32_t *first;
};

static void build(struct index *x, const struct unwind_row *rows, size_t nr)
{
	x->size = row_index__size(rows, nr);
	cr_assert_geq(x->size, 2);
	x->rows = calloc(x->size, sizeof(*x->rows));
	cr_assert_not_null(x->rows);
	row_index__build(rows, nr, x->rows);
	memcpy(&x->h, x->rows, sizeof(x->h));
	x->first = (const uint32_t *)(x->rows + 1);
	cr_assert_leq((x->h.nr_pages + 1 + 3) / 4 + 1, x->size, "entries past the index's rows");
}

/* The last row at or before pc by a linear scan, or -1: what a search must find. */
static long row_of(const struct unwind_row *rows, size_t nr, uint64_t pc)
{
	long r = -1;

	for (size_t i = 0; i < nr && rows[i].pc <= pc; i++)
		r = (long)i;
	return r;
}

/*
 * Every pc from below the first row to past the last, step apart: its row
 * is among [first[p], first[p + 1]] of its page p (the BPF side searches
 * there), or, past the last page, the last row.
 */
static void assert_index_finds(const struct unwind_row *rows, size_t nr, uint64_t step)
{
	struct index x;
	uint64_t lo_pc = rows[0].pc > 64 ? rows[0].pc - 64 : 0;
	uint64_t hi_pc = (uint64_t)rows[nr - 1].pc + 4096;

	build(&x, rows, nr);
	cr_assert_leq(x.h.base, rows[0].pc);
	cr_assert(x.h.shift >= UNW_INDEX_MIN_SHIFT && x.h.shift <= UNW_INDEX_MAX_SHIFT);
	cr_assert_eq(x.first[x.h.nr_pages], nr, "one past the last page is after every row");
	for (uint32_t p = 0; p < x.h.nr_pages; p++)
		cr_assert_leq(x.first[p], x.first[p + 1]);
	for (uint64_t pc = lo_pc; pc < hi_pc && pc <= UINT32_MAX; pc += step) {
		long want = row_of(rows, nr, pc), lo, hi;
		uint64_t page;

		if (pc < x.h.base) {
			cr_assert_eq(want, -1);
			continue;
		}
		page = (pc - x.h.base) >> x.h.shift;
		if (page >= x.h.nr_pages) {
			cr_assert_eq(want, (long)nr - 1, "pc %#llx past the last page", (unsigned long long)pc);
			continue;
		}
		lo = (long)x.first[page] - 1;
		hi = (long)x.first[page + 1] - 1;
		cr_assert(want >= lo && want <= hi, "pc %#llx: row %ld, the index says %ld..%ld",
			  (unsigned long long)pc, want, lo, hi);
	}
	free(x.rows);
}

Test(unwind_index, a_real_tables_rows_are_found_in_their_page)
{
	struct cfi_table t;

	cr_assert_eq(cfi_table__build_file(FIXTURE_UNWIND, budget__default(), &t), 0);
	cr_assert_gt(t.nr, 0);
	assert_index_finds(t.rows, t.nr, 1);
	cfi_table__release(&t);
}

/* Rows every few bytes, some at a page's first byte and some just after it: small pages. */
Test(unwind_index, dense_rows_at_and_after_page_starts)
{
	enum { NR = 4096 };
	struct unwind_row *rows = calloc(NR, sizeof(*rows));
	struct index x;

	cr_assert_not_null(rows);
	for (uint32_t i = 0, pc = 0x400000; i < NR; i++, pc += 1 + i % 7)
		rows[i].pc = pc;
	assert_index_finds(rows, NR, 1);
	build(&x, rows, NR);
	cr_assert_eq(x.h.shift, UNW_INDEX_MIN_SHIFT, "%u rows in %u bytes: the smallest pages",
		     NR, rows[NR - 1].pc - rows[0].pc);
	free(x.rows);
	free(rows);
}

/* Rows 2^32 bytes apart at most: pages grow so that the index stays within 1/8 of the rows. */
Test(unwind_index, far_apart_rows_get_large_pages)
{
	enum { NR = 64 };
	struct unwind_row rows[NR] = { 0 };
	struct index x;

	for (int i = 0; i < NR; i++)
		rows[i].pc = 0x1000 + (uint32_t)i * 0x3000000u;
	assert_index_finds(rows, NR, 0x100001);
	build(&x, rows, NR);
	cr_assert_leq(x.h.nr_pages, NR / UNW_INDEX_DENSITY);
	cr_assert_leq(x.size, 1 + NR / UNW_INDEX_DENSITY / UNW_INDEX_PER_ROW + 1);
	free(x.rows);
}

/* One row, at the top of the address space; many rows at one pc. */
Test(unwind_index, one_row_and_equal_pcs)
{
	struct unwind_row one = { .pc = UINT32_MAX - 3 }, same[20] = { 0 };

	assert_index_finds(&one, 1, 1);
	for (int i = 0; i < 20; i++)
		same[i].pc = i < 10 ? 0x2000 : 0x2100;
	assert_index_finds(same, 20, 1);
}
