// SPDX-License-Identifier: GPL-2.0
/*
 * test_outfile.c - atomic output files: a commit replaces the target in
 * one rename, failures (a directory that is a file, a full disk, a size
 * limit) leave the old file as it was and no temporary behind, and
 * symlinks are never written through. Also strftime path patterns.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "outfile.h"
#include "test_util.h"

/* How many entries dir holds, besides . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	}
	closedir(d);
	return n;
}

static void assert_content(const char *path, const char *want)
{
	size_t len;
	char *got = read_whole(path, &len);

	cr_assert_str_eq(got, want, "'%s' holds '%.40s'", path, got);
	free(got);
}

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static void write_to(struct outfile *of, const char *text)
{
	cr_assert_geq(fputs(text, outfile__stream(of)), 0);
}

Test(outfile, commit_replaces_the_file_with_a_rename)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "out.txt", "old contents\n");
	struct outfile *of;
	struct stat before, after, tmp;
	char *tmp_path;

	cr_assert_eq(stat(path, &before), 0);
	cr_assert_eq(outfile__open(path, &of), 0);
	tmp_path = strdup(outfile__tmp_path(of));
	cr_assert(!strncmp(tmp_path, dir, strlen(dir)), "temporary '%s' not beside the target", tmp_path);
	cr_assert_eq(stat(tmp_path, &tmp), 0);
	cr_assert_eq(tmp.st_mode & 0777, 0644 & ~current_umask());
	write_to(of, "new contents\n");

	/* nothing reaches the target before the commit */
	cr_assert_eq(fflush(outfile__stream(of)), 0);
	assert_content(path, "old contents\n");

	cr_assert_eq(outfile__commit(of), 0);
	assert_content(path, "new contents\n");
	cr_assert_eq(stat(path, &after), 0);
	/* a new inode: replaced, not truncated and rewritten in place */
	cr_assert_neq(after.st_ino, before.st_ino);
	cr_assert_eq(after.st_ino, tmp.st_ino);
	cr_assert_eq(access(tmp_path, F_OK), -1, "temporary '%s' left behind", tmp_path);
	cr_assert_eq(count_entries(dir), 1);
	free(tmp_path);
	free(path);
	rm_rf(dir);
}

/*
 * A reader polling the target while it is replaced over and over must
 * always find a whole file: never ENOENT (unlink then rename), never an
 * empty or partial one (truncate and rewrite).
 */
Test(outfile, readers_never_see_a_missing_or_partial_file)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "out.txt", "0123456789\n"), *stop;
	int status, misses = 0;
	pid_t reader;

	cr_assert_neq(asprintf(&stop, "%s/stop", dir), -1);
	reader = fork();
	cr_assert_neq(reader, -1);
	if (reader == 0) {
		char buf[64];

		for (;;) {
			int fd = open(path, O_RDONLY);
			ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

			if (fd >= 0)
				close(fd);
			if (n != 11 || memcmp(buf, "0123456789\n", 11))
				misses++;
			if (!access(stop, F_OK))
				_exit(misses ? 1 : 0);
		}
	}
	for (int i = 0; i < 1000; i++) {
		struct outfile *of;

		cr_assert_eq(outfile__open(path, &of), 0);
		write_to(of, "0123456789\n");
		cr_assert_eq(outfile__commit(of), 0);
	}
	write_text(stop, "");
	cr_assert_eq(waitpid(reader, &status, 0), reader);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "a reader saw the target missing or incomplete");
	free(stop);
	free(path);
	rm_rf(dir);
}

Test(outfile, commit_creates_a_new_file)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "new.svg");
	struct outfile *of;

	cr_assert_eq(outfile__open(path, &of), 0);
	write_to(of, "<svg/>\n");
	cr_assert_eq(outfile__commit(of), 0);
	assert_content(path, "<svg/>\n");
	cr_assert_eq(count_entries(dir), 1);
	free(path);
	rm_rf(dir);
}

