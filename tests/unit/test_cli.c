// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - cli__parse on argument vectors, cli__validate against a fake
 * /proc and /sys built in a temporary directory.
 */
#include <limits.h>

#include "cli.h"
#include "test_util.h"

/* One cli__parse call with its output and error text captured. */
struct run {
	struct profile_env env;
	enum cli_result res;
	char *out, *err;
	size_t out_len, err_len;
};

#define PARSE(r, ...)                                                        \
	do {                                                                 \
		char *argv_[] = { "profile", __VA_ARGS__, NULL };            \
		parse_argv(r, ARRAY_SIZE(argv_) - 1, argv_);                 \
	} while (0)

static void parse_argv(struct run *r, int argc, char **argv)
{
	FILE *out, *err;

	memset(r, 0, sizeof(*r));
	out = open_memstream(&r->out, &r->out_len);
	err = open_memstream(&r->err, &r->err_len);
	cr_assert(out && err);
	r->res = cli__parse(argc, argv, &r->env, out, err);
	cr_assert_eq(fclose(out), 0);
	cr_assert_eq(fclose(err), 0);
}

static void run__release(struct run *r)
{
	cli__release(&r->env);
	free(r->out);
	free(r->err);
}

/* A usage error: CLI_USAGE, nothing on out, one line on err containing what. */
static void assert_usage(const struct run *r, const char *what)
{
	cr_assert_eq(r->res, CLI_USAGE, "accepted; err: '%s'", r->err);
	cr_assert_str_empty(r->out);
	cr_assert(is_one_line(r->err), "not one line: '%s'", r->err);
	cr_assert(!strncmp(r->err, "profile: ", 9), "no program name: '%s'", r->err);
	cr_assert_not_null(strstr(r->err, what), "'%s' does not mention '%s'", r->err, what);
}

#define ASSERT_USAGE(what, ...)                                              \
	do {                                                                 \
		struct run r_;                                               \
		PARSE(&r_, __VA_ARGS__);                                     \
		assert_usage(&r_, what);                                     \
		run__release(&r_);                                           \
	} while (0)

Test(cli_parse, defaults_match_bcc_profile)
{
	char *argv[] = { "profile", NULL };
	struct run r;

	parse_argv(&r, 1, argv);
	cr_assert_eq(r.res, CLI_RUN);
	cr_assert_str_empty(r.err);
	cr_assert_eq(r.env.frequency, 49);
	cr_assert_eq(r.env.period, 0);
	cr_assert_eq(r.env.duration, 0);
	cr_assert_eq(r.env.cpu, -1);
	cr_assert_eq(r.env.stack_storage_size, 16384);
	cr_assert_eq(r.env.hash_storage_size, 40960);
	cr_assert_eq(r.env.max_stack_depth, 127);
	cr_assert_eq(r.env.nr_pids, 0);
	cr_assert_eq(r.env.nr_tids, 0);
	cr_assert_null(r.env.pids);
	cr_assert(!r.env.user_only && !r.env.kernel_only && !r.env.include_idle);
	cr_assert(!r.env.delimited && !r.env.annotations && !r.env.folded && !r.env.verbose);
	run__release(&r);
}

Test(cli_parse, frequency_and_duration)
{
	struct run r;

	PARSE(&r, "-F", "99", "30");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.frequency, 99);
	cr_assert_eq(r.env.period, 0);
	cr_assert_eq(r.env.duration, 30);
	run__release(&r);
}

Test(cli_parse, count_replaces_the_default_frequency)
{
	struct run r;

	PARSE(&r, "-c", "1000000");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.period, 1000000);
	cr_assert_eq(r.env.frequency, 0);
	run__release(&r);
}

