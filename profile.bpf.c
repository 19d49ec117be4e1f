// SPDX-License-Identifier: GPL-2.0
/*
 * profile.bpf.c - the sampling side: runs on every perf event sample, applies
 * the filters and counts the sample under (pid, tid, comm, cgroup, kernel
 * stack, user stack). Nothing per sample crosses to userspace.
 *
 * The count hash, stack map and overflow hash come in two sets; "active"
 * says which one samples go to. Userspace flips it, waits for programs in
 * flight (an update of the "barrier" map-in-map waits for an RCU grace
 * period), then reads and clears the other set: periodic drains and
 * interval profiles lose no sample and never read a map being written.
 *
 * Every sampled process has a generation (profile.h): a new one when it
 * execs (the sched_process_exec tracepoint) and when its pid is reused
 * (the entry is deleted when the process exits). The first sample of a
 * generation is announced through the "new_pids" ring buffer so userspace
 * reads its mappings while they are the ones the samples were taken in.
 *
 * Past 600 lines on purpose: the BPF object is one compilation unit. This
 * file holds its maps and what every program shares (filters, generations,
 * the count and its overflow path); the parts with a concern of their own
 * are the headers it includes (python/python.bpf.h, unwind/user_stack.bpf.h,
 * collect/offcpu.bpf.h), which build on those maps.
 */
/*
 * The UAPI headers and libbpf's are all it needs: it reads no kernel
 * structure (no CO-RE), so it is built without the kernel's BTF.
 */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/errno.h>
#include <bpf/bpf_helpers.h>
#include "profile.h"
#include "common/fnv.h"
#include "unwind/unwind_row.h"

/* Set by userspace between open and load. */
const volatile bool kernel_stacks_only = false;
const volatile bool user_stacks_only = false;
const volatile bool include_idle = false;
const volatile bool filter_by_pid = false;
/* the whole system but profile itself, unless --include-self: its pid, else 0 */
const volatile __u32 self_pid = 0;
const volatile bool filter_by_tid = false;
const volatile bool key_by_tid = false;
const volatile bool track_gens = false;	/* user stacks are taken */
const volatile __u32 stack_depth = 127;	/* frames per stack */
const volatile __u32 nr_cpus = 1;	/* possible CPUs */
const volatile bool dwarf_unwind = false;	/* user stacks by unwind tables where loaded */
const volatile bool follow_forks = false;	/* -- CMD: what pids' processes fork joins pids */
const volatile bool key_by_cgroup = false;	/* --by-container */
const volatile __u32 nr_cgroup_filters = 0;	/* --cgroup: the entries of cgroup_filter */
const volatile bool offcpu_enabled = false;	/* --off-cpu, --wall: collect/offcpu.bpf.h */

/*
 * Written by userspace while running: the flips so far; samples go to
 * set active & 1 (a count, so that off-CPU time knows whether a flip
 * came since its stacks were kept: collect/offcpu.bpf.h).
 */
volatile __u32 active = 0;
/*
 * Moved on at every change to an entry of pid_gen but its making (exec,
 * exit, userspace's sweep), after it: a CPU's copy of an entry (gen_cache)
 * is good while it has not moved since the copy's lookup.
 */
volatile __u64 gen_epoch = 0;

/* Sizes of everything below marked "set" are set by userspace before load. */
#define STACK_MAP(name)							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);			\
		__uint(key_size, sizeof(__u32));			\
	} name SEC(".maps")

/* Stacks the stack map could not keep, keyed by a hash of their frames;
 * not preallocated, so they cost memory only when stacks collide. */
#define OVERFLOW_MAP(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__uint(key_size, sizeof(__u64));			\
		__uint(value_size, sizeof(__u64));	/* set */	\
		__uint(max_entries, 1);			/* set */	\
	} name SEC(".maps")

#define COUNT_MAP(name)							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, struct profile_key);			\
		__type(value, __u64);					\
	} name SEC(".maps")

STACK_MAP(stackmap0);
STACK_MAP(stackmap1);
OVERFLOW_MAP(overflow0);
OVERFLOW_MAP(overflow1);
COUNT_MAP(counts0);
COUNT_MAP(counts1);

#define PENDING_MAP(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, 1);					\
		__type(key, __u32);					\
		__type(value, struct count_cache);			\
	} name SEC(".maps")

PENDING_MAP(pending0);
PENDING_MAP(pending1);

