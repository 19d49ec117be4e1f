/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - the profile(8) command line: options into one struct, checked
 * before anything is loaded.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "collect/map_config.h"
#include "collect/sample_event.h"
#include "output/output_format.h"

#define DEFAULT_FREQUENCY 49
/*
 * Unwind rows (16 bytes each) the BPF side holds: 16 MiB for -p/-L (libc
 * and python3 take 93k), 64 MiB for the whole system (a busy 2-CPU host
 * with compilers running filled 16 MiB in a second).
 */
#define DEFAULT_UNWIND_STORAGE (1 << 20)
#define DEFAULT_UNWIND_STORAGE_ALL (1 << 22)
#define MAX_UNWIND_STORAGE (1 << 26)
#define DEFAULT_UNWIND_CACHE_DIR "/var/cache/profile/unwind"
/* The table cache's entries at most, MiB: five times the most seen (docs/unwinding.md) */
#define DEFAULT_UNWIND_CACHE_MIB 256
#define MAX_UNWIND_CACHE_MIB (1 << 20)
#define DEFAULT_MAX_STACK_DEPTH 127
/*
 * The fastest sampling accepted. The BPF program costs up to ~25 us per
 * sample here (bench/: cache-cold, both stacks walked), so 10 kHz takes at
 * most a quarter of every CPU, the share the kernel allows perf by default
 * (kernel.perf_cpu_time_max_percent = 25). -c counts events: 100,000
 * cpu-clock nanoseconds are the same 10 kHz (cycles: 10 kHz per GHz).
 */
#define MAX_FREQUENCY 10000
#define MIN_PERIOD 100000
/*
 * After sampling, how long the profile waits for debug files still being
 * fetched from debuginfod servers (--debuginfod-deadline), seconds.
 */
#define DEFAULT_DEBUGINFOD_DEADLINE 5
#define MAX_DEBUGINFOD_DEADLINE 3600
/*
 * Debug files asked of debuginfod servers in one run, and of those for
 * the files of one owner other than root: any user picks the build-ids
 * their processes map (--debuginfod-max-files, --debuginfod-max-user-files).
 */
#define DEFAULT_DEBUGINFOD_MAX_FILES 256
#define DEFAULT_DEBUGINFOD_MAX_USER_FILES 16
#define MAX_DEBUGINFOD_FILES 1000000
/* --min-block and --max-block at most, us: 30 days */
#define MAX_BLOCK_US (30L * 24 * 3600 * 1000000)
/* Kernel memory the BPF maps may take at most, when full (cli__map_bytes). */
#define MAX_MAP_MIB 2048

struct profile_env {
	long duration;		/* seconds; 0: until SIGINT/SIGTERM */
	long frequency;		/* -F, samples per second per CPU */
	long period;		/* -c, events per sample; 0 when -F is used */
	enum sample_event event;	/* -e, cpu-clock unless cycles asked for */
	pid_t *pids;		/* -p */
	size_t nr_pids;
	pid_t *tids;		/* -L */
	size_t nr_tids;
	const char *pid_arg, *tid_arg;	/* -p/-L as given, for the header line */
	char **command;		/* -- CMD ARGS..., NULL-terminated: run it, profile it and its children */
	pid_t command_pid;	/* once it is started (not an option) */
	int cpu;		/* -C, -1 for all */
	bool user_only, kernel_only, include_idle;
	bool include_self;	/* --include-self: the whole system's profile has profile's own samples */
	bool delimited, annotations, folded;
	int verbose;		/* -v given this many times: 1 our statistics, 2 libbpf's debug too */
	long stack_storage_size, hash_storage_size, max_stack_depth;
	/* --stack-storage-size, --hash-storage-size given: those sizes, not the run's need */
	bool stack_storage_given, hash_storage_given;
	bool dwarf;		/* --call-graph dwarf (default): user stacks by unwind tables */
	long unwind_storage_size;	/* rows of unwind tables the BPF side holds */
	const char *unwind_cache_dir;	/* tables kept between runs; NULL: none */
	long unwind_cache_size;		/* MiB the cache's entries may take at most */
	/* --from FILE...: write these profiles again instead of sampling */
	const char **from;
	size_t nr_from;
	/* output */
	enum output_format format;	/* folded == (format == FORMAT_FOLDED) */
	const char *output;	/* -o FILE (may hold strftime patterns), NULL: stdout */
	long keep;		/* --keep N: the newest N files of -o's pattern stay; 0: all */
	long interval;		/* -i seconds, 0: one profile at the end */
	bool replace;		/* --replace: -i's profiles may replace one another in -o's file */
	bool quiet;		/* -q: nothing but errors on stderr, no header */
	bool by_container;	/* --by-container: samples told apart by cgroup, shown by container */
	const char **cgroups;	/* --cgroup, as given: only tasks in these cgroup v2 subtrees */
	size_t nr_cgroups;
	/* symbols */
	const char **debug_dirs;	/* --debug-dir, in the order given; none: /usr/lib/debug */
	size_t nr_debug_dirs;
	bool demangle;		/* on unless --no-demangle */
	bool offsets;		/* --offsets: unnamed frames with their address, each its own */
	bool lines;		/* --lines: source lines and inlined frames */
	bool python;		/* on unless --no-python: Python frames in user stacks */
	bool debuginfod;	/* on unless --no-debuginfod (still needs servers) */
	const char **debuginfod_urls;	/* --debuginfod-url, in order; none: DEBUGINFOD_URLS */
	size_t nr_debuginfod_urls;
	long debuginfod_deadline;	/* seconds after sampling for fetches to land */
	long debuginfod_max_files;	/* debug files asked for in a run */
	long debuginfod_max_user_files;	/* of them for the files of one user but root */
	/* off the CPU (collect/offcpu.bpf.h) */
	bool off_cpu;		/* --off-cpu: ns threads wait off the CPU, not samples */
	bool wall;		/* --wall: samples weighted by their period plus that, in ns */
	bool include_runnable;	/* --include-runnable: and ns waiting for a CPU (--wall: always) */
	long min_block, max_block;	/* --min-block, --max-block: us; max 0: no bound */
};

/* cli__parse(): --help or --version was printed on out, exit 0. */
#define CLI_DONE 1

/*
 * Parse argv into env. Only syntax and conflicts between options are
 * checked here. Returns 0 (go ahead and profile), CLI_DONE, or -errno
 * after one line on err (exit 2); env holds nothing to release unless 0.
 */
int cli__parse(int argc, char **argv, struct profile_env *env, FILE *out, FILE *err);

/*
 * Checks against the running system: pids/tids exist, the CPU exists and is
 * online, --cgroup's paths are cgroup v2 directories (and --by-container
 * has a cgroup v2 hierarchy, found in proc_root's self/mountinfo), the stack depth is within kernel.perf_event_max_stack, the maps
 * fit in MAX_MAP_MIB, and -o FILE (expanded now) can be written
 * (outfile__check()), so that a missing directory does not throw away a
 * run at its end. proc_root and sys_root are "/proc" and "/sys" except in
 * tests. Returns 0, or -errno after one line on err.
 */
int cli__validate(const struct profile_env *env, const char *proc_root, const char *sys_root,
		  FILE *err);

/*
 * Kernel memory the BPF maps take when full: two sets of stack map, count
 * hash and overflow hash. The options that size them are refused when
 * this exceeds MAX_MAP_MIB.
 */
unsigned long long cli__map_bytes(const struct profile_env *env);

void cli__release(struct profile_env *env);

#endif /* CLI_H */
