// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - cli__parse on argument vectors, cli__validate against a fake
 * /proc and /sys built in a temporary directory.
 */
#include <limits.h>

#include "cli.h"
#include <linux/types.h>
#include "profile.h"
#include "test_util.h"

/* The last cli__parse call, with its output and error text captured. */
static struct {
	struct profile_env env;
	int res;
	char *out, *err;
	size_t out_len, err_len;
} r;

static void run__release(void)
{
	cli__release(&r.env);
	free(r.out);
	free(r.err);
	memset(&r, 0, sizeof(r));
}

/* Parse into r, releasing the last parse; each suite's fini releases the last. */
static void parse_argv(int argc, char **argv)
{
	FILE *out, *err;

	run__release();
	out = open_memstream(&r.out, &r.out_len);
	err = open_memstream(&r.err, &r.err_len);
	cr_assert(out && err);
	r.res = cli__parse(argc, argv, &r.env, out, err);
	cr_assert_eq(fclose(out), 0);
	cr_assert_eq(fclose(err), 0);
}

#define PARSE(...)                                                           \
	do {                                                                 \
		char *argv_[] = { "profile", __VA_ARGS__, NULL };            \
		parse_argv(ARRAY_SIZE(argv_) - 1, argv_);                    \
	} while (0)

/* Parse, and fail the test unless the options were accepted. */
#define PARSE_OK(...)                                                        \
	do {                                                                 \
		PARSE(__VA_ARGS__);                                          \
		cr_assert_eq(r.res, 0, "err: %s", r.err);                    \
	} while (0)

/* A usage error: -errno, nothing on out, one line on err containing what. */
static void assert_usage(const char *what)
{
	cr_assert_lt(r.res, 0, "accepted; err: '%s'", r.err);
	cr_assert_str_empty(r.out);
	cr_assert(is_one_line(r.err), "not one line: '%s'", r.err);
	cr_assert(!strncmp(r.err, "profile: ", 9), "no program name: '%s'", r.err);
	cr_assert_not_null(strstr(r.err, what), "'%s' does not mention '%s'", r.err, what);
}

#define ASSERT_USAGE(what, ...)                                              \
	do {                                                                 \
		PARSE(__VA_ARGS__);                                          \
		assert_usage(what);                                          \
	} while (0)

/* A usage error whose one line is exactly want. */
#define ASSERT_ERROR_LINE(want, ...)                                         \
	do {                                                                 \
		PARSE(__VA_ARGS__);                                          \
		assert_usage(want);                                          \
		cr_assert_str_eq(r.err, want);                               \
	} while (0)

TestSuite(cli_parse, .fini = run__release);

Test(cli_parse, defaults_match_bcc_profile)
{
	char *argv[] = { "profile", NULL };

	parse_argv(1, argv);
	cr_assert_eq(r.res, 0);
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
}

/* -v our statistics, -vv (or -v -v, --verbose twice) libbpf's debug output too */
Test(cli_parse, verbose_counts_its_repeats)
{
	PARSE_OK("-vv");
	cr_assert_eq(r.env.verbose, 2);
	PARSE_OK("-v", "--verbose", "-v");
	cr_assert_eq(r.env.verbose, 3);
}

/* -e names the event, as perf does (its alias too); another is one usage line. */
Test(cli_parse, event_by_name)
{
	PARSE_OK("1");
	cr_assert_eq(r.env.event, SAMPLE_EVENT_CPU_CLOCK);
	PARSE_OK("-e", "cycles");
	cr_assert_eq(r.env.event, SAMPLE_EVENT_CYCLES);
	PARSE_OK("--event", "cpu-cycles");
	cr_assert_eq(r.env.event, SAMPLE_EVENT_CYCLES);
	ASSERT_ERROR_LINE("profile: unknown event 'instructions' (cpu-clock, cycles)\n", "-e",
			  "instructions", "1");
}

Test(cli_parse, frequency_and_duration)
{
	PARSE_OK("-F", "99", "30");
	cr_assert_eq(r.env.frequency, 99);
	cr_assert_eq(r.env.period, 0);
	cr_assert_eq(r.env.duration, 30);
}

Test(cli_parse, count_replaces_the_default_frequency)
{
	PARSE_OK("-c", "1000000");
	cr_assert_eq(r.env.period, 1000000);
	cr_assert_eq(r.env.frequency, 0);
}

Test(cli_parse, every_flag_and_long_option)
{
	PARSE("--frequency=199", "-I", "-d", "-a", "-f", "-v", "-K", "--cpu", "3",
	      "--stack-storage-size=100", "--hash-storage-size", "200",
	      "--perf-max-stack-depth=64", "--tid=7");
	cr_assert_eq(r.res, 0, "err: %s", r.err);
	cr_assert_eq(r.env.frequency, 199);
	cr_assert(r.env.include_idle && r.env.delimited && r.env.annotations);
	cr_assert(r.env.folded && r.env.verbose && r.env.kernel_only && !r.env.user_only);
	cr_assert_eq(r.env.cpu, 3);
	cr_assert_eq(r.env.stack_storage_size, 100);
	cr_assert_eq(r.env.hash_storage_size, 200);
	cr_assert_eq(r.env.max_stack_depth, 64);
	cr_assert_eq(r.env.nr_tids, 1);
	cr_assert_eq(r.env.tids[0], 7);
}

