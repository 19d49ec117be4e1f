// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind_procs.c - unwind tables of processes into real BPF maps
 * made here (root, CAP_BPF), read from a fake /proc whose map_files are
 * symlinks to the fixtures: each mapping's rows are its file's table as
 * cfi_table builds it, files are loaded once and shared, the per-file
 * and per-process caps leave room for libraries, and an entry is only
 * published over one still there.
 */
#include "unwind_fixture.h"

TestSuite(unwind_procs, .init = fake_proc_setup, .fini = teardown);

Test(unwind_procs, binary_and_library)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = NULL;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	maps = realloc(maps, strlen(maps) + sizeof(VDSO_LINE));
	strcat(maps, VDSO_LINE);
	add_process(100, maps);

	p = must_entry(100);
	cr_assert_eq(p->nr, 3);
	cr_assert_eq(p->partial, 0);
	cr_assert_eq(p->maps[0].start, text_start(FIXTURE_UNWIND, EXE_BIAS));
	cr_assert_gt(p->maps[0].len, 0);
	assert_bias(&p->maps[0], FIXTURE_UNWIND, false, "unw_leaf", EXE_BIAS);
	assert_bias(&p->maps[1], FIXTURE_LIB, true, "fixture_lib_func", LIB_BIAS);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	assert_rows_are(&p->maps[1], FIXTURE_LIB);
	/* filled front to back */
	cr_assert_eq(p->maps[0].first_row, 0);
	cr_assert_eq(p->maps[1].first_row, rows_taken(FIXTURE_UNWIND));
	/* the vDSO: frame pointers */
	cr_assert_eq(p->maps[2].start, 0x7ffd00000000ull);
	cr_assert_eq(p->maps[2].nr_rows, 0);
	cr_assert(unwind_procs__published(u, 100));

	unwind_procs__stats(u, &st);
	cr_assert_eq(st.procs, 1);
	cr_assert_eq(st.files, 2);
	cr_assert_eq(st.built, 2);
	cr_assert_eq(st.rows, rows_taken(FIXTURE_UNWIND) + rows_taken(FIXTURE_LIB));
	cr_assert_eq(st.max_rows, 1 << 16);
	free(p);
	free(maps);
}

/*
 * Tables on demand: publishing a process builds nothing; its mappings
 * wait for a walk to ask (UNWIND_MAP_WANT), and only the table asked for
 * is built; the others still wait, and are not asked for (ASKED is the
 * walk's to set).
 */
Test(unwind_procs, only_the_tables_walks_ask_for_are_built)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = NULL;
	__u32 key = 100;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	p = must_entry(100);
	cr_assert_eq(p->nr, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(p->maps[i].nr_rows, 0, "mapping %d has rows", i);
		cr_assert_eq(p->maps[i].flags, UNWIND_MAP_WANT, "mapping %d: flags %#x", i,
			     p->maps[i].flags);
	}
	cr_assert(unwind_procs__published(u, 100));
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 0);
	cr_assert_eq(st.files, 0);
	cr_assert_eq(st.rows, 0);
	cr_assert_eq(st.met, 2);
	cr_assert_eq(st.waiting, 2);

	/* a walk met the library alone */
	p->maps[1].flags |= UNWIND_MAP_ASKED;
	cr_assert_eq(bpf_map_update_elem(procs_fd, &key, p, BPF_EXIST), 0);
	free(p);
	cr_assert_eq(unwind_procs__load_asked(u, 100), 0);
	p = must_entry(100);
	cr_assert_eq(p->nr, 2);
	cr_assert_eq(p->maps[0].nr_rows, 0);
	cr_assert_eq(p->maps[0].flags, UNWIND_MAP_WANT);
	assert_rows_are(&p->maps[1], FIXTURE_LIB);
	assert_bias(&p->maps[1], FIXTURE_LIB, true, "fixture_lib_func", LIB_BIAS);
	cr_assert_eq(p->maps[1].flags, 0);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 1);
	cr_assert_eq(st.files, 1);
	cr_assert_eq(st.asked, 1);
	cr_assert_eq(st.waiting, 1);
	cr_assert_eq(st.rows, rows_taken(FIXTURE_LIB));
	/* the same request again (a lost reply, two CPUs): nothing more */
	cr_assert_eq(unwind_procs__load_asked(u, 100), 0);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 1);
	free(p);
	free(maps);
}

/* A table built for one process serves every other mapping its file: no asking again. */
Test(unwind_procs, a_table_built_serves_other_processes_at_once)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = NULL, *maps2 = NULL;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	map_file(&maps2, 101, FIXTURE_UNWIND, EXE_BIAS + 0x100000);
	map_file(&maps2, 101, FIXTURE_LIB, LIB_BIAS);
	fake_process(proc_root, 101, maps2, 0, 101, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, 101), 0);
	p = must_entry(101);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	assert_bias(&p->maps[0], FIXTURE_UNWIND, false, "unw_leaf", EXE_BIAS + 0x100000);
	cr_assert_eq(p->maps[0].flags, 0);
	cr_assert_eq(p->maps[1].flags, UNWIND_MAP_WANT);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.built, 1);
	cr_assert_eq(st.met, 2);
	free(p);
	free(maps);
	free(maps2);
}

/* A file without a table, once asked for: no rows, and no more asking (frame pointers). */
Test(unwind_procs, a_file_without_a_table_is_asked_for_once)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = NULL, *text = write_in(tmp, "not-elf", "no ELF file here\n"), line[512];

	start(1 << 16);
	snprintf(line, sizeof(line), "7f1000000000-7f1000001000 r-xp 00000000 00:00 42 %s\n", text);
	append_mapping(&maps, 100, text, line);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	cr_assert_eq(ask_all(100), 1);
	p = must_entry(100);
	cr_assert_eq(p->nr, 1);
	cr_assert_eq(p->maps[0].nr_rows, 0);
	cr_assert_eq(p->maps[0].flags, 0, "flags %#x: asked for again", p->maps[0].flags);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.no_table, 1);
	cr_assert_eq(st.waiting, 0);
	free(p);
	free(maps);
	free(text);
}

