// SPDX-License-Identifier: GPL-2.0
/*
 * test_outfile.c - output files: a commit replaces the target in one
 * rename, failures (a directory that is a file, a full disk, a size limit)
 * leave the old file as it was and no temporary behind; other users'
 * symlinks are not followed, devices and FIFOs are written in place, new
 * files are private; the check before sampling. Also strftime patterns.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "output/outfile.h"
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
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
	tmp_path = strdup(outfile__tmp_path(of));
	cr_assert(!strncmp(tmp_path, dir, strlen(dir)), "temporary '%s' not beside the target", tmp_path);
	cr_assert_eq(stat(tmp_path, &tmp), 0);
	/* root's file, and root replaces it: its permission bits stay */
	cr_assert_eq(tmp.st_mode & 0777, before.st_mode & 0777);
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
	for (int i = 0; i < 300; i++) {
		struct outfile *of;

		cr_assert_eq(outfile__open(path, &of, NULL), 0);
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

	cr_assert_eq(outfile__open(path, &of, NULL), 0);
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
	cr_assert_eq(outfile__open("rel.json", &of, NULL), 0);
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

	cr_assert_eq(outfile__open(path, &of, NULL), 0);
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
	cr_assert_eq(outfile__open(path, &of, NULL), -ENOTDIR);
	cr_assert_null(of);
	free(path);
	cr_assert_neq(asprintf(&path, "%s/missing/out.pb.gz", dir), -1);
	cr_assert_eq(outfile__open(path, &of, NULL), -ENOENT);
	cr_assert_eq(count_entries(dir), 1);
	cr_assert_eq(outfile__open("", &of, NULL), -ENOENT);
	free(path);
	free(file);
	rm_rf(dir);
}

Test(outfile, target_that_is_a_directory)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "sub/x"), *sub;
	struct outfile_diag diag;
	struct outfile *of;

	free(path);	/* path_in() made the directory sub */
	cr_assert_neq(asprintf(&sub, "%s/sub", dir), -1);
	/* refused when opened, not after the profile is written */
	cr_assert_eq(outfile__open(sub, &of, &diag), -EISDIR);
	cr_assert_str_eq(diag.msg, "is a directory");
	cr_assert_eq(outfile__check(sub, 0, NULL), -EISDIR);
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");

	cr_assert_neq(asprintf(&path, "%s/", dir), -1);
	cr_assert_eq(outfile__open(path, &of, NULL), -EISDIR);
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
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
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
		skip_unless_ci("cannot mount a tmpfs here: %s", strerror(errno));
	}
	path = write_in(dir, "out.txt", "old\n");
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
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

	cr_assert_eq(outfile__open(path, &of, NULL), 0);
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

/* Whether two intervals get one name: a conversion changing that often, or none. */
Test(outfile, repeats_unless_a_conversion_changes_every_interval)
{
	time_t now = 1700000000;

	use_fixed_zone();
	cr_assert(outfile__repeats("p.folded", 1, now));
	cr_assert(outfile__repeats("p-%F.folded", 3600, now));
	cr_assert(outfile__repeats("p-%H%M.folded", 30, now));
	cr_assert_not(outfile__repeats("p-%H%M.folded", 60, now));
	cr_assert_not(outfile__repeats("p-%H%M%S.folded", 1, now));
	cr_assert_not(outfile__repeats("p-%s.folded", 1, now));
	/* a cycle is a rotation, not a repeat: %S alone names 60 files */
	cr_assert_not(outfile__repeats("p-%S.folded", 1, now));
	cr_assert(outfile__repeats("p-%F.folded", 43200, now));
	cr_assert_not(outfile__repeats("p-%F.folded", 86400, now));
	/* one that cannot expand is outfile__check()'s to say */
	cr_assert_not(outfile__repeats("", 1, now));
}

/* --- what is at the target, and on the way to it -------------------------- */

/* A uid that is neither root nor us: the tests run as root. */
#define OTHER_UID 65534

/* dir/name -> target, owned by uid (lchown: the link, not what it names) */
static char *symlink_owned(const char *dir, const char *name, const char *target, uid_t uid)
{
	char *link = path_in(dir, name);

	cr_assert_eq(symlink(target, link), 0, "symlink '%s': %s", link, strerror(errno));
	cr_assert_eq(lchown(link, uid, -1), 0, "lchown '%s': %s", link, strerror(errno));
	return link;
}

