// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind_denied.c - /proc/PID/map_files without CAP_CHECKPOINT_RESTORE
 * (as a service's capability bounding set may leave it): every file is
 * refused with EPERM, which is counted and told once, not taken silently
 * for files without tables. On this very process, through the real /proc,
 * into real BPF maps (root, CAP_BPF); Criterion runs each test in a
 * process of its own, so the capabilities dropped here stay dropped there.
 */
#include <bpf/bpf.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include "profile.h"
#include "test_util.h"
#include "unwind/unwind_row.h"
#include "unwind/unwind_procs.h"

static int fds[3] = { -1, -1, -1 };
static struct unwind_procs *u;
static unsigned int told;

static void teardown(void)
{
	unwind_procs__free(u);
	u = NULL;
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

TestSuite(unwind_denied, .fini = teardown);

static void on_denied(void *ctx)
{
	(*(unsigned int *)ctx)++;
}

/* u over the real /proc, with maps as profile.bpf.c has them. */
static void start(void)
{
	struct unwind_map_fds m;

	if (geteuid() != 0)
		skip_unless_ci("root: map_files and BPF maps");
	fds[0] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "test_rows", sizeof(__u32),
				sizeof(struct unwind_row), 1 << 20, NULL);
	if (fds[0] < 0)
		skip_unless_ci("BPF maps (CAP_BPF): %s", strerror(errno));
	fds[1] = bpf_map_create(BPF_MAP_TYPE_HASH, "test_procs", sizeof(__u32),
				sizeof(struct unwind_proc), 16, NULL);
	fds[2] = bpf_map_create(BPF_MAP_TYPE_HASH, "test_big", sizeof(__u32),
				sizeof(struct unwind_proc_big), 4, NULL);
	cr_assert(fds[1] >= 0 && fds[2] >= 0, "bpf_map_create: %s", strerror(errno));
	m = (struct unwind_map_fds){ .rows = fds[0], .procs = fds[1], .big = fds[2] };
	u = unwind_procs__new(&m, "/proc", NULL);
	cr_assert_not_null(u, "unwind_procs__new: %s", strerror(errno));
	unwind_procs__set_denied(u, on_denied, &told);
}

/* Drop cap from this process's effective set (its permitted set keeps it). */
static void drop_effective(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	cr_assert_eq(syscall(SYS_capget, &h, d), 0, "capget: %s", strerror(errno));
	d[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
	cr_assert_eq(syscall(SYS_capset, &h, d), 0, "capset: %s", strerror(errno));
}

Test(unwind_denied, refused_map_files_are_counted_and_told_once)
{
	struct unwind_procs_stats st;

	start();
	drop_effective(CAP_CHECKPOINT_RESTORE);
	drop_effective(CAP_SYS_ADMIN);
	/* twice: the second reading meets every refusal again, and is not told */
	cr_assert_eq(unwind_procs__add_pid(u, getpid()), 0);
	cr_assert_eq(unwind_procs__add_pid(u, getpid()), 0);
	unwind_procs__stats(u, &st);
	cr_assert_eq(told, 1);
	/* this program, libc, ld.so, libcriterion... each read twice */
	cr_assert_geq(st.denied, 6, "%llu refusals", (unsigned long long)st.denied);
	cr_assert_eq(st.met, 0);
}

/* The control: with the capability, the same process's files are met (their tables wait for walks). */
Test(unwind_denied, map_files_open_with_the_capability)
{
	struct unwind_procs_stats st;

	start();
	drop_effective(CAP_SYS_ADMIN);
	cr_assert_eq(unwind_procs__add_pid(u, getpid()), 0);
	unwind_procs__stats(u, &st);
	cr_assert_eq(told, 0);
	cr_assert_eq(st.denied, 0);
	cr_assert_geq(st.met, 3, "%llu files", (unsigned long long)st.met);
}
