// SPDX-License-Identifier: GPL-2.0
/*
 * test_stack_fmt.c - profile(8) output, compared byte for byte with what
 * BCC's profile.py prints for the same stacks.
 */
#include "output_util.h"
#include "output/stack_fmt.h"

/* Frames are leaf first, as the stack map holds them. */
static const char *const kframes[] = { "kleaf", "kmid", "kouter" };
static const char *const uframes[] = { "uleaf", "umid", "main" };

static struct stack_rec rec(uint64_t count)
{
	return (struct stack_rec){
		.comm = "app", .pid = 42, .tid = 43,
		.kframes = kframes, .nr_kframes = ARRAY_SIZE(kframes),
		.uframes = uframes, .nr_uframes = ARRAY_SIZE(uframes),
		.count = count,
	};
}

/* Print these records with these options; the caller frees the text. */
static char *render(const struct stack_fmt_opts *opts, const struct stack_rec *recs, size_t n)
{
	struct stack_set *s = stack_set__new(opts);
	struct memout m;

	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(stack_set__add(s, &recs[i]), 0);
	cr_assert_eq(stack_set__print(s, memout__open(&m)), 0);
	stack_set__free(s);
	return memout__text(&m);
}

static void assert_renders(const struct stack_fmt_opts *opts, const struct stack_rec *recs,
			   size_t n, const char *want)
{
	char *got = render(opts, recs, n);

	cr_assert_str_eq(got, want, "\n--- got:\n%s--- want:\n%s", got, want);
	free(got);
}

static void assert_renders_one(const struct stack_fmt_opts *opts, struct stack_rec r,
			       const char *want)
{
	assert_renders(opts, &r, 1, want);
}

/* --- folded --------------------------------------------------------------- */

static const struct stack_fmt_opts folded = { .folded = true };
static const struct stack_fmt_opts folded_d = { .folded = true, .delimited = true };
static const struct stack_fmt_opts folded_a = { .folded = true, .annotations = true };
static const struct stack_fmt_opts folded_ad = {
	.folded = true, .annotations = true, .delimited = true,
};

Test(stack_fmt_folded, root_first_user_then_kernel)
{
	assert_renders_one(&folded, rec(5), "app;main;umid;uleaf;kouter;kmid;kleaf 5\n");
}

/* --by-container: the container is the root frame, escaped as frames are */
Test(stack_fmt_folded, container_as_the_root_frame)
{
	struct stack_rec r[] = { rec(5), rec(3), rec(2) };
	const struct stack_fmt_opts timed = { .folded = true, .root = "2026-01-01_00:00:00" };

	r[0].container = "box1";
	r[1].container = "/user.slice/a;b";
	r[2].container = "box1";
	assert_renders(&folded, r, 3,
		       "/user.slice/a:b;app;main;umid;uleaf;kouter;kmid;kleaf 3\n"
		       "box1;app;main;umid;uleaf;kouter;kmid;kleaf 7\n");
	/* under -i's time root */
	assert_renders_one(&timed, r[0],
			   "2026-01-01_00:00:00;box1;app;main;umid;uleaf;kouter;kmid;kleaf 5\n");
}

Test(stack_fmt_folded, delimiter_between_user_and_kernel)
{
	assert_renders_one(&folded_d, rec(5), "app;main;umid;uleaf;-;kouter;kmid;kleaf 5\n");
}

Test(stack_fmt_folded, annotations_mark_kernel_frames)
{
	assert_renders_one(&folded_a, rec(5),
			   "app;main;umid;uleaf;kouter_[k];kmid_[k];kleaf_[k] 5\n");
	assert_renders_one(&folded_ad, rec(5),
			   "app;main;umid;uleaf;-;kouter_[k];kmid_[k];kleaf_[k] 5\n");
}

Test(stack_fmt_folded, no_kernel_stack_in_user_mode)
{
	struct stack_rec r = rec(3);

	r.kstack_err = -EFAULT;
	assert_renders_one(&folded, r, "app;main;umid;uleaf 3\n");
	/* no delimiter when one side is absent */
	assert_renders_one(&folded_d, r, "app;main;umid;uleaf 3\n");
}

