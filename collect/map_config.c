// SPDX-License-Identifier: GPL-2.0
/*
 * map_config.c - sizes and filter contents of the BPF maps (map_config.h).
 */
#include <errno.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "map_config.h"

/* One map's entries and, unless value_size is 0, value size. 0 or -errno. */
static int map_size(struct bpf_map *map, __u32 max_entries, __u32 value_size)
{
	int err = bpf_map__set_max_entries(map, max_entries);

	if (!err && value_size)
		err = bpf_map__set_value_size(map, value_size);
	return err;
}

int map_set__size(const struct profile_env *env, const struct map_set *set, bool prealloc,
		  __u32 stackmap_depth)
{
	__u32 stack_bytes = env->max_stack_depth * sizeof(__u64);
	/*
	 * Two stacks per count-hash entry is more than the counts can
	 * reference, so the overflow map never fills before the count hash.
	 * Preallocated, it costs its full size: smaller then.
	 */
	__u32 overflow = prealloc ? env->stack_storage_size / 4 + 1 : 2 * env->hash_storage_size;
	int err;

	err = map_size(set->stackmap, env->stack_storage_size, stackmap_depth * sizeof(__u64));
	if (!err)
		err = map_size(set->overflow, overflow, stack_bytes);
	if (!err)
		err = map_size(set->counts, env->hash_storage_size, 0);
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
