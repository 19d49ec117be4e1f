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

struct profile_key {
	__u32 pid;		/* tgid */
	__u32 tid;		/* 0 unless thread filtering (-L) asked for it */
	__s32 kern_stack_id;	/* < 0: -errno from bpf_get_stackid, or -1 if not taken */
	__s32 user_stack_id;
	char comm[TASK_COMM_LEN];
};

/* Indices into the per-CPU "stats" array. */
enum profile_stat {
	STAT_SAMPLES,		/* samples that passed the filters */
	STAT_KSTACK_EEXIST,	/* kernel stack lost to a stack-map bucket collision */
	STAT_KSTACK_ENOMEM,	/* kernel stack lost: stack map full */
	STAT_KSTACK_OTHER,	/* kernel stack lost: any other error */
	STAT_USTACK_EEXIST,
	STAT_USTACK_ENOMEM,
	STAT_USTACK_OTHER,
	STAT_HASH_FULL,		/* sample dropped: count hash full */
	STAT_MAX,
};

#endif /* PROFILE_H */