Test(stack_fmt_folded, no_user_stack_in_a_kernel_thread)
{
	struct stack_rec r = rec(3);

	r.comm = "kworker/0:1";
	r.ustack_err = -EFAULT;
	assert_renders_one(&folded_ad, r, "kworker/0:1;kouter_[k];kmid_[k];kleaf_[k] 3\n");
}

Test(stack_fmt_folded, missed_stacks)
{
	struct stack_rec r = rec(2);

	r.ustack_err = -EEXIST;
	assert_renders_one(&folded_d, r, "app;[Missed User Stack];kouter;kmid;kleaf 2\n");
	r = rec(2);
	r.kstack_err = -ENOMEM;
	assert_renders_one(&folded_d, r, "app;main;umid;uleaf;[Missed Kernel Stack] 2\n");
	r.ustack_err = -EINVAL;
	assert_renders_one(&folded_a, r, "app;[Missed User Stack];[Missed Kernel Stack] 2\n");
}

Test(stack_fmt_folded, user_only_and_kernel_only)
{
	const struct stack_fmt_opts u = { .folded = true, .user_only = true, .delimited = true };
	const struct stack_fmt_opts k = {
		.folded = true, .kernel_only = true, .delimited = true, .annotations = true,
	};
	struct stack_rec r = rec(1);

	assert_renders_one(&u, r, "app;main;umid;uleaf 1\n");
	assert_renders_one(&k, r, "app;kouter_[k];kmid_[k];kleaf_[k] 1\n");
	/* what is not shown cannot be missed */
	r.kstack_err = -ENOMEM;
	assert_renders_one(&u, r, "app;main;umid;uleaf 1\n");
}

Test(stack_fmt_folded, separators_in_names_are_replaced)
{
	static const char *const k[] = { "a;b" };
	static const char *const u[] = { "std::vector<int>::push_back", "tab\there" };
	struct stack_rec r = {
		.comm = "my;app", .pid = 1, .kframes = k, .nr_kframes = 1,
		.uframes = u, .nr_uframes = 2, .count = 9,
	};

	assert_renders_one(&folded, r, "my:app;tab?here;std::vector<int>::push_back;a:b 9\n");
}

/*
 * One rule for every name on a terminal or in a file: C1 (a raw 0x9B is
 * CSI on 8-bit terminals, and U+009B in UTF-8) and the bidirectional
 * overrides become '?', in both formats; other UTF-8 stays as it is.
 */
Test(stack_fmt_folded, c1_and_bidi_controls_replaced)
{
	static const char *const u[] = { "csi\x9b" "31m", "u9b\xc2\x9b" "31m", "rlo\xe2\x80\xae" "gnp.exe",
					 "caf\xc3\xa9" };
	struct stack_rec r = { .comm = "app", .pid = 1, .uframes = u, .nr_uframes = 4, .count = 2,
			       .kstack_err = -EFAULT };
	static const struct stack_fmt_opts block = { 0 };
	char *text;

	assert_renders_one(&folded, r, "app;caf\xc3\xa9;rlo?gnp.exe;u9b?31m;csi?31m 2\n");
	text = render(&block, &r, 1);
	cr_assert_null(strstr(text, "\x9b"), "%s", text);
	cr_assert_null(strstr(text, "\xe2\x80\xae"), "%s", text);
	cr_assert(strstr(text, "rlo?gnp.exe"), "%s", text);
	free(text);
}

Test(stack_fmt_folded, same_text_is_merged_across_pids)
{
	struct stack_rec r[3] = { rec(4), rec(6), rec(1) };

	r[1].pid = 99;		/* folded output does not show the pid */
	r[2].kstack_err = -EFAULT;
	assert_renders(&folded, r, 3,
		       "app;main;umid;uleaf 1\n"
		       "app;main;umid;uleaf;kouter;kmid;kleaf 10\n");
}

