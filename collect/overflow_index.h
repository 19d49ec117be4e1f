/* SPDX-License-Identifier: GPL-2.0 */
/*
 * overflow_index.h - the stacks of one overflow map (profile.h), copied out
 * of the kernel and indexed by key, so that the count keys that name them
 * find their frames while that map set is drained.
 */
#ifndef OVERFLOW_INDEX_H
#define OVERFLOW_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct ovf_ref {
	uint64_t key;
	size_t idx;		/* into stacks, in depth-sized stacks */
};

struct ovf_index {
	size_t depth;		/* frames per stack */
	struct ovf_ref *refs;	/* sorted by key once taken */
	uint64_t *stacks;
	size_t nr, cap;
};

/* An empty index of stacks of depth frames; nothing allocated yet. */
void ovf_index__init(struct ovf_index *x, size_t depth);
void ovf_index__release(struct ovf_index *x);

/*
 * Replace the index with the stacks of the overflow map map_fd, and empty
 * that map. 0 or -errno.
 */
int ovf_index__take(struct ovf_index *x, int map_fd);

/* The depth frames stored under key, NULL when the map had none. */
const uint64_t *ovf_index__find(const struct ovf_index *x, uint64_t key);

#endif /* OVERFLOW_INDEX_H */