/* A stack_depth * 8 buffer per CPU (value_size set by userspace). */
#define FRAME_BUFFER(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(key_size, sizeof(__u32));			\
		__uint(value_size, sizeof(__u64));			\
		__uint(max_entries, 1);					\
	} name SEC(".maps")

/* For bpf_get_stack(). */
FRAME_BUFFER(scratch);
/* For the frames the unwinder walks (the kernel stack may use scratch). */
FRAME_BUFFER(unwind_frames);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_FILTER_IDS);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_FILTER_IDS);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

/*
 * --cgroup: the cgroup v2 directories whose tasks (and their
 * descendants') are sampled, as fds put in by userspace.
 * bpf_current_task_under_cgroup() is a plain helper (Linux 4.9): no task
 * field is read here.
 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);			/* set */
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

static __always_inline bool in_cgroups(void)
{
	for (__u32 i = 0; i < MAX_CGROUP_FILTERS; i++) {
		if (i >= nr_cgroup_filters)
			break;
		if (bpf_current_task_under_cgroup(&cgroup_filter, i) == 1)
			return true;
	}
	return false;
}

/*
 * -- CMD: the tasks a process in pids forked, until their process is
 * first seen (sampled, or forking in turn) and joins pids, or they exit.
 * A task is known by the address of its task_struct, an opaque key that
 * bpf_get_current_task() gives in the task and the fork tracepoint's
 * argument in its parent: nothing of the task is read (no CO-RE). The
 * key is deleted when the task exits, before the address can be reused.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);			/* set */
	__type(key, __u64);
	__type(value, __u8);
} forked SEC(".maps");

/*
 * The generation of every sampled process that is alive, by pid; its
 * entry goes when the process exits, so the map holds live processes
 * only. When it is full, samples are counted under generation 0 and their
 * mappings are read when the profile is printed.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_PID_GENS);
	__type(key, __u32);
	__type(value, struct pid_gen);
} pid_gen SEC(".maps");

/*
 * Generation numbers are handed out per CPU, seq * nr_cpus + cpu, so that
 * no atomic fetch (BPF v3, kernel 5.12) is needed and none repeats for a pid.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gen_seq SEC(".maps");

static __always_inline __u32 next_gen(void)
{
	__u32 zero = 0, *seq = bpf_map_lookup_elem(&gen_seq, &zero);

	if (!seq)
		return 0;
	*seq += 1;
	return *seq * nr_cpus + bpf_get_smp_processor_id();
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} new_pids SEC(".maps");

/* Every loaded file's unwind rows, written by userspace in batches. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* set */
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, UNWIND_MAX_PROCS);		/* set */
	__type(key, __u32);
	__type(value, struct unwind_proc);
} unwind_procs SEC(".maps");

/* The mappings of the processes with more than an entry holds (profile.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, UNWIND_MAX_BIG_PROCS);	/* set */
	__type(key, __u32);
	__type(value, struct unwind_proc_big);
} unwind_procs_big SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Userspace updates this map-in-map only to wait for programs in flight. */
struct barrier_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} barrier_inner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct barrier_inner);
} barrier SEC(".maps") = {
	.values = { &barrier_inner },
};

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;	/* per-CPU slot: no atomics needed */
}

static __always_inline void stat_inc(__u32 idx)
{
	stat_add(idx, 1);
}

/*
 * Keys an overflow stack may take: its hash (made odd) and the next odd
 * ones. A user picks their own frames, so different stacks with the same
 * hash are easy to make (FNV-1a per word is invertible): a stack whose
 * keys all hold other stacks is lost and counted, never merged into one.
 */
#define OVERFLOW_PROBES 4

/*
 * Whether the stack kept in set's overflow hash under h has the frames of
 * the stack buffer (scratch_buf: scratch, else unwind_frames): all
 * stack_depth words, as both were zero-filled past their end. Stopping at
 * the end of a stack would compare fewer words, but that exit on every
 * word doubles the verifier's work, and this only runs on the slow path.
 * A global function, verified once: inlined, its loop was verified at
 * each of its uses (a sixth of the program's verification).
 */
__noinline int same_stack_kept(int set, __u64 h, int scratch_buf)
{
	__u64 *a = bpf_map_lookup_elem(set ? (void *)&overflow1 : (void *)&overflow0, &h);
	__u32 zero = 0, depth = stack_depth;
	__u64 *b = bpf_map_lookup_elem(scratch_buf ? (void *)&scratch : (void *)&unwind_frames,
				       &zero);
	__u64 diff = 0;

	if (!a || !b)
		return 0;
	for (__u32 i = 0; i < MAX_STACK_DEPTH_LIMIT; i++) {
		if (i >= depth)
			break;
		diff |= a[i] ^ b[i];
	}
	return !diff;
}

