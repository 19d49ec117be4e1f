// SPDX-License-Identifier: GPL-2.0
/*
 * --keep (output/retention.c): which names a pattern could have written,
 * which patterns it refuses, and that only the oldest of our own regular
 * files that match go.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "retention.h"
#include "test_util.h"

Test(retention, names_a_pattern_could_have_written)
{
	cr_assert(retention__matches("%F_%H%M%S.folded", "2026-11-23_193538.folded"));
	cr_assert(retention__matches("p-%s.svg", "p-1763926538.svg"));
	cr_assert(retention__matches("p-%s-%s", "p-1-22"));
	cr_assert(retention__matches("100%%_%Y", "100%_2026"));
	cr_assert(retention__matches("%T", "19:35:38"));
	cr_assert_not(retention__matches("%F_%H%M%S.folded", "2026-11-23_19353.folded"));
	cr_assert_not(retention__matches("%F_%H%M%S.folded", "2026-11-23_1935389.folded"));
	cr_assert_not(retention__matches("%F_%H%M%S.folded", "2026-11-23_193538.folded.tmp"));
	cr_assert_not(retention__matches("%F_%H%M%S.folded", "2026-1a-23_193538.folded"));
	cr_assert_not(retention__matches("%F.folded", "notes.txt"));
	cr_assert_not(retention__matches("p-%s.svg", "p-.svg"));
	cr_assert_not(retention__matches("p-%s.svg", "p-123456789012345678901.svg"));
	cr_assert_not(retention__matches("100%%_%Y", "100x_2026"));
}

Test(retention, patterns_it_cannot_match_are_refused)
{
	const char *why = NULL;

	cr_assert_eq(retention__check("/var/lib/p/%F_%H%M%S.folded", &why), 0);
	cr_assert_eq(retention__check("out-%s.pb.gz", &why), 0);
	cr_assert_eq(retention__check("/var/lib/p/profile.folded", &why), -EINVAL);
	cr_assert(strstr(why, "strftime"), "%s", why);
	cr_assert_eq(retention__check("/var/lib/p/100%%.folded", &why), -EINVAL);
	cr_assert_eq(retention__check("/var/lib/%F/p.folded", &why), -EINVAL);
	cr_assert(strstr(why, "directory"), "%s", why);
	cr_assert_eq(retention__check("/var/lib/p/%a.folded", &why), -EINVAL);
	cr_assert(strstr(why, "digits"), "%s", why);
	cr_assert_eq(retention__check("/var/lib/p/%e.folded", &why), -EINVAL);
}

static void make_file(const char *dir, const char *name, time_t mtime)
{
	char path[4200];
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s", path);
	close(fd);
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static bool exists(const char *dir, const char *name)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

Test(retention, only_our_oldest_matching_regular_files_go)
{
	char *dir = make_tmpdir(), pattern[4200], path[4200];

	snprintf(pattern, sizeof(pattern), "%s/%%F_%%H%%M%%S.folded", dir);
	make_file(dir, "2026-01-01_000000.folded", 1000);
	make_file(dir, "2026-01-02_000000.folded", 2000);
	make_file(dir, "2026-01-03_000000.folded", 3000);
	make_file(dir, "2026-01-04_000000.folded", 4000);
	make_file(dir, "notes.txt", 10);
	make_file(dir, "2026-01-05_000000.folded.tmp", 10);
	/* a symlink and a directory of a matching name: never removed */
	snprintf(path, sizeof(path), "%s/2020-01-01_000000.folded", dir);
	cr_assert_eq(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/2019-01-01_000000.folded", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(retention__apply(pattern, 2, stderr), 2);
	cr_assert(exists(dir, "2026-01-04_000000.folded"));
	cr_assert(exists(dir, "2026-01-03_000000.folded"));
	cr_assert_not(exists(dir, "2026-01-02_000000.folded"));
	cr_assert_not(exists(dir, "2026-01-01_000000.folded"));
	cr_assert(exists(dir, "notes.txt"));
	cr_assert(exists(dir, "2026-01-05_000000.folded.tmp"));
	cr_assert(exists(dir, "2020-01-01_000000.folded"));
	cr_assert(exists(dir, "2019-01-01_000000.folded"));
	/* nothing more to remove */
	cr_assert_eq(retention__apply(pattern, 2, stderr), 0);
	snprintf(pattern, sizeof(pattern), "%s/missing/%%s.folded", dir);
	cr_assert_eq(retention__apply(pattern, 2, stderr), -ENOENT);
	rm_rf(dir);
}

/* Another user's file of a matching name stays (needs root to make one). */
Test(retention, another_users_file_stays)
{
	char *dir = make_tmpdir(), pattern[4200], path[4200];

	if (geteuid())
		skip_unless_ci("not root: cannot give a file away");
	snprintf(pattern, sizeof(pattern), "%s/%%s.folded", dir);
	make_file(dir, "100.folded", 100);
	make_file(dir, "200.folded", 200);
	snprintf(path, sizeof(path), "%s/100.folded", dir);
	cr_assert_eq(chown(path, 65534, 65534), 0);
	cr_assert_eq(retention__apply(pattern, 1, stderr), 0);
	cr_assert(exists(dir, "100.folded"));
	cr_assert(exists(dir, "200.folded"));
	rm_rf(dir);
}