Test(stack_fmt_folded, sorted_by_count_hottest_last)
{
	static const char *const f1[] = { "one" }, *const f2[] = { "two" }, *const f3[] = { "three" };
	struct stack_rec r[4] = { rec(0), rec(0), rec(0), rec(0) };

	r[0].uframes = f1, r[0].count = 30;
	r[1].uframes = f2, r[1].count = 5;
	r[2].uframes = f3, r[2].count = 1000;
	r[3].uframes = f2, r[3].count = 40;	/* merges with r[1]: 45 */
	for (int i = 0; i < 4; i++) {
		r[i].nr_uframes = 1;
		r[i].kstack_err = -EFAULT;
	}
	assert_renders(&folded, r, 4, "app;one 30\napp;two 45\napp;three 1000\n");
}

Test(stack_fmt_folded, equal_counts_in_a_stable_order)
{
	static const char *const fb[] = { "b" }, *const fa[] = { "a" };
	struct stack_rec r[2] = { rec(7), rec(7) };

	r[0].uframes = fb;
	r[1].uframes = fa;
	r[0].nr_uframes = r[1].nr_uframes = 1;
	r[0].kstack_err = r[1].kstack_err = -EFAULT;
	assert_renders(&folded, r, 2, "app;a 7\napp;b 7\n");
}

Test(stack_fmt_folded, root_frame_before_comm)
{
	const struct stack_fmt_opts o = { .folded = true, .root = "12:00;05" };
	struct stack_rec r = rec(2);

	r.kstack_err = -EFAULT;
	assert_renders_one(&o, r, "12:00:05;app;main;umid;uleaf 2\n");
}

Test(stack_fmt_folded, large_counts)
{
	struct stack_rec r = rec(18446744073709551615ULL);

	r.kstack_err = -EFAULT;
	assert_renders_one(&folded, r, "app;main;umid;uleaf 18446744073709551615\n");
}

/* --- default (profile.py) blocks ------------------------------------------ */

static const struct stack_fmt_opts block = {};
static const struct stack_fmt_opts block_d = { .delimited = true };

/* rec()'s frames as blocks print them (the first test spells a block out) */
#define K_LINES "    kleaf\n    kmid\n    kouter\n"
#define U_LINES "    uleaf\n    umid\n    main\n"
/* who was sampled, how often, and the blank line after every block */
#define BLOCK_END(who, count) "    -                " who "\n        " count "\n\n"

Test(stack_fmt_block, kernel_then_user_leaf_first)
{
	assert_renders_one(&block, rec(7),
		"    kleaf\n"
		"    kmid\n"
		"    kouter\n"
		"    uleaf\n"
		"    umid\n"
		"    main\n"
		"    -                app (42)\n"
		"        7\n"
		"\n");
}

/* --by-container: a line after who was sampled */
Test(stack_fmt_block, container_line)
{
	struct stack_rec r = rec(7);

	r.container = "box\033[2J";
	assert_renders_one(&block, r, K_LINES U_LINES
			   "    -                app (42)\n"
			   "    container        box?[2J\n"
			   "        7\n\n");
}

Test(stack_fmt_block, delimited)
{
	assert_renders_one(&block_d, rec(7), K_LINES "    --\n" U_LINES BLOCK_END("app (42)", "7"));
}

Test(stack_fmt_block, annotations_and_missed_stacks)
{
	const struct stack_fmt_opts o = { .annotations = true, .delimited = true };
	struct stack_rec r = rec(2);

	r.ustack_err = -ENOMEM;
	assert_renders_one(&o, r,
		"    kleaf_[k]\n"
		"    kmid_[k]\n"
		"    kouter_[k]\n"
		"    [Missed User Stack]\n"
		BLOCK_END("app (42)", "2"));
	r = rec(2);
	r.kstack_err = -EEXIST;
	assert_renders_one(&o, r, "    [Missed Kernel Stack]\n" U_LINES BLOCK_END("app (42)", "2"));
}

Test(stack_fmt_block, user_mode_sample_has_no_kernel_part)
{
	struct stack_rec r = rec(1);

	r.kstack_err = -EFAULT;
	assert_renders_one(&block_d, r, U_LINES BLOCK_END("app (42)", "1"));
}

