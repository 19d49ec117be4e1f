// SPDX-License-Identifier: GPL-2.0
/*
 * file_stamp.c - which file, and which version of it (file_stamp.h).
 */
#include <sys/sysmacros.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include "common/file_stamp.h"

_Static_assert(sizeof(struct file_stamp) == 56, "struct file_stamp has padding");

void file_stamp__init(struct file_stamp *s, const struct stat *st)
{
	*s = (struct file_stamp){
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime_sec = st->st_mtim.tv_sec, .mtime_nsec = st->st_mtim.tv_nsec,
		.ctime_sec = st->st_ctim.tv_sec, .ctime_nsec = st->st_ctim.tv_nsec,
	};
}

int file_stamp__cmp(const struct file_stamp *a, const struct file_stamp *b)
{
	const uint64_t x[] = { a->dev, a->ino, a->size };
	const uint64_t y[] = { b->dev, b->ino, b->size };
	const int64_t tx[] = { a->mtime_sec, a->mtime_nsec, a->ctime_sec, a->ctime_nsec };
	const int64_t ty[] = { b->mtime_sec, b->mtime_nsec, b->ctime_sec, b->ctime_nsec };

	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return (x[i] > y[i]) - (x[i] < y[i]);
	for (int i = 0; i < 4; i++)
		if (tx[i] != ty[i])
			return (tx[i] > ty[i]) - (tx[i] < ty[i]);
	return 0;
}

bool file_stamp__is(const struct file_stamp *s, const struct stat *st)
{
	struct file_stamp now;

	file_stamp__init(&now, st);
	return !file_stamp__cmp(s, &now);
}

bool file_stamp__same_version(const struct file_stamp *s, const struct stat *st)
{
	struct file_stamp now;

	file_stamp__init(&now, st);
	return file_stamp__same_version_as(s, &now);
}

bool file_stamp__same_version_as(const struct file_stamp *s, const struct file_stamp *now)
{
	struct file_stamp v = *now;

	v.dev = s->dev;
	v.ino = s->ino;
	return !file_stamp__cmp(s, &v);
}

bool file_stamp__same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

bool file_stamp__is_mapped(int fd, const struct stat *st, unsigned int dev_major,
			   unsigned int dev_minor, uint64_t inode)
{
	struct statfs sfs;

	if ((uint64_t)st->st_ino != inode)
		return false;
	if (major(st->st_dev) == dev_major && minor(st->st_dev) == dev_minor)
		return true;
	return !fstatfs(fd, &sfs) &&
	       (sfs.f_type == BTRFS_SUPER_MAGIC || sfs.f_type == OVERLAYFS_SUPER_MAGIC);
}
