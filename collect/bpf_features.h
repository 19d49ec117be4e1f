/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_features.h - what profile.bpf.c needs of the kernel, and the first
 * Linux release that has each: asked only after the program failed to
 * load, so that an old kernel is named as the reason in one line.
 */
#ifndef BPF_FEATURES_H
#define BPF_FEATURES_H

#include <stdbool.h>

enum bpf_feature_kind {
	BPF_FEATURE_PROG_TYPE,
	BPF_FEATURE_MAP_TYPE,
	BPF_FEATURE_HELPER,	/* a helper in programs of prog_type */
};

struct bpf_feature {
	enum bpf_feature_kind kind;
	int type;		/* enum bpf_prog_type or bpf_map_type */
	int helper;		/* enum bpf_func_id, for BPF_FEATURE_HELPER */
	const char *name;	/* "the BPF ring buffer" */
	const char *since;	/* "5.8": the first release that has it */
};

/* 1 when the kernel has f, 0 when not, -errno when that cannot be told. */
typedef int (*bpf_feature_probe_fn)(const struct bpf_feature *f);

/*
 * Of the features this kernel lacks, the one that came last (its release
 * is the one to upgrade to); NULL when none is found missing. A feature
 * that cannot be probed (-EPERM...) counts as present. probe is
 * bpf_features__probe except in tests.
 */
const struct bpf_feature *bpf_features__missing(bpf_feature_probe_fn probe);

/*
 * The same for what unwinding user stacks with tables (--call-graph dwarf)
 * needs; asked before loading, as the tool then walks by frame pointers.
 */
const struct bpf_feature *bpf_features__missing_for_unwind(bpf_feature_probe_fn probe);

/* The same for Python frames (python/): without it, none. */
const struct bpf_feature *bpf_features__missing_for_python(bpf_feature_probe_fn probe);

/*
 * Whether the kernel describes its own types in BTF
 * (<sys_root>/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): the verifier
 * refuses bpf_get_current_task_btf() without it, whatever the release,
 * and libbpf's probe of that helper cannot tell. sys_root is "/sys"
 * except in tests.
 */
bool bpf_features__kernel_btf(const char *sys_root);

/*
 * Whether release (uname -r: "6.1.0-13-amd64") is before major.minor;
 * one that cannot be read counts as before (the cautious answer).
 */
bool bpf_features__release_before(const char *release, int major, int minor);

/*
 * Whether the hash maps a tracing program adds to while the scheduler's
 * locks are held (sched_switch) may be left unpreallocated: from Linux 6.1
 * (bpf_mem_alloc) on. Before, their allocation may wake kswapd, which
 * takes a run queue's lock: preallocate them.
 */
bool bpf_features__alloc_in_any_context(void);

/* libbpf's probes: a map created, a program loaded, and closed again. */
int bpf_features__probe(const struct bpf_feature *f);

#endif /* BPF_FEATURES_H */
