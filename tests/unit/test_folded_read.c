// SPDX-License-Identifier: GPL-2.0
/*
 * test_folded_read.c - folded stacks read back (folded_read.h) into a
 * pf_build (pf_build.h): the lines profile -f, BCC and stackcollapse-perf
 * write, merged counts, every malformed line refused with its number, and
 * the limits; then written again by from_input__write().
 */
#include <errno.h>

#include "output/folded_read.h"
#include "output/from_input.h"
#include "output_util.h"

static struct pf_build *new_build(void)
{
	struct pf_limits l = PF_LIMITS_DEFAULT_INIT;
	struct pf_build *b = pf_build__new(&l);

	cr_assert_not_null(b);
	return b;
}

static int read_str(struct pf_build *b, const char *s, struct pf_read_error *err)
{
	return folded_read__buf(b, s, strlen(s), err);
}

/* The one stack of b whose comm and leaf are these; asserts there is one. */
static const struct pf_sample *find(const struct pf_profile *p, const char *comm, const char *leaf)
{
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct pf_sample *s = &p->samples[i];

		if (!strcmp(s->comm, comm) && s->nr_frames &&
		    !strcmp(s->frames[s->nr_frames - 1].name, leaf))
			return s;
	}
	cr_assert_fail("no stack %s..%s", comm, leaf);
	return NULL;
}

Test(folded_read, our_own_lines_with_delimiter_and_annotations)
{
	struct pf_build *b = new_build();
	struct pf_read_error err;
	struct pf_profile p;
	const struct pf_sample *s;

	cr_assert_eq(read_str(b, "app;main;hot_a 5\n"
				 "cat;[unknown];read;-;do_syscall_64_[k];ext4_file_read_iter [ext4]_[k] 2\n"
				 "perl;main_[j];inl_[i] 1\n", &err), 0, "%s", err.why);
	cr_assert_eq(pf_build__profile(b, "t", &p), 0);
	cr_assert_eq(p.nr_samples, 3);
	cr_assert(pf_profile__counts_only(&p));
	s = find(&p, "app", "hot_a");
	cr_assert_eq(s->count, 5);
	cr_assert_eq(s->nr_frames, 2);
	cr_assert_str_eq(s->frames[0].name, "main");
	cr_assert_not(s->frames[0].kernel);
	s = find(&p, "cat", "ext4_file_read_iter [ext4]");
	cr_assert_eq(s->nr_frames, 4, "the '-' is no frame: %zu", s->nr_frames);
	cr_assert_str_eq(s->frames[1].name, "read");
	cr_assert_not(s->frames[1].kernel);
	cr_assert_str_eq(s->frames[2].name, "do_syscall_64");
	cr_assert(s->frames[2].kernel && s->frames[3].kernel);
	s = find(&p, "perl", "inl");
	cr_assert_str_eq(s->frames[0].name, "main");
	cr_assert_not(s->frames[0].kernel || s->frames[1].kernel);
	pf_build__free(b);
}

Test(folded_read, same_stacks_sum_across_lines_and_inputs)
{
	struct pf_build *b = new_build();
	struct pf_read_error err;
	struct pf_profile p;

	cr_assert_eq(read_str(b, "app;main;hot_a 5\napp;main;hot_b 1\n", &err), 0);
	cr_assert_eq(read_str(b, "app;main;hot_a 7\r\n\napp;main;hot_a 0\napp;main;hot_a 1", &err), 0,
		     "%s", err.why);
	cr_assert_eq(pf_build__profile(b, NULL, &p), 0);
	cr_assert_eq(p.nr_samples, 2);
	cr_assert_eq(find(&p, "app", "hot_a")->count, 13);
	cr_assert_eq(find(&p, "app", "hot_b")->count, 1);
	cr_assert_eq(pf_build__total(b), 14);
	pf_build__free(b);
}

/* Each malformed line: its number and why, nothing after it added. */
static void refused(const char *text, int ret, uint64_t line, const char *why)
{
	struct pf_build *b = new_build();
	struct pf_read_error err;

	cr_assert_eq(read_str(b, text, &err), ret, "'%s': %s", text, err.why);
	cr_assert_eq(err.line, line, "'%s': line %llu", text, (unsigned long long)err.line);
	cr_assert(strstr(err.why, why), "'%s': '%s' has no '%s'", text, err.why, why);
	pf_build__free(b);
}

