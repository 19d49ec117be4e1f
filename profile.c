// SPDX-License-Identifier: GPL-2.0
/*
 * profile - sample stack traces on every CPU at a fixed rate, count them in
 * the kernel, and print them sorted by count or folded for flame graphs.
 * A libbpf take on BCC's profile(8), with the same options and output.
 *
 * main() is a list of steps: parse -> load -> attach -> wait -> collect ->
 * print -> report.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "ksyms.h"
#include "profile.h"
#include "profile.skel.h"
#include "stack_fmt.h"
#include "trace_helpers.h"
#include "usyms.h"

#define EXIT_USAGE 2

struct sampler {
	struct profile_bpf *obj;
	struct bpf_link **links;
	int nr_links;
	const char *event_name;		/* "cycles" or "cpu-clock" */
};

/* One entry of the count hash, copied out. */
struct counted {
	struct profile_key key;
	__u64 count;
};

static bool verbose;

/* Never runs (the signals stay blocked); installing it undoes an inherited
 * SIG_IGN, e.g. SIGINT in a background job of a script. */
static void on_signal(int sig)
{
	(void)sig;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (!verbose && level != LIBBPF_WARN)
		return 0;
	if (!verbose)
		return 0;	/* failures are reported by us, in one line */
	return vfprintf(stderr, fmt, args);
}

static long read_sysctl(const char *name)
{
	char path[256];
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return read_long_file(path, &v) ? -1 : v;
}

static const char *privilege_hint(void)
{
	return geteuid() ? "run as root, or with CAP_BPF and CAP_PERFMON"
			 : "missing CAP_BPF/CAP_PERFMON, or BPF is restricted here";
}

/* Open the skeleton, configure rodata and map sizes, load. */
static int load(const struct profile_env *env, struct profile_bpf **objp)
{
	struct profile_bpf *obj;
	int err;

	obj = profile_bpf__open();
	if (!obj) {
		fprintf(stderr, "profile: cannot open BPF object: %s\n", strerror(errno));
		return -errno;
	}
	obj->rodata->user_stacks_only = env->user_only;
	obj->rodata->kernel_stacks_only = env->kernel_only;
	obj->rodata->include_idle = env->include_idle;
	obj->rodata->filter_by_pid = env->nr_pids > 0;
	obj->rodata->filter_by_tid = env->nr_tids > 0;
	obj->rodata->key_by_tid = env->nr_tids > 0;
	obj->rodata->stack_depth = env->max_stack_depth;

	bpf_map__set_value_size(obj->maps.stackmap, env->max_stack_depth * sizeof(__u64));
	bpf_map__set_max_entries(obj->maps.stackmap, env->stack_storage_size);
	/*
	 * Not preallocated: costs memory only for the stacks that collide. Two
	 * stacks per count-hash entry is more than the counts can reference,
	 * so this map never fills before the count hash does.
	 */
	bpf_map__set_value_size(obj->maps.overflow, env->max_stack_depth * sizeof(__u64));
	bpf_map__set_max_entries(obj->maps.overflow, 2 * env->hash_storage_size);
	bpf_map__set_value_size(obj->maps.scratch, env->max_stack_depth * sizeof(__u64));
	bpf_map__set_max_entries(obj->maps.counts, env->hash_storage_size);

	err = profile_bpf__load(obj);
	if (err) {
		if (err == -EPERM || err == -EACCES)
			fprintf(stderr, "profile: cannot load BPF program: %s (%s)\n",
				strerror(-err), privilege_hint());
		else if (access("/sys/kernel/btf/vmlinux", R_OK))
			fprintf(stderr, "profile: cannot load BPF program: %s (no kernel BTF at /sys/kernel/btf/vmlinux)\n",
				strerror(-err));
		else
			fprintf(stderr, "profile: cannot load BPF program: %s (-v shows the verifier log)\n",
				strerror(-err));
		profile_bpf__destroy(obj);
		return err;
	}
	for (size_t i = 0; i < env->nr_pids; i++) {
		__u32 id = env->pids[i];
		__u8 one = 1;

		bpf_map__update_elem(obj->maps.pids, &id, sizeof(id), &one, sizeof(one), BPF_ANY);
	}
	for (size_t i = 0; i < env->nr_tids; i++) {
		__u32 id = env->tids[i];
		__u8 one = 1;

		bpf_map__update_elem(obj->maps.tids, &id, sizeof(id), &one, sizeof(one), BPF_ANY);
	}
	*objp = obj;
	return 0;
}

