// SPDX-License-Identifier: GPL-2.0
/*
 * sampler.c - load the BPF program of profile.bpf.c, flip and drain its
 * double-buffered maps, and report what it knows of processes. Attaching
 * is in attach.c, one map set's drain in map_drain.c.
 *
 * Past 600 lines on purpose: this is the one owner of the skeleton. What
 * sizes, configures and loads the object, and every later read or write of
 * its maps, .bss and .rodata (but off-CPU's, offcpu_attach.c), is here, so
 * that what userspace assumes of profile.bpf.c's names is in one file; the
 * parts that stand alone (attaching, a set's drain) are already beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/clock.h"
#include "collect/bpf_features.h"
#include "collect/cgroups.h"
#include "collect/diagnose.h"
#include "collect/sampler_state.h"
#include "trace_helpers.h"
#include "python/py_bpf.h"

static int on_new_pid(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct new_pid_event *e = data;

	if (size >= sizeof(*e) && s->new_pid_fn)
		s->new_pid_fn(e->pid, e->gen, e->kind, e->uid, s->new_pid_ctx);
	return 0;
}

static int on_py_name(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;

	if (s->py_name_fn)
		s->py_name_fn(data, size, s->py_name_ctx);
	return 0;
}

/* A seed nobody else knows for the digests of Python frames' names. */
static __u64 random_seed(void)
{
	__u64 seed = 0;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = monotonic_ns() ^ ((__u64)getpid() << 32);
	return seed;
}

static void set_rodata(struct profile_bpf *obj, const struct sampler_opts *o, bool dwarf,
		       bool python)
{
	obj->rodata->dwarf_unwind = dwarf;
	obj->rodata->py_enabled = python;
	obj->rodata->py_lines = python && o->python_lines;
	obj->rodata->py_seed = random_seed();
	obj->rodata->user_stacks_only = o->user_only;
	obj->rodata->kernel_stacks_only = o->kernel_only;
	obj->rodata->include_idle = o->include_idle;
	obj->rodata->filter_by_pid = o->nr_pids > 0 || o->command_pid;
	obj->rodata->follow_forks = o->command_pid != 0;
	obj->rodata->filter_by_tid = o->nr_tids > 0;
	if (!o->include_self && !o->nr_pids && !o->nr_tids && !o->command_pid)
		obj->rodata->self_pid = getpid();
	obj->rodata->key_by_tid = o->nr_tids > 0;
	obj->rodata->key_by_cgroup = o->by_container;
	obj->rodata->nr_cgroup_filters = o->nr_cgroups;
	obj->rodata->track_gens = !o->kernel_only;
	obj->rodata->stack_depth = o->max_stack_depth;
	obj->rodata->nr_cpus = libbpf_num_possible_cpus() > 0 ? libbpf_num_possible_cpus() : 1;
}

/*
 * The frames a stack map keeps: the kernel refuses a map deeper than
 * kernel.perf_event_max_stack, which bounds its own walks (kernel stacks,
 * user stacks by frame pointers). Walks with unwind tables keep
 * --perf-max-stack-depth frames in the overflow map.
 */
static __u32 stackmap_depth(const struct sampler_opts *o)
{
	long max = 127;	/* the sysctl's default */
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");

	if (f) {
		if (fscanf(f, "%ld", &max) != 1 || max < 1)
			max = 127;
		fclose(f);
	}
	return o->max_stack_depth < max ? (__u32)o->max_stack_depth : (__u32)max;
}

/* The maps of Python frames; the smallest the program loads with when there are none. */
static int size_python_maps(struct sampler *s)
{
	struct profile_bpf *obj = s->obj;
	int err;

	err = bpf_map__set_max_entries(obj->maps.py_procs, s->python ? PY_MAX_PROCS : 1);
	if (!err && !s->python)
		err = bpf_map__set_max_entries(obj->maps.py_threads, 1);
	if (!err && !s->python)
		err = bpf_map__set_max_entries(obj->maps.py_seen, 1);
	if (!err && !s->python)
		err = bpf_map__set_max_entries(obj->maps.py_names, 4096);
	return err;
}

