// SPDX-License-Identifier: GPL-2.0
/* test_proc_maps.c - /proc/PID/maps lines and files. */
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "symbols/proc_maps.h"
#include "test_util.h"

static struct map_entry parse_ok(const char *line)
{
	struct map_entry e;
	int err = map_entry__parse(line, &e);

	cr_assert_eq(err, 0, "'%s': %d", line, err);
	cr_assert_not_null(e.path);
	return e;
}

Test(map_entry, file_mapping)
{
	struct map_entry e = parse_ok(
		"55d0c5a00000-55d0c5a21000 r-xp 00002000 fd:01 1234567                    /usr/bin/foo\n");

	cr_assert_eq(e.start, 0x55d0c5a00000);
	cr_assert_eq(e.end, 0x55d0c5a21000);
	cr_assert_str_eq(e.perms, "r-xp");
	cr_assert_eq(e.offset, 0x2000);
	cr_assert_eq(e.dev_major, 0xfd);
	cr_assert_eq(e.dev_minor, 0x01);
	cr_assert_eq(e.inode, 1234567);
	cr_assert_str_eq(e.path, "/usr/bin/foo");
	cr_assert(!e.deleted);
	cr_assert(map_entry__is_exec(&e));
	map_entry__release(&e);
	cr_assert_null(e.path);
}

Test(map_entry, large_device_numbers_and_no_newline)
{
	struct map_entry e = parse_ok(
		"7f0000000000-7f0000001000 r--s 00000000 103:0a 18446744 /dev/shm/x");

	cr_assert_eq(e.dev_major, 0x103);
	cr_assert_eq(e.dev_minor, 0x0a);
	cr_assert_eq(e.inode, 18446744);
	cr_assert_str_eq(e.perms, "r--s");
	cr_assert(!map_entry__is_exec(&e));
	cr_assert_str_eq(e.path, "/dev/shm/x");
	map_entry__release(&e);
}

Test(map_entry, vdso)
{
	struct map_entry e = parse_ok(
		"7ffc1d5f2000-7ffc1d5f4000 r-xp 00000000 00:00 0                          [vdso]\n");

	cr_assert_str_eq(e.path, "[vdso]");
	cr_assert_eq(e.inode, 0);
	cr_assert(map_entry__is_exec(&e));
	map_entry__release(&e);
}

Test(map_entry, anonymous_mapping_has_an_empty_path)
{
	struct map_entry e = parse_ok("7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n");

	cr_assert_str_empty(e.path);
	cr_assert(!e.deleted);
	map_entry__release(&e);
	e = parse_ok("7f0000000000-7f0000021000 rw-p 00000000 00:00 0");
	cr_assert_str_empty(e.path);
	map_entry__release(&e);
}

Test(map_entry, deleted_suffix_is_removed_and_flagged)
{
	struct map_entry e = parse_ok(
		"7f0000000000-7f0000021000 r-xp 00001000 08:01 42   /tmp/old lib.so (deleted)\n");

	cr_assert(e.deleted);
	cr_assert_str_eq(e.path, "/tmp/old lib.so");
	map_entry__release(&e);
}

Test(map_entry, deleted_only_as_a_suffix)
{
	struct map_entry e = parse_ok(
		"7f0000000000-7f0000021000 r-xp 00001000 08:01 42   /tmp/a (deleted)/b\n");

	cr_assert(!e.deleted);
	cr_assert_str_eq(e.path, "/tmp/a (deleted)/b");
	map_entry__release(&e);
	e = parse_ok("7f0000000000-7f0000021000 r-xp 00001000 08:01 42   (deleted)\n");
	cr_assert(!e.deleted, "a name that is only the suffix");
	map_entry__release(&e);
}

Test(map_entry, path_with_spaces)
{
	struct map_entry e = parse_ok(
		"7f0000000000-7f0000021000 r-xp 00000000 08:01 77   /opt/My App/lib  two.so\n");

	cr_assert_str_eq(e.path, "/opt/My App/lib  two.so");
	map_entry__release(&e);
}

