// SPDX-License-Identifier: GPL-2.0
/*
 * sampler.c - load, attach and drain the BPF program of profile.bpf.c.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profile.skel.h"
#include "sampler.h"
#include "trace_helpers.h"

struct map_set {
	struct bpf_map *counts, *stackmap, *overflow;
};

struct ovf_ref {
	__u64 key;
	size_t idx;		/* into ovf_stacks, in stacks */
};

struct sampler {
	const struct profile_env *env;
	struct profile_bpf *obj;
	struct bpf_link **links;
	int nr_links;
	struct bpf_link *exec_link, *exit_link;	/* generations: kept until freed */
	uint64_t last_flip_ns;	/* CLOCK_MONOTONIC: since then, samples go to the active set */
	bool hardware;
	struct map_set sets[2];
	struct ring_buffer *rb;
	void (*new_pid_fn)(pid_t pid, uint32_t gen, void *ctx);
	void *new_pid_ctx;
	/* drain buffers */
	struct profile_key *keys;
	__u64 *vals;
	size_t batch;
	uint64_t *kips, *uips;	/* a key's two stacks, stack_depth entries each */
	/* the overflow map of the set being drained: stacks and a sorted index */
	struct ovf_ref *ovf;
	uint64_t *ovf_stacks;
	size_t nr_ovf, cap_ovf;
	__u32 *stack_ids;		/* clear_stackmap()'s list */
	size_t cap_stack_ids;
};

static const char *privilege_hint(void)
{
	return geteuid() ? "run as root, or with CAP_BPF and CAP_PERFMON"
			 : "missing CAP_BPF/CAP_PERFMON, or BPF is restricted here";
}

static void size_set(const struct profile_env *env, struct map_set *set, bool used)
{
	size_t stack_bytes = env->max_stack_depth * sizeof(__u64);

	bpf_map__set_value_size(set->stackmap, stack_bytes);
	bpf_map__set_value_size(set->overflow, stack_bytes);
	if (!used) {
		/* the second set is only flipped to while draining */
		bpf_map__set_max_entries(set->stackmap, 1);
		bpf_map__set_max_entries(set->overflow, 1);
		bpf_map__set_max_entries(set->counts, 1);
		return;
	}
	bpf_map__set_max_entries(set->stackmap, env->stack_storage_size);
	/*
	 * Two stacks per count-hash entry is more than the counts can
	 * reference, so the overflow map never fills before the count hash.
	 */
	bpf_map__set_max_entries(set->overflow, 2 * env->hash_storage_size);
	bpf_map__set_max_entries(set->counts, env->hash_storage_size);
}

static int on_new_pid(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct new_pid_event *e = data;

	if (size >= sizeof(*e) && s->new_pid_fn)
		s->new_pid_fn(e->pid, e->gen, s->new_pid_ctx);
	return 0;
}

/*
 * Open and configure the skeleton. The hash maps are not preallocated, so
 * they cost memory only for what they hold; kernels before 6.1 refuse that
 * in perf_event programs, hence prealloc as the fallback.
 */
static struct profile_bpf *open_configured(struct sampler *s, bool prealloc)
{
	const struct profile_env *env = s->env;
	struct profile_bpf *obj;

	obj = profile_bpf__open();
	if (!obj)
		return NULL;
	obj->rodata->user_stacks_only = env->user_only;
	obj->rodata->kernel_stacks_only = env->kernel_only;
	obj->rodata->include_idle = env->include_idle;
	obj->rodata->filter_by_pid = env->nr_pids > 0;
	obj->rodata->filter_by_tid = env->nr_tids > 0;
	obj->rodata->key_by_tid = env->nr_tids > 0;
	obj->rodata->track_gens = !env->kernel_only;
	obj->rodata->stack_depth = env->max_stack_depth;
	obj->rodata->nr_cpus = libbpf_num_possible_cpus() > 0 ? libbpf_num_possible_cpus() : 1;
	if (env->kernel_only) {
		/* no user stacks: no mappings, no generations */
		bpf_program__set_autoload(obj->progs.on_exec, false);
		bpf_program__set_autoload(obj->progs.on_exit, false);
	}