Test(cli_parse, every_flag_and_long_option)
{
	struct run r;

	PARSE(&r, "--frequency=199", "-I", "-d", "-a", "-f", "-v", "-K", "--cpu", "3",
	      "--stack-storage-size=100", "--hash-storage-size", "200",
	      "--perf-max-stack-depth=64", "--tid=7");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.frequency, 199);
	cr_assert(r.env.include_idle && r.env.delimited && r.env.annotations);
	cr_assert(r.env.folded && r.env.verbose && r.env.kernel_only && !r.env.user_only);
	cr_assert_eq(r.env.cpu, 3);
	cr_assert_eq(r.env.stack_storage_size, 100);
	cr_assert_eq(r.env.hash_storage_size, 200);
	cr_assert_eq(r.env.max_stack_depth, 64);
	cr_assert_eq(r.env.nr_tids, 1);
	cr_assert_eq(r.env.tids[0], 7);
	run__release(&r);
}

Test(cli_parse, bundled_short_options)
{
	struct run r;

	PARSE(&r, "-Ufd", "-F99");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert(r.env.user_only && r.env.folded && r.env.delimited);
	cr_assert_eq(r.env.frequency, 99);
	run__release(&r);
}

Test(cli_parse, pid_list)
{
	struct run r;

	PARSE(&r, "-p", "1,2,3");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.nr_pids, 3);
	cr_assert_eq(r.env.pids[0], 1);
	cr_assert_eq(r.env.pids[1], 2);
	cr_assert_eq(r.env.pids[2], 3);
	run__release(&r);
}

Test(cli_parse, repeated_pid_options_accumulate)
{
	struct run r;

	PARSE(&r, "-p", "10", "--pid=20,30");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.nr_pids, 3);
	cr_assert_eq(r.env.pids[0], 10);
	cr_assert_eq(r.env.pids[2], 30);
	run__release(&r);
}

Test(cli_parse, parses_again_from_scratch)
{
	struct run r;

	/* getopt state and the env are reset between calls */
	PARSE(&r, "-p", "5", "-U", "-F", "7", "9");
	cr_assert_eq(r.res, CLI_RUN);
	run__release(&r);
	PARSE(&r, "-K");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert(r.env.kernel_only && !r.env.user_only);
	cr_assert_eq(r.env.nr_pids, 0);
	cr_assert_eq(r.env.frequency, 49);
	cr_assert_eq(r.env.duration, 0);
	run__release(&r);
}

Test(cli_parse, parses_again_after_stopping_inside_a_bundle)
{
	struct run r;

	/* -h returns with "v" of "-hv" still unread */
	PARSE(&r, "-hv");
	cr_assert_eq(r.res, CLI_DONE);
	run__release(&r);
	PARSE(&r, "-K");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert(r.env.kernel_only);
	cr_assert(!r.env.verbose, "the rest of the last bundle was parsed again");
	run__release(&r);
}

Test(cli_parse, conflicting_options)
{
	ASSERT_USAGE("-F/--frequency and -c/--count conflict", "-F", "99", "-c", "1000000");
	ASSERT_USAGE("-U/--user-stacks-only and -K/--kernel-stacks-only conflict", "-U", "-K");
	ASSERT_USAGE("-p/--pid and -L/--tid conflict", "-p", "1", "-L", "2");
}

Test(cli_parse, bad_numbers)
{
	struct run r;

	PARSE(&r, "-F", "12abc");
	assert_usage(&r, "frequency");
	cr_assert_str_eq(r.err, "profile: invalid frequency '12abc'\n");
	run__release(&r);

	ASSERT_USAGE("count", "-c", "");
	ASSERT_USAGE("count", "-c", "-5");
	ASSERT_USAGE("frequency", "-F", "0");
	ASSERT_USAGE("frequency", "-F", " 99");
	ASSERT_USAGE("cpu", "-C", "-1");
	ASSERT_USAGE("cpu", "-C", "one");
	ASSERT_USAGE("stack storage size", "--stack-storage-size=0");
	ASSERT_USAGE("hash storage size", "--hash-storage-size=99999999999");
	ASSERT_USAGE("perf max stack depth", "--perf-max-stack-depth=0");
	ASSERT_USAGE("duration", "1s");
}

