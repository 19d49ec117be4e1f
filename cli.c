// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - profile(8)'s command line into struct profile_env: the options
 * (each set by its row in cli_options.c), the operands, then the checks
 * of options taken together (conflicts, what --from refuses, -o's
 * extension). Checks against the system are cli_validate.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "cli_suggest.h"
#include "common/escape.h"

static void env__init(struct profile_env *env)
{
	memset(env, 0, sizeof(*env));
	env->cpu = -1;
	env->demangle = true;
	env->python = true;
	env->debuginfod = true;
	env->debuginfod_deadline = DEFAULT_DEBUGINFOD_DEADLINE;
	env->debuginfod_max_files = DEFAULT_DEBUGINFOD_MAX_FILES;
	env->debuginfod_max_user_files = DEFAULT_DEBUGINFOD_MAX_USER_FILES;
	env->stack_storage_size = DEFAULT_STACK_STORAGE;
	env->hash_storage_size = DEFAULT_HASH_STORAGE;
	env->max_stack_depth = DEFAULT_MAX_STACK_DEPTH;
	env->dwarf = true;
	env->unwind_storage_size = 0;	/* by what is profiled, once parsed */
	env->unwind_cache_dir = DEFAULT_UNWIND_CACHE_DIR;
	env->unwind_cache_size = DEFAULT_UNWIND_CACHE_MIB;
}

static int check_conflicts(struct profile_env *env, FILE *err)
{
	if (env->user_only && env->kernel_only) {
		fprintf(err, "profile: -U/--user-stacks-only and -K/--kernel-stacks-only conflict\n");
		return -EINVAL;
	}
	if (!env->debuginfod && env->nr_debuginfod_urls) {
		fprintf(err, "profile: --no-debuginfod and --debuginfod-url conflict\n");
		return -EINVAL;
	}
	if (env->frequency && env->period) {
		fprintf(err, "profile: -F/--frequency and -c/--count conflict\n");
		return -EINVAL;
	}
	if (env->command && (env->nr_pids || env->nr_tids)) {
		fprintf(err, "profile: %s and a command after '--' conflict\n",
			env->nr_pids ? "-p/--pid" : "-L/--tid");
		return -EINVAL;
	}
	if (env->nr_pids && env->nr_tids) {
		fprintf(err, "profile: -p/--pid and -L/--tid conflict\n");
		return -EINVAL;
	}
	/* --off-cpu samples nothing: no rate */
	if (!env->period && !env->frequency && !env->off_cpu)
		env->frequency = DEFAULT_FREQUENCY;
	return 0;
}

/*
 * --off-cpu traces, it does not sample: no rate, no event. --wall weighs
 * samples by their period in ns: cpu-clock only. The rest needs one of them.
 */
static int check_off_cpu(struct parser *p)
{
	const struct profile_env *env = p->env;
	const char *mode = env->off_cpu ? "--off-cpu" : "--wall";
	int bad = 0;

	if (env->off_cpu && env->wall)
		fprintf(p->err, "profile: --off-cpu and --wall conflict (--wall counts off-CPU time too)\n");
	else if ((env->off_cpu || env->wall) && env->cpu >= 0)
		bad = 'C';
	else if (env->off_cpu && (env->frequency || env->period || p->event_set))
		bad = env->frequency ? 'F' : env->period ? 'c' : 'e';
	else if (env->wall && env->kernel_only)
		bad = 'K';
	else if (env->wall && env->event != SAMPLE_EVENT_CPU_CLOCK)
		fprintf(p->err, "profile: --wall needs the cpu-clock event (a sample of cycles is no time)\n");
	else if (!env->off_cpu && !env->wall && (env->include_runnable || env->min_block || env->max_block))
		fprintf(p->err, "profile: --%s needs --off-cpu or --wall\n", env->include_runnable ?
			"include-runnable" : env->min_block ? "min-block" : "max-block");
	else if (env->max_block && env->min_block > env->max_block)
		fprintf(p->err, "profile: --min-block %ld exceeds --max-block %ld\n", env->min_block,
			env->max_block);
	else
		return 0;
	if (bad) {
		fprintf(p->err, "profile: %s and ", mode);
		cli_options__print_name(p->err, cli_options__find(bad));
		fputs(" conflict\n", p->err);
	}
	return -EINVAL;
}