Test(cli_parse, bundled_short_options)
{
	PARSE_OK("-Ufd", "-F99");
	cr_assert(r.env.user_only && r.env.folded && r.env.delimited);
	cr_assert_eq(r.env.frequency, 99);
}

Test(cli_parse, pid_list)
{
	PARSE_OK("-p", "1,2,3");
	cr_assert_eq(r.env.nr_pids, 3);
	cr_assert_eq(r.env.pids[0], 1);
	cr_assert_eq(r.env.pids[1], 2);
	cr_assert_eq(r.env.pids[2], 3);
}

Test(cli_parse, repeated_pid_options_accumulate)
{
	PARSE_OK("-p", "10", "--pid=20,30");
	cr_assert_eq(r.env.nr_pids, 3);
	cr_assert_eq(r.env.pids[0], 10);
	cr_assert_eq(r.env.pids[2], 30);
}

Test(cli_parse, parses_again_from_scratch)
{
	/* getopt state and the env are reset between calls */
	PARSE("-p", "5", "-U", "-F", "7", "9");
	cr_assert_eq(r.res, 0);
	PARSE_OK("-K");
	cr_assert(r.env.kernel_only && !r.env.user_only);
	cr_assert_eq(r.env.nr_pids, 0);
	cr_assert_eq(r.env.frequency, 49);
	cr_assert_eq(r.env.duration, 0);
}

Test(cli_parse, parses_again_after_stopping_inside_a_bundle)
{
	/* -h returns with "v" of "-hv" still unread */
	PARSE("-hv");
	cr_assert_eq(r.res, CLI_DONE);
	PARSE_OK("-K");
	cr_assert(r.env.kernel_only);
	cr_assert(!r.env.verbose, "the rest of the last bundle was parsed again");
}

Test(cli_parse, conflicting_options)
{
	ASSERT_USAGE("-F/--frequency and -c/--count conflict", "-F", "99", "-c", "1000000");
	ASSERT_USAGE("-U/--user-stacks-only and -K/--kernel-stacks-only conflict", "-U", "-K");
	ASSERT_USAGE("-p/--pid and -L/--tid conflict", "-p", "1", "-L", "2");
}

/* --off-cpu traces and --wall weighs by time: what they cannot take, in one line each. */
Test(cli_parse, off_cpu_and_wall_conflicts)
{
	ASSERT_ERROR_LINE("profile: --off-cpu and -F/--frequency conflict\n", "--off-cpu", "-F", "99");
	ASSERT_ERROR_LINE("profile: --off-cpu and -c/--count conflict\n", "-c", "1000000", "--off-cpu");
	ASSERT_ERROR_LINE("profile: --off-cpu and -e/--event conflict\n", "--off-cpu", "-e", "cpu-clock");
	ASSERT_ERROR_LINE("profile: --wall and -K/--kernel-stacks-only conflict\n", "--wall", "-K");
	ASSERT_ERROR_LINE("profile: --off-cpu and -C/--cpu conflict\n", "--off-cpu", "-C", "0");
	ASSERT_ERROR_LINE("profile: --off-cpu and --wall conflict (--wall counts off-CPU time too)\n",
			  "--off-cpu", "--wall");
	ASSERT_ERROR_LINE("profile: --wall needs the cpu-clock event (a sample of cycles is no time)\n",
			  "--wall", "-e", "cycles");
	ASSERT_ERROR_LINE("profile: --min-block needs --off-cpu or --wall\n", "--min-block", "10");
	ASSERT_ERROR_LINE("profile: --include-runnable needs --off-cpu or --wall\n",
			  "--include-runnable");
	ASSERT_ERROR_LINE("profile: --min-block 20 exceeds --max-block 10\n", "--off-cpu",
			  "--min-block", "20", "--max-block", "10");
	ASSERT_ERROR_LINE("profile: max block '0' out of range (1..2592000000000)\n", "--off-cpu",
			  "--max-block", "0");
	ASSERT_USAGE("--from and --off-cpu conflict", "--from", "x.folded", "--off-cpu");
}

Test(cli_parse, off_cpu_and_wall)
{
	PARSE_OK("--off-cpu", "--min-block", "1000", "--max-block", "2000", "-U", "-p", "1");
	cr_assert(r.env.off_cpu && !r.env.wall);
	cr_assert_eq(r.env.frequency, 0, "no rate: nothing is sampled");
	cr_assert_eq(r.env.min_block, 1000);
	cr_assert_eq(r.env.max_block, 2000);
	PARSE_OK("--off-cpu", "-K", "--include-runnable");
	cr_assert(r.env.include_runnable);
	PARSE_OK("--wall", "-F", "99", "-U");
	cr_assert(r.env.wall);
	cr_assert_eq(r.env.frequency, 99);
	PARSE_OK("--wall");
	cr_assert_eq(r.env.frequency, DEFAULT_FREQUENCY);
	cr_assert_eq(r.env.max_block, 0, "no bound");
}

