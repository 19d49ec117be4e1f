// SPDX-License-Identifier: GPL-2.0
/*
 * The on-disk cache of unwind tables (unwind/table_cache.c): a table comes
 * back as it went in, and every file that is not exactly what a store
 * writes, where only we can write, is refused rather than used.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "unwind/table_cache.h"
#include "test_util.h"

#define FIXTURE_UNWIND FIXTURE_DIR "/fixture_unwind"
#define SYSTEM_LIBC "/lib/x86_64-linux-gnu/libc.so.6"

struct env {
	char *tmp;		/* from make_tmpdir() */
	char *dir;		/* the cache directory, tmp/cache */
	struct table_cache *cache;
	struct table_key key;	/* a made-up digest */
	struct cfi_table table;	/* made up: 100 valid rows */
};

static void synth_table(struct cfi_table *t, size_t nr, int salt)
{
	t->rows = calloc(nr, sizeof(*t->rows));
	cr_assert_not_null(t->rows);
	t->nr = nr;
	for (size_t i = 0; i < nr; i++)
		t->rows[i] = (struct unwind_row){
			.pc = 0x1000 + 16 * i, .cfa_off = 8 + 8 * (i % 4) + salt,
			.ra_off = -8, .cfa_rule = UNW_CFA_SP, .fp_rule = UNW_FP_SAME,
		};
	t->stats = (struct cfi_table_stats){ .fdes = nr / 2, .bad_fdes = 1, .unsupported = salt };
}

static void fake_key(struct table_key *key, uint8_t first)
{
	for (size_t i = 0; i < sizeof(key->digest); i++)
		key->digest[i] = first + i;
}

/* The cache at dir, capped at max bytes. */
static struct table_cache *open_capped(const char *dir, uint64_t max)
{
	struct table_cache *c;
	char why[512];

	cr_assert_eq(table_cache__open(dir, max, &c, why, sizeof(why)), 0, "%s", why);
	return c;
}

static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	e->tmp = make_tmpdir();
	cr_assert_neq(asprintf(&e->dir, "%s/cache", e->tmp), -1);
	e->cache = open_capped(e->dir, 1ull << 30);
	fake_key(&e->key, 0xa0);
	synth_table(&e->table, 100, 0);
}

static void env_fini(struct env *e)
{
	table_cache__free(e->cache);
	cfi_table__release(&e->table);
	free(e->dir);
	rm_rf(e->tmp);
}

/* The path of key's file in the cache directory (the caller frees it). */
static char *entry_path(const struct env *e, const struct table_key *key)
{
	char name[TABLE_KEY_NAME_MAX], *path;

	cr_assert_eq(table_key__name(key, name, sizeof(name)), 0);
	cr_assert_neq(asprintf(&path, "%s/%s", e->dir, name), -1);
	return path;
}

static void assert_tables_equal(const struct cfi_table *a, const struct cfi_table *b)
{
	cr_assert_eq(a->nr, b->nr);
	cr_assert_eq(memcmp(&a->stats, &b->stats, sizeof(a->stats)), 0);
	cr_assert_eq(memcmp(a->rows, b->rows, a->nr * sizeof(*a->rows)), 0);
}

/* Store e's table, see that it loads, and return its file's path. */
static char *store_intact(struct env *e)
{
	struct cfi_table t;

	cr_assert_eq(table_cache__store(e->cache, &e->key, &e->table), 0);
	cr_assert_eq(table_cache__load(e->cache, &e->key, &t), 0, "the intact file must load");
	cfi_table__release(&t);
	return entry_path(e, &e->key);
}

static void assert_load_fails(struct env *e, int err)
{
	struct cfi_table t = { .nr = 99 };

	cr_assert_eq(table_cache__load(e->cache, &e->key, &t), err);
	cr_assert_null(t.rows);
	cr_assert_eq(t.nr, 0);
}

/* Store e's table, damage its file with change(), and expect load to fail with err. */
static void assert_refused(struct env *e, void (*change)(struct env *e, const char *path), int err)
{
	char *path = store_intact(e);

	change(e, path);
	assert_load_fails(e, err);
	free(path);
}

/* The key of path's table, as unwind_procs.c makes it (no debug file). */
static void key_of(const char *path, struct table_key *key)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;

	cr_assert_geq(fd, 0);
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(cfi_table__digest(elf, NULL, NULL, key->digest), 0);
	elf_end(elf);
	close(fd);
}