/*
 * The reading an entry is made from is kept while the entry is there
 * (a walk's request is served from it), and freed by the sweep once exec
 * or exit deleted the entry.
 */
Test(unwind_procs, readings_of_entries_gone_are_freed)
{
	char *maps = NULL;
	__u32 key = 100;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	cr_assert_eq(unwind_procs__load_asked(u, 100), 0);
	cr_assert_eq(bpf_map_delete_elem(procs_fd, &key), 0);
	/* kept: the request finds no entry to publish into */
	cr_assert_eq(unwind_procs__load_asked(u, 100), -ESTALE);
	cr_assert_eq(unwind_procs__sweep(u), 0);
	cr_assert_eq(unwind_procs__load_asked(u, 100), -ENOENT);
	free(maps);
}

/*
 * The rows one process's files take, read back from the array: a small
 * table, a Go one of thousands of rows, a library's, in that order; map_flags
 * and window (0: the default) as the rows array is made and written.
 */
static struct unwind_row *rows_of_three_files(__u32 map_flags, size_t window, size_t *nr)
{
	struct unwind_procs_stats st;
	struct unwind_row *rows;
	char *maps = NULL;

	start_flags(1 << 16, 4, map_flags);
	if (window)
		unwind_procs__set_rows_window(u, window);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	map_file(&maps, 100, FIXTURE_DIR "/fixture_go_stripped", 0);
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	add_process(100, maps);
	free(maps);
	free(must_entry(100));
	unwind_procs__stats(u, &st);
	rows = calloc(st.rows, sizeof(*rows));
	cr_assert_not_null(rows);
	for (__u32 i = 0; i < st.rows; i++)
		cr_assert_eq(bpf_map_lookup_elem(rows_fd, &i, &rows[i]), 0);
	*nr = st.rows;
	unwind_procs__free(u);
	u = NULL;
	close(rows_fd);
	close(procs_fd);
	close(big_fd);
	rows_fd = procs_fd = big_fd = -1;
	return rows;
}

/*
 * An mmapable rows array (what profile makes) takes the very rows batch
 * updates write, through windows of it mapped in turn: with a one-page
 * window the Go table crosses many, and starts and ends inside a page.
 */
Test(unwind_procs, rows_through_mmap_windows_are_the_batch_rows)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct unwind_row *batch, *mapped;
	size_t nr_batch, nr_mapped, small = rows_taken(FIXTURE_UNWIND);

	cr_assert_neq(small * sizeof(struct unwind_row) % page, 0,
		      "the Go table must start inside a page");
	batch = rows_of_three_files(0, 0, &nr_batch);
	cr_assert_gt((nr_batch - small) * sizeof(struct unwind_row), 4 * page,
		     "the Go table must cross windows");
	mapped = rows_of_three_files(BPF_F_MMAPABLE, page, &nr_mapped);
	cr_assert_eq(nr_mapped, nr_batch);
	for (size_t i = 0; i < nr_batch; i++)
		cr_assert_eq(memcmp(&mapped[i], &batch[i], sizeof(batch[i])), 0, "row %zu differs", i);
	free(mapped);
	/* and the default window, larger than the whole */
	mapped = rows_of_three_files(BPF_F_MMAPABLE, 0, &nr_mapped);
	cr_assert_eq(nr_mapped, nr_batch);
	cr_assert_eq(memcmp(mapped, batch, nr_batch * sizeof(*batch)), 0);
	free(mapped);
	free(batch);
}

/* Another process of the same files, and a copy of the binary: no new rows. */
Test(unwind_procs, files_and_copies_share_rows)
{
	struct unwind_procs_stats before, after;
	struct unwind_proc *a, *b, *c;
	char *maps_a = NULL, *maps_b = NULL, *maps_c = NULL, *copy = path_in(tmp, "copy");

	start(1 << 16);
	map_file(&maps_a, 100, FIXTURE_UNWIND, EXE_BIAS);
	map_file(&maps_a, 100, FIXTURE_LIB, LIB_BIAS);
	add_process(100, maps_a);
	unwind_procs__stats(u, &before);

	map_file(&maps_b, 101, FIXTURE_LIB, LIB_BIAS + 0x100000);
	map_file(&maps_b, 101, FIXTURE_UNWIND, EXE_BIAS + 0x200000);
	add_process(101, maps_b);
	copy_file(FIXTURE_UNWIND, copy);
	map_file(&maps_c, 102, copy, EXE_BIAS);
	add_process(102, maps_c);

	unwind_procs__stats(u, &after);
	cr_assert_eq(after.rows, before.rows);
	cr_assert_eq(after.built, before.built);
	cr_assert_eq(after.files, before.files + 1);
	cr_assert_eq(after.shared, before.shared + 1);
	cr_assert_eq(after.procs, 3);
	a = must_entry(100);
	b = must_entry(101);
	c = must_entry(102);
	cr_assert_eq(b->maps[1].first_row, a->maps[0].first_row);
	cr_assert_eq(b->maps[0].first_row, a->maps[1].first_row);
	cr_assert_eq(c->maps[0].first_row, a->maps[0].first_row);
	cr_assert_eq(c->maps[0].nr_rows, a->maps[0].nr_rows);
	assert_bias(&b->maps[1], FIXTURE_UNWIND, false, "unw_vla", EXE_BIAS + 0x200000);
	assert_rows_are(&c->maps[0], FIXTURE_UNWIND);
	free(a);
	free(b);
	free(c);
	free(maps_a);
	free(maps_b);
	free(maps_c);
	free(copy);
}

/*
 * Rows are shared by what they are built from, not by owner nor build-id:
 * a user's exact copy of root's file shares its rows (the same bytes make
 * the same rows), and a root file that claims its build-id with another
 * .eh_frame (a container's root, a FUSE mount) gets rows of its own.
 */
