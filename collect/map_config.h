/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map_config.h - the BPF maps as one run needs them, set between open and
 * load: the sizes of a map set, and the pids or tids of the filter maps.
 */
#ifndef MAP_CONFIG_H
#define MAP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/types.h>

#include "collect/sampler_opts.h"

struct bpf_map;

/* One of the two sets the BPF program counts into, in turn. */
struct map_set {
	struct bpf_map *counts, *stackmap, *overflow, *pending;
};

/*
 * Without -i the maps are still drained this often, so their entries are
 * reused and long runs do not fill them; a set takes samples for at most
 * this long, or -i's interval, before it is drained.
 */
#define MAP_DRAIN_SECS 10
/* The fewest entries a set's maps are sized to from the run's need. */
#define MAP_SET_MIN_ENTRIES 1024
/* The most entries, unless given (--stack-storage-size, --hash-storage-size). */
#define DEFAULT_STACK_STORAGE 16384
#define DEFAULT_HASH_STORAGE 40960

/* The entries of one set's maps. */
struct map_set_sizes {
	__u32 stacks;		/* stack map: distinct stacks */
	__u32 counts;		/* count hash: distinct keys */
	__u32 overflow;		/* stacks the stack map could not keep */
};

/*
 * What a set of o's run needs, for nr_cpus CPUs. Unless their sizes are
 * given, the stack map and the count hash are sized from the samples a
 * set can take where that is fewer: -F's rate x the CPUs x the seconds
 * until the set is drained (a run shorter than MAP_DRAIN_SECS, else that,
 * or -i's interval if longer), and a second, with room to spare (four
 * count entries a sample; sixteen stack-map entries a stack, so that stack
 * ids rarely collide and go to the overflow map). Sizes given,
 * and runs of -c, whose rate is not known, take the sizes of o. prealloc:
 * the hashes preallocated, for kernels before 6.1.
 */
void map_set__sizes(const struct sampler_opts *o, int nr_cpus, bool prealloc,
		    struct map_set_sizes *sz);

/*
 * Size a set's maps for o, before load (map_set__sizes()); both sets
 * take samples in turn, so both are the same size. 0 or -errno.
 */
int map_set__size(const struct sampler_opts *o, const struct map_set *set, int nr_cpus,
		  bool prealloc, __u32 stackmap_depth);

/*
 * Put ids into the filter map map_fd (after load). 0; or -errno with the
 * id that could not be put in *failed.
 */
int id_filter__fill(int map_fd, const pid_t *ids, size_t nr, pid_t *failed);

#endif /* MAP_CONFIG_H */