Test(cli_parse, bad_numbers)
{
	ASSERT_ERROR_LINE("profile: invalid frequency '12abc'\n", "-F", "12abc");

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
	ASSERT_ERROR_LINE("profile: frequency '10001' out of range (1..10000)\n", "-F", "10001");
	ASSERT_USAGE("count", "-c", "1");
	ASSERT_USAGE("count", "-c", "99999");
	PARSE_OK("-F", "10000");
	PARSE_OK("-c", "100000");
}

Test(cli_parse, map_bytes_of_the_defaults)
{
	unsigned long long mib;

	unsigned long long fp;

	PARSE_OK("--call-graph=fp", "1");
	fp = cli__map_bytes(&r.env);
	mib = fp >> 20;
	/* 2 x (16384 stacks + 40960 counts + 81920 overflow stacks), full */
	cr_assert(mib > 150 && mib < 250, "%llu MiB", mib);
	cli__release(&r.env);
	/* and 64 MiB of unwind rows, system-wide */
	PARSE_OK("1");
	cr_assert_eq(cli__map_bytes(&r.env) - fp, 64ull << 20);
}

Test(cli_parse, zero_duration_is_out_of_range)
{
	ASSERT_ERROR_LINE("profile: duration '0' out of range (1..2147483647)\n", "0");
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

	cr_assert_not_null(list);
	for (int i = 1; i <= 1025; i++)
		p += sprintf(p, "%s%d", i > 1 ? "," : "", i);
	parse_argv(3, argv);
	assert_usage("too many pids");
	cr_assert_null(r.env.pids, "pids not released on error");
	free(list);
}

Test(cli_parse, cgroups_repeat_and_are_bounded)
{
	char *argv[2 * MAX_CGROUP_FILTERS + 3] = { "profile" };
	int n = 1;

	PARSE_OK("--cgroup", "/a", "--cgroup=/sys/fs/cgroup/b", "--by-container");
	cr_assert_eq(r.env.nr_cgroups, 2);
	cr_assert_str_eq(r.env.cgroups[0], "/a");
	cr_assert_str_eq(r.env.cgroups[1], "/sys/fs/cgroup/b");
	cr_assert(r.env.by_container);
	PARSE_OK("-F", "99");
	cr_assert_not(r.env.by_container);
	cr_assert_eq(r.env.nr_cgroups, 0);
	for (int i = 0; i <= MAX_CGROUP_FILTERS; i++) {
		argv[n++] = "--cgroup";
		argv[n++] = "/a";
	}
	parse_argv(n, argv);
	assert_usage("more than 64 --cgroup paths");
	cr_assert_null(r.env.cgroups, "cgroups not released on error");
}

Test(cli_parse, unknown_options)
{
	ASSERT_ERROR_LINE("profile: unknown option '-z' (see --help)\n", "-z");
	ASSERT_USAGE("--bogus", "--bogus");
	PARSE("-vz");
	assert_usage("'-z'");
}

/* A near miss of a long option gets the option it missed; a far one --help */
Test(cli_parse, unknown_long_option_near_a_known_one)
{
	ASSERT_ERROR_LINE("profile: unknown option '--frequncy'; did you mean '--frequency'?\n",
			  "--frequncy", "99");
	ASSERT_ERROR_LINE("profile: unknown option '--fomrat=svg'; did you mean '--format'?\n",
			  "--fomrat=svg");
	ASSERT_ERROR_LINE("profile: unknown option '--no-debuginfd'; did you mean '--no-debuginfod'?\n",
			  "--no-debuginfd");
	ASSERT_ERROR_LINE("profile: unknown option '--colour' (see --help)\n", "--colour");
	ASSERT_ERROR_LINE("profile: unknown option '--pd'; did you mean '--pid'?\n", "--pd");
}

Test(cli_parse, argument_to_a_long_option_without_one)
{
	/* long-only options have values above any char: none may be printed as one */
	PARSE("--version=1");
	assert_usage("--version");
	for (const char *p = r.err; *p; p++)
		cr_assert(*p == '\n' || (*p >= 0x20 && *p < 0x7f), "unprintable: '%s'", r.err);
	PARSE("--lines=yes");
	assert_usage("--lines");
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
	PARSE("--help");
	cr_assert_eq(r.res, CLI_DONE);
	cr_assert_str_empty(r.err);
	cr_assert(!strncmp(r.out, "Usage: profile", 14), "out: %s", r.out);
	cr_assert_not_null(strstr(r.out, "--perf-max-stack-depth"));

	PARSE("-F", "99", "-h");
	cr_assert_eq(r.res, CLI_DONE);
	cr_assert(!strncmp(r.out, "Usage: profile", 14));
}

/*
 * Parse each long option that help names after sep ("  --x" or ", --x"):
 * it is known, and takes an argument iff shown with one ("--x=N").
 * Returns how many were tried.
 */