/*
 * Every hash map preallocated: before 6.1 a perf_event program takes no
 * other (the unwind and Python entries cost their whole size then, about
 * 64 MiB). 0 or -errno.
 */
static int prealloc_hashes(struct bpf_object *obj)
{
	struct bpf_map *m;
	int err = 0;

	bpf_object__for_each_map(m, obj) {
		__u32 flags = bpf_map__map_flags(m);

		if (flags & BPF_F_NO_PREALLOC)
			err = bpf_map__set_map_flags(m, flags & ~BPF_F_NO_PREALLOC);
		if (err)
			return err;
	}
	return 0;
}

/* The two map sets, the shared hashes and the scratch stack. 0 or -errno. */
static int size_maps(struct sampler *s, bool prealloc)
{
	struct profile_bpf *obj = s->obj;
	__u32 depth = stackmap_depth(&s->opts);
	int nr_cpus = libbpf_num_possible_cpus();
	int err = 0;

	s->sets[0] = (struct map_set){ obj->maps.counts0, obj->maps.stackmap0, obj->maps.overflow0,
				       obj->maps.pending0 };
	s->sets[1] = (struct map_set){ obj->maps.counts1, obj->maps.stackmap1, obj->maps.overflow1,
				       obj->maps.pending1 };
	for (int i = 0; i < 2 && !err; i++)
		err = map_set__size(&s->opts, &s->sets[i], nr_cpus, prealloc, depth);
	if (!err)
		err = bpf_map__set_value_size(obj->maps.scratch,
					      s->opts.max_stack_depth * sizeof(__u64));
	if (!err)
		err = bpf_map__set_value_size(obj->maps.unwind_frames,
					      s->opts.max_stack_depth * sizeof(__u64));
	/* without unwinding, the smallest maps the program loads with */
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.unwind_rows,
					       s->dwarf ? s->opts.unwind_storage_size : 1);
	/* written through mmap by the worker (unwind_files.c): no update per row */
	if (!err && s->dwarf)
		err = bpf_map__set_map_flags(obj->maps.unwind_rows,
					     bpf_map__map_flags(obj->maps.unwind_rows) | BPF_F_MMAPABLE);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.unwind_procs, s->dwarf ? UNWIND_MAX_PROCS : 1);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.unwind_procs_big,
					       s->dwarf ? UNWIND_MAX_BIG_PROCS : 1);
	/* -- CMD: its processes join pids as they fork */
	if (!err && s->opts.command_pid)
		err = bpf_map__set_max_entries(obj->maps.pids, FOLLOW_MAX_PROCS);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.forked,
					       s->opts.command_pid ? FOLLOW_MAX_FORKED : 1);
	if (!err && s->opts.nr_cgroups)
		err = bpf_map__set_max_entries(obj->maps.cgroup_filter, s->opts.nr_cgroups);
	if (!err)
		err = size_python_maps(s);
	return err || !prealloc ? err : prealloc_hashes(obj->obj);
}

/*
 * Open and configure the skeleton into s->obj. The hash maps are not
 * preallocated, so they cost memory only for what they hold; kernels
 * before 6.1 refuse that in perf_event programs, hence prealloc as the
 * fallback. 0 or -errno.
 */
static int open_configured(struct sampler *s, bool prealloc)
{
	const struct sampler_opts *o = &s->opts;
	int err;

	s->obj = profile_bpf__open();
	if (!s->obj)
		return -errno;
	set_rodata(s->obj, o, s->dwarf, s->python);
	/* one of the three sampling programs: the others may not load here */
	bpf_program__set_autoload(s->obj->progs.do_sample, false);
	bpf_program__set_autoload(s->obj->progs.do_sample_python, false);
	bpf_program__set_autoload(s->obj->progs.do_sample_unwind, false);
	bpf_program__set_autoload(sampler__prog(s), true);
	bpf_program__set_autoload(s->obj->progs.py_code_freed, s->python);
	if (o->kernel_only) {
		/* no user stacks: no mappings, no generations */
		bpf_program__set_autoload(s->obj->progs.on_exec, false);
		/* but the command's processes still leave pids as they exit */
		bpf_program__set_autoload(s->obj->progs.on_exit, o->command_pid != 0);
	}
	bpf_program__set_autoload(s->obj->progs.on_fork, o->command_pid != 0);
	err = sampler__offcpu_configure(s, prealloc);
	return err ? err : size_maps(s, prealloc);
}

