// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - profile(8)'s options. Every number goes through parse_long();
 * every error is one line naming what was wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <linux/types.h>

#include "collect/cgroups.h"
#include "cli.h"
#include "cli_suggest.h"
#include "output/escape.h"
#include "output/outfile.h"
#include "output/retention.h"
#include "profile.h"
#include "trace_helpers.h"
#include "unwind/unwind_row.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum {
	OPT_STACK_STORAGE = 256,
	OPT_HASH_STORAGE,
	OPT_MAX_STACK_DEPTH,
	OPT_VERSION,
	OPT_FORMAT,
	OPT_DEBUG_DIR,
	OPT_NO_DEMANGLE,
	OPT_LINES,
	OPT_CALL_GRAPH,
	OPT_UNWIND_STORAGE,
	OPT_UNWIND_CACHE_DIR,
	OPT_NO_UNWIND_CACHE,
	OPT_KEEP,
	OPT_DEBUGINFOD_URL,
	OPT_DEBUGINFOD_DEADLINE,
	OPT_DEBUGINFOD_MAX_FILES,
	OPT_DEBUGINFOD_MAX_USER_FILES,
	OPT_NO_DEBUGINFOD,
	OPT_REPLACE,
	OPT_UNWIND_CACHE_SIZE,
	OPT_NO_PYTHON,
	OPT_CGROUP,
	OPT_BY_CONTAINER,
	OPT_FROM,
	OPT_INCLUDE_SELF,
	OPT_OFFSETS,
	/* off the CPU: check_off_cpu() */
	OPT_OFF_CPU,
	OPT_WALL,
	OPT_INCLUDE_RUNNABLE,
	OPT_MIN_BLOCK,
	OPT_MAX_BLOCK,
};

