// SPDX-License-Identifier: GPL-2.0
/*
 * test_walk_tally.c - the end-of-run line for a process whose user stacks
 * went without its unwind tables: named over the bounds, with why, across
 * every profile of the run; silent under them.
 */
#include <linux/types.h>

#include "collect/aggregate.h"
#include "profile.h"
#include "test_util.h"
#include "output/walk_tally.h"

/* count samples of pid under a one-frame user stack, walked as flags say */
static void add(struct agg *a, uint32_t pid, const char *comm, uint32_t flags, uint64_t ip,
		uint64_t count)
{
	struct agg_stack kern = { .err = AGG_NO_STACK }, user = { .ips = &ip, .nr = 1 };
	struct agg_key key = { .pid = pid, .flags = flags, .comm = comm };

	cr_assert_eq(agg__add(a, &key, &kern, &user, count), 0);
}

/* The tables worker's word on pid: ctx's for pid 10, queued still for the others. */
static void status(pid_t pid, struct unwind_pid_status *st, void *ctx)
{
	const struct unwind_pid_status *of_10 = ctx;

	*st = pid == 10 && of_10 ? *of_10 : (struct unwind_pid_status){ .err = -EINPROGRESS };
}

static char *report_with(const struct walk_tally *t, const struct unwind_pid_status *of_10)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	walk_tally__report(t, f, status, (void *)of_10);
	cr_assert_eq(fclose(f), 0);
	return text;
}

static char *report(const struct walk_tally *t)
{
	return report_with(t, NULL);
}

Test(walk_tally, process_without_tables_named_with_why)
{
	struct walk_tally *t = walk_tally__new(false);
	struct agg *a = agg__new();
	char *text;

	cr_assert_not_null(t);
	cr_assert_not_null(a);
	/* two profiles (intervals): the counts add up */
	add(a, 10, "py", KEY_USER_NO_TABLES, 0x1000, 40);
	add(a, 10, "py", 0, 0x2000, 10);
	/* under the share: named nowhere */
	add(a, 11, "cc1", KEY_USER_NO_TABLES, 0x1000, 60);
	add(a, 11, "cc1", 0, 0x3000, 900);
	cr_assert_eq(walk_tally__add(t, a), 0);
	agg__reset(a);
	add(a, 10, "py", KEY_USER_NO_TABLES, 0x1000, 53);
	cr_assert_eq(walk_tally__add(t, a), 0);
	text = report(t);
	cr_assert_str_eq(text,
		"profile: pid 10 (py): 93 of 103 user stacks walked by frame pointers, without its unwind tables: still waiting for the tables worker when the run ended\n");
	free(text);
	agg__free(a);
	walk_tally__free(t);
}

Test(walk_tally, few_stacks_or_tables_said_nothing)
{
	struct walk_tally *t = walk_tally__new(false);
	struct agg *a = agg__new();
	char *text;

	add(a, 10, "short", KEY_USER_NO_TABLES, 0x1000, WALK_TALLY_MIN_STACKS - 1);
	add(a, 12, "fine", KEY_USER_TRUNCATED, 0x1000, 500);
	cr_assert_eq(walk_tally__add(t, a), 0);
	text = report(t);
	cr_assert_str_empty(text);
	free(text);
	agg__free(a);
	walk_tally__free(t);
}

Test(walk_tally, many_processes_counted_past_the_lines)
{
	struct walk_tally *t = walk_tally__new(false);
	struct agg *a = agg__new();
	char *text, *line;
	int lines = 0;

	for (uint32_t pid = 100; pid < 100 + WALK_TALLY_MAX_LINES + 2; pid++)
		add(a, pid, "w\x1b[31m", KEY_USER_NO_TABLES, 0x1000, 100 + pid);
	cr_assert_eq(walk_tally__add(t, a), 0);
	text = report(t);
	for (line = text; (line = strchr(line, '\n')); line++)
		lines++;
	cr_assert_eq(lines, WALK_TALLY_MAX_LINES + 1, "%s", text);
	/* the most first; a name's escape sequences not passed on */
	cr_assert(strstr(text, "profile: pid 106 (w"), "%s", text);
	cr_assert_lt(strstr(text, "pid 106"), strstr(text, "pid 105"));
	cr_assert_null(strchr(text, '\x1b'), "%s", text);
	cr_assert(strstr(text, "and 2 more processes"), "%s", text);
	free(text);
	agg__free(a);
	walk_tally__free(t);
}

/* Why, in words, from what the tables worker says of the process. */
Test(walk_tally, why_from_the_tables_worker)
{
	static const struct {
		struct unwind_pid_status st;
		const char *why;
	} cases[] = {
		{ { .err = -EINPROGRESS }, "still waiting for the tables worker when the run ended" },
		{ { .published = true, .first_ns = 1000000000, .published_ns = 2500000000 },
		  "they were loaded 1.50 s after its first notice (the tables worker was busy)" },
		{ { .published = true }, "they were loaded only after these stacks were taken" },
		{ { .err = -ENOENT }, "no notice of the process reached the tables worker" },
		{ { .err = -ENOENT, .forgotten = true },
		  "no notice of the process reached the tables worker, or it was gone long before the end and what became of its tables is no longer kept" },
		{ { .err = -ESRCH }, "the process was gone, or a zombie, when its mappings were read" },
		{ { .err = -ESTALE }, "it exec'd or exited while its mappings were read" },
		{ { .err = -E2BIG }, "the map of processes with tables was full" },
		{ { .err = -EACCES }, "its mappings could not be read" },
	};
	struct walk_tally *t = walk_tally__new(false);
	struct agg *a = agg__new();

	cr_assert(t && a);
	add(a, 10, "py", KEY_USER_NO_TABLES, 0x1000, 40);
	cr_assert_eq(walk_tally__add(t, a), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = report_with(t, &cases[i].st), want[320];

		snprintf(want, sizeof(want),
			 "profile: pid 10 (py): 40 of 40 user stacks walked by frame pointers, without its unwind tables: %s\n",
			 cases[i].why);
		cr_assert_str_eq(text, want);
		free(text);
	}
	walk_tally__free(t);
	agg__free(a);
}

/*
 * A profile of time (--off-cpu, --wall) counts ns: each distinct stack
 * counts once, so 25 stacks of a few us each are 25 stacks, not 25 us.
 */
Test(walk_tally, a_profile_of_time_counts_stacks)
{
	struct walk_tally *t = walk_tally__new(true);
	struct agg *a = agg__new();
	char *text;

	cr_assert(t && a);
	for (uint64_t ip = 0; ip < 25; ip++)
		add(a, 10, "py", KEY_USER_NO_TABLES, 0x1000 + ip, 3000 + ip);
	add(a, 10, "py", 0, 0x2000, 900000000);
	cr_assert_eq(walk_tally__add(t, a), 0);
	text = report(t);
	cr_assert_str_eq(text,
		"profile: pid 10 (py): 25 of 26 user stacks walked by frame pointers, without its unwind tables: still waiting for the tables worker when the run ended\n");
	free(text);
	agg__free(a);
	walk_tally__free(t);
}