Test(map_entry, malformed_lines)
{
	static const char *const bad[] = {
		"",
		"\n",
		"garbage",
		"1000-",
		"1000-2000",
		"1000 2000 r-xp 00000000 00:00 0",
		"1000-2000 r-x",
		"1000-2000 r-x 00000000 00:00 0",
		"1000-2000 r-xpp 00000000 00:00 0",
		"1000-2000 r-xp 00000000 00:00",
		"1000-2000 r-xp 00000000 0000 0",
		"1000-2000 r-xp zz 00:00 0",
		"1000-2000 r-xp 00000000 00:00 x",
		"2000-1000 r-xp 00000000 00:00 0",
		"10000000000000000-10000000000000001 r-xp 00000000 00:00 0",
		"1000-2000 r-xp 00000000 1000:00 0",
		"1000-2000 r-xp 00000000 00:100000 0",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct map_entry e;

		cr_assert_eq(map_entry__parse(bad[i], &e), -EINVAL, "'%s' accepted", bad[i]);
		cr_assert_null(e.path);
	}
}

static const char maps_text[] =
	"55d0c59ff000-55d0c5a00000 r--p 00000000 fd:01 100  /usr/bin/app\n"
	"55d0c5a00000-55d0c5a21000 r-xp 00001000 fd:01 100  /usr/bin/app\n"
	"55d0c5a21000-55d0c5a30000 r--p 00022000 fd:01 100  /usr/bin/app\n"
	"55d0c6000000-55d0c6021000 rw-p 00000000 00:00 0    [heap]\n"
	"this line is garbage\n"
	"7f1000000000-7f1000001000 r-xp 00000000 00:00 0 \n"
	"7f2000000000-7f2000100000 r-xp 00028000 fd:01 200  /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f2000100000-7f2000200000 rw-p 00128000 fd:01 200  /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3000000000-7f3000001000 r-xp 00000000 08:01 300  /tmp/gone.so (deleted)\n"
	"7ffc1d5f2000-7ffc1d5f4000 r-xp 00000000 00:00 0    [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]";

Test(proc_maps, keeps_only_executable_mappings_in_order)
{
	static const struct { uint64_t start; const char *path; } want[] = {
		{ 0x55d0c5a00000, "/usr/bin/app" },
		{ 0x7f1000000000, "" },
		{ 0x7f2000000000, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ 0x7f3000000000, "/tmp/gone.so" },
		{ 0x7ffc1d5f2000, "[vdso]" },
		{ 0xffffffffff600000, "[vsyscall]" },
	};
	struct proc_maps m;

	cr_assert_eq(proc_maps__load_buf(maps_text, strlen(maps_text), &m), 0);
	cr_assert_eq(m.nr, ARRAY_SIZE(want));
	for (size_t i = 0; i < m.nr; i++) {
		cr_assert_eq(m.entries[i].start, want[i].start, "entry %zu", i);
		cr_assert_str_eq(m.entries[i].path, want[i].path, "entry %zu", i);
		cr_assert(map_entry__is_exec(&m.entries[i]));
		if (i)
			cr_assert_gt(m.entries[i].start, m.entries[i - 1].start);
	}
	cr_assert_eq(m.entries[2].offset, 0x28000);
	cr_assert(m.entries[3].deleted);
	proc_maps__release(&m);
	cr_assert_eq(m.nr, 0);
	cr_assert_null(m.entries);
}