static void assert_is_link(const char *path, const char *want_target)
{
	char target[4096];
	struct stat sb;
	ssize_t n;

	cr_assert_eq(lstat(path, &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode), "'%s' is no longer a symlink", path);
	n = readlink(path, target, sizeof(target) - 1);
	cr_assert_gt(n, 0);
	target[n] = '\0';
	cr_assert_str_eq(target, want_target);
}

static void assert_msg(const struct outfile_diag *diag, const char *want)
{
	cr_assert(strstr(diag->msg, want), "message '%s' lacks '%s'", diag->msg, want);
}

Test(outfile, base_name_must_name_a_file)
{
	char *dir = make_tmpdir(), *path, name[300];
	struct outfile_diag diag;
	struct outfile *of;

	cr_assert_neq(asprintf(&path, "%s/", dir), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), -EISDIR);
	assert_msg(&diag, "no file name");
	free(path);
	cr_assert_neq(asprintf(&path, "%s/.", dir), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), -EISDIR);
	cr_assert_eq(outfile__open(path, &of, &diag), -EISDIR);
	assert_msg(&diag, "'.' is no file name");
	free(path);
	cr_assert_neq(asprintf(&path, "%s/..", dir), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), -EISDIR);
	assert_msg(&diag, "'..' is no file name");
	free(path);
	cr_assert_eq(outfile__check("", 0, &diag), -EINVAL);

	/* NAME_MAX bytes is a name (its temporary name is cut), one more is not */
	memset(name, 'n', 255);
	name[255] = '\0';
	cr_assert_neq(asprintf(&path, "%s/%s", dir, name), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), 0, "%s", diag.msg);
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
	write_to(of, "long\n");
	cr_assert_eq(outfile__commit(of), 0);
	assert_content(path, "long\n");
	free(path);
	strcpy(name + 255, "n");
	cr_assert_neq(asprintf(&path, "%s/%s", dir, name), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), -ENAMETOOLONG);
	cr_assert_eq(outfile__open(path, &of, &diag), -ENAMETOOLONG);
	assert_msg(&diag, "longer than 255");
	cr_assert_eq(count_entries(dir), 1);
	free(path);
	rm_rf(dir);
}

/*
 * dir/link -> dir/rootdir, the link another user's: as if they had made
 * it in a directory of theirs where root writes profiles. Refused, by
 * check and open alike, naming the link and its owner; nothing written.
 */
Test(outfile, directory_symlink_of_another_user_is_refused)
{
	char *dir = make_tmpdir(), *real = path_in(dir, "rootdir/x"), *link, *path;
	struct outfile_diag diag;
	struct outfile *of = (struct outfile *)1;
	char want[4200];

	free(real);
	cr_assert_neq(asprintf(&real, "%s/rootdir", dir), -1);
	link = symlink_owned(dir, "link", real, OTHER_UID);
	cr_assert_neq(asprintf(&path, "%s/out.folded", link), -1);
	snprintf(want, sizeof(want), "'%s' is a symlink owned by uid %d, not followed", link, OTHER_UID);

	cr_assert_eq(outfile__check(path, 0, &diag), -EPERM);
	cr_assert_str_eq(diag.msg, want);
	cr_assert_eq(outfile__open(path, &of, &diag), -EPERM);
	cr_assert_null(of);
	cr_assert_str_eq(diag.msg, want);
	cr_assert_str_eq(diag.path, path);
	cr_assert_eq(count_entries(real), 0, "written through the link");
	free(path);

	/* also behind a link of root's: every link on the way is checked */
	free(symlink_owned(dir, "rootlink", "link", 0));
	cr_assert_neq(asprintf(&path, "%s/rootlink/out.folded", dir), -1);
	cr_assert_eq(outfile__open(path, &of, &diag), -EPERM);
	cr_assert_str_eq(diag.msg, want);
	cr_assert_eq(count_entries(real), 0, "written through the link");
	free(path);
	free(link);
	free(real);
	rm_rf(dir);
}