Test(outfile, relative_path_in_the_current_directory)
{
	char *dir = make_tmpdir();
	struct outfile *of;

	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(outfile__open("rel.json", &of), 0);
	cr_assert(!strncmp(outfile__tmp_path(of), "./.rel.json.", 12), "temporary '%s'",
		  outfile__tmp_path(of));
	write_to(of, "{}\n");
	cr_assert_eq(outfile__commit(of), 0);
	assert_content("rel.json", "{}\n");
	cr_assert_eq(chdir("/"), 0);
	rm_rf(dir);
}

Test(outfile, abort_leaves_the_old_file)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "out.txt", "old\n");
	struct outfile *of;

	cr_assert_eq(outfile__open(path, &of), 0);
	write_to(of, "half a profi");
	outfile__abort(of);
	assert_content(path, "old\n");
	cr_assert_eq(count_entries(dir), 1);
	outfile__abort(NULL);
	free(path);
	rm_rf(dir);
}

Test(outfile, directory_that_is_a_file)
{
	char *dir = make_tmpdir(), *file = write_in(dir, "file", "x"), *path;
	struct outfile *of = (struct outfile *)1;

	cr_assert_neq(asprintf(&path, "%s/out.pb.gz", file), -1);
	/* tests run as root, so no permission bits would stop us: ENOTDIR does */
	cr_assert_eq(outfile__open(path, &of), -ENOTDIR);
	cr_assert_null(of);
	free(path);
	cr_assert_neq(asprintf(&path, "%s/missing/out.pb.gz", dir), -1);
	cr_assert_eq(outfile__open(path, &of), -ENOENT);
	cr_assert_eq(count_entries(dir), 1);
	cr_assert_eq(outfile__open("", &of), -ENOENT);
	free(path);
	free(file);
	rm_rf(dir);
}

Test(outfile, target_that_is_a_directory)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "sub/x"), *sub;
	struct outfile *of;

	free(path);	/* path_in() made the directory sub */
	cr_assert_neq(asprintf(&sub, "%s/sub", dir), -1);
	cr_assert_eq(outfile__open(sub, &of), 0);
	write_to(of, "data\n");
	/* rename() refuses to replace a directory with a file */
	cr_assert_lt(outfile__commit(of), 0);
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");

	cr_assert_neq(asprintf(&path, "%s/", dir), -1);
	cr_assert_eq(outfile__open(path, &of), -EISDIR);
	free(path);
	free(sub);
	rm_rf(dir);
}

static void write_mib(struct outfile *of, int mib)
{
	static char block[65536];

	memset(block, 'p', sizeof(block));
	/* errors show at the latest in commit: do not stop here */
	for (int i = 0; i < mib * 16; i++)
		fwrite(block, 1, sizeof(block), outfile__stream(of));
}

Test(outfile, file_size_limit_fails_the_commit_and_keeps_the_old_file)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "out.txt", "old\n");
	struct rlimit lim = { .rlim_cur = 100000, .rlim_max = RLIM_INFINITY };
	struct outfile *of;
	int err;

	/* writing past RLIMIT_FSIZE fails with EFBIG, once SIGXFSZ no longer kills */
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(outfile__open(path, &of), 0);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	write_mib(of, 1);
	err = outfile__commit(of);
	lim.rlim_cur = RLIM_INFINITY;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(err, -EFBIG, "commit returned %d (%s)", err, strerror(-err));
	assert_content(path, "old\n");
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");
	free(path);
	rm_rf(dir);
}

/*
 * A real full disk: a 64 KiB tmpfs, mounted in a mount namespace of this
 * test's own so that nothing outlives the test. Skipped where mounting is
 * not allowed (an unprivileged container).
 */
