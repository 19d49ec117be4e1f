// SPDX-License-Identifier: GPL-2.0
/*
 * test_containers.c - the labels --by-container prints for cgroup ids
 * (containers.h), over a tree in /tmp standing for the hierarchy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <criterion/criterion.h>

#include "collect/cgroups.h"
#include "output/containers.h"
#include "test_util.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static uint64_t make_cgroup(const char *root, const char *rel)
{
	char *p = path_in(root, rel);
	uint64_t id;
	int err;

	cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
	err = cgroup2__id_at(AT_FDCWD, p, &id);
	if (err == -EOPNOTSUPP)
		cr_skip_test("no file handles on /tmp's file system");
	cr_assert_eq(err, 0);
	free(p);
	return id;
}

Test(containers, labels_by_runtime_else_the_path)
{
	char *root = make_tmpdir();
	struct containers *c;
	struct container_label l;
	uint64_t box, svc;

	make_cgroup(root, "system.slice");
	box = make_cgroup(root, "system.slice/docker-" ID ".scope");
	svc = make_cgroup(root, "system.slice/ssh.service");
	c = containers__new(root);
	cr_assert_not_null(c);
	cr_assert_eq(containers__label(c, box, &l), 0);
	cr_assert_str_eq(l.id, ID);
	cr_assert_str_eq(l.cgroup, "/system.slice/docker-" ID ".scope");
	cr_assert_eq(containers__label(c, svc, &l), 0);
	cr_assert_str_eq(l.id, "/system.slice/ssh.service");
	cr_assert_str_eq(l.cgroup, "/system.slice/ssh.service");
	cr_assert_eq(containers__unnamed(c), 0);
	/* an id no directory has: said, and counted once */
	cr_assert_eq(containers__label(c, 0xfffffffffffffULL, &l), 0);
	cr_assert_str_eq(l.id, "[cgroup 4503599627370495]");
	cr_assert_str_eq(l.cgroup, l.id);
	cr_assert_eq(containers__label(c, 0xfffffffffffffULL, &l), 0);
	cr_assert_eq(containers__unnamed(c), 1);
	/* found again, whatever order they were made in */
	cr_assert_eq(containers__label(c, 1, &l), 0);	/* no directory: unnamed too */
	cr_assert_eq(containers__label(c, svc, &l), 0);
	cr_assert_str_eq(l.cgroup, "/system.slice/ssh.service");
	cr_assert_eq(containers__label(c, box, &l), 0);
	cr_assert_str_eq(l.id, ID);
	cr_assert_eq(containers__label(c, 1, &l), 0);
	cr_assert_str_eq(l.id, "[cgroup 1]");
	cr_assert_eq(containers__unnamed(c), 2);
	containers__free(c);
	rm_rf(root);
}
