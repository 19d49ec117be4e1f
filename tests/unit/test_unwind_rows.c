// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind_rows.c - the rows array shared by every process's tables:
 * rows that no published entry points at are reclaimed for another
 * table (never rows in use), the BPF side's copies of rows made stale
 * before rows are used again, and each uid but root held to a quota.
 */
#include "unwind/row_alloc.h"
#include "unwind_fixture.h"

TestSuite(unwind_rows, .init = fake_proc_setup, .fini = teardown);

/* pid exits, and the sweep sees it. */
static void process_exits(int pid)
{
	process_gone(pid);
	unwind_procs__sweep(u);
}

/* A process pid of uid's mapping path alone; its one mapping. */
static struct unwind_proc *run_one(int pid, unsigned int uid, const char *path)
{
	struct unwind_proc *p;
	char *maps = NULL;

	map_file(&maps, pid, path, EXE_BIAS);
	add_process_as(pid, maps, uid);
	free(maps);
	p = must_entry(pid);
	cr_assert_eq(p->nr, 1);
	return p;
}

/*
 * Room for one table: a second file finds none while the first one's
 * process lives, and its rows once that process is gone; the rows taken
 * again move rows_epoch on. The first file, met again, is loaded again.
 */
Test(unwind_rows, rows_no_entry_points_at_are_reclaimed)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;

	start(rows_taken(FIXTURE_UNWIND));
	p = run_one(100, 0, FIXTURE_UNWIND);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	free(p);
	p = run_one(101, 0, FIXTURE_LIB);
	cr_assert_eq(p->maps[0].nr_rows, 0, "rows in use taken");
	free(p);
	p = must_entry(100);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	free(p);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.no_room, 1);
	cr_assert_eq(st.reclaimed, 0);
	cr_assert_eq(rows_epoch, 0);

	process_exits(100);
	p = run_one(102, 0, FIXTURE_LIB);
	assert_rows_are(&p->maps[0], FIXTURE_LIB);
	cr_assert_eq(p->maps[0].first_row, 0);
	free(p);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.reclaimed, 1);
	cr_assert_eq(st.reclaimed_rows, rows_taken(FIXTURE_UNWIND));
	cr_assert_eq(rows_epoch, 1, "rows written again without moving rows_epoch on");

	process_exits(101);
	process_exits(102);
	p = run_one(103, 0, FIXTURE_UNWIND);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	free(p);
	/* built again: the library's table twice (no room, then room), this one twice */
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 4, "built %llu", (unsigned long long)st.built);
	cr_assert_eq(rows_epoch, 2);
}

/* Rows no process maps any more stay loaded while nothing needs them: no second build. */
Test(unwind_rows, idle_rows_serve_the_file_met_again)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;

	start(1 << 16);
	free(run_one(100, 0, FIXTURE_UNWIND));
	process_exits(100);
	p = run_one(101, 0, FIXTURE_UNWIND);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	free(p);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 1);
	cr_assert_eq(st.reclaimed, 0);
	cr_assert_eq(rows_epoch, 0);
}

/*
 * A user's quota reached: their next file gets no table, said with the
 * uid; root's process mapping that file gets its table, and the user's
 * copy then shares root's rows.
 */
Test(unwind_rows, a_uid_past_its_quota_gets_none_and_root_still_does)
{
	struct notices seen = { 0 };
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = NULL;

	start(1 << 16);
	unwind_procs__set_row_quota(u, rows_taken(FIXTURE_UNWIND));
	unwind_procs__set_notice(u, on_notice, &seen);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	add_process_as(100, maps, 1000);
	free(maps);
	p = must_entry(100);
	cr_assert_eq(p->nr, 2);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	cr_assert_eq(p->maps[1].nr_rows, 0, "over its quota, uid 1000 got rows");
	free(p);
	cr_assert_eq(seen.n, 1);
	cr_assert_str_eq(seen.path, FIXTURE_LIB);
	cr_assert(strstr(seen.why, "uid 1000") && strstr(seen.why, "quota"), "%s", seen.why);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.over_quota, 1);
	cr_assert_eq(st.over_quota_uid, 1000);
	cr_assert_eq(st.no_room, 0);

	p = run_one(101, 0, FIXTURE_LIB);
	assert_rows_are(&p->maps[0], FIXTURE_LIB);
	free(p);
	/* a process of uid 1000 met later shares root's rows of it */
	maps = NULL;
	map_file(&maps, 102, FIXTURE_LIB, LIB_BIAS);
	add_process_as(102, maps, 1000);
	free(maps);
	p = must_entry(102);
	assert_rows_are(&p->maps[0], FIXTURE_LIB);
	free(p);
}