static void round_trip(const char *elf)
{
	struct cfi_table built, loaded;
	struct table_key key;
	struct env e;

	env_init(&e);
	cr_assert_eq(cfi_table__build_file(elf, NULL, &built), 0);
	cr_assert_gt(built.nr, 10);
	key_of(elf, &key);
	cr_assert_eq(table_cache__store(e.cache, &key, &built), 0);
	cr_assert_eq(table_cache__load(e.cache, &key, &loaded), 0);
	assert_tables_equal(&loaded, &built);
	cfi_table__release(&built);
	cfi_table__release(&loaded);
	env_fini(&e);
}

Test(table_cache, round_trip_of_a_built_table)
{
	round_trip(FIXTURE_UNWIND);
}

Test(table_cache, round_trip_of_libc)
{
	if (access(SYSTEM_LIBC, R_OK))
		skip_unless_ci("no %s", SYSTEM_LIBC);
	round_trip(SYSTEM_LIBC);
}

Test(table_cache, round_trip_of_an_empty_table)
{
	struct cfi_table empty = { .stats = { .fdes = 3 } }, t;
	struct env e;

	env_init(&e);
	cr_assert_eq(table_cache__store(e.cache, &e.key, &empty), 0);
	cr_assert_eq(table_cache__load(e.cache, &e.key, &t), 0);
	cr_assert_eq(t.nr, 0);
	cr_assert_eq(t.stats.fdes, 3);
	env_fini(&e);
}

Test(table_cache, a_missing_entry_is_enoent)
{
	struct cfi_table t;
	struct table_key other;
	struct env e;

	env_init(&e);
	cr_assert_eq(table_cache__load(e.cache, &e.key, &t), -ENOENT);
	fake_key(&other, 0x10);
	cr_assert_eq(table_cache__store(e.cache, &other, &e.table), 0);
	cr_assert_eq(table_cache__load(e.cache, &e.key, &t), -ENOENT);
	env_fini(&e);
}

static void truncate_by_one(struct env *e, const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 1), 0);
}

static void truncate_by_a_row(struct env *e, const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - sizeof(struct unwind_row)), 0);
}

static void truncate_in_header(struct env *e, const char *path)
{
	cr_assert_eq(truncate(path, offsetof(struct table_cache_header, key)), 0);
}

/* A valid row after the last: it sorts, but the checksum does not cover it. */
static void append_a_row(struct env *e, const char *path)
{
	struct unwind_row row = { .pc = 0xffff0000, .cfa_rule = UNW_CFA_END };
	int fd = open(path, O_WRONLY | O_APPEND);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, &row, sizeof(row)), (ssize_t)sizeof(row));
	close(fd);
}

Test(table_cache, a_file_of_another_length_is_refused)
{
	struct env e;

	env_init(&e);
	assert_refused(&e, truncate_by_one, -EINVAL);
	assert_refused(&e, truncate_by_a_row, -EINVAL);
	assert_refused(&e, truncate_in_header, -EINVAL);
	assert_refused(&e, append_a_row, -EINVAL);
	env_fini(&e);
}

static void poke(const char *path, off_t off, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, bytes, len, off), (ssize_t)len);
	close(fd);
}

/* A bit of one row's cfa_off: the rows stay sorted, only the checksum can tell. */
static void flip_a_row_byte(struct env *e, const char *path)
{
	off_t off = sizeof(struct table_cache_header) + 50 * sizeof(struct unwind_row) +
		    offsetof(struct unwind_row, cfa_off);
	unsigned char b = e->table.rows[50].cfa_off ^ 1;

	poke(path, off, &b, 1);
}

/* The statistics are outside the rows, and checked too. */
static void change_the_stats(struct env *e, const char *path)
{
	uint64_t fdes = 12345;

	poke(path, offsetof(struct table_cache_header, stats.fdes), &fdes, sizeof(fdes));
}

Test(table_cache, a_flipped_byte_is_refused)
{
	struct env e;

	env_init(&e);
	assert_refused(&e, flip_a_row_byte, -EINVAL);
	assert_refused(&e, change_the_stats, -EINVAL);
	env_fini(&e);
}

