// SPDX-License-Identifier: GPL-2.0
/*
 * cli_options.c - profile(8)'s options, a row each (cli_options.h): names,
 * argument, --help text, and the setter that checks the argument and puts
 * it in struct profile_env. Every number goes through cli_options__number();
 * every error is one line naming what was wrong.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "collect/cgroups.h"
#include "common/escape.h"
#include "profile.h"
#include "trace_helpers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int cli_options__number(struct parser *p, const char *what, const char *arg, long min, long max,
			long *out)
{
	int e = parse_long(arg, min, max, out);

	if (e == -ERANGE)
		fprintf(p->err, "profile: %s '%s' out of range (%ld..%ld)\n", what, arg, min, max);
	else if (e)
		fprintf(p->err, "profile: invalid %s '%s'\n", what, arg);
	return e;
}

/* --- the generic setters: a field of profile_env at o->field ------------ */

static void *field_of(struct parser *p, size_t offset)
{
	return (char *)p->env + offset;
}

/* A long in [o->min, o->max], named in messages by its long name, dashes as spaces. */
static int cli_number(struct parser *p, const struct cli_option *o, const char *arg)
{
	char what[64];
	size_t i;

	for (i = 0; o->name[i] && i < sizeof(what) - 1; i++)
		what[i] = o->name[i] == '-' ? ' ' : o->name[i];
	what[i] = '\0';
	return cli_options__number(p, what, arg, o->min, o->max, field_of(p, o->field));
}

/* A number, and that it was given (not the default). */
static int cli_number_given(struct parser *p, const struct cli_option *o, const char *arg)
{
	int e = cli_number(p, o, arg);

	if (!e)
		*(bool *)field_of(p, o->given) = true;
	return e;
}

/* A string that may not be empty (o->empty says what it lacks). */
static int cli_string(struct parser *p, const struct cli_option *o, const char *arg)
{
	if (!*arg) {
		fprintf(p->err, "profile: %s\n", o->empty);
		return -EINVAL;
	}
	*(const char **)field_of(p, o->field) = arg;
	return 0;
}

static int cli_flag(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)arg;
	*(bool *)field_of(p, o->field) = o->value;
	return 0;
}

/* One more argument of a repeatable option, in the order given. */
static int append(struct parser *p, const char ***list, size_t *nr, const char *arg)
{
	const char **n = realloc(*list, (*nr + 1) * sizeof(*n));

	if (!n) {
		fprintf(p->err, "profile: out of memory\n");
		return -ENOMEM;
	}
	*list = n;
	(*list)[(*nr)++] = arg;
	return 0;
}

/* --- the options' own setters -------------------------------------------- */

static int set_event(struct parser *p, const struct cli_option *o, const char *arg)
{
	int e = sample_event__parse(arg);

	(void)o;
	if (e < 0) {
		fprintf(p->err, "profile: unknown event '%s' (cpu-clock, cycles)\n", arg);
		return -EINVAL;
	}
	p->env->event = e;
	p->event_set = true;
	return 0;
}

/* "1,2,3" -> ids; duplicates kept (harmless in a BPF hash). */
static int parse_id_list(struct parser *p, const char *what, const char *arg, pid_t **ids,
			 size_t *nr)
{
	char *copy, *tok, *save = NULL;
	int e = 0;

	copy = strdup(arg);
	if (!copy) {
		fprintf(p->err, "profile: out of memory\n");
		return -ENOMEM;
	}
	/* strtok_r would skip empty elements: ",1" and "1,,2" are errors too */
	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		fprintf(p->err, "profile: invalid %s list '%s'\n", what, arg);
		free(copy);
		return -EINVAL;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		pid_t *n;
		long v;

		e = cli_options__number(p, what, tok, 1, INT_MAX, &v);
		if (e)
			break;
		if (*nr >= MAX_FILTER_IDS) {
			fprintf(p->err, "profile: too many %ss (at most %d)\n", what, MAX_FILTER_IDS);
			e = -E2BIG;
			break;
		}
		n = realloc(*ids, (*nr + 1) * sizeof(**ids));
		if (!n) {
			fprintf(p->err, "profile: out of memory\n");
			e = -ENOMEM;
			break;
		}
		*ids = n;
		(*ids)[(*nr)++] = v;
	}
	free(copy);
	return e;
}

