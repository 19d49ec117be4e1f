// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_procs_given.c - a Python process looked at from the reading of
 * its mappings the main thread made for its symbols
 * (py_procs__add_pid_maps): nothing of /proc read for it but the files
 * mapped, the generation standing for the checks /proc/PID/stat made; and
 * files met before known by their stamp, not opened again.
 */
#include "py_procs_fixture.h"

TestSuite(py_procs_given, .init = fake_proc_setup, .fini = teardown);

/*
 * The main thread's reading serves the look: found with neither
 * /proc/PID/maps nor /proc/PID/stat read (the fake process has none).
 */
Test(py_procs_given, a_reading_handed_over_is_all_the_look_reads)
{
	struct proc_maps m;
	struct py_procs_stats st;
	struct py_proc e;
	struct maps w;

	reset_gens();
	start_with(gen_of);
	running[110] = 7;
	maps_begin(&w, 110);
	maps_add_junk(&w, "junk", 3);
	maps_add_python(&w, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0");
	maps_end_reading(&w, &m);
	cr_assert_eq(py_procs__add_pid_maps(p, 110, 7, &m), 0);
	cr_assert(has_entry(110, &e));
	cr_expect_eq(e.gen, 7);
	cr_expect_eq(e.version, 0x030b05f0);
	st = stats();
	cr_expect_eq(st.given, 1);
	cr_expect_eq(st.read_self, 0);
	cr_expect_eq(st.procs, 1);
	cr_expect_eq(st.kept_procs, 1);
	/* announced again in the same generation: nothing new */
	cr_expect_eq(py_procs__add_pid_maps(p, 110, 7, &m), 0);
	cr_expect_eq(stats().given, 1);
	/* the look of its own needs /proc/PID/stat: it has none here */
	cr_expect_neq(py_procs__add_pid(p, 110), 0);
	cr_expect_eq(stats().read_self, 0);
	proc_maps__release(&m);
}

/* A reading of a generation the pid no longer runs (exit, exec, pid reused) is not looked at. */
Test(py_procs_given, a_reading_of_another_generation_is_refused)
{
	struct proc_maps m;
	struct py_proc e;
	struct maps w;

	reset_gens();
	start_with(gen_of);
	maps_begin(&w, 111);
	maps_add_python(&w, "/usr/bin/python3.11");
	maps_end_reading(&w, &m);
	/* gone: no generation */
	cr_expect_eq(py_procs__add_pid_maps(p, 111, 7, &m), -ESRCH);
	/* exec'd since the reading */
	running[111] = 8;
	cr_expect_eq(py_procs__add_pid_maps(p, 111, 7, &m), -ESRCH);
	cr_expect_eq(py_procs__add_pid_maps(p, 111, 0, &m), -ESRCH);
	cr_expect_not(has_entry(111, &e));
	cr_expect_eq(stats().given, 0);
	cr_expect_eq(stats().files, 0, "a file of a reading refused was read");
	/* the reading of the generation it runs is */
	cr_expect_eq(py_procs__add_pid_maps(p, 111, 8, &m), 0);
	cr_expect(has_entry(111, &e));
	proc_maps__release(&m);
}

/*
 * An exec while the look runs, after the check before it: the check after
 * the publish sees the new generation and takes the entry back (on_exec,
 * which deletes it after moving the generation on, may have run before
 * the placeholder was made).
 */
Test(py_procs_given, an_exec_during_the_look_leaves_no_entry)
{
	struct proc_maps m;
	struct py_procs_stats st;
	struct py_proc e;
	struct maps w;

	reset_gens();
	start_with(gen_of);
	running[112] = 7;
	maps_begin(&w, 112);
	maps_add_python(&w, "/usr/bin/python3.11");
	maps_end_reading(&w, &m);
	/* the first question is the check before the look; the next, after it, sees the exec */
	exec_pid = 112;
	exec_gen = 9;
	exec_after = 1;
	cr_expect_eq(py_procs__add_pid_maps(p, 112, 7, &m), -ESRCH);
	cr_expect_not(has_entry(112, &e), "an entry of the image before the exec stayed");
	st = stats();
	cr_expect_eq(st.kept_procs, 0);
	cr_expect_eq(st.kept_quiet, 0);
	/* the new image's reading, when it comes, is looked at */
	exec_after = -1;
	cr_expect_eq(py_procs__add_pid_maps(p, 112, 9, &m), 0);
	cr_expect(has_entry(112, &e));
	cr_expect_eq(e.gen, 9);
	proc_maps__release(&m);
}

/*
 * Without an interpreter, a process is looked at again only when its
 * mappings are not those looked at (the reading's digest stands for the
 * size /proc/PID/stat gave), or in another generation.
 */
Test(py_procs_given, a_reading_like_the_last_is_not_looked_at_again)
{
	struct proc_maps a, b;
	struct py_procs_stats st;
	struct py_proc e;
	struct maps w;

	reset_gens();
	start_with(gen_of);
	running[113] = 7;
	maps_begin(&w, 113);
	maps_add_junk(&w, "junk", 3);
	maps_end_reading(&w, &a);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(py_procs__add_pid_maps(p, 113, 7, &a), -ENOENT);
	st = stats();
	cr_expect_eq(st.given, 1);
	cr_expect_eq(st.unchanged, 3);
	cr_expect_eq(st.kept_quiet, 1);
	/* another generation, the same mappings: looked at */
	running[113] = 8;
	cr_expect_eq(py_procs__add_pid_maps(p, 113, 8, &a), -ENOENT);
	cr_expect_eq(stats().given, 2);
	/* libpython dlopen()ed: the reading differs, and it is found */
	maps_begin(&w, 113);
	maps_add_python(&w, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0");
	maps_end_reading(&w, &b);
	cr_expect_eq(py_procs__add_pid_maps(p, 113, 8, &b), 0);
	cr_expect(has_entry(113, &e));
	st = stats();
	cr_expect_eq(st.unchanged, 3);
	cr_expect_eq(st.kept_quiet, 0);
	proc_maps__release(&a);
	proc_maps__release(&b);
}

/*
 * A process without an interpreter (most of them) takes no entry, not
 * even for the time of its look: with the map full it is still looked at
 * and noted quiet, not refused for want of room (it was, when each look
 * put a placeholder first).
 */
Test(py_procs_given, a_process_without_python_takes_no_entry)
{
	struct py_proc zero = { 0 };
	struct py_procs_stats st;
	struct proc_maps m;
	struct py_proc e;
	struct maps w;

	reset_gens();
	start_with(gen_of);
	/* the fixture's map holds 16 */
	for (__u32 key = 300; key < 316; key++)
		cr_assert_eq(bpf_map_update_elem(procs_fd, &key, &zero, BPF_NOEXIST), 0);
	running[114] = 7;
	maps_begin(&w, 114);
	maps_add_junk(&w, "junk", 3);
	maps_end_reading(&w, &m);
	cr_expect_eq(py_procs__add_pid_maps(p, 114, 7, &m), -ENOENT);
	cr_expect_not(has_entry(114, &e));
	st = stats();
	cr_expect_eq(st.given, 1);
	cr_expect_eq(st.full, 0);
	cr_expect_eq(st.kept_quiet, 1);
	/* one with Python needs its room: told */
	maps_begin(&w, 114);
	maps_add_python(&w, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0");
	proc_maps__release(&m);
	maps_end_reading(&w, &m);
	cr_expect_eq(py_procs__add_pid_maps(p, 114, 7, &m), -E2BIG);
	cr_expect_eq(stats().full, 1);
	proc_maps__release(&m);
}

/* An entry whose generation went (exit, exec) is swept, whatever /proc/PID/stat says. */
Test(py_procs_given, the_sweep_deletes_entries_of_generations_gone)
{
	struct proc_maps m;
	struct py_proc e;
	struct maps w;

	reset_gens();
	start_with(gen_of);
	running[114] = 7;
	maps_begin(&w, 114);
	maps_add_python(&w, "/usr/bin/python3.11");
	maps_end_reading(&w, &m);
	fake_stat(proc_root, 114, 'S', FAKE_START_TIME);
	cr_assert_eq(py_procs__add_pid_maps(p, 114, 7, &m), 0);
	cr_expect_eq(py_procs__sweep(p), 0);
	cr_expect(has_entry(114, &e));
	running[114] = 8;
	cr_expect_eq(py_procs__sweep(p), 1);
	cr_expect_not(has_entry(114, &e));
	cr_expect_eq(stats().kept_procs, 0);
	proc_maps__release(&m);
}

/*
 * A file met before is known by the stamp of its map_files link, not
 * opened again; one rewritten since (another version: its ctime moved) is
 * opened and read again.
 */
Test(py_procs_given, a_file_met_before_is_not_opened_again_unless_changed)
{
	struct py_procs_stats st;
	struct maps w;
	char *path;
	int fd;

	start();
	for (int pid = 120; pid <= 121; pid++) {
		maps_begin(&w, pid);
		maps_add_junk(&w, "junk", 5);	/* the same five files for both */
		maps_end(&w);
	}
	cr_assert_eq(py_procs__add_pid(p, 120), -ENOENT);
	st = stats();
	cr_expect_eq(st.opened, 5);
	cr_expect_eq(st.files, 5);
	cr_assert_eq(py_procs__add_pid(p, 121), -ENOENT);
	st = stats();
	cr_expect_eq(st.opened, 5, "%" PRIu64 " files opened", st.opened);
	cr_expect_eq(st.files, 5);
	/* one of them rewritten in place (same inode, another version) */
	path = path_in(tmp, "junk/f2");
	fd = open(path, O_WRONLY | O_APPEND);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "more\n", 5), 5);
	close(fd);
	free(path);
	fake_stat_vsize(proc_root, 121, 'S', FAKE_START_TIME, 2000000);
	cr_assert_eq(py_procs__add_pid(p, 121), -ENOENT);
	st = stats();
	cr_expect_eq(st.opened, 6);
	cr_expect_eq(st.files, 6, "the rewritten file was taken for what it was");
}