Test(folded_read, malformed_lines_name_their_line)
{
	refused("a;b 1\na;b x\n", -EINVAL, 2, "count 'x' is not a whole number");
	refused("a;b 1.5\n", -EINVAL, 1, "not a whole number");
	refused("a;b 1 2\n", -EINVAL, 1, "two counts");
	refused("\n\na;b\n", -EINVAL, 3, "no count");
	refused("a;;b 3\n", -EINVAL, 1, "empty frame");
	refused("a;b; 3\n", -EINVAL, 1, "empty frame");
	refused(" 3\n", -EINVAL, 1, "no stack");
	refused("a;b 99999999999999999999\n", -EINVAL, 1, "does not fit in 64 bits");
	refused("a;b 18446744073709551615\na;c 1\n", -EOVERFLOW, 2, "add up");
	refused("a;b -1\n", -EINVAL, 1, "not a whole number");
}

Test(folded_read, nul_byte_refused)
{
	struct pf_build *b = new_build();
	struct pf_read_error err;

	cr_assert_eq(folded_read__buf(b, "a;b 1\na\0b;c 2\n", 14, &err), -EINVAL);
	cr_assert_eq(err.line, 2);
	cr_assert(strstr(err.why, "NUL"));
	pf_build__free(b);
}

static struct pf_build *small_build(size_t line, size_t frames, size_t stacks, size_t bytes)
{
	struct pf_limits l = PF_LIMITS_DEFAULT_INIT;
	struct pf_build *b;

	l.max_line = line;
	l.max_frames = frames;
	l.max_stacks = stacks;
	l.max_bytes = bytes;
	b = pf_build__new(&l);
	cr_assert_not_null(b);
	return b;
}

Test(folded_read, limits)
{
	struct pf_read_error err;
	struct pf_build *b;

	/* "a;b 1\n" is 6 bytes with its newline */
	b = small_build(6, 100, 100, 1 << 20);
	cr_assert_eq(read_str(b, "a;b 1\na;bc 1\n", &err), -E2BIG);
	cr_assert_eq(err.line, 2);
	cr_assert(strstr(err.why, "longer than 6 bytes"), "%s", err.why);
	pf_build__free(b);

	b = small_build(100, 3, 100, 1 << 20);
	cr_assert_eq(read_str(b, "c;1;2;3 1\nc;1;2;3;4 1\n", &err), -E2BIG);
	cr_assert_eq(err.line, 2);
	cr_assert(strstr(err.why, "more than 3 frames"), "%s", err.why);
	pf_build__free(b);

	b = small_build(100, 100, 2, 1 << 20);
	cr_assert_eq(read_str(b, "c;1 1\nc;2 1\nc;1 5\nc;3 1\n", &err), -E2BIG);
	cr_assert_eq(err.line, 4, "a stack seen before is still counted at the limit");
	cr_assert(strstr(err.why, "more than 2 distinct stacks"), "%s", err.why);
	pf_build__free(b);

	b = small_build(1000, 100, 100, 4096);
	for (int i = 0; i < 100; i++) {
		char line[64];

		snprintf(line, sizeof(line), "comm;function_number_%d 1\n", i);
		if (read_str(b, line, &err))
			break;
	}
	cr_assert_eq(err.line, 1);
	cr_assert(strstr(err.why, "the stacks take more than"), "%s", err.why);
	pf_build__free(b);
}

