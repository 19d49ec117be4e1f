// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu_drain.c - off-CPU waits settled at each drain (offcpu_drain.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "common/fnv.h"
#include "collect/offcpu_drain.h"

/* Entries read from the BPF maps at once. */
#define OFFCPU_BATCH 1024

/* A wait under way, its stacks copied out of the set it began in. */
struct carried {
	struct carried *next;
	__u64 task, start_ns;
	struct profile_key key;	/* for the aggregate's key */
	int kerr, uerr;
	uint32_t nr_kips, nr_uips;
	bool under_way;		/* seen in the waits under way at this drain */
	uint32_t absent;	/* drains in a row it was neither under way nor counted */
	uint64_t ips[];		/* kernel, then user */
};

struct offcpu_drain {
	size_t depth, max;
	struct carried **buckets;
	size_t nr_buckets, nr;
	int start_fd, late_fd;
	__u32 seq;
	bool carry;
	struct offcpu_drain_stats st;
	__u64 *tasks;
	struct offcpu_start *starts;
	struct offcpu_late_key *lkeys;
	struct offcpu_late *lates;
};

struct offcpu_drain *offcpu_drain__new(size_t depth, size_t max_carried)
{
	struct offcpu_drain *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->depth = depth;
	o->max = max_carried;
	o->start_fd = o->late_fd = -1;
	o->nr_buckets = 1024;
	while (o->nr_buckets < max_carried && o->nr_buckets < (1u << 20))
		o->nr_buckets <<= 1;
	o->buckets = calloc(o->nr_buckets, sizeof(*o->buckets));
	o->tasks = calloc(OFFCPU_BATCH, sizeof(*o->tasks));
	o->starts = calloc(OFFCPU_BATCH, sizeof(*o->starts));
	o->lkeys = calloc(OFFCPU_BATCH, sizeof(*o->lkeys));
	o->lates = calloc(OFFCPU_BATCH, sizeof(*o->lates));
	if (!o->buckets || !o->tasks || !o->starts || !o->lkeys || !o->lates) {
		offcpu_drain__free(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

void offcpu_drain__free(struct offcpu_drain *o)
{
	if (!o)
		return;
	for (size_t i = 0; o->buckets && i < o->nr_buckets; i++) {
		for (struct carried *c = o->buckets[i], *next; c; c = next) {
			next = c->next;
			free(c);
		}
	}
	free(o->buckets);
	free(o->tasks);
	free(o->starts);
	free(o->lkeys);
	free(o->lates);
	free(o);
}

void offcpu_drain__set_maps(struct offcpu_drain *o, int start_fd, int late_fd)
{
	o->start_fd = start_fd;
	o->late_fd = late_fd;
}

void offcpu_drain__next(struct offcpu_drain *o, __u32 seq, bool carry)
{
	o->seq = seq;
	o->carry = carry;
}

static struct carried **bucket_of(struct offcpu_drain *o, __u64 task, __u64 start_ns)
{
	__u64 h = fnv64_step(fnv64_step(FNV64_OFFSET, task), start_ns);

	return &o->buckets[h & (o->nr_buckets - 1)];
}

/* The link to (task, start_ns)'s entry, or to the NULL that ends its bucket. */
static struct carried **find(struct offcpu_drain *o, __u64 task, __u64 start_ns)
{
	struct carried **p = bucket_of(o, task, start_ns);

	while (*p && ((*p)->task != task || (*p)->start_ns != start_ns))
		p = &(*p)->next;
	return p;
}

/* Frames of a stack to keep: none unless it was read. */
static uint32_t frames_of(const struct agg_stack *s, size_t depth)
{
	if (s->err || !s->ips)
		return 0;
	return s->nr < depth ? s->nr : (uint32_t)depth;
}

int offcpu_drain__carry(struct offcpu_drain *o, __u64 task, __u64 start_ns,
			const struct profile_key *key, const struct agg_stack *kern,
			const struct agg_stack *user)
{
	struct carried **p = find(o, task, start_ns), *c;
	uint32_t nk = frames_of(kern, o->depth), nu = frames_of(user, o->depth);

	if (*p)
		return -EEXIST;
	if (o->nr >= o->max) {
		o->st.not_carried++;
		return -ENOSPC;
	}
	c = malloc(sizeof(*c) + (nk + nu) * sizeof(c->ips[0]));
	if (!c)
		return -ENOMEM;
	*c = (struct carried){ .task = task, .start_ns = start_ns, .key = *key,
			       .kerr = kern->err, .uerr = user->err, .nr_kips = nk, .nr_uips = nu,
			       .under_way = true };
	if (nk)
		memcpy(c->ips, kern->ips, nk * sizeof(c->ips[0]));
	if (nu)
		memcpy(c->ips + nk, user->ips, nu * sizeof(c->ips[0]));
	*p = c;
	o->nr++;
	o->st.carried++;
	return 0;
}

int offcpu_drain__count(struct offcpu_drain *o, __u64 task, __u64 start_ns, __u64 off_ns,
			struct agg *agg)
{
	struct carried **p = find(o, task, start_ns), *c = *p;
	struct agg_stack kern, user;
	struct agg_key key;
	int err;

	if (!c)
		return -ENOENT;
	kern = (struct agg_stack){ .err = c->kerr, .ips = c->ips, .nr = c->nr_kips };
	user = (struct agg_stack){ .err = c->uerr, .ips = c->ips + c->nr_kips, .nr = c->nr_uips };
	key = map_drain__agg_key(&c->key);
	err = agg__add(agg, &key, &kern, &user, off_ns);
	if (err)
		return err;
	*p = c->next;
	free(c);
	o->nr--;
	o->st.late++;
	return 0;
}

/* Step 1: the waits under way that began in the time of the set drained. */
static int carry_started(struct offcpu_drain *o, struct map_drain *d, const struct map_set_fds *set)
{
	__u64 in, out;
	void *in_batch = NULL;

	for (;;) {
		__u32 n = OFFCPU_BATCH;
		int rerr = bpf_map_lookup_batch(o->start_fd, in_batch, &out, o->tasks, o->starts, &n,
						NULL);

		if (rerr && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < n; i++) {
			const struct offcpu_start *s = &o->starts[i];
			struct carried *c = *find(o, o->tasks[i], s->ns);
			struct agg_stack kern, user;
			int err;

			if (c)
				c->under_way = true;
			if (s->seq != o->seq)
				continue;
			map_drain__stacks(d, set, &s->key, &kern, &user);
			err = offcpu_drain__carry(o, o->tasks[i], s->ns, &s->key, &kern, &user);
			if (err == -ENOMEM)
				return err;
		}
		if (rerr)
			return 0;	/* -ENOENT: that was the last batch */
		in = out;
		in_batch = &in;
	}
}

/* A late wait without carried stacks: its set's, if it is the one drained. */
static int count_uncarried(struct offcpu_drain *o, struct map_drain *d,
			   const struct map_set_fds *set, const struct offcpu_late *l,
			   struct agg *agg)
{
	struct agg_stack kern, user;
	struct agg_key key;
	int err;

	if (l->seq != o->seq) {
		o->st.lost++;
		o->st.lost_ns += l->off_ns;
		return 0;
	}
	map_drain__stacks(d, set, &l->key, &kern, &user);
	key = map_drain__agg_key(&l->key);
	err = agg__add(agg, &key, &kern, &user, l->off_ns);
	if (!err)
		o->st.late++;
	return err;
}

/* Step 2: the waits that ended late. */
static int count_late(struct offcpu_drain *o, struct map_drain *d, const struct map_set_fds *set,
		      struct agg *agg)
{
	struct offcpu_late_key in, out;
	void *in_batch = NULL;

	for (;;) {
		__u32 n = OFFCPU_BATCH;
		int rerr = bpf_map_lookup_and_delete_batch(o->late_fd, in_batch, &out, o->lkeys,
							   o->lates, &n, NULL);

		if (rerr && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < n; i++) {
			const struct offcpu_late *l = &o->lates[i];
			int err = offcpu_drain__count(o, o->lkeys[i].task, o->lkeys[i].ns, l->off_ns,
						      agg);

			if (err == -ENOENT)
				err = count_uncarried(o, d, set, l, agg);
			if (err)
				return err;
		}
		if (rerr)
			return 0;
		in = out;
		in_batch = &in;
	}
}

/* Whether each carried wait is under way: not yet, until carry_started() sees it. */
static void mark_all(struct offcpu_drain *o, bool under_way)
{
	for (size_t i = 0; i < o->nr_buckets; i++)
		for (struct carried *c = o->buckets[i]; c; c = c->next)
			c->under_way = under_way;
}

/*
 * Step 3: let go of the carried waits that ended without a late entry to
 * count them: outside --min-block/--max-block, or their time lost to a
 * full map (both counted by the BPF side). A wait seen neither under way
 * nor ended at two drains in a row is one: its late entry would have been
 * read at the first (written right after the wait left the waits under way).
 */
static void let_go_ended(struct offcpu_drain *o)
{
	for (size_t i = 0; i < o->nr_buckets; i++) {
		for (struct carried **p = &o->buckets[i], *c; (c = *p);) {
			c->absent = c->under_way ? 0 : c->absent + 1;
			if (c->absent < 2) {
				p = &c->next;
				continue;
			}
			*p = c->next;
			free(c);
			o->nr--;
			o->st.ended_uncounted++;
		}
	}
}

int offcpu_drain__settle(struct map_drain *d, const struct map_set_fds *set, struct agg *agg,
			 void *ctx)
{
	struct offcpu_drain *o = ctx;
	int err = 0;

	if (o->start_fd < 0 || o->late_fd < 0)
		return 0;
	if (o->carry) {
		mark_all(o, false);
		err = carry_started(o, d, set);
	}
	if (!err)
		err = count_late(o, d, set, agg);
	if (!err && o->carry)
		let_go_ended(o);
	return err;
}

size_t offcpu_drain__nr_carried(const struct offcpu_drain *o)
{
	return o->nr;
}

void offcpu_drain__stats(const struct offcpu_drain *o, struct offcpu_drain_stats *st)
{
	*st = o->st;
}