static size_t try_long_options(const char *help, const char *sep)
{
	size_t n = 0;

	for (const char *p = strstr(help, sep); p; p = strstr(p + 1, sep)) {
		const char *opt = p + strlen(sep) - 2;
		size_t len = strspn(opt, "-abcdefghijklmnopqrstuvwxyz");
		char name[64];

		cr_assert_lt(len, sizeof(name));
		if (len == 2)
			continue;	/* "-- COMMAND": command_after_double_dash */
		memcpy(name, opt, len);
		name[len] = '\0';
		PARSE(name);
		if (opt[len] == '=')
			cr_assert_not_null(strstr(r.err, "requires an argument"), "%s: '%s'", name, r.err);
		else
			cr_assert_null(strstr(r.err, "unknown option"), "%s: '%s'", name, r.err);
		n++;
	}
	return n;
}

Test(cli_parse, every_long_option_in_the_help_is_known)
{
	char *help;
	size_t n;

	PARSE("--help");
	help = strdup(r.out);
	cr_assert_not_null(help);
	n = try_long_options(help, "  --") + try_long_options(help, ", --");
	cr_assert_eq(n, 48, "%zu long options in the help", n);
	free(help);
}

Test(cli_parse, version)
{
	PARSE("--version");
	cr_assert_eq(r.res, CLI_DONE);
	cr_assert_str_eq(r.out, "profile " PROFILE_VERSION "\n");
	cr_assert_str_empty(r.err);
}

Test(cli_parse, output_defaults)
{
	PARSE_OK("-F", "99");
	cr_assert_eq(r.env.format, FORMAT_TEXT);
	cr_assert(!r.env.folded);
	cr_assert_null(r.env.output);
	cr_assert_eq(r.env.interval, 0);
	cr_assert(!r.env.quiet && !r.env.lines);
	cr_assert(r.env.demangle, "demangling is on by default");
	cr_assert_eq(r.env.nr_debug_dirs, 0);
}

Test(cli_parse, folded_flag_and_format_agree)
{
	PARSE("-f");
	cr_assert_eq(r.res, 0);
	cr_assert_eq(r.env.format, FORMAT_FOLDED);
	cr_assert(r.env.folded);
	PARSE_OK("--format=folded", "-f");
	cr_assert(r.env.folded);
	PARSE_OK("--format", "json");
	cr_assert_eq(r.env.format, FORMAT_JSON);
	cr_assert(!r.env.folded);
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
		{ "cpu.pprof", FORMAT_PPROF }, { "cpu.pb", FORMAT_PPROF },
		{ "flame.svg", FORMAT_SVG }, { "cpu.html", FORMAT_SVG },
		{ "p.json", FORMAT_JSON }, { "p.speedscope.json", FORMAT_JSON },
		{ "profile.txt", FORMAT_TEXT }, { "/tmp/a.b/%F_%H%M%S.folded", FORMAT_FOLDED },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[] = { "profile", "-o", (char *)cases[i].file, NULL };

		parse_argv(3, argv);
		cr_assert_eq(r.res, 0, "%s: %s", cases[i].file, r.err);
		cr_assert_str_eq(r.env.output, cases[i].file);
		cr_assert_eq(r.env.format, cases[i].want, "%s", cases[i].file);
		cr_assert_eq(r.env.folded, cases[i].want == FORMAT_FOLDED);
		cr_assert_eq(output_format__from_path(cases[i].file, NULL), (int)cases[i].want);
	}
}

/* No extension: text, or what --format says; a dot in a directory or a strftime field is none. */
Test(cli_parse, output_file_without_extension)
{
	static const char *const files[] = {
		"out", "/dev/stdout", "/tmp/my.dir/out", ".hidden", "/var/lib/profile/%Y.%m.%d",
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *argv[] = { "profile", "-o", (char *)files[i], NULL };
		char *svg[] = { "profile", "-o", (char *)files[i], "--format=svg", NULL };

		cr_assert_eq(output_format__from_path(files[i], NULL), -ENODATA, "%s", files[i]);
		parse_argv(3, argv);
		cr_assert_eq(r.res, 0, "%s: %s", files[i], r.err);
		cr_assert_eq(r.env.format, FORMAT_TEXT, "%s", files[i]);
		parse_argv(4, svg);
		cr_assert_eq(r.res, 0, "%s: %s", files[i], r.err);
		cr_assert_eq(r.env.format, FORMAT_SVG, "%s", files[i]);
	}
}

/* An extension we do not know needs --format, and then is the user's choice. */
Test(cli_parse, unknown_extension_needs_a_format)
{
	const char *ext = NULL;

	ASSERT_ERROR_LINE("profile: -o 'x.gz': unknown extension '.gz' (.txt, .folded, .pprof, .pb, .pb.gz, .svg, .html, .json, .speedscope.json; or say --format)\n",
			  "-o", "x.gz");
	ASSERT_USAGE("unknown extension '.data'", "-o", "/tmp/perf.data");
	ASSERT_USAGE("unknown extension '.bak'", "-o", "out.folded.bak");
	cr_assert_eq(output_format__from_path("dir.x/out.stacks", &ext), -EINVAL);
	cr_assert_str_eq(ext, ".stacks");
	PARSE_OK("--format", "folded", "-o", "x.stacks");
	cr_assert_eq(r.env.format, FORMAT_FOLDED);
	PARSE_OK("-f", "-o", "x.gz");
	cr_assert(r.env.folded);
}