/* --from writes a profile that was sampled already: nothing about sampling goes with it. */
static int check_from(struct parser *p)
{
	struct profile_env *env = p->env;

	if (!env->nr_from)
		return 0;
	if (p->sampling_opt) {
		fputs("profile: --from and ", p->err);
		cli_options__print_name(p->err, p->sampling_opt);
		fputs(" conflict (a profile read from a file is not sampled again)\n", p->err);
		return -EINVAL;
	}
	if (env->command) {
		fprintf(p->err, "profile: --from and a command after '--' conflict\n");
		return -EINVAL;
	}
	if (env->duration) {
		fprintf(p->err, "profile: --from and a duration (%ld) conflict\n", env->duration);
		return -EINVAL;
	}
	return 0;
}

/*
 * -o FILE's extension names the format (output_format.h), or agrees with
 * -f/--format; an extension we do not know needs --format. No extension:
 * text, or what --format says.
 */
static int check_extension(struct parser *p)
{
	struct profile_env *env = p->env;
	const char *ext = NULL;
	int f = output_format__from_path(env->output, &ext);

	if (f == -ENODATA)
		return 0;
	if (f == -EINVAL && !p->format_set) {
		fputs("profile: -o '", p->err);
		escape__text(p->err, env->output);
		fputs("': unknown extension '", p->err);
		escape__text(p->err, ext);
		fprintf(p->err, "' (%s; or say --format)\n", output_format__extensions);
		return -EINVAL;
	}
	if (f >= 0 && p->format_set && (enum output_format)f != env->format) {
		fprintf(p->err, "profile: %s%s and -o '", env->format == FORMAT_FOLDED && p->folded_flag ?
			"-f/--folded" : "--format ", env->format == FORMAT_FOLDED && p->folded_flag ?
			"" : output_format__name(env->format));
		escape__text(p->err, env->output);
		fprintf(p->err, "' (%s output) conflict\n", output_format__name(f));
		return -EINVAL;
	}
	if (f >= 0)
		env->format = f;
	return 0;
}

/* getopt_long's ':' and '?': one line naming the option. */
static int bad_option(struct parser *p, int opt, const struct option *long_opts, char **argv)
{
	const char *near;

	if (opt == ':')
		fprintf(p->err, "profile: option '%s' requires an argument\n", argv[optind - 1]);
	/* long-only options set optopt to values that are no char */
	else if (optopt > 0 && optopt < CLI_LONG_ONLY)
		fprintf(p->err, "profile: unknown option '-%c' (see --help)\n", optopt);
	else if (!strncmp(argv[optind - 1], "--", 2) &&
		 (near = cli_suggest__option(argv[optind - 1] + 2, long_opts)))
		fprintf(p->err, "profile: unknown option '%s'; did you mean '--%s'?\n", argv[optind - 1],
			near);
	else
		fprintf(p->err, "profile: unknown option '%s' (see --help)\n", argv[optind - 1]);
	return -EINVAL;
}

/*
 * The end of the options: argv[optind - 1] when it is a "--" that no
 * option took as its argument (last_arg). getopt_long() moves the
 * operands before it behind it, and leaves those after it in place:
 * the command is what followed it in the original argv (orig).
 */
static int find_separator(char **orig, int argc, char **argv, const char *last_arg)
{
	const char *sep = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;

	if (!sep || sep == last_arg || strcmp(sep, "--"))
		return -1;
	for (int i = 1; i < argc; i++)
		if (orig[i] == sep)
			return i;
	return -1;
}

/*
 * With --from the operands are more files to read, as flamegraph.pl takes
 * FILE... (a shell pattern gives a day of snapshots); one of digits alone
 * is a duration, which --from does not take (a file so named: ./10).
 */
