/* SPDX-License-Identifier: GPL-2.0 */
/*
 * row_alloc.h - which rows of the "unwind_rows" array are free, and how
 * many each uid holds: tables take a range of rows each and give it back
 * when they are reclaimed (row_store.h), so free rows are a sorted list
 * of ranges, neighbours merged, a range taken where it fits best.
 *
 * A uid but root holds at most a quota of rows, so that one user who maps
 * library after library cannot leave the others without tables; root's
 * processes (whoever may profile the machine) have none.
 */
#ifndef ROW_ALLOC_H
#define ROW_ALLOC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct row_alloc;

/* Over nr_rows rows; quota: the rows a uid but 0 may hold, 0 for none. NULL with errno. */
struct row_alloc *row_alloc__new(uint32_t nr_rows, uint32_t quota);
/*
 * n rows (n > 0) for uid, from *first: 0; -EDQUOT when uid would hold
 * more than its quota; -ENOSPC when no free range holds n; -ENOMEM. *reused:
 * some of them held a table before (the BPF side's copies of rows must go).
 */
int row_alloc__take(struct row_alloc *a, uint32_t n, uid_t uid, uint32_t *first, bool *reused);
/* Give back the n rows from first that uid took. */
void row_alloc__give(struct row_alloc *a, uint32_t first, uint32_t n, uid_t uid);
/* The rows uid holds. */
uint32_t row_alloc__held(const struct row_alloc *a, uid_t uid);
/* The rows held, all uids together. */
uint32_t row_alloc__used(const struct row_alloc *a);
uint32_t row_alloc__quota(const struct row_alloc *a);
/* The quota from now on (rows held over it stay). */
void row_alloc__set_quota(struct row_alloc *a, uint32_t quota);
void row_alloc__free(struct row_alloc *a);

#endif /* ROW_ALLOC_H */