/* The 64-bit FNV-1a hash of the n frames in buf, made odd: never 0 ("no overflow stack"). */
static __always_inline __u64 stack_hash(const __u64 *buf, __u32 n)
{
	__u64 h = FNV64_OFFSET;

	for (__u32 i = 0; i < MAX_STACK_DEPTH_LIMIT; i++) {
		if (i >= stack_depth || i >= n)
			break;
		h = fnv64_step(h, buf[i]);
	}
	return h | 1;
}

/*
 * Keep the frames in buf (zero-filled past their end to stack_depth) in the overflow
 * hash under h, their stack_hash(), or under one of the next
 * OVERFLOW_PROBES - 1 keys when other stacks hold the first ones: a stack
 * found under a key is reused only if its frames are the same. Returns
 * the key, or 0 (never a key) when the stack was kept nowhere.
 */
static __always_inline __u64 store_in_overflow(void *overflow, int set, __u64 *buf,
					       int scratch_buf, __u64 h)
{
	__u64 *old;

	/* odd keys, h += 2: no branch to verify */
	for (__u32 p = 0; p < OVERFLOW_PROBES; p++, h += 2) {
		old = bpf_map_lookup_elem(overflow, &h);
		if (!old) {
			long err = bpf_map_update_elem(overflow, &h, buf, BPF_NOEXIST);

			if (!err)
				return h;
			/*
			 * Full. A stack goes under a later key only when
			 * this one is taken, and keys are freed only with
			 * the whole map (userspace drains it): this stack
			 * is under no later key either.
			 */
			if (err != -EEXIST)
				return 0;
			/* another CPU stored a stack here first: maybe this one */
			old = bpf_map_lookup_elem(overflow, &h);
			if (!old)
				return 0;
		}
		if (same_stack_kept(set, h, scratch_buf))
			return h;
	}
	return 0;
}

/*
 * The per-CPU buffer of a stack: the frames a walk put in unwind_frames,
 * or (scratch) those bpf_get_stack() took.
 */
static __always_inline __u64 *stack_buffer(int scratch_buf)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(scratch_buf ? (void *)&scratch : (void *)&unwind_frames, &zero);
}

/*
 * The hash of the first n frames of a stack buffer, and the stack kept in
 * set's overflow hash under its hash h (store_in_overflow()): global
 * functions, verified once each rather than at every place and state
 * they are used in (their loops over the frames were a third of the
 * program's verification, paid at every start).
 */
__noinline __u64 frames_hash(int scratch_buf, __u32 n)
{
	__u64 *buf = stack_buffer(scratch_buf);

	return buf ? stack_hash(buf, n) : 1;
}

__noinline __u64 overflow_keep(int set, int scratch_buf, __u64 h)
{
	__u64 *buf = stack_buffer(scratch_buf);

	if (!buf)
		return 0;
	return set ? store_in_overflow(&overflow1, 1, buf, scratch_buf, h)
		   : store_in_overflow(&overflow0, 0, buf, scratch_buf, h);
}

/*
 * Take the stack again with bpf_get_stack() and keep it in set's overflow
 * hash. Runs only when the stack map refused the stack.
 */
static __always_inline __u64 keep_in_overflow(void *ctx, int set, __u64 flags)
{
	__u32 zero = 0, bytes = stack_depth * sizeof(__u64);
	__u64 *buf;
	long n;

	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return 0;
	n = bpf_get_stack(ctx, buf, bytes, flags);	/* zero-fills the rest */
	/* less than a frame is no stack */
	if (n < (long)sizeof(__u64))
		return 0;
	return overflow_keep(set, 1, frames_hash(1, n / sizeof(__u64)));
}

/*
 * A stack id for the key: from the stack map, else the overflow hash.
 * -EFAULT only means "no such stack here" (a kernel thread has no user
 * stack, a sample in user mode no kernel stack) and is no loss.
 */