	s->sets[0] = (struct map_set){ obj->maps.counts0, obj->maps.stackmap0, obj->maps.overflow0 };
	s->sets[1] = (struct map_set){ obj->maps.counts1, obj->maps.stackmap1, obj->maps.overflow1 };
	for (int i = 0; i < 2; i++) {
		/* both sets take samples in turn: both full size */
		size_set(env, &s->sets[i], true);
		if (prealloc) {
			bpf_map__set_map_flags(s->sets[i].counts, 0);
			bpf_map__set_map_flags(s->sets[i].overflow, 0);
			bpf_map__set_map_flags(obj->maps.pid_gen, 0);
			bpf_map__set_map_flags(obj->maps.pids, 0);
			bpf_map__set_map_flags(obj->maps.tids, 0);
			/* preallocated, the overflow map costs its full size */
			bpf_map__set_max_entries(s->sets[i].overflow, env->stack_storage_size / 4 + 1);
		}
	}
	bpf_map__set_value_size(obj->maps.scratch, env->max_stack_depth * sizeof(__u64));
	return obj;
}

struct sampler *sampler__load(const struct profile_env *env)
{
	struct profile_bpf *obj;
	struct sampler *s;
	int err = 0;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "profile: out of memory\n");
		return NULL;
	}
	s->env = env;
	for (int prealloc = 0; prealloc < 2; prealloc++) {
		s->obj = open_configured(s, prealloc);
		if (!s->obj) {
			fprintf(stderr, "profile: cannot open BPF object: %s\n", strerror(errno));
			goto fail;
		}
		err = profile_bpf__load(s->obj);
		if (!err || err == -EPERM || err == -EACCES)
			break;
		profile_bpf__destroy(s->obj);
		s->obj = NULL;
	}
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
		goto fail;
	}
	obj = s->obj;
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
	s->rb = ring_buffer__new(bpf_map__fd(obj->maps.new_pids), on_new_pid, s, NULL);
	s->batch = 4096;
	s->keys = calloc(s->batch, sizeof(*s->keys));
	s->vals = calloc(s->batch, sizeof(*s->vals));
	s->kips = calloc(env->max_stack_depth, sizeof(*s->kips));
	s->uips = calloc(env->max_stack_depth, sizeof(*s->uips));
	if (!s->rb || !s->keys || !s->vals || !s->kips || !s->uips) {
		fprintf(stderr, "profile: cannot set up the sampler: %s\n", strerror(errno ? errno : ENOMEM));
		goto fail;
	}
	return s;
fail:
	sampler__free(s);
	return NULL;
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

static long read_sysctl(const char *name)
{
	char path[256];
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return read_long_file(path, &v) ? -1 : v;
}

/*
 * The exec and exit tracepoints that keep the generations (profile.h).
 * Without them sampling still works, but a process that execs or a pid
 * that is reused is resolved against its latest image: say so, go on.
 */
static void attach_gen_tracking(struct sampler *s)
{
	struct bpf_program *progs[] = { s->obj->progs.on_exec, s->obj->progs.on_exit };
	struct bpf_link **links[] = { &s->exec_link, &s->exit_link };

	if (s->env->kernel_only)
		return;
	for (size_t i = 0; i < 2; i++) {
		*links[i] = bpf_program__attach(progs[i]);
		if (!*links[i]) {
			int err = errno;

			fprintf(stderr, "profile: cannot attach to tracepoint %s: %s; processes that exec or reuse a pid are named from their latest image\n",
				bpf_program__section_name(progs[i]) + strlen("raw_tp/"), strerror(err));
			/* half of them would leave stale generations: none at all */
			bpf_link__destroy(s->exec_link);
			s->exec_link = NULL;
			return;
		}
	}
}

/*
 * One system-wide event per online CPU (per-task events are filtered in
 * BPF instead). Hardware cycles where the machine has a PMU, else the
 * cpu-clock software event.
 */