/* An extension that names another format than -f or --format: both named. */
Test(cli_parse, extension_contradicting_the_format)
{
	ASSERT_ERROR_LINE("profile: --format svg and -o 'x.folded' (folded output) conflict\n",
			  "--format", "svg", "-o", "x.folded");
	ASSERT_ERROR_LINE("profile: -f/--folded and -o 'out.txt' (text output) conflict\n",
			  "-o", "out.txt", "-f");
	ASSERT_USAGE("--format text and -o 'out.svg' (svg output) conflict", "-o", "out.svg",
		     "--format=text");
	ASSERT_USAGE("(pprof output)", "--format=json", "-o", "cpu.pb");
	PARSE_OK("--format=pprof", "-o", "cpu.pb.gz");
	cr_assert_eq(r.env.format, FORMAT_PPROF);
	PARSE_OK("-f", "-o", "out.folded");
	cr_assert(r.env.folded);
	ASSERT_USAGE("empty output file name", "-o", "");
}

/*
 * Parse argv, kept by the caller: env.command points into it. Fails the
 * test unless the options were accepted.
 */
#define PARSE_KEPT(argv)                                                     \
	do {                                                                 \
		parse_argv(ARRAY_SIZE(argv) - 1, argv);                      \
		cr_assert_eq(r.res, 0, "err: %s", r.err);                    \
	} while (0)

/* -- CMD ARGS: the command as given, its options untouched; a duration before "--". */
/* --from: files in the order given; output options apply, sampling ones conflict. */
Test(cli_parse, from_files)
{
	PARSE_OK("--from", "a.folded", "--from=b.pb.gz", "-o", "x.svg", "-q");
	cr_assert_eq(r.env.nr_from, 2);
	cr_assert_str_eq(r.env.from[0], "a.folded");
	cr_assert_str_eq(r.env.from[1], "b.pb.gz");
	cr_assert_eq(r.env.format, FORMAT_SVG);
	PARSE_OK("--from", "a.folded", "-f", "-d", "-a");
	cr_assert_eq(r.env.format, FORMAT_FOLDED);
	PARSE("--from", "");
	assert_usage("empty --from file name");
	PARSE("--from", "a.folded", "-F", "99");
	assert_usage("--from and -F/--frequency conflict");
	PARSE("-p", "1", "--from", "a.folded");
	assert_usage("--from and -p/--pid conflict");
	PARSE("--from", "a.folded", "--call-graph", "fp");
	assert_usage("--from and --call-graph conflict");
	PARSE("--from", "a.folded", "--lines");
	assert_usage("--from and --lines conflict");
	PARSE("--from", "a.folded", "-i", "5");
	assert_usage("--from and -i/--interval conflict");
	PARSE("--from", "a.folded", "10");
	assert_usage("--from and a duration (10) conflict");
	/* more operands are more files, as flamegraph.pl FILE... takes them */
	PARSE_OK("b.folded", "--from", "a.folded", "c.pb.gz", "-o", "x.svg", "./10");
	cr_assert_eq(r.env.nr_from, 4);
	cr_assert_str_eq(r.env.from[0], "a.folded");
	cr_assert_str_eq(r.env.from[1], "b.folded");
	cr_assert_str_eq(r.env.from[2], "c.pb.gz");
	cr_assert_str_eq(r.env.from[3], "./10");
	PARSE("--from", "a.folded", "--", "ls");
	assert_usage("--from and a command after '--' conflict");
}

Test(cli_parse, command_after_double_dash)
{
	char *a[] = { "profile", "-F", "99", "--", "./cmd", "-F", "5", "--", "x", NULL };
	char *b[] = { "profile", "10", "-U", "--", "sleep", "20", NULL };
	char *c[] = { "profile", "--", "10", NULL };
	char *d[] = { "profile", "-o", "--", "10", NULL };

	PARSE_KEPT(a);
	cr_assert_not_null(r.env.command);
	cr_assert_str_eq(r.env.command[0], "./cmd");
	cr_assert_str_eq(r.env.command[1], "-F");
	cr_assert_str_eq(r.env.command[2], "5");
	cr_assert_str_eq(r.env.command[3], "--");
	cr_assert_str_eq(r.env.command[4], "x");
	cr_assert_null(r.env.command[5]);
	cr_assert_eq(r.env.frequency, 99);
	cr_assert_eq(r.env.duration, 0);
	/* getopt moves "10" behind "--": it is still the duration */
	PARSE_KEPT(b);
	cr_assert_eq(r.env.duration, 10);
	cr_assert_str_eq(r.env.command[0], "sleep");
	cr_assert_str_eq(r.env.command[1], "20");
	cr_assert_null(r.env.command[2]);
	cr_assert(r.env.user_only);
	PARSE_KEPT(c);
	cr_assert_eq(r.env.duration, 0);
	cr_assert_str_eq(r.env.command[0], "10");
	/* "--" as -o's file is no separator */
	PARSE_KEPT(d);
	cr_assert_null(r.env.command);
	cr_assert_eq(r.env.duration, 10);
	cr_assert_str_eq(r.env.output, "--");
	PARSE_OK("5");
	cr_assert_null(r.env.command);
}

