// SPDX-License-Identifier: GPL-2.0
/*
 * map_config.c - sizes and filter contents of the BPF maps (map_config.h).
 */
#include <errno.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "map_config.h"

void map_set__size(const struct profile_env *env, struct map_set *set, bool used)
{
	size_t stack_bytes = env->max_stack_depth * sizeof(__u64);

	bpf_map__set_value_size(set->stackmap, stack_bytes);
	bpf_map__set_value_size(set->overflow, stack_bytes);
	if (!used) {
		/* the second set is only flipped to while draining */
		bpf_map__set_max_entries(set->stackmap, 1);
		bpf_map__set_max_entries(set->overflow, 1);
		bpf_map__set_max_entries(set->counts, 1);
		return;
	}
	bpf_map__set_max_entries(set->stackmap, env->stack_storage_size);
	/*
	 * Two stacks per count-hash entry is more than the counts can
	 * reference, so the overflow map never fills before the count hash.
	 */
	bpf_map__set_max_entries(set->overflow, 2 * env->hash_storage_size);
	bpf_map__set_max_entries(set->counts, env->hash_storage_size);
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
