// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - profile(8)'s options. Every number goes through parse_long();
 * every error is one line naming what was wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <linux/types.h>

#include "cli.h"
#include "escape.h"
#include "outfile.h"
#include "profile.h"
#include "trace_helpers.h"

enum {
	OPT_STACK_STORAGE = 256,
	OPT_HASH_STORAGE,
	OPT_MAX_STACK_DEPTH,
	OPT_VERSION,
	OPT_FORMAT,
	OPT_DEBUG_DIR,
	OPT_NO_DEMANGLE,
	OPT_LINES,
};

static const char usage[] =
"Usage: profile [OPTION...] [duration]\n"
"Profile CPU usage by sampling stack traces at a timed interval.\n"
"\n"
"  duration                  seconds to sample (default: until Ctrl-C or SIGTERM)\n"
"  -F, --frequency=HZ        sample at HZ samples per second per CPU (default 49)\n"
"  -c, --count=N             sample once every N events instead of by frequency\n"
"  -e, --event=EVENT         cpu-clock (default) or cycles (needs a hardware PMU)\n"
"  -p, --pid=PID[,PID...]    profile these processes only\n"
"  -L, --tid=TID[,TID...]    profile these threads only\n"
"  -U, --user-stacks-only    show user-space stacks only (no kernel)\n"
"  -K, --kernel-stacks-only  show kernel-space stacks only (no user)\n"
"  -I, --include-idle        include the CPU idle stacks\n"
"  -C, --cpu=CPU             sample this CPU only\n"
"  -d, --delimited           insert a delimiter between kernel and user stacks\n"
"  -a, --annotations         add _[k] annotations to kernel frames\n"
"  -f, --folded              folded output, one line per stack (for flame graphs)\n"
"      --stack-storage-size=N  stack traces the stack map holds (default 16384)\n"
"      --hash-storage-size=N   distinct stacks the count hash holds (default 40960)\n"
"      --perf-max-stack-depth=N  frames kept per stack (default 127)\n"
"  -o, --output=FILE         write the profile to FILE (a regular file atomically, mode 0600;\n"
"                            a device, FIFO or /dev/stdout in place; strftime patterns with -i)\n"
"      --format=FMT          text, folded, pprof, svg or json (default: from FILE's\n"
"                            extension .folded/.pb.gz/.svg/.json, else text)\n"
"  -i, --interval=SECS       print a profile every SECS seconds\n"
"  -q, --quiet               nothing on stderr but errors, no header\n"
"      --debug-dir=DIR       look for debug files under DIR (repeatable;\n"
"                            default /usr/lib/debug)\n"
"      --no-demangle         print C++ and Rust names as they are in the binary\n"
"      --lines               add source lines and inlined frames (needs DWARF)\n"
"  -v, --verbose             print libbpf debug output and statistics\n"
"  -h, --help                give this help and exit\n"
"      --version             print the version and exit\n"
"\n"
"Examples:\n"
"  profile                   # profile stack traces at 49 Hertz until Ctrl-C\n"
"  profile -F 99 30          # profile at 99 Hertz for 30 seconds\n"
"  profile -c 1000000        # profile every 1 million events\n"
"  profile -p 185            # only profile process with PID 185\n"
"  profile -L 185            # only profile thread with TID 185\n"
"  profile -U                # only show user space stacks (no kernel)\n"
"  profile -K -f > out.folded  # kernel stacks, folded for flamegraph.pl\n";

static const struct option long_opts[] = {
	{ "frequency", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 'L' },
	{ "user-stacks-only", no_argument, NULL, 'U' },
	{ "kernel-stacks-only", no_argument, NULL, 'K' },
	{ "include-idle", no_argument, NULL, 'I' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "delimited", no_argument, NULL, 'd' },
	{ "annotations", no_argument, NULL, 'a' },
	{ "folded", no_argument, NULL, 'f' },
	{ "stack-storage-size", required_argument, NULL, OPT_STACK_STORAGE },
	{ "hash-storage-size", required_argument, NULL, OPT_HASH_STORAGE },
	{ "perf-max-stack-depth", required_argument, NULL, OPT_MAX_STACK_DEPTH },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "interval", required_argument, NULL, 'i' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{},
};

