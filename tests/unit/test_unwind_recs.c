// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind_recs.c - the worker's records of processes (proc_recs.h):
 * let go as their processes go, so that process churn over a long run
 * leaves as many records as there are live processes; how a process
 * gone had its tables is still told for the last ones gone.
 */
#include "unwind_fixture.h"

TestSuite(unwind_recs, .init = fake_proc_setup, .fini = teardown);

static uint64_t records(void)
{
	struct unwind_procs_stats st;

	unwind_procs__stats(u, &st);
	return st.records;
}

/*
 * Short-lived processes one after the other, the sweep now and then as
 * the worker runs it: the records are those of the processes alive and
 * of the ones gone since the last sweep, not one per pid ever met.
 */
Test(unwind_recs, records_stay_bounded_under_process_churn)
{
	enum { PROCS = 400, SWEEP_EVERY = 16, LIVE = 3 };
	struct unwind_procs_stats st;
	uint64_t most = 0;

	start(1 << 16);
	for (int i = 0; i < PROCS; i++) {
		int pid = 1000 + i;
		char *maps = NULL;

		map_file(&maps, pid, FIXTURE_UNWIND, EXE_BIAS);
		add_process(pid, maps);
		free(maps);
		/* a few stay alive a while */
		if (i >= LIVE)
			process_gone(pid - LIVE);
		if (i % SWEEP_EVERY == SWEEP_EVERY - 1)
			unwind_procs__sweep(u);
		if (records() > most)
			most = records();
	}
	unwind_procs__sweep(u);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.records, LIVE, "%llu records for %d live processes",
		     (unsigned long long)st.records, LIVE);
	cr_assert_leq(most, SWEEP_EVERY + LIVE, "%llu records at most", (unsigned long long)most);
	cr_assert_eq(st.records_gone, PROCS - LIVE);
	/* the live ones are untouched */
	for (int pid = 1000 + PROCS - LIVE; pid < 1000 + PROCS; pid++)
		cr_assert(unwind_procs__published(u, pid));
}

/* A process gone is still told as published; one whose reading found it gone, as gone. */
Test(unwind_recs, how_a_process_gone_went_is_kept)
{
	struct unwind_pid_status st;
	char *maps = NULL;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	process_gone(100);
	unwind_procs__sweep(u);
	cr_assert_eq(records(), 0);
	unwind_procs__status(u, 100, &st);
	cr_assert_eq(st.err, 0);
	cr_assert(st.published);
	cr_assert_not(st.forgotten);
	/* no /proc/101: gone before its reading, let go at once */
	cr_assert_eq(unwind_procs__add_pid(u, 101), -ESRCH);
	cr_assert_eq(records(), 0);
	unwind_procs__status(u, 101, &st);
	cr_assert_eq(st.err, -ESRCH);
	cr_assert_not(st.published);
	/* never met */
	unwind_procs__status(u, 102, &st);
	cr_assert_eq(st.err, -ENOENT);
	cr_assert_not(st.forgotten);
	free(maps);
}

/*
 * A live process whose entry an exec deleted keeps its record (its
 * reading let go); a pid another process has now does not.
 */
Test(unwind_recs, records_of_live_processes_stay)
{
	struct unwind_pid_status st;
	char *maps = NULL;
	__u32 key = 100;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	map_file(&maps, 101, FIXTURE_UNWIND, EXE_BIAS);
	add_process(101, maps);
	/* 100 exec'd: on_exec deleted its entry */
	bpf_map_delete_elem(procs_fd, &key);
	/* 101's pid is another process's now */
	fake_stat(proc_root, 101, 'S', FAKE_START_TIME + 1);
	cr_assert_eq(unwind_procs__sweep(u), 1);
	cr_assert_eq(records(), 1);
	unwind_procs__status(u, 100, &st);
	cr_assert(st.published);
	free(maps);
}
