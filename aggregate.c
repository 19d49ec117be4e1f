// SPDX-License-Identifier: GPL-2.0
/*
 * aggregate.c - a chained hash table of raw stacks with counts. Its size
 * follows the number of distinct stacks, never the number of samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"

struct agg {
	struct agg_entry **buckets;
	size_t nr_buckets;	/* power of two */
	size_t nr;
	uint64_t total;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ULL;
	return h;
}

static uint64_t entry_hash(uint32_t pid, uint32_t tid, const char *comm,
			   const struct agg_stack *k, const struct agg_stack *u)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = mix(h, (uint64_t)pid << 32 | tid);
	for (int i = 0; i < AGG_COMM_LEN && comm[i]; i++)
		h = mix(h, (unsigned char)comm[i]);
	h = mix(h, (uint64_t)(uint32_t)k->err << 32 | (uint32_t)u->err);
	h = mix(h, (uint64_t)k->nr << 32 | u->nr);
	for (uint32_t i = 0; i < k->nr; i++)
		h = mix(h, k->ips[i]);
	for (uint32_t i = 0; i < u->nr; i++)
		h = mix(h, u->ips[i]);
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

static int same(const struct agg_entry *e, uint32_t pid, uint32_t tid, const char *comm,
		const struct agg_stack *k, const struct agg_stack *u)
{
	return e->pid == pid && e->tid == tid && !strncmp(e->comm, comm, AGG_COMM_LEN) &&
	       e->kerr == k->err && e->uerr == u->err &&
	       e->nr_kips == k->nr && e->nr_uips == u->nr &&
	       /* ips is NULL when nr is 0: memcmp/memcpy must not see it */
	       (!k->nr || !memcmp(e->ips, k->ips, k->nr * sizeof(*k->ips))) &&
	       (!u->nr || !memcmp(e->ips + k->nr, u->ips, u->nr * sizeof(*u->ips)));
}

int agg__add(struct agg *a, uint32_t pid, uint32_t tid, const char *comm,
	     const struct agg_stack *kern, const struct agg_stack *user, uint64_t count)
{
	uint64_t h = entry_hash(pid, tid, comm, kern, user);
	struct agg_entry **slot = &a->buckets[h & (a->nr_buckets - 1)], *e;

	for (e = *slot; e; e = e->next) {
		if (e->hash == h && same(e, pid, tid, comm, kern, user)) {
			e->count += count;
			a->total += count;
			return 0;
		}
	}
	e = malloc(sizeof(*e) + (kern->nr + user->nr) * sizeof(e->ips[0]));
	if (!e)
		return -ENOMEM;
	e->hash = h;
	e->count = count;
	e->pid = pid;
	e->tid = tid;
	strncpy(e->comm, comm, AGG_COMM_LEN - 1);
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
