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

/*
 * The rows a CPU found last, by file (its table's first row) and pc, in
 * a slot the two pick; the last one to take a slot keeps it. A profile
 * samples the same few hundred pcs again and again: a hit reads a line
 * the CPU keeps warm, where a search reads the table's index and rows
 * (lines and pages of the 64 MiB array that are misses at every sample),
 * and makes no call. A table's first row names it until its rows are
 * reclaimed for another table (row_store.h): userspace moves rows_epoch
 * on after writing rows that held another table and before any entry
 * points at them, and a copy is used only while rows_epoch is what it
 * was when the copy was made (the walk reads it once, after the process's
 * entry, so an entry that points at rows written again is never paired
 * with the epoch before).
 */
#define ROW_CACHE_BITS 9

volatile __u64 rows_epoch = 0;

struct row_slot {
	__u64 tag;			/* first_row << 32 | pc */
	struct unwind_row row;
	__u32 state;			/* ROW_SLOT_* */
	__u32 epoch;			/* rows_epoch's low bits when made */
};

enum { ROW_SLOT_EMPTY, ROW_SLOT_NONE, ROW_SLOT_ROW };

struct row_cache {
	struct row_slot s[1 << ROW_CACHE_BITS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct row_cache);
} row_cache SEC(".maps");

/*
 * The row of pc in the table of nr rows at first, or NULL: from the CPU's
 * cache (a copy made at rows_epoch epoch), else found.
 */
static __always_inline const struct unwind_row *find_row(__u32 first, __u32 nr, __u32 pc,
							 __u32 epoch)
{
	__u64 tag = (__u64)first << 32 | pc;
	const struct unwind_row *r;
	struct row_cache *c;
	struct row_slot *s;
	__u32 zero = 0;
	int idx;

	c = bpf_map_lookup_elem(&row_cache, &zero);
	s = c ? &c->s[(tag * 0x9e3779b97f4a7c15ull) >> (64 - ROW_CACHE_BITS)] : NULL;
	/* one test of both: a branch more in the walk's loop is many more paths to verify */
	if (s && s->state != ROW_SLOT_EMPTY && !((s->tag ^ tag) | (__u64)(s->epoch ^ epoch)))
		return s->state == ROW_SLOT_ROW ? &s->row : NULL;
	idx = unwind_find_row(first, nr, pc);
	r = idx >= 0 ? bpf_map_lookup_elem(&unwind_rows, &idx) : NULL;
	if (s) {
		s->tag = tag;
		s->epoch = epoch;
		s->state = r ? ROW_SLOT_ROW : ROW_SLOT_NONE;
		if (r)
			s->row = *r;
	}
	return r;
}

#endif /* ROW_FIND_BPF_H */