static __always_inline __s32 get_stack(void *ctx, void *stackmap, int set, __u64 flags,
				       __u64 *overflow_key, __u32 stat)
{
	long id = bpf_get_stackid(ctx, stackmap, flags);

	if (id >= 0 || id == -EFAULT)
		return id;
	*overflow_key = keep_in_overflow(ctx, set, flags);
	if (*overflow_key) {
		stat_inc(stat);		/* STAT_xSTACK_OVERFLOW */
		return STACK_ID_OVERFLOW;
	}
	stat_inc(stat + 1);		/* STAT_xSTACK_LOST */
	return id;
}

/*
 * Whether process pid is profiled: in pids, or (-- CMD) the current task
 * was forked by one that is, and its process joins pids now.
 */
static __always_inline bool followed(__u32 pid)
{
	static const __u8 one = 1;
	__u64 task;

	if (bpf_map_lookup_elem(&pids, &pid))
		return true;
	if (!follow_forks)
		return false;
	task = bpf_get_current_task();
	if (!bpf_map_lookup_elem(&forked, &task))
		return false;
	bpf_map_delete_elem(&forked, &task);
	if (bpf_map_update_elem(&pids, &pid, &one, BPF_ANY)) {
		stat_inc(STAT_FOLLOW_LOST);
		return false;
	}
	return true;
}

/* the reads of the stack by blocks, which the Python walk shares (python.bpf.h) */
#include "unwind/stack_read.bpf.h"
#include "python/python.bpf.h"
#include "unwind/user_stack.bpf.h"

/*
 * The user stack: the n frames unwind_user() walked (n >= 0), by their
 * hash (see count()); else (n < 0) by frame pointers (bpf_get_stackid).
 */
static __always_inline __s32 user_stack(void *ctx, struct profile_key *key, void *stackmap, int set,
					int n)
{
	if (n < 0)
		return get_stack(ctx, stackmap, set, BPF_F_USER_STACK, &key->user_overflow,
				 STAT_USTACK_OVERFLOW);
	if (!n)
		return -EFAULT;
	key->user_overflow = frames_hash(0, n);
	return STACK_ID_OVERFLOW;
}

/*
 * Keep the walked stack of the key (its frames in unwind_frames, the
 * first n of them set) in set's overflow hash, and set the key to where
 * it went: its hash, a later probe, or no user stack (-ENOSPC) when it
 * was kept nowhere. A global function: verified once, not at each state
 * count() reaches it in.
 */
__noinline int keep_walked(struct profile_key *key, int set, int n)
{
	__u32 zero = 0;
	__u64 *frames = bpf_map_lookup_elem(&unwind_frames, &zero);

	if (!key || !frames)
		return 0;
	/* what the overflow hash compares and keeps: stack_depth words */
	for (__u32 k = 0; k < MAX_STACK_DEPTH_LIMIT; k++) {
		__u64 i = (__u64)(__u32)n + k;

		if (i >= stack_depth || i >= MAX_STACK_DEPTH_LIMIT)
			break;
		/* indexed after the test: no pointer walked ahead of it */
		barrier_var(i);
		frames[i] = 0;
	}
	key->user_overflow = overflow_keep(set, 0, key->user_overflow);
	if (!key->user_overflow) {
		key->user_stack_id = -ENOSPC;
		stat_inc(STAT_USTACK_LOST);
	}
	return 0;
}

/*
 * The generation of a process, created at its first sample. No task fields
 * are read: the program has no CO-RE relocations, so libbpf never parses
 * the kernel's BTF (that alone would cost ~10 MiB and tens of ms).
 */
static __always_inline struct pid_gen *gen_of(__u32 pid)
{
	struct pid_gen *g = bpf_map_lookup_elem(&pid_gen, &pid), fresh = {};

	if (g)
		return g;
	fresh.gen = next_gen();
	/* a concurrent first sample on another CPU may win: use its entry */
	bpf_map_update_elem(&pid_gen, &pid, &fresh, BPF_NOEXIST);
	g = bpf_map_lookup_elem(&pid_gen, &pid);
	if (!g)
		stat_inc(STAT_GEN_FULL);
	return g;
}

/*
 * The generations this CPU looked up last, by pid, in a slot the pid
 * picks: most samples' need no lookup in pid_gen (misses at every
 * sample). A copy is used only while gen_epoch is what it was before the
 * copy's lookup.
 */
#define GEN_CACHE_SLOTS 64

struct gen_slot {
	__u32 pid, gen;
	__u64 epoch;
};

struct gen_cache {
	struct gen_slot s[GEN_CACHE_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gen_cache);
} gen_cache SEC(".maps");