static const char usage[] =
"Usage: profile [OPTION...] [duration]\n"
"  or:  profile [OPTION...] [duration] -- COMMAND [ARG...]\n"
"  or:  profile --from FILE [FILE...] [-o OUT] [--format FMT]\n"
"Profile CPU usage by sampling stack traces at a timed interval.\n"
"\n"
"  duration                  seconds to sample (default: until Ctrl-C or SIGTERM)\n"
"  -- COMMAND [ARG...]       run COMMAND, profile it and its children until it\n"
"                            exits, and exit with its status (Ctrl-C is its own)\n"
"  -F, --frequency=HZ        sample at HZ samples per second per CPU (default 49)\n"
"  -c, --count=N             sample once every N events instead of by frequency\n"
"  -e, --event=EVENT         cpu-clock (default) or cycles (needs a hardware PMU)\n"
"  -p, --pid=PID[,PID...]    profile these processes only\n"
"  -L, --tid=TID[,TID...]    profile these threads only\n"
"  -U, --user-stacks-only    show user-space stacks only (no kernel)\n"
"  -K, --kernel-stacks-only  show kernel-space stacks only (no user)\n"
"  -I, --include-idle        include the CPU idle stacks\n"
"      --include-self        include profile's own samples (the whole system only)\n"
"  -C, --cpu=CPU             sample this CPU only\n"
"      --off-cpu             count the time threads wait off the CPU (sleeping,\n"
"                            blocked: interruptible and uninterruptible), not\n"
"                            samples: microseconds in text and folded output\n"
"      --wall                wall-clock time: on-CPU samples weighted by their\n"
"                            period plus off-CPU time (waiting for a CPU too)\n"
"      --include-runnable    with --off-cpu, count the time preempted threads wait\n"
"                            for a CPU too\n"
"      --min-block=USECS     count only waits of at least USECS microseconds\n"
"      --max-block=USECS     count only waits of at most USECS microseconds\n"
"      --cgroup=PATH         profile only the tasks in this cgroup v2 directory and\n"
"                            below (repeatable; /sys/fs/cgroup/X or the cgroup path /X)\n"
"      --by-container        tell samples apart by cgroup: a root frame per container\n"
"                            (folded, svg, json), pprof labels container_id, cgroup\n"
"  -d, --delimited           insert a delimiter between kernel and user stacks\n"
"  -a, --annotations         add _[k] annotations to kernel frames\n"
"  -f, --folded              folded output, one line per stack (for flame graphs)\n"
"      --stack-storage-size=N  stack traces the stack map holds (default 16384,\n"
"                            or less where the run's rate and length need less)\n"
"      --hash-storage-size=N   distinct stacks the count hash holds (default 40960,\n"
"                            or less likewise)\n"
"      --perf-max-stack-depth=N  frames kept per stack (default 127)\n"
"      --call-graph=MODE     user stacks by dwarf (.eh_frame unwind tables, the\n"
"                            default) or fp (frame pointers only)\n"
"      --unwind-storage-size=N  unwind table rows held (default 4194304, with -p\n"
"                            or -L 1048576)\n"
"      --unwind-cache-dir=DIR  keep root's files' unwind tables there between runs\n"
"                            (default /var/cache/profile/unwind)\n"
"      --unwind-cache-size=MIB  evict the least recently used tables past MIB\n"
"                            (default 256)\n"
"      --no-unwind-cache     build every unwind table afresh, keep none (nor the\n"
"                            kernel's symbols, kept there for the boot)\n"
"      --from=FILE           read a profile from FILE instead of sampling: folded\n"
"                            stacks or pprof (.pb.gz/.pb/.pprof); more files, after\n"
"                            it or as more --from, are merged\n"
"  -o, --output=FILE         write the profile to FILE (a regular file atomically, mode 0600;\n"
"                            a device, FIFO or /dev/stdout in place; strftime patterns with -i)\n"
"      --keep=N              after each file -o writes, remove all but the N newest that\n"
"                            its strftime pattern could have written in its directory\n"
"      --format=FMT          text, folded, pprof, svg or json (default: from FILE's\n"
"                            extension: .txt .folded .pprof/.pb/.pb.gz .svg/.html\n"
"                            .json/.speedscope.json; none: text)\n"
"  -i, --interval=SECS       print a profile every SECS seconds\n"
"      --replace             with -i, let each profile replace the last in one -o file\n"
"  -q, --quiet               nothing on stderr but errors, no header\n"
"      --debug-dir=DIR       look for debug files under DIR (repeatable;\n"
"                            default /usr/lib/debug)\n"
"      --debuginfod-url=URL  fetch missing debug files of stripped files from\n"
"                            this debuginfod server (repeatable; default: the\n"
"                            servers in DEBUGINFOD_URLS)\n"
"      --debuginfod-deadline=SECS  after sampling, wait at most SECS for debug\n"
"                            files still being fetched (default 5)\n"
"      --debuginfod-max-files=N  ask for at most N debug files a run (default 256)\n"
"      --debuginfod-max-user-files=N  of them at most N for the files of one\n"
"                            user other than root (default 16)\n"
"      --no-debuginfod       never fetch debug files from the network\n"
"      --no-demangle         print C++ and Rust names as they are in the binary\n"
"      --lines               add source lines and inlined frames (needs DWARF)\n"
"      --no-python           native frames only: no Python functions in the stacks\n"
"      --offsets             unnamed frames each with its address in its file,\n"
"                            [libfoo.so+0x1a2b], not a run of them as one [libfoo.so]\n"
"  -v, --verbose             print statistics and the files without symbols;\n"
"                            -vv libbpf's debug output too\n"
"  -h, --help                give this help and exit\n"
"      --version             print the version and exit\n"
"\n"
"Examples:\n"
"  profile                   # profile stack traces at 49 Hertz until Ctrl-C\n"
"  profile -F 99 30          # profile at 99 Hertz for 30 seconds\n"
"  profile -c 1000000        # profile every 1 million events\n"
"  profile -p 185            # only profile process with PID 185\n"
"  profile -L 185            # only profile thread with TID 185\n"
"  profile -o cpu.svg -- ./cmd arg  # run ./cmd, its flame graph in cpu.svg\n"
"  profile -U                # only show user space stacks (no kernel)\n"
"  profile -K -f > out.folded  # kernel stacks, folded for flamegraph.pl\n"
"  profile --from out.folded -o out.svg  # a flame graph of folded stacks\n";

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
	if (!copy) {
		fprintf(err, "profile: out of memory\n");
		return -ENOMEM;
	}
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
			fprintf(err, "profile: out of memory\n");
			e = -ENOMEM;
			break;
		}
		*ids = n;
		(*ids)[(*nr)++] = v;
	}
	free(copy);
	return e;
}

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