static int open_event(const struct profile_env *env, bool hardware, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hardware ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
	};
	int fd;

	if (env->period) {
		attr.sample_period = env->period;
	} else {
		attr.freq = 1;
		attr.sample_freq = env->frequency;
	}
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * One system-wide event per online CPU (per-task events are filtered in
 * BPF instead). Hardware cycles where the machine has a PMU, else the
 * cpu-clock software event.
 */
static int attach(const struct profile_env *env, struct sampler *s)
{
	int nr_cpus = libbpf_num_possible_cpus();
	bool hardware = true;
	bool *online;
	int err = 0;

	if (nr_cpus <= 0) {
		fprintf(stderr, "profile: cannot count the possible CPUs\n");
		return -EINVAL;
	}
	online = calloc(nr_cpus, sizeof(*online));
	s->links = calloc(nr_cpus, sizeof(*s->links));
	if (!online || !s->links) {
		free(online);
		return -ENOMEM;
	}
	if (read_online_cpus(online, nr_cpus) < 0)
		memset(online, 1, nr_cpus * sizeof(*online));

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd;

		if (!online[cpu] || (env->cpu >= 0 && cpu != env->cpu))
			continue;
		fd = open_event(env, hardware, cpu);
		if (fd < 0 && hardware && fd != -ENODEV && fd != -EACCES && fd != -EPERM) {
			hardware = false;	/* no PMU (e.g. a VM): fall back for every CPU */
			fd = open_event(env, hardware, cpu);
		}
		if (fd == -ENODEV)
			continue;	/* went offline meanwhile */
		if (fd < 0) {
			err = fd;
			if (err == -EACCES || err == -EPERM)
				fprintf(stderr, "profile: cannot open perf event on cpu %d: %s (%s; kernel.perf_event_paranoid=%ld)\n",
					cpu, strerror(-err), privilege_hint(),
					read_sysctl("perf_event_paranoid"));
			else
				fprintf(stderr, "profile: cannot open perf event on cpu %d: %s\n",
					cpu, strerror(-err));
			break;
		}
		s->links[s->nr_links] = bpf_program__attach_perf_event(s->obj->progs.do_sample, fd);
		if (!s->links[s->nr_links]) {
			err = -errno;
			fprintf(stderr, "profile: cannot attach to perf event on cpu %d: %s\n",
				cpu, strerror(-err));
			close(fd);
			break;
		}
		s->nr_links++;
	}
	free(online);
	if (!err && !s->nr_links) {
		fprintf(stderr, "profile: no online CPU to sample\n");
		err = -ENODEV;
	}
	s->event_name = hardware ? "cycles" : "cpu-clock";
	return err;
}