static int parse_number(const char *what, const char *arg, long min, long max,
			long *out, FILE *err)
{
	int e = parse_long(arg, min, max, out);

	if (e == -ERANGE)
		fprintf(err, "profile: %s '%s' out of range (%ld..%ld)\n", what, arg, min, max);
	else if (e)
		fprintf(err, "profile: invalid %s '%s'\n", what, arg);
	return e;
}

/* "1,2,3" -> ids; duplicates kept (harmless in a BPF hash). */
static int parse_id_list(const char *what, const char *arg, pid_t **ids, size_t *nr, FILE *err)
{
	char *copy, *tok, *save = NULL;
	int e = 0;

	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	/* strtok_r would skip empty elements: ",1" and "1,,2" are errors too */
	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		fprintf(err, "profile: invalid %s list '%s'\n", what, arg);
		free(copy);
		return -EINVAL;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		pid_t *n;
		long v;

		e = parse_number(what, tok, 1, INT_MAX, &v, err);
		if (e)
			break;
		if (*nr >= MAX_FILTER_IDS) {
			fprintf(err, "profile: too many %ss (at most %d)\n", what, MAX_FILTER_IDS);
			e = -E2BIG;
			break;
		}
		n = realloc(*ids, (*nr + 1) * sizeof(**ids));
		if (!n) {
			e = -ENOMEM;
			break;
		}
		*ids = n;
		(*ids)[(*nr)++] = v;
	}
	free(copy);
	return e;
}

static const char *const format_names[] = {
	[FORMAT_TEXT] = "text",
	[FORMAT_FOLDED] = "folded",
	[FORMAT_PPROF] = "pprof",
	[FORMAT_SVG] = "svg",
	[FORMAT_JSON] = "json",
};

int output_format__parse(const char *name)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i]))
			return i;
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

enum output_format output_format__from_path(const char *path)
{
	if (ends_with(path, ".folded"))
		return FORMAT_FOLDED;
	if (ends_with(path, ".pb.gz"))
		return FORMAT_PPROF;
	if (ends_with(path, ".svg"))
		return FORMAT_SVG;
	if (ends_with(path, ".json"))
		return FORMAT_JSON;
	return FORMAT_TEXT;
}

static void env__init(struct profile_env *env)
{
	memset(env, 0, sizeof(*env));
	env->cpu = -1;
	env->demangle = true;
	env->stack_storage_size = DEFAULT_STACK_STORAGE;
	env->hash_storage_size = DEFAULT_HASH_STORAGE;
	env->max_stack_depth = DEFAULT_MAX_STACK_DEPTH;
}

static int check_conflicts(struct profile_env *env, bool freq_set, FILE *err)
{
	if (env->user_only && env->kernel_only) {
		fprintf(err, "profile: -U/--user-stacks-only and -K/--kernel-stacks-only conflict\n");
		return -EINVAL;
	}
	if (freq_set && env->period) {
		fprintf(err, "profile: -F/--frequency and -c/--count conflict\n");
		return -EINVAL;
	}
	if (env->nr_pids && env->nr_tids) {
		fprintf(err, "profile: -p/--pid and -L/--tid conflict\n");
		return -EINVAL;
	}
	if (!env->period && !freq_set)
		env->frequency = DEFAULT_FREQUENCY;
	return 0;
}

/* Per element: the kernel's own bookkeeping, about 48 bytes in a hash. */
#define MAP_ELEM_OVERHEAD 48ULL

unsigned long long cli__map_bytes(const struct profile_env *env)
{
	unsigned long long stack = env->max_stack_depth * 8ULL;
	unsigned long long set;

	set = env->stack_storage_size * (stack + 8) +
	      env->hash_storage_size * (sizeof(struct profile_key) + 8 + MAP_ELEM_OVERHEAD) +
	      2ULL * env->hash_storage_size * (8 + stack + MAP_ELEM_OVERHEAD);
	return 2 * set;
}

enum cli_result cli__parse(int argc, char **argv, struct profile_env *env, FILE *out, FILE *err)
{
	bool freq_set = false, format_set = false;
	long v;
	int opt;

