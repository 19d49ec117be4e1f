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
 *
 * Giving rows back cannot fail: free ranges are never adjacent, so there
 * is at most one more of them than ranges taken, and take makes room in
 * the list for that many before it gives out a range (it fails instead,
 * -ENOMEM, with nothing taken). Give needs no memory then, and no row
 * is lost to the run for want of it.
 */
#ifndef ROW_ALLOC_H
#define ROW_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
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
/* Give back the n rows from first that uid took: a range take gave, whole. */
void row_alloc__give(struct row_alloc *a, uint32_t first, uint32_t n, uid_t uid);
/* The rows uid holds. */
uint32_t row_alloc__held(const struct row_alloc *a, uid_t uid);
/* The rows held, all uids together. */
uint32_t row_alloc__used(const struct row_alloc *a);
uint32_t row_alloc__quota(const struct row_alloc *a);
/* The quota from now on (rows held over it stay). */
void row_alloc__set_quota(struct row_alloc *a, uint32_t quota);
/* How the lists grow: reallocarray(3) but in tests, which make it fail. */
typedef void *(*row_alloc_realloc_fn)(void *p, size_t n, size_t size);
void row_alloc__set_realloc(struct row_alloc *a, row_alloc_realloc_fn fn);
void row_alloc__free(struct row_alloc *a);

#endif /* ROW_ALLOC_H */
