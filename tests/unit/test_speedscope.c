// SPDX-License-Identifier: GPL-2.0
/*
 * test_speedscope.c - speedscope JSON: valid JSON (parsed by jq, not by
 * us), the frames samples point at, one profile per process with the
 * right weights and unit, and strings escaped whatever bytes they hold.
 */
#include "output/speedscope.h"
#include "output_util.h"

#define APP "/usr/bin/app"

static const struct pf_frame f_main = { "main", APP, NULL, 0x1000, false };
static const struct pf_frame f_hot_a = { "hot_a", APP, NULL, 0x1100, false };
static const struct pf_frame f_hot_b = { "hot_b", APP, NULL, 0x1200, false };
static const struct pf_frame f_unknown = { "[unknown]", NULL, NULL, 0, false };
static const struct pf_frame f_sys = { "do_syscall_64", NULL, NULL, 0xffffffff81000000, true };

static const struct pf_frame st_a[] = { f_main, f_hot_a };
static const struct pf_frame st_b[] = { f_main, f_hot_b };
static const struct pf_frame st_k[] = { f_unknown, f_sys };

static const struct pf_sample samples[] = {
	{ "app", 100, 101, st_a, 2, 5 },
	{ "cat", 200, 200, st_k, 2, 7 },
	{ "app", 100, 102, st_b, 2, 3 },
};

static struct pf_profile test_profile(void)
{
	return (struct pf_profile){
		.frequency = 100,
		.event = "cpu-clock",
		.title = "profile -F 100",
		.samples = samples,
		.nr_samples = ARRAY_SIZE(samples),
	};
}

/* Each test's directory, for the file jq reads. */
static char *dir;

static void make_dir(void)
{
	dir = make_tmpdir();
}

static void remove_dir(void)
{
	rm_rf(dir);
}

TestSuite(speedscope, .init = make_dir, .fini = remove_dir);

/* Write p as the test's JSON file (again); its path. */
static const char *write_json(const struct pf_profile *p)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/profile.speedscope.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(speedscope__write(p, f), 0);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* jq's compact output for filter on the file, without the final newline. */
static char *jq(const char *path, const char *filter)
{
	char cmd[8192], *out = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "jq -c '%s' '%s'", filter, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = getdelim(&out, &cap, '\0', p);
	cr_assert_eq(pclose(p), 0, "jq failed on '%s' (invalid JSON? is jq installed?)", filter);
	cr_assert_gt(n, 0);
	if (out[n - 1] == '\n')
		out[n - 1] = '\0';
	return out;
}

static void assert_jq(const char *path, const char *filter, const char *want)
{
	char *got = jq(path, filter);

	cr_assert_str_eq(got, want, "jq '%s'", filter);
	free(got);
}

Test(speedscope, file_header_and_shared_frames)
{
	struct pf_profile p = test_profile();
	const char *path = write_json(&p);

	assert_jq(path, ".[\"$schema\"]", "\"https://www.speedscope.app/file-format-schema.json\"");
	/* the file cannot choose speedscope's view: its name says which to use */
	assert_jq(path, ".name", "\"profile -F 100 [counted samples, not a timeline: view Left Heavy (key 2) or Sandwich (key 3)]\"");
	assert_jq(path, ".activeProfileIndex", "0");
	/* one entry per distinct frame, first seen first; the kernel image has a file too */
	assert_jq(path, "[.shared.frames[] | .name]",
		  "[\"main\",\"hot_a\",\"[unknown]\",\"do_syscall_64\",\"hot_b\"]");
	assert_jq(path, "[.shared.frames[] | .file]",
		  "[\"" APP "\",\"" APP "\",null,\"[kernel.kallsyms]\",\"" APP "\"]");
}

Test(speedscope, one_sampled_profile_per_process_heaviest_first)
{
	struct pf_profile p = test_profile();
	const char *path = write_json(&p);

	assert_jq(path, "[.profiles[] | .type]", "[\"sampled\",\"sampled\"]");
	/* app: 8 samples, cat: 7 */
	assert_jq(path, "[.profiles[] | .name]", "[\"app (100)\",\"cat (200)\"]");
	assert_jq(path, "[.profiles[] | .unit]", "[\"nanoseconds\",\"nanoseconds\"]");
	/* 100 Hz: 10 ms a sample */
	assert_jq(path, ".profiles[0].weights", "[50000000,30000000]");
	assert_jq(path, ".profiles[1].weights", "[70000000]");
	assert_jq(path, "[.profiles[] | .startValue]", "[0,0]");
	assert_jq(path, "[.profiles[] | .endValue]", "[80000000,70000000]");
	/* samples are frame indices, root first */
	assert_jq(path, ".profiles[0].samples", "[[0,1],[0,4]]");
	assert_jq(path, "[.profiles[0].samples[1][] as $i | .shared.frames[$i].name]",
		  "[\"main\",\"hot_b\"]");
	assert_jq(path, "[.profiles[1].samples[0][] as $i | .shared.frames[$i].name]",
		  "[\"[unknown]\",\"do_syscall_64\"]");
}

