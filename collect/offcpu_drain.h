/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu_drain.h - the off-CPU time (--off-cpu, --wall) that a map set's
 * drain must settle: waits that ended after a flip, whose stacks were
 * kept in a set drained since (profile.h's struct offcpu_start).
 *
 * While a set is drained (map_drain.h's settle), after the flip and
 * before its stacks are cleared:
 *   1. every wait under way that began in this set's time ("offcpu_start"
 *      entries of its flip) is carried: its stacks are copied here, under
 *      (task, start);
 *   2. every wait that ended late ("offcpu_late") is counted with its
 *      carried stacks, or, begun in this set's time, with the set's own.
 * A wait that ends after the flip was under way at step 1, or ended before
 * step 2: none is missed. One whose stacks are in neither (the carry was
 * full) is counted as lost.
 */
#ifndef OFFCPU_DRAIN_H
#define OFFCPU_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "collect/aggregate.h"
#include "collect/map_drain.h"
#include "profile.h"

/*
 * Threads waiting at once whose start is kept (offcpu_start), waits that
 * ended late between two drains (offcpu_late), and waits carried.
 */
#define OFFCPU_MAX_WAITS 16384

struct offcpu_drain_stats {
	uint64_t carried;	/* waits under way carried past a drain */
	uint64_t late;		/* late waits counted */
	uint64_t not_carried;	/* waits not carried: the carry full */
	uint64_t lost;		/* late waits without their stacks, */
	uint64_t lost_ns;	/* ... and their time */
	/* carried waits that ended uncounted (outside the bounds, or the late map full): let go */
	uint64_t ended_uncounted;
};

struct offcpu_drain;

/*
 * Settles drains of stacks depth frames deep, carrying at most max_carried
 * waits at once. NULL with errno set.
 */
struct offcpu_drain *offcpu_drain__new(size_t depth, size_t max_carried);
void offcpu_drain__free(struct offcpu_drain *o);

/*
 * The maps to settle (offcpu_start, offcpu_late) and, for the next drain,
 * the flip of the set drained: its "active" value. carry false: waits
 * under way are not carried (the last drain, nothing will end).
 */
void offcpu_drain__set_maps(struct offcpu_drain *o, int start_fd, int late_fd);
void offcpu_drain__next(struct offcpu_drain *o, __u32 seq, bool carry);

/* map_set_fds.settle, ctx the offcpu_drain: steps 1 and 2 above. 0 or -errno. */
int offcpu_drain__settle(struct map_drain *d, const struct map_set_fds *set, struct agg *agg,
			 void *ctx);

/*
 * The two steps one wait at a time, for the above and for tests. Carry:
 * 0, -EEXIST when it is carried already, -ENOSPC when the carry is full,
 * -ENOMEM. Count: its time into agg with its carried stacks, which are
 * dropped; -ENOENT when it was not carried.
 */
int offcpu_drain__carry(struct offcpu_drain *o, __u64 task, __u64 start_ns,
			const struct profile_key *key, const struct agg_stack *kern,
			const struct agg_stack *user);
int offcpu_drain__count(struct offcpu_drain *o, __u64 task, __u64 start_ns, __u64 off_ns,
			struct agg *agg);

/* Waits carried now. */
size_t offcpu_drain__nr_carried(const struct offcpu_drain *o);
void offcpu_drain__stats(const struct offcpu_drain *o, struct offcpu_drain_stats *st);

#endif /* OFFCPU_DRAIN_H */