/*
 * --cgroup's directories into the cgroup array (checked by cli__validate()
 * already; one removed since fails here). Prints one line on failure.
 */
static int fill_cgroups(struct sampler *s)
{
	const struct sampler_opts *o = &s->opts;
	char mount[PATH_MAX], dir[PATH_MAX];
	int map_fd = bpf_map__fd(s->obj->maps.cgroup_filter), err = 0;
	bool mounted;

	if (!o->nr_cgroups)
		return 0;
	mounted = !cgroup2__mount("/proc/self/mountinfo", mount, sizeof(mount));
	for (__u32 i = 0; i < o->nr_cgroups && !err; i++) {
		int fd;

		err = cgroup2__resolve(mounted ? mount : NULL, o->cgroups[i], dir, sizeof(dir));
		fd = err ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!err && fd < 0)
			err = -errno;
		if (!err && bpf_map_update_elem(map_fd, &i, &fd, BPF_ANY))
			err = -errno;
		if (fd >= 0)
			close(fd);	/* the map holds the cgroup */
		if (err) {
			/* root's own argument, shown escaped by cli__validate() already */
			fprintf(stderr, "profile: cannot add --cgroup path %u to the BPF filter map: %s\n",
				i + 1, strerror(-err));
		}
	}
	return err;
}

/* The ids of -p or -L into their filter maps. Prints one line on failure. */
static int fill_filters(struct sampler *s)
{
	const struct sampler_opts *o = &s->opts;
	pid_t failed;
	int err;

	err = fill_cgroups(s);
	if (err)
		return err;

	err = id_filter__fill(bpf_map__fd(s->obj->maps.pids), o->pids, o->nr_pids, &failed);
	if (err) {
		fprintf(stderr, "profile: cannot add pid %d to the BPF filter map: %s\n",
			(int)failed, strerror(-err));
		return err;
	}
	if (o->command_pid) {
		err = id_filter__fill(bpf_map__fd(s->obj->maps.pids), &o->command_pid, 1, &failed);
		if (err) {
			fprintf(stderr, "profile: cannot add pid %d to the BPF filter map: %s\n",
				(int)failed, strerror(-err));
			return err;
		}
	}
	err = id_filter__fill(bpf_map__fd(s->obj->maps.tids), o->tids, o->nr_tids, &failed);
	if (err)
		fprintf(stderr, "profile: cannot add tid %d to the BPF filter map: %s\n",
			(int)failed, strerror(-err));
	return err;
}

/*
 * A generation for pid now, as its first sample would make one (gen_of()
 * in profile.bpf.c): the next number of CPU 0's sequence, so none repeats.
 * Before any program is attached: none runs to race for the sequence.
 */
static int seed_gen(struct sampler *s, pid_t pid)
{
	int nr_cpus = libbpf_num_possible_cpus() > 0 ? libbpf_num_possible_cpus() : 1;
	int seq_fd = bpf_map__fd(s->obj->maps.gen_seq);
	__u64 *seqs = calloc(nr_cpus, sizeof(*seqs));	/* a per-CPU value takes 8 bytes */
	struct pid_gen g = {};
	__u32 zero = 0, key = (__u32)pid, seq;
	int err = 0;

	if (!seqs)
		return -ENOMEM;
	if (bpf_map_lookup_elem(seq_fd, &zero, seqs)) {
		err = -errno;
		goto out;
	}
	memcpy(&seq, &seqs[0], sizeof(seq));
	seq++;
	memcpy(&seqs[0], &seq, sizeof(seq));
	if (bpf_map_update_elem(seq_fd, &zero, seqs, BPF_ANY)) {
		err = -errno;
		goto out;
	}
	g.gen = seq * (__u32)nr_cpus;
	if (bpf_map_update_elem(bpf_map__fd(s->obj->maps.pid_gen), &key, &g, BPF_NOEXIST) &&
	    errno != EEXIST)
		err = -errno;
out:
	free(seqs);
	return err;
}