Test(proc_maps, find_is_half_open)
{
	struct proc_maps m;
	const struct map_entry *e;

	cr_assert_eq(proc_maps__load_buf(maps_text, strlen(maps_text), &m), 0);
	e = proc_maps__find(&m, 0x55d0c5a00000);
	cr_assert_not_null(e);
	cr_assert_str_eq(e->path, "/usr/bin/app");
	cr_assert_eq(proc_maps__find(&m, 0x55d0c5a20fff), e);
	cr_assert_null(proc_maps__find(&m, 0x55d0c5a21000), "end is exclusive");
	cr_assert_null(proc_maps__find(&m, 0x55d0c59fffff), "before the first");
	cr_assert_null(proc_maps__find(&m, 0x55d0c6000010), "in a non-exec mapping");
	cr_assert_null(proc_maps__find(&m, 0x7f2000100000), "in a non-exec mapping");
	cr_assert_str_eq(proc_maps__find(&m, 0x7f20000fffff)->path,
			 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_str_eq(proc_maps__find(&m, 0x7ffc1d5f3000)->path, "[vdso]");
	cr_assert_str_eq(proc_maps__find(&m, 0xffffffffff600fff)->path, "[vsyscall]");
	cr_assert_null(proc_maps__find(&m, 0xffffffffffffffff), "after the last");
	cr_assert_null(proc_maps__find(&m, 0));
	proc_maps__release(&m);
}

Test(proc_maps, every_entry_is_found_by_its_bounds)
{
	struct proc_maps m;

	cr_assert_eq(proc_maps__load_buf(maps_text, strlen(maps_text), &m), 0);
	for (size_t i = 0; i < m.nr; i++) {
		const struct map_entry *e = &m.entries[i];

		cr_assert_eq(proc_maps__find(&m, e->start), e);
		cr_assert_eq(proc_maps__find(&m, e->end - 1), e);
		cr_assert_neq(proc_maps__find(&m, e->end), e);
		cr_assert_neq(proc_maps__find(&m, e->start - 1), e);
	}
	proc_maps__release(&m);
}

Test(proc_maps, empty_input)
{
	struct proc_maps m;

	cr_assert_eq(proc_maps__load_buf("", 0, &m), 0);
	cr_assert_eq(m.nr, 0);
	cr_assert_null(proc_maps__find(&m, 0x1000));
	proc_maps__release(&m);
}

Test(proc_maps, buffer_is_bounded_by_its_length)
{
	struct proc_maps m;
	/* stop in the middle of the libc line: its path is cut short */
	const char *cut = strstr(maps_text, "libc.so.6");

	cr_assert_eq(proc_maps__load_buf(maps_text, cut - maps_text + 4, &m), 0);
	cr_assert_eq(m.nr, 3);
	cr_assert_str_eq(m.entries[2].path, "/usr/lib/x86_64-linux-gnu/libc");
	proc_maps__release(&m);
}

/*
 * A copy is a reading of its own: every field the same, its own paths, so
 * that the symbols' reading handed to two workers is released by each.
 */
Test(proc_maps, copy_is_equal_and_its_own)
{
	struct proc_maps m, c;

	cr_assert_eq(proc_maps__load_buf(maps_text, strlen(maps_text), &m), 0);
	cr_assert_eq(proc_maps__copy(&c, &m), 0);
	cr_assert_eq(c.nr, m.nr);
	cr_assert_neq(c.entries, m.entries);
	for (size_t i = 0; i < m.nr; i++) {
		const struct map_entry *a = &m.entries[i], *b = &c.entries[i];

		cr_assert_eq(b->start, a->start, "entry %zu", i);
		cr_assert_eq(b->end, a->end, "entry %zu", i);
		cr_assert_eq(b->offset, a->offset, "entry %zu", i);
		cr_assert_eq(b->inode, a->inode, "entry %zu", i);
		cr_assert_eq(b->dev_major, a->dev_major, "entry %zu", i);
		cr_assert_eq(b->dev_minor, a->dev_minor, "entry %zu", i);
		cr_assert_str_eq(b->perms, a->perms, "entry %zu", i);
		cr_assert_eq(b->deleted, a->deleted, "entry %zu", i);
		cr_assert_str_eq(b->path, a->path, "entry %zu", i);
		cr_assert_neq(b->path, a->path, "entry %zu shares its path", i);
	}
	/* the original gone, the copy still reads (ASan: nothing freed twice or read after) */
	proc_maps__release(&m);
	cr_assert_str_eq(proc_maps__find(&c, 0x7f2000000000)->path,
			 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert(c.entries[3].deleted);
	proc_maps__release(&c);
}

Test(proc_maps, copy_of_nothing_is_empty)
{
	struct proc_maps m = { 0 }, c = { .nr = 7 };

	cr_assert_eq(proc_maps__copy(&c, &m), 0);
	cr_assert_eq(c.nr, 0);
	cr_assert_null(c.entries);
	proc_maps__release(&c);
}

Test(proc_maps, load_file)
{
	char *dir = make_tmpdir();
	char *path = write_in(dir, "maps", maps_text);
	struct proc_maps m;

	cr_assert_eq(proc_maps__load_file(path, &m), 0);
	cr_assert_eq(m.nr, 6);
	cr_assert_str_eq(m.entries[4].path, "[vdso]");
	proc_maps__release(&m);
	cr_assert_eq(proc_maps__load_file("/nonexistent/maps", &m), -ENOENT);
	free(path);
	rm_rf(dir);
}

Test(proc_maps, load_file_larger_than_one_read)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "maps");
	struct proc_maps m;
	FILE *f;

	f = fopen(path, "w");
	cr_assert_not_null(f);
	for (unsigned long i = 0; i < 2000; i++)
		fprintf(f, "%lx-%lx %s 00000000 08:01 %lu  /lib/l%lu.so\n",
			0x7f0000000000 + i * 0x2000, 0x7f0000001000 + i * 0x2000,
			i % 2 ? "rw-p" : "r-xp", i, i);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(proc_maps__load_file(path, &m), 0);
	cr_assert_eq(m.nr, 1000);
	cr_assert_str_eq(proc_maps__find(&m, 0x7f0000000000 + 1998 * 0x2000 + 5)->path,
			 "/lib/l1998.so");
	proc_maps__release(&m);
	free(path);
	rm_rf(dir);
}

