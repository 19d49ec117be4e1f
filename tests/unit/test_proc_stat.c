// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_stat.c - a process's state from a fake /proc/PID/stat, and
 * from the real one of this process and of a zombie child; whose it is
 * and its own pid from a fake /proc/PID/status and from ours.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "common/proc_stat.h"
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

/* start_time and vsize after a comm that holds ") 1 2 3": the fields after the last ')' */
Test(proc_stat, start_time_and_vsize_after_any_comm)
{
	struct proc_stat_info info;

	write_stat(40, "40 (a) 1 2 3) R 1 40 40 0 -1 4194560 100 0 0 0 5 1 0 0 20 0 1 0 "
		       "777 123456 100 18446744073709551615\n");
	cr_assert_eq(proc_stat__read(tmp, 40, &info), 0);
	cr_expect_eq(info.state, 'R');
	cr_expect_eq(info.start_time, 777);
	cr_expect_eq(info.vsize, 123456);
	/* cut before vsize: not a stat */
	write_stat(41, "41 (a) R 1 41 41 0 -1 4194560 100 0 0 0 5 1 0 0 20 0 1 0 777\n");
	cr_expect_eq(proc_stat__read(tmp, 41, &info), -EINVAL);
}

/* This process's vsize grows by what it maps, and its start time stays. */
Test(proc_stat, vsize_follows_the_mappings)
{
	struct proc_stat_info before, after;
	size_t len = 64 << 20;
	void *m;

	cr_assert_eq(proc_stat__read("/proc", getpid(), &before), 0);
	m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	cr_assert_eq(proc_stat__read("/proc", getpid(), &after), 0);
	munmap(m, len);
	cr_expect_eq(after.start_time, before.start_time);
	cr_expect_geq(after.vsize, before.vsize + len);
}

static void write_status(pid_t pid, const char *text)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/status", (int)pid);
	free(write_in(tmp, rel, text));
}

/* Whose a process is, and its pid in its own namespace: the innermost NSpid. */
Test(proc_stat, status_gives_every_uid_and_the_innermost_pid)
{
	struct proc_status st;
	uid_t uid = 0;

	write_status(50, "Name:\tjava\nPid:\t50\nUid:\t1000\t1001\t1002\t1003\n"
			 "Gid:\t1000\t1000\t1000\t1000\nNSpid:\t50\t7\t1\n");
	cr_assert_eq(proc_stat__status(tmp, 50, &st), 0);
	cr_expect_eq(st.nr_uids, 4);
	cr_expect_eq(st.uids[0], 1000);
	cr_expect_eq(st.uids[3], 1003);
	cr_expect_eq(st.nspid, 1);
	cr_assert_eq(proc_stat__uid(tmp, 50, &uid), 0);
	cr_expect_eq(uid, 1000, "the real uid");
	/* no NSpid (a kernel before 4.1): the pid as we see it */
	write_status(51, "Name:\tx\nUid:\t5\t6\t7\t8\n");
	cr_assert_eq(proc_stat__status(tmp, 51, &st), 0);
	cr_expect_eq(st.nspid, 51);
	/* a bad NSpid field ends it: what came before stands */
	write_status(52, "Uid:\t5\t5\t5\t5\nNSpid:\t52\tx\t3\n");
	cr_assert_eq(proc_stat__status(tmp, 52, &st), 0);
	cr_expect_eq(st.nspid, 52);
}

Test(proc_stat, status_without_uids_is_not_one)
{
	struct proc_status st;
	uid_t uid;

	write_status(60, "Name:\tx\nNSpid:\t60\n");
	cr_expect_eq(proc_stat__status(tmp, 60, &st), -EINVAL);
	write_status(61, "Uid:\tnobody\n");
	cr_expect_eq(proc_stat__status(tmp, 61, &st), -EINVAL);
	cr_expect_eq(proc_stat__uid(tmp, 61, &uid), -EINVAL);
	cr_expect_eq(proc_stat__status(tmp, 62, &st), -ENOENT, "no such process");
}

/* Our own status: our uid, and our pid (the tests do not run in a pid namespace of their own). */
Test(proc_stat, status_of_this_process)
{
	struct proc_status st;

	cr_assert_eq(proc_stat__status("/proc", getpid(), &st), 0);
	cr_expect_eq(st.nr_uids, 4);
	cr_expect_eq(st.uids[0], getuid());
	cr_expect_eq(st.uids[1], geteuid());
}
