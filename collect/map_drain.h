/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map_drain.h - move what one set of the BPF maps (count hash, stack map,
 * overflow map) holds into an aggregate, and empty the set. The sampler
 * flips the BPF program to the other set first, so that none writes to it.
 */
#ifndef MAP_DRAIN_H
#define MAP_DRAIN_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "collect/aggregate.h"
#include "collect/overflow_index.h"
#include "profile.h"

struct map_drain;

/*
 * The map fds of one set; pending: its per-CPU counts not yet in counts
 * (profile.h), or -1. settle, when set: called once the set's counts are
 * in agg, before its stacks are cleared (off-CPU time: offcpu_drain.h).
 */
struct map_set_fds {
	int counts, stackmap, overflow, pending;
	int (*settle)(struct map_drain *d, const struct map_set_fds *set, struct agg *agg,
		      void *ctx);
	void *settle_ctx;
};

/* Buffers reused from drain to drain. */
struct map_drain {
	size_t depth;		/* frames per stack (--perf-max-stack-depth) */
	size_t batch;		/* count keys per lookup-and-delete batch */
	struct profile_key *keys;
	__u64 *vals;
	uint64_t *kips, *uips;	/* a key's two stacks, depth entries each */
	struct ovf_index ovf;	/* the overflow map of the set being drained */
	__u32 *stack_ids;	/* clear_stackmap()'s list */
	size_t cap_stack_ids;
	struct count_cache *pending;	/* a set's per-CPU counts, every CPU's */
	int nr_cpus;			/* possible CPUs: the per-CPU values */
	/* --wall: the ns a sample stands for (counts of keys without KEY_OFF_CPU); 0: samples */
	uint64_t sample_ns;
};

/* 0 or -ENOMEM. */
int map_drain__init(struct map_drain *d, size_t depth);
void map_drain__release(struct map_drain *d);

/* Move one set into agg and empty it. No program may be writing to it. 0 or -errno. */
int map_drain__set(struct map_drain *d, const struct map_set_fds *set, struct agg *agg);

/*
 * The two stacks of a count key, as the set being drained holds them
 * (from settle): valid until the next call; a stack gone has err set.
 */
void map_drain__stacks(struct map_drain *d, const struct map_set_fds *set,
		       const struct profile_key *k, struct agg_stack *kern, struct agg_stack *user);
/* The aggregate's key of a count key (its comm points into k). */
struct agg_key map_drain__agg_key(const struct profile_key *k);

#endif /* MAP_DRAIN_H */
