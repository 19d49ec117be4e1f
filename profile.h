/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - what the BPF program shares with userspace: the key of the
 * count hash and the indices of the per-CPU statistics array. Fixed-width
 * types only; no pointers.
 */
#ifndef PROFILE_H
#define PROFILE_H

#define TASK_COMM_LEN 16
#define MAX_FILTER_IDS 1024
#define MAX_PID_GENS 65536	/* sampled processes alive at once with a generation */
#define MAX_STACK_DEPTH_LIMIT 1024	/* --perf-max-stack-depth upper bound */

/*
 * A stack the STACK_TRACE map could not keep (its hash bucket holds another
 * stack, or the map is full) is stored in the "overflow" hash instead; its
 * id is then STACK_ID_OVERFLOW. The key is a hash of its frames, or one of
 * the next few keys when other stacks hold that one (profile.bpf.c): the
 * frames are compared, two stacks are never merged. Keys are opaque to
 * userspace and never 0.
 */
#define STACK_ID_OVERFLOW (-4096)

struct profile_key {
	__u32 pid;		/* tgid */
	__u32 tid;		/* 0 unless thread filtering (-L) asked for it */
	__u32 gen;		/* generation of pid's mappings (see pid_gen); 0: unknown */
	__s32 kern_stack_id;	/* < 0: -errno from bpf_get_stackid, -1 if not taken, */
	__s32 user_stack_id;	/*      or STACK_ID_OVERFLOW */
	__u32 pad;
	__u64 kern_overflow;	/* overflow key when kern_stack_id == STACK_ID_OVERFLOW */
	__u64 user_overflow;
	char comm[TASK_COMM_LEN];
};

/*
 * A pid's mappings change at exec, and a pid that exits and is reused is
 * another process: each such state is a generation, numbered from 1 by
 * the BPF side in the order it first samples them (unique within a run).
 * Samples are counted under their generation, so each is resolved against
 * the mappings read while that generation lived.
 */
struct pid_gen {
	__u32 gen;
	__u32 announced;	/* new_pid_events sent for this generation */
	__u64 next_ns;		/* bpf_ktime_get_ns(): when it may be announced again */
};

/*
 * Sent through the "new_pids" ring buffer when a generation is first
 * sampled, and again at its new stacks 1, 4, 16, 64 ms ... later (x4 each
 * time): its dynamic loader maps libraries after the first sample, and a
 * short-lived process must be read again before it is gone.
 */
#define ANNOUNCE_FIRST_NS 1000000ULL
#define ANNOUNCE_MAX_SHIFT 24	/* at most every 2^24 ms, ~4.7 h */
struct new_pid_event {
	__u32 pid;
	__u32 gen;
};

/* Indices into the per-CPU "stats" array. */
enum profile_stat {
	STAT_SAMPLES,		/* samples that passed the filters */
	STAT_KSTACK_OVERFLOW,	/* kernel stack kept in the overflow map */
	STAT_KSTACK_LOST,	/* kernel stack kept nowhere */
	STAT_USTACK_OVERFLOW,
	STAT_USTACK_LOST,
	STAT_HASH_FULL,		/* sample dropped: count hash full */
	STAT_NEW_PID_LOST,	/* new-process notice lost: ring buffer full */
	STAT_GEN_FULL,		/* sample counted without a generation: pid_gen map full */
	STAT_EXECS,		/* execs of sampled processes: new generations */
	STAT_MAX,
};

#endif /* PROFILE_H */