static void detach(struct sampler *s)
{
	for (int i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->nr_links = 0;
}

static void print_header(const struct profile_env *env, const char *pid_arg, const char *tid_arg)
{
	const char *stacks = env->user_only ? "user" : env->kernel_only ? "kernel" : "user + kernel";
	char who[256] = "all threads";

	if (env->folded)
		return;
	if (pid_arg)
		snprintf(who, sizeof(who), "PID %s", pid_arg);
	else if (tid_arg)
		snprintf(who, sizeof(who), "TID %s", tid_arg);
	if (env->period)
		printf("Sampling at every %ld events of %s by %s stack", env->period, who, stacks);
	else
		printf("Sampling at %ld Hertz of %s by %s stack", env->frequency, who, stacks);
	if (env->duration)
		printf(" for %ld secs.\n", env->duration);
	else
		printf("... Hit Ctrl-C to end.\n");
	fflush(stdout);
}

/* Gone, or a zombie: it will not run again. */
static bool process_gone(pid_t pid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* comm may hold anything, even ')' */
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

static bool all_targets_gone(const struct profile_env *env)
{
	if (!env->nr_pids)
		return false;
	for (size_t i = 0; i < env->nr_pids; i++)
		if (!process_gone(env->pids[i]))
			return false;
	return true;
}

/*
 * Sleep until the duration ends, SIGINT/SIGTERM arrives, or every -p target
 * has exited. The signals are blocked and taken with sigtimedwait(), so one
 * arriving at any moment is never missed, and one arriving later, while
 * the profile is printed, cannot cut the output short.
 */
static void wait_for_end(const struct profile_env *env, const sigset_t *sigs, struct usyms *usyms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct timespec tick = { .tv_sec = 1 };
		double left;

		if (env->duration) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = env->duration - (now.tv_sec - start.tv_sec) -
			       (now.tv_nsec - start.tv_nsec) / 1e9;
			if (left <= 0)
				return;
			if (left < 1) {
				tick.tv_sec = 0;
				tick.tv_nsec = left * 1e9;
			}
		}
		if (sigtimedwait(sigs, NULL, &tick) > 0)
			return;
		/* keep the latest mappings of the targets, in case they exit */
		for (size_t i = 0; i < env->nr_pids; i++)
			usyms__add_pid(usyms, env->pids[i]);
		if (all_targets_gone(env)) {
			fprintf(stderr, "profile: every target process exited; stopping\n");
			return;
		}
	}
}

static int counted_cmp_pid(const void *a, const void *b)
{
	const struct counted *x = a, *y = b;

	return (x->key.pid > y->key.pid) - (x->key.pid < y->key.pid);
}

/* Copy the count hash out. */
static int read_counts(struct profile_bpf *obj, struct counted **out, size_t *nr)
{
	int fd = bpf_map__fd(obj->maps.counts);
	struct profile_key key, *prev = NULL;
	struct counted *v = NULL;
	size_t cap = 0, n = 0;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		__u64 count;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &count))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct counted *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		v[n].key = key;
		v[n].count = count;
		n++;
	}
	*out = v;
	*nr = n;
	return 0;
}

/* Symbolization state and scratch buffers for one print. */
struct resolver {
	const struct profile_env *env;
	int stack_fd, overflow_fd;
	struct ksyms *ksyms;
	bool ksyms_tried;
	struct usyms *usyms;
	__u64 *ips;
	const char **kframes, **uframes;
};

static const char *const UNKNOWN = "[unknown]";

/* Read one stack; returns the number of frames (leaf first). */
static size_t read_stack(struct resolver *r, __s32 id, __u64 overflow_key)
{
	size_t n = 0;
	int err;

	if (id == STACK_ID_OVERFLOW)
		err = bpf_map_lookup_elem(r->overflow_fd, &overflow_key, r->ips);
	else
		err = bpf_map_lookup_elem(r->stack_fd, &id, r->ips);
	if (err)
		return 0;
	while (n < (size_t)r->env->max_stack_depth && r->ips[n])
		n++;
	return n;
}

static size_t resolve_kernel(struct resolver *r, __s32 id, __u64 overflow_key)
{
	size_t n = read_stack(r, id, overflow_key);

	if (n && !r->ksyms_tried) {
		/* only loaded when a kernel frame exists */
		r->ksyms_tried = true;
		r->ksyms = ksyms__load();
		if (!r->ksyms)
			fprintf(stderr, "profile: cannot read /proc/kallsyms: %s; kernel frames stay [unknown]\n",
				strerror(errno));
	}
	for (size_t i = 0; i < n; i++) {
		const struct ksym *ks = ksyms__find(r->ksyms, r->ips[i]);

		r->kframes[i] = ks ? ks->name : UNKNOWN;
	}
	return n;
}

