/* SPDX-License-Identifier: GPL-2.0 */
/*
 * row_find.bpf.h - the BPF side's lookup of a pc's row in a table of the
 * "unwind_rows" array, by the page index that follows the table's rows
 * (unwind_row.h, row_index.c). Included by user_stack.bpf.h.
 */
#ifndef ROW_FIND_BPF_H
#define ROW_FIND_BPF_H

#define UNWIND_ROW_SEARCH 24	/* 16M rows in one page at most */

/* Entry i of the page index of the rows [first, first + nr) (unwind_row.h), or -1. */
static __always_inline __s64 index_entry(__u32 first, __u32 nr, __u32 i)
{
	__u32 key = first + nr + 1 + i / UNW_INDEX_PER_ROW;
	const __u32 *e = bpf_map_lookup_elem(&unwind_rows, &key);

	return e ? e[i & (UNW_INDEX_PER_ROW - 1)] : -1;
}

/*
 * The index of the last row of rows [first, first + nr) at or before pc,
 * or -1: its page's rows from the table's page index, then a binary
 * search among them (a few rows, a cache line or two).
 */
__noinline int unwind_find_row(__u32 first, __u32 nr, __u32 pc)
{
	__u32 key = first + nr, lo, hi, page;
	const struct unwind_index_head *h = bpf_map_lookup_elem(&unwind_rows, &key);
	__s64 a, b;

	if (!h || pc < h->base || h->shift > UNW_INDEX_MAX_SHIFT)
		return -1;
	page = (__u64)(pc - h->base) >> h->shift;
	/* past the last page: after every row */
	if (page >= h->nr_pages)
		return nr ? (int)(first + nr - 1) : -1;
	a = index_entry(first, nr, page);
	b = index_entry(first, nr, page + 1);
	if (a < 0 || b < a || b > nr)
		return -1;
	lo = first + (__u32)a;
	hi = first + (__u32)b;
	for (int i = 0; i < UNWIND_ROW_SEARCH && lo < hi; i++) {
		__u32 mid = lo + (hi - lo) / 2;
		const struct unwind_row *r = bpf_map_lookup_elem(&unwind_rows, &mid);

		if (!r)
			return -1;
		if (r->pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == first ? -1 : (int)(lo - 1);
}

#endif /* ROW_FIND_BPF_H */