Test(cli_parse, command_errors)
{
	ASSERT_ERROR_LINE("profile: no command after '--'\n", "--");
	ASSERT_USAGE("no command after '--'", "-F", "99", "10", "--");
	ASSERT_USAGE("empty command name", "--", "");
	ASSERT_ERROR_LINE("profile: -p/--pid and a command after '--' conflict\n", "-p", "1", "--",
			  "true");
	ASSERT_USAGE("-L/--tid and a command", "-L", "1", "--", "true");
	ASSERT_USAGE("unexpected argument '20'", "10", "20", "--", "true");
	ASSERT_USAGE("invalid duration 'x'", "x", "--", "true");
}

Test(cli_parse, format_names)
{
	cr_assert_eq(output_format__parse("text"), FORMAT_TEXT);
	cr_assert_eq(output_format__parse("folded"), FORMAT_FOLDED);
	cr_assert_eq(output_format__parse("pprof"), FORMAT_PPROF);
	cr_assert_eq(output_format__parse("svg"), FORMAT_SVG);
	cr_assert_eq(output_format__parse("json"), FORMAT_JSON);
	cr_assert_eq(output_format__parse("JSON"), -EINVAL);
	cr_assert_eq(output_format__parse(""), -EINVAL);
}

Test(cli_parse, interval_quiet_and_symbol_options)
{
	PARSE_OK("-i", "5", "-q", "--debug-dir=/a", "--debug-dir", "/b", "--no-demangle",
		 "--lines");
	cr_assert_eq(r.env.interval, 5);
	cr_assert(r.env.quiet && r.env.lines && !r.env.demangle);
	cr_assert_eq(r.env.nr_debug_dirs, 2);
	cr_assert_str_eq(r.env.debug_dirs[0], "/a");
	cr_assert_str_eq(r.env.debug_dirs[1], "/b");
	cli__release(&r.env);
	cr_assert_null(r.env.debug_dirs);
	cr_assert_eq(r.env.nr_debug_dirs, 0);
	ASSERT_USAGE("interval", "-i", "0");
	ASSERT_USAGE("interval", "--interval=2x");
}

Test(cli_parse, python_frames_unless_no_python)
{
	PARSE_OK("-F", "99");
	cr_assert(r.env.python, "Python frames are off by default");
	PARSE_OK("--no-python", "--call-graph", "fp");
	cr_assert(!r.env.python);
	cr_assert(!r.env.dwarf);
	ASSERT_USAGE("no-python", "--no-python=1");
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
	run__release();
	free(proc_root);
	free(sys_root);
	rm_rf(tmp);
}

/* Parse argv (which must be valid), then validate against the fake roots. */
static int validate(char **err_text, int argc, char **argv)
{
	size_t len;
	FILE *err;
	int res;

	parse_argv(argc, argv);
	cr_assert_eq(r.res, 0, "parse failed: %s", r.err);
	err = open_memstream(err_text, &len);
	cr_assert_not_null(err);
	res = cli__validate(&r.env, proc_root, sys_root, err);
	cr_assert_eq(fclose(err), 0);
	return res;
}

#define VALIDATE(err, ...)                                                   \
	({                                                                   \
		char *argv_[] = { "profile", __VA_ARGS__, NULL };            \
		validate(err, ARRAY_SIZE(argv_) - 1, argv_);                 \
	})

static void assert_rejected(int res, char *err, const char *want)
{
	cr_assert_lt(res, 0, "accepted");
	cr_assert_str_eq(err, want);
	free(err);
}

static void assert_accepted(int res, char *err)
{
	cr_assert_eq(res, 0, "rejected: %s", err);
	cr_assert_str_empty(err);
	free(err);
}

#define ASSERT_REJECTED(want, ...)                                            \
	do {                                                                 \
		char *e_;                                                    \
		int r_ = VALIDATE(&e_, __VA_ARGS__);             \
		assert_rejected(r_, e_, want);                               \
	} while (0)

#define ASSERT_ACCEPTED(...)                                                 \
	do {                                                                 \
		char *e_;                                                    \
		int r_ = VALIDATE(&e_, __VA_ARGS__);             \
		assert_accepted(r_, e_);                                     \
	} while (0)

/* Map sizes that would lock gigabytes of kernel memory. */
static void assert_map_rejected(int res, char *err, const char *want)
{
	cr_assert_lt(res, 0, "accepted");
	cr_assert(is_one_line(err), "'%s'", err);
	cr_assert_not_null(strstr(err, want), "'%s' lacks '%s'", err, want);
	free(err);
}

Test(cli_validate, map_sizes_are_bounded)
{
	int res;
	char *e;

	/* 2 x (1M stacks of 1016 bytes + ...): over 2 GiB of stack maps alone */
	res = VALIDATE(&e, "--stack-storage-size=1048576");
	assert_map_rejected(res, e, "MiB of kernel memory (at most 2048)");
	res = VALIDATE(&e, "--hash-storage-size=16000000");
	assert_map_rejected(res, e, "--hash-storage-size 16000000");
	/* the same hash with shallow stacks fits */
	ASSERT_ACCEPTED("--hash-storage-size=400000", "--perf-max-stack-depth=32");
	/* 64 M unwind rows of 16 bytes: 1 GiB, with the rest over 2 GiB; not counted with fp */
	res = VALIDATE(&e, "--unwind-storage-size=67108864", "--stack-storage-size=500000");
	assert_map_rejected(res, e, "--unwind-storage-size 67108864");
	ASSERT_ACCEPTED("--unwind-storage-size=67108864", "--stack-storage-size=500000",
			"--call-graph=fp");
}