/* Per element: the kernel's own bookkeeping, about 48 bytes in a hash. */
#define MAP_ELEM_OVERHEAD 48ULL

unsigned long long cli__map_bytes(const struct profile_env *env)
{
	unsigned long long stack = env->max_stack_depth * 8ULL;
	unsigned long long set;

	set = env->stack_storage_size * (stack + 8) +
	      env->hash_storage_size * (sizeof(struct profile_key) + 8 + MAP_ELEM_OVERHEAD) +
	      2ULL * env->hash_storage_size * (8 + stack + MAP_ELEM_OVERHEAD);
	return 2 * set + (env->dwarf ? env->unwind_storage_size * sizeof(struct unwind_row) : 0);
}

/* What one cli__parse() call has seen so far. */
struct parser {
	struct profile_env *env;
	FILE *out, *err;
	bool format_set;	/* -f or --format given */
	bool folded_flag;	/* as -f */
	int sampling_opt;	/* the first option given that only sampling takes, or 0 */
	bool event_set;		/* -e given */
	const struct option *long_opts;	/* for "did you mean" and option names */
};

/*
 * The options that say how to sample, unwind or name frames: a profile
 * read with --from was sampled and named already.
 */
static const int sampling_opts[] = {
	'F', 'c', 'e', 'p', 'L', 'U', 'K', 'I', 'C', 'i', OPT_REPLACE, OPT_STACK_STORAGE,
	OPT_HASH_STORAGE, OPT_MAX_STACK_DEPTH, OPT_CALL_GRAPH, OPT_UNWIND_STORAGE,
	OPT_UNWIND_CACHE_DIR, OPT_NO_UNWIND_CACHE, OPT_UNWIND_CACHE_SIZE, OPT_DEBUG_DIR,
	OPT_DEBUGINFOD_URL, OPT_DEBUGINFOD_DEADLINE, OPT_DEBUGINFOD_MAX_FILES,
	OPT_DEBUGINFOD_MAX_USER_FILES, OPT_NO_DEBUGINFOD, OPT_NO_DEMANGLE, OPT_LINES, OPT_NO_PYTHON,
	OPT_CGROUP, OPT_BY_CONTAINER, OPT_INCLUDE_SELF, OPT_OFFSETS,
	OPT_OFF_CPU, OPT_WALL, OPT_INCLUDE_RUNNABLE, OPT_MIN_BLOCK, OPT_MAX_BLOCK,
};

static void note_sampling_opt(struct parser *p, int opt)
{
	for (size_t i = 0; i < ARRAY_SIZE(sampling_opts); i++)
		if (sampling_opts[i] == opt && !p->sampling_opt)
			p->sampling_opt = opt;
}