/* The generation of pid (gen_of()), from this CPU's copy where it is good; 0: none. */
static __always_inline __u32 gen_number(__u32 pid)
{
	__u64 epoch = gen_epoch;
	struct gen_cache *c;
	struct gen_slot *s;
	struct pid_gen *g;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&gen_cache, &zero);
	s = c ? &c->s[pid & (GEN_CACHE_SLOTS - 1)] : NULL;
	if (s && s->gen && s->pid == pid && s->epoch == epoch)
		return s->gen;
	g = gen_of(pid);
	if (!g)
		return 0;
	if (s) {
		s->pid = pid;
		s->gen = g->gen;
		s->epoch = epoch;
	}
	return g->gen;
}

/*
 * Tell userspace about a generation at its first sample, and again at new
 * stacks after a delay that grows x4 each time (profile.h). Two CPUs may
 * both announce it: reading the mappings twice is harmless.
 */
static __always_inline void announce(__u32 pid, struct pid_gen *g)
{
	struct new_pid_event *e;
	__u64 now = bpf_ktime_get_ns();
	__u32 shift;

	if (g->announced && now < g->next_ns)
		return;
	e = bpf_ringbuf_reserve(&new_pids, sizeof(*e), 0);
	if (!e) {
		/* the next new stack of it tries again */
		stat_inc(STAT_NEW_PID_LOST);
		return;
	}
	shift = 2 * g->announced;
	if (shift > ANNOUNCE_MAX_SHIFT)
		shift = ANNOUNCE_MAX_SHIFT;
	g->next_ns = now + (ANNOUNCE_FIRST_NS << shift);
	g->announced++;
	e->pid = pid;
	e->gen = g->gen;
	e->kind = NEW_PID_GEN;
	e->uid = (__u32)bpf_get_current_uid_gid();
	bpf_ringbuf_submit(e, 0);
}

/* The slot of key in a count cache (profile.h): its words but comm's, hashed. */
static __always_inline __u32 count_slot_of(const struct profile_key *key)
{
	const __u64 *w = (const void *)key;
	__u64 h = FNV64_OFFSET;

	for (int i = 0; i < 6; i++)
		h = fnv64_step(h, w[i]);
	return (h >> 32) & (COUNT_CACHE_SLOTS - 1);
}

static __always_inline bool same_key(const struct profile_key *a, const struct profile_key *b)
{
	const __u64 *x = (const void *)a, *y = (const void *)b;
	__u64 diff = 0;

	for (int i = 0; i < sizeof(*a) / 8; i++)
		diff |= x[i] ^ y[i];
	return !diff;
}

/* Add n samples of key to the count hash. 0, or -errno when it is full. */
static __always_inline long add_count(void *counts, const struct profile_key *key, __u64 n)
{
	__u64 *val = bpf_map_lookup_elem(counts, key);
	long err;

	if (val) {
		__sync_fetch_and_add(val, n);
		return 0;
	}
	err = bpf_map_update_elem(counts, key, &n, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* another CPU inserted the same key first */
		val = bpf_map_lookup_elem(counts, key);
		if (val) {
			__sync_fetch_and_add(val, n);
			return 0;
		}
	}
	return err;
}

/* Where what the count hash could not take is counted: samples, or ns off CPU. */
static __always_inline __u32 lost_stat(const struct profile_key *key)
{
	return offcpu_enabled && (key->flags & KEY_OFF_CPU) ? STAT_OFFCPU_LOST_NS : STAT_HASH_FULL;
}

/*
 * Add weight to key, whose stacks are taken: 1 for a sample, the ns a
 * thread was off the CPU, or 0 where it leaves the CPU (its key counted
 * with nothing yet: its stack kept, its generation announced). A walked
 * user stack (walked >= 0, kept false) is known in the key by the hash
 * of its frames; it is kept in the overflow hash, and its frames
 * compared with the stack kept under that hash, only when its key is not
 * counted yet: a key of a process's generation was made by a stack of
 * that process compared frame by frame, so a later stack of the same
 * hash that is not the same can only be one the process made to collide
 * with its own (FNV-1a is easy to invert), which misleads its own
 * profile only, as its stack's contents can anyway. Without a generation
 * (0: the pid_gen map was full), pids reused would share keys: compared
 * every time. A key this CPU counted last is counted in its slot of the
 * set's pending counts (profile.h), without a lookup in the count hash.
 */