TestSuite(cli_validate, .init = fake_roots, .fini = drop_roots);

Test(cli_validate, accepts_what_exists)
{
	ASSERT_ACCEPTED("-F", "49");
	ASSERT_ACCEPTED("-p", "123", "-C", "1", "--perf-max-stack-depth=127");
	ASSERT_ACCEPTED("-L", "123", "-C", "0");
	ASSERT_ACCEPTED("-F", "1000");
}

/* Each kind of rejection has its errno, for callers that tell them apart. */
Test(cli_validate, rejections_return_their_errno)
{
	char *e;

	cr_assert_eq(VALIDATE(&e, "-p", "124"), -ESRCH);
	free(e);
	cr_assert_eq(VALIDATE(&e, "-C", "2"), -ENODEV);
	free(e);
	cr_assert_eq(VALIDATE(&e, "--perf-max-stack-depth=128", "--call-graph", "fp"), -ERANGE);
	free(e);
	cr_assert_eq(VALIDATE(&e, "--stack-storage-size=1048576"), -E2BIG);
	free(e);
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

static const char v1_mountinfo[] =
	"27 25 0:26 / /sys/fs/cgroup/cpu rw,nosuid shared:10 - cgroup cgroup rw,cpu\n";

Test(cli_validate, cgroups_on_a_cgroup_v1_host)
{
	free(write_in(tmp, "proc/self/mountinfo", v1_mountinfo));
	ASSERT_REJECTED("profile: --cgroup '/x': no cgroup v2 hierarchy is mounted (a cgroup v1 host)\n",
			"--cgroup", "/x");
	ASSERT_REJECTED("profile: --by-container: no cgroup v2 hierarchy is mounted (a cgroup v1 host)\n",
			"--by-container");
	/* nothing asked of cgroups: nothing checked */
	ASSERT_ACCEPTED("-F", "49");
}

Test(cli_validate, cgroup_paths_that_are_no_cgroup)
{
	char *mi, *mnt = path_in(tmp, "cg");

	cr_assert_eq(mkdir(mnt, 0755), 0);
	/* a "cgroup2" mount at a directory of tmp's file system */
	cr_assert_neq(asprintf(&mi, "26 25 0:24 / %s rw - cgroup2 cgroup2 rw\n", mnt), -1);
	free(write_in(tmp, "proc/self/mountinfo", mi));
	ASSERT_REJECTED("profile: --cgroup '/nope': no such cgroup\n", "--cgroup", "/nope");
	ASSERT_REJECTED("profile: --cgroup '/': not a cgroup v2 directory (a cgroup v1 hierarchy's?)\n",
			"--cgroup", "/");
	/* control characters in the path are defused */
	ASSERT_REJECTED("profile: --cgroup '/a?[2J': no such cgroup\n", "--cgroup", "/a\033[2J");
	free(mi);
	free(mnt);
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

/* The kernel's sysctl bounds its own walks: frame pointers; tables go deeper. */
Test(cli_validate, rejects_a_depth_above_perf_event_max_stack)
{
	ASSERT_REJECTED("profile: --perf-max-stack-depth 128 exceeds kernel.perf_event_max_stack (127) for --call-graph fp\n",
			"--perf-max-stack-depth=128", "--call-graph", "fp");
	free(write_in(tmp, "proc/sys/kernel/perf_event_max_stack", "64\n"));
	ASSERT_REJECTED("profile: --perf-max-stack-depth 127 exceeds kernel.perf_event_max_stack (64) for --call-graph fp\n",
			"-F", "49", "--call-graph", "fp");
	ASSERT_ACCEPTED("--perf-max-stack-depth=1024");
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

/*
 * -i with an -o name that stays the same for two intervals: each profile
 * would replace the last without a word, unless --replace says so.
 */
Test(cli_validate, rejects_one_output_file_for_every_interval)
{
	char *same, *hourly, *each, *want;

	cr_assert_neq(asprintf(&same, "%s/same.folded", tmp), -1);
	cr_assert_neq(asprintf(&hourly, "%s/p-%%F-%%H.folded", tmp), -1);
	cr_assert_neq(asprintf(&each, "%s/p-%%H%%M%%S.folded", tmp), -1);
	cr_assert_neq(asprintf(&want, "profile: -o '%s' names one file for more than one interval: each profile would replace the last; put a strftime conversion that changes every interval in it (%%s, %%H%%M%%S) or say --replace\n",
			       same), -1);
	ASSERT_REJECTED(want, "-i", "1", "-o", same, "2");
	free(want);
	cr_assert_neq(asprintf(&want, "profile: -o '%s' names one file for more than one interval: each profile would replace the last; put a strftime conversion that changes every interval in it (%%s, %%H%%M%%S) or say --replace\n",
			       hourly), -1);
	ASSERT_REJECTED(want, "-i", "60", "-o", hourly);
	/* an hour apart, every interval has an hour of its own */
	ASSERT_ACCEPTED("-i", "3600", "-o", hourly);
	ASSERT_ACCEPTED("-i", "1", "-o", each);
	ASSERT_ACCEPTED("-i", "1", "--replace", "-o", same);
	/* one profile, or a stream written in place */
	ASSERT_ACCEPTED("-o", same, "2");
	ASSERT_ACCEPTED("-i", "1", "-o", "/dev/null");
	free(want);
	free(each);
	free(hourly);
	free(same);
}

Test(cli_parse, call_graph_dwarf_by_default_fp_on_request)
{
	PARSE_OK("-F", "99");
	cr_assert(r.env.dwarf, "user stacks by unwind tables unless asked otherwise");
	cr_assert_eq(r.env.unwind_storage_size, DEFAULT_UNWIND_STORAGE_ALL, "system-wide");
	cli__release(&r.env);
	PARSE_OK("-p", "1");
	cr_assert_eq(r.env.unwind_storage_size, DEFAULT_UNWIND_STORAGE, "with -p");
	cli__release(&r.env);
	PARSE_OK("--call-graph", "fp", "--unwind-storage-size", "4096");
	cr_assert(!r.env.dwarf);
	cr_assert_eq(r.env.unwind_storage_size, 4096);
	cli__release(&r.env);
	PARSE_OK("--call-graph=dwarf");
	cr_assert(r.env.dwarf);
	cli__release(&r.env);
}

Test(cli_parse, call_graph_modes_are_checked)
{
	ASSERT_USAGE("unknown call graph mode 'lbr'", "--call-graph", "lbr");
	ASSERT_USAGE("unwind storage size '0' out of range", "--unwind-storage-size", "0");
}

Test(cli_parse, unwind_cache_size)
{
	PARSE_OK("-F", "99");
	cr_assert_eq(r.env.unwind_cache_size, DEFAULT_UNWIND_CACHE_MIB);
	PARSE_OK("--unwind-cache-size=1");
	cr_assert_eq(r.env.unwind_cache_size, 1);
	PARSE_OK("--unwind-cache-size", "1048576");
	cr_assert_eq(r.env.unwind_cache_size, MAX_UNWIND_CACHE_MIB);
	ASSERT_USAGE("unwind cache size '0' out of range", "--unwind-cache-size=0");
	ASSERT_USAGE("unwind cache size '1048577' out of range", "--unwind-cache-size=1048577");
	ASSERT_USAGE("invalid unwind cache size '64M'", "--unwind-cache-size=64M");
	ASSERT_USAGE("invalid unwind cache size ''", "--unwind-cache-size=");
}

Test(cli_parse, debuginfod_defaults_and_options)
{
	PARSE_OK("-F", "99");
	cr_assert(r.env.debuginfod, "on by default (servers still needed)");
	cr_assert_eq(r.env.nr_debuginfod_urls, 0);
	cr_assert_eq(r.env.debuginfod_deadline, DEFAULT_DEBUGINFOD_DEADLINE);
	cr_assert_eq(r.env.debuginfod_max_files, DEFAULT_DEBUGINFOD_MAX_FILES);
	cr_assert_eq(r.env.debuginfod_max_user_files, DEFAULT_DEBUGINFOD_MAX_USER_FILES);
	PARSE_OK("--debuginfod-max-files=1000", "--debuginfod-max-user-files", "1");
	cr_assert_eq(r.env.debuginfod_max_files, 1000);
	cr_assert_eq(r.env.debuginfod_max_user_files, 1);
	PARSE_OK("--debuginfod-url", "http://a:8002", "--debuginfod-url=https://b/x",
		 "--debuginfod-deadline=0");
	cr_assert_eq(r.env.nr_debuginfod_urls, 2);
	cr_assert_str_eq(r.env.debuginfod_urls[0], "http://a:8002");
	cr_assert_str_eq(r.env.debuginfod_urls[1], "https://b/x");
	cr_assert_eq(r.env.debuginfod_deadline, 0);
	PARSE_OK("--no-debuginfod");
	cr_assert(!r.env.debuginfod);
}

Test(cli_parse, debuginfod_bad_options)
{
	ASSERT_USAGE("--no-debuginfod and --debuginfod-url conflict", "--no-debuginfod",
		     "--debuginfod-url=http://a");
	ASSERT_USAGE("invalid debuginfod URL", "--debuginfod-url=");
	ASSERT_USAGE("invalid debuginfod URL", "--debuginfod-url", "http://a http://b");
	ASSERT_USAGE("debuginfod deadline", "--debuginfod-deadline=-1");
	ASSERT_USAGE("debuginfod deadline", "--debuginfod-deadline=3601");
	ASSERT_USAGE("debuginfod deadline", "--debuginfod-deadline=5s");
	ASSERT_USAGE("debuginfod max files '0' out of range", "--debuginfod-max-files=0");
	ASSERT_USAGE("invalid debuginfod max user files", "--debuginfod-max-user-files=x");
}
