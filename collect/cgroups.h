/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroups.h - the cgroup v2 hierarchy as --cgroup and --by-container see
 * it: where it is mounted, what a --cgroup argument names, and the id of
 * a cgroup directory (the one bpf_get_current_cgroup_id() gives).
 */
#ifndef CGROUPS_H
#define CGROUPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The mount point of the cgroup v2 hierarchy in a mountinfo file
 * (/proc/self/mountinfo): /sys/fs/cgroup on a unified host,
 * /sys/fs/cgroup/unified on a hybrid one. 0; -ENODEV when none is
 * mounted (a cgroup v1 only host); -ENAMETOOLONG; or -errno of the read.
 */
int cgroup2__mount(const char *mountinfo, char *buf, size_t size);

/*
 * The directory a --cgroup argument names into buf: a path in the
 * cgroup v2 file system (/sys/fs/cgroup/unified/foo), or a cgroup path
 * under mount (/foo, as /proc/PID/cgroup prints it); mount may be NULL.
 * 0; -ENOENT: no such directory; -ENOTDIR; -EMEDIUMTYPE: a directory,
 * but not of cgroup v2 (a cgroup v1 hierarchy's); -ENAMETOOLONG.
 */
int cgroup2__resolve(const char *mount, const char *arg, char *buf, size_t size);

/* The id of cgroup directory name under dirfd (AT_FDCWD: a path). 0 or -errno. */
int cgroup2__id_at(int dirfd, const char *name, uint64_t *id);

#endif /* CGROUPS_H */