static __always_inline void tally(struct profile_key *key, void *counts, void *pending, int set,
				  int walked, bool kept, bool mapped, __u64 weight)
{
	struct pid_gen *g = NULL;
	struct count_cache *cache;
	struct count_slot *slot;
	__u32 zero = 0;
	__u64 *val;
	long err;

	/* a key in its slot: its stack was kept when it went there */
	cache = kept || key->gen ? bpf_map_lookup_elem(pending, &zero) : NULL;
	slot = cache ? &cache->s[count_slot_of(key)] : NULL;
	if (slot && slot->used && same_key(&slot->key, key)) {
		slot->n += weight;	/* per CPU: no atomics */
		return;
	}

	val = kept || key->gen ? bpf_map_lookup_elem(counts, key) : NULL;
	if (!val && !kept) {
		/* a new key, or one under a later probe: compared and kept */
		keep_walked(key, set, walked);
		val = bpf_map_lookup_elem(counts, key);
	}
	if (val) {
		if (weight)
			__sync_fetch_and_add(val, weight);
	} else {
		/* a new key: the only time a new generation can show up */
		g = key->gen ? bpf_map_lookup_elem(&pid_gen, &key->pid) : NULL;
		/*
		 * again only for a stack the mappings read may not hold: one
		 * that held a frame in none of them asked for a reading itself
		 */
		if (g && g->gen == key->gen && !(mapped && g->announced))
			announce(key->pid, g);
		err = add_count(counts, key, weight);
		if (err) {
			stat_add(lost_stat(key), weight);
			return;
		}
	}
	/* without a generation a walked stack is compared at every sample: no slot */
	if (!slot)
		return;
	/* the key in the slot goes to the count hash, this one takes its place */
	if (slot->used && slot->n && add_count(counts, &slot->key, slot->n))
		stat_add(lost_stat(&slot->key), slot->n);
	__builtin_memcpy(&slot->key, key, sizeof(*key));
	slot->n = 0;
	slot->used = 1;
}

/*
 * Take the stacks of the sample (or of the thread leaving the CPU) into
 * key, and add weight to it (tally()).
 */
static __always_inline void count(void *ctx, struct profile_key *key, void *counts, void *stackmap,
				  void *pending, int set, int walked, __u64 weight)
{
	bool kept = walked <= 0, mapped = key->flags & KEY_USER_MAPPED;

	key->flags &= ~KEY_USER_MAPPED;
	key->kern_stack_id = user_stacks_only ? -1 :
		get_stack(ctx, stackmap, set, 0, &key->kern_overflow, STAT_KSTACK_OVERFLOW);
	key->user_stack_id = kernel_stacks_only ? -1 :
		user_stack(ctx, key, stackmap, set, walked);
	/* without a user stack (a kernel thread, -K) there are no mappings */
	if (track_gens && key->pid &&
	    (key->user_stack_id >= 0 || key->user_stack_id == STACK_ID_OVERFLOW))
		key->gen = gen_number(key->pid);
	if (key->user_stack_id != STACK_ID_OVERFLOW)
		kept = true;
	tally(key, counts, pending, set, walked, kept, mapped, weight);
}

/*
 * Count the sample with key in map set `set` (0 or 1), its user stack the
 * n frames walked (n >= 0) or by frame pointers. A global function:
 * verified once, not at each of the states the walks leave.
 */
__noinline int count_in(struct bpf_perf_event_data *ctx, struct profile_key *key, int walked,
			int set)
{
	if (!ctx || !key)
		return 0;
	if (set)
		count(ctx, key, &counts1, &stackmap1, &pending1, 1, walked, 1);
	else
		count(ctx, key, &counts0, &stackmap0, &pending0, 0, walked, 1);
	return 0;
}

/*
 * The same for a thread leaving the CPU (collect/offcpu.bpf.h): its key
 * made and counted with nothing yet. Its own function, as a global
 * function's context is of one program type.
 */
__noinline int count_in_switch(struct bpf_raw_tracepoint_args *ctx, struct profile_key *key,
			       int walked, int set)
{
	if (!ctx || !key)
		return 0;
	if (set)
		count(ctx, key, &counts1, &stackmap1, &pending1, 1, walked, 0);
	else
		count(ctx, key, &counts0, &stackmap0, &pending0, 0, walked, 0);
	return 0;
}

/*
 * The walks, each a global function: verified once, so that the states
 * one leaves do not multiply the work of verifying the next.
 */
__noinline int py_walk_prepare(__u32 pid, __u32 tid, __u64 sp)
{
	return py_prepare(pid, tid, sp) != NULL;
}