/* The stream reader sees what the buffer reader sees, lines across its chunks too. */
Test(folded_read, stream_reads_as_buffer)
{
	struct pf_build *a = new_build(), *b = new_build();
	struct pf_read_error err;
	struct pf_profile pa, pb;
	size_t len = 0, cap = 1 << 20;
	char *text = malloc(cap);
	FILE *f;

	cr_assert_not_null(text);
	for (int i = 0; len < 300000; i++)
		len += snprintf(text + len, cap - len, "comm;main;f%d;g%d %d\n", i % 977, i, i % 5 + 1);
	/* the last line without its newline */
	len += snprintf(text + len, cap - len, "comm;main;last 3");
	cr_assert_eq(folded_read__buf(a, text, len, &err), 0, "%s", err.why);
	f = fmemopen(text, len, "r");
	cr_assert_not_null(f);
	cr_assert_eq(folded_read__stream(b, f, &err), 0, "%s", err.why);
	fclose(f);
	cr_assert_eq(pf_build__profile(a, NULL, &pa), 0);
	cr_assert_eq(pf_build__profile(b, NULL, &pb), 0);
	cr_assert_eq(pa.nr_samples, pb.nr_samples);
	cr_assert_eq(pf_build__total(a), pf_build__total(b));
	cr_assert_eq(find(&pb, "comm", "last")->count, 3);
	pf_build__free(a);
	pf_build__free(b);
	free(text);
}

Test(folded_read, stream_line_too_long)
{
	struct pf_build *b = small_build(100, 100, 100, 1 << 20);
	struct pf_read_error err;
	char text[400];
	FILE *f;

	memset(text, 'x', sizeof(text));
	memcpy(text, "a;b 1\n", 6);
	f = fmemopen(text, sizeof(text), "r");
	cr_assert_eq(folded_read__stream(b, f, &err), -E2BIG);
	cr_assert_eq(err.line, 2);
	fclose(f);
	pf_build__free(b);
}

/* Folded in, folded out: the same lines, -d's '-' and -a's "_[k]" where they were. */
Test(folded_read, written_again_as_folded)
{
	static const char in[] = "cat;read;-;do_syscall_64_[k];vfs_read_[k] 2\n"
				 "app;main;hot_a 5\n";
	struct from_output o = { .format = FORMAT_FOLDED, .delimited = true, .annotations = true };
	struct pf_build *b = new_build();
	struct pf_read_error err;
	struct pf_profile p;
	struct memout m;

	cr_assert_eq(read_str(b, in, &err), 0);
	cr_assert_eq(pf_build__profile(b, NULL, &p), 0);
	cr_assert_eq(from_input__write(&p, &o, memout__open(&m)), 0);
	cr_assert_str_eq(memout__text(&m), in);
	free(m.text);
	pf_build__free(b);
}

/*
 * --from FILE...: the files merged into one profile, written to out, how
 * much was read said on err; a file refused is one line naming it.
 */
Test(folded_read, files_converted_into_one_profile)
{
	char *dir = make_tmpdir();
	const char *files[] = { write_in(dir, "a.folded", "app;main;hot_a 5\n"),
				write_in(dir, "b.folded", "app;main;hot_a 2\napp;main;hot_b 1\n"),
				write_in(dir, "bad.folded", "app;main;hot_a five\n") };
	struct from_opts o = { .files = files, .nr_files = 2, .out = { .format = FORMAT_FOLDED } };
	char *said, *text;
	size_t len;
	struct memout m;
	FILE *err = open_memstream(&said, &len);

	cr_assert_not_null(err);
	cr_assert_eq(from_input__convert(&o, memout__open(&m), err), 0);
	cr_assert_eq(fclose(err), 0);
	/* merged: the same stack's counts summed, in the writer's order */
	text = memout__text(&m);
	cr_assert(strstr(text, "app;main;hot_a 7\n"), "%s", text);
	cr_assert(strstr(text, "app;main;hot_b 1\n"), "%s", text);
	cr_assert_eq(strlen(text), strlen("app;main;hot_a 7\napp;main;hot_b 1\n"));
	cr_assert_str_eq(said, "profile: 8 samples in 2 stacks from 2 files\n");
	free(m.text);
	free(said);

	o.files = &files[1];
	err = open_memstream(&said, &len);
	cr_assert_not_null(err);
	cr_assert_eq(from_input__convert(&o, memout__open(&m), err), FROM_INPUT_REFUSED);
	cr_assert_eq(fclose(err), 0);
	text = memout__text(&m);
	cr_assert_str_empty(text, "written: %s", text);
	cr_assert(is_one_line(said), "'%s'", said);
	cr_assert(strstr(said, "bad.folded' line 1: "), "'%s'", said);
	free(m.text);
	free(said);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		free((char *)files[i]);
	rm_rf(dir);
}
