// SPDX-License-Identifier: GPL-2.0
/*
 * aggregate.c - a chained hash table of raw stacks with counts. Its size
 * follows the number of distinct stacks, never the number of samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/aggregate.h"
#include "common/fnv.h"
#include "trace_helpers.h"

struct agg {
	struct agg_entry **buckets;
	size_t nr_buckets;	/* power of two */
	size_t nr;
	uint64_t total;
	uint64_t from_ns, to_ns;	/* agg__set_window() */
};

static uint64_t entry_hash(const struct agg_key *key, const struct agg_stack *k,
			   const struct agg_stack *u)
{
	uint64_t h = FNV64_OFFSET;

	h = fnv64_step(h, (uint64_t)key->pid << 32 | key->tid);
	h = fnv64_step(h, (uint64_t)key->flags << 32 | key->gen);
	h = fnv64_step(h, key->cgroup_id);
	for (int i = 0; i < AGG_COMM_LEN && key->comm[i]; i++)
		h = fnv64_step(h, (unsigned char)key->comm[i]);
	h = fnv64_step(h, (uint64_t)(uint32_t)k->err << 32 | (uint32_t)u->err);
	h = fnv64_step(h, (uint64_t)k->nr << 32 | u->nr);
	for (uint32_t i = 0; i < k->nr; i++)
		h = fnv64_step(h, k->ips[i]);
	for (uint32_t i = 0; i < u->nr; i++)
		h = fnv64_step(h, u->ips[i]);
	return h;
}

struct agg *agg__new(void)
{
	struct agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->nr_buckets = 1024;
	a->buckets = calloc(a->nr_buckets, sizeof(*a->buckets));
	if (!a->buckets) {
		free(a);
		return NULL;
	}
	return a;
}

void agg__reset(struct agg *a)
{
	for (size_t i = 0; i < a->nr_buckets; i++) {
		struct agg_entry *e = a->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
		a->buckets[i] = NULL;
	}
	a->nr = 0;
	a->total = 0;
}

void agg__free(struct agg *a)
{
	if (!a)
		return;
	agg__reset(a);
	free(a->buckets);
	free(a);
}

static void grow(struct agg *a)
{
	size_t n = a->nr_buckets * 2;
	struct agg_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return;		/* longer chains, still correct */
	for (size_t i = 0; i < a->nr_buckets; i++) {
		struct agg_entry *e = a->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(a->buckets);
	a->buckets = b;
	a->nr_buckets = n;
}

static int same(const struct agg_entry *e, const struct agg_key *key, const struct agg_stack *k,
		const struct agg_stack *u)
{
	return e->pid == key->pid && e->tid == key->tid && e->gen == key->gen &&
	       e->flags == key->flags && e->cgroup_id == key->cgroup_id &&
	       !strncmp(e->comm, key->comm, AGG_COMM_LEN) &&
	       e->kerr == k->err && e->uerr == u->err &&
	       e->nr_kips == k->nr && e->nr_uips == u->nr &&
	       /* ips is NULL when nr is 0: memcmp/memcpy must not see it */
	       (!k->nr || !memcmp(e->ips, k->ips, k->nr * sizeof(*k->ips))) &&
	       (!u->nr || !memcmp(e->ips + k->nr, u->ips, u->nr * sizeof(*u->ips)));
}

void agg__set_window(struct agg *a, uint64_t from_ns, uint64_t to_ns)
{
	a->from_ns = from_ns;
	a->to_ns = to_ns;
}

int agg__add(struct agg *a, const struct agg_key *key, const struct agg_stack *kern,
	     const struct agg_stack *user, uint64_t count)
{
	uint64_t h = entry_hash(key, kern, user);
	struct agg_entry **slot = &a->buckets[h & (a->nr_buckets - 1)], *e;

	for (e = *slot; e; e = e->next) {
		if (e->hash == h && same(e, key, kern, user)) {
			e->count += count;
			a->total += count;
			if (a->from_ns < e->t_first)
				e->t_first = a->from_ns;
			if (a->to_ns > e->t_last)
				e->t_last = a->to_ns;
			return 0;
		}
	}
	e = malloc(sizeof(*e) + (kern->nr + user->nr) * sizeof(e->ips[0]));
	if (!e)
		return -ENOMEM;
	e->hash = h;
	e->count = count;
	e->pid = key->pid;
	e->tid = key->tid;
	e->gen = key->gen;
	e->flags = key->flags;
	e->cgroup_id = key->cgroup_id;
	e->t_first = a->from_ns;
	e->t_last = a->to_ns;
	strncpy(e->comm, key->comm, AGG_COMM_LEN - 1);
	e->comm[AGG_COMM_LEN - 1] = '\0';
	e->kerr = kern->err;
	e->uerr = user->err;
	e->nr_kips = kern->nr;
	e->nr_uips = user->nr;
	if (kern->nr)
		memcpy(e->ips, kern->ips, kern->nr * sizeof(e->ips[0]));
	if (user->nr)
		memcpy(e->ips + kern->nr, user->ips, user->nr * sizeof(e->ips[0]));
	e->next = *slot;
	*slot = e;
	a->nr++;
	a->total += count;
	if (a->nr > a->nr_buckets)
		grow(a);
	return 0;
}

size_t agg__nr_entries(const struct agg *a)
{
	return a->nr;
}

uint64_t agg__total(const struct agg *a)
{
	return a->total;
}

int agg__for_each(const struct agg *a, int (*fn)(const struct agg_entry *e, void *ctx), void *ctx)
{
	for (size_t i = 0; i < a->nr_buckets; i++) {
		for (const struct agg_entry *e = a->buckets[i]; e; e = e->next) {
			int err = fn(e, ctx);

			if (err)
				return err;
		}
	}
	return 0;
}

/* The process generations of an aggregate, each once. */
struct gen_ref {
	uint32_t pid, gen;
};

struct gen_list {
	struct gen_ref *v;
	size_t nr, cap;
};

static int note_gen(const struct agg_entry *e, void *ctx)
{
	struct gen_list *l = ctx;

	if (!e->nr_uips)
		return 0;
	if (l->nr && l->v[l->nr - 1].pid == e->pid && l->v[l->nr - 1].gen == e->gen)
		return 0;	/* cheap filter; duplicates are removed below */
	if (array_reserve((void **)&l->v, &l->cap, l->nr, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->nr++] = (struct gen_ref){ .pid = e->pid, .gen = e->gen };
	return 0;
}

static int gen_ref_cmp(const void *a, const void *b)
{
	const struct gen_ref *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->gen > y->gen) - (x->gen < y->gen);
}

int agg__for_each_gen(const struct agg *a, int (*fn)(uint32_t pid, uint32_t gen, void *ctx),
		      void *ctx)
{
	struct gen_list l = {};
	int err;

	err = agg__for_each(a, note_gen, &l);
	if (!err && l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), gen_ref_cmp);
	for (size_t i = 0; !err && i < l.nr; i++)
		if (!i || gen_ref_cmp(&l.v[i], &l.v[i - 1]))
			err = fn(l.v[i].pid, l.v[i].gen, ctx);
	free(l.v);
	return err;
}
