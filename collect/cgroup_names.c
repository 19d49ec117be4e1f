// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_names.c - cgroup ids to paths by walking the hierarchy (cgroup_names.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "collect/cgroup_names.h"
#include "collect/cgroups.h"
#include "trace_helpers.h"

struct cgroup_name {
	uint64_t id;
	char *path;
};

struct cgroup_names {
	char *mount;
	struct cgroup_name *names;	/* sorted by id */
	size_t nr, cap;
	uint64_t walked_ns;		/* monotonic_ns() of the last walk; 0: none */
	uint64_t skipped;
};

struct cgroup_names *cgroup_names__new(const char *mount)
{
	struct cgroup_names *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->mount = strdup(mount);
	if (!c->mount) {
		free(c);
		return NULL;
	}
	return c;
}

void cgroup_names__free(struct cgroup_names *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		free(c->names[i].path);
	free(c->names);
	free(c->mount);
	free(c);
}

static int by_id(const void *a, const void *b)
{
	const struct cgroup_name *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct cgroup_name *find(const struct cgroup_names *c, uint64_t id)
{
	struct cgroup_name k = { .id = id };

	if (!c->nr)
		return NULL;
	return bsearch(&k, c->names, c->nr, sizeof(*c->names), by_id);
}

/* Note one directory; paths already known are kept. 0 or -ENOMEM. */
static int note(struct cgroup_names *c, uint64_t id, const char *path, size_t *added)
{
	char *p;

	if (find(c, id))
		return 0;
	if (array_reserve((void **)&c->names, &c->cap, c->nr + *added, sizeof(*c->names)))
		return -ENOMEM;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	/* after the sorted part, sorted in at the walk's end */
	c->names[c->nr + (*added)++] = (struct cgroup_name){ .id = id, .path = p };
	return 0;
}

/* The directories still to read, as paths under the mount ("" is the root). */
struct todo {
	char **paths;
	unsigned *depths;
	size_t nr, cap, cap_depths;
};

static int push(struct todo *t, const char *parent, const char *name, unsigned depth)
{
	char *p;

	if (array_reserve((void **)&t->paths, &t->cap, t->nr, sizeof(*t->paths)) ||
	    array_reserve((void **)&t->depths, &t->cap_depths, t->nr, sizeof(*t->depths)))
		return -ENOMEM;
	if (asprintf(&p, "%s/%s", parent, name) < 0)
		return -ENOMEM;
	t->paths[t->nr] = p;
	t->depths[t->nr++] = depth;
	return 0;
}

/* The subdirectories of dir (path rel) onto t; each noted with its id. */
static int read_dir(struct cgroup_names *c, struct todo *t, int dirfd, const char *rel,
		    unsigned depth, size_t *seen, size_t *added)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int err = 0;

	if (!d) {
		close(dirfd);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		uint64_t id;
		char *path;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*seen >= CGROUP_WALK_MAX_DIRS || depth >= CGROUP_WALK_MAX_DEPTH) {
			c->skipped++;
			continue;
		}
		(*seen)++;
		if (cgroup2__id_at(dirfd, de->d_name, &id)) {
			c->skipped++;	/* removed meanwhile */
			continue;
		}
		if (asprintf(&path, "%s/%s", rel, de->d_name) < 0) {
			err = -ENOMEM;
			break;
		}
		err = note(c, id, path, added);
		free(path);
		if (!err)
			err = push(t, rel, de->d_name, depth + 1);
	}
	closedir(d);
	return err;
}

/* Walk the hierarchy, depth first, within its bounds. 0 or -errno. */
static int walk(struct cgroup_names *c)
{
	struct todo t = {};
	size_t seen = 0, added = 0;
	uint64_t root_id;
	int err, mfd;

	c->skipped = 0;
	mfd = open(c->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	err = cgroup2__id_at(mfd, "", &root_id);
	if (err == -ENOENT || err == -EINVAL)
		err = cgroup2__id_at(AT_FDCWD, c->mount, &root_id);
	if (!err)
		err = note(c, root_id, "/", &added);
	if (!err)
		err = push(&t, "", ".", 0);
	while (!err && t.nr) {
		char *rel = t.paths[--t.nr];
		unsigned depth = t.depths[t.nr];
		/* "/." is the root's own entry */
		const char *shown = strcmp(rel, "/.") ? rel : "";
		int fd = openat(mfd, *rel == '/' ? rel + 1 : rel,
				O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

		if (fd >= 0)
			err = read_dir(c, &t, fd, shown, depth, &seen, &added);
		free(rel);
	}
	while (t.nr)
		free(t.paths[--t.nr]);
	free(t.paths);
	free(t.depths);
	close(mfd);
	c->nr += added;
	if (c->nr)
		qsort(c->names, c->nr, sizeof(*c->names), by_id);
	return err;
}

const char *cgroup_names__path(struct cgroup_names *c, uint64_t id)
{
	struct cgroup_name *n = find(c, id);
	uint64_t now;

	if (n)
		return n->path;
	now = monotonic_ns();
	if (c->walked_ns && now - c->walked_ns < CGROUP_WALK_EVERY_NS)
		return NULL;
	c->walked_ns = now;
	walk(c);
	n = find(c, id);
	return n ? n->path : NULL;
}

uint64_t cgroup_names__skipped(const struct cgroup_names *c)
{
	return c->skipped;
}