Test(unwind_procs, rows_are_shared_by_what_they_are_built_from)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p, *q, *r;
	char *maps = NULL, *their_maps = NULL, *forged_maps = NULL, *cmd, id[128];
	char *theirs = path_in(tmp, "theirs"), *forged = path_in(tmp, "forged");
	char *src = write_in(tmp, "forged.c", "volatile int v;\n"
			     "__attribute__((noipa)) int f(int n) { int a[64]; a[n & 63] = n; "
			     "return a[(n + 1) & 63] + v; }\n"
			     "int main(int c, char **x) { (void)x; return f(c); }\n");
	FILE *pipe;

	pipe = popen("readelf -n '" FIXTURE_UNWIND "' | awk '/Build ID:/ { print $3 }'", "r");
	cr_assert_not_null(pipe);
	cr_assert_eq(fscanf(pipe, "%127s", id), 1);
	pclose(pipe);
	cr_assert_neq(asprintf(&cmd, "gcc -O2 -Wl,--build-id=0x%s '%s' -o '%s'", id, src, forged),
		      -1);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	start(1 << 16);
	copy_file(FIXTURE_UNWIND, theirs);
	cr_assert_eq(chown(theirs, 65534, 65534), 0, "chown: %s", strerror(errno));
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	map_file(&their_maps, 101, theirs, EXE_BIAS);
	add_process(101, their_maps);
	map_file(&forged_maps, 102, forged, EXE_BIAS);
	add_process(102, forged_maps);

	p = must_entry(100);
	q = must_entry(101);
	r = must_entry(102);
	cr_assert_eq(q->maps[0].first_row, p->maps[0].first_row, "a copy has rows of its own");
	assert_rows_are(&q->maps[0], FIXTURE_UNWIND);
	cr_assert_neq(r->maps[0].first_row, p->maps[0].first_row, "the forged file got root's rows");
	assert_rows_are(&r->maps[0], forged);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.shared, 1);
	cr_assert_eq(st.built, 2);
	free(p);
	free(q);
	free(r);
	free(maps);
	free(their_maps);
	free(forged_maps);
	free(theirs);
	free(forged);
	free(src);
	free(cmd);
}

static int by_inode(const void *a, const void *b)
{
	struct stat x, y;

	cr_assert_eq(stat(*(char *const *)a, &x), 0);
	cr_assert_eq(stat(*(char *const *)b, &y), 0);
	return (x.st_ino > y.st_ino) - (x.st_ino < y.st_ino);
}

/*
 * Files met in any order are found again: the middle one first, so that
 * neither inserting in order nor in reverse order would hide a file.
 */
Test(unwind_procs, files_met_again_in_any_order)
{
	const char *files[] = { FIXTURE_UNWIND, FIXTURE_LIB, FIXTURE_PIE };
	const int order[] = { 1, 0, 2 };
	struct unwind_procs_stats before, after;
	char *maps = NULL;

	start(1 << 16);
	qsort(files, ARRAY_SIZE(files), sizeof(files[0]), by_inode);
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		map_file(&maps, 100, files[order[i]], LIB_BIAS + i * 0x1000000);
	add_process(100, maps);
	unwind_procs__stats(u, &before);
	cr_assert_eq(before.files, 3);
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		map_file(&maps, 101, files[order[i]], LIB_BIAS + i * 0x1000000);
	add_process(101, maps);
	unwind_procs__stats(u, &after);
	cr_assert_eq(after.files, before.files);
	cr_assert_eq(after.shared, before.shared);
	cr_assert_eq(after.rows, before.rows);
	free(maps);
}

/* 300 mappings of one file, then a library: the library still has its rows. */
Test(unwind_procs, per_file_cap_leaves_room)
{
	char *base, *rest, line[4200], *maps = NULL;
	struct unwind_proc *p;
	uint64_t lo, hi;

	start(1 << 16);
	base = exec_mapping_line(FIXTURE_UNWIND, EXE_BIAS, NULL);
	cr_assert_eq(sscanf(base, "%" SCNx64 "-%" SCNx64, &lo, &hi), 2);
	rest = strchr(base, ' ');
	for (uint64_t i = 0; i < 300; i++) {
		snprintf(line, sizeof(line), "%" PRIx64 "-%" PRIx64 "%s", lo + i * 0x10000,
			 hi + i * 0x10000, rest);
		append_mapping(&maps, 100, FIXTURE_UNWIND, line);
	}
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	add_process(100, maps);

	p = must_entry(100);
	cr_assert_eq(p->nr, UNWIND_MAPS_PER_FILE + 1, "nr %u", p->nr);
	cr_assert_eq(p->partial, 1);
	for (int i = 0; i < UNWIND_MAPS_PER_FILE; i++)
		cr_assert_eq(p->maps[i].bias, EXE_BIAS + (uint64_t)i * 0x10000);
	cr_assert_eq(p->maps[UNWIND_MAPS_PER_FILE].start, text_start(FIXTURE_LIB, LIB_BIAS));
	assert_rows_are(&p->maps[UNWIND_MAPS_PER_FILE], FIXTURE_LIB);
	free(p);
	free(base);
	free(maps);
}

