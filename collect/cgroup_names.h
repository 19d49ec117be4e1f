/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup_names.h - the path of a cgroup from its id (--by-container): the
 * ids bpf_get_current_cgroup_id() gives are matched to the directories of
 * the cgroup v2 hierarchy, walked when an id not seen yet shows up (at
 * most once a second, and at most CGROUP_WALK_MAX_DIRS directories, so a
 * user who makes cgroups by the thousand in a delegated subtree cannot
 * make it take long). A path once found stays, so a cgroup removed
 * before the profile is printed keeps its name.
 */
#ifndef CGROUP_NAMES_H
#define CGROUP_NAMES_H

#include <stdint.h>

#define CGROUP_WALK_MAX_DIRS 65536
#define CGROUP_WALK_MAX_DEPTH 64
#define CGROUP_WALK_EVERY_NS 1000000000ULL

struct cgroup_names;

/* Over the hierarchy mounted at mount (cgroups.h). NULL with errno set. */
struct cgroup_names *cgroup_names__new(const char *mount);
void cgroup_names__free(struct cgroup_names *c);

/*
 * The path of cgroup id under the mount ("/" for the root, "/a/b"), or
 * NULL when no directory has it (gone before a walk saw it). A miss walks
 * the hierarchy again unless a walk was made less than
 * CGROUP_WALK_EVERY_NS ago.
 */
const char *cgroup_names__path(struct cgroup_names *c, uint64_t id);

/* Directories left out of the last walk: past its bounds, or unreadable. */
uint64_t cgroup_names__skipped(const struct cgroup_names *c);

#endif /* CGROUP_NAMES_H */