/* Links of root's (the user running the tests) are followed, relative ones from their directory. */
Test(outfile, own_directory_symlinks_are_followed)
{
	char *dir = make_tmpdir(), *real = path_in(dir, "a/b/x"), *path, *link;
	struct outfile *of;

	free(real);
	cr_assert_neq(asprintf(&real, "%s/a/b", dir), -1);
	/* dir/l1 -> a (relative), dir/a/l2 -> dir/a/b (absolute) */
	free(symlink_owned(dir, "l1", "a", 0));
	link = path_in(dir, "a/l2");
	free(symlink_owned(dir, "a/l2", real, 0));
	cr_assert_neq(asprintf(&path, "%s/l1/l2/../b/out.txt", dir), -1);
	cr_assert_eq(outfile__check(path, 0, NULL), 0);
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
	write_to(of, "through links\n");
	cr_assert_eq(outfile__commit(of), 0);
	free(path);
	/* l2/.. is a, as the kernel has it: the link's target's parent */
	cr_assert_neq(asprintf(&path, "%s/a/b/out.txt", dir), -1);
	assert_content(path, "through links\n");
	cr_assert_eq(count_entries(real), 1, "temporary left behind");
	free(path);
	free(link);
	free(real);
	rm_rf(dir);
}

/*
 * A link of root's with a second name: where fs.protected_hardlinks is 0,
 * anyone can make one in a directory of theirs, pointing wherever root's
 * link points. Refused, as the directory and as the target.
 */
Test(outfile, symlink_with_two_names_is_refused)
{
	char *dir = make_tmpdir(), *real = path_in(dir, "rootdir/x"), *link, *second, *path;
	struct outfile_diag diag;
	struct outfile *of;

	free(real);
	cr_assert_neq(asprintf(&real, "%s/rootdir", dir), -1);
	link = symlink_owned(dir, "link", "rootdir", 0);
	second = path_in(dir, "second");
	cr_assert_eq(linkat(AT_FDCWD, link, AT_FDCWD, second, 0), 0, "link: %s", strerror(errno));
	cr_assert_neq(asprintf(&path, "%s/out.txt", second), -1);
	cr_assert_eq(outfile__open(path, &of, &diag), -EPERM);
	assert_msg(&diag, "is a symlink with 2 names (hard links), not followed");
	cr_assert_eq(outfile__open(link, &of, &diag), -EPERM);
	cr_assert_eq(count_entries(real), 0, "written through the link");
	free(path);
	free(second);
	free(link);
	free(real);
	rm_rf(dir);
}

Test(outfile, symlink_loop_fails)
{
	char *dir = make_tmpdir(), *path;
	struct outfile *of;

	free(symlink_owned(dir, "a", "b", 0));
	free(symlink_owned(dir, "b", "a", 0));
	cr_assert_neq(asprintf(&path, "%s/a/out", dir), -1);
	cr_assert_eq(outfile__open(path, &of, NULL), -ELOOP);
	free(path);
	cr_assert_neq(asprintf(&path, "%s/a", dir), -1);
	cr_assert_eq(outfile__open(path, &of, NULL), -ELOOP);
	free(path);
	rm_rf(dir);
}

/*
 * The directory is checked once, at open, and held: swapped for a link to
 * somewhere else before the commit, the file still lands where checked.
 */
Test(outfile, directory_swapped_after_open_is_not_followed)
{
	char *dir = make_tmpdir(), *sub = path_in(dir, "sub/x"), *elsewhere = path_in(dir, "elsewhere/x");
	char *path, *moved;
	struct outfile *of;

	free(sub);
	free(elsewhere);
	cr_assert_neq(asprintf(&sub, "%s/sub", dir), -1);
	cr_assert_neq(asprintf(&elsewhere, "%s/elsewhere", dir), -1);
	cr_assert_neq(asprintf(&moved, "%s/moved", dir), -1);
	cr_assert_neq(asprintf(&path, "%s/out.txt", sub), -1);
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
	write_to(of, "checked\n");
	cr_assert_eq(rename(sub, moved), 0);
	cr_assert_eq(symlink(elsewhere, sub), 0);
	cr_assert_eq(outfile__commit(of), 0);
	cr_assert_eq(count_entries(elsewhere), 0, "written through the swapped-in link");
	free(path);
	cr_assert_neq(asprintf(&path, "%s/out.txt", moved), -1);
	assert_content(path, "checked\n");
	free(path);
	free(moved);
	free(elsewhere);
	free(sub);
	rm_rf(dir);
}

