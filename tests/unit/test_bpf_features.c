// SPDX-License-Identifier: GPL-2.0
/*
 * test_bpf_features.c - which missing kernel feature is named after a
 * failed load: the newest one lacking, never one that could not be probed.
 */
#include <linux/bpf.h>

#include "collect/bpf_features.h"
#include "test_util.h"

/* A kernel that lacks the features named in lacking, one letter each. */
static const char *lacking;

static int fake_probe(const struct bpf_feature *f)
{
	if (f->kind == BPF_FEATURE_MAP_TYPE && f->type == BPF_MAP_TYPE_RINGBUF)
		return !strchr(lacking, 'r');
	if (f->kind == BPF_FEATURE_HELPER && f->helper == BPF_FUNC_get_stack)
		return !strchr(lacking, 's');
	if (f->kind == BPF_FEATURE_PROG_TYPE && f->type == BPF_PROG_TYPE_PERF_EVENT)
		return strchr(lacking, 'p') ? 0 : 1;
	return 1;
}

static int probe_fails(const struct bpf_feature *f)
{
	(void)f;
	return -EPERM;
}

Test(bpf_features, nothing_missing)
{
	lacking = "";
	cr_assert_null(bpf_features__missing(fake_probe));
}

/* The feature named for a kernel that lacks those in lacks. */
static const struct bpf_feature *missing_when(const char *lacks)
{
	const struct bpf_feature *f;

	lacking = lacks;
	f = bpf_features__missing(fake_probe);
	cr_assert_not_null(f, "nothing missing without '%s'", lacks);
	return f;
}

Test(bpf_features, the_ring_buffer_needs_5_8)
{
	const struct bpf_feature *f = missing_when("r");

	cr_assert_str_eq(f->name, "the BPF ring buffer");
	cr_assert_str_eq(f->since, "5.8");
}

Test(bpf_features, the_newest_missing_is_named)
{
	/* a 4.15 kernel: no bpf_get_stack() (4.18), no ring buffer (5.8) */
	cr_assert_str_eq(missing_when("sr")->since, "5.8");
	cr_assert_str_eq(missing_when("s")->since, "4.18");
	/* a new kernel built without perf event programs */
	cr_assert_str_eq(missing_when("p")->name, "BPF programs on perf events");
}

Test(bpf_features, what_cannot_be_probed_is_not_called_missing)
{
	cr_assert_null(bpf_features__missing(probe_fails));
}

/* This kernel (root, 5.8 or later) has all of them. */
Test(bpf_features, this_kernel_has_them_all)
{
	const struct bpf_feature *f;

	if (geteuid())
		skip_unless_ci("root, to load BPF programs");
	f = bpf_features__missing(bpf_features__probe);
	cr_assert_null(f, "missing: %s", f ? f->name : "");
}

/* BTF is the kernel's file in sysfs, not a release: looked for there. */
Test(bpf_features, kernel_btf_is_the_vmlinux_file_in_sysfs)
{
	char *sys = make_tmpdir(), *file;

	cr_assert_not(bpf_features__kernel_btf(sys), "no kernel/btf at all");
	free(write_in(sys, "kernel/btf/e1000", "BTF"));
	cr_assert_not(bpf_features__kernel_btf(sys), "kernel/btf with a module's alone");
	file = write_in(sys, "kernel/btf/vmlinux", "BTF");
	cr_assert(bpf_features__kernel_btf(sys));
	free(file);
	rm_rf(sys);
}

/* Releases as uname -r gives them, against 6.1; what cannot be read is "before". */
Test(bpf_features, releases_read_from_uname)
{
	cr_assert(bpf_features__release_before("5.18.0-0.deb11.4-amd64", 6, 1));
	cr_assert(bpf_features__release_before("6.0.19", 6, 1));
	cr_assert_not(bpf_features__release_before("6.1.0-13-amd64", 6, 1));
	cr_assert_not(bpf_features__release_before("6.18.44-fc-v669", 6, 1));
	cr_assert_not(bpf_features__release_before("7.0", 6, 1));
	cr_assert(bpf_features__release_before("", 6, 1));
	cr_assert(bpf_features__release_before(NULL, 6, 1));
}
