// SPDX-License-Identifier: GPL-2.0
/*
 * test_container_id.c - container ids from the cgroup paths the runtimes
 * make (container_id.h), and the paths that name no container.
 */
#include <criterion/criterion.h>

#include "output/container_id.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static void assert_id(const char *path, const char *want)
{
	char buf[128];

	cr_assert(container_id__of(path, buf, sizeof(buf)), "'%s': no container", path);
	cr_assert_str_eq(buf, want, "'%s'", path);
}

static void assert_none(const char *path)
{
	char buf[128] = "x";

	cr_assert_not(container_id__of(path, buf, sizeof(buf)), "'%s': '%s'", path, buf);
	cr_assert_str_empty(buf);
}

Test(container_id, docker)
{
	assert_id("/system.slice/docker-" ID ".scope", ID);
	assert_id("/docker/" ID, ID);
}

Test(container_id, containerd_and_kubernetes)
{
	assert_id("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice/cri-containerd-" ID ".scope", ID);
	assert_id("/kubepods/burstable/pod6e7f-11/" ID, ID);
}

Test(container_id, cri_o_and_podman)
{
	assert_id("/kubepods.slice/kubepods-pod1.slice/crio-" ID ".scope", ID);
	assert_id("/machine.slice/libpod-" ID ".scope", ID);
	assert_id("/libpod_parent/libpod-" ID, ID);
	/* rootless, under the user's manager */
	assert_id("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope", ID);
	/* the container's own sub-cgroups are still its */
	assert_id("/machine.slice/libpod-" ID ".scope/container/init.scope", ID);
}

Test(container_id, machined_names_unescaped)
{
	assert_id("/machine.slice/machine-box.scope", "box");
	assert_id("/machine.slice/machine-my\\x2dbox.scope/payload", "my-box");
	/* machine-*.scope only under machine.slice */
	assert_none("/system.slice/machine-box.scope");
}

Test(container_id, the_innermost_container_wins)
{
	assert_id("/docker/" ID "/docker/" ID2, ID2);
}

Test(container_id, no_container)
{
	assert_none("/");
	assert_none("/init.scope");
	assert_none("/user.slice/user-0.slice/session-3.scope");
	assert_none("/system.slice/ssh.service");
	/* conmon, podman's monitor, is not the container */
	assert_none("/machine.slice/libpod-conmon-" ID ".scope");
	/* almost ids: 63 digits, upper case, a non-hex letter */
	assert_none("/docker/" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde");
	assert_none("/docker/" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef");
	assert_none("/system.slice/docker-" "g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" ".scope");
	assert_none("/system.slice/docker-" ID ".service");
}

Test(container_id, small_buffers_refused)
{
	char buf[64];

	cr_assert_not(container_id__of("/docker/" ID, buf, sizeof(buf)));
}
