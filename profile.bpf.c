// SPDX-License-Identifier: GPL-2.0
/*
 * profile.bpf.c - the sampling side: runs on every perf event sample, applies
 * the filters and counts the sample under (pid, tid, comm, kernel stack id,
 * user stack id). Nothing per sample crosses to userspace; userspace walks
 * the "counts" hash and the "stackmap" at the end.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"

#define EEXIST 17
#define ENOMEM 12
#define EFAULT 14

/* Set by userspace between open and load. */
const volatile bool kernel_stacks_only = false;
const volatile bool user_stacks_only = false;
const volatile bool include_idle = false;
const volatile bool filter_by_pid = false;
const volatile bool filter_by_tid = false;
const volatile bool key_by_tid = false;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	/* value_size and max_entries are set by userspace */
} stackmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct profile_key);
	__type(value, __u64);
	/* max_entries is set by userspace (--hash-storage-size) */
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FILTER_IDS);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FILTER_IDS);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		(*v)++;	/* per-CPU slot: no atomics needed */
}

/* Count a failed bpf_get_stackid(); -EFAULT only means "no such stack here"
 * (a kernel thread has no user stack, user mode has no kernel stack). */
static __always_inline void count_stack_error(long err, __u32 base)
{
	if (err >= 0 || err == -EFAULT)
		return;
	if (err == -EEXIST)
		stat_inc(base);
	else if (err == -ENOMEM)
		stat_inc(base + 1);
	else
		stat_inc(base + 2);
}

SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	__u32 tid = (__u32)id;
	struct profile_key key = {};
	static const __u64 one = 1;
	__u64 *val;
	long err;

	if (!include_idle && tid == 0)
		return 0;
	if (filter_by_pid && !bpf_map_lookup_elem(&pids, &pid))
		return 0;
	if (filter_by_tid && !bpf_map_lookup_elem(&tids, &tid))
		return 0;

	stat_inc(STAT_SAMPLES);
	key.pid = pid;
	key.tid = key_by_tid ? tid : 0;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));

	if (user_stacks_only) {
		key.kern_stack_id = -1;
	} else {
		key.kern_stack_id = bpf_get_stackid(ctx, &stackmap, 0);
		count_stack_error(key.kern_stack_id, STAT_KSTACK_EEXIST);
	}
	if (kernel_stacks_only) {
		key.user_stack_id = -1;
	} else {
		key.user_stack_id = bpf_get_stackid(ctx, &stackmap, BPF_F_USER_STACK);
		count_stack_error(key.user_stack_id, STAT_USTACK_EEXIST);
	}

	val = bpf_map_lookup_elem(&counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	err = bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* another CPU inserted the same key first */
		val = bpf_map_lookup_elem(&counts, &key);
		if (val) {
			__sync_fetch_and_add(val, 1);
			return 0;
		}
	}
	if (err)
		stat_inc(STAT_HASH_FULL);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