/* Each field of the header as another format would have it. */
Test(table_cache, a_header_of_another_format_is_refused)
{
	static const struct {
		size_t off;
		uint32_t val;
	} fields[] = {
		{ offsetof(struct table_cache_header, magic), 'X' },
		{ offsetof(struct table_cache_header, version), TABLE_CACHE_VERSION + 1 },
		{ offsetof(struct table_cache_header, row_size), 24 },
		{ offsetof(struct table_cache_header, machine), 183 },	/* EM_AARCH64 */
		{ offsetof(struct table_cache_header, header_size),
		  sizeof(struct table_cache_header) + 16 },
	};
	struct env e;

	env_init(&e);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		char *path = store_intact(&e);

		poke(path, fields[i].off, &fields[i].val, sizeof(fields[i].val));
		assert_load_fails(&e, -EINVAL);
		free(path);
	}
	env_fini(&e);
}

/* Another key's file, whole and valid, renamed onto this key's name. */
static void other_keys_file(struct env *e, const char *path)
{
	struct table_key other;
	struct cfi_table t;
	char *from;

	fake_key(&other, 0x30);
	synth_table(&t, 40, 1);
	cr_assert_eq(table_cache__store(e->cache, &other, &t), 0);
	cfi_table__release(&t);
	from = entry_path(e, &other);
	cr_assert_eq(rename(from, path), 0);
	free(from);
}

Test(table_cache, another_keys_file_under_this_name_is_refused)
{
	struct env e;

	env_init(&e);
	assert_refused(&e, other_keys_file, -EINVAL);
	env_fini(&e);
}

/* The valid file moved out of the cache, a symlink to it in its place. */
static void symlink_to_valid_copy(struct env *e, const char *path)
{
	char *outside;

	cr_assert_neq(asprintf(&outside, "%s/outside", e->tmp), -1);
	cr_assert_eq(rename(path, outside), 0);
	cr_assert_eq(symlink(outside, path), 0);
	free(outside);
}

static void fifo_in_place(struct env *e, const char *path)
{
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
}

static void directory_in_place(struct env *e, const char *path)
{
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkdir(path, 0700), 0);
}

Test(table_cache, what_is_not_a_regular_file_is_refused)
{
	struct env e;

	env_init(&e);
	assert_refused(&e, symlink_to_valid_copy, -ELOOP);
	env_fini(&e);
	env_init(&e);
	assert_refused(&e, fifo_in_place, -EPERM);
	env_fini(&e);
	env_init(&e);
	assert_refused(&e, directory_in_place, -EPERM);
	env_fini(&e);
}

Test(table_cache, a_store_replaces_a_symlink_and_not_its_target)
{
	struct cfi_table t;
	char *outside, *before, *after;
	size_t len_before, len_after;
	struct env e;

	env_init(&e);
	assert_refused(&e, symlink_to_valid_copy, -ELOOP);
	cr_assert_neq(asprintf(&outside, "%s/outside", e.tmp), -1);
	before = read_whole(outside, &len_before);
	cfi_table__release(&e.table);
	synth_table(&e.table, 7, 2);
	cr_assert_eq(table_cache__store(e.cache, &e.key, &e.table), 0);
	after = read_whole(outside, &len_after);
	cr_assert(len_before == len_after && !memcmp(before, after, len_after),
		  "the store wrote through the symlink");
	cr_assert_eq(table_cache__load(e.cache, &e.key, &t), 0);
	assert_tables_equal(&t, &e.table);
	cfi_table__release(&t);
	free(before);
	free(after);
	free(outside);
	env_fini(&e);
}

static void chown_to_other(struct env *e, const char *path)
{
	cr_assert_eq(chown(path, 4242, 4242), 0);
}

static void mode_0666(struct env *e, const char *path)
{
	cr_assert_eq(chmod(path, 0666), 0);
}

static void mode_0620(struct env *e, const char *path)
{
	cr_assert_eq(chmod(path, 0620), 0);
}

Test(table_cache, a_file_others_could_write_is_refused)
{
	struct env e;

	env_init(&e);
	assert_refused(&e, mode_0666, -EPERM);
	assert_refused(&e, mode_0620, -EPERM);
	if (geteuid() != 0) {
		env_fini(&e);
		skip_unless_ci("chown needs root");
	}
	assert_refused(&e, chown_to_other, -EPERM);
	env_fini(&e);
}