/*
 * The targets of -p get their generation before sampling starts, so that
 * what is looked at in them before it (their interpreter, python/) is
 * under the generation their samples carry. One line for a target left
 * without: its first samples come before that look.
 */
static void seed_gens(struct sampler *s)
{
	const struct sampler_opts *o = &s->opts;

	if (o->kernel_only)
		return;
	for (size_t i = 0; i < o->nr_pids; i++) {
		int err = seed_gen(s, o->pids[i]);

		if (err)
			fprintf(stderr, "profile: cannot give pid %d a generation before sampling: %s\n",
				(int)o->pids[i], strerror(-err));
	}
}

/* Open, configure and load s->obj, preallocated where it must. Prints one line on failure. */
static int load_object(struct sampler *s)
{
	char why[256];
	uint64_t t0;
	int err = 0;

	/*
	 * --off-cpu loads no perf_event program to refuse unpreallocated maps
	 * on an old kernel, but its sched_switch program must not allocate there
	 */
	int first = s->opts.off_cpu && !bpf_features__alloc_in_any_context();

	for (int prealloc = first; prealloc < 2; prealloc++) {
		err = open_configured(s, prealloc);
		if (err) {
			fprintf(stderr, "profile: cannot open BPF object: %s\n", strerror(-err));
			return err;
		}
		t0 = monotonic_ns();
		err = profile_bpf__load(s->obj);
		s->load_ns = monotonic_ns() - t0;
		if (!err || err == -EPERM || err == -EACCES)
			break;
		profile_bpf__destroy(s->obj);
		s->obj = NULL;
	}
	if (err) {
		const struct bpf_feature *missing = NULL;

		/* refused for want of privilege, or maybe for want of a feature */
		if (err != -EPERM && !(err == -EACCES && geteuid()))
			missing = bpf_features__missing(bpf_features__probe);
		if (missing) {
			fprintf(stderr, "profile: this kernel lacks %s (needs Linux %s or later)\n",
				missing->name, missing->since);
			return err;
		}
		diagnose__load_error(err, why, sizeof(why));
		fprintf(stderr, "profile: cannot load BPF program: %s\n", why);
	}
	return err;
}

/* --call-graph dwarf where the kernel can: else a note, and frame pointers. */
static bool want_dwarf(const struct sampler_opts *o)
{
	const struct bpf_feature *missing;

	if (!o->dwarf || o->kernel_only)
		return false;
	missing = bpf_features__missing_for_unwind(bpf_features__probe);
	if (missing) {
		if (!o->quiet)
			fprintf(stderr, "profile: this kernel lacks %s (Linux %s): user stacks by frame pointers only\n",
				missing->name, missing->since);
		return false;
	}
	if (!bpf_features__kernel_btf("/sys")) {
		if (!o->quiet)
			fprintf(stderr, "profile: this kernel has no BTF (no /sys/kernel/btf/vmlinux): user stacks by frame pointers only\n");
		return false;
	}
	return true;
}

/* Python frames where the kernel can: else a note, and none. */
static bool want_python(const struct sampler_opts *o)
{
	const struct bpf_feature *missing;

	if (o->kernel_only)
		return false;
	missing = bpf_features__missing_for_python(bpf_features__probe);
	if (missing) {
		if (!o->quiet)
			fprintf(stderr, "profile: this kernel lacks %s (Linux %s): no Python frames\n",
				missing->name, missing->since);
		return false;
	}
	return true;
}

int sampler__verified(const struct sampler *s, const struct bpf_program *prog, uint32_t *insns,
		      uint64_t *load_ns)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	*load_ns = s->load_ns;
	*insns = 0;
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*insns = info.verified_insns;
	return 0;
}

