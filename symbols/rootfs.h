/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rootfs.h - open a file as a process sees it: below its root directory
 * (/proc/PID/root), with symlinks resolved inside that root, so a path in
 * a container or chroot names the container's file, not ours.
 */
#ifndef ROOTFS_H
#define ROOTFS_H

/*
 * Open the absolute path inside root with open(2)'s flags. root NULL or ""
 * is our own root. Absolute symlinks and ".." stay inside root (openat2's
 * RESOLVE_IN_ROOT; before Linux 5.6 plain path concatenation). Returns a
 * file descriptor or -errno.
 */
int rootfs__open(const char *root, const char *path, int flags);

#define ROOTFS_NO_SYMLINKS	0x1	/* refuse a symlink anywhere in path (ELOOP) */
#define ROOTFS_NOFOLLOW		0x2	/* refuse a symlink as the last component (ELOOP) */

struct stat;

/*
 * Open a regular file for reading, checking what it is before opening it:
 * the path is resolved with O_PATH (which runs no open handler, so a
 * device or FIFO planted at the path is never opened), fstat'ed into *sb,
 * and only a regular file is then opened, through its O_PATH descriptor.
 * flags: ROOTFS_*. Returns a read-only, non-blocking, close-on-exec file
 * descriptor or -errno: -EPERM for what is not a regular file, -ELOOP for
 * a refused symlink.
 */
int rootfs__open_regular(const char *root, const char *path, unsigned int flags, struct stat *sb);

#endif /* ROOTFS_H */
