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

#endif /* ROOTFS_H */