Test(speedscope, per_thread_profiles)
{
	struct pf_profile p = test_profile();
	const char *path;

	p.per_thread = true;
	path = write_json(&p);
	assert_jq(path, "[.profiles[] | .name]", "[\"cat (200/200)\",\"app (100/101)\",\"app (100/102)\"]");
}

Test(speedscope, count_mode_weighs_events)
{
	struct pf_profile p = test_profile();
	const char *path;

	p.frequency = 0;
	p.period = 1000;
	p.event = "cycles";
	path = write_json(&p);
	assert_jq(path, "[.profiles[] | .unit]", "[\"none\",\"none\"]");
	assert_jq(path, ".profiles[0].weights", "[5000,3000]");

	/* neither frequency nor period (folded stacks read back): by samples */
	p.period = 0;
	path = write_json(&p);
	assert_jq(path, "[.profiles[] | .unit]", "[\"none\",\"none\"]");
	assert_jq(path, ".profiles[0].weights", "[5,3]");
	p.period = 1000;

	/* cpu-clock counts nanoseconds */
	p.event = "cpu-clock";
	path = write_json(&p);
	assert_jq(path, ".profiles[0].unit", "\"nanoseconds\"");
}

/* --off-cpu, --wall: the counts are nanoseconds, weighed as they are. */
Test(speedscope, a_measure_weighs_nanoseconds)
{
	struct pf_profile p = test_profile();
	const char *path;

	p.measure = "off_cpu";
	p.frequency = 0;
	path = write_json(&p);
	assert_jq(path, "[.profiles[] | .unit]", "[\"nanoseconds\",\"nanoseconds\"]");
	assert_jq(path, ".profiles[0].weights", "[5,3]");
}

Test(speedscope, strings_are_escaped)
{
	static const struct pf_frame st[] = {
		{ "q\"b\\s/", APP, NULL, 1, false },
		{ "ctl\x01\x1f\n\t\r\x7f", APP, NULL, 2, false },
		{ "bad\xff\xc3(\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf end", APP, NULL, 3, false },
		{ "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "/opt/\"x\"", NULL, 4, false },
	};
	const struct pf_sample s[] = { { "c\"o\\m\n", 1, 1, st, ARRAY_SIZE(st), 1 } };
	struct pf_profile p = test_profile();
	const char *path;

	p.samples = s;
	p.nr_samples = 1;
	p.title = "t\x02";
	path = write_json(&p);
	/* jq re-encodes what it parsed: escapes and U+FFFD for invalid bytes */
	assert_jq(path, ".shared.frames[0].name", "\"q\\\"b\\\\s/\"");
	assert_jq(path, ".shared.frames[1].name", "\"ctl\\u0001\\u001f\\n\\t\\r\\u007f\"");
	/* \xff, \xc3 cut short, a surrogate, above U+10FFFF, an overlong '/': one U+FFFD a byte */
	assert_jq(path, ".shared.frames[2].name | explode | map(select(. == 65533)) | length", "11");
	assert_jq(path, ".shared.frames[2].name | startswith(\"bad\") and endswith(\" end\") and contains(\"(\")", "true");
	assert_jq(path, ".shared.frames[3].name", "\"ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"");
	assert_jq(path, ".shared.frames[3].file", "\"/opt/\\\"x\\\"\"");
	assert_jq(path, ".profiles[0].name", "\"c\\\"o\\\\m\\n (1)\"");
	assert_jq(path, ".name | startswith(\"t\\u0002 [\")", "true");
}

Test(speedscope, empty_profile_is_valid_json)
{
	struct pf_profile p = test_profile();
	const char *path;

	p.nr_samples = 0;
	path = write_json(&p);
	assert_jq(path, ".profiles", "[]");
	assert_jq(path, ".shared.frames", "[]");
}

Test(speedscope, errors)
{
	struct pf_profile p = test_profile();
	FILE *f = full_stream();

	cr_assert_eq(speedscope__write(&p, f), -ENOSPC);
	fclose(f);
}