Test(outfile, full_disk_fails_the_commit_and_keeps_the_old_file)
{
	char *dir = make_tmpdir(), *path;
	struct outfile *of;
	int err;

	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=64k")) {
		rm_rf(dir);
		cr_skip_test("cannot mount a tmpfs here: %s", strerror(errno));
	}
	path = write_in(dir, "out.txt", "old\n");
	cr_assert_eq(outfile__open(path, &of), 0);
	write_mib(of, 1);
	err = outfile__commit(of);
	cr_assert_eq(err, -ENOSPC, "commit returned %d (%s)", err, strerror(-err));
	assert_content(path, "old\n");
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");
	umount(dir);
	free(path);
	rm_rf(dir);
}

Test(outfile, symlink_at_the_temporary_name_is_not_followed)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "out.txt");
	char *victim = write_in(dir, "victim", "precious\n"), *link, target[4096];
	struct outfile *of;
	ssize_t n;

	/* the first name outfile__open() tries */
	cr_assert_neq(asprintf(&link, "%s/.out.txt.%d.tmp", dir, (int)getpid()), -1);
	cr_assert_eq(symlink(victim, link), 0);

	cr_assert_eq(outfile__open(path, &of), 0);
	cr_assert_str_neq(outfile__tmp_path(of), link);
	write_to(of, "profile\n");
	cr_assert_eq(outfile__commit(of), 0);

	assert_content(victim, "precious\n");
	assert_content(path, "profile\n");
	n = readlink(link, target, sizeof(target) - 1);
	cr_assert_gt(n, 0, "the symlink was removed or replaced");
	target[n] = '\0';
	cr_assert_str_eq(target, victim);
	free(link);
	free(victim);
	free(path);
	rm_rf(dir);
}

Test(outfile, symlink_at_the_target_is_replaced_not_followed)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "out.txt");
	char *victim = write_in(dir, "victim", "precious\n");
	struct outfile *of;
	struct stat sb;

	cr_assert_eq(symlink(victim, path), 0);
	cr_assert_eq(outfile__open(path, &of), 0);
	write_to(of, "profile\n");
	cr_assert_eq(outfile__commit(of), 0);
	assert_content(victim, "precious\n");
	cr_assert_eq(lstat(path, &sb), 0);
	cr_assert(S_ISREG(sb.st_mode), "'%s' is still a symlink", path);
	assert_content(path, "profile\n");
	free(victim);
	free(path);
	rm_rf(dir);
}

/* UTC+2 all year: local time must differ from UTC for the test to mean anything. */
static void use_fixed_zone(void)
{
	cr_assert_eq(setenv("TZ", "XYZ-2", 1), 0);
	tzset();
}

Test(outfile, expand_path_uses_local_time)
{
	char buf[256];

	use_fixed_zone();
	cr_assert_eq(outfile__expand_path("profile-%F-%H%M%S.svg", 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "profile-1970-01-01-020000.svg");
	/* 2024-02-29 23:30:05 UTC is already March 1st here */
	cr_assert_eq(outfile__expand_path("/var/tmp/%Y/%m/%d/%H:%M:%S.pb.gz", 1709249405, buf,
					  sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/var/tmp/2024/03/01/01:30:05.pb.gz");
}

Test(outfile, expand_path_without_conversions_and_with_percent)
{
	char buf[64];

	use_fixed_zone();
	cr_assert_eq(outfile__expand_path("plain.json", 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "plain.json");
	cr_assert_eq(outfile__expand_path("100%%-%Y", 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "100%-1970");
}

Test(outfile, expand_path_errors)
{
	char buf[16];

	use_fixed_zone();
	cr_assert_eq(outfile__expand_path("", 0, buf, sizeof(buf)), -EINVAL);
	/* "profile-1970-01-01" is 18 bytes */
	cr_assert_eq(outfile__expand_path("profile-%F", 0, buf, sizeof(buf)), -ENAMETOOLONG);
	cr_assert_eq(outfile__expand_path("%F", 0, buf, 11), 0);
	cr_assert_str_eq(buf, "1970-01-01");
	cr_assert_eq(outfile__expand_path("%F", 0, buf, 10), -ENAMETOOLONG);
}
