// SPDX-License-Identifier: GPL-2.0
/*
 * test_perfmap.c - /tmp/perf-PID.map: the line format (hex with or
 * without 0x, names with spaces), overlapping entries, malformed lines,
 * and the checks on a live process's file (owner, symlink, namespace pid,
 * refresh only when it changed).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fake_proc.h"
#include "symbols/perfmap.h"
#include "sym_fixtures.h"

TestSuite(perfmap, .init = fake_proc_setup, .fini = fake_proc_teardown);

static struct perfmap *load_text(const char *text)
{
	struct perfmap *pm = perfmap__load_buf(text, strlen(text));

	cr_assert_not_null(pm, "%s", strerror(errno));
	return pm;
}

static void assert_name(const struct perfmap *pm, uint64_t addr, const char *name)
{
	const struct perfmap_sym *s = perfmap__find(pm, addr);

	if (!name) {
		cr_assert_null(s, "%#" PRIx64 " resolved to '%s'", addr, s ? s->name : "");
		return;
	}
	cr_assert_not_null(s, "%#" PRIx64 " (want %s): not found", addr, name);
	cr_assert_str_eq(s->name, name, "%#" PRIx64, addr);
}

Test(perfmap, hex_with_and_without_0x)
{
	struct perfmap *pm = load_text("7f0000001000 100 LazyCompile:*foo bar.js:1\n"
				       "0x7f0000002000 0x20 Interpreter\n"
				       "7F0000003000 10 upper\n");

	cr_assert_eq(perfmap__count(pm), 3);
	assert_name(pm, 0x7f0000001000, "LazyCompile:*foo bar.js:1");
	assert_name(pm, 0x7f00000010ff, "LazyCompile:*foo bar.js:1");
	assert_name(pm, 0x7f0000001100, NULL);
	assert_name(pm, 0x7f0000002010, "Interpreter");
	assert_name(pm, 0x7f0000002020, NULL);
	assert_name(pm, 0x7f000000300f, "upper");
	assert_name(pm, 0x7f0000000fff, NULL);
	cr_assert_eq(perfmap__find(pm, 0x7f0000001010)->start, 0x7f0000001000);
	cr_assert_eq(perfmap__find(pm, 0x7f0000001010)->size, 0x100);
	perfmap__free(pm);
}

Test(perfmap, malformed_lines_are_skipped)
{
	struct perfmap *pm = load_text("\n"
				       "garbage\n"
				       "1000\n"
				       "1000 10\n"			/* no name */
				       "1000 0 zero_size\n"
				       "zz00 10 bad_hex\n"
				       "1000 10name_glued\n"
				       "ffffffffffffff00 1000 wraps\n"
				       "11112222333344445 10 too_long\n"
				       "2000 10 good\r\n"
				       "3000 10 last_without_newline");

	cr_assert_eq(perfmap__count(pm), 2);
	assert_name(pm, 0x2008, "good");
	assert_name(pm, 0x3000, "last_without_newline");
	assert_name(pm, 0x1008, NULL);
	perfmap__free(pm);
}

Test(perfmap, newest_of_overlapping_entries_wins)
{
	/* code at 0x1000 freed, its memory reused: the later line is right */
	struct perfmap *pm = load_text("1000 100 old_big\n"
				       "1040 10 new_small\n"
				       "1000 20 newest_at_start\n");

	assert_name(pm, 0x1000, "newest_at_start");
	assert_name(pm, 0x101f, "newest_at_start");
	assert_name(pm, 0x1020, "old_big");
	assert_name(pm, 0x1045, "new_small");
	assert_name(pm, 0x1050, "old_big");	/* an older, larger entry still covers it */
	assert_name(pm, 0x10ff, "old_big");
	assert_name(pm, 0x1100, NULL);
	perfmap__free(pm);
}

Test(perfmap, empty_map_finds_nothing)
{
	struct perfmap *pm = load_text("");

	cr_assert_eq(perfmap__count(pm), 0);
	assert_name(pm, 0x1000, NULL);
	assert_name(NULL, 0x1000, NULL);
	perfmap__free(pm);
}

