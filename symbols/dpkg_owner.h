/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dpkg_owner.h - the Debian package that installed a file, from dpkg's
 * lists of the files of each package (/var/lib/dpkg/info/PKG[:ARCH].list):
 * the end of a run names PKG-dbgsym for a stripped file's frames.
 */
#ifndef DPKG_OWNER_H
#define DPKG_OWNER_H

#include <stddef.h>

#define DPKG_INFO_DIR "/var/lib/dpkg/info"
/* Bytes of lists read at most (a Debian server's take about 10 MB). */
#define DPKG_MAX_LIST_BYTES (64 << 20)

/*
 * For each of paths[0, n), the package whose list names it, in owners[i]
 * (malloc'd; NULL when none does). A path and the same path across the
 * /usr merge (/lib/x and /usr/lib/x) are one file: /proc/PID/maps says
 * /usr/lib/..., bookworm's lists /lib/.... Returns 0 (also when the lists
 * were cut at DPKG_MAX_LIST_BYTES), or -errno of opening info_dir
 * (-ENOENT: not a Debian system) or -ENOMEM, owners all NULL then.
 */
int dpkg_owner__find(const char *info_dir, const char *const *paths, size_t n, char **owners);

#endif /* DPKG_OWNER_H */