/* Rates the machine cannot sustain and maps that would lock gigabytes. */
Test(cli_parse, rates_and_map_sizes_are_bounded)
{
	struct run r;

	PARSE(&r, "-F", "10001");
	assert_usage(&r, "frequency");
	cr_assert_str_eq(r.err, "profile: frequency '10001' out of range (1..10000)\n");
	run__release(&r);
	ASSERT_USAGE("count", "-c", "1");
	ASSERT_USAGE("count", "-c", "99999");
	PARSE(&r, "-F", "10000");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	run__release(&r);
	PARSE(&r, "-c", "100000");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	run__release(&r);
}

Test(cli_parse, map_bytes_of_the_defaults)
{
	struct run r;
	unsigned long long mib;

	PARSE(&r, "1");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	mib = cli__map_bytes(&r.env) >> 20;
	/* 2 x (16384 stacks + 40960 counts + 81920 overflow stacks), full */
	cr_assert(mib > 150 && mib < 250, "%llu MiB", mib);
	run__release(&r);
}

Test(cli_parse, zero_duration_is_out_of_range)
{
	struct run r;

	PARSE(&r, "0");
	assert_usage(&r, "duration");
	cr_assert_not_null(strstr(r.err, "out of range"), "err: %s", r.err);
	run__release(&r);
}

Test(cli_parse, bad_id_lists)
{
	ASSERT_USAGE("pid", "-p", "");
	ASSERT_USAGE("pid", "-p", "1,");
	ASSERT_USAGE("pid", "-p", ",1");
	ASSERT_USAGE("pid", "-p", "1,,2");
	ASSERT_USAGE("pid", "-p", "0");
	ASSERT_USAGE("pid", "-p", "1,x");
	ASSERT_USAGE("pid", "-p", "2147483648");
	ASSERT_USAGE("tid", "-L", "-3");
}

Test(cli_parse, too_many_pids)
{
	char *list = malloc(8 * 1100), *p = list;
	char *argv[] = { "profile", "-p", list, NULL };
	struct run r;

	cr_assert_not_null(list);
	for (int i = 1; i <= 1025; i++)
		p += sprintf(p, "%s%d", i > 1 ? "," : "", i);
	parse_argv(&r, 3, argv);
	assert_usage(&r, "too many pids");
	cr_assert_null(r.env.pids, "pids not released on error");
	run__release(&r);
	free(list);
}

Test(cli_parse, unknown_options)
{
	struct run r;

	PARSE(&r, "-z");
	assert_usage(&r, "'-z'");
	cr_assert_str_eq(r.err, "profile: unknown option '-z' (see --help)\n");
	run__release(&r);
	ASSERT_USAGE("--bogus", "--bogus");
	PARSE(&r, "-vz");
	assert_usage(&r, "'-z'");
	run__release(&r);
}

Test(cli_parse, argument_to_a_long_option_without_one)
{
	struct run r;

	/* long-only options have values above any char: none may be printed as one */
	PARSE(&r, "--version=1");
	assert_usage(&r, "--version");
	for (const char *p = r.err; *p; p++)
		cr_assert(*p == '\n' || (*p >= 0x20 && *p < 0x7f), "unprintable: '%s'", r.err);
	run__release(&r);
	PARSE(&r, "--lines=yes");
	assert_usage(&r, "--lines");
	run__release(&r);
}

Test(cli_parse, missing_option_argument)
{
	ASSERT_USAGE("requires an argument", "-F");
	ASSERT_USAGE("requires an argument", "--pid");
}

Test(cli_parse, extra_positional_argument)
{
	ASSERT_USAGE("unexpected argument '20'", "10", "20");
}

Test(cli_parse, help_is_done_and_printed_on_out)
{
	struct run r;

	PARSE(&r, "--help");
	cr_assert_eq(r.res, CLI_DONE);
	cr_assert_str_empty(r.err);
	cr_assert(!strncmp(r.out, "Usage: profile", 14), "out: %s", r.out);
	cr_assert_not_null(strstr(r.out, "--perf-max-stack-depth"));
	run__release(&r);

	PARSE(&r, "-F", "99", "-h");
	cr_assert_eq(r.res, CLI_DONE);
	cr_assert(!strncmp(r.out, "Usage: profile", 14));
	run__release(&r);
}