void sampler__map_entries(const struct sampler *s, struct map_set_sizes *sz, uint32_t *rows)
{
	sz->stacks = bpf_map__max_entries(s->sets[0].stackmap);
	sz->counts = bpf_map__max_entries(s->sets[0].counts);
	sz->overflow = bpf_map__max_entries(s->sets[0].overflow);
	*rows = bpf_map__max_entries(s->obj->maps.unwind_rows);
}

struct bpf_program *sampler__prog(const struct sampler *s)
{
	if (s->dwarf)
		return s->obj->progs.do_sample_unwind;
	return s->python ? s->obj->progs.do_sample_python : s->obj->progs.do_sample;
}

struct sampler *sampler__load(const struct sampler_opts *opts)
{
	struct sampler *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "profile: out of memory\n");
		errno = ENOMEM;
		return NULL;
	}
	s->opts = *opts;
	pthread_mutex_init(&s->watch_lock, NULL);
	s->dwarf = want_dwarf(opts);
	/* the walk by tables needs what Python frames need */
	s->python = opts->python && (s->dwarf || want_python(opts));
	err = load_object(s);
	if (!err)
		err = fill_filters(s);
	if (err)
		goto fail;
	seed_gens(s);
	/*
	 * Now, before the -p targets are looked at and sampled: an exec
	 * after this look gives a new generation, and deletes what the look
	 * published for the image it replaced.
	 */
	sampler__attach_gens(s);
	sampler__attach_follow(s);
	s->rb = ring_buffer__new(bpf_map__fd(s->obj->maps.new_pids), on_new_pid, s, NULL);
	err = s->rb ? 0 : -errno;
	if (!err && s->python)
		err = ring_buffer__add(s->rb, bpf_map__fd(s->obj->maps.py_names), on_py_name, s);
	if (!err)
		err = map_drain__init(&s->drain, opts->max_stack_depth);
	if (!err)
		err = sampler__offcpu_setup(s);
	if (err) {
		fprintf(stderr, "profile: cannot set up the sampler: %s\n", strerror(-err));
		goto fail;
	}
	return s;
fail:
	sampler__free(s);
	errno = -err;
	return NULL;
}

int sampler__unwind_maps(struct sampler *s, int *rows_fd, int *procs_fd, int *big_fd)
{
	if (!s->dwarf)
		return -ENOTSUP;
	*rows_fd = bpf_map__fd(s->obj->maps.unwind_rows);
	*procs_fd = bpf_map__fd(s->obj->maps.unwind_procs);
	*big_fd = bpf_map__fd(s->obj->maps.unwind_procs_big);
	return 0;
}

volatile uint64_t *sampler__unwind_rows_epoch(struct sampler *s)
{
	return s->dwarf ? (volatile uint64_t *)&s->obj->bss->rows_epoch : NULL;
}

int sampler__python_maps(struct sampler *s, int *procs_fd, volatile uint64_t **procs_epoch)
{
	if (!s->python)
		return -ENOTSUP;
	*procs_fd = bpf_map__fd(s->obj->maps.py_procs);
	*procs_epoch = (volatile uint64_t *)&s->obj->bss->py_epoch;
	return 0;
}

void sampler__on_py_names(struct sampler *s, int (*fn)(const void *data, size_t size, void *ctx),
			  void *ctx)
{
	s->py_name_fn = fn;
	s->py_name_ctx = ctx;
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	sampler__detach(s);
	for (int i = 0; i < s->nr_watch; i++)
		bpf_link__destroy(s->watch[i]);
	pthread_mutex_destroy(&s->watch_lock);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->follow_exit_link);
	ring_buffer__free(s->rb);
	profile_bpf__destroy(s->obj);
	map_drain__release(&s->drain);
	offcpu_drain__free(s->offcpu);
	free(s);
}

/* Wait until no program started before now is still running. */
static int wait_for_programs(struct sampler *s)
{
	int inner = bpf_map__fd(s->obj->maps.barrier_inner);
	__u32 zero = 0;

	/* the kernel waits for an RCU grace period after a map-in-map update */
	return bpf_map_update_elem(bpf_map__fd(s->obj->maps.barrier), &zero, &inner, BPF_ANY) ? -errno : 0;
}

