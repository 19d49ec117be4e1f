// SPDX-License-Identifier: GPL-2.0
/*
 * rootfs.c - open a path inside another process's root directory.
 *
 * Concatenating "/proc/PID/root" and a path is not enough: an absolute
 * symlink in the container (Fedora's /usr/lib/debug/.build-id links, a
 * /tmp that points elsewhere) would then resolve against our root.
 * openat2(RESOLVE_IN_ROOT) resolves it the way the process would.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs.h"

static int open_in_root(int dirfd, const char *path, int flags)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (unsigned int)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
#else
	(void)dirfd; (void)path; (void)flags;
	return -ENOSYS;
#endif
}

int rootfs__open(const char *root, const char *path, int flags)
{
	char buf[8192];
	int dirfd, fd;

	if (!root || !*root) {
		fd = open(path, flags);
		return fd < 0 ? -errno : fd;
	}
	dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = open_in_root(dirfd, path, flags);
	close(dirfd);
	/* old kernel, or a seccomp filter that does not know openat2 */
	if (fd == -ENOSYS || fd == -EPERM) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s%s", root, path) >= sizeof(buf))
			return -ENAMETOOLONG;
		fd = open(buf, flags);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}
