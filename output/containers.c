// SPDX-License-Identifier: GPL-2.0
/*
 * containers.c - labels of cgroup ids, made once each (containers.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/cgroup_names.h"
#include "output/container_id.h"
#include "output/containers.h"
#include "trace_helpers.h"

struct labelled {
	uint64_t id;
	char *cgroup, *container;	/* container: NULL when it is cgroup */
};

struct containers {
	struct cgroup_names *names;
	struct labelled *labels;	/* sorted by id */
	size_t nr, cap;
	size_t unnamed;
};

struct containers *containers__new(const char *mount)
{
	struct containers *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->names = cgroup_names__new(mount);
	if (!c->names) {
		free(c);
		return NULL;
	}
	return c;
}

void containers__free(struct containers *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		free(c->labels[i].cgroup);
		free(c->labels[i].container);
	}
	free(c->labels);
	cgroup_names__free(c->names);
	free(c);
}

static void fill(const struct labelled *l, struct container_label *out)
{
	out->cgroup = l->cgroup;
	out->id = l->container ? l->container : l->cgroup;
}

size_t containers__unnamed(const struct containers *c)
{
	return c->unnamed;
}

int containers__label(struct containers *c, uint64_t id, struct container_label *out)
{
	const char *path;
	char buf[256];
	struct labelled l = { .id = id };

	size_t lo = 0, hi = c->nr;

	/* where id is, or goes: every sample of a profile looks its cgroup up */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->labels[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nr && c->labels[lo].id == id) {
		fill(&c->labels[lo], out);
		return 0;
	}
	out->cgroup = out->id = "[unknown]";
	if (array_reserve((void **)&c->labels, &c->cap, c->nr, sizeof(*c->labels)))
		return -ENOMEM;
	path = cgroup_names__path(c->names, id);
	if (path)
		l.cgroup = strdup(path);
	else if (asprintf(&l.cgroup, "[cgroup %" PRIu64 "]", id) < 0)
		l.cgroup = NULL;
	else
		c->unnamed++;
	if (!l.cgroup)
		return -ENOMEM;
	if (path && container_id__of(path, buf, sizeof(buf))) {
		l.container = strdup(buf);
		if (!l.container) {
			free(l.cgroup);
			return -ENOMEM;
		}
	}
	/* the strings stay where they are: only the entries move */
	memmove(&c->labels[lo + 1], &c->labels[lo], (c->nr - lo) * sizeof(*c->labels));
	c->labels[lo] = l;
	c->nr++;
	fill(&l, out);
	return 0;
}