Test(cli_parse, version)
{
	struct run r;

	PARSE(&r, "--version");
	cr_assert_eq(r.res, CLI_DONE);
	cr_assert_str_eq(r.out, "profile " PROFILE_VERSION "\n");
	cr_assert_str_empty(r.err);
	run__release(&r);
}

Test(cli_parse, output_defaults)
{
	struct run r;

	PARSE(&r, "-F", "99");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.format, FORMAT_TEXT);
	cr_assert(!r.env.folded);
	cr_assert_null(r.env.output);
	cr_assert_eq(r.env.interval, 0);
	cr_assert(!r.env.quiet && !r.env.lines);
	cr_assert(r.env.demangle, "demangling is on by default");
	cr_assert_eq(r.env.nr_debug_dirs, 0);
	run__release(&r);
}

Test(cli_parse, folded_flag_and_format_agree)
{
	struct run r;

	PARSE(&r, "-f");
	cr_assert_eq(r.res, CLI_RUN);
	cr_assert_eq(r.env.format, FORMAT_FOLDED);
	cr_assert(r.env.folded);
	run__release(&r);
	PARSE(&r, "--format=folded", "-f");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert(r.env.folded);
	run__release(&r);
	PARSE(&r, "--format", "json");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.format, FORMAT_JSON);
	cr_assert(!r.env.folded);
	run__release(&r);
}

Test(cli_parse, format_conflicts_and_unknown_formats)
{
	ASSERT_USAGE("conflict", "-f", "--format=svg");
	ASSERT_USAGE("conflict", "--format=svg", "-f");
	ASSERT_USAGE("conflict", "--format=svg", "--format=json");
	ASSERT_USAGE("unknown format 'xml'", "--format=xml");
}

Test(cli_parse, output_file_implies_the_format)
{
	static const struct { const char *file; enum output_format want; } cases[] = {
		{ "out.folded", FORMAT_FOLDED }, { "out.pb.gz", FORMAT_PPROF },
		{ "flame.svg", FORMAT_SVG }, { "p.json", FORMAT_JSON },
		{ "profile.txt", FORMAT_TEXT }, { "out.gz", FORMAT_TEXT },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[] = { "profile", "-o", (char *)cases[i].file, NULL };
		struct run r;

		parse_argv(&r, 3, argv);
		cr_assert_eq(r.res, CLI_RUN, "%s: %s", cases[i].file, r.err);
		cr_assert_str_eq(r.env.output, cases[i].file);
		cr_assert_eq(r.env.format, cases[i].want, "%s", cases[i].file);
		cr_assert_eq(r.env.folded, cases[i].want == FORMAT_FOLDED);
		run__release(&r);
		cr_assert_eq(output_format__from_path(cases[i].file), cases[i].want);
	}
}

Test(cli_parse, explicit_format_beats_the_extension)
{
	struct run r;

	PARSE(&r, "-o", "out.svg", "--format=text");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.format, FORMAT_TEXT);
	run__release(&r);
	ASSERT_USAGE("empty output file name", "-o", "");
}

Test(cli_parse, format_names)
{
	cr_assert_eq(output_format__parse("text"), FORMAT_TEXT);
	cr_assert_eq(output_format__parse("folded"), FORMAT_FOLDED);
	cr_assert_eq(output_format__parse("pprof"), FORMAT_PPROF);
	cr_assert_eq(output_format__parse("svg"), FORMAT_SVG);
	cr_assert_eq(output_format__parse("json"), FORMAT_JSON);
	cr_assert_eq(output_format__parse("JSON"), -1);
	cr_assert_eq(output_format__parse(""), -1);
}

Test(cli_parse, interval_quiet_and_symbol_options)
{
	struct run r;

	PARSE(&r, "-i", "5", "-q", "--debug-dir=/a", "--debug-dir", "/b", "--no-demangle",
	      "--lines");
	cr_assert_eq(r.res, CLI_RUN, "err: %s", r.err);
	cr_assert_eq(r.env.interval, 5);
	cr_assert(r.env.quiet && r.env.lines && !r.env.demangle);
	cr_assert_eq(r.env.nr_debug_dirs, 2);
	cr_assert_str_eq(r.env.debug_dirs[0], "/a");
	cr_assert_str_eq(r.env.debug_dirs[1], "/b");
	run__release(&r);
	cr_assert_null(r.env.debug_dirs);
	ASSERT_USAGE("interval", "-i", "0");
	ASSERT_USAGE("interval", "--interval=2x");
}