/* Something in this test binary's own text. */
static __attribute__((noinline)) int here(void)
{
	return 42;
}

Test(proc_maps, load_pid_of_this_process)
{
	const struct map_entry *e;
	struct proc_maps m;

	cr_assert_eq(proc_maps__load_pid(getpid(), &m), 0);
	cr_assert_gt(m.nr, 0);
	e = proc_maps__find(&m, (uint64_t)(uintptr_t)here);
	cr_assert_not_null(e);
	cr_assert(ends_with(e->path, "/unit_tests"), "mapped from '%s'", e->path);
	cr_assert_neq(e->inode, 0);
	cr_assert_eq(here(), 42);
	proc_maps__release(&m);
}

Test(proc_maps, load_pid_of_no_process)
{
	struct proc_maps m;

	cr_assert_eq(proc_maps__load_pid(INT_MAX, &m), -ESRCH);
}

/* A file of one page of d's mapped executable; its path in *path. */
static void *map_exec_file(const char *d, const char *name, char **path)
{
	char page[4096] = { 0 };
	void *at;
	int fd;

	*path = path_in(d, name);
	fd = open(*path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
	at = mmap(NULL, sizeof(page), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	cr_assert_neq(at, MAP_FAILED);
	close(fd);
	return at;
}

static bool kernel_before(unsigned int major, unsigned int minor)
{
	struct utsname u;
	unsigned int a = 0, b = 0;

	return !uname(&u) && sscanf(u.release, "%u.%u", &a, &b) == 2 &&
	       (a < major || (a == major && b < minor));
}

/* What the kernel answers, mapping by mapping, is what its text says. */
Test(proc_maps, query_agrees_with_text)
{
	char *dir = make_tmpdir(), *spaced, *gone, *text = NULL;
	void *a = map_exec_file(dir, "with space.so", &spaced);
	void *b = map_exec_file(dir, "gone.so", &gone);
	struct proc_maps q, t;
	size_t len = 0;
	int fd, err;
	FILE *f;

	cr_assert_eq(unlink(gone), 0);
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	err = proc_maps__query_fd(fd, &q);
	close(fd);
	if (err == -ENOTTY && kernel_before(6, 11))
		cr_skip_test("no PROCMAP_QUERY before Linux 6.11");
	cr_assert_eq(err, 0, "PROCMAP_QUERY: %d", err);
	f = fopen("/proc/self/maps", "re");
	cr_assert_not_null(f);
	cr_assert_gt(getdelim(&text, &len, '\0', f), 0);
	fclose(f);
	cr_assert_eq(proc_maps__load_buf(text, strlen(text), &t), 0);
	/* the text has the vsyscall page, which is no mapping of the process's */
	if (t.nr && !strcmp(t.entries[t.nr - 1].path, "[vsyscall]"))
		map_entry__release(&t.entries[--t.nr]);
	cr_assert_eq(q.nr, t.nr);
	for (size_t i = 0; i < q.nr; i++) {
		const struct map_entry *x = &q.entries[i], *y = &t.entries[i];

		cr_expect_eq(x->start, y->start);
		cr_expect_eq(x->end, y->end);
		cr_expect_eq(x->offset, y->offset);
		cr_expect_eq(x->inode, y->inode);
		cr_expect_eq(x->dev_major, y->dev_major);
		cr_expect_eq(x->dev_minor, y->dev_minor);
		cr_expect_str_eq(x->perms, y->perms);
		cr_expect_str_eq(x->path, y->path);
		cr_expect_eq(x->deleted, y->deleted, "%s", x->path);
	}
	cr_assert(proc_maps__find(&q, (uintptr_t)a) &&
		  !strcmp(proc_maps__find(&q, (uintptr_t)a)->path, spaced));
	cr_assert(proc_maps__find(&q, (uintptr_t)b) && proc_maps__find(&q, (uintptr_t)b)->deleted);
	proc_maps__release(&q);
	proc_maps__release(&t);
	munmap(a, 4096);
	munmap(b, 4096);
	free(text);
	free(spaced);
	free(gone);
	rm_rf(dir);
}

/* A file that is no /proc maps is read as text, as before the kernel could be asked. */
Test(proc_maps, query_refused_by_a_plain_file)
{
	char *dir = make_tmpdir();
	char *path = write_in(dir, "maps", maps_text);
	struct proc_maps m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(proc_maps__query_fd(fd, &m), -ENOTTY);
	cr_assert_eq(m.nr, 0);
	close(fd);
	free(path);
	rm_rf(dir);
}

/* A reading's stamps: each file mapping's, one look per file, none without map_files. */
Test(proc_maps, stamp_names_each_file_mapped)
{
	char *dir = make_tmpdir(), *one, *two;
	void *a = map_exec_file(dir, "one.so", &one);
	void *b = map_exec_file(dir, "two.so", &two);
	const struct map_entry *ea, *eb, *vdso = NULL;
	struct file_stamp want;
	struct proc_maps m;
	struct stat st;
	int fd = open(one, O_RDONLY);
	void *a2 = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	close(fd);
	cr_assert_neq(a2, MAP_FAILED);
	cr_assert_eq(proc_maps__load_pid(getpid(), &m), 0);
	proc_maps__stamp(&m, "/proc", getpid());
	ea = proc_maps__find(&m, (uintptr_t)a);
	eb = proc_maps__find(&m, (uintptr_t)b);
	cr_assert(ea && eb && ea->stamped && eb->stamped);
	cr_assert_eq(stat(one, &st), 0);
	file_stamp__init(&want, &st);
	cr_assert_eq(file_stamp__cmp(&ea->stamp, &want), 0);
	cr_assert_eq(file_stamp__cmp(&proc_maps__find(&m, (uintptr_t)a2)->stamp, &want), 0,
		     "a second mapping of the file, another stamp");
	cr_assert_eq(stat(two, &st), 0);
	file_stamp__init(&want, &st);
	cr_assert_eq(file_stamp__cmp(&eb->stamp, &want), 0);
	for (size_t i = 0; i < m.nr; i++)
		if (!strcmp(m.entries[i].path, "[vdso]"))
			vdso = &m.entries[i];
	cr_assert(vdso && !vdso->stamped, "no file, a stamp");
	/* where map_files cannot be looked in, nothing is stamped */
	proc_maps__stamp(&m, dir, getpid());
	for (size_t i = 0; i < m.nr; i++)
		cr_assert(!m.entries[i].stamped, "%s stamped", m.entries[i].path);
	proc_maps__release(&m);
	munmap(a, 4096);
	munmap(a2, 4096);
	munmap(b, 4096);
	free(one);
	free(two);
	rm_rf(dir);
}
