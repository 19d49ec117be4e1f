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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/file_stamp.h"
#include "symbols/rootfs.h"

static int open_in_root(int dirfd, const char *path, int flags, unsigned long long resolve)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (unsigned int)flags,
		.resolve = resolve | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
#else
	(void)dirfd; (void)path; (void)flags; (void)resolve;
	return -ENOSYS;
#endif
}

static int open_resolved(const char *root, const char *path, int flags,
			 unsigned long long resolve)
{
	char buf[8192];
	int dirfd, fd;

	if (!root || !*root) {
		fd = resolve ? open_in_root(AT_FDCWD, path, flags, resolve) : -ENOSYS;
		if (fd != -ENOSYS && fd != -EPERM)
			return fd;
		fd = open(path, flags | (resolve ? O_NOFOLLOW : 0));
		return fd < 0 ? -errno : fd;
	}
	dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = open_in_root(dirfd, path, flags, RESOLVE_IN_ROOT | resolve);
	close(dirfd);
	/* old kernel, or a seccomp filter that does not know openat2 */
	if (fd == -ENOSYS || fd == -EPERM) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s%s", root, path) >= sizeof(buf))
			return -ENAMETOOLONG;
		/* without openat2, only the last component can be held to no symlink */
		fd = open(buf, flags | (resolve ? O_NOFOLLOW : 0));
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int rootfs__open(const char *root, const char *path, int flags)
{
	return open_resolved(root, path, flags, 0);
}

int rootfs__open_regular(const char *root, const char *path, unsigned int flags, struct stat *sb)
{
	unsigned long long resolve = flags & ROOTFS_NO_SYMLINKS ? RESOLVE_NO_SYMLINKS : 0;
	struct stat again;
	char self[64];
	int pfd, fd;

	pfd = open_resolved(root, path,
			    O_PATH | O_CLOEXEC | (flags & ROOTFS_NOFOLLOW ? O_NOFOLLOW : 0), resolve);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, sb)) {
		int err = -errno;

		close(pfd);
		return err;
	}
	if (!S_ISREG(sb->st_mode)) {
		close(pfd);
		return S_ISLNK(sb->st_mode) ? -ELOOP : -EPERM;
	}
	/* reopening the O_PATH descriptor opens that very inode, not the path again */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	fd = fd < 0 ? -errno : fd;
	close(pfd);
	if (fd >= 0 && (fstat(fd, &again) || !file_stamp__same_file(&again, sb))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}
