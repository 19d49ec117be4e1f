/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aggregate.h - raw (unresolved) stacks counted in userspace: what the BPF
 * maps held, drained periodically so the maps can be cleared, merged by
 * (pid, tid, generation, comm, cgroup, kernel frames, user frames).
 */
#ifndef AGGREGATE_H
#define AGGREGATE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGG_COMM_LEN 16

struct agg_entry {
	struct agg_entry *next;		/* hash chain */
	uint64_t hash;
	uint64_t count;
	uint32_t pid, tid;
	uint32_t gen;		/* generation of pid's mappings (profile.h); 0: unknown */
	uint32_t flags;		/* how the user stack was walked: KEY_* (profile.h) */
	uint64_t cgroup_id;	/* --by-container; 0: not asked for */
	char comm[AGG_COMM_LEN];
	/* CLOCK_MONOTONIC ns: the samples were taken between these two */
	uint64_t t_first, t_last;
	int kerr, uerr;		/* 0: frames below are the stack; else -errno (see stack_fmt.h) */
	uint32_t nr_kips, nr_uips;
	uint64_t ips[];		/* nr_kips kernel addresses, then nr_uips user; leaf first */
};

struct agg;

struct agg *agg__new(void);
void agg__free(struct agg *a);
/* Drop every entry (interval mode starts the next interval). */
void agg__reset(struct agg *a);

struct agg_stack {
	int err;		/* 0, or -errno when the stack was not taken */
	const uint64_t *ips;
	uint32_t nr;
};

/*
 * A stack's error: 0, its frames are the stack; AGG_NO_STACK, the sample
 * has no such stack (user mode no kernel stack, a kernel thread no user
 * one, or -K/-U did not ask for it); any other -errno, it was lost.
 */
#define AGG_NO_STACK (-EFAULT)

static inline bool agg_stack__missed(int err)
{
	return err < 0 && err != AGG_NO_STACK;
}

/* The error for a negative stack id (profile.h): -1 is "not taken", no stack. */
static inline int agg_stack__err_of_id(int32_t id)
{
	return id == -1 ? AGG_NO_STACK : id;
}

/* Who a stack was sampled in. */
struct agg_key {
	uint32_t pid, tid, gen;
	uint32_t flags;		/* KEY_* */
	uint64_t cgroup_id;	/* 0 unless --by-container */
	const char *comm;
};

/*
 * The samples added from now on were taken in [from_ns, to_ns]
 * (CLOCK_MONOTONIC): the time between two drains. Until called, 0 and 0.
 */
void agg__set_window(struct agg *a, uint64_t from_ns, uint64_t to_ns);

/* Count `count` samples of this stack. Returns 0 or -ENOMEM. */
int agg__add(struct agg *a, const struct agg_key *key, const struct agg_stack *kern,
	     const struct agg_stack *user, uint64_t count);

size_t agg__nr_entries(const struct agg *a);
uint64_t agg__total(const struct agg *a);
/* Calls fn for every entry; stops at and returns the first non-zero result. */
int agg__for_each(const struct agg *a, int (*fn)(const struct agg_entry *e, void *ctx), void *ctx);

/*
 * Calls fn once for each process generation (pid, gen) with user stacks
 * in a, by pid then gen: whose mappings name the frames. Returns 0,
 * -ENOMEM, or the first non-zero result of fn, which stops it.
 */
int agg__for_each_gen(const struct agg *a, int (*fn)(uint32_t pid, uint32_t gen, void *ctx),
		      void *ctx);

#endif /* AGGREGATE_H */