Test(perfmap, file_form)
{
	char *path = write_in(tmp, "perf-1.map", "1000 10 from_file\n");
	struct perfmap *pm = perfmap__load_file(path);

	cr_assert_not_null(pm);
	assert_name(pm, 0x1001, "from_file");
	perfmap__free(pm);
	free(path);
}

/* A fake process: pid 42, pid 7 in its own namespace, root under tmp/root. */
static char *fake_jit(unsigned int uid, const char *map)
{
	char *root = path_in(tmp, "root/x"), *path = NULL;

	root[strlen(root) - 2] = '\0';
	fake_process(proc_root, 42, "", uid, 7, root);
	if (map)
		path = write_in(root, "tmp/perf-7.map", map);
	free(root);
	return path;
}

Test(perfmap, live_process_uses_its_namespace_pid_and_root)
{
	struct perfmap *pm = NULL;

	free(fake_jit(getuid(), "7f0000001000 40 jit_hot\n"));
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	cr_assert_not_null(pm);
	assert_name(pm, 0x7f0000001010, "jit_hot");
	perfmap__free(pm);
}

Test(perfmap, file_of_another_user_is_refused)
{
	struct perfmap *pm = NULL;
	char *path;

	/* the process runs as 4242; the file is ours (or, as root, 4343's) */
	path = fake_jit(4242, "7f0000001000 40 planted\n");
	if (geteuid() == 0)
		cr_assert_eq(chown(path, 4343, 4343), 0);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), -EPERM);
	cr_assert_null(pm);
	free(path);
}

/*
 * A user can bind-mount a root-only file over their own map in a user
 * namespace: a root-owned map is read only for a process running as root.
 */
Test(perfmap, root_owned_file_is_refused_for_a_user_process)
{
	struct perfmap *pm = NULL;
	char *path;

	if (geteuid() != 0)
		skip_unless_ci("only root can make a root-owned file");
	path = fake_jit(4242, "7f0000001000 40 by_root\n");
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), -EPERM);
	cr_assert_null(pm);
	free(path);
}

Test(perfmap, root_owned_file_is_accepted_for_a_root_process)
{
	struct perfmap *pm = NULL;
	char *path;

	if (geteuid() != 0)
		skip_unless_ci("only root can make a root-owned file");
	path = fake_jit(0, "7f0000001000 40 by_root\n");
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	assert_name(pm, 0x7f0000001000, "by_root");
	perfmap__free(pm);
	free(path);
}

/*
 * A root-owned map with a second name is a hard link anyone could have
 * made to a root file (protected_hardlinks=0): refused, as a symlink with
 * two names is not followed.
 */
Test(perfmap, root_owned_file_with_two_names_is_refused)
{
	struct perfmap *pm = NULL;
	char *path, *other;

	if (geteuid() != 0)
		skip_unless_ci("only root can make a root-owned file");
	path = fake_jit(0, "7f0000001000 40 by_root\n");
	other = path_in(tmp, "root-file");
	cr_assert_eq(link(path, other), 0, "%s", strerror(errno));
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), -EPERM);
	cr_assert_null(pm);
	/* the same file with one name again is read */
	cr_assert_eq(unlink(other), 0);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	assert_name(pm, 0x7f0000001000, "by_root");
	perfmap__free(pm);
	free(other);
	free(path);
}

/* Over the entry budget the whole map is refused, never half read. */
Test(perfmap, entries_over_budget_are_refused)
{
	struct budget b = BUDGET_DEFAULT_INIT;
	char *path = write_in(tmp, "big.map", "1000 10 a\n2000 10 b\n3000 10 c\n");
	struct perfmap *pm;
	struct stat sb;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &sb), 0);
	b.max_perfmap_entries = 2;
	pm = perfmap__load_fd(fd, &sb, &b);
	cr_assert_null(pm);
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), "more than 2 entries"), "why: %s", budget__why());
	b.max_perfmap_entries = 3;
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	pm = perfmap__load_fd(fd, &sb, &b);
	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__count(pm), 3);
	perfmap__free(pm);
	b.max_perfmap_bytes = 10;
	pm = perfmap__load_fd(fd, &sb, &b);
	cr_assert_null(pm);
	cr_assert_eq(errno, EFBIG);
	close(fd);
	free(path);
}

