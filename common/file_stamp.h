/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file_stamp.h - which file, and which version of it: the one place that
 * decides whether two looks at a file saw the same one, for symbols/,
 * unwind/ and python/ alike.
 *
 * A file named rather than hashed (a file seen again in one run, a
 * separate debug file a table was read with) is known by its stamp:
 * device and inode name it, size, mtime and ctime its version. The
 * kernel sets ctime at every change, and nobody can set it back, unlike
 * mtime. What is shared by the bytes a file holds is keyed by a digest
 * instead (symbols/file_id.h).
 *
 * Four questions, each asked through its own function here, never by
 * comparing fields in place:
 *   file_stamp__is()            the same file, unchanged (identity and version)
 *   file_stamp__same_version()  unchanged, where the identity is known
 *                               otherwise (a module's key from the maps)
 *   file_stamp__same_file()     the same file, whatever its version
 *                               (a descriptor reopened, a root, a namespace)
 *   file_stamp__is_mapped()     the file a /proc/PID/maps line names
 */
#ifndef COMMON_FILE_STAMP_H
#define COMMON_FILE_STAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Fixed width, no padding: compared with file_stamp__cmp(), or memcmp() within a key. */
struct file_stamp {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	int64_t ctime_sec, ctime_nsec;
};

void file_stamp__init(struct file_stamp *s, const struct stat *st);
/* An order over stamps: 0 for the same file, unchanged. */
int file_stamp__cmp(const struct file_stamp *a, const struct file_stamp *b);
/* Whether st is the file s was taken of, unchanged. */
bool file_stamp__is(const struct file_stamp *s, const struct stat *st);
/*
 * Whether st has the size, mtime and ctime of s, device and inode not
 * compared: for a caller that knows which file st is by other means. A
 * usyms module is keyed by the device and inode its maps line prints,
 * and stat(2) through map_files and through the path it was opened by
 * need not agree on the device (btrfs, overlayfs: file_stamp__is_mapped()).
 */
bool file_stamp__same_version(const struct file_stamp *s, const struct stat *st);
/* The same, against a stamp taken already (a reading's: proc_maps__stamp()). */
bool file_stamp__same_version_as(const struct file_stamp *s, const struct file_stamp *now);
/*
 * Whether a and b are one file, by device and inode alone: the version
 * does not matter (a descriptor reopened, a process's root or user
 * namespace against ours, a cache entry about to be removed).
 */
bool file_stamp__same_file(const struct stat *a, const struct stat *b);
/*
 * Whether the file open at fd (st its fstat) is the one a /proc/PID/maps
 * line names by device dev_major:dev_minor and inode. Another file system
 * can hold a file with the same inode number (a tmpfs counts them from 1).
 * btrfs, and overlayfs before Linux 6.8, print in maps a device other than
 * the one stat(2) gives: on those the inode alone decides.
 */
bool file_stamp__is_mapped(int fd, const struct stat *st, unsigned int dev_major,
			   unsigned int dev_minor, uint64_t inode);

#endif /* COMMON_FILE_STAMP_H */