Test(stack_fmt_block, user_only_and_kernel_only)
{
	const struct stack_fmt_opts u = { .user_only = true, .delimited = true };
	const struct stack_fmt_opts k = { .kernel_only = true, .delimited = true };

	assert_renders_one(&u, rec(1), U_LINES BLOCK_END("app (42)", "1"));
	assert_renders_one(&k, rec(1), K_LINES BLOCK_END("app (42)", "1"));
}

Test(stack_fmt_block, per_thread_shows_pid_and_tid)
{
	const struct stack_fmt_opts o = { .per_thread = true, .kernel_only = true };
	static const char *const k[] = { "schedule" };
	struct stack_rec r = rec(3);

	r.kframes = k;
	r.nr_kframes = 1;
	assert_renders_one(&o, r, "    schedule\n" BLOCK_END("app (42/43)", "3"));
}

Test(stack_fmt_block, long_comm_and_names_kept_whole)
{
	static const char *const u[] = { "ns::Klass<a;b>::method(int)" };
	struct stack_rec r = rec(11);

	r.comm = "a-very-long-comm";
	r.uframes = u;
	r.nr_uframes = 1;
	r.kstack_err = -EFAULT;
	assert_renders_one(&block, r,
		"    ns::Klass<a;b>::method(int)\n" BLOCK_END("a-very-long-comm (42)", "11"));
}

Test(stack_fmt_block, merged_only_when_the_pid_matches)
{
	struct stack_rec r[3] = { rec(1), rec(2), rec(4) };

	r[2].pid = 7;
	assert_renders(&block_d, r, 3,
		K_LINES "    --\n" U_LINES BLOCK_END("app (42)", "3")
		K_LINES "    --\n" U_LINES BLOCK_END("app (7)", "4"));
}

/* --- the set ---------------------------------------------------------------- */

Test(stack_set, total_counts_every_record)
{
	struct stack_set *s = stack_set__new(&folded);
	struct stack_rec a = rec(3), b = rec(4);

	cr_assert_not_null(s);
	cr_assert_eq(stack_set__total(s), 0);
	cr_assert_eq(stack_set__add(s, &a), 0);
	cr_assert_eq(stack_set__add(s, &b), 0);
	cr_assert_eq(stack_set__total(s), 7);
	stack_set__free(s);
	stack_set__free(NULL);
}

Test(stack_set, empty_set_prints_nothing)
{
	assert_renders(&block, NULL, 0, "");
	assert_renders(&folded, NULL, 0, "");
}

Test(stack_set, many_records_grow_the_set)
{
	const int n = 1000;
	struct stack_set *s = stack_set__new(&folded);
	struct memout m;
	char *text;

	cr_assert_not_null(s);
	for (int i = 0; i < n; i++) {
		struct stack_rec r = rec(i % 10 + 1);

		cr_assert_eq(stack_set__add(s, &r), 0);
	}
	cr_assert_eq(stack_set__total(s), 5500);
	cr_assert_eq(stack_set__print(s, memout__open(&m)), 0);
	text = memout__text(&m);
	cr_assert_str_eq(text, "app;main;umid;uleaf;kouter;kmid;kleaf 5500\n");
	free(text);
	stack_set__free(s);
}

Test(stack_set, write_error_is_returned)
{
	struct stack_set *s = stack_set__new(&block);
	struct stack_rec r = rec(1);
	FILE *f = full_stream();

	cr_assert_not_null(s);
	cr_assert_eq(stack_set__add(s, &r), 0);
	cr_assert_eq(stack_set__print(s, f), -ENOSPC);
	fclose(f);
	stack_set__free(s);
}

/* --off-cpu, --wall: ns summed over the stacks that print the same, then microseconds, rounded up. */
Test(stack_fmt_folded, nanoseconds_print_as_microseconds)
{
	const struct stack_fmt_opts us = { .folded = true, .ns_as_us = true };
	struct stack_rec recs[] = { rec(1500), rec(1600) };

	assert_renders(&us, recs, 2, "app;main;umid;uleaf;kouter;kmid;kleaf 4\n");
	assert_renders_one(&us, rec(1), "app;main;umid;uleaf;kouter;kmid;kleaf 1\n");
	assert_renders_one(&us, rec(2000), "app;main;umid;uleaf;kouter;kmid;kleaf 2\n");
}