/* The user stack by unwind tables, with the Python frames in it where py is set. */
__noinline int walk_by_tables(struct bpf_perf_event_data *ctx, __u32 pid, __u32 *flags, int py)
{
	if (!ctx || !flags)
		return -1;
	return unwind_user(ctx, pid, flags, py);
}

/*
 * The same for a thread leaving the CPU: it is in the kernel, where
 * unwind_user() takes the user registers saved at its entry. A sample's
 * registers that say kernel mode (cs 0) make it do that; the compiler
 * folds them away.
 */
__noinline int walk_by_tables_task(__u32 pid, __u32 *flags, int py)
{
	struct bpf_perf_event_data in_kernel = {};

	if (!flags)
		return -1;
	return unwind_user(&in_kernel, pid, flags, py);
}

/* The user stack by frame pointers, with the Python frames in it. */
__noinline int walk_by_fp_py(struct bpf_perf_event_data *ctx, __u32 *flags)
{
	struct py_walk *w = py_walk_buf();

	if (!ctx || !flags || !w)
		return -1;
	return py_fp_stack(ctx, w, flags);
}

__noinline int walk_by_fp_py_switch(struct bpf_raw_tracepoint_args *ctx, __u32 *flags)
{
	struct py_walk *w = py_walk_buf();

	if (!ctx || !flags || !w)
		return -1;
	return py_fp_stack(ctx, w, flags);
}

/*
 * The key of the task on this CPU, pid and tid: false when the filters
 * leave it out (idle, -p, -L, --cgroup, profile itself).
 */
static __always_inline bool target_key(struct profile_key *key, __u32 pid, __u32 tid)
{
	if (!include_idle && tid == 0)
		return false;
	if (filter_by_pid && !followed(pid))
		return false;
	if (filter_by_tid && !bpf_map_lookup_elem(&tids, &tid))
		return false;
	if (nr_cgroup_filters && !in_cgroups())
		return false;
	if (self_pid && pid == self_pid) {
		stat_inc(STAT_SELF);
		return false;
	}
	key->pid = pid;
	key->tid = key_by_tid ? tid : 0;
	if (key_by_cgroup)
		key->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(&key->comm, sizeof(key->comm));
	return true;
}

/* The user stack pointer of a sample taken in user mode; 0 for one in the kernel. */
static __always_inline __u64 user_sp(void *ctx)
{
	const struct bpf_perf_event_data *c = ctx;

	return (c->regs.cs & 3) == 3 ? c->regs.rsp : 0;
}

/*
 * The user stack of the task on this CPU, walked once whichever map set
 * it goes to: the frames walked, or -1 (by frame pointers, at the count).
 * switched: it is leaving the CPU (ctx a raw tracepoint's), not sampled.
 */
static __always_inline int walk_user(void *ctx, __u32 pid, __u32 tid, __u32 *flags, bool unwind,
				     bool python, bool switched)
{
	bool py = false;
	int walked = -1;

	if (kernel_stacks_only)
		return -1;
	if (unwind)
		stack_block_empty();
	/*
	 * the sampled thread's stack pointer where the walk by tables will
	 * start from it (a sample in user mode), for the Python walk to read
	 * the stack's first block for it
	 */
	if (python)
		py = py_walk_prepare(pid, tid, unwind && !switched ? user_sp(ctx) : 0);
	if (unwind)
		walked = switched ? walk_by_tables_task(pid, flags, py) :
				    walk_by_tables(ctx, pid, flags, py);
	/* no tables (yet): by frame pointers, the Python frames in place */
	if (walked < 0 && py)
		walked = switched ? walk_by_fp_py_switch(ctx, flags) : walk_by_fp_py(ctx, flags);
	return walked;
}

/*
 * Count key in map set `set`, its user stack walked as walk_user() said:
 * a sample, or (switched) a thread leaving the CPU, counted with nothing.
 */
static __always_inline void count_walked(void *ctx, struct profile_key *key, int walked, int set,
					 bool walks, bool switched)
{
	if (walks && switched) {
		count_in_switch(ctx, key, walked, set);
	} else if (walks) {
		count_in(ctx, key, walked, set);
	} else if (set) {
		/* by frame pointers alone: walked is -1, which count_in() cannot know */
		count(ctx, key, &counts1, &stackmap1, &pending1, 1, walked, !switched);
	} else {
		count(ctx, key, &counts0, &stackmap0, &pending0, 0, walked, !switched);
	}
}