int sampler__attach(struct sampler *s)
{
	const struct profile_env *env = s->env;
	int nr_cpus = libbpf_num_possible_cpus();
	bool *online;
	int err = 0;

	/* first, so that no exec after the first sample goes unseen */
	attach_gen_tracking(s);
	if (nr_cpus <= 0) {
		fprintf(stderr, "profile: cannot count the possible CPUs\n");
		return -EINVAL;
	}
	online = calloc(nr_cpus, sizeof(*online));
	s->links = calloc(nr_cpus, sizeof(*s->links));
	if (!online || !s->links) {
		free(online);
		fprintf(stderr, "profile: out of memory\n");
		return -ENOMEM;
	}
	if (read_online_cpus(online, nr_cpus) < 0)
		memset(online, 1, nr_cpus * sizeof(*online));

	s->hardware = true;
	s->last_flip_ns = monotonic_ns();	/* the first window opens with the first event */
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd;

		if (!online[cpu] || (env->cpu >= 0 && cpu != env->cpu))
			continue;
		fd = open_event(env, s->hardware, cpu);
		if (fd < 0 && s->hardware && fd != -ENODEV && fd != -EACCES && fd != -EPERM) {
			s->hardware = false;	/* no PMU (e.g. a VM): fall back for every CPU */
			fd = open_event(env, s->hardware, cpu);
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
	return err;
}

const char *sampler__event(const struct sampler *s)
{
	return s->hardware ? "cycles" : "cpu-clock";
}

void sampler__detach(struct sampler *s)
{
	for (int i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);	/* closes the perf event too */
	free(s->links);
	s->links = NULL;
	s->nr_links = 0;
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	sampler__detach(s);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	ring_buffer__free(s->rb);
	profile_bpf__destroy(s->obj);
	free(s->keys);
	free(s->vals);
	free(s->kips);
	free(s->uips);
	free(s->ovf);
	free(s->ovf_stacks);
	free(s->stack_ids);
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

static int ovf_cmp(const void *a, const void *b)
{
	const struct ovf_ref *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* Copy out and empty the overflow map of a set, indexed by key. */
static int take_overflow(struct sampler *s, const struct map_set *set)
{
	int fd = bpf_map__fd(set->overflow);
	size_t depth = s->env->max_stack_depth;
	__u64 key, next, *prev = NULL;

	s->nr_ovf = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (s->nr_ovf == s->cap_ovf) {
			size_t cap = s->cap_ovf ? s->cap_ovf * 2 : 256;
			struct ovf_ref *r = realloc(s->ovf, cap * sizeof(*r));
			uint64_t *v;

			if (!r)
				return -ENOMEM;
			s->ovf = r;
			v = realloc(s->ovf_stacks, cap * depth * sizeof(*v));
			if (!v)
				return -ENOMEM;
			s->ovf_stacks = v;
			s->cap_ovf = cap;
		}
		if (bpf_map_lookup_elem(fd, &key, s->ovf_stacks + s->nr_ovf * depth))
			continue;
		s->ovf[s->nr_ovf].key = key;
		s->ovf[s->nr_ovf].idx = s->nr_ovf;
		s->nr_ovf++;
	}
	for (size_t i = 0; i < s->nr_ovf; i++)
		bpf_map_delete_elem(fd, &s->ovf[i].key);
	if (s->nr_ovf)
		qsort(s->ovf, s->nr_ovf, sizeof(*s->ovf), ovf_cmp);
	return 0;
}

/* The frames of one stack of a count key, leaf first; buf holds stack-map stacks. */
static void read_stack(struct sampler *s, const struct map_set *set, __s32 id, __u64 ovf_key,
		       uint64_t *buf, struct agg_stack *out)
{
	size_t depth = s->env->max_stack_depth, n = 0;
	const uint64_t *ips = NULL;

	out->ips = NULL;
	out->nr = 0;
	if (id == STACK_ID_OVERFLOW) {
		struct ovf_ref k = { .key = ovf_key }, *r;

		r = bsearch(&k, s->ovf, s->nr_ovf, sizeof(*s->ovf), ovf_cmp);
		if (r)
			ips = s->ovf_stacks + r->idx * depth;
	} else if (!bpf_map_lookup_elem(bpf_map__fd(set->stackmap), &id, buf)) {
		ips = buf;
	}
	if (!ips) {
		out->err = -ENOENT;	/* referenced but gone: shows as missed */
		return;
	}
	while (n < depth && ips[n])
		n++;
	out->err = 0;
	out->ips = ips;
	out->nr = n;
}

static int add_key(struct sampler *s, const struct map_set *set, const struct profile_key *k,
		   __u64 count, struct agg *agg)
{
	struct agg_stack kern = {}, user = {};

	if (k->kern_stack_id >= 0 || k->kern_stack_id == STACK_ID_OVERFLOW)
		read_stack(s, set, k->kern_stack_id, k->kern_overflow, s->kips, &kern);
	else
		kern.err = agg_stack__err_of_id(k->kern_stack_id);
	if (k->user_stack_id >= 0 || k->user_stack_id == STACK_ID_OVERFLOW)
		read_stack(s, set, k->user_stack_id, k->user_overflow, s->uips, &user);
	else
		user.err = agg_stack__err_of_id(k->user_stack_id);
	return agg__add(agg, &(struct agg_key){ .pid = k->pid, .tid = k->tid, .gen = k->gen,
						.comm = k->comm },
			&kern, &user, count);
}

/*
 * Delete every stack of a stack map: list the ids, then delete them. The
 * kernel finds the key after a missing one by scanning from bucket 0, so
 * deleting while walking would be quadratic in the map's size. Where the
 * list cannot grow, the rest is deleted the slow way.
 */
static void clear_stackmap(struct sampler *s, const struct map_set *set)
{
	int fd = bpf_map__fd(set->stackmap);
	__u32 key, next, *prev = NULL;
	size_t n = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (array_reserve((void **)&s->stack_ids, &s->cap_stack_ids, n,
				  sizeof(*s->stack_ids))) {
			bpf_map_delete_elem(fd, &next);	/* restarts at 0: slow, but done */
			prev = NULL;
			continue;
		}
		s->stack_ids[n++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &s->stack_ids[i]);
}

/* Move one set into agg and empty it. No program may be writing to it. */
static int drain_set(struct sampler *s, const struct map_set *set, struct agg *agg)
{
	int fd = bpf_map__fd(set->counts);
	__u64 in, out;
	void *in_batch = NULL;
	int err;

	err = take_overflow(s, set);
	if (err)
		return err;
	for (;;) {
		__u32 n = s->batch;
		int rerr;

		rerr = bpf_map_lookup_and_delete_batch(fd, in_batch, &out, s->keys, s->vals, &n, NULL);
		if (rerr && errno != ENOENT) {
			err = -errno;
			break;
		}
		for (__u32 i = 0; i < n && !err; i++)
			err = add_key(s, set, &s->keys[i], s->vals[i], agg);
		if (err || rerr)
			break;	/* -ENOENT: that was the last batch */
		in = out;
		in_batch = &in;
	}
	clear_stackmap(s, set);
	return err;
}

int sampler__drain(struct sampler *s, struct agg *agg)
{
	__u32 old = s->obj->bss->active;
	uint64_t flip = monotonic_ns();
	int err;

	if (s->nr_links) {
		s->obj->bss->active = !old;
		err = wait_for_programs(s);
		if (err)
			return err;
		/* from the last flip to the end of the programs still in flight */
		agg__set_window(agg, s->last_flip_ns, monotonic_ns());
		s->last_flip_ns = flip;
		return drain_set(s, &s->sets[old], agg);
	}
	agg__set_window(agg, s->last_flip_ns, flip);
	/* not sampling: both sets are still */
	err = drain_set(s, &s->sets[old], agg);
	return err ? err : drain_set(s, &s->sets[!old], agg);
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
	free(dead);
	return err;
}

int sampler__consume_new_pids(struct sampler *s, void (*fn)(pid_t pid, uint32_t gen, void *ctx),
			      void *ctx)
{
	int n;

	s->new_pid_fn = fn;
	s->new_pid_ctx = ctx;
	n = ring_buffer__consume(s->rb);
	return n < 0 ? n : 0;
}