/* --- cli__validate ------------------------------------------------------ */

static char *tmp;
static char *proc_root, *sys_root;

static void fake_roots(void)
{
	tmp = make_tmpdir();
	proc_root = path_in(tmp, "proc");
	sys_root = path_in(tmp, "sys");
	free(path_in(tmp, "proc/123/status"));	/* creates proc/123 */
	free(write_in(tmp, "proc/sys/kernel/perf_event_max_stack", "127\n"));
	free(write_in(tmp, "proc/sys/kernel/perf_event_max_sample_rate", "1000\n"));
	free(write_in(tmp, "sys/devices/system/cpu/online", "0-1\n"));
}

static void drop_roots(void)
{
	free(proc_root);
	free(sys_root);
	rm_rf(tmp);
}

/* Parse argv (which must be valid), then validate against the fake roots. */
static enum cli_result validate(char **err_text, int argc, char **argv)
{
	enum cli_result res;
	struct run r;
	size_t len;
	FILE *err;

	parse_argv(&r, argc, argv);
	cr_assert_eq(r.res, CLI_RUN, "parse failed: %s", r.err);
	err = open_memstream(err_text, &len);
	cr_assert_not_null(err);
	res = cli__validate(&r.env, proc_root, sys_root, err);
	cr_assert_eq(fclose(err), 0);
	run__release(&r);
	return res;
}

#define VALIDATE(err, ...)                                                   \
	({                                                                   \
		char *argv_[] = { "profile", __VA_ARGS__, NULL };            \
		validate(err, ARRAY_SIZE(argv_) - 1, argv_);                 \
	})

static void assert_rejected(enum cli_result res, char *err, const char *want)
{
	cr_assert_eq(res, CLI_USAGE, "accepted");
	cr_assert_str_eq(err, want);
	free(err);
}

static void assert_accepted(enum cli_result res, char *err)
{
	cr_assert_eq(res, CLI_RUN, "rejected: %s", err);
	cr_assert_str_empty(err);
	free(err);
}

#define ASSERT_REJECTED(want, ...)                                            \
	do {                                                                 \
		char *e_;                                                    \
		enum cli_result r_ = VALIDATE(&e_, __VA_ARGS__);             \
		assert_rejected(r_, e_, want);                               \
	} while (0)

#define ASSERT_ACCEPTED(...)                                                 \
	do {                                                                 \
		char *e_;                                                    \
		enum cli_result r_ = VALIDATE(&e_, __VA_ARGS__);             \
		assert_accepted(r_, e_);                                     \
	} while (0)

/* Map sizes that would lock gigabytes of kernel memory. */
static void assert_map_rejected(enum cli_result res, char *err, const char *want)
{
	cr_assert_eq(res, CLI_USAGE, "accepted");
	cr_assert(is_one_line(err), "'%s'", err);
	cr_assert_not_null(strstr(err, want), "'%s' lacks '%s'", err, want);
	free(err);
}

Test(cli_validate, map_sizes_are_bounded)
{
	enum cli_result res;
	char *e;

	/* 2 x (1M stacks of 1016 bytes + ...): over 2 GiB of stack maps alone */
	res = VALIDATE(&e, "--stack-storage-size=1048576");
	assert_map_rejected(res, e, "MiB of kernel memory (at most 2048)");
	res = VALIDATE(&e, "--hash-storage-size=16000000");
	assert_map_rejected(res, e, "--hash-storage-size 16000000");
	/* the same hash with shallow stacks fits */
	ASSERT_ACCEPTED("--hash-storage-size=400000", "--perf-max-stack-depth=32");
}

TestSuite(cli_validate, .init = fake_roots, .fini = drop_roots);