Test(outfile, symlink_at_the_target_of_another_user_is_refused)
{
	char *dir = make_tmpdir(), *victim = write_in(dir, "victim", "precious\n"), *link;
	struct outfile_diag diag;
	struct outfile *of;

	link = symlink_owned(dir, "out.txt", victim, OTHER_UID);
	cr_assert_eq(outfile__check(link, 0, &diag), -EPERM);
	cr_assert_eq(outfile__open(link, &of, &diag), -EPERM);
	cr_assert_str_eq(diag.msg, "is a symlink owned by uid 65534, not followed");
	assert_content(victim, "precious\n");
	assert_is_link(link, victim);
	cr_assert_eq(count_entries(dir), 2, "temporary left behind");
	free(link);
	free(victim);
	rm_rf(dir);
}

/* A link of our own to a regular file: that file is written, the link stays. */
Test(outfile, own_symlink_at_the_target_is_written_through_in_place)
{
	char *dir = make_tmpdir(), *real = write_in(dir, "real", "old contents, longer\n"), *link;
	struct outfile *of;

	link = symlink_owned(dir, "out.txt", "real", 0);
	cr_assert_eq(outfile__check(link, 0, NULL), 0);
	cr_assert_eq(outfile__open(link, &of, NULL), 0);
	cr_assert_null(outfile__tmp_path(of));
	write_to(of, "profile\n");
	cr_assert_eq(outfile__commit(of), 0);
	assert_is_link(link, "real");
	assert_content(real, "profile\n");
	cr_assert_eq(count_entries(dir), 2, "temporary left behind");
	free(link);
	free(real);
	rm_rf(dir);
}

/* /dev/null, made here: written in place, still the device after. */
Test(outfile, character_device_is_written_in_place)
{
	char *dir = make_tmpdir(), *null = path_in(dir, "null");
	struct outfile *of;
	struct stat sb;

	cr_assert_eq(mknod(null, S_IFCHR | 0666, makedev(1, 3)), 0, "mknod: %s", strerror(errno));
	cr_assert_eq(outfile__check(null, 0, NULL), 0);
	cr_assert_eq(outfile__open(null, &of, NULL), 0);
	write_mib(of, 1);
	cr_assert_eq(outfile__commit(of), 0);
	cr_assert_eq(lstat(null, &sb), 0);
	cr_assert(S_ISCHR(sb.st_mode), "'%s' is no longer a character device", null);
	cr_assert_eq(sb.st_rdev, makedev(1, 3));
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");
	free(null);
	rm_rf(dir);
}

Test(outfile, block_device_socket_and_directory_are_refused)
{
	char *dir = make_tmpdir(), *blk = path_in(dir, "loop"), *sock = path_in(dir, "sock");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct outfile_diag diag;
	struct outfile *of;
	int fd;

	cr_assert_eq(mknod(blk, S_IFBLK | 0600, makedev(7, 0)), 0, "mknod: %s", strerror(errno));
	cr_assert_eq(outfile__check(blk, 0, &diag), -EINVAL);
	cr_assert_eq(outfile__open(blk, &of, &diag), -EINVAL);
	cr_assert_str_eq(diag.msg, "is a block device");

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind: %s", strerror(errno));
	cr_assert_eq(outfile__open(sock, &of, &diag), -EINVAL);
	cr_assert_str_eq(diag.msg, "is a socket");
	close(fd);

	/* the same behind a link of our own */
	free(symlink_owned(dir, "to-loop", "loop", 0));
	free(blk);
	cr_assert_neq(asprintf(&blk, "%s/to-loop", dir), -1);
	cr_assert_eq(outfile__open(blk, &of, &diag), -EINVAL);
	cr_assert_str_eq(diag.msg, "is a block device");
	cr_assert_eq(count_entries(dir), 3, "temporary left behind");
	free(blk);
	free(sock);
	rm_rf(dir);
}

/* A reader of fifo in a child: what it read goes to got (a file). */
static pid_t start_reader(const char *fifo, const char *got)
{
	pid_t pid = fork();

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		char buf[4096];
		int in, out;
		ssize_t n;

		alarm(10);	/* nobody opened the FIFO: do not outlive the test */
		in = open(fifo, O_RDONLY);
		out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || out < 0)
			_exit(1);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, n) != n)
				_exit(1);
		_exit(n < 0);
	}
	return pid;
}