/* n anonymous executable mappings, 8 KiB apart from 0x10000000. */
static char *anon_maps(size_t n)
{
	char *maps = malloc(n * 64 + 1);
	size_t len = 0;

	cr_assert_not_null(maps);
	maps[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += sprintf(maps + len, "%llx-%llx r-xp 00000000 00:00 0 \n",
			       0x10000000ull + i * 0x2000, 0x10001000ull + i * 0x2000);
	return maps;
}

/* pid's big entry (allocated: 64 KiB), or NULL when there is none. */
static struct unwind_proc_big *big_entry(int pid)
{
	struct unwind_proc_big *p = calloc(1, sizeof(*p));
	__u32 key = pid;

	cr_assert_not_null(p);
	if (!bpf_map_lookup_elem(big_fd, &key, p))
		return p;
	cr_assert_eq(errno, ENOENT, "lookup %d: %s", pid, strerror(errno));
	free(p);
	return NULL;
}

/* Up to what an entry holds, the small entry alone. */
Test(unwind_procs, mappings_that_fit_an_entry)
{
	struct unwind_proc *p;
	char *maps = anon_maps(UNWIND_MAX_MAPS);

	start(16);
	add_process(100, maps);
	p = must_entry(100);
	cr_assert_eq(p->nr, UNWIND_MAX_MAPS);
	cr_assert_eq(p->big, 0);
	cr_assert_eq(p->partial, 0);
	cr_assert_eq(p->maps[p->nr - 1].start, 0x10000000ull + (p->nr - 1) * 0x2000ull);
	cr_assert_null(big_entry(100));
	free(p);
	free(maps);
}

/*
 * More than an entry holds: all of them in the big entry, the last ones
 * too (top-down mmap puts libc and ld.so, loaded first, at the top).
 */
Test(unwind_procs, more_mappings_than_an_entry_go_big)
{
	struct unwind_proc_big *b;
	struct unwind_proc *p;
	char *maps = anon_maps(UNWIND_MAX_MAPS + 34);

	start(16);
	add_process(100, maps);
	p = must_entry(100);
	cr_assert_eq(p->big, 1);
	cr_assert_eq(p->partial, 0);
	cr_assert_eq(p->nr, 0);
	cr_assert(unwind_procs__published(u, 100));
	b = big_entry(100);
	cr_assert_not_null(b);
	cr_assert_eq(b->nr, UNWIND_MAX_MAPS + 34);
	for (__u32 i = 0; i < b->nr; i++)
		cr_assert_eq(b->maps[i].start, 0x10000000ull + i * 0x2000ull, "mapping %u", i);
	free(b);
	free(p);
	/* fewer again (dlclose): the small entry, the big one gone */
	free(maps);
	maps = anon_maps(3);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	p = must_entry(100);
	cr_assert_eq(p->big, 0);
	cr_assert_eq(p->nr, 3);
	cr_assert_null(big_entry(100));
	free(p);
	free(maps);
}

/* More than the big entry holds: the first ones, partial, and counted. */
Test(unwind_procs, more_mappings_than_fit)
{
	struct unwind_procs_stats st;
	struct unwind_proc_big *b;
	struct unwind_proc *p;
	char *maps = anon_maps(UNWIND_MAX_MAPS_BIG + 3);

	start(16);
	add_process(100, maps);
	p = must_entry(100);
	cr_assert_eq(p->big, 1);
	cr_assert_eq(p->partial, 1);
	b = big_entry(100);
	cr_assert_not_null(b);
	cr_assert_eq(b->nr, UNWIND_MAX_MAPS_BIG);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.partial_procs, 1);
	free(b);
	free(p);
	free(maps);
}

/* The map of big entries full: what an entry holds, partial, counted. */
Test(unwind_procs, big_map_full)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = anon_maps(UNWIND_MAX_MAPS + 1);

	start_big(16, 1);
	add_process(100, maps);
	add_process(101, maps);
	p = must_entry(101);
	cr_assert_eq(p->big, 0);
	cr_assert_eq(p->partial, 1);
	cr_assert_eq(p->nr, UNWIND_MAX_MAPS);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.big_full, 1);
	cr_assert_eq(st.partial_procs, 1);
	free(p);
	free(maps);
}

/* A table larger than the rows left: that file has none, later ones do. */
/* What the notice was told: the files left without a table, and why. */
Test(unwind_procs, rows_full)
{
	struct unwind_procs_stats st;
	struct cfi_table big, small;
	struct notices seen = { 0 };
	struct unwind_proc *p;
	char *maps = NULL, *maps2 = NULL;

	table_of(FIXTURE_UNWIND, &big);
	table_of(FIXTURE_LIB, &small);
	cr_assert_lt(small.nr, big.nr, "the library's table must be the smaller");
	start(big.nr - 1);
	unwind_procs__set_notice(u, on_notice, &seen);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	add_process(100, maps);
	/* the file is named once, however many processes map it */
	map_file(&maps2, 101, FIXTURE_UNWIND, EXE_BIAS);
	add_process(101, maps2);
	free(maps2);
	cr_assert_eq(seen.n, 1);
	cr_assert_str_eq(seen.path, FIXTURE_UNWIND);
	cr_assert(strstr(seen.why, "--unwind-storage-size"), "%s", seen.why);

	p = must_entry(100);
	cr_assert_eq(p->nr, 2);
	cr_assert_eq(p->maps[0].nr_rows, 0);
	cr_assert_eq(p->maps[0].start, text_start(FIXTURE_UNWIND, EXE_BIAS));
	assert_rows_are(&p->maps[1], FIXTURE_LIB);
	cr_assert_eq(p->maps[1].first_row, 0);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.no_room, 1);
	cr_assert_eq(st.files, 1);
	cr_assert_eq(st.rows, rows_taken(FIXTURE_LIB));
	cfi_table__release(&big);
	cfi_table__release(&small);
	free(p);
	free(maps);
}

Test(unwind_procs, missing_process_is_esrch_and_leaves_no_entry)
{
	start(16);
	cr_assert_eq(unwind_procs__add_pid(u, 4242), -ESRCH);
	cr_assert_null(entry(4242));
	cr_assert_not(unwind_procs__published(u, 4242));
}

/* An entry deleted (exec, exit) and added again is published again. */
Test(unwind_procs, added_again_after_delete)
{
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	char *maps = NULL;
	__u32 key = 100;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	cr_assert_eq(bpf_map_delete_elem(procs_fd, &key), 0);
	cr_assert_not(unwind_procs__published(u, 100));
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	p = must_entry(100);
	cr_assert_eq(p->nr, 1);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.procs, 2);
	cr_assert_eq(st.built, 1);
	free(p);
	free(maps);
}

/*
 * The maps file is a FIFO, so the test acts while add_pid is reading it:
 * what the BPF side sees then, and an exec (the entry deleted) before the
 * end.
 */
