// SPDX-License-Identifier: GPL-2.0
/*
 * overflow_index.c - copy an overflow map out of the kernel and find its
 * stacks by key (overflow_index.h).
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/bpf.h>

#include "collect/overflow_index.h"

void ovf_index__init(struct ovf_index *x, size_t depth)
{
	*x = (struct ovf_index){ .depth = depth };
}

void ovf_index__release(struct ovf_index *x)
{
	free(x->refs);
	free(x->stacks);
	ovf_index__init(x, x->depth);
}

static int ovf_cmp(const void *a, const void *b)
{
	const struct ovf_ref *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* Room for one more stack. 0 or -ENOMEM. */
static int ovf_index__grow(struct ovf_index *x)
{
	size_t cap = x->cap ? x->cap * 2 : 256;
	struct ovf_ref *r;
	uint64_t *v;

	if (x->nr < x->cap)
		return 0;
	r = realloc(x->refs, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	x->refs = r;
	v = realloc(x->stacks, cap * x->depth * sizeof(*v));
	if (!v)
		return -ENOMEM;
	x->stacks = v;
	x->cap = cap;
	return 0;
}

int ovf_index__take(struct ovf_index *x, int fd)
{
	__u64 key, next, *prev = NULL;
	int err;

	x->nr = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		err = ovf_index__grow(x);
		if (err)
			return err;
		if (bpf_map_lookup_elem(fd, &key, x->stacks + x->nr * x->depth))
			continue;
		x->refs[x->nr].key = key;
		x->refs[x->nr].idx = x->nr;
		x->nr++;
	}
	for (size_t i = 0; i < x->nr; i++)
		bpf_map_delete_elem(fd, &x->refs[i].key);
	if (x->nr)
		qsort(x->refs, x->nr, sizeof(*x->refs), ovf_cmp);
	return 0;
}

const uint64_t *ovf_index__find(const struct ovf_index *x, uint64_t key)
{
	struct ovf_ref k = { .key = key }, *r;

	if (!x->nr)
		return NULL;
	r = bsearch(&k, x->refs, x->nr, sizeof(*x->refs), ovf_cmp);
	return r ? x->stacks + r->idx * x->depth : NULL;
}
