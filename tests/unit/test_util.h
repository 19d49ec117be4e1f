/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_util.h - helpers the unit tests share: temporary directories and
 * files, reading a file into memory, and asking binutils (nm, readelf)
 * about the fixtures, as an oracle independent of the code under test.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIXTURE_PIE FIXTURE_DIR "/fixture_pie"
#define FIXTURE_EXEC FIXTURE_DIR "/fixture_exec"
#define FIXTURE_LIB FIXTURE_DIR "/libfixture.so"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A fresh directory under /tmp; the caller removes it with rm_rf(). */
/*
 * For a test that needs something of the machine (root, a tmpfs, /dev/full,
 * a vDSO, readable kallsyms): skipped where it is missing, except under
 * `make check` (PROFILE_CI, as CI runs it), where that is a failure: CI's
 * machine has all of them, and a test skipped there checks nothing.
 */
#define skip_unless_ci(...)						\
	do {								\
		if (getenv("PROFILE_CI"))				\
			cr_assert_fail("needed here: " __VA_ARGS__);	\
		cr_skip_test(__VA_ARGS__);				\
	} while (0)

static inline char *make_tmpdir(void)
{
	char *dir = strdup("/tmp/profile-unit-XXXXXX");

	cr_assert_not_null(dir);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	return dir;
}

static inline void rm_rf(char *dir)
{
	char cmd[4200];

	if (!dir)
		return;
	/* only ever one of our own mkdtemp() directories */
	if (!strncmp(dir, "/tmp/profile-unit-", 18)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "unable to remove '%s'\n", dir);
	}
	free(dir);
}

/* dir/rel, with the directories in rel created on the way. */
static inline char *path_in(const char *dir, const char *rel)
{
	char *path;

	cr_assert_neq(asprintf(&path, "%s/%s", dir, rel), -1);
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST,
			  "mkdir '%s': %s", path, strerror(errno));
		*p = '/';
	}
	return path;
}

static inline void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "unable to create '%s': %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static inline void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

/* Write text to dir/rel (creating directories) and return the path. */
static inline char *write_in(const char *dir, const char *rel, const char *text)
{
	char *path = path_in(dir, rel);

	write_text(path, text);
	return path;
}

/* The whole file, NUL-terminated (the NUL not counted in *len). */
static inline char *read_whole(const char *path, size_t *len)
{
	struct stat sb;
	char *buf;
	FILE *f;

	f = fopen(path, "r");
	cr_assert_not_null(f, "unable to open '%s': %s", path, strerror(errno));
	cr_assert_eq(fstat(fileno(f), &sb), 0);
	buf = malloc(sb.st_size + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, sb.st_size, f), (size_t)sb.st_size);
	buf[sb.st_size] = '\0';
	fclose(f);
	*len = sb.st_size;
	return buf;
}

static inline bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* A single line of text: non-empty, ends in its only newline. */
static inline bool is_one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl && nl != s && nl[1] == '\0';
}

/* Address and size of a defined symbol, from nm (flags: "" or "-D" for .dynsym). */
static inline void nm_lookup(const char *path, const char *flags, const char *name,
			     uint64_t *addr, uint64_t *size)
{
	char cmd[4200], line[512], sym[256], type;
	uint64_t a, s;
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s -S --defined-only '%s'", flags, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "unable to run nm");
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &a, &s, &type, sym) == 4 &&
		    !strcmp(sym, name)) {
			*addr = a;
			*size = s;
			found = true;
		}
	}
	cr_assert_eq(pclose(p), 0, "nm %s failed on '%s'", flags, path);
	cr_assert(found, "nm %s: no symbol '%s' in '%s'", flags, name, path);
}

static inline void nm_symbol(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	nm_lookup(path, "", name, addr, size);
}

struct load_seg {
	uint64_t offset, vaddr, filesz;
	bool exec;
};

/* The PT_LOAD program headers, from readelf. Returns how many. */
static inline size_t readelf_loads(const char *path, struct load_seg *segs, size_t max)
{
	char cmd[4200], line[512];
	uint64_t off, va, pa, fsz, msz;
	size_t n = 0;
	int used;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "unable to run readelf");
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " LOAD %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 "%n",
			   &off, &va, &pa, &fsz, &msz, &used) != 5)
			continue;
		cr_assert_lt(n, max);
		/* the flags follow: "R E", "RW ", ... */
		segs[n++] = (struct load_seg){
			.offset = off, .vaddr = va, .filesz = fsz,
			.exec = strchr(line + used, 'E') != NULL,
		};
	}
	cr_assert_eq(pclose(p), 0, "readelf failed on '%s'", path);
	cr_assert_gt(n, 0, "readelf: no PT_LOAD in '%s'", path);
	return n;
}

#endif /* TEST_UTIL_H */
