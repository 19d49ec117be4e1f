// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_procs.c - Python processes into a real BPF map made here
 * (root, CAP_BPF), read from a fake /proc whose map_files are symlinks
 * to files made here and to the stand-in libpython (python/py_procs.c,
 * py_entry.c; py_procs_fixture.h); and what looking at files found, kept
 * within bounds (python/py_files.c). A process mapping files without end
 * costs a bounded look and bounded memory, the interpreter is still found
 * by its name first or by its symbols, and only Python processes are
 * remembered.
 */
#include "py_procs_fixture.h"

/* --- py_files: bounded, least recently used forgotten ------------------ */

static struct file_stamp stamp(uint64_t ino)
{
	return (struct file_stamp){ .dev = 8, .ino = ino, .size = 4096, .mtime_sec = 1 };
}

Test(py_files, files_without_an_interpreter_are_bounded)
{
	struct py_files *c = py_files__new(2, 100);
	struct py_files_stats st;

	cr_assert_not_null(c);
	for (uint64_t i = 0; i < 10000; i++) {
		struct file_stamp id = stamp(i);
		const struct py_file *f = py_files__add(c, &id, -ENOEXEC, NULL);

		cr_assert_not_null(f);
		cr_assert_eq(f->status, -ENOEXEC);
	}
	py_files__stats(c, &st);
	cr_expect_eq(st.others, 100);
	cr_expect_eq(st.interps, 0);
	cr_expect_eq(st.forgotten, 10000 - 100);
	/* the newest are kept, the oldest forgotten */
	for (uint64_t i = 0; i < 10000; i++) {
		struct file_stamp id = stamp(i);

		cr_expect_eq(py_files__find(c, &id) != NULL, i >= 10000 - 100, "file %" PRIu64, i);
	}
	py_files__free(c);
}

Test(py_files, the_least_recently_used_goes_first)
{
	struct py_files *c = py_files__new(2, 3);
	struct file_stamp a = stamp(1), b = stamp(2), x = stamp(3), d = stamp(4);

	cr_assert_not_null(c);
	py_files__add(c, &a, -ENOENT, NULL);
	py_files__add(c, &b, -ENOENT, NULL);
	py_files__add(c, &x, -ENOENT, NULL);
	cr_assert_not_null(py_files__find(c, &a));	/* a used again: b is the oldest */
	py_files__add(c, &d, -ENOENT, NULL);
	cr_expect_not_null(py_files__find(c, &a));
	cr_expect_null(py_files__find(c, &b));
	cr_expect_not_null(py_files__find(c, &x));
	cr_expect_not_null(py_files__find(c, &d));
	py_files__free(c);
}

/* Interpreters have their own room: files without one never push them out. */
Test(py_files, interpreters_apart_and_bounded)
{
	struct py_files *c = py_files__new(2, 3);
	struct py_files_stats st;
	struct py_elf pe = { .version = 0x030b05f0, .runtime = 0x1234 };
	struct file_stamp p1 = stamp(100), p2 = stamp(101), p3 = stamp(102);
	const struct py_file *f;

	cr_assert_not_null(c);
	f = py_files__add(c, &p1, 0, &pe);
	cr_assert_not_null(f);
	cr_expect_eq(f->status, 0);
	cr_assert_not_null(f->pe);
	cr_expect_eq(f->pe->runtime, 0x1234);
	for (uint64_t i = 0; i < 50; i++) {
		struct file_stamp id = stamp(i);

		py_files__add(c, &id, -ENOENT, NULL);
	}
	f = py_files__find(c, &p1);
	cr_assert_not_null(f, "an interpreter pushed out by files without one");
	cr_expect_eq(f->pe->version, 0x030b05f0);
	py_files__add(c, &p2, 0, &pe);
	py_files__add(c, &p3, 0, &pe);
	py_files__stats(c, &st);
	cr_expect_eq(st.interps, 2);
	cr_expect_eq(st.others, 3);
	cr_expect_null(py_files__find(c, &p1));
	py_files__free(c);
}

Test(py_files, no_room_is_refused)
{
	cr_expect_null(py_files__new(0, 10));
	cr_expect_eq(errno, EINVAL);
	cr_expect_null(py_files__new(10, 0));
}