struct reader {
	pthread_t thread;
	int pid, err, fd;
};

static void *read_pid(void *arg)
{
	struct reader *r = arg;

	r->err = unwind_procs__add_pid(u, r->pid);
	return NULL;
}

/* add_pid(pid) started and blocked on its maps; returns once it has opened them. */
static void begin_reading(struct reader *r, int pid)
{
	char rel[64], *path;

	fake_stat(proc_root, pid, 'S', FAKE_START_TIME);
	snprintf(rel, sizeof(rel), "%d/status", pid);
	free(write_in(proc_root, rel, "Name:\tfake\nUid:\t0\t0\t0\t0\n"));
	snprintf(rel, sizeof(rel), "%d/maps", pid);
	path = path_in(proc_root, rel);
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0, "mkfifo: %s", strerror(errno));
	r->pid = pid;
	cr_assert_eq(pthread_create(&r->thread, NULL, read_pid, r), 0);
	/* non-blocking, so that an add_pid that never opens it fails the test */
	for (int i = 0; i < 5000; i++) {
		r->fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fd >= 0 || errno != ENXIO)
			break;
		usleep(1000);
	}
	cr_assert_geq(r->fd, 0, "open '%s': %s", path, strerror(errno));
	cr_assert_eq(fcntl(r->fd, F_SETFL, 0), 0);
	free(path);
}

static int end_reading(struct reader *r, const char *maps)
{
	cr_assert_eq(write(r->fd, maps, strlen(maps)), (ssize_t)strlen(maps));
	close(r->fd);
	cr_assert_eq(pthread_join(r->thread, NULL), 0);
	return r->err;
}

/*
 * The generation pid 100 runs, as the sampler would say; on_check runs
 * each time it is asked.
 */
static uint32_t gen_now = 7;
static void (*on_check)(void);

static uint32_t current_gen(pid_t pid, void *ctx)
{
	(void)ctx;
	if (on_check)
		on_check();
	return pid == 100 ? gen_now : 0;
}

/* The reading of pid 100 in maps, as made in generation gen by a task of uid. */
static int add_reading_of(const char *maps, uint32_t gen, uint32_t uid)
{
	struct proc_maps m;
	int err;

	cr_assert_eq(proc_maps__load_buf(maps, strlen(maps), &m), 0);
	err = unwind_procs__add_maps(u, 100, gen, uid, &m);
	proc_maps__release(&m);
	return err;
}

static int add_reading(const char *maps, uint32_t gen)
{
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	return add_reading_of(maps, gen, MAPS_UID_UNKNOWN);
}

/*
 * An exec once the placeholder is there (asked before, it waits): a new
 * generation, then the entry deleted, in profile.bpf.c's order.
 */
static void exec_now(void)
{
	struct unwind_proc e;
	__u32 key = 100;

	if (bpf_map_lookup_elem(procs_fd, &key, &e))
		return;
	gen_now++;
	bpf_map_delete_elem(procs_fd, &key);
	on_check = NULL;
}

/*
 * A reading is made before its entry's placeholder: an exec in between
 * makes a new generation first (profile.bpf.c), and the reading is not
 * published for the new image; nor is it after an exec that comes once
 * the placeholder is there (the entry deleted). In its generation, it is.
 */
Test(unwind_procs, exec_after_reading_is_not_published)
{
	char *maps = NULL;

	start(1 << 16);
	unwind_procs__set_gen_fn(u, current_gen, NULL);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	gen_now = 8;
	cr_assert_eq(add_reading(maps, 7), -ESTALE);
	cr_assert_null(entry(100));
	on_check = exec_now;
	cr_assert_eq(add_reading(maps, 8), -ESTALE);
	cr_assert_null(entry(100));
	cr_assert_eq(gen_now, 9);
	cr_assert_eq(add_reading(maps, 9), 0);
	cr_assert(unwind_procs__published(u, 100));
	free(maps);
}

/*
 * A reading made in a generation is published by that generation alone,
 * asked before and after: no /proc/PID/stat read (the fake process has
 * none). The generation gone (exit) publishes nothing.
 */
Test(unwind_procs, a_reading_with_its_generation_reads_no_stat)
{
	char *maps = NULL, *stat;
	struct unwind_proc *e;

	start(1 << 16);
	unwind_procs__set_gen_fn(u, current_gen, NULL);
	gen_now = 7;
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	cr_assert_neq(asprintf(&stat, "%s/100/stat", proc_root), -1);
	cr_assert_eq(unlink(stat), 0);
	cr_assert_eq(add_reading_of(maps, 7, 4242), 0);
	cr_assert(unwind_procs__published(u, 100));
	e = entry(100);
	cr_assert_not_null(e);
	free(e);
	gen_now = 0;
	cr_assert_eq(add_reading_of(maps, 7, 4242), -ESRCH);
	cr_assert_null(entry(100));
	free(stat);
	free(maps);
}

/*
 * Whose a process is comes with its reading (the sampler saw the task):
 * then its status is not read, and its tables asked later are charged to
 * that uid too; without, the status says (none: gone).
 */
Test(unwind_procs, a_reading_says_whose_it_is)
{
	char *maps = NULL, *status;

	start(1 << 16);
	unwind_procs__set_gen_fn(u, current_gen, NULL);
	gen_now = 7;
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	cr_assert_neq(asprintf(&status, "%s/100/status", proc_root), -1);
	cr_assert_eq(unlink(status), 0);
	cr_assert_eq(add_reading_of(maps, 7, MAPS_UID_UNKNOWN), -ESRCH, "no status, no owner");
	cr_assert_eq(add_reading_of(maps, 7, 4242), 0);
	cr_assert(unwind_procs__published(u, 100));
	cr_assert_eq(unwind_procs__load_asked(u, 100), 0, "asked: the uid its reading came with");
	free(status);
	free(maps);
}