/*
 * The sample, with user stacks walked by unwind tables where unwind is
 * set, and Python frames in them where python is: three programs from
 * one body, so that the one loaded on a kernel without bpf_loop() (before
 * 5.17) holds no call to it (a kernel before 5.13 refuses the callback's
 * reference even in code that never runs), and the one walking by frame
 * pointers no call to what the tables' walk needs (kernel BTF).
 */
static __always_inline int sample(struct bpf_perf_event_data *ctx, bool unwind, bool python)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct profile_key key = {};
	int walked;

	if (!target_key(&key, id >> 32, (__u32)id))
		return 0;
	stat_inc(STAT_SAMPLES);
	walked = walk_user(ctx, id >> 32, (__u32)id, &key.flags, unwind, python, false);
	count_walked(ctx, &key, walked, active & 1, unwind || python, false);
	return 0;
}

SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, false, false);
}

/* --call-graph fp with Python frames: needs bpf_loop(), not kernel BTF */
SEC("perf_event")
int do_sample_python(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, false, true);
}

SEC("perf_event")
int do_sample_unwind(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, true, true);
}

/*
 * exec replaces the mappings: a sampled process gets a new generation
 * (one that was never sampled gets one at its first sample). Runs in the
 * task that exec'd, after de_thread(): the pid is the whole process's.
 */
SEC("raw_tp/sched_process_exec")
int on_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct pid_gen fresh = {};

	if (bpf_map_lookup_elem(&pid_gen, &pid)) {
		fresh.gen = next_gen();
		/* replaced whole: a sample elsewhere sees the old entry or the new one */
		if (!bpf_map_update_elem(&pid_gen, &pid, &fresh, BPF_EXIST))
			stat_inc(STAT_EXECS);
		__sync_fetch_and_add(&gen_epoch, 1);
	}
	/*
	 * And its unwind tables: userspace loads the new image's. After the
	 * new generation: a worker publishing mappings read in the old one
	 * makes its placeholder, then checks the generation (unwind_procs.c),
	 * so either it sees the new generation, or this deletes its entry.
	 */
	if (dwarf_unwind) {
		bpf_map_delete_elem(&unwind_procs, &pid);
		bpf_map_delete_elem(&unwind_procs_big, &pid);
	}
	/*
	 * Its interpreter, if it had one, was the old image's: deleted after
	 * the new generation too, for the same reason (python/py_procs.c
	 * checks the generation after it publishes).
	 */
	if (py_enabled && !bpf_map_delete_elem(&py_procs, &pid))
		__sync_fetch_and_add(&py_epoch, 1);
	return 0;
}

/*
 * The group leader exits: the pid may be reused by another process, which
 * gets a generation of its own at its first sample. (A leader that exits
 * before its threads gives them a new generation too: harmless. With
 * -- CMD it leaves pids, and its threads are not sampled after it.)
 */
SEC("raw_tp/sched_process_exit")
int on_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	if (follow_forks) {
		__u64 task = bpf_get_current_task();

		bpf_map_delete_elem(&forked, &task);
		/* the pid may be reused by another process: not ours */
		if (pid == (__u32)id)
			bpf_map_delete_elem(&pids, &pid);
	}
	if (pid == (__u32)id) {
		if (!bpf_map_delete_elem(&pid_gen, &pid))
			__sync_fetch_and_add(&gen_epoch, 1);
		/* a process that reuses the pid must not walk with these tables */
		if (dwarf_unwind) {
			bpf_map_delete_elem(&unwind_procs, &pid);
			bpf_map_delete_elem(&unwind_procs_big, &pid);
		}
		if (py_enabled && !bpf_map_delete_elem(&py_procs, &pid))
			__sync_fetch_and_add(&py_epoch, 1);
	}
	return 0;
}

/*
 * -- CMD: a process of the command forks (a process or a thread: both
 * are noted, a thread's entry goes when it exits). Runs in the parent.
 */
SEC("raw_tp/sched_process_fork")
int on_fork(struct bpf_raw_tracepoint_args *ctx)
{
	static const __u8 one = 1;
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 child = ctx->args[1];

	if (!followed(pid))
		return 0;
	if (bpf_map_update_elem(&forked, &child, &one, BPF_ANY))
		stat_inc(STAT_FOLLOW_LOST);
	return 0;
}

#include "collect/offcpu.bpf.h"

char LICENSE[] SEC("license") = "GPL";