Test(outfile, fifo_with_a_reader_is_written_in_place, .timeout = 10)
{
	char *dir = make_tmpdir(), *fifo = path_in(dir, "fifo"), *got = path_in(dir, "got");
	struct outfile *of;
	struct stat sb;
	int status, err;
	pid_t reader;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(outfile__check(fifo, 0, NULL), 0);
	reader = start_reader(fifo, got);
	/* outfile__open() does not wait for a reader: wait for it here */
	for (int i = 0; i < 1000; i++) {
		err = outfile__open(fifo, &of, NULL);
		if (err != -ENXIO)
			break;
		usleep(5000);
	}
	cr_assert_eq(err, 0, "open: %s", strerror(-err));
	write_to(of, "through the fifo\n");
	cr_assert_eq(outfile__commit(of), 0);
	cr_assert_eq(waitpid(reader, &status, 0), reader);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_content(got, "through the fifo\n");
	cr_assert_eq(lstat(fifo, &sb), 0);
	cr_assert(S_ISFIFO(sb.st_mode), "'%s' is no longer a FIFO", fifo);
	cr_assert_eq(count_entries(dir), 2, "temporary left behind");
	free(got);
	free(fifo);
	rm_rf(dir);
}

/* No reader: an error at once, not a run that hangs at its end. */
Test(outfile, fifo_without_a_reader_fails_at_once, .timeout = 10)
{
	char *dir = make_tmpdir(), *fifo = path_in(dir, "fifo");
	struct outfile_diag diag;
	struct outfile *of = (struct outfile *)1;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* before sampling, a reader may still come */
	cr_assert_eq(outfile__check(fifo, 0, &diag), 0, "%s", diag.msg);
	cr_assert_eq(outfile__open(fifo, &of, &diag), -ENXIO);
	cr_assert_null(of);
	cr_assert_str_eq(diag.msg, "is a FIFO without a reader");
	free(fifo);
	rm_rf(dir);
}

/* A reader that goes away: -EPIPE, which profile takes for "| head". */
Test(outfile, fifo_whose_reader_went_away_fails_with_epipe, .timeout = 10)
{
	char *dir = make_tmpdir(), *fifo = path_in(dir, "fifo");
	struct outfile *of;
	int rd;

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	cr_assert_geq(rd, 0);
	cr_assert_eq(outfile__open(fifo, &of, NULL), 0);
	close(rd);
	write_to(of, "nobody reads this\n");
	cr_assert_eq(outfile__commit(of), -EPIPE);
	free(fifo);
	rm_rf(dir);
}

/* Someone else's FIFO where root writes a profile would hand it to them. */
Test(outfile, fifo_of_another_user_is_refused, .timeout = 10)
{
	char *dir = make_tmpdir(), *fifo = path_in(dir, "fifo");
	struct outfile_diag diag;
	struct outfile *of;

	cr_assert_eq(mkfifo(fifo, 0666), 0);
	cr_assert_eq(chown(fifo, OTHER_UID, OTHER_UID), 0);
	cr_assert_eq(outfile__check(fifo, 0, &diag), -EPERM);
	cr_assert_eq(outfile__open(fifo, &of, &diag), -EPERM);
	cr_assert_str_eq(diag.msg, "is a FIFO owned by uid 65534");
	free(fifo);
	rm_rf(dir);
}

/*
 * What /dev/stdout is: a link of root's to /proc/self/fd/1, which the
 * kernel follows to the pipe. Here a link to our end of a pipe.
 */
Test(outfile, link_to_proc_self_fd_writes_to_that_descriptor, .timeout = 10)
{
	char *dir = make_tmpdir(), target[64], *link, buf[64];
	struct outfile *of;
	int p[2];
	ssize_t n;

	/* nonblocking reads: nothing in the pipe fails the test, not hangs it */
	cr_assert_eq(pipe2(p, O_NONBLOCK), 0);
	cr_assert_eq(fcntl(p[1], F_SETFL, 0), 0);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", p[1]);
	link = symlink_owned(dir, "stdout", target, 0);
	cr_assert_eq(outfile__check(link, 0, NULL), 0);
	cr_assert_eq(outfile__open(link, &of, NULL), 0);
	write_to(of, "to the pipe\n");
	cr_assert_eq(outfile__commit(of), 0);
	n = read(p[0], buf, sizeof(buf) - 1);
	cr_assert_eq(n, 12);
	buf[n] = '\0';
	cr_assert_str_eq(buf, "to the pipe\n");
	assert_is_link(link, target);
	/* our descriptor is as it was: still blocking, still open */
	cr_assert_eq(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	close(p[0]);
	close(p[1]);
	free(link);
	rm_rf(dir);
}

Test(outfile, new_files_are_private)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "new.pb.gz");
	struct outfile *of;
	struct stat sb;

	umask(022);
	cr_assert_eq(outfile__open(path, &of, NULL), 0);
	cr_assert_eq(stat(outfile__tmp_path(of), &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600, "temporary file mode %o", sb.st_mode & 0777);
	write_to(of, "data\n");
	cr_assert_eq(outfile__commit(of), 0);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600, "new file mode %o", sb.st_mode & 0777);
	free(path);
	rm_rf(dir);
}