/* Lines longer than the read buffer are skipped; the lines around them count. */
Test(perfmap, line_longer_than_a_chunk_is_skipped)
{
	size_t big = (1u << 20) + 100;
	char *text = malloc(big + 64), *path;
	struct perfmap *pm;
	struct stat sb;
	int fd;

	strcpy(text, "1000 10 before\n2000 10 ");
	memset(text + strlen(text), 'x', big);
	strcpy(text + strlen("1000 10 before\n2000 10 ") + big, "\n3000 10 after\n");
	path = write_in(tmp, "long.map", text);
	fd = open(path, O_RDONLY);
	cr_assert_eq(fstat(fd, &sb), 0);
	pm = perfmap__load_fd(fd, &sb, NULL);
	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__count(pm), 2);
	assert_name(pm, 0x1004, "before");
	assert_name(pm, 0x3004, "after");
	perfmap__free(pm);
	close(fd);
	free(path);
	free(text);
}

Test(perfmap, symlink_is_refused)
{
	struct perfmap *pm = NULL;
	char *target = write_in(tmp, "elsewhere.map", "7f0000001000 40 via_link\n");
	char *link = path_in(tmp, "root/tmp/perf-7.map");

	cr_assert_eq(symlink(target, link), 0);
	*strrchr(link, '/') = '\0';
	*strrchr(link, '/') = '\0';	/* tmp/root */
	fake_process(proc_root, 42, "", getuid(), 7, link);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), -EPERM);
	cr_assert_null(pm);
	free(target);
	free(link);
}

Test(perfmap, fifo_is_refused_without_blocking)
{
	struct perfmap *pm = NULL;
	char *root = path_in(tmp, "root/tmp/perf-7.map");

	cr_assert_eq(mkfifo(root, 0600), 0);
	*strrchr(root, '/') = '\0';
	*strrchr(root, '/') = '\0';
	fake_process(proc_root, 42, "", getuid(), 7, root);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), -EPERM);
	free(root);
}

Test(perfmap, missing_map_and_gone_process)
{
	struct perfmap *pm = NULL;

	free(fake_jit(getuid(), NULL));
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), -ENOENT);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 4444), -ESRCH);
	cr_assert_null(pm);
}

Test(perfmap, refresh_rereads_only_a_changed_file)
{
	struct perfmap *pm = NULL, *first;
	struct timeval later[2];
	char *path;
	FILE *f;

	path = fake_jit(getuid(), "7f0000001000 40 first\n");
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	first = pm;
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	cr_assert_eq(pm, first, "an unchanged map was read again");
	/* the JIT appends; bump mtime too, in case the clock is coarse */
	f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs("7f0000002000 40 second\n", f);
	fclose(f);
	gettimeofday(&later[0], NULL);
	later[0].tv_sec += 10;
	later[1] = later[0];
	cr_assert_eq(utimes(path, later), 0);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	assert_name(pm, 0x7f0000001000, "first");
	assert_name(pm, 0x7f0000002000, "second");
	perfmap__free(pm);
	free(path);
}

/* Rewritten in place to the same size, its old mtime put back: ctime tells. */
Test(perfmap, refresh_rereads_a_file_whose_mtime_was_put_back)
{
	struct perfmap *pm = NULL;
	struct timespec times[2] = { { .tv_nsec = UTIME_OMIT } };
	struct stat before;
	char *path;

	path = fake_jit(getuid(), "7f0000001000 40 aaaaa\n");
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	assert_name(pm, 0x7f0000001000, "aaaaa");
	cr_assert_eq(stat(path, &before), 0);
	usleep(20 * 1000);
	write_text(path, "7f0000001000 40 bbbbb\n");
	times[1] = before.st_mtim;
	cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
	cr_assert_eq(perfmap__refresh_pid(&pm, proc_root, 42), 0);
	assert_name(pm, 0x7f0000001000, "bbbbb");
	perfmap__free(pm);
	free(path);
}