/* "-F/--frequency" or "--lines": opt as --help spells it. */
static void print_opt_name(struct parser *p, int opt)
{
	for (const struct option *o = p->long_opts; o->name; o++) {
		if (o->val != opt)
			continue;
		if (opt < OPT_STACK_STORAGE)
			fprintf(p->err, "-%c/--%s", opt, o->name);
		else
			fprintf(p->err, "--%s", o->name);
		return;
	}
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
		print_opt_name(p, bad);
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
		print_opt_name(p, p->sampling_opt);
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

/*
 * The options, by what they take: a number for a long in profile_env, or
 * nothing for a bool there (both set by set_simple()); the rest are
 * handled one by one in parse_option().
 */
struct number_opt {
	const char *name;	/* long option */
	int opt;		/* short option or OPT_* */
	const char *what;	/* its name in messages */
	long min, max;
	size_t offset;		/* of the long in struct profile_env */
};

#define ENV_LONG(field) offsetof(struct profile_env, field)

static const struct number_opt number_opts[] = {
	{ "frequency", 'F', "frequency", 1, MAX_FREQUENCY, ENV_LONG(frequency) },
	{ "count", 'c', "count", MIN_PERIOD, LONG_MAX, ENV_LONG(period) },
	{ "interval", 'i', "interval", 1, INT_MAX, ENV_LONG(interval) },
	{ "stack-storage-size", OPT_STACK_STORAGE, "stack storage size", 1, 1 << 24,
	  ENV_LONG(stack_storage_size) },
	{ "hash-storage-size", OPT_HASH_STORAGE, "hash storage size", 1, 1 << 24,
	  ENV_LONG(hash_storage_size) },
	{ "perf-max-stack-depth", OPT_MAX_STACK_DEPTH, "perf max stack depth", 1,
	  MAX_STACK_DEPTH_LIMIT, ENV_LONG(max_stack_depth) },
	{ "unwind-storage-size", OPT_UNWIND_STORAGE, "unwind storage size", 1,
	  MAX_UNWIND_STORAGE, ENV_LONG(unwind_storage_size) },
	{ "keep", OPT_KEEP, "keep", 1, 1000000, ENV_LONG(keep) },
	{ "debuginfod-deadline", OPT_DEBUGINFOD_DEADLINE, "debuginfod deadline", 0,
	  MAX_DEBUGINFOD_DEADLINE, ENV_LONG(debuginfod_deadline) },
	{ "unwind-cache-size", OPT_UNWIND_CACHE_SIZE, "unwind cache size", 1,
	  MAX_UNWIND_CACHE_MIB, ENV_LONG(unwind_cache_size) },
	{ "debuginfod-max-files", OPT_DEBUGINFOD_MAX_FILES, "debuginfod max files", 1,
	  MAX_DEBUGINFOD_FILES, ENV_LONG(debuginfod_max_files) },
	{ "debuginfod-max-user-files", OPT_DEBUGINFOD_MAX_USER_FILES, "debuginfod max user files",
	  1, MAX_DEBUGINFOD_FILES, ENV_LONG(debuginfod_max_user_files) },
	{ "min-block", OPT_MIN_BLOCK, "min block", 0, MAX_BLOCK_US, ENV_LONG(min_block) },
	{ "max-block", OPT_MAX_BLOCK, "max block", 1, MAX_BLOCK_US, ENV_LONG(max_block) },
};

struct flag_opt {
	const char *name;
	int opt;
	size_t offset;		/* of the bool in struct profile_env */
	bool value;
};

#define ENV_BOOL(field) offsetof(struct profile_env, field)

static const struct flag_opt flag_opts[] = {
	{ "user-stacks-only", 'U', ENV_BOOL(user_only), true },
	{ "kernel-stacks-only", 'K', ENV_BOOL(kernel_only), true },
	{ "include-idle", 'I', ENV_BOOL(include_idle), true },
	{ "delimited", 'd', ENV_BOOL(delimited), true },
	{ "annotations", 'a', ENV_BOOL(annotations), true },
	{ "quiet", 'q', ENV_BOOL(quiet), true },
	{ "no-demangle", OPT_NO_DEMANGLE, ENV_BOOL(demangle), false },
	{ "lines", OPT_LINES, ENV_BOOL(lines), true },
	{ "no-python", OPT_NO_PYTHON, ENV_BOOL(python), false },
	{ "no-debuginfod", OPT_NO_DEBUGINFOD, ENV_BOOL(debuginfod), false },
	{ "replace", OPT_REPLACE, ENV_BOOL(replace), true },
	{ "by-container", OPT_BY_CONTAINER, ENV_BOOL(by_container), true },
	{ "include-self", OPT_INCLUDE_SELF, ENV_BOOL(include_self), true },
	{ "offsets", OPT_OFFSETS, ENV_BOOL(offsets), true },
	{ "off-cpu", OPT_OFF_CPU, ENV_BOOL(off_cpu), true },
	{ "wall", OPT_WALL, ENV_BOOL(wall), true },
	{ "include-runnable", OPT_INCLUDE_RUNNABLE, ENV_BOOL(include_runnable), true },
};

static const struct option other_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 'L' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "folded", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "debuginfod-url", required_argument, NULL, OPT_DEBUGINFOD_URL },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "unwind-cache-dir", required_argument, NULL, OPT_UNWIND_CACHE_DIR },
	{ "no-unwind-cache", no_argument, NULL, OPT_NO_UNWIND_CACHE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
};