/*
 * A file of our own keeps its bits, past the umask (the owner chose them);
 * another user's file is replaced by one of ours, private.
 */
Test(outfile, replaced_file_keeps_its_mode_if_ours)
{
	char *dir = make_tmpdir(), *mine = write_in(dir, "mine", "old\n");
	char *theirs = write_in(dir, "theirs", "old\n");
	struct outfile *of;
	struct stat sb;

	umask(077);
	cr_assert_eq(chmod(mine, 0644), 0);
	cr_assert_eq(outfile__open(mine, &of, NULL), 0);
	write_to(of, "new\n");
	cr_assert_eq(outfile__commit(of), 0);
	cr_assert_eq(stat(mine, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0644, "mode %o", sb.st_mode & 07777);

	cr_assert_eq(chown(theirs, OTHER_UID, OTHER_UID), 0);
	cr_assert_eq(chmod(theirs, 0664), 0);
	umask(022);
	cr_assert_eq(outfile__open(theirs, &of, NULL), 0);
	write_to(of, "new\n");
	cr_assert_eq(outfile__commit(of), 0);
	cr_assert_eq(stat(theirs, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600, "mode %o", sb.st_mode & 0777);
	cr_assert_eq(sb.st_uid, 0);
	free(theirs);
	free(mine);
	rm_rf(dir);
}

/* --- outfile__check: before sampling ----------------------------------- */

Test(outfile, check_finds_a_missing_directory_and_leaves_nothing)
{
	char *dir = make_tmpdir(), *path, want[4200];
	struct outfile_diag diag;

	cr_assert_neq(asprintf(&path, "%s/missing/p.folded", dir), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), -ENOENT);
	cr_assert_str_eq(diag.path, path);
	snprintf(want, sizeof(want), "'%s/missing': No such file or directory", dir);
	cr_assert_str_eq(diag.msg, want);
	free(path);

	/* a directory that is there: checked by creating a file, removed again */
	cr_assert_neq(asprintf(&path, "%s/p.folded", dir), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), 0, "%s", diag.msg);
	cr_assert_eq(count_entries(dir), 0, "check left a file behind");
	free(path);
	rm_rf(dir);
}

/* The directory part of a pattern is checked as expanded at the start. */
Test(outfile, check_expands_the_pattern_at_the_given_time)
{
	char *dir = make_tmpdir(), *pattern, *year;
	struct outfile_diag diag;

	use_fixed_zone();
	cr_assert_neq(asprintf(&pattern, "%s/%%Y/%%H%%M%%S.folded", dir), -1);
	cr_assert_eq(outfile__check(pattern, 0, &diag), -ENOENT);
	cr_assert(ends_with(diag.path, "/1970/020000.folded"), "'%s'", diag.path);
	assert_msg(&diag, "/1970': No such file or directory");
	year = path_in(dir, "1970/x");
	cr_assert_eq(outfile__check(pattern, 0, &diag), 0, "%s", diag.msg);
	free(year);
	free(pattern);
	rm_rf(dir);
}

/*
 * A read-only file system, which access(2) may not tell root about: the
 * check creates a file and says why it cannot. In a mount namespace of
 * the test's own; skipped where mounting is not allowed.
 */
Test(outfile, check_finds_a_read_only_directory)
{
	char *dir = make_tmpdir(), *path;
	struct outfile_diag diag;

	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", dir, "tmpfs", MS_RDONLY, "size=64k")) {
		rm_rf(dir);
		skip_unless_ci("cannot mount a tmpfs here: %s", strerror(errno));
	}
	cr_assert_neq(asprintf(&path, "%s/p.folded", dir), -1);
	cr_assert_eq(outfile__check(path, 0, &diag), -EROFS);
	assert_msg(&diag, "Read-only file system");
	umount(dir);
	free(path);
	rm_rf(dir);
}