static size_t resolve_user(struct resolver *r, __u32 pid, __s32 id, __u64 overflow_key)
{
	size_t n = read_stack(r, id, overflow_key);

	for (size_t i = 0; i < n; i++) {
		struct usym sym;

		r->uframes[i] = usyms__resolve(r->usyms, pid, r->ips[i], &sym) ? UNKNOWN : sym.name;
	}
	return n;
}

/* 0 when the key's stack id leads to frames, else the -errno it holds. */
static int stack_err(__s32 id)
{
	return id >= 0 || id == STACK_ID_OVERFLOW ? 0 : id;
}

static int add_counted(struct resolver *r, struct stack_set *set, const struct counted *c)
{
	struct stack_rec rec = {
		.comm = c->key.comm,
		.pid = c->key.pid,
		.tid = c->key.tid,
		.kframes = r->kframes,
		.uframes = r->uframes,
		.kstack_err = stack_err(c->key.kern_stack_id),
		.ustack_err = stack_err(c->key.user_stack_id),
		.count = c->count,
	};

	if (!r->env->user_only && !rec.kstack_err)
		rec.nr_kframes = resolve_kernel(r, c->key.kern_stack_id, c->key.kern_overflow);
	if (!r->env->kernel_only && !rec.ustack_err)
		rec.nr_uframes = resolve_user(r, c->key.pid, c->key.user_stack_id, c->key.user_overflow);
	return stack_set__add(set, &rec);
}

/*
 * Read the counts, the mappings of every process seen (while they are still
 * alive), resolve and print. Returns 0, or -errno; -EPIPE when the reader
 * went away.
 */
static int collect_and_print(const struct profile_env *env, struct profile_bpf *obj,
			     struct usyms *usyms, __u64 *printed)
{
	struct stack_fmt_opts fmt = {
		.folded = env->folded,
		.delimited = env->delimited,
		.annotations = env->annotations,
		.user_only = env->user_only,
		.kernel_only = env->kernel_only,
		.per_thread = env->nr_tids > 0,
	};
	struct resolver r = {
		.env = env,
		.stack_fd = bpf_map__fd(obj->maps.stackmap),
		.overflow_fd = bpf_map__fd(obj->maps.overflow),
		.usyms = usyms,
	};
	struct counted *counts = NULL;
	struct stack_set *set = NULL;
	size_t nr = 0;
	int err;

	err = read_counts(obj, &counts, &nr);
	if (err)
		goto out;
	qsort(counts, nr, sizeof(*counts), counted_cmp_pid);
	if (!env->kernel_only) {
		for (size_t i = 0; i < nr; i++)
			if (!i || counts[i].key.pid != counts[i - 1].key.pid)
				usyms__add_pid(usyms, counts[i].key.pid);
	}

	set = stack_set__new(&fmt);
	r.ips = calloc(env->max_stack_depth, sizeof(*r.ips));
	r.kframes = calloc(env->max_stack_depth, sizeof(*r.kframes));
	r.uframes = calloc(env->max_stack_depth, sizeof(*r.uframes));
	if (!set || !r.ips || !r.kframes || !r.uframes) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr && !err; i++)
		err = add_counted(&r, set, &counts[i]);
	if (err)
		goto out;
	*printed = stack_set__total(set);
	err = stack_set__print(set, stdout);
out:
	if (err && err != -EPIPE)
		fprintf(stderr, "profile: cannot print the profile: %s\n", strerror(-err));
	stack_set__free(set);
	ksyms__free(r.ksyms);
	free(r.ips);
	free(r.kframes);
	free(r.uframes);
	free(counts);
	return err;
}

