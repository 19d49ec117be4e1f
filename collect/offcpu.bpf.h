/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu.bpf.h - the BPF side of --off-cpu and --wall, included by
 * profile.bpf.c after the sampling program: the time threads spend off
 * the CPU waiting, counted in the kernel under the same keys as samples
 * (profile.h's struct offcpu_start says how).
 *
 * One raw tracepoint, sched_switch, in the task leaving the CPU (prev):
 * its args are preempt, prev, next (task_struct pointers) and, since
 * Linux 5.18, prev_state. Nothing of a task is read: the tasks are told
 * apart by their task_struct's address, an opaque key, and prev is the
 * current task, whose pid, comm and stacks the helpers give. A task's
 * entry is made when it leaves the CPU to wait and taken when it runs
 * again, before it can exit (a task that exits leaves in TASK_DEAD,
 * which is not waiting): an address is never reused under an entry.
 *
 * Waiting is prev_state TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE (sleeps,
 * locks, I/O) without preemption; with offcpu_runnable (--include-runnable,
 * --wall) also a thread preempted, or that gave up the CPU, while runnable.
 */
#ifndef OFFCPU_BPF_H
#define OFFCPU_BPF_H

const volatile bool offcpu_runnable = false;
/* --min-block, --max-block */
const volatile __u64 min_block_ns = 0;
const volatile __u64 max_block_ns = ~0ULL;

/* The waits under way, by task (profile.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);			/* set */
	__type(key, __u64);
	__type(value, struct offcpu_start);
} offcpu_start SEC(".maps");

/* The waits that ended after a flip, for userspace to count (profile.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);			/* set */
	__type(key, struct offcpu_late_key);
	__type(value, struct offcpu_late);
} offcpu_late SEC(".maps");

/*
 * Add weight to key, taken already, in set `set`. A global function:
 * verified once.
 */
__noinline int tally_in(struct profile_key *key, int set, __u64 weight)
{
	if (!key)
		return 0;
	if (set)
		tally(key, &counts1, &pending1, 1, 0, true, false, weight);
	else
		tally(key, &counts0, &pending0, 0, 0, true, false, weight);
	return 0;
}

/* Whether a thread leaving the CPU so waits (see above). */
static __always_inline bool waiting(__u64 preempt, __u32 state)
{
	if (!preempt && (state & (OFFCPU_TASK_INTERRUPTIBLE | OFFCPU_TASK_UNINTERRUPTIBLE)))
		return true;
	return offcpu_runnable && (preempt || !state);
}

/*
 * task runs again: the time since it left goes to its key, in its set
 * while no flip came between, else to offcpu_late.
 */
static __always_inline void switch_in(__u64 task)
{
	struct offcpu_start *s = bpf_map_lookup_elem(&offcpu_start, &task);
	struct offcpu_late late = {};
	struct offcpu_late_key lk;
	__u64 off;
	__u32 seq;

	if (!s)
		return;
	off = bpf_ktime_get_ns() - s->ns;
	/* copied before the delete: a preallocated entry is reused at once */
	__builtin_memcpy(&late.key, &s->key, sizeof(late.key));
	late.seq = s->seq;
	lk.task = task;
	lk.ns = s->ns;
	bpf_map_delete_elem(&offcpu_start, &task);
	stat_add(STAT_OFFCPU_NS, off);
	if (off < min_block_ns || off > max_block_ns) {
		stat_inc(STAT_OFFCPU_FILTERED);
		stat_add(STAT_OFFCPU_FILTERED_NS, off);
		return;
	}
	seq = active;
	if (late.seq == seq) {
		tally_in(&late.key, seq & 1, off);
		return;
	}
	late.off_ns = off;
	if (bpf_map_update_elem(&offcpu_late, &lk, &late, BPF_NOEXIST))
		stat_add(STAT_OFFCPU_LOST_NS, off);
	else
		stat_inc(STAT_OFFCPU_LATE);
}

/*
 * The current task, ctx's prev, leaves the CPU in state: if it waits and
 * is profiled, its key made (stacks walked as a sample's) and counted
 * with nothing yet, and its start noted.
 */
static __always_inline void switch_out(struct bpf_raw_tracepoint_args *ctx, bool unwind,
				       bool python)
{
	__u64 id = bpf_get_current_pid_tgid(), task = ctx->args[1];
	struct offcpu_start s = {};
	int walked;

	if (!waiting(ctx->args[0], (__u32)ctx->args[3]))
		return;
	/* the idle task waits for nothing; and never with -I either */
	if ((__u32)id == 0 || !target_key(&s.key, id >> 32, (__u32)id))
		return;
	s.ns = bpf_ktime_get_ns();
	s.key.flags = KEY_OFF_CPU;
	walked = walk_user(ctx, id >> 32, (__u32)id, &s.key.flags, unwind, python, true);
	s.seq = active;
	count_walked(ctx, &s.key, walked, s.seq & 1, unwind || python, true);
	if (bpf_map_update_elem(&offcpu_start, &task, &s, BPF_ANY))
		stat_inc(STAT_OFFCPU_UNTIMED);
	else
		stat_inc(STAT_OFFCPU_BLOCKS);
}

/* Three programs from one body, as the sampling program's (sample()). */
static __always_inline int on_switch_body(struct bpf_raw_tracepoint_args *ctx, bool unwind,
					  bool python)
{
	switch_in(ctx->args[2]);
	switch_out(ctx, unwind, python);
	return 0;
}

SEC("raw_tp/sched_switch")
int on_switch(struct bpf_raw_tracepoint_args *ctx)
{
	return on_switch_body(ctx, false, false);
}

SEC("raw_tp/sched_switch")
int on_switch_python(struct bpf_raw_tracepoint_args *ctx)
{
	return on_switch_body(ctx, false, true);
}

SEC("raw_tp/sched_switch")
int on_switch_unwind(struct bpf_raw_tracepoint_args *ctx)
{
	return on_switch_body(ctx, true, true);
}

#endif /* OFFCPU_BPF_H */