#define NR_LONG_OPTS (ARRAY_SIZE(number_opts) + ARRAY_SIZE(flag_opts) + ARRAY_SIZE(other_opts))

/* getopt_long()'s table of all three, ended by a zeroed entry. */
static void fill_long_opts(struct option opts[NR_LONG_OPTS + 1])
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(number_opts); i++)
		opts[n++] = (struct option){ number_opts[i].name, required_argument, NULL,
					     number_opts[i].opt };
	for (size_t i = 0; i < ARRAY_SIZE(flag_opts); i++)
		opts[n++] = (struct option){ flag_opts[i].name, no_argument, NULL, flag_opts[i].opt };
	for (size_t i = 0; i < ARRAY_SIZE(other_opts); i++)
		opts[n++] = other_opts[i];
	opts[n] = (struct option){};
}

/* A flag or a number option: set it. -ENOENT when opt is neither. */
static int set_simple(struct parser *p, int opt, const char *arg)
{
	char *env = (char *)p->env;

	for (size_t i = 0; i < ARRAY_SIZE(flag_opts); i++) {
		if (flag_opts[i].opt == opt) {
			*(bool *)(env + flag_opts[i].offset) = flag_opts[i].value;
			return 0;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(number_opts); i++) {
		const struct number_opt *n = &number_opts[i];

		if (n->opt == opt)
			return parse_number(n->what, arg, n->min, n->max, (long *)(env + n->offset),
					    p->err);
	}
	return -ENOENT;
}

/* -f and --format NAME: one format, however often it is given. */
static int set_format(struct parser *p, int opt, const char *arg)
{
	struct profile_env *env = p->env;
	int f = FORMAT_FOLDED;

	if (opt != 'f') {
		f = output_format__parse(arg);
		if (f < 0) {
			fprintf(p->err, "profile: unknown format '%s' (text, folded, pprof, svg, json)\n", arg);
			return -EINVAL;
		}
	}
	if (p->format_set && env->format != (enum output_format)f) {
		if (opt == 'f')
			fprintf(p->err, "profile: -f/--folded and --format %s conflict\n",
				output_format__name(env->format));
		else
			fprintf(p->err, "profile: --format %s and %s conflict\n", arg,
				env->format == FORMAT_FOLDED ? "-f/--folded" : "an earlier --format");
		return -EINVAL;
	}
	env->format = f;
	p->format_set = true;
	p->folded_flag = p->folded_flag || opt == 'f';
	return 0;
}

static int add_from(struct parser *p, const char *path)
{
	struct profile_env *env = p->env;
	const char **n;

	if (!*path) {
		fprintf(p->err, "profile: empty --from file name\n");
		return -EINVAL;
	}
	n = realloc(env->from, (env->nr_from + 1) * sizeof(*n));
	if (!n) {
		fprintf(p->err, "profile: out of memory\n");
		return -ENOMEM;
	}
	env->from = n;
	env->from[env->nr_from++] = path;
	return 0;
}

static int add_debug_dir(struct parser *p, const char *dir)
{
	struct profile_env *env = p->env;
	const char **n = realloc(env->debug_dirs, (env->nr_debug_dirs + 1) * sizeof(*n));

	if (!n) {
		fprintf(p->err, "profile: out of memory\n");
		return -ENOMEM;
	}
	env->debug_dirs = n;
	env->debug_dirs[env->nr_debug_dirs++] = dir;
	return 0;
}

/* --cgroup: checked against the system in cli__validate() */
static int add_cgroup(struct parser *p, const char *path)
{
	struct profile_env *env = p->env;
	const char **n;

	if (env->nr_cgroups >= MAX_CGROUP_FILTERS) {
		fprintf(p->err, "profile: more than %d --cgroup paths\n", MAX_CGROUP_FILTERS);
		return -E2BIG;
	}
	n = realloc(env->cgroups, (env->nr_cgroups + 1) * sizeof(*n));
	if (!n) {
		fprintf(p->err, "profile: out of memory\n");
		return -ENOMEM;
	}
	env->cgroups = n;
	env->cgroups[env->nr_cgroups++] = path;
	return 0;
}

/* --debuginfod-url: one server; the list goes to libdebuginfod joined by spaces. */
static int add_debuginfod_url(struct parser *p, const char *url)
{
	struct profile_env *env = p->env;
	const char **n;

	if (!*url || url[strcspn(url, " \t\n")]) {
		fprintf(p->err, "profile: invalid debuginfod URL '");
		escape__text(p->err, url);
		fprintf(p->err, "' (empty, or with white space)\n");
		return -EINVAL;
	}
	n = realloc(env->debuginfod_urls, (env->nr_debuginfod_urls + 1) * sizeof(*n));
	if (!n) {
		fprintf(p->err, "profile: out of memory\n");
		return -ENOMEM;
	}
	env->debuginfod_urls = n;
	env->debuginfod_urls[env->nr_debuginfod_urls++] = url;
	return 0;
}

/* getopt_long's ':' and '?': one line naming the option. */
static int bad_option(struct parser *p, int opt, char **argv)
{
	const char *near;

	if (opt == ':')
		fprintf(p->err, "profile: option '%s' requires an argument\n", argv[optind - 1]);
	/* long-only options (OPT_*) set optopt to values that are no char */
	else if (optopt > 0 && optopt < OPT_STACK_STORAGE)
		fprintf(p->err, "profile: unknown option '-%c' (see --help)\n", optopt);
	else if (!strncmp(argv[optind - 1], "--", 2) &&
		 (near = cli_suggest__option(argv[optind - 1] + 2, p->long_opts)))
		fprintf(p->err, "profile: unknown option '%s'; did you mean '--%s'?\n", argv[optind - 1],
			near);
	else
		fprintf(p->err, "profile: unknown option '%s' (see --help)\n", argv[optind - 1]);
	return -EINVAL;
}

/* One option from getopt_long: 0, CLI_DONE after --help or --version, or -errno. */
static int parse_option(struct parser *p, int opt, char **argv)
{
	struct profile_env *env = p->env;
	int err;
	long v;

	if (opt == OPT_STACK_STORAGE)
		env->stack_storage_given = true;
	if (opt == OPT_HASH_STORAGE)
		env->hash_storage_given = true;
	err = set_simple(p, opt, optarg);
	if (err != -ENOENT)
		return err;
	switch (opt) {
	case 'e':
		err = sample_event__parse(optarg);
		if (err < 0) {
			fprintf(p->err, "profile: unknown event '%s' (cpu-clock, cycles)\n", optarg);
			return -EINVAL;
		}
		env->event = err;
		p->event_set = true;
		return 0;
	case 'p':
		env->pid_arg = optarg;
		return parse_id_list("pid", optarg, &env->pids, &env->nr_pids, p->err);
	case 'L':
		env->tid_arg = optarg;
		return parse_id_list("tid", optarg, &env->tids, &env->nr_tids, p->err);
	case 'C':
		err = parse_number("cpu", optarg, 0, INT_MAX, &v, p->err);
		if (!err)
			env->cpu = v;
		return err;
	case 'v':
		env->verbose++;
		return 0;
	case 'f':
	case OPT_FORMAT:
		return set_format(p, opt, optarg);
	case 'o':
		if (!*optarg) {
			fprintf(p->err, "profile: empty output file name\n");
			return -EINVAL;
		}
		env->output = optarg;
		return 0;
	case OPT_DEBUG_DIR:
		return add_debug_dir(p, optarg);
	case OPT_CGROUP:
		return add_cgroup(p, optarg);
	case OPT_FROM:
		return add_from(p, optarg);
	case OPT_DEBUGINFOD_URL:
		return add_debuginfod_url(p, optarg);
	case OPT_CALL_GRAPH:
		if (strcmp(optarg, "dwarf") && strcmp(optarg, "fp")) {
			fprintf(p->err, "profile: unknown call graph mode '%s' (dwarf or fp)\n", optarg);
			return -EINVAL;
		}
		env->dwarf = !strcmp(optarg, "dwarf");
		return 0;
	case OPT_UNWIND_CACHE_DIR:
		if (!*optarg) {
			fprintf(p->err, "profile: empty unwind cache directory (--no-unwind-cache turns it off)\n");
			return -EINVAL;
		}
		env->unwind_cache_dir = optarg;
		return 0;
	case OPT_NO_UNWIND_CACHE:
		env->unwind_cache_dir = NULL;
		return 0;
	case 'h':
		fputs(usage, p->out);
		return CLI_DONE;
	case OPT_VERSION:
		fprintf(p->out, "profile %s\n", PROFILE_VERSION);
		return CLI_DONE;
	default:
		return bad_option(p, opt, argv);
	}
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
		if ((e = add_from(p, a)))
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
	return parse_number("duration", argv[optind], 1, INT_MAX, &p->env->duration, p->err);
}

int cli__parse(int argc, char **argv, struct profile_env *env, FILE *out, FILE *err)
{
	struct option long_opts[NR_LONG_OPTS + 1];
	struct parser p = { .env = env, .out = out, .err = err, .long_opts = long_opts };
	const char *last_arg = NULL;
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
	fill_long_opts(long_opts);
	optind = 0;		/* glibc: full reset, so tests can parse repeatedly */
	opterr = 0;		/* we print our own one-line errors */
	while (!e && (opt = getopt_long(argc, argv, ":F:c:e:p:L:UKIC:dafvho:i:q", long_opts, NULL)) != -1) {
		e = parse_option(&p, opt, argv);
		note_sampling_opt(&p, opt);
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

static bool id_exists(const char *proc_root, pid_t id)
{
	char path[4096];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%d", proc_root, (int)id);
	return stat(path, &sb) == 0;
}

/* Every -p and -L id names a process or thread now: 0 or -ESRCH. */
static int check_ids(const struct profile_env *env, const char *proc_root, FILE *err)
{
	for (size_t i = 0; i < env->nr_pids; i++) {
		if (!id_exists(proc_root, env->pids[i])) {
			fprintf(err, "profile: pid %d does not exist\n", (int)env->pids[i]);
			return -ESRCH;
		}
	}
	for (size_t i = 0; i < env->nr_tids; i++) {
		if (!id_exists(proc_root, env->tids[i])) {
			fprintf(err, "profile: tid %d does not exist\n", (int)env->tids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

/* -C's CPU is online: 0 or -ENODEV. */
static int check_cpu(const struct profile_env *env, const char *sys_root, FILE *err)
{
	bool *online = NULL, probe, ok;
	char path[4096];
	int n;

	if (env->cpu < 0)
		return 0;
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
	ok = online && n >= 0 && online[env->cpu];
	free(online);
	if (!ok) {
		fprintf(err, "profile: cpu %d does not exist or is offline\n", env->cpu);
		return -ENODEV;
	}
	return 0;
}

/* The depth and rate within the kernel's sysctls, the maps within MAX_MAP_MIB. */
static int check_limits(const struct profile_env *env, const char *proc_root, FILE *err)
{
	char path[4096];
	long max;

	/* walks with unwind tables are ours: only the kernel's stop at its sysctl */
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_stack", proc_root);
	if (!env->dwarf && !read_long_file(path, &max) && env->max_stack_depth > max) {
		fprintf(err, "profile: --perf-max-stack-depth %ld exceeds kernel.perf_event_max_stack (%ld) for --call-graph fp\n",
			env->max_stack_depth, max);
		return -ERANGE;
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_sample_rate", proc_root);
	if (env->frequency && !read_long_file(path, &max) && env->frequency > max) {
		fprintf(err, "profile: frequency %ld exceeds kernel.perf_event_max_sample_rate (%ld)\n",
			env->frequency, max);
		return -ERANGE;
	}
	if (cli__map_bytes(env) > (unsigned long long)MAX_MAP_MIB << 20) {
		fprintf(err, "profile: --stack-storage-size %ld, --hash-storage-size %ld, --perf-max-stack-depth %ld and --unwind-storage-size %ld would let the BPF maps take %llu MiB of kernel memory (at most %d)\n",
			env->stack_storage_size, env->hash_storage_size, env->max_stack_depth,
			env->dwarf ? env->unwind_storage_size : 0, cli__map_bytes(env) >> 20, MAX_MAP_MIB);
		return -E2BIG;
	}
	return 0;
}

/*
 * Whether -i's profiles would replace one another in the -o file: a
 * pattern that names one file for two intervals, of a file to be replaced
 * (a device, FIFO or socket is written in place, a stream of profiles).
 */
static bool replaces_each_interval(const char *pattern, long interval)
{
	time_t now = time(NULL);
	char path[PATH_MAX];
	struct stat st;

	if (!outfile__repeats(pattern, interval, now))
		return false;
	if (outfile__expand_path(pattern, now, path, sizeof(path)) || stat(path, &st))
		return true;
	return S_ISREG(st.st_mode);
}

/* --cgroup's directories, and a cgroup v2 hierarchy for them and --by-container. */
static int check_cgroups(const struct profile_env *env, const char *proc_root, FILE *err)
{
	char mountinfo[PATH_MAX], mount[PATH_MAX], dir[PATH_MAX];
	int m, e;

	if (!env->nr_cgroups && !env->by_container)
		return 0;
	snprintf(mountinfo, sizeof(mountinfo), "%s/self/mountinfo", proc_root);
	m = cgroup2__mount(mountinfo, mount, sizeof(mount));
	if (m && m != -ENODEV) {
		fprintf(err, "profile: cannot read '%s': %s\n", mountinfo, strerror(-m));
		return m;
	}
	if (m && env->by_container) {
		fprintf(err, "profile: --by-container: no cgroup v2 hierarchy is mounted (a cgroup v1 host)\n");
		return -ENOENT;
	}
	for (size_t i = 0; i < env->nr_cgroups; i++) {
		e = cgroup2__resolve(m ? NULL : mount, env->cgroups[i], dir, sizeof(dir));
		if (!e)
			continue;
		fputs("profile: --cgroup '", err);
		escape__text(err, env->cgroups[i]);
		if (m)
			fputs("': no cgroup v2 hierarchy is mounted (a cgroup v1 host)\n", err);
		else if (e == -EMEDIUMTYPE)
			fputs("': not a cgroup v2 directory (a cgroup v1 hierarchy's?)\n", err);
		else if (e == -ENOENT)
			fputs("': no such cgroup\n", err);
		else
			fprintf(err, "': %s\n", strerror(-e));
		return e;
	}
	return 0;
}

int cli__validate(const struct profile_env *env, const char *proc_root, const char *sys_root,
		  FILE *err)
{
	struct outfile_diag diag;
	int e;

	e = check_ids(env, proc_root, err);
	if (!e)
		e = check_cgroups(env, proc_root, err);
	if (!e)
		e = check_cpu(env, sys_root, err);
	if (!e)
		e = check_limits(env, proc_root, err);
	if (!e && env->keep) {
		const char *why = "--keep needs -o FILE with strftime patterns";

		if (!env->output || retention__check(env->output, &why)) {
			fprintf(err, "profile: %s\n", why);
			return -EINVAL;
		}
	}
	if (e || !env->output)
		return e;
	e = outfile__check(env->output, time(NULL), &diag);
	if (e) {
		cli__print_outfile_error(err, &diag);
		return e;
	}
	if (env->interval && !env->replace && replaces_each_interval(env->output, env->interval)) {
		fputs("profile: -o '", err);
		escape__text(err, env->output);
		fputs("' names one file for more than one interval: each profile would replace the last; put a strftime conversion that changes every interval in it (%s, %H%M%S) or say --replace\n",
		      err);
		return -EINVAL;
	}
	return 0;
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