/* --- py_procs: a fake /proc, a real map -------------------------------- */

TestSuite(py_procs, .init = fake_proc_setup, .fini = teardown);

/* The reviewer's case: 30,000 files mapped made 30,000 entries of ~1.4 KiB. */
Test(py_procs, a_look_opens_at_most_its_cap)
{
	struct py_procs_stats st;
	struct py_proc e;
	struct maps m;

	start();
	maps_begin(&m, 100);
	maps_add_junk(&m, "junk", PY_FILES_PER_LOOK + 100);
	/* the interpreter, under a name that does not say so, after them */
	maps_add_python(&m, "/opt/app/libembed.so");
	maps_end(&m);
	cr_expect_eq(py_procs__add_pid(p, 100), -ENOENT);
	st = stats();
	cr_expect_eq(st.files, PY_FILES_PER_LOOK, "%" PRIu64 " files read", st.files);
	cr_expect_eq(st.cut, 1);
	cr_expect_leq(st.kept_files, PY_FILES_PER_LOOK);
	/* not a Python process: nothing of it kept */
	cr_expect_eq(st.kept_procs, 0);
	cr_expect_not(has_entry(100, &e));
	/* announced again, nothing mapped since: not looked at */
	cr_expect_eq(py_procs__add_pid(p, 100), -ENOENT);
	st = stats();
	cr_expect_eq(st.unchanged, 1);
	cr_expect_eq(st.cut, 1);
	cr_expect_eq(st.kept_quiet, 1);
	/* its size changed (a mapping made): looked at again, the same files from what was kept */
	fake_stat_vsize(proc_root, 100, 'S', FAKE_START_TIME, 2000000);
	cr_expect_eq(py_procs__add_pid(p, 100), -ENOENT);
	st = stats();
	cr_expect_eq(st.files, PY_FILES_PER_LOOK);
	cr_expect_eq(st.cut, 2);
	cr_expect_eq(st.unchanged, 1);
}

/*
 * A process without Python, announced again and again, is looked at again
 * only when its mappings change (its vsize) or it is another process or
 * generation; once Python is mapped (embedded, dlopen'd late), it is found.
 */