static int read_stats(struct profile_bpf *obj, __u64 totals[STAT_MAX])
{
	int nr_cpus = libbpf_num_possible_cpus();
	__u64 *vals;

	memset(totals, 0, STAT_MAX * sizeof(*totals));
	vals = calloc(nr_cpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (__u32 i = 0; i < STAT_MAX; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(obj->maps.stats), &i, vals))
			continue;
		for (int c = 0; c < nr_cpus; c++)
			totals[i] += vals[c];
	}
	free(vals);
	return 0;
}

/* Say what was lost, and which option keeps it next time. */
static void report_losses(const struct profile_env *env, struct profile_bpf *obj, __u64 printed,
			  const struct usyms *usyms, const char *event)
{
	__u64 t[STAT_MAX];

	if (read_stats(obj, t))
		return;
	if (t[STAT_KSTACK_LOST] || t[STAT_USTACK_LOST])
		fprintf(stderr, "profile: %llu kernel and %llu user stacks lost, stack map and overflow map full; raise --stack-storage-size (now %ld) or --hash-storage-size (now %ld)\n",
			(unsigned long long)t[STAT_KSTACK_LOST], (unsigned long long)t[STAT_USTACK_LOST],
			env->stack_storage_size, env->hash_storage_size);
	if (t[STAT_HASH_FULL])
		fprintf(stderr, "profile: %llu samples dropped, count hash full; raise --hash-storage-size (now %ld)\n",
			(unsigned long long)t[STAT_HASH_FULL], env->hash_storage_size);
	if (!t[STAT_SAMPLES])
		fprintf(stderr, "profile: no samples collected (were the targets on CPU?)\n");
	if (env->verbose)
		fprintf(stderr, "profile: event %s, %llu samples, %llu printed, %llu dropped, %llu+%llu kernel+user stacks kept in the overflow map, %zu ELF files read\n",
			event, (unsigned long long)t[STAT_SAMPLES], (unsigned long long)printed,
			(unsigned long long)t[STAT_HASH_FULL],
			(unsigned long long)t[STAT_KSTACK_OVERFLOW], (unsigned long long)t[STAT_USTACK_OVERFLOW],
			usyms__nr_files(usyms));
}

/* The -p/-L argument as given, for the header line. */
static const char *find_arg(int argc, char **argv, const char *s, const char *l)
{
	for (int i = 1; i < argc; i++) {
		size_t ll = strlen(l);

		if (!strcmp(argv[i], s) || !strcmp(argv[i], l))
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (!strncmp(argv[i], s, 2) && argv[i][2])
			return argv[i] + 2;
		if (!strncmp(argv[i], l, ll) && argv[i][ll] == '=')
			return argv[i] + ll + 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct profile_env env = {};
	struct sampler s = {};
	struct usyms *usyms = NULL;
	__u64 printed = 0;
	sigset_t sigs;
	int err;

	switch (cli__parse(argc, argv, &env, stdout, stderr)) {
	case CLI_DONE:
		return 0;
	case CLI_USAGE:
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	if (cli__validate(&env, "/proc", "/sys", stderr) != CLI_RUN) {
		cli__release(&env);
		return EXIT_USAGE;
	}
	verbose = env.verbose;
	libbpf_set_print(libbpf_print);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	usyms = usyms__new(NULL);
	if (!usyms) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = load(&env, &s.obj);
	if (err)
		goto cleanup;
	err = attach(&env, &s);
	if (err)
		goto cleanup;
	print_header(&env, find_arg(argc, argv, "-p", "--pid"), find_arg(argc, argv, "-L", "--tid"));
	wait_for_end(&env, &sigs, usyms);
	detach(&s);	/* stop sampling: the maps are read as they are now */

	err = collect_and_print(&env, s.obj, usyms, &printed);
	if (err == -EPIPE) {
		err = 0;	/* the reader has what it wanted (| head) */
		goto cleanup;
	}
	if (err)
		goto cleanup;
	report_losses(&env, s.obj, printed, usyms, s.event_name);
cleanup:
	detach(&s);
	profile_bpf__destroy(s.obj);
	usyms__free(usyms);
	cli__release(&env);
	return err ? 1 : 0;
}
