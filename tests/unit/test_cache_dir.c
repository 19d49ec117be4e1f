// SPDX-License-Identifier: GPL-2.0
/*
 * Root's cache directories (common/cache_dir.c), the unwind table
 * cache's and debuginfod's: refused when any directory above them is
 * another user's, writable by others or a symlink; made ours alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cache_dir.h"
#include "test_util.h"

Test(cache_dir, must_be_safe_for_root)
{
	char *tmp = make_tmpdir(), *open_dir = path_in(tmp, "open"), *cache;
	char why[512];
	uid_t uid = geteuid();

	/* ours, or not there yet below a directory of ours */
	cr_assert_eq(cache_dir__check(tmp, uid, why, sizeof(why)), 0, "%s", why);
	cache = path_in(tmp, "not/yet");
	cr_assert_eq(cache_dir__check(cache, uid, why, sizeof(why)), 0, "%s", why);
	free(cache);
	/* anyone may write there */
	cr_assert_eq(mkdir(open_dir, 0777), 0);
	cr_assert_eq(chmod(open_dir, 0777), 0);
	cache = path_in(open_dir, "cache");
	cr_assert_eq(cache_dir__check(cache, uid, why, sizeof(why)), -EPERM);
	cr_assert(strstr(why, "can be written by other users"), "%s", why);
	cr_assert(!strchr(why, '\n'), "%s", why);
	free(cache);
	/* /tmp itself: sticky, root's, but the cache not there yet: anyone could make it */
	cr_assert_eq(cache_dir__check("/tmp/profile-no-such-cache", uid, why, sizeof(why)), -EPERM);
	cr_assert_eq(cache_dir__check("relative", uid, why, sizeof(why)), -EPERM);
	if (uid == 0) {
		/* another user's */
		cr_assert_eq(chown(open_dir, 65534, 65534), 0);
		cr_assert_eq(chmod(open_dir, 0755), 0);
		cr_assert_eq(cache_dir__check(open_dir, uid, why, sizeof(why)), -EPERM);
		cr_assert(strstr(why, "belongs to another user"), "%s", why);
	}
	free(open_dir);
	rm_rf(tmp);
}

/* A symlink on the way, also spelled with a trailing slash or doubled slashes. */
Test(cache_dir, a_symlink_above_or_at_the_cache_is_refused)
{
	char *tmp = make_tmpdir(), *real = path_in(tmp, "real"), *link = path_in(tmp, "link");
	char path[4200], why[512];

	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink(real, link), 0);
	snprintf(path, sizeof(path), "%s/cache", link);
	cr_assert_eq(cache_dir__check(path, geteuid(), why, sizeof(why)), -EPERM);
	cr_assert(strstr(why, "is not a directory"), "%s", why);
	cr_assert_eq(cache_dir__check(link, geteuid(), why, sizeof(why)), -EPERM);
	snprintf(path, sizeof(path), "%s/", link);
	cr_assert_eq(cache_dir__check(path, geteuid(), why, sizeof(why)), -EPERM, "%s", path);
	snprintf(path, sizeof(path), "%s//cache/", link);
	cr_assert_eq(cache_dir__check(path, geteuid(), why, sizeof(why)), -EPERM, "%s", path);
	snprintf(path, sizeof(path), "%s//cache/", real);
	cr_assert_eq(cache_dir__check(path, geteuid(), why, sizeof(why)), 0, "%s", why);
	free(real);
	free(link);
	rm_rf(tmp);
}

Test(cache_dir, missing_dirs_are_made_with_the_modes_asked)
{
	char *tmp = make_tmpdir(), *deep = malloc(strlen(tmp) + 16), *leaf, *parent;
	mode_t mask = umask(022);
	struct stat sb;
	char why[512];

	cr_assert_not_null(deep);
	sprintf(deep, "%s/a//b/c/", tmp);
	cr_assert_eq(cache_dir__make(deep, 0755, 0700), 0);
	umask(mask);
	cr_assert_eq(stat(deep, &sb), 0);
	cr_assert(S_ISDIR(sb.st_mode));
	cr_assert_eq(sb.st_mode & 0777, 0700, "%o", sb.st_mode & 0777);
	parent = path_in(tmp, "a/b");
	cr_assert_eq(stat(parent, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0755, "parent's mode %o", sb.st_mode & 0777);
	cr_assert_eq(cache_dir__make(deep, 0755, 0700), 0, "made already");
	cr_assert_eq(cache_dir__check(deep, geteuid(), why, sizeof(why)), 0, "%s", why);
	leaf = path_in(tmp, "file");
	write_text(leaf, "x");
	sprintf(deep, "%s/file/x", tmp);
	cr_assert_eq(cache_dir__make(deep, 0700, 0700), -ENOTDIR);
	free(parent);
	free(leaf);
	free(deep);
	rm_rf(tmp);
}