Test(py_procs, looked_at_again_once_it_maps_something)
{
	struct py_procs_stats st;
	struct py_proc e;
	struct maps m;

	start();
	maps_begin(&m, 103);
	maps_add_junk(&m, "junk", 3);
	maps_end(&m);
	for (int i = 0; i < 5; i++)
		cr_expect_eq(py_procs__add_pid(p, 103), -ENOENT);
	st = stats();
	cr_expect_eq(st.unchanged, 4);
	cr_expect_eq(st.kept_quiet, 1);
	cr_expect_eq(st.kept_procs, 0);
	/* another process at the pid: looked at */
	fake_stat(proc_root, 103, 'S', FAKE_START_TIME + 1);
	cr_expect_eq(py_procs__add_pid(p, 103), -ENOENT);
	cr_expect_eq(stats().unchanged, 4);
	/* junk unmapped and libpython mapped, and the size says so: found, the quiet record dropped */
	maps_begin(&m, 103);
	maps_add_python(&m, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0");
	maps_end(&m);
	fake_stat_vsize(proc_root, 103, 'S', FAKE_START_TIME + 1, 3000000);
	cr_assert_eq(py_procs__add_pid(p, 103), 0);
	st = stats();
	cr_expect_eq(st.unchanged, 4);
	cr_expect_eq(st.kept_quiet, 0);
	cr_expect_eq(st.kept_procs, 1);
	cr_expect(has_entry(103, &e));
}

/* Files named like the interpreter first: found whatever else is mapped before it. */
Test(py_procs, named_like_python_looked_at_first)
{
	uint64_t addr = 0, size = 0;
	struct py_procs_stats st;
	struct py_proc e;
	struct maps m;

	start();
	maps_begin(&m, 101);
	maps_add_junk(&m, "junk", PY_FILES_PER_LOOK + 100);
	maps_add_python(&m, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0");
	maps_end(&m);
	cr_assert_eq(py_procs__add_pid(p, 101), 0);
	st = stats();
	cr_expect_eq(st.files, 1, "%" PRIu64 " files read", st.files);
	cr_expect_eq(st.cut, 0);
	cr_expect_eq(st.kept_procs, 1);
	cr_assert(has_entry(101, &e));
	nm_lookup(FIXTURE_PYTHON, "-D", "_PyRuntime", &addr, &size);
	cr_expect_eq(e.runtime, LIB_BIAS + addr);
	cr_expect_eq(e.version, 0x030b05f0);
	cr_expect_eq(e.gen, 1);
}

/* Any name will do, within the cap: the interpreter is found by its symbols. */
Test(py_procs, any_name_within_the_cap)
{
	struct py_proc e;
	struct maps m;

	start();
	maps_begin(&m, 102);
	maps_add_junk(&m, "junk", 10);
	maps_add_python(&m, "/opt/app/libembed.so");
	maps_end(&m);
	cr_assert_eq(py_procs__add_pid(p, 102), 0);
	cr_expect_eq(stats().files, 11);
	cr_expect(has_entry(102, &e));
}

/* One file mapped over and over is opened once a look, not once a mapping. */
Test(py_procs, one_file_mapped_many_times_opened_once)
{
	struct py_proc e;
	struct maps m;
	char *junk;

	start();
	junk = write_in(tmp, "one", "not ELF: junk\n");
	maps_begin(&m, 103);
	for (int i = 0; i < 4 * PY_FILES_PER_LOOK; i++)
		maps_add_file(&m, junk, JUNK_START + (uint64_t)i * 0x2000);
	maps_add_python(&m, "/opt/app/libembed.so");
	maps_end(&m);
	free(junk);
	cr_assert_eq(py_procs__add_pid(p, 103), 0);
	cr_expect_eq(stats().files, 2);
	cr_expect_eq(stats().cut, 0);
	cr_expect(has_entry(103, &e));
}

/* Many processes, each within its cap: what is kept of their files stays bounded. */
Test(py_procs, files_kept_are_bounded_over_processes)
{
	int per = PY_FILES_PER_LOOK - 6, nr = PY_FILES_MAX_OTHERS / per + 3;
	struct py_procs_stats st;

	start();
	for (int i = 0; i < nr; i++) {
		char dir[32];
		struct maps m;

		snprintf(dir, sizeof(dir), "junk%d", i);
		maps_begin(&m, 200 + i);
		maps_add_junk(&m, dir, per);
		maps_end(&m);
		cr_assert_eq(py_procs__add_pid(p, 200 + i), -ENOENT);
	}
	st = stats();
	cr_expect_eq(st.files, (uint64_t)nr * per);
	cr_expect_eq(st.cut, 0);
	cr_expect_leq(st.kept_files, PY_FILES_MAX_OTHERS);
	cr_expect_eq(st.forgotten, (uint64_t)nr * per - PY_FILES_MAX_OTHERS);
	cr_expect_eq(st.kept_procs, 0);
}

/* A Python process's record goes with its entry: exit, or deleted by the BPF side. */
Test(py_procs, records_go_with_their_entries)
{
	struct py_proc e;
	struct maps m;
	__u32 key = 105;

	start();
	for (int pid = 104; pid <= 105; pid++) {
		maps_begin(&m, pid);
		maps_add_python(&m, "/usr/bin/python3.11");
		maps_end(&m);
		cr_assert_eq(py_procs__add_pid(p, pid), 0);
	}
	cr_expect_eq(stats().kept_procs, 2);
	cr_expect_eq(py_procs__sweep(p), 0);
	cr_expect_eq(stats().kept_procs, 2);
	/* 104 exits (a zombie); 105 execs, its entry deleted as on_exec does */
	fake_stat(proc_root, 104, 'Z', FAKE_START_TIME);
	cr_assert_eq(bpf_map_delete_elem(procs_fd, &key), 0);
	cr_expect_eq(py_procs__sweep(p), 1);
	cr_expect_not(has_entry(104, &e));
	cr_expect_eq(stats().kept_procs, 0);
	/* and 105 is published again at its next look */
	cr_expect_eq(py_procs__add_pid(p, 105), 0);
	cr_expect_eq(stats().kept_procs, 1);
}
