// SPDX-License-Identifier: GPL-2.0
/*
 * test_command.c - profile -- CMD's command (collect/command.c): found as
 * the shell finds it, started only when told, its exit status as the
 * shell gives it.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/command.h"
#include "test_util.h"

static void make_file(const char *dir, const char *name, mode_t mode)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(write(fd, "#!/bin/sh\nexit 7\n", 17), 17);
	close(fd);
	cr_assert_eq(chmod(path, mode), 0);
}

Test(command, found_as_the_shell_finds_it)
{
	char *a = make_tmpdir(), *b = make_tmpdir(), path[8192], file[4096];

	make_file(a, "tool", 0644);	/* not executable here... */
	make_file(b, "tool", 0755);	/* ...but here, later in PATH */
	make_file(a, "plain", 0644);
	snprintf(path, sizeof(path), "%s:%s", a, b);
	cr_assert_eq(command__check("tool", path), 0);
	cr_assert_eq(command__check("plain", path), -EACCES);
	cr_assert_eq(command__check("nosuch", path), -ENOENT);
	cr_assert_eq(command__check("", path), -ENOENT);
	/* with a slash: that file, PATH not looked at */
	snprintf(file, sizeof(file), "%s/tool", a);
	cr_assert_eq(command__check(file, path), -EACCES);
	snprintf(file, sizeof(file), "%s/tool", b);
	cr_assert_eq(command__check(file, ""), 0);
	cr_assert_eq(command__check(a, path), -EISDIR);
	snprintf(file, sizeof(file), "%s/nosuch", a);
	cr_assert_eq(command__check(file, path), -ENOENT);
	/* an empty PATH element is the current directory */
	cr_assert_eq(chdir(b), 0);
	cr_assert_eq(command__check("tool", ":/nonexistent"), 0);
	cr_assert_eq(command__check("tool", "/nonexistent"), -ENOENT);
	rm_rf(a);
	rm_rf(b);
}

/* It runs only once started, then its status is the shell's. */
Test(command, waits_then_runs_and_exits)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct command c;

	cr_assert_eq(command__spawn(&c, argv), 0);
	cr_assert_gt(c.pid, 0);
	usleep(100000);
	cr_assert_eq(command__poll(&c), 0, "ran before command__start()");
	cr_assert_eq(command__start(&c), 0);
	while (!command__poll(&c))
		usleep(10000);
	cr_assert_eq(c.pid, 0);
	cr_assert_eq(command__exit_code(c.status), 3);
	command__release(&c);
}

Test(command, exec_failure_is_its_errno)
{
	char *argv[] = { "/nonexistent/tool", NULL };
	struct command c;

	cr_assert_eq(command__spawn(&c, argv), 0);
	cr_assert_eq(command__start(&c), -ENOENT);
	while (!command__poll(&c))
		usleep(10000);
	cr_assert_eq(command__exit_code(c.status), COMMAND_NOT_FOUND);
	command__release(&c);
}

/* Released unstarted, it exits without running; stopped, it is killed and reaped. */
Test(command, release_and_stop)
{
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	char *sleeper[] = { "sleep", "30", NULL };
	struct command c;

	cr_assert_eq(command__spawn(&c, argv), 0);
	command__release(&c);
	cr_assert_eq(command__exit_code(c.status), COMMAND_NOT_EXECUTABLE);
	cr_assert_eq(command__spawn(&c, sleeper), 0);
	cr_assert_eq(command__start(&c), 0);
	cr_assert_eq(command__stop(&c, SIGTERM, 5000), 0);
	cr_assert_eq(c.pid, 0);
	cr_assert_eq(command__exit_code(c.status), 128 + SIGTERM);
	command__release(&c);
}

Test(command, exit_codes_as_the_shell)
{
	cr_assert_eq(command__exit_code(0), 0);
	cr_assert_eq(command__exit_code(3 << 8), 3);
	cr_assert_eq(command__exit_code(SIGKILL), 137);
	cr_assert_eq(command__exit_code(SIGINT | 0x80), 130);	/* core dumped too */
}