/* Read again (a miss asked for it): the old entry serves until the new one. */
Test(unwind_procs, reread_keeps_entry_until_published)
{
	struct unwind_proc *p;
	struct reader r;
	char *maps = NULL;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	map_file(&maps, 100, FIXTURE_LIB, LIB_BIAS);
	begin_reading(&r, 100);
	p = must_entry(100);
	cr_assert_eq(p->nr, 1);
	cr_assert_gt(p->maps[0].nr_rows, 0);
	free(p);
	cr_assert_eq(end_reading(&r, maps), 0);
	cr_assert_eq(ask_all(100), 1);
	p = must_entry(100);
	cr_assert_eq(p->nr, 2);
	assert_rows_are(&p->maps[1], FIXTURE_LIB);
	free(p);
	free(maps);
}

/* The rows map must hold struct unwind_row. */
Test(unwind_procs, rows_map_of_another_value_refused)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	start(16);
	close(rows_fd);
	rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "test_rows8", sizeof(__u32), 8, 16, &opts);
	cr_assert_geq(rows_fd, 0);
	errno = 0;
	cr_assert_null(unwind_procs__new(&(struct unwind_map_fds){ rows_fd, procs_fd, big_fd },
					 proc_root, NULL));
	cr_assert_eq(errno, EINVAL);
}

/* A zombie's maps read empty: it gets no entry, and leaves none behind. */
Test(unwind_procs, zombie_gets_no_entry)
{
	struct unwind_pid_status status;
	char *maps = NULL;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	fake_process(proc_root, 100, maps, 0, 100, NULL);
	fake_stat(proc_root, 100, 'Z', FAKE_START_TIME);
	cr_assert_eq(unwind_procs__add_pid(u, 100), -ESRCH);
	cr_assert_not(has_entry(100));
	unwind_procs__status(u, 100, &status);
	cr_assert_eq(status.err, -ESRCH);
	cr_assert_not(status.published);
	/* alive, but its maps empty: exited while they were read */
	fake_process(proc_root, 101, "", 0, 101, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, 101), -ESRCH);
	cr_assert_not(has_entry(101));
	free(maps);
}

/* Read again with nothing changed: the entry stays as it is, no update. */
Test(unwind_procs, unchanged_mappings_are_not_published_again)
{
	struct unwind_pid_status status;
	struct unwind_procs_stats st;
	char *maps = NULL;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.procs, 1);
	cr_assert_eq(st.unchanged, 2);
	/* gone now: the last reading says so, the first publish is kept */
	fake_stat(proc_root, 100, 'Z', FAKE_START_TIME);
	cr_assert_eq(unwind_procs__add_pid(u, 100), -ESRCH);
	unwind_procs__status(u, 100, &status);
	cr_assert_eq(status.err, -ESRCH);
	cr_assert(status.published);
	cr_assert_gt(status.published_ns, 0);
	free(maps);
}

/*
 * dlclose() of one library and dlopen() of another at the same address:
 * the entry gets the new file's rows, not the old one's.
 */
Test(unwind_procs, another_file_at_the_same_address)
{
	char *maps = NULL, *line, rel[96], *link;
	struct unwind_proc *p;
	uint64_t lo, hi;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	add_process(100, maps);
	p = must_entry(100);
	assert_rows_are(&p->maps[0], FIXTURE_UNWIND);
	free(p);
	/* the same line, but another file behind its map_files link */
	line = exec_mapping_line(FIXTURE_UNWIND, EXE_BIAS, NULL);
	cr_assert_eq(sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi), 2);
	snprintf(rel, sizeof(rel), "100/map_files/%" PRIx64 "-%" PRIx64, lo, hi);
	link = path_in(proc_root, rel);
	cr_assert_eq(unlink(link), 0);
	cr_assert_eq(symlink(FIXTURE_LIB, link), 0);
	cr_assert_eq(unwind_procs__add_pid(u, 100), 0);
	/* not the old file's rows: none, until a walk asks for the new one's */
	p = must_entry(100);
	cr_assert_eq(p->nr, 1);
	cr_assert_eq(p->maps[0].nr_rows, 0);
	cr_assert_eq(p->maps[0].flags, UNWIND_MAP_WANT);
	free(p);
	cr_assert_eq(ask_all(100), 1);
	p = must_entry(100);
	cr_assert_eq(p->nr, 1);
	assert_rows_are(&p->maps[0], FIXTURE_LIB);
	free(p);
	free(link);
	free(line);
	free(maps);
}

/* The sweep deletes the entries of processes gone, zombies and reused pids, only. */
Test(unwind_procs, sweep_deletes_entries_of_processes_gone)
{
	char *maps = NULL, rel[64], *dir;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_UNWIND, EXE_BIAS);
	for (int pid = 100; pid < 104; pid++)
		add_process(pid, maps);
	cr_assert_eq(unwind_procs__sweep(u), 0);
	/* 101 gone, 102 a zombie, 103 another process at the pid */
	snprintf(rel, sizeof(rel), "101/stat");
	dir = path_in(proc_root, rel);
	cr_assert_eq(unlink(dir), 0);
	free(dir);
	fake_stat(proc_root, 102, 'Z', FAKE_START_TIME);
	fake_stat(proc_root, 103, 'R', FAKE_START_TIME + 1);
	cr_assert_eq(unwind_procs__sweep(u), 3);
	cr_assert(has_entry(100));
	cr_assert_not(has_entry(101));
	cr_assert_not(has_entry(102));
	cr_assert_not(has_entry(103));
	free(maps);
}

/*
 * A Go file's mapping is flagged UNWIND_MAP_GO. Stripped by Go's linker
 * (-s -w: no .debug_frame, no .symtab), its rows come from .gopclntab's
 * pc-to-sp tables: the very rows of Go's .debug_frame in the same build
 * unstripped (which the linker writes from those tables), with END rows
 * where nm has runtime.goexit, mstart and rt0_go.
 */
