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

#include "output/retention.h"
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

/* retention__apply_at() in dir, by a descriptor like the one -o holds (O_PATH). */
static int apply(const char *dir, const char *base, long keep, size_t max_entries)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), n;

	cr_assert_geq(fd, 0, "%s: %s", dir, strerror(errno));
	n = retention__apply_at(fd, base, keep, max_entries, stderr);
	close(fd);
	return n;
}

Test(retention, only_our_oldest_matching_regular_files_go)
{
	char *dir = make_tmpdir(), path[4200];
	const char *pattern = "%F_%H%M%S.folded";

	cr_assert_str_eq(retention__base("/var/lib/p/%F_%H%M%S.folded"), pattern);
	cr_assert_str_eq(retention__base(pattern), pattern);
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
	cr_assert_eq(apply(dir, pattern, 2, RETENTION_MAX_ENTRIES), 2);
	cr_assert(exists(dir, "2026-01-04_000000.folded"));
	cr_assert(exists(dir, "2026-01-03_000000.folded"));
	cr_assert_not(exists(dir, "2026-01-02_000000.folded"));
	cr_assert_not(exists(dir, "2026-01-01_000000.folded"));
	cr_assert(exists(dir, "notes.txt"));
	cr_assert(exists(dir, "2026-01-05_000000.folded.tmp"));
	cr_assert(exists(dir, "2020-01-01_000000.folded"));
	cr_assert(exists(dir, "2019-01-01_000000.folded"));
	/* nothing more to remove */
	cr_assert_eq(apply(dir, pattern, 2, RETENTION_MAX_ENTRIES), 0);
	rm_rf(dir);
}

/*
 * A listing cut short at max_entries holds some of the files only: the
 * oldest of those may be newer than files it missed. Nothing goes then.
 */
Test(retention, a_listing_cut_short_removes_nothing)
{
	char *dir = make_tmpdir(), name[64];
	int n;

	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "%d.folded", 1000 + i);
		make_file(dir, name, 1000 + i);
	}
	n = apply(dir, "%s.folded", 2, 8);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "%d.folded", 1000 + i);
		cr_assert(exists(dir, name), "%s removed from a partial listing", name);
	}
	cr_assert_eq(n, -E2BIG);
	/* 12 files and "." and "..": read whole, the 10 oldest go */
	cr_assert_eq(apply(dir, "%s.folded", 2, 14), 10);
	cr_assert(exists(dir, "1011.folded"));
	cr_assert(exists(dir, "1010.folded"));
	cr_assert_not(exists(dir, "1009.folded"));
	rm_rf(dir);
}

/* Another user's file of a matching name stays (needs root to make one). */
Test(retention, another_users_file_stays)
{
	char *dir = make_tmpdir(), path[4200];

	if (geteuid())
		skip_unless_ci("not root: cannot give a file away");
	make_file(dir, "100.folded", 100);
	make_file(dir, "200.folded", 200);
	snprintf(path, sizeof(path), "%s/100.folded", dir);
	cr_assert_eq(chown(path, 65534, 65534), 0);
	cr_assert_eq(apply(dir, "%s.folded", 1, RETENTION_MAX_ENTRIES), 0);
	cr_assert(exists(dir, "100.folded"));
	cr_assert(exists(dir, "200.folded"));
	rm_rf(dir);
}