	env__init(env);
	optind = 0;		/* glibc: full reset, so tests can parse repeatedly */
	opterr = 0;		/* we print our own one-line errors */
	while ((opt = getopt_long(argc, argv, ":F:c:e:p:L:UKIC:dafvho:i:q", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			if (parse_number("frequency", optarg, 1, MAX_FREQUENCY, &env->frequency, err))
				goto usage;
			freq_set = true;
			break;
		case 'c':
			if (parse_number("count", optarg, MIN_PERIOD, LONG_MAX, &env->period, err))
				goto usage;
			break;
		case 'e': {
			int ev = sample_event__parse(optarg);

			if (ev < 0) {
				fprintf(err, "profile: unknown event '%s' (cpu-clock, cycles)\n", optarg);
				goto usage;
			}
			env->event = ev;
			break;
		}
		case 'p':
			if (parse_id_list("pid", optarg, &env->pids, &env->nr_pids, err))
				goto usage;
			env->pid_arg = optarg;
			break;
		case 'L':
			if (parse_id_list("tid", optarg, &env->tids, &env->nr_tids, err))
				goto usage;
			env->tid_arg = optarg;
			break;
		case 'U': env->user_only = true; break;
		case 'K': env->kernel_only = true; break;
		case 'I': env->include_idle = true; break;
		case 'd': env->delimited = true; break;
		case 'a': env->annotations = true; break;
		case 'f':
			if (format_set && env->format != FORMAT_FOLDED) {
				fprintf(err, "profile: -f/--folded and --format %s conflict\n",
					format_names[env->format]);
				goto usage;
			}
			env->format = FORMAT_FOLDED;
			format_set = true;
			break;
		case OPT_FORMAT: {
			int f = output_format__parse(optarg);

			if (f < 0) {
				fprintf(err, "profile: unknown format '%s' (text, folded, pprof, svg, json)\n", optarg);
				goto usage;
			}
			if (format_set && env->format != (enum output_format)f) {
				fprintf(err, "profile: --format %s and %s conflict\n", optarg,
					env->format == FORMAT_FOLDED ? "-f/--folded" : "an earlier --format");
				goto usage;
			}
			env->format = f;
			format_set = true;
			break;
		}
		case 'o':
			if (!*optarg) {
				fprintf(err, "profile: empty output file name\n");
				goto usage;
			}
			env->output = optarg;
			break;
		case 'i':
			if (parse_number("interval", optarg, 1, INT_MAX, &env->interval, err))
				goto usage;
			break;
		case 'q': env->quiet = true; break;
		case OPT_DEBUG_DIR: {
			const char **n = realloc(env->debug_dirs, (env->nr_debug_dirs + 1) * sizeof(*n));

			if (!n) {
				fprintf(err, "profile: out of memory\n");
				goto usage;
			}
			env->debug_dirs = n;
			env->debug_dirs[env->nr_debug_dirs++] = optarg;
			break;
		}
		case OPT_NO_DEMANGLE: env->demangle = false; break;
		case OPT_LINES: env->lines = true; break;
		case 'v': env->verbose = true; break;
		case 'C':
			if (parse_number("cpu", optarg, 0, INT_MAX, &v, err))
				goto usage;
			env->cpu = v;
			break;
		case OPT_STACK_STORAGE:
			if (parse_number("stack storage size", optarg, 1, 1 << 24,
					 &env->stack_storage_size, err))
				goto usage;
			break;
		case OPT_HASH_STORAGE:
			if (parse_number("hash storage size", optarg, 1, 1 << 24,
					 &env->hash_storage_size, err))
				goto usage;
			break;
		case OPT_MAX_STACK_DEPTH:
			if (parse_number("perf max stack depth", optarg, 1, MAX_STACK_DEPTH_LIMIT,
					 &env->max_stack_depth, err))
				goto usage;
			break;
		case 'h':
			fputs(usage, out);
			cli__release(env);
			return CLI_DONE;
		case OPT_VERSION:
			fprintf(out, "profile %s\n", PROFILE_VERSION);
			cli__release(env);
			return CLI_DONE;
		case ':':
			fprintf(err, "profile: option '%s' requires an argument\n", argv[optind - 1]);
			goto usage;
		default:
			/* long-only options (OPT_*) set optopt to values that are no char */
			if (optopt > 0 && optopt < OPT_STACK_STORAGE)
				fprintf(err, "profile: unknown option '-%c' (see --help)\n", optopt);
			else
				fprintf(err, "profile: unknown option '%s' (see --help)\n", argv[optind - 1]);
			goto usage;
		}
	}
	if (optind < argc) {
		if (argc - optind > 1) {
			fprintf(err, "profile: unexpected argument '%s'\n", argv[optind + 1]);
			goto usage;
		}
		if (parse_number("duration", argv[optind], 1, INT_MAX, &env->duration, err))
			goto usage;
	}
	if (check_conflicts(env, freq_set, err))
		goto usage;
	if (!format_set && env->output)
		env->format = output_format__from_path(env->output);
	env->folded = env->format == FORMAT_FOLDED;
	return CLI_RUN;
usage:
	cli__release(env);
	return CLI_USAGE;
}

static bool id_exists(const char *proc_root, pid_t id)
{
	char path[4096];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%d", proc_root, (int)id);
	return stat(path, &sb) == 0;
}

enum cli_result cli__validate(const struct profile_env *env, const char *proc_root,
			      const char *sys_root, FILE *err)
{
	char path[4096];
	long max;

	for (size_t i = 0; i < env->nr_pids; i++) {
		if (!id_exists(proc_root, env->pids[i])) {
			fprintf(err, "profile: pid %d does not exist\n", (int)env->pids[i]);
			return CLI_USAGE;
		}
	}
	for (size_t i = 0; i < env->nr_tids; i++) {
		if (!id_exists(proc_root, env->tids[i])) {
			fprintf(err, "profile: tid %d does not exist\n", (int)env->tids[i]);
			return CLI_USAGE;
		}
	}
	if (env->cpu >= 0) {
		bool *online = NULL, probe;
		int n;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sys_root);
		/*
		 * Size the mask by the CPUs the list names, not by the number
		 * given: -C 2147483647 must not overflow cpu + 1 or allocate
		 * and clear gigabytes.
		 */
		n = read_online_cpus_file(path, &probe, 1);
		if (n > env->cpu)
			online = calloc(env->cpu + 1, sizeof(*online));
		if (online)
			n = read_online_cpus_file(path, online, env->cpu + 1);
		if (!online || n < 0 || !online[env->cpu]) {
			fprintf(err, "profile: cpu %d does not exist or is offline\n", env->cpu);
			free(online);
			return CLI_USAGE;
		}
		free(online);
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_stack", proc_root);
	if (!read_long_file(path, &max) && env->max_stack_depth > max) {
		fprintf(err, "profile: --perf-max-stack-depth %ld exceeds kernel.perf_event_max_stack (%ld)\n",
			env->max_stack_depth, max);
		return CLI_USAGE;
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_sample_rate", proc_root);
	if (env->frequency && !read_long_file(path, &max) && env->frequency > max) {
		fprintf(err, "profile: frequency %ld exceeds kernel.perf_event_max_sample_rate (%ld)\n",
			env->frequency, max);
		return CLI_USAGE;
	}
	if (cli__map_bytes(env) > (unsigned long long)MAX_MAP_MIB << 20) {
		fprintf(err, "profile: --stack-storage-size %ld, --hash-storage-size %ld and --perf-max-stack-depth %ld would let the BPF maps take %llu MiB of kernel memory (at most %d)\n",
			env->stack_storage_size, env->hash_storage_size, env->max_stack_depth,
			cli__map_bytes(env) >> 20, MAX_MAP_MIB);
		return CLI_USAGE;
	}
	if (env->output) {
		struct outfile_diag diag;

		if (outfile__check(env->output, time(NULL), &diag)) {
			cli__print_outfile_error(err, &diag);
			return CLI_USAGE;
		}
	}
	return CLI_RUN;
}

void cli__print_outfile_error(FILE *err, const struct outfile_diag *diag)
{
	fputs("profile: cannot write '", err);
	escape__text(err, diag->path);
	fputs("': ", err);
	escape__text(err, diag->msg);
	fputc('\n', err);
}

void cli__release(struct profile_env *env)
{
	free(env->pids);
	free(env->tids);
	free(env->debug_dirs);
	env->debug_dirs = NULL;
	env->nr_debug_dirs = 0;
	env->pids = env->tids = NULL;
	env->nr_pids = env->nr_tids = 0;
}