Test(unwind_procs, go_stripped_gets_its_rows_and_roots)
{
	static const char *const roots[] = {
		"runtime.rt0_go.abi0", "runtime.mstart.abi0", "runtime.goexit.abi0",
	};
	struct unwind_proc *p;
	struct cfi_table t;
	struct go_info g;
	char *maps = NULL;
	Elf *elf;
	int fd;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_DIR "/fixture_go_stripped", 0);
	add_process(100, maps);
	p = must_entry(100);
	cr_assert_eq(p->nr, 1);
	cr_assert_eq(p->maps[0].flags, UNWIND_MAP_GO);

	table_of(FIXTURE_DIR "/fixture_go", &t);
	fd = open(FIXTURE_DIR "/fixture_go", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(go_runtime__read(elf, NULL, &g), 0);
	elf_end(elf);
	close(fd);
	cr_assert_eq(go_runtime__add_roots(&g, &t), 0);
	cr_assert_eq(p->maps[0].nr_rows, t.nr, "%u rows, .debug_frame's and the roots' %zu",
		     p->maps[0].nr_rows, t.nr);
	for (__u32 i = 0; i < t.nr; i++) {
		__u32 idx = p->maps[0].first_row + i;
		struct unwind_row row;

		cr_assert_eq(bpf_map_lookup_elem(rows_fd, &idx, &row), 0);
		cr_assert_eq(memcmp(&row, &t.rows[i], sizeof(row)), 0, "row %u at %#x differs", i,
			     t.rows[i].pc);
	}
	for (int i = 0; i < 3; i++) {
		const struct unwind_row *r;
		uint64_t addr, size;

		nm_symbol(FIXTURE_DIR "/fixture_go", roots[i], &addr, &size);
		r = cfi_table__find(&t, (uint32_t)addr);
		cr_assert(r && r->pc == addr && r->cfa_rule == UNW_CFA_END, "%s", roots[i]);
	}
	cfi_table__release(&t);
	free(p);
	free(maps);
}

/* C's files are not flagged; cgo's C code beside the Go text is left out of the flag. */
Test(unwind_procs, go_flag_on_go_text_only)
{
	struct unwind_proc *p;
	char *maps = NULL;
	uint64_t addr, size;

	start(1 << 16);
	map_file(&maps, 100, FIXTURE_DIR "/fixture_go_cgo", 0);
	add_process(100, maps);
	p = must_entry(100);
	cr_assert_eq(p->nr, 3, "%u entries", p->nr);
	cr_assert(!p->maps[0].flags && p->maps[1].flags == UNWIND_MAP_GO && !p->maps[2].flags);
	for (int i = 0; i < 3; i++) {
		cr_assert_gt(p->maps[i].nr_rows, 0);
		cr_assert_eq(p->maps[i].first_row, p->maps[0].first_row);
		if (i)
			cr_assert_eq(p->maps[i].start, p->maps[i - 1].start + p->maps[i - 1].len);
	}
	nm_symbol(FIXTURE_DIR "/fixture_go_cgo", "fixture_c_spin", &addr, &size);
	cr_assert_geq(addr, p->maps[2].start);
	nm_symbol(FIXTURE_DIR "/fixture_go_cgo", "main.main", &addr, &size);
	cr_assert(addr - p->maps[1].start < p->maps[1].len);
	free(p);
	free(maps);

	maps = NULL;
	map_file(&maps, 101, FIXTURE_UNWIND, EXE_BIAS);
	add_process(101, maps);
	p = must_entry(101);
	cr_assert_eq(p->maps[0].flags, 0);
	free(p);
	free(maps);
}

/*
 * Two Go files stripped by their linker have the same unwind information
 * (none), not the same function table: neither shares the other's rows.
 * A copy of one shares them.
 */
Test(unwind_procs, go_files_share_rows_only_with_their_copies)
{
	struct unwind_procs_stats st;
	struct unwind_proc *a, *b, *c;
	char *maps = NULL, *copy = path_in(proc_root, "copy/fixture_go_stripped");
	size_t len;
	char *bytes = read_whole(FIXTURE_DIR "/fixture_go_stripped", &len);

	write_bytes(copy, bytes, len);
	free(bytes);
	start(1 << 16);
	map_file(&maps, 100, FIXTURE_DIR "/fixture_go_stripped", 0);
	add_process(100, maps);
	free(maps);
	maps = NULL;
	map_file(&maps, 101, FIXTURE_DIR "/fixture_go_pie_stripped", 0);
	add_process(101, maps);
	free(maps);
	maps = NULL;
	map_file(&maps, 102, copy, 0);
	add_process(102, maps);
	a = must_entry(100);
	b = must_entry(101);
	c = must_entry(102);
	cr_assert(a->maps[0].nr_rows && b->maps[0].nr_rows);
	cr_assert_neq(a->maps[0].first_row, b->maps[0].first_row, "another Go file's rows");
	cr_assert_eq(c->maps[0].first_row, a->maps[0].first_row, "a copy's rows not shared");
	cr_assert_eq(c->maps[0].flags, UNWIND_MAP_GO);
	unwind_procs__stats(u, &st);
	cr_assert_eq(st.shared, 1);
	free(a);
	free(b);
	free(c);
	free(maps);
	free(copy);
}

