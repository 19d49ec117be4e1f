// SPDX-License-Identifier: GPL-2.0
/*
 * map_config.c - sizes and filter contents of the BPF maps (map_config.h).
 */
#include <errno.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/map_config.h"

/* One map's entries and, unless value_size is 0, value size. 0 or -errno. */
static int map_size(struct bpf_map *map, __u32 max_entries, __u32 value_size)
{
	int err = bpf_map__set_max_entries(map, max_entries);

	if (!err && value_size)
		err = bpf_map__set_value_size(map, value_size);
	return err;
}

/* The smallest power of two >= n, at most 1U << 31. */
static __u64 pow2_at_least(__u64 n)
{
	__u64 p = 1;

	while (p < n && p < (1ULL << 31))
		p <<= 1;
	return p;
}

/*
 * The samples one set can take at most, or 0 where the rate is not known.
 * Without -i a set is drained every MAP_DRAIN_SECS, or at the end of a
 * shorter run; with -i only at each interval, whose printing may wait on
 * symbol files while the other set fills: then never less than
 * MAP_DRAIN_SECS either.
 */
static __u64 samples_per_set(const struct sampler_opts *o, int nr_cpus)
{
	__u64 secs = MAP_DRAIN_SECS;

	/* --wall: the waits' keys come at every switch, not at the rate */
	if (o->period || o->frequency <= 0 || o->wall)
		return 0;
	if (o->interval && o->interval > (long)secs)
		secs = o->interval;
	else if (!o->interval && o->duration && o->duration < (long)secs)
		secs = o->duration;
	/* and a second for a drain that comes late */
	return (__u64)o->frequency * (nr_cpus > 0 ? nr_cpus : 1) * (secs + 1);
}

/* need with room, within [MAP_SET_MIN_ENTRIES, given] */
static __u32 by_need(__u64 need, long given)
{
	if (need < MAP_SET_MIN_ENTRIES)
		need = MAP_SET_MIN_ENTRIES;
	return need < (__u64)given ? (__u32)need : (__u32)given;
}

void map_set__sizes(const struct sampler_opts *o, int nr_cpus, bool prealloc,
		    struct map_set_sizes *sz)
{
	__u64 samples = samples_per_set(o, o->cpu >= 0 ? 1 : nr_cpus);
	__u64 stacks_per_sample = o->user_only || o->kernel_only ? 1 : 2;

	sz->stacks = (__u32)o->stack_storage_size;
	sz->counts = (__u32)o->hash_storage_size;
	if (samples && !o->stack_storage_given)
		sz->stacks = by_need(pow2_at_least(16 * stacks_per_sample * samples),
				     o->stack_storage_size);
	if (samples && !o->hash_storage_given)
		sz->counts = by_need(4 * samples, o->hash_storage_size);
	/*
	 * Two stacks per count-hash entry is more than the counts can
	 * reference, so the overflow map never fills before the count hash.
	 * Preallocated, it costs its full size: smaller then.
	 */
	sz->overflow = prealloc ? sz->stacks / 4 + 1 : 2 * sz->counts;
}

int map_set__size(const struct sampler_opts *o, const struct map_set *set, int nr_cpus,
		  bool prealloc, __u32 stackmap_depth)
{
	__u32 stack_bytes = o->max_stack_depth * sizeof(__u64);
	struct map_set_sizes sz;
	int err;

	map_set__sizes(o, nr_cpus, prealloc, &sz);
	err = map_size(set->stackmap, sz.stacks, stackmap_depth * sizeof(__u64));
	if (!err)
		err = map_size(set->overflow, sz.overflow, stack_bytes);
	if (!err)
		err = map_size(set->counts, sz.counts, 0);
	if (!err && prealloc)
		err = bpf_map__set_map_flags(set->counts, 0);
	if (!err && prealloc)
		err = bpf_map__set_map_flags(set->overflow, 0);
	return err;
}

int id_filter__fill(int map_fd, const pid_t *ids, size_t nr, pid_t *failed)
{
	for (size_t i = 0; i < nr; i++) {
		__u32 id = ids[i];
		__u8 one = 1;

		if (bpf_map_update_elem(map_fd, &id, &one, BPF_ANY)) {
			*failed = ids[i];
			return -errno;
		}
	}
	return 0;
}