static int set_pids(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	p->env->pid_arg = arg;
	return parse_id_list(p, "pid", arg, &p->env->pids, &p->env->nr_pids);
}

static int set_tids(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	p->env->tid_arg = arg;
	return parse_id_list(p, "tid", arg, &p->env->tids, &p->env->nr_tids);
}

static int set_cpu(struct parser *p, const struct cli_option *o, const char *arg)
{
	long v;
	int e = cli_options__number(p, "cpu", arg, 0, INT_MAX, &v);

	(void)o;
	if (!e)
		p->env->cpu = v;
	return e;
}

/* --cgroup: checked against the system in cli__validate() */
static int add_cgroup(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (p->env->nr_cgroups >= MAX_CGROUP_FILTERS) {
		fprintf(p->err, "profile: more than %d --cgroup paths\n", MAX_CGROUP_FILTERS);
		return -E2BIG;
	}
	return append(p, &p->env->cgroups, &p->env->nr_cgroups, arg);
}

/* -f and --format NAME: one format, however often it is given. */
static int set_format(struct parser *p, const struct cli_option *o, const char *arg)
{
	struct profile_env *env = p->env;
	bool folded_flag = o->key == 'f';
	int f = FORMAT_FOLDED;

	if (!folded_flag) {
		f = output_format__parse(arg);
		if (f < 0) {
			fprintf(p->err, "profile: unknown format '%s' (text, folded, pprof, svg, json)\n", arg);
			return -EINVAL;
		}
	}
	if (p->format_set && env->format != (enum output_format)f) {
		if (folded_flag)
			fprintf(p->err, "profile: -f/--folded and --format %s conflict\n",
				output_format__name(env->format));
		else
			fprintf(p->err, "profile: --format %s and %s conflict\n", arg,
				env->format == FORMAT_FOLDED ? "-f/--folded" : "an earlier --format");
		return -EINVAL;
	}
	env->format = f;
	p->format_set = true;
	p->folded_flag = p->folded_flag || folded_flag;
	return 0;
}

int cli_options__add_from(struct parser *p, const char *path)
{
	if (!*path) {
		fprintf(p->err, "profile: empty --from file name\n");
		return -EINVAL;
	}
	return append(p, &p->env->from, &p->env->nr_from, path);
}

static int add_from(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	return cli_options__add_from(p, arg);
}

static int add_debug_dir(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	return append(p, &p->env->debug_dirs, &p->env->nr_debug_dirs, arg);
}

/* --debuginfod-url: one server; the list goes to libdebuginfod joined by spaces. */
static int add_debuginfod_url(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (!*arg || arg[strcspn(arg, " \t\n")]) {
		fprintf(p->err, "profile: invalid debuginfod URL '");
		escape__text(p->err, arg);
		fprintf(p->err, "' (empty, or with white space)\n");
		return -EINVAL;
	}
	return append(p, &p->env->debuginfod_urls, &p->env->nr_debuginfod_urls, arg);
}

static int set_call_graph(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (strcmp(arg, "dwarf") && strcmp(arg, "fp")) {
		fprintf(p->err, "profile: unknown call graph mode '%s' (dwarf or fp)\n", arg);
		return -EINVAL;
	}
	p->env->dwarf = !strcmp(arg, "dwarf");
	return 0;
}

static int no_unwind_cache(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	p->env->unwind_cache_dir = NULL;
	return 0;
}

static int more_verbose(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	p->env->verbose++;
	return 0;
}

static int print_help(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli_options__print_help(p->out);
	return CLI_DONE;
}

static int print_version(struct parser *p, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	fprintf(p->out, "profile %s\n", PROFILE_VERSION);
	return CLI_DONE;
}

/* --- the table ------------------------------------------------------------ */

#define ENV(f) offsetof(struct profile_env, f)
/* a long field in [lo, hi] */
#define NUMBER(f, lo, hi) .set = cli_number, .field = ENV(f), .min = (lo), .max = (hi)
/* the same, and bool field g set when given */
#define NUMBER_GIVEN(f, g, lo, hi) \
	.set = cli_number_given, .field = ENV(f), .given = ENV(g), .min = (lo), .max = (hi)
/* a const char * field, why its argument may not be empty */
#define STRING(f, why) .set = cli_string, .field = ENV(f), .empty = (why)
/* a bool field set to v */
#define FLAG(f, v) .set = cli_flag, .field = ENV(f), .value = (v)

