/* SPDX-License-Identifier: GPL-2.0 */
/*
 * containers.h - what --by-container prints for a cgroup id: the cgroup's
 * path (collect/cgroup_names.h) and the container it belongs to
 * (container_id.h), or the path itself where no runtime's pattern matches.
 */
#ifndef CONTAINERS_H
#define CONTAINERS_H

#include <stddef.h>
#include <stdint.h>

struct containers;

/* Over the cgroup v2 hierarchy mounted at mount. NULL with errno set. */
struct containers *containers__new(const char *mount);
void containers__free(struct containers *c);

struct container_label {
	const char *cgroup;	/* "/system.slice/docker-ID.scope"; "[cgroup N]" when not found */
	const char *id;		/* the container's id or name, else cgroup */
};

/*
 * The label of cgroup id; its strings live as long as c. -ENOMEM (the
 * label then says "[unknown]"), else 0.
 */
int containers__label(struct containers *c, uint64_t id, struct container_label *out);

/*
 * Cgroups labelled "[cgroup N]": gone before a walk saw them, or past the
 * walk's bounds (cgroup_names.h).
 */
size_t containers__unnamed(const struct containers *c);

#endif /* CONTAINERS_H */
