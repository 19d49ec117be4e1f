// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_stat.c - a process's state from a fake /proc/PID/stat, and
 * from the real one of this process and of a zombie child.
 */
#include <signal.h>
#include <sys/wait.h>

#include "proc_stat.h"
#include "test_util.h"

static char *tmp;

static void fake_proc(void)
{
	tmp = make_tmpdir();
}

static void drop_proc(void)
{
	rm_rf(tmp);
}

static void write_stat(pid_t pid, const char *text)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
	free(write_in(tmp, rel, text));
}

TestSuite(proc_stat, .init = fake_proc, .fini = drop_proc);

Test(proc_stat, state_after_the_last_parenthesis)
{
	char state = 0;

	write_stat(10, "10 (sleepy) S 1 10 10 0 -1\n");
	cr_assert_eq(proc_stat__state(tmp, 10, &state), 0);
	cr_assert_eq(state, 'S');
	/* a comm that looks like the end of one: ") Z " inside it */
	write_stat(11, "11 (a) Z (b) R 1 11 11 0 -1\n");
	cr_assert_eq(proc_stat__state(tmp, 11, &state), 0);
	cr_assert_eq(state, 'R');
	cr_assert(!proc_stat__ended(tmp, 11));
}

Test(proc_stat, zombies_dead_and_missing_processes_have_ended)
{
	write_stat(20, "20 (z) Z 1 20 20 0 -1\n");
	write_stat(21, "21 (x) X 1 21 21 0 -1\n");
	write_stat(22, "22 (r) R 1 22 22 0 -1\n");
	cr_assert(proc_stat__ended(tmp, 20));
	cr_assert(proc_stat__ended(tmp, 21));
	cr_assert(!proc_stat__ended(tmp, 22));
	cr_assert(proc_stat__ended(tmp, 23), "no such pid");
	cr_assert(proc_stat__all_ended(tmp, (pid_t[]){ 20, 21, 23 }, 3));
	cr_assert(!proc_stat__all_ended(tmp, (pid_t[]){ 20, 22 }, 2));
	cr_assert(!proc_stat__all_ended(tmp, NULL, 0), "no targets: never all ended");
}

Test(proc_stat, a_file_that_is_no_stat_is_an_error_not_an_end)
{
	char state;

	write_stat(30, "30 (cut");
	write_stat(31, "");
	cr_assert_eq(proc_stat__state(tmp, 30, &state), -EINVAL);
	cr_assert_eq(proc_stat__state(tmp, 31, &state), -EINVAL);
	cr_assert_eq(proc_stat__state(tmp, 32, &state), -ENOENT);
	cr_assert(!proc_stat__ended(tmp, 30));
}

Test(proc_stat, the_real_proc)
{
	pid_t child;
	char state;

	cr_assert_eq(proc_stat__state("/proc", getpid(), &state), 0);
	cr_assert_eq(state, 'R');
	child = fork();
	cr_assert_neq(child, -1);
	if (!child)
		_exit(0);
	/* not reaped yet: a zombie once it has exited */
	for (int i = 0; i < 500 && !proc_stat__ended("/proc", child); i++)
		usleep(10000);
	cr_assert(proc_stat__ended("/proc", child));
	cr_assert_eq(waitpid(child, NULL, 0), child);
	cr_assert(proc_stat__ended("/proc", child), "reaped: gone");
}
