// SPDX-License-Identifier: GPL-2.0
/*
 * row_alloc.c - free ranges of the rows array and each uid's rows
 * (row_alloc.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/row_alloc.h"

struct range {
	uint32_t start, len;
};

struct uid_rows {
	uid_t uid;
	uint32_t rows;
};

struct row_alloc {
	uint32_t nr_rows, quota, used;
	uint32_t top;		/* rows from here were never taken */
	struct range *free;	/* sorted by start, none adjacent */
	size_t nr_free, cap_free;	/* cap_free >= nr_taken: give needs no memory */
	size_t nr_taken;	/* ranges taken and not given back */
	struct uid_rows *uids;	/* those holding rows; few */
	size_t nr_uids, cap_uids;
	row_alloc_realloc_fn realloc;
};

struct row_alloc *row_alloc__new(uint32_t nr_rows, uint32_t quota)
{
	struct row_alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->nr_rows = nr_rows;
	a->quota = quota;
	a->realloc = reallocarray;
	if (nr_rows) {
		a->free = malloc(sizeof(*a->free));
		if (!a->free) {
			free(a);
			return NULL;
		}
		a->free[0] = (struct range){ 0, nr_rows };
		a->nr_free = a->cap_free = 1;
	}
	return a;
}

static struct uid_rows *uid_slot(const struct row_alloc *a, uid_t uid)
{
	for (size_t i = 0; i < a->nr_uids; i++)
		if (a->uids[i].uid == uid)
			return &a->uids[i];
	return NULL;
}

uint32_t row_alloc__held(const struct row_alloc *a, uid_t uid)
{
	const struct uid_rows *s = uid_slot(a, uid);

	return s ? s->rows : 0;
}

uint32_t row_alloc__used(const struct row_alloc *a)
{
	return a->used;
}

uint32_t row_alloc__quota(const struct row_alloc *a)
{
	return a->quota;
}

void row_alloc__set_quota(struct row_alloc *a, uint32_t quota)
{
	a->quota = quota;
}

/* uid's slot, made when missing (NULL: no memory). */
static struct uid_rows *uid_slot_make(struct row_alloc *a, uid_t uid)
{
	struct uid_rows *s = uid_slot(a, uid);

	if (s)
		return s;
	if (a->nr_uids == a->cap_uids) {
		size_t cap = a->cap_uids ? 2 * a->cap_uids : 8;
		struct uid_rows *v = a->realloc(a->uids, cap, sizeof(*v));

		if (!v)
			return NULL;
		a->uids = v;
		a->cap_uids = cap;
	}
	a->uids[a->nr_uids] = (struct uid_rows){ .uid = uid };
	return &a->uids[a->nr_uids++];
}

/*
 * Room in a->free for nr ranges; false when there is no memory. Free
 * ranges are never adjacent: between two of them lies a range taken, so
 * after a give there are at most as many as there were ranges taken
 * before it. With room for nr_taken ranges, no give needs memory.
 */
static bool free_room(struct row_alloc *a, size_t nr)
{
	size_t cap = a->cap_free ? a->cap_free : 8;
	struct range *v;

	if (nr <= a->cap_free)
		return true;
	while (cap < nr)
		cap *= 2;
	v = a->realloc(a->free, cap, sizeof(*v));
	if (!v)
		return false;
	a->free = v;
	a->cap_free = cap;
	return true;
}

int row_alloc__take(struct row_alloc *a, uint32_t n, uid_t uid, uint32_t *first, bool *reused)
{
	struct uid_rows *s = uid_slot(a, uid);
	size_t best = a->nr_free;

	if (!n)
		return -EINVAL;
	if (uid != 0 && a->quota && (s ? s->rows : 0) + (uint64_t)n > a->quota)
		return -EDQUOT;
	/* the smallest range that holds n: large ones stay whole for large tables */
	for (size_t i = 0; i < a->nr_free; i++)
		if (a->free[i].len >= n && (best == a->nr_free || a->free[i].len < a->free[best].len))
			best = i;
	if (best == a->nr_free)
		return -ENOSPC;
	/* room for the free range its give may make, before anything changes */
	if (!free_room(a, a->nr_taken + 1))
		return -ENOMEM;
	s = uid_slot_make(a, uid);
	if (!s)
		return -ENOMEM;
	*first = a->free[best].start;
	*reused = *first < a->top;
	if (a->free[best].len == n) {
		memmove(&a->free[best], &a->free[best + 1], (a->nr_free - best - 1) * sizeof(*a->free));
		a->nr_free--;
	} else {
		a->free[best].start += n;
		a->free[best].len -= n;
	}
	if (*first + n > a->top)
		a->top = *first + n;
	s->rows += n;
	a->used += n;
	a->nr_taken++;
	return 0;
}

void row_alloc__give(struct row_alloc *a, uint32_t first, uint32_t n, uid_t uid)
{
	struct uid_rows *s = uid_slot(a, uid);
	size_t lo = 0, hi = a->nr_free;
	bool left, right;

	if (!n)
		return;
	if (s) {
		s->rows -= n <= s->rows ? n : s->rows;
		/* a uid without rows is forgotten: uids come and go */
		if (!s->rows)
			*s = a->uids[--a->nr_uids];
	}
	a->used -= n <= a->used ? n : a->used;
	if (a->nr_taken)
		a->nr_taken--;
	/* the first range after it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->free[mid].start < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	left = lo && a->free[lo - 1].start + a->free[lo - 1].len == first;
	right = lo < a->nr_free && first + n == a->free[lo].start;
	if (left && right) {
		a->free[lo - 1].len += n + a->free[lo].len;
		memmove(&a->free[lo], &a->free[lo + 1], (a->nr_free - lo - 1) * sizeof(*a->free));
		a->nr_free--;
	} else if (left) {
		a->free[lo - 1].len += n;
	} else if (right) {
		a->free[lo].start = first;
		a->free[lo].len += n;
	} else if (free_room(a, a->nr_free + 1)) {
		/* take made the room (free_room): nothing is allocated for a range it gave */
		memmove(&a->free[lo + 1], &a->free[lo], (a->nr_free - lo) * sizeof(*a->free));
		a->free[lo] = (struct range){ first, n };
		a->nr_free++;
	}
}

void row_alloc__set_realloc(struct row_alloc *a, row_alloc_realloc_fn fn)
{
	a->realloc = fn;
}

void row_alloc__free(struct row_alloc *a)
{
	if (!a)
		return;
	free(a->free);
	free(a->uids);
	free(a);
}
