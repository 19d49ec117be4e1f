// SPDX-License-Identifier: GPL-2.0
/*
 * test_cgroups.c - the cgroup v2 mount from mountinfo files the test
 * writes (unified, hybrid and cgroup v1 only hosts), and what --cgroup
 * arguments resolve to (cgroups.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <criterion/criterion.h>

#include "collect/cgroups.h"
#include "test_util.h"

static const char unified[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"25 22 0:23 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
	"26 25 0:24 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:8 - cgroup2 cgroup2 rw,nsdelegate\n";

static const char hybrid[] =
	"25 22 0:24 / /sys/fs/cgroup ro,nosuid shared:8 - tmpfs tmpfs ro,mode=755\n"
	"26 25 0:25 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw\n"
	"27 25 0:26 / /sys/fs/cgroup/cpu rw,nosuid shared:10 - cgroup cgroup rw,cpu\n";

static const char v1_only[] =
	"25 22 0:24 / /sys/fs/cgroup ro,nosuid shared:8 - tmpfs tmpfs ro,mode=755\n"
	"27 25 0:26 / /sys/fs/cgroup/cpu rw,nosuid shared:10 - cgroup cgroup rw,cpu\n"
	"28 25 0:27 / /sys/fs/cgroup/systemd rw,nosuid shared:11 - cgroup cgroup rw,name=systemd\n";

/* no optional fields, and a mount point with a space in it */
static const char escaped[] =
	"26 25 0:24 / /mnt/cg\\040two rw - cgroup2 none rw\n";

static int mount_of(const char *text, char *buf, size_t size)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "mountinfo", text);
	int err = cgroup2__mount(path, buf, size);

	free(path);
	rm_rf(dir);
	return err;
}

Test(cgroups, mount_of_a_unified_host)
{
	char buf[PATH_MAX];

	cr_assert_eq(mount_of(unified, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/sys/fs/cgroup");
}

Test(cgroups, mount_of_a_hybrid_host)
{
	char buf[PATH_MAX];

	cr_assert_eq(mount_of(hybrid, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/sys/fs/cgroup/unified");
}

Test(cgroups, no_mount_on_a_v1_host)
{
	char buf[PATH_MAX];

	cr_assert_eq(mount_of(v1_only, buf, sizeof(buf)), -ENODEV);
	cr_assert_eq(mount_of("", buf, sizeof(buf)), -ENODEV);
}

Test(cgroups, mount_point_unescaped_and_bounded)
{
	char buf[PATH_MAX], small[8];

	cr_assert_eq(mount_of(escaped, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/mnt/cg two");
	cr_assert_eq(mount_of(escaped, small, sizeof(small)), -ENAMETOOLONG);
	cr_assert_eq(cgroup2__mount("/nonexistent/mountinfo", buf, sizeof(buf)), -ENOENT);
}

Test(cgroups, resolve_refuses_what_is_no_cgroup_v2_directory)
{
	char *dir = make_tmpdir(), *file = write_in(dir, "f", "x"), buf[PATH_MAX];

	cr_assert_eq(cgroup2__resolve(NULL, "/nonexistent/cg", buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(cgroup2__resolve(NULL, "relative", buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(cgroup2__resolve(NULL, "", buf, sizeof(buf)), -ENOENT);
	/* a directory of another file system, as a cgroup v1 one is */
	cr_assert_eq(cgroup2__resolve(NULL, dir, buf, sizeof(buf)), -EMEDIUMTYPE);
	cr_assert_eq(cgroup2__resolve(NULL, file, buf, sizeof(buf)), -ENOTDIR);
	/* under a "mount" that is no cgroup2 either */
	cr_assert_eq(cgroup2__resolve(dir, "/", buf, sizeof(buf)), -EMEDIUMTYPE);
	free(file);
	rm_rf(dir);
}

/* On this machine's own hierarchy, where it has one. */
Test(cgroups, resolve_and_id_on_the_host)
{
	char mnt[PATH_MAX], buf[PATH_MAX];
	uint64_t id = 0;

	if (cgroup2__mount("/proc/self/mountinfo", mnt, sizeof(mnt)))
		skip_unless_ci("a cgroup v2 hierarchy");
	cr_assert_eq(cgroup2__resolve(mnt, "/", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, mnt);
	/* the directory itself, given whole */
	cr_assert_eq(cgroup2__resolve(mnt, mnt, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, mnt);
	cr_assert_eq(cgroup2__resolve(mnt, "/no such cgroup", buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(cgroup2__id_at(AT_FDCWD, mnt, &id), 0);
	cr_assert_neq(id, 0);
}