static int more_from(struct parser *p, int argc, char **argv)
{
	for (int i = optind; i < argc; i++) {
		const char *a = argv[i];
		int e;

		if (*a && !a[strspn(a, "0123456789")]) {
			fprintf(p->err, "profile: --from and a duration (%s) conflict\n", a);
			return -EINVAL;
		}
		if ((e = cli_options__add_from(p, a)))
			return e;
	}
	return 0;
}

/* The operands: [duration], then -- CMD ARGS... when the options ended with "--". */
static int parse_operands(struct parser *p, int argc, char **argv, int sep)
{
	int end = sep > 0 ? sep + 1 : argc;	/* operands before the command */

	if (sep > 0) {
		if (sep + 1 >= argc) {
			fprintf(p->err, "profile: no command after '--'\n");
			return -EINVAL;
		}
		if (!*argv[sep + 1]) {
			fprintf(p->err, "profile: empty command name after '--'\n");
			return -EINVAL;
		}
		p->env->command = &argv[sep + 1];
	}
	if (p->env->nr_from && sep < 0)
		return more_from(p, argc, argv);
	if (optind >= end)
		return 0;
	if (end - optind > 1) {
		fprintf(p->err, "profile: unexpected argument '%s'\n", argv[optind + 1]);
		return -EINVAL;
	}
	return cli_options__number(p, "duration", argv[optind], 1, INT_MAX, &p->env->duration);
}

/* One option from getopt_long(): 0, CLI_DONE after --help or --version, or -errno. */
static int parse_option(struct parser *p, int opt, const struct option *long_opts, char **argv)
{
	const struct cli_option *o = cli_options__find(opt);
	int e;

	if (!o)
		return bad_option(p, opt, long_opts, argv);
	e = o->set(p, o, o->arg ? optarg : NULL);
	if (!p->sampling_opt && (o->flags & CLI_SAMPLING))
		p->sampling_opt = o;
	return e;
}

int cli__parse(int argc, char **argv, struct profile_env *env, FILE *out, FILE *err)
{
	struct parser p = { .env = env, .out = out, .err = err };
	const struct option *long_opts;
	const char *short_opts, *last_arg = NULL;
	char **orig;
	int opt, sep = -1, e = 0;

	env__init(env);
	/* getopt_long() reorders argv: where "--" was, to find the command */
	orig = calloc(argc + 1, sizeof(*orig));
	if (!orig) {
		fprintf(err, "profile: out of memory\n");
		return -ENOMEM;
	}
	memcpy(orig, argv, argc * sizeof(*orig));
	cli_options__getopt(&long_opts, &short_opts);
	optind = 0;		/* glibc: full reset, so tests can parse repeatedly */
	opterr = 0;		/* we print our own one-line errors */
	while (!e && (opt = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		e = parse_option(&p, opt, long_opts, argv);
		last_arg = optarg;
	}
	if (!e) {
		sep = find_separator(orig, argc, argv, last_arg);
		e = parse_operands(&p, argc, argv, sep);
	}
	free(orig);
	if (!e)
		e = check_from(&p);
	if (!e)
		e = check_off_cpu(&p);
	if (!e)
		e = check_conflicts(env, err);
	if (!e && env->output)
		e = check_extension(&p);
	if (e) {
		cli__release(env);
		return e;
	}
	env->folded = env->format == FORMAT_FOLDED;
	/* the whole system meets many more files than a few processes */
	if (!env->unwind_storage_size)
		env->unwind_storage_size = env->nr_pids || env->nr_tids || env->command ? DEFAULT_UNWIND_STORAGE
									: DEFAULT_UNWIND_STORAGE_ALL;
	return 0;
}

void cli__release(struct profile_env *env)
{
	free(env->pids);
	free(env->tids);
	free(env->from);
	env->from = NULL;
	env->nr_from = 0;
	free(env->debug_dirs);
	env->debug_dirs = NULL;
	free(env->cgroups);
	env->cgroups = NULL;
	env->nr_cgroups = 0;
	env->nr_debug_dirs = 0;
	free(env->debuginfod_urls);
	env->debuginfod_urls = NULL;
	env->nr_debuginfod_urls = 0;
	env->pids = env->tids = NULL;
	env->nr_pids = env->nr_tids = 0;
}
