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
#define MAX_STACK_DEPTH_LIMIT 1024	/* --perf-max-stack-depth upper bound */

/*
 * A stack the STACK_TRACE map could not keep (its hash bucket holds another
 * stack, or the map is full) is stored in the "overflow" hash instead,
 * keyed by a 64-bit hash of its frames; its id is then STACK_ID_OVERFLOW.
 */
#define STACK_ID_OVERFLOW (-4096)

struct profile_key {
	__u32 pid;		/* tgid */
	__u32 tid;		/* 0 unless thread filtering (-L) asked for it */
	__s32 kern_stack_id;	/* < 0: -errno from bpf_get_stackid, -1 if not taken, */
	__s32 user_stack_id;	/*      or STACK_ID_OVERFLOW */
	__u64 kern_overflow;	/* overflow key when kern_stack_id == STACK_ID_OVERFLOW */
	__u64 user_overflow;
	char comm[TASK_COMM_LEN];
};

/* Sent through the "new_pids" ring buffer when a process is first sampled. */
struct new_pid_event {
	__u32 pid;
	__u32 pad;
	__u64 start_time;	/* reserved, 0 */
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
	STAT_MAX,
};

#endif /* PROFILE_H */