/* At its quota, a uid's own tables no process maps go first; another uid's stay. */
Test(unwind_rows, a_uid_at_its_quota_reclaims_its_own_idle_rows)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;

	start(1 << 16);
	unwind_procs__set_row_quota(u, rows_taken(FIXTURE_UNWIND));
	free(run_one(100, 0, FIXTURE_PIE));
	process_exits(100);
	free(run_one(101, 1000, FIXTURE_UNWIND));
	process_exits(101);
	p = run_one(102, 1000, FIXTURE_LIB);
	assert_rows_are(&p->maps[0], FIXTURE_LIB);
	free(p);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.reclaimed, 1);
	cr_assert_eq(st.reclaimed_rows, rows_taken(FIXTURE_UNWIND));
	/* root's idle table is still there: no build for it */
	free(run_one(103, 0, FIXTURE_PIE));
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 3);
}

/* The free ranges: best fit, merged with both neighbours, rows used before told apart. */
Test(unwind_rows, free_ranges_are_merged_and_reused)
{
	struct row_alloc *a = row_alloc__new(100, 0);
	uint32_t x, y, z, w;
	bool reused;

	cr_assert_not_null(a);
	cr_assert_eq(row_alloc__take(a, 10, 0, &x, &reused), 0);
	cr_assert_eq(x, 0);
	cr_assert_not(reused);
	cr_assert_eq(row_alloc__take(a, 20, 0, &y, &reused), 0);
	cr_assert_eq(row_alloc__take(a, 30, 0, &z, &reused), 0);
	cr_assert_eq(z, 30);
	cr_assert_eq(row_alloc__take(a, 41, 0, &w, &reused), -ENOSPC);
	/* 10 and 30 free at 0 and 30: 8 goes where it fits best, the smaller */
	row_alloc__give(a, x, 10, 0);
	row_alloc__give(a, z, 30, 0);
	cr_assert_eq(row_alloc__take(a, 8, 0, &w, &reused), 0);
	cr_assert_eq(w, 0);
	cr_assert(reused);
	row_alloc__give(a, w, 8, 0);
	/* 0-10, then 10-30 given back between: one range with 30-100 */
	row_alloc__give(a, y, 20, 0);
	cr_assert_eq(row_alloc__used(a), 0);
	cr_assert_eq(row_alloc__take(a, 100, 0, &w, &reused), 0);
	cr_assert_eq(w, 0);
	row_alloc__free(a);
}

Test(unwind_rows, quota_is_per_uid_and_not_roots)
{
	struct row_alloc *a = row_alloc__new(100, 30);
	uint32_t x;
	bool reused;

	cr_assert_not_null(a);
	cr_assert_eq(row_alloc__take(a, 30, 1000, &x, &reused), 0);
	cr_assert_eq(row_alloc__take(a, 1, 1000, &x, &reused), -EDQUOT);
	cr_assert_eq(row_alloc__take(a, 30, 1001, &x, &reused), 0);
	cr_assert_eq(row_alloc__take(a, 40, 0, &x, &reused), 0);
	cr_assert_eq(row_alloc__held(a, 1000), 30);
	cr_assert_eq(row_alloc__held(a, 0), 40);
	row_alloc__give(a, 0, 30, 1000);
	cr_assert_eq(row_alloc__held(a, 1000), 0);
	cr_assert_eq(row_alloc__take(a, 1, 1000, &x, &reused), 0);
	cr_assert_eq(x, 0);
	cr_assert(reused);
	row_alloc__free(a);
}
