// SPDX-License-Identifier: GPL-2.0
/*
 * test_emit.c - a profile to stdout or to -o FILE (output/emit.c): the
 * pattern expanded at the time given, a failed write leaving the previous
 * file and said in one line, a reader gone said not at all, --keep after
 * each file written.
 */
#include <dirent.h>

#include "output/emit.h"
#include "test_util.h"

/* What write_fn writes, and what it returns. */
struct writer {
	const char *text;
	int err;
};

static int write_fn(FILE *f, void *ctx)
{
	const struct writer *w = ctx;

	fputs(w->text, f);
	return w->err;
}

/* emit__profile() with what it says on err captured (the caller frees *said). */
static int emit(const struct emit_opts *o, time_t when, FILE *out, struct writer w, char **said)
{
	size_t len;
	FILE *err = open_memstream(said, &len);
	int e;

	cr_assert_not_null(err);
	e = emit__profile(o, when, out, write_fn, &w, err);
	cr_assert_eq(fclose(err), 0);
	return e;
}

static size_t files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(emit, to_stdout_and_its_errors)
{
	const struct emit_opts o = { 0 };
	char *text = NULL, *said;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	cr_assert_not_null(out);
	cr_assert_eq(emit(&o, 0, out, (struct writer){ "a 1\n", 0 }, &said), 0);
	cr_assert_str_empty(said);
	free(said);
	cr_assert_eq(emit(&o, 0, out, (struct writer){ "", -EIO }, &said), -EIO);
	cr_assert_str_eq(said, "profile: cannot write the profile: Input/output error\n");
	free(said);
	/* the reader went away (| head): nothing to say */
	cr_assert_eq(emit(&o, 0, out, (struct writer){ "", -EPIPE }, &said), -EPIPE);
	cr_assert_str_empty(said);
	free(said);
	cr_assert_eq(fclose(out), 0);
	cr_assert_str_eq(text, "a 1\n");
	free(text);
}

Test(emit, to_files_of_a_pattern_kept_by_keep)
{
	char *dir = make_tmpdir(), *pattern = path_in(dir, "p-%s.folded");
	char *first = path_in(dir, "p-1000.folded"), *second = path_in(dir, "p-2000.folded");
	const struct emit_opts o = { .output = pattern, .keep = 1 };
	char *said, *text, want[4300];
	size_t len;

	cr_assert_eq(emit(&o, 1000, stdout, (struct writer){ "a 1\n", 0 }, &said), 0);
	cr_assert_str_empty(said);
	free(said);
	text = read_whole(first, &len);
	cr_assert_str_eq(text, "a 1\n");
	free(text);
	/* a failed write: the file it would have been is not there, nothing removed */
	cr_assert_eq(emit(&o, 2000, stdout, (struct writer){ "b 2\n", -ENOSPC }, &said), -ENOSPC);
	snprintf(want, sizeof(want), "profile: cannot write '%s': No space left on device\n", second);
	cr_assert_str_eq(said, want);
	free(said);
	cr_assert_eq(access(second, F_OK), -1);
	cr_assert_eq(files_in(dir), 1);
	/* the next one written: --keep 1 leaves it alone */
	cr_assert_eq(emit(&o, 2000, stdout, (struct writer){ "b 2\n", 0 }, &said), 0);
	cr_assert_str_empty(said);
	free(said);
	cr_assert_eq(access(first, F_OK), -1, "--keep 1 left the older file");
	text = read_whole(second, &len);
	cr_assert_str_eq(text, "b 2\n");
	free(text);
	cr_assert_eq(files_in(dir), 1);
	free(first);
	free(second);
	free(pattern);
	rm_rf(dir);
}

Test(emit, a_directory_that_is_not_there_is_one_line)
{
	char *dir = make_tmpdir(), *pattern, *said;
	struct emit_opts o = { 0 };

	cr_assert_neq(asprintf(&pattern, "%s/missing/p.folded", dir), -1);
	o.output = pattern;
	cr_assert_eq(emit(&o, 0, stdout, (struct writer){ "a 1\n", 0 }, &said), -ENOENT);
	cr_assert(is_one_line(said), "'%s'", said);
	cr_assert(!strncmp(said, "profile: cannot write '", 23), "'%s'", said);
	free(said);
	free(pattern);
	rm_rf(dir);
}