/*
 * In the order --help lists them. A row: long name, short letter (0: none),
 * argument (NULL: none), flags, --help's text ('\n' between its lines,
 * each after the first indented to the text's column), then its setter.
 */
static const struct cli_option options[] = {
	{ "frequency", 'F', "HZ", CLI_SAMPLING,
	  "sample at HZ samples per second per CPU (default 49)",
	  NUMBER(frequency, 1, MAX_FREQUENCY) },
	{ "count", 'c', "N", CLI_SAMPLING,
	  "sample once every N events instead of by frequency",
	  NUMBER(period, MIN_PERIOD, LONG_MAX) },
	{ "event", 'e', "EVENT", CLI_SAMPLING,
	  "cpu-clock (default) or cycles (needs a hardware PMU)",
	  .set = set_event },
	{ "pid", 'p', "PID[,PID...]", CLI_SAMPLING,
	  "profile these processes only",
	  .set = set_pids },
	{ "tid", 'L', "TID[,TID...]", CLI_SAMPLING,
	  "profile these threads only",
	  .set = set_tids },
	{ "user-stacks-only", 'U', NULL, CLI_SAMPLING,
	  "show user-space stacks only (no kernel)",
	  FLAG(user_only, true) },
	{ "kernel-stacks-only", 'K', NULL, CLI_SAMPLING,
	  "show kernel-space stacks only (no user)",
	  FLAG(kernel_only, true) },
	{ "include-idle", 'I', NULL, CLI_SAMPLING,
	  "include the CPU idle stacks",
	  FLAG(include_idle, true) },
	{ "include-self", 0, NULL, CLI_SAMPLING,
	  "include profile's own samples (the whole system only)",
	  FLAG(include_self, true) },
	{ "cpu", 'C', "CPU", CLI_SAMPLING,
	  "sample this CPU only",
	  .set = set_cpu },
	{ "off-cpu", 0, NULL, CLI_SAMPLING,
	  "count the time threads wait off the CPU (sleeping,\n"
	  "blocked: interruptible and uninterruptible), not\n"
	  "samples: microseconds in text and folded output",
	  FLAG(off_cpu, true) },
	{ "wall", 0, NULL, CLI_SAMPLING,
	  "wall-clock time: on-CPU samples weighted by their\n"
	  "period plus off-CPU time (waiting for a CPU too)",
	  FLAG(wall, true) },
	{ "include-runnable", 0, NULL, CLI_SAMPLING,
	  "with --off-cpu, count the time preempted threads wait\n"
	  "for a CPU too",
	  FLAG(include_runnable, true) },
	{ "min-block", 0, "USECS", CLI_SAMPLING,
	  "count only waits of at least USECS microseconds",
	  NUMBER(min_block, 0, MAX_BLOCK_US) },
	{ "max-block", 0, "USECS", CLI_SAMPLING,
	  "count only waits of at most USECS microseconds",
	  NUMBER(max_block, 1, MAX_BLOCK_US) },
	{ "cgroup", 0, "PATH", CLI_SAMPLING,
	  "profile only the tasks in this cgroup v2 directory and\n"
	  "below (repeatable; /sys/fs/cgroup/X or the cgroup path /X)",
	  .set = add_cgroup },
	{ "by-container", 0, NULL, CLI_SAMPLING,
	  "tell samples apart by cgroup: a root frame per container\n"
	  "(folded, svg, json), pprof labels container_id, cgroup",
	  FLAG(by_container, true) },
	{ "delimited", 'd', NULL, 0,
	  "insert a delimiter between kernel and user stacks",
	  FLAG(delimited, true) },
	{ "annotations", 'a', NULL, 0,
	  "add _[k] annotations to kernel frames",
	  FLAG(annotations, true) },
	{ "folded", 'f', NULL, 0,
	  "folded output, one line per stack (for flame graphs)",
	  .set = set_format },
	{ "stack-storage-size", 0, "N", CLI_SAMPLING,
	  "stack traces the stack map holds (default 16384,\n"
	  "or less where the run's rate and length need less)",
	  NUMBER_GIVEN(stack_storage_size, stack_storage_given, 1, 1 << 24) },
	{ "hash-storage-size", 0, "N", CLI_SAMPLING,
	  "distinct stacks the count hash holds (default 40960,\n"
	  "or less likewise)",
	  NUMBER_GIVEN(hash_storage_size, hash_storage_given, 1, 1 << 24) },
	{ "perf-max-stack-depth", 0, "N", CLI_SAMPLING,
	  "frames kept per stack (default 127)",
	  NUMBER(max_stack_depth, 1, MAX_STACK_DEPTH_LIMIT) },
	{ "call-graph", 0, "MODE", CLI_SAMPLING,
	  "user stacks by dwarf (.eh_frame unwind tables, the\n"
	  "default) or fp (frame pointers only)",
	  .set = set_call_graph },
	{ "unwind-storage-size", 0, "N", CLI_SAMPLING,
	  "unwind table rows held (default 4194304, with -p\n"
	  "or -L 1048576)",
	  NUMBER(unwind_storage_size, 1, MAX_UNWIND_STORAGE) },
	{ "unwind-cache-dir", 0, "DIR", CLI_SAMPLING,
	  "keep root's files' unwind tables there between runs\n"
	  "(default /var/cache/profile/unwind)",
	  STRING(unwind_cache_dir, "empty unwind cache directory (--no-unwind-cache turns it off)") },
	{ "unwind-cache-size", 0, "MIB", CLI_SAMPLING,
	  "evict the least recently used tables past MIB\n"
	  "(default 256)",
	  NUMBER(unwind_cache_size, 1, MAX_UNWIND_CACHE_MIB) },
	{ "no-unwind-cache", 0, NULL, CLI_SAMPLING,
	  "build every unwind table afresh, keep none (nor the\n"
	  "kernel's symbols, kept there for the boot)",
	  .set = no_unwind_cache },
	{ "from", 0, "FILE", 0,
	  "read a profile from FILE instead of sampling: folded\n"
	  "stacks or pprof (.pb.gz/.pb/.pprof); more files, after\n"
	  "it or as more --from, are merged",
	  .set = add_from },
	{ "output", 'o', "FILE", 0,
	  "write the profile to FILE (a regular file atomically, mode 0600;\n"
	  "a device, FIFO or /dev/stdout in place; strftime patterns with -i)",
	  STRING(output, "empty output file name") },
	{ "keep", 0, "N", 0,
	  "after each file -o writes, remove all but the N newest that\n"
	  "its strftime pattern could have written in its directory",
	  NUMBER(keep, 1, 1000000) },
	{ "format", 0, "FMT", 0,
	  "text, folded, pprof, svg or json (default: from FILE's\n"
	  "extension: .txt .folded .pprof/.pb/.pb.gz .svg/.html\n"
	  ".json/.speedscope.json; none: text)",
	  .set = set_format },
	{ "interval", 'i', "SECS", CLI_SAMPLING,
	  "print a profile every SECS seconds",
	  NUMBER(interval, 1, INT_MAX) },
	{ "replace", 0, NULL, CLI_SAMPLING,
	  "with -i, let each profile replace the last in one -o file",
	  FLAG(replace, true) },
	{ "quiet", 'q', NULL, 0,
	  "nothing on stderr but errors, no header",
	  FLAG(quiet, true) },
	{ "debug-dir", 0, "DIR", CLI_SAMPLING,
	  "look for debug files under DIR (repeatable;\n"
	  "default /usr/lib/debug)",
	  .set = add_debug_dir },
	{ "debuginfod-url", 0, "URL", CLI_SAMPLING,
	  "fetch missing debug files of stripped files from\n"
	  "this debuginfod server (repeatable; default: the\n"
	  "servers in DEBUGINFOD_URLS)",
	  .set = add_debuginfod_url },
	{ "debuginfod-deadline", 0, "SECS", CLI_SAMPLING,
	  "after sampling, wait at most SECS for debug\n"
	  "files still being fetched (default 5)",
	  NUMBER(debuginfod_deadline, 0, MAX_DEBUGINFOD_DEADLINE) },
	{ "debuginfod-max-files", 0, "N", CLI_SAMPLING,
	  "ask for at most N debug files a run (default 256)",
	  NUMBER(debuginfod_max_files, 1, MAX_DEBUGINFOD_FILES) },
	{ "debuginfod-max-user-files", 0, "N", CLI_SAMPLING,
	  "of them at most N for the files of one\n"
	  "user other than root (default 16)",
	  NUMBER(debuginfod_max_user_files, 1, MAX_DEBUGINFOD_FILES) },
	{ "no-debuginfod", 0, NULL, CLI_SAMPLING,
	  "never fetch debug files from the network",
	  FLAG(debuginfod, false) },
	{ "no-demangle", 0, NULL, CLI_SAMPLING,
	  "print C++ and Rust names as they are in the binary",
	  FLAG(demangle, false) },
	{ "lines", 0, NULL, CLI_SAMPLING,
	  "add source lines and inlined frames (needs DWARF)",
	  FLAG(lines, true) },
	{ "no-python", 0, NULL, CLI_SAMPLING,
	  "native frames only: no Python functions in the stacks",
	  FLAG(python, false) },
	{ "offsets", 0, NULL, CLI_SAMPLING,
	  "unnamed frames each with its address in its file,\n"
	  "[libfoo.so+0x1a2b], not a run of them as one [libfoo.so]",
	  FLAG(offsets, true) },
	{ "verbose", 'v', NULL, 0,
	  "print statistics and the files without symbols;\n"
	  "-vv libbpf's debug output too",
	  .set = more_verbose },
	{ "help", 'h', NULL, 0,
	  "give this help and exit",
	  .set = print_help },
	{ "version", 0, NULL, 0,
	  "print the version and exit",
	  .set = print_version },
};

