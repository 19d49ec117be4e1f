// SPDX-License-Identifier: GPL-2.0
/*
 * test_cgroup_names.c - ids to paths by walking a tree (cgroup_names.h).
 * The walk reads any file system's handles: a tree in /tmp stands for
 * the cgroup hierarchy, its directories' handles for cgroup ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "collect/cgroup_names.h"
#include "collect/cgroups.h"
#include "test_util.h"

static uint64_t id_of(const char *root, const char *rel)
{
	char *p = path_in(root, rel);
	uint64_t id;
	int err = cgroup2__id_at(AT_FDCWD, p, &id);

	if (err == -EOPNOTSUPP)
		cr_skip_test("no file handles on /tmp's file system");
	cr_assert_eq(err, 0, "%s: %s", p, strerror(-err));
	free(p);
	return id;
}

static void make_dir(const char *root, const char *rel)
{
	char *p = path_in(root, rel);

	cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
	free(p);
}

Test(cgroup_names, paths_of_every_directory)
{
	char *root = make_tmpdir();
	struct cgroup_names *c;

	make_dir(root, "system.slice");
	make_dir(root, "system.slice/docker-x.scope");
	make_dir(root, "user.slice");
	free(write_in(root, "user.slice/cgroup.procs", ""));
	c = cgroup_names__new(root);
	cr_assert_not_null(c);
	cr_assert_str_eq(cgroup_names__path(c, id_of(root, "system.slice/docker-x.scope")),
			 "/system.slice/docker-x.scope");
	cr_assert_str_eq(cgroup_names__path(c, id_of(root, "system.slice")), "/system.slice");
	cr_assert_str_eq(cgroup_names__path(c, id_of(root, "user.slice")), "/user.slice");
	cr_assert_str_eq(cgroup_names__path(c, id_of(root, "")), "/");
	/* a file is no cgroup */
	cr_assert_null(cgroup_names__path(c, id_of(root, "user.slice/cgroup.procs")));
	cr_assert_eq(cgroup_names__skipped(c), 0);
	cgroup_names__free(c);
	rm_rf(root);
}

/* A miss walks again, but not more than once a CGROUP_WALK_EVERY_NS; a path found stays. */
Test(cgroup_names, walks_again_at_most_once_a_second)
{
	char *root = make_tmpdir(), *gone = path_in(root, "gone");
	struct cgroup_names *c;
	uint64_t late, gone_id;

	make_dir(root, "gone");
	c = cgroup_names__new(root);
	cr_assert_not_null(c);
	gone_id = id_of(root, "gone");
	cr_assert_str_eq(cgroup_names__path(c, gone_id), "/gone");
	cr_assert_eq(rmdir(gone), 0);
	make_dir(root, "late");
	late = id_of(root, "late");
	cr_assert_null(cgroup_names__path(c, late), "walked again at once");
	usleep(CGROUP_WALK_EVERY_NS / 1000 + 100000);
	cr_assert_str_eq(cgroup_names__path(c, late), "/late");
	/* removed since: still named */
	cr_assert_str_eq(cgroup_names__path(c, gone_id), "/gone");
	cgroup_names__free(c);
	free(gone);
	rm_rf(root);
}

Test(cgroup_names, deep_trees_are_cut)
{
	char *root = make_tmpdir(), rel[4 * (CGROUP_WALK_MAX_DEPTH + 2)] = "";
	struct cgroup_names *c;
	uint64_t deepest = 0, last_in = 0;

	for (int i = 0; i <= CGROUP_WALK_MAX_DEPTH; i++) {
		strcat(rel, i ? "/d" : "d");
		make_dir(root, rel);
		if (i == CGROUP_WALK_MAX_DEPTH - 1)
			last_in = id_of(root, rel);
		deepest = id_of(root, rel);
	}
	c = cgroup_names__new(root);
	cr_assert_not_null(c);
	cr_assert_not_null(cgroup_names__path(c, last_in));
	cr_assert_null(cgroup_names__path(c, deepest));
	cr_assert_eq(cgroup_names__skipped(c), 1);
	cgroup_names__free(c);
	rm_rf(root);
}