/* Row 10 replaced: out of order, or rules no build of ours writes; the checksum is right. */
Test(table_cache, rows_out_of_order_or_with_unknown_rules_are_refused)
{
	static const struct unwind_row bad[] = {
		{ .pc = 0x1000 + 16 * 9, .cfa_rule = UNW_CFA_SP },	/* row 9's pc */
		{ .pc = 0x10, .cfa_rule = UNW_CFA_SP },			/* going back */
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_MAX + 1 },
		{ .pc = 0x1000 + 16 * 10, .fp_rule = UNW_FP_MAX + 1 },
		{ .pc = 0x1000 + 16 * 10, .ra_rule = UNW_RA_MAX + 1 },
		/* a register where the rule reads none, or past the general ones */
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_SP, .cfa_reg = 3 },
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_REG, .cfa_reg = UNW_NR_REGS },
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_REG, .cfa_reg = UNW_REG_SP },
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_DEREF, .cfa_reg = 200 },
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_SP, .ra_rule = UNW_RA_REG, .ra_reg = 16 },
		{ .pc = 0x1000 + 16 * 10, .cfa_rule = UNW_CFA_SP, .ra_rule = UNW_RA_REG, .ra_reg = UNW_REG_SP },
	};
	struct cfi_table t;
	struct env e;

	env_init(&e);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct unwind_row keep = e.table.rows[10];

		e.table.rows[10] = bad[i];
		cr_assert_eq(table_cache__store(e.cache, &e.key, &e.table), 0);
		cr_assert_eq(table_cache__load(e.cache, &e.key, &t), -EINVAL, "case %zu", i);
		e.table.rows[10] = keep;
	}
	cr_assert_eq(table_cache__store(e.cache, &e.key, &e.table), 0);
	cr_assert_eq(table_cache__load(e.cache, &e.key, &t), 0);
	cfi_table__release(&t);
	env_fini(&e);
}

Test(table_cache, open_creates_the_directory_private)
{
	struct table_cache *c;
	char *tmp = make_tmpdir(), *dir, *parent;
	mode_t mask = umask(022);
	struct stat st;

	cr_assert_neq(asprintf(&dir, "%s/a//b/unwind/", tmp), -1);
	cr_assert_neq(asprintf(&parent, "%s/a/b", tmp), -1);
	c = open_capped(dir, 1 << 20);
	umask(mask);
	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700, "mode %o", st.st_mode & 07777);
	cr_assert_eq(stat(parent, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0755, "parent's mode %o", st.st_mode & 07777);
	free(parent);
	table_cache__free(c);
	/* open again: it is there */
	c = open_capped(dir, 1 << 20);
	table_cache__free(c);
	table_cache__free(NULL);
	free(dir);
	rm_rf(tmp);
}

/* Refused with -EPERM and why, a line naming the directory at fault. */
static void assert_open_refused(const char *dir, const char *at_fault, const char *what)
{
	struct table_cache *c = (void *)1;
	char why[512];

	cr_assert_eq(table_cache__open(dir, 1 << 20, &c, why, sizeof(why)), -EPERM, "%s", dir);
	cr_assert_null(c);
	cr_assert(strstr(why, what), "%s: why '%s' has no '%s'", dir, why, what);
	if (at_fault)
		cr_assert(strstr(why, at_fault), "why '%s' does not name '%s'", why, at_fault);
}

Test(table_cache, a_directory_others_could_change_is_refused)
{
	char *tmp = make_tmpdir(), *dir, *link;
	struct table_cache *c;

	cr_assert_neq(asprintf(&dir, "%s/cache", tmp), -1);
	cr_assert_neq(asprintf(&link, "%s/link", tmp), -1);
	cr_assert_eq(mkdir(dir, 0770), 0);
	cr_assert_eq(chmod(dir, 0770), 0);
	assert_open_refused(dir, dir, "written by other users");
	cr_assert_eq(chmod(dir, 0702), 0);
	assert_open_refused(dir, dir, "written by other users");
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(symlink(dir, link), 0);
	assert_open_refused(link, link, "not a directory");
	c = open_capped(dir, 1 << 20);
	table_cache__free(c);
	if (geteuid() == 0) {
		cr_assert_eq(chown(dir, 4242, 4242), 0);
		assert_open_refused(dir, dir, "belongs to another user");
	}
	free(link);
	free(dir);
	rm_rf(tmp);
	if (geteuid() != 0)
		skip_unless_ci("chown needs root");
}