Test(cli_validate, accepts_what_exists)
{
	ASSERT_ACCEPTED("-F", "49");
	ASSERT_ACCEPTED("-p", "123", "-C", "1", "--perf-max-stack-depth=127");
	ASSERT_ACCEPTED("-L", "123", "-C", "0");
	ASSERT_ACCEPTED("-F", "1000");
}

Test(cli_validate, rejects_a_missing_pid)
{
	ASSERT_REJECTED("profile: pid 124 does not exist\n",
			"-p", "123,124");
}

Test(cli_validate, rejects_a_missing_tid)
{
	ASSERT_REJECTED("profile: tid 99 does not exist\n",
			"-L", "99");
}

Test(cli_validate, rejects_an_offline_cpu)
{
	ASSERT_REJECTED("profile: cpu 2 does not exist or is offline\n",
			"-C", "2");
	free(write_in(tmp, "sys/devices/system/cpu/online", "0,2-3\n"));
	ASSERT_REJECTED("profile: cpu 1 does not exist or is offline\n",
			"-C", "1");
	ASSERT_ACCEPTED("-C", "3");
}

Test(cli_validate, rejects_a_huge_cpu_number)
{
	ASSERT_REJECTED("profile: cpu 2147483647 does not exist or is offline\n",
			"-C", "2147483647");
	ASSERT_REJECTED("profile: cpu 1000000000 does not exist or is offline\n",
			"-C", "1000000000");
}

Test(cli_validate, rejects_a_cpu_when_the_online_list_is_unreadable)
{
	free(sys_root);
	sys_root = path_in(tmp, "nosys");
	ASSERT_REJECTED("profile: cpu 0 does not exist or is offline\n",
			"-C", "0");
}

Test(cli_validate, rejects_a_depth_above_perf_event_max_stack)
{
	ASSERT_REJECTED("profile: --perf-max-stack-depth 128 exceeds kernel.perf_event_max_stack (127)\n",
			"--perf-max-stack-depth=128");
	free(write_in(tmp, "proc/sys/kernel/perf_event_max_stack", "64\n"));
	ASSERT_REJECTED("profile: --perf-max-stack-depth 127 exceeds kernel.perf_event_max_stack (64)\n",
			"-F", "49");
}

Test(cli_validate, rejects_a_frequency_above_the_max_sample_rate)
{
	ASSERT_REJECTED("profile: frequency 1001 exceeds kernel.perf_event_max_sample_rate (1000)\n",
			"-F", "1001");
	/* -c samples by event count: the rate limit is not about it */
	ASSERT_ACCEPTED("-c", "1000000");
}

/* -o FILE is checked before anything is loaded, not after an hour of sampling. */
Test(cli_validate, rejects_an_output_file_that_cannot_be_written)
{
	char *missing, *ok, *link, *real = path_in(tmp, "rootdir/x"), want[8400];

	free(real);
	cr_assert_neq(asprintf(&missing, "%s/missing/p.folded", tmp), -1);
	snprintf(want, sizeof(want),
		 "profile: cannot write '%s': '%s/missing': No such file or directory\n", missing, tmp);
	ASSERT_REJECTED(want, "-o", missing, "30");

	cr_assert_neq(asprintf(&real, "%s/rootdir", tmp), -1);
	cr_assert_neq(asprintf(&link, "%s/link", tmp), -1);
	cr_assert_eq(symlink(real, link), 0);
	cr_assert_eq(lchown(link, 65534, -1), 0);
	free(real);
	cr_assert_neq(asprintf(&real, "%s/p.folded", link), -1);
	snprintf(want, sizeof(want),
		 "profile: cannot write '%s': '%s' is a symlink owned by uid 65534, not followed\n",
		 real, link);
	ASSERT_REJECTED(want, "-o", real, "-i", "1");

	cr_assert_neq(asprintf(&ok, "%s/p.folded", tmp), -1);
	ASSERT_ACCEPTED("-o", ok);
	cr_assert_eq(access(ok, F_OK), -1, "the check left '%s' behind", ok);
	free(ok);
	free(real);
	free(link);
	free(missing);
}
