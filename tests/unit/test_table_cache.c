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

#include "cfi_table.h"
#include "table_cache.h"
#include "test_util.h"

#define FIXTURE_UNWIND FIXTURE_DIR "/fixture_unwind"
#define SYSTEM_LIBC "/lib/x86_64-linux-gnu/libc.so.6"

struct env {
	char *tmp;		/* from make_tmpdir() */
	char *dir;		/* the cache directory, tmp/cache */
	struct table_cache *cache;
	struct table_key key;	/* a made-up build-id */
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

static void fake_key(const struct env *e, struct table_key *key, uint8_t first)
{
	uint8_t id[20];
	struct stat st;

	for (size_t i = 0; i < sizeof(id); i++)
		id[i] = first + i;
	cr_assert_eq(stat(e->tmp, &st), 0);
	cr_assert_eq(table_key__init(key, id, sizeof(id), &st), 0);
}

static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	e->tmp = make_tmpdir();
	cr_assert_neq(asprintf(&e->dir, "%s/cache", e->tmp), -1);
	cr_assert_eq(table_cache__open(e->dir, &e->cache), 0);
	fake_key(e, &e->key, 0xa0);
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

static void key_of(const char *path, struct table_key *key)
{
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(table_key__from_fd(fd, key), 0);
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
	fake_key(&e, &other, 0x10);
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

	fake_key(e, &other, 0x30);
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
	cr_assert_eq(table_cache__open(dir, &c), 0);
	umask(mask);
	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700, "mode %o", st.st_mode & 07777);
	cr_assert_eq(stat(parent, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0755, "parent's mode %o", st.st_mode & 07777);
	free(parent);
	table_cache__free(c);
	/* open again: it is there */
	cr_assert_eq(table_cache__open(dir, &c), 0);
	table_cache__free(c);
	table_cache__free(NULL);
	free(dir);
	rm_rf(tmp);
}

Test(table_cache, a_directory_others_could_change_is_refused)
{
	struct table_cache *c = (void *)1;
	char *tmp = make_tmpdir(), *dir, *link;

	cr_assert_neq(asprintf(&dir, "%s/cache", tmp), -1);
	cr_assert_neq(asprintf(&link, "%s/link", tmp), -1);
	cr_assert_eq(mkdir(dir, 0770), 0);
	cr_assert_eq(chmod(dir, 0770), 0);
	cr_assert_eq(table_cache__open(dir, &c), -EPERM);
	cr_assert_null(c);
	cr_assert_eq(chmod(dir, 0702), 0);
	cr_assert_eq(table_cache__open(dir, &c), -EPERM);
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_eq(table_cache__open(link, &c), -EPERM, "a symlink to a good directory");
	cr_assert_eq(table_cache__open(dir, &c), 0);
	table_cache__free(c);
	if (geteuid() == 0) {
		cr_assert_eq(chown(dir, 4242, 4242), 0);
		cr_assert_eq(table_cache__open(dir, &c), -EPERM);
	}
	free(link);
	free(dir);
	rm_rf(tmp);
	if (geteuid() != 0)
		skip_unless_ci("chown needs root");
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

Test(table_cache, a_key_without_build_id_changes_when_the_file_is_rewritten)
{
	char *tmp = make_tmpdir(), *path, cmd[4200], *image;
	struct table_key k1, k2, k3;
	struct timespec times[2];
	size_t len;

	path = path_in(tmp, "nobuildid");
	snprintf(cmd, sizeof(cmd), "objcopy --remove-section .note.gnu.build-id '%s' '%s'",
		 FIXTURE_UNWIND, path);
	cr_assert_eq(system(cmd), 0);
	key_of(path, &k1);
	cr_assert_eq(k1.kind, TABLE_KEY_STAT, "the copy still has a build-id");
	key_of(path, &k2);
	cr_assert_eq(memcmp(&k1, &k2, sizeof(k1)), 0, "the same file, another key");
	/* the same bytes written again in place, a clock tick later */
	image = read_whole(path, &len);
	usleep(20 * 1000);
	write_bytes(path, image, len);
	key_of(path, &k3);
	cr_assert_neq(memcmp(&k1, &k3, sizeof(k1)), 0, "rewritten, the same key");
	cr_assert_eq(k1.ino, k3.ino, "not rewritten in place");
	/* its owner can put the old mtime back, not the old ctime */
	times[0] = (struct timespec){ .tv_nsec = UTIME_OMIT };
	times[1] = (struct timespec){ .tv_sec = k1.mtime_sec, .tv_nsec = k1.mtime_nsec };
	cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
	key_of(path, &k3);
	cr_assert_eq(k3.mtime_sec, k1.mtime_sec);
	cr_assert_eq(k3.mtime_nsec, k1.mtime_nsec);
	cr_assert_neq(memcmp(&k1, &k3, sizeof(k1)), 0, "the old mtime back, the same key");
	free(image);
	free(path);
	rm_rf(tmp);
}

/* readelf's "Build ID: <hex>" of path. */
static void readelf_build_id(const char *path, char *hex, size_t size)
{
	char cmd[4200], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " Build ID: %130s", hex) == 1)
			found = true;
	pclose(p);
	cr_assert(found && strlen(hex) < size, "no build-id in '%s'", path);
}

Test(table_cache, a_build_id_key_names_the_build_id_and_the_owner)
{
	char hex[132], name[TABLE_KEY_NAME_MAX], want[TABLE_KEY_NAME_MAX];
	struct table_key key, other;
	struct stat st;

	readelf_build_id(FIXTURE_UNWIND, hex, sizeof(hex));
	key_of(FIXTURE_UNWIND, &key);
	cr_assert_eq(key.kind, TABLE_KEY_BUILD_ID);
	cr_assert_eq(stat(FIXTURE_UNWIND, &st), 0);
	cr_assert_eq(table_key__name(&key, name, sizeof(name)), 0);
	snprintf(want, sizeof(want), "id-%s-u%u.v%d", hex, (unsigned)st.st_uid,
		 TABLE_CACHE_VERSION);
	cr_assert_str_eq(name, want);
	/* with its debug file's .debug_frame, another entry */
	other = key;
	other.flags |= TABLE_KEY_DEBUG_FILE;
	cr_assert_eq(table_key__name(&other, name, sizeof(name)), 0);
	snprintf(want, sizeof(want), "id-%s-u%u-d.v%d", hex, (unsigned)st.st_uid,
		 TABLE_CACHE_VERSION);
	cr_assert_str_eq(name, want);
	cr_assert_eq(table_key__name(&key, name, sizeof(name)), 0);
	/* the same build-id in a file of another user is another entry */
	st.st_uid = 4242;
	cr_assert_eq(table_key__init(&other, key.id, key.id_len, &st), 0);
	cr_assert_eq(table_key__name(&other, want, sizeof(want)), 0);
	cr_assert_str_neq(name, want);
	cr_assert_eq(table_key__init(&other, key.id, TABLE_KEY_ID_MAX + 1, &st), -EINVAL);
	cr_assert_eq(table_key__name(&key, name, 20), -ENAMETOOLONG);
}