/*
 * Any directory above it that another user could change: they could put
 * their own directory, and their own tables, in the cache's place.
 * Nothing is made below it.
 */
Test(table_cache, a_directory_under_one_others_could_change_is_refused)
{
	char *tmp = make_tmpdir(), *open_dir = path_in(tmp, "open"), *dir, *deep, *link;
	struct stat st;

	cr_assert_neq(asprintf(&dir, "%s/cache", open_dir), -1);
	cr_assert_neq(asprintf(&deep, "%s/a/b/cache", open_dir), -1);
	cr_assert_eq(mkdir(open_dir, 0777), 0);
	cr_assert_eq(chmod(open_dir, 0777), 0);
	cr_assert_eq(mkdir(dir, 0700), 0);
	assert_open_refused(dir, open_dir, "written by other users");
	assert_open_refused(deep, open_dir, "written by other users");
	cr_assert_neq(stat(deep, &st), 0, "made under a directory others can write");
	/* sticky, like /tmp: root's own directory in it is safe, one yet to be made is not */
	if (geteuid() == 0) {
		cr_assert_eq(chmod(open_dir, 01777), 0);
		table_cache__free(open_capped(dir, 1 << 20));
		assert_open_refused(deep, open_dir, "written by other users");
	}
	/* a symlink on the way */
	link = path_in(tmp, "link");
	cr_assert_eq(symlink(open_dir, link), 0);
	free(dir);
	cr_assert_neq(asprintf(&dir, "%s/cache", link), -1);
	assert_open_refused(dir, link, "not a directory");
	free(link);
	free(deep);
	free(dir);
	free(open_dir);
	rm_rf(tmp);
}

/* A reader loading while the writer stores again and again sees one table or the other, whole. */
Test(table_cache, store_is_atomic_for_a_concurrent_reader)
{
	struct cfi_table b, t;
	struct timespec end, now;
	int status, loads = 0;
	struct env e;
	pid_t pid;

	env_init(&e);
	cfi_table__release(&e.table);
	synth_table(&e.table, 20000, 0);
	synth_table(&b, 30000, 3);
	cr_assert_eq(table_cache__store(e.cache, &e.key, &e.table), 0);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += 400 * 1000 * 1000;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		do {
			int err = table_cache__load(e.cache, &e.key, &t);

			if (err)
				_exit(-err & 0x7f);
			if (t.nr != e.table.nr && t.nr != b.nr)
				_exit(100);
			if (memcmp(t.rows, t.nr == b.nr ? b.rows : e.table.rows,
				   t.nr * sizeof(*t.rows)))
				_exit(101);
			cfi_table__release(&t);
			loads++;
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (now.tv_sec + now.tv_nsec / 1e9 < end.tv_sec + end.tv_nsec / 1e9 ||
			 loads < 20);
		_exit(0);
	}
	for (int i = 0; waitpid(pid, &status, WNOHANG) == 0; i++)
		cr_assert_eq(table_cache__store(e.cache, &e.key, i % 2 ? &e.table : &b), 0);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "the reader saw a bad table (%d)",
		     WEXITSTATUS(status));
	cfi_table__release(&b);
	env_fini(&e);
}

Test(table_cache, an_entry_is_named_by_the_digest)
{
	char name[TABLE_KEY_NAME_MAX], want[TABLE_KEY_NAME_MAX];
	struct table_key key;

	fake_key(&key, 0xa0);
	cr_assert_eq(table_key__name(&key, name, sizeof(name)), 0);
	snprintf(want, sizeof(want),
		 "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf.v%d",
		 TABLE_CACHE_VERSION);
	cr_assert_str_eq(name, want);
	cr_assert_eq(table_key__name(&key, name, 20), -ENAMETOOLONG);
}

/* Set path's atime (its last use) to sec, its mtime left. */
static void set_used(const char *path, time_t sec)
{
	struct timespec times[2] = { { .tv_sec = sec }, { .tv_nsec = UTIME_OMIT } };

	cr_assert_eq(utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), 0, "%s", path);
}

static bool has_entry(struct env *e, const struct table_key *key)
{
	struct cfi_table t;
	int err = table_cache__load(e->cache, key, &t);

	cfi_table__release(&t);
	cr_assert(err == 0 || err == -ENOENT, "load: %d", err);
	return !err;
}

#define ENTRY_ROWS 1000
#define ENTRY_BYTES (sizeof(struct table_cache_header) + ENTRY_ROWS * sizeof(struct unwind_row))

