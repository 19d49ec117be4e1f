// SPDX-License-Identifier: GPL-2.0
/*
 * cli_validate.c - the options checked against the running system before
 * anything is loaded (cli__validate()): the ids and the CPU exist, the
 * cgroups are cgroup v2 directories, the maps fit, -o can be written.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <linux/types.h>

#include "cli.h"
#include "collect/cgroups.h"
#include "common/escape.h"
#include "output/emit.h"
#include "output/outfile.h"
#include "output/retention.h"
#include "profile.h"
#include "trace_helpers.h"
#include "unwind/unwind_row.h"

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
		emit__print_outfile_error(err, &diag);
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