/*
 * Move the set of flip seq into agg and empty it. No program may be
 * writing to it. With carry, the off-CPU waits under way that began in
 * its time are carried past it (offcpu_drain.h).
 */
static int drain_set(struct sampler *s, __u32 seq, bool carry, struct agg *agg)
{
	const struct map_set *set = &s->sets[seq & 1];
	struct map_set_fds fds = {
		.counts = bpf_map__fd(set->counts),
		.stackmap = bpf_map__fd(set->stackmap),
		.overflow = bpf_map__fd(set->overflow),
		.pending = bpf_map__fd(set->pending),
	};

	if (s->offcpu) {
		offcpu_drain__next(s->offcpu, seq, carry);
		fds.settle = offcpu_drain__settle;
		fds.settle_ctx = s->offcpu;
	}
	return map_drain__set(&s->drain, &fds, agg);
}

int sampler__drain(struct sampler *s, struct agg *agg)
{
	__u32 old = s->obj->bss->active;
	uint64_t flip = monotonic_ns();
	int err;

	if (s->nr_links || s->switch_link) {
		s->obj->bss->active = old + 1;
		err = wait_for_programs(s);
		if (err)
			return err;
		/* from the last flip to the end of the programs still in flight */
		agg__set_window(agg, s->last_flip_ns, monotonic_ns());
		s->last_flip_ns = flip;
		return drain_set(s, old, true, agg);
	}
	agg__set_window(agg, s->last_flip_ns, flip);
	/* not sampling: both sets are still; no wait under way will end */
	err = drain_set(s, old, false, agg);
	return err ? err : drain_set(s, old - 1, false, agg);
}

int sampler__stats(struct sampler *s, uint64_t totals[STAT_MAX])
{
	int nr_cpus = libbpf_num_possible_cpus();
	__u64 *vals;

	memset(totals, 0, STAT_MAX * sizeof(*totals));
	if (nr_cpus <= 0)
		return -EINVAL;
	vals = calloc(nr_cpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (__u32 i = 0; i < STAT_MAX; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(s->obj->maps.stats), &i, vals))
			continue;
		for (int c = 0; c < nr_cpus; c++)
			totals[i] += vals[c];
	}
	free(vals);
	return 0;
}

int sampler__new_pids_fd(struct sampler *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

uint32_t sampler__pid_gen(struct sampler *s, pid_t pid)
{
	struct pid_gen g;
	__u32 key = pid;

	if (bpf_map_lookup_elem(bpf_map__fd(s->obj->maps.pid_gen), &key, &g))
		return 0;
	return g.gen;
}

int sampler__forget_exited(struct sampler *s)
{
	int fd = bpf_map__fd(s->obj->maps.pid_gen);
	__u32 key, next, *prev = NULL, *dead = NULL;
	size_t nr = 0, cap = 0;
	int err = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		/* ESRCH only once reaped: before that the pid cannot be reused */
		if (kill((pid_t)key, 0) == 0 || errno != ESRCH)
			continue;
		if (array_reserve((void **)&dead, &cap, nr, sizeof(*dead))) {
			err = -ENOMEM;
			break;
		}
		dead[nr++] = key;
	}
	/* deleted after the walk: a deleted key restarts it from the start */
	for (size_t i = 0; i < nr; i++)
		bpf_map_delete_elem(fd, &dead[i]);
	/* the CPUs' copies of them are stale (gen_cache in profile.bpf.c) */
	if (nr)
		__atomic_fetch_add(&s->obj->bss->gen_epoch, 1, __ATOMIC_SEQ_CST);
	free(dead);
	return err;
}

int sampler__consume_new_pids(struct sampler *s, sampler_new_pid_fn fn, void *ctx)
{
	int n;

	s->new_pid_fn = fn;
	s->new_pid_ctx = ctx;
	n = ring_buffer__consume(s->rb);
	return n < 0 ? n : 0;
}