/*
 * Five entries fill the cap; the sixth evicts the least recently used
 * (by atime: a load makes an entry the most recent) until the entries
 * fill 7/8 of it: the two oldest. Only entries' names are counted and
 * removed: other files, and a symlink named as an entry, are left.
 */
Test(table_cache, a_store_past_the_cap_evicts_the_least_recently_used)
{
	struct table_key keys[6], link_key;
	struct table_cache_stats st;
	char *path, *link, *other, *outside, *old;
	size_t len;
	struct env e;

	env_init(&e);
	table_cache__free(e.cache);
	e.cache = open_capped(e.dir, 5 * ENTRY_BYTES + 100);
	cfi_table__release(&e.table);
	synth_table(&e.table, ENTRY_ROWS, 0);
	/* a file of someone's and a link, in the directory: never ours to remove */
	other = path_in(e.dir, "notes");
	write_text(other, "kept");
	outside = path_in(e.tmp, "outside");
	write_text(outside, "kept too");
	fake_key(&link_key, 0xf0);
	link = entry_path(&e, &link_key);
	cr_assert_eq(symlink(outside, link), 0);
	set_used(link, 1);
	/* an entry of version 2, older than any */
	old = path_in(e.dir, "id-0011-u0.v2");
	write_text(old, "v2");
	set_used(old, 2);
	for (int i = 0; i < 5; i++) {
		fake_key(&keys[i], 0x10 * (i + 1));
		cr_assert_eq(table_cache__store(e.cache, &keys[i], &e.table), 0);
		path = entry_path(&e, &keys[i]);
		set_used(path, 1000 + i);
		free(path);
	}
	table_cache__stats(e.cache, &st);
	cr_assert_eq(st.evicted, 0, "evicted under the cap");
	/* the oldest used now */
	cr_assert(has_entry(&e, &keys[0]));
	fake_key(&keys[5], 0x60);
	cr_assert_eq(table_cache__store(e.cache, &keys[5], &e.table), 0);
	table_cache__stats(e.cache, &st);
	cr_assert_eq(st.evicted, 3, "evicted %llu", (unsigned long long)st.evicted);
	cr_assert_eq(access(old, F_OK), -1, "the old version's entry is left");
	cr_assert(!has_entry(&e, &keys[1]) && !has_entry(&e, &keys[2]),
		  "the least recently used are left");
	cr_assert(has_entry(&e, &keys[0]), "the entry loaded last was evicted");
	cr_assert(has_entry(&e, &keys[3]) && has_entry(&e, &keys[4]) && has_entry(&e, &keys[5]));
	free(read_whole(other, &len));
	cr_assert_eq(len, 4, "another file was changed");
	free(read_whole(outside, &len));
	cr_assert_eq(len, 8, "the link's target was changed");
	cr_assert_eq(readlink(link, (char[8]){ 0 }, 8), 8, "the link was removed");
	free(link);
	free(old);
	free(other);
	free(outside);
	env_fini(&e);
}

Test(table_cache, a_table_over_the_cap_alone_is_not_stored)
{
	struct table_cache_stats st;
	struct env e;

	env_init(&e);
	table_cache__free(e.cache);
	e.cache = open_capped(e.dir, sizeof(struct table_cache_header) + 99 * sizeof(struct unwind_row));
	cr_assert_eq(table_cache__store(e.cache, &e.key, &e.table), -ENOSPC);
	assert_load_fails(&e, -ENOENT);
	table_cache__stats(e.cache, &st);
	cr_assert_eq(st.over_cap, 1);
	cr_assert_eq(st.evicted, 0);
	env_fini(&e);
}

/* A load marks its entry used: atime now, the rest of the file as it was. */
Test(table_cache, a_load_marks_the_entry_used)
{
	struct timespec before;
	struct cfi_table t;
	struct stat st;
	char *path;
	struct env e;

	env_init(&e);
	path = store_intact(&e);
	set_used(path, 1000);
	clock_gettime(CLOCK_REALTIME, &before);
	cr_assert_eq(table_cache__load(e.cache, &e.key, &t), 0);
	cfi_table__release(&t);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_geq(st.st_atim.tv_sec, before.tv_sec - 1, "atime %ld", (long)st.st_atim.tv_sec);
	free(path);
	env_fini(&e);
}
