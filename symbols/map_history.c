// SPDX-License-Identifier: GPL-2.0
/*
 * map_history.c - the mappings of one process generation over time: the
 * latest reading, and what earlier readings saw that is gone since.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "symbols/map_history.h"
#include "trace_helpers.h"

static bool same_mapping(const struct umap *a, const struct umap *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->mod == b->mod && a->kind == b->kind;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* By range, then by what is mapped there, then by when. */
static int umap_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	if (x->start != y->start)
		return cmp_u64(x->start, y->start);
	if (x->end != y->end)
		return cmp_u64(x->end, y->end);
	if (x->offset != y->offset)
		return cmp_u64(x->offset, y->offset);
	if (x->kind != y->kind)
		return (x->kind > y->kind) - (x->kind < y->kind);
	if (x->mod != y->mod)
		return cmp_u64((uintptr_t)x->mod, (uintptr_t)y->mod);
	return cmp_u64(x->seen_ns, y->seen_ns);
}

/* Most recently seen first. */
static int last_seen_desc(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return cmp_u64(y->last_ns, x->last_ns);
}

/*
 * Sort by address and keep the most recent. A mapping gone twice (A, B,
 * then A again at one range) stays two entries: merged, its time span
 * would cover B's and take B's samples.
 */
static void tidy_gone(struct map_history *h)
{
	if (!h->nr_gone)
		return;
	qsort(h->gone, h->nr_gone, sizeof(*h->gone), umap_cmp);
	if (h->nr_gone <= MAP_HISTORY_MAX_GONE)
		return;
	qsort(h->gone, h->nr_gone, sizeof(*h->gone), last_seen_desc);
	h->nr_dropped += h->nr_gone - MAP_HISTORY_MAX_GONE;
	h->nr_gone = MAP_HISTORY_MAX_GONE;
	qsort(h->gone, h->nr_gone, sizeof(*h->gone), umap_cmp);
}

int map_history__update(struct map_history *h, struct umap *maps, size_t nr, uint64_t now_ns)
{
	size_t j = 0;
	int err = 0;

	for (size_t i = 0; i < nr; i++)
		maps[i].seen_ns = maps[i].last_ns = now_ns;
	/* both sorted by start and disjoint: one pass pairs them up */
	for (size_t i = 0; i < h->nr_cur; i++) {
		const struct umap *c = &h->cur[i];

		while (j < nr && maps[j].start < c->start)
			j++;
		if (j < nr && same_mapping(&maps[j], c)) {
			maps[j].seen_ns = c->seen_ns;
			continue;
		}
		if (err || array_reserve((void **)&h->gone, &h->cap_gone, h->nr_gone,
					 sizeof(*h->gone))) {
			err = -ENOMEM;	/* forgotten, like a mapping never seen */
			continue;
		}
		h->gone[h->nr_gone++] = *c;
	}
	free(h->cur);
	h->cur = maps;
	h->nr_cur = nr;
	tidy_gone(h);
	return err;
}

/* How far the readings that saw m are from the sample's time. */
static uint64_t distance(const struct umap *m, uint64_t from_ns, uint64_t to_ns)
{
	if (to_ns < m->seen_ns)
		return m->seen_ns - to_ns;
	if (from_ns > m->last_ns)
		return from_ns - m->last_ns;
	return 0;
}

static const struct umap *find_current(const struct map_history *h, uint64_t addr)
{
	size_t lo = 0, hi = h->nr_cur;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct umap *m = &h->cur[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

void map_history__seen_again(struct map_history *h, uint64_t now_ns)
{
	for (size_t i = 0; i < h->nr_cur; i++)
		h->cur[i].last_ns = now_ns;
}

const struct umap *map_history__find(const struct map_history *h, uint64_t addr, uint64_t from_ns,
				     uint64_t to_ns)
{
	const struct umap *best = find_current(h, addr);
	uint64_t best_d = best ? distance(best, from_ns, to_ns) : UINT64_MAX;

	/* gone mappings are few (dlclose, a reused range): a scan will do */
	for (size_t i = 0; i < h->nr_gone && h->gone[i].start <= addr; i++) {
		const struct umap *m = &h->gone[i];
		uint64_t d;

		if (addr >= m->end)
			continue;
		d = distance(m, from_ns, to_ns);
		/* a tie goes to the current mapping, else to the later reading */
		if (!best || d < best_d ||
		    (d == best_d && best != find_current(h, addr) && m->last_ns > best->last_ns)) {
			best = m;
			best_d = d;
		}
	}
	return best;
}

size_t map_history__size(const struct map_history *h)
{
	return h->nr_cur + h->nr_gone;
}

void map_history__release(struct map_history *h)
{
	free(h->cur);
	free(h->gone);
	*h = (struct map_history){};
}