#define NR_OPTIONS ARRAY_SIZE(options)

static const char usage_head[] =
"Usage: profile [OPTION...] [duration]\n"
"  or:  profile [OPTION...] [duration] -- COMMAND [ARG...]\n"
"  or:  profile --from FILE [FILE...] [-o OUT] [--format FMT]\n"
"Profile CPU usage by sampling stack traces at a timed interval.\n"
"\n"
"  duration                  seconds to sample (default: until Ctrl-C or SIGTERM)\n"
"  -- COMMAND [ARG...]       run COMMAND, profile it and its children until it\n"
"                            exits, and exit with its status (Ctrl-C is its own)\n";

static const char usage_tail[] =
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

/* The column --help's texts start in; a longer option pushes its first line right. */
#define HELP_COLUMN 28

static void print_row(FILE *f, const struct cli_option *o)
{
	const char *line = o->help;
	int n;

	if (o->key)
		n = fprintf(f, "  -%c, --%s", o->key, o->name);
	else
		n = fprintf(f, "      --%s", o->name);
	if (o->arg)
		n += fprintf(f, "=%s", o->arg);
	fprintf(f, "%*s", n + 2 <= HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (;;) {
		size_t len = strcspn(line, "\n");

		fprintf(f, "%.*s\n", (int)len, line);
		if (!line[len])
			break;
		line += len + 1;
		fprintf(f, "%*s", HELP_COLUMN, "");
	}
}

void cli_options__print_help(FILE *f)
{
	fputs(usage_head, f);
	for (size_t i = 0; i < NR_OPTIONS; i++)
		print_row(f, &options[i]);
	fputs(usage_tail, f);
}

void cli_options__getopt(const struct option **longs, const char **shorts)
{
	static struct option long_opts[NR_OPTIONS + 1];
	/* ':' first (a missing argument is told from an unknown option), "x:" each */
	static char short_opts[2 * NR_OPTIONS + 2];
	size_t n = 0;

	short_opts[n++] = ':';
	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];

		long_opts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
						o->key ? o->key : CLI_LONG_ONLY + (int)i };
		if (!o->key)
			continue;
		short_opts[n++] = o->key;
		if (o->arg)
			short_opts[n++] = ':';
	}
	long_opts[NR_OPTIONS] = (struct option){};
	short_opts[n] = '\0';
	*longs = long_opts;
	*shorts = short_opts;
}

const struct cli_option *cli_options__find(int val)
{
	if (val >= CLI_LONG_ONLY)
		return (size_t)(val - CLI_LONG_ONLY) < NR_OPTIONS ? &options[val - CLI_LONG_ONLY] : NULL;
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (options[i].key && options[i].key == val)
			return &options[i];
	return NULL;
}

void cli_options__print_name(FILE *f, const struct cli_option *o)
{
	if (o->key)
		fprintf(f, "-%c/--%s", o->key, o->name);
	else
		fprintf(f, "--%s", o->name);
}