/* pid's memory file: image at start (a sparse file), where the kernel's is read. */
static void fake_mem(int pid, uint64_t start, const void *image, size_t size)
{
	char rel[64], *path;
	int fd;

	snprintf(rel, sizeof(rel), "%d/mem", pid);
	path = path_in(proc_root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(pwrite(fd, image, size, (off_t)start), (ssize_t)size);
	close(fd);
	free(path);
}

/* A [vdso] line of len bytes at start. */
static char *vdso_line(uint64_t start, size_t len)
{
	char *line;

	cr_assert_neq(asprintf(&line, "%" PRIx64 "-%" PRIx64 " r-xp 00000000 00:00 0    [vdso]\n",
			       start, start + len), -1);
	return line;
}

/*
 * A [vdso] holding the image of ours gets its table, built once for all;
 * one holding other bytes (another kernel's, a 32-bit process's), or of
 * another length, is walked by frame pointers.
 */
Test(unwind_procs, vdso_of_the_same_image_has_its_table)
{
	const uint64_t at = 0x10000000;
	struct vdso_image v;
	struct unwind_procs_stats st;
	struct unwind_proc *p;
	struct cfi_table t;
	uint64_t vaddr;
	uint8_t *other;
	char *line;

	if (vdso_image__self(&v))
		skip_unless_ci("no vDSO here");
	cr_assert_eq(vdso_image__table(&v, NULL, &t, &vaddr), 0);
	cr_assert_gt(t.nr, 3);
	start(1 << 16);
	line = vdso_line(at, v.map_len);
	fake_process(proc_root, 200, line, 0, 200, NULL);
	fake_mem(200, at, v.image, v.size);
	cr_assert_eq(unwind_procs__add_pid(u, 200), 0);
	p = must_entry(200);
	cr_assert_eq(p->nr, 1);
	cr_assert_eq(p->maps[0].nr_rows, t.nr);
	cr_assert_eq(p->maps[0].bias, at - vaddr);
	for (__u32 i = 0; i < t.nr; i++) {
		__u32 idx = p->maps[0].first_row + i;
		struct unwind_row row;

		cr_assert_eq(bpf_map_lookup_elem(rows_fd, &idx, &row), 0);
		cr_assert_eq(memcmp(&row, &t.rows[i], sizeof(row)), 0, "vDSO row %u differs", i);
	}
	free(p);
	/* a second process: the same rows, not built again */
	fake_process(proc_root, 201, line, 0, 201, NULL);
	fake_mem(201, at, v.image, v.size);
	cr_assert_eq(unwind_procs__add_pid(u, 201), 0);
	p = must_entry(201);
	cr_assert_eq(p->maps[0].nr_rows, t.nr);
	free(p);
	/* one byte changed */
	other = malloc(v.size);
	cr_assert_not_null(other);
	memcpy(other, v.image, v.size);
	other[v.size / 2] ^= 1;
	fake_process(proc_root, 202, line, 0, 202, NULL);
	fake_mem(202, at, other, v.size);
	cr_assert_eq(unwind_procs__add_pid(u, 202), 0);
	p = must_entry(202);
	cr_assert_eq(p->maps[0].nr_rows, 0);
	free(p);
	free(line);
	/* the same bytes, another length */
	line = vdso_line(at, v.map_len + 4096);
	fake_process(proc_root, 203, line, 0, 203, NULL);
	fake_mem(203, at, v.image, v.size);
	cr_assert_eq(unwind_procs__add_pid(u, 203), 0);
	p = must_entry(203);
	cr_assert_eq(p->maps[0].nr_rows, 0);
	free(p);
	unwind_procs__stats(u, &st);
	/* built once: its rows are the only ones */
	cr_assert_eq(st.vdso, 2);
	cr_assert_eq(st.rows, t.nr + row_index__size(t.rows, t.nr));
	free(other);
	free(line);
	cfi_table__release(&t);
}

/* The rule of the row that holds pc in m's rows, through the array map. */
static unsigned map_rule_at(const struct unwind_map *m, uint64_t pc)
{
	unsigned rule = UNW_CFA_NONE;

	for (__u32 i = 0; i < m->nr_rows; i++) {
		__u32 idx = m->first_row + i;
		struct unwind_row row;

		cr_assert_eq(bpf_map_lookup_elem(rows_fd, &idx, &row), 0);
		if (row.pc > pc - m->bias)
			break;
		rule = row.cfa_rule;
	}
	return rule;
}

/*
 * A static musl program: its trampoline's rows come from its code, laid
 * over its table after the build and after the cache (whose key is its
 * CFI's digest alone): the second run, from the cache, has them too.
 */
Test(unwind_procs, code_rows_laid_over_built_and_cached_tables)
{
	static const char src[] =
		"#include <signal.h>\n"
		"static void on(int s) { (void)s; }\n"
		"int main(void) { signal(SIGALRM, on); return 0; }\n";
	char *c = write_in(tmp, "m.c", src), *prog = path_in(tmp, "m"), *dir = path_in(tmp, "cache");
	char cmd[9000], why[256];
	struct unwind_procs_stats st;
	struct table_cache *cache;
	struct unwind_proc *p;
	uint64_t tramp, size;
	char *maps = NULL;

	snprintf(cmd, sizeof(cmd), "musl-gcc -O2 -static '%s' -o '%s'", c, prog);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	nm_symbol(prog, "__restore_rt", &tramp, &size);
	for (int run = 0; run < 2; run++) {
		start(1 << 16);
		cr_assert_eq(table_cache__open(dir, 1 << 20, &cache, why, sizeof(why)), 0, "%s", why);
		unwind_procs__free(u);
		u = unwind_procs__new(&(struct unwind_map_fds){ rows_fd, procs_fd, big_fd }, proc_root,
				      cache);
		cr_assert_not_null(u);
		map_file(&maps, 300 + run, prog, 0);
		add_process(300 + run, maps);
		free(maps);
		maps = NULL;
		p = must_entry(300 + run);
		cr_assert_gt(p->maps[0].nr_rows, 0);
		cr_assert_eq(map_rule_at(&p->maps[0], tramp - 1), UNW_CFA_SIGNAL, "run %d", run);
		cr_assert_eq(map_rule_at(&p->maps[0], tramp + 8), UNW_CFA_SIGNAL, "run %d", run);
		unwind_procs__stats(u, &st);
		cr_assert_eq(run ? st.from_cache : st.stored, 1, "run %d", run);
		free(p);
		/* the next run: new maps, a new u over the same cache directory */
		unwind_procs__free(u);
		u = NULL;
		close(rows_fd);
		close(procs_fd);
		close(big_fd);
		rows_fd = procs_fd = big_fd = -1;
	}
	free(c);
	free(prog);
	free(dir);
}
