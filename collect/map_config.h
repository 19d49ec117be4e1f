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

#include "cli.h"

struct bpf_map;

/* One of the two sets the BPF program counts into, in turn. */
struct map_set {
	struct bpf_map *counts, *stackmap, *overflow, *pending;
};

/*
 * Size a set's maps for env, before load; both sets take samples in turn,
 * so both are full size. prealloc: the hashes preallocated, for kernels
 * before 6.1. 0 or -errno.
 */
int map_set__size(const struct profile_env *env, const struct map_set *set, bool prealloc,
		  __u32 stackmap_depth);

/*
 * Put ids into the filter map map_fd (after load). 0; or -errno with the
 * id that could not be put in *failed.
 */
int id_filter__fill(int map_fd, const pid_t *ids, size_t nr, pid_t *failed);

#endif /* MAP_CONFIG_H */
