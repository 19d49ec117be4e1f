// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_features.c - what profile.bpf.c needs of the kernel, and the first
 * Linux release that has each: asked only after the program failed to
 * load, so that an old kernel is named as the reason in one line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "collect/bpf_features.h"

/*
 * In the order they came. Not probed, as libbpf has no probe for them, and
 * all older than the ring buffer: global variables (5.2), bounded loops
 * (5.3), mmap-able arrays (5.5), batch map operations (5.6).
 */
static const struct bpf_feature features[] = {
	{ BPF_FEATURE_MAP_TYPE, BPF_MAP_TYPE_STACK_TRACE, 0, "the BPF stack trace map", "4.6" },
	{ BPF_FEATURE_PROG_TYPE, BPF_PROG_TYPE_PERF_EVENT, 0, "BPF programs on perf events", "4.9" },
	{ BPF_FEATURE_HELPER, BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_stackid,
	  "bpf_get_stackid() in perf event programs", "4.9" },
	{ BPF_FEATURE_MAP_TYPE, BPF_MAP_TYPE_ARRAY_OF_MAPS, 0, "BPF maps of maps", "4.12" },
	{ BPF_FEATURE_PROG_TYPE, BPF_PROG_TYPE_RAW_TRACEPOINT, 0, "BPF raw tracepoint programs",
	  "4.17" },
	{ BPF_FEATURE_HELPER, BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_stack,
	  "bpf_get_stack() in perf event programs", "4.18" },
	{ BPF_FEATURE_MAP_TYPE, BPF_MAP_TYPE_RINGBUF, 0, "the BPF ring buffer", "5.8" },
};

/* What --call-graph dwarf needs on top: without it, user stacks by frame pointers. */
static const struct bpf_feature unwind_features[] = {
	{ BPF_FEATURE_HELPER, BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_current_task_btf,
	  "bpf_get_current_task_btf() in perf event programs", "5.11" },
	{ BPF_FEATURE_HELPER, BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs,
	  "bpf_task_pt_regs() in perf event programs", "5.15" },
	{ BPF_FEATURE_HELPER, BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop,
	  "bpf_loop() in perf event programs", "5.17" },
};

/* What Python frames need: their walks are bpf_loop()'s. */
static const struct bpf_feature python_features[] = {
	{ BPF_FEATURE_HELPER, BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop,
	  "bpf_loop() in perf event programs", "5.17" },
	{ BPF_FEATURE_MAP_TYPE, BPF_MAP_TYPE_LRU_HASH, 0, "BPF LRU hash maps", "4.10" },
};

int bpf_features__probe(const struct bpf_feature *f)
{
	switch (f->kind) {
	case BPF_FEATURE_PROG_TYPE:
		return libbpf_probe_bpf_prog_type(f->type, NULL);
	case BPF_FEATURE_MAP_TYPE:
		return libbpf_probe_bpf_map_type(f->type, NULL);
	case BPF_FEATURE_HELPER:
		return libbpf_probe_bpf_helper(f->type, f->helper, NULL);
	}
	return -EINVAL;
}

bool bpf_features__kernel_btf(const char *sys_root)
{
	char path[4096];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/kernel/btf/vmlinux", sys_root);
	return !stat(path, &sb) && S_ISREG(sb.st_mode);
}

static const struct bpf_feature *last_missing(const struct bpf_feature *list, size_t nr,
					      bpf_feature_probe_fn probe)
{
	const struct bpf_feature *missing = NULL;

	for (size_t i = 0; i < nr; i++)
		if (probe(&list[i]) == 0)
			missing = &list[i];
	return missing;
}

const struct bpf_feature *bpf_features__missing(bpf_feature_probe_fn probe)
{
	return last_missing(features, sizeof(features) / sizeof(features[0]), probe);
}

const struct bpf_feature *bpf_features__missing_for_unwind(bpf_feature_probe_fn probe)
{
	return last_missing(unwind_features, sizeof(unwind_features) / sizeof(unwind_features[0]),
			    probe);
}

const struct bpf_feature *bpf_features__missing_for_python(bpf_feature_probe_fn probe)
{
	return last_missing(python_features, sizeof(python_features) / sizeof(python_features[0]),
			    probe);
}

bool bpf_features__release_before(const char *release, int major, int minor)
{
	int ma, mi;

	if (!release || sscanf(release, "%d.%d", &ma, &mi) != 2)
		return true;
	return ma < major || (ma == major && mi < minor);
}

bool bpf_features__alloc_in_any_context(void)
{
	struct utsname u;

	return !uname(&u) && !bpf_features__release_before(u.release, 6, 1);
}
