// SPDX-License-Identifier: GPL-2.0
/*
 * Which file, and which version of it (common/file_stamp.c): a stamp
 * changes when the file is rewritten, even with its old mtime put back;
 * the version alone leaves the device and inode to the caller; the same
 * file by device and inode whatever its version; and a file is the one
 * a /proc/PID/maps line names by its device and inode, not by its inode
 * alone on another file system.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/file_stamp.h"
#include "symbols/proc_maps.h"
#include "test_util.h"

Test(file_stamp, a_stamp_changes_when_the_file_is_rewritten)
{
	char *tmp = make_tmpdir(), *path = path_in(tmp, "f");
	struct file_stamp a, b;
	struct timespec times[2];
	struct stat st;

	write_text(path, "one");
	cr_assert_eq(stat(path, &st), 0);
	file_stamp__init(&a, &st);
	cr_assert(file_stamp__is(&a, &st));
	usleep(20 * 1000);
	write_text(path, "two");
	cr_assert_eq(stat(path, &st), 0);
	file_stamp__init(&b, &st);
	cr_assert_eq(a.ino, b.ino, "not rewritten in place");
	cr_assert_neq(file_stamp__cmp(&a, &b), 0, "rewritten, the same stamp");
	/* its owner can put the old mtime back, not the old ctime */
	times[0] = (struct timespec){ .tv_nsec = UTIME_OMIT };
	times[1] = (struct timespec){ .tv_sec = a.mtime_sec, .tv_nsec = a.mtime_nsec };
	cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_size, 3);
	cr_assert(!file_stamp__is(&a, &st), "the old mtime back, the same stamp");
	cr_assert_eq(file_stamp__cmp(&b, &b), 0);
	cr_assert_eq(file_stamp__cmp(&a, &b), -file_stamp__cmp(&b, &a));
	free(path);
	rm_rf(tmp);
}

Test(file_stamp, the_version_alone_leaves_device_and_inode_to_the_caller)
{
	char *tmp = make_tmpdir(), *path = path_in(tmp, "f");
	struct file_stamp s, now;
	struct stat st;

	write_text(path, "one");
	cr_assert_eq(stat(path, &st), 0);
	file_stamp__init(&s, &st);
	s.dev++;
	s.ino++;
	cr_assert(file_stamp__same_version(&s, &st), "another device and inode: the same version");
	cr_assert(!file_stamp__is(&s, &st));
	file_stamp__init(&now, &st);
	cr_assert(file_stamp__same_version_as(&s, &now), "a stamp taken already: not the same");
	usleep(20 * 1000);
	write_text(path, "two");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(!file_stamp__same_version(&s, &st), "rewritten, the same version");
	file_stamp__init(&now, &st);
	cr_assert(!file_stamp__same_version_as(&s, &now), "rewritten, the same version as stamped");
	free(path);
	rm_rf(tmp);
}

Test(file_stamp, the_same_file_by_device_and_inode_whatever_its_version)
{
	char *tmp = make_tmpdir(), *a = path_in(tmp, "a"), *b = path_in(tmp, "b");
	char *c = path_in(tmp, "c");
	struct stat sa, sb, sc;

	write_text(a, "one");
	cr_assert_eq(link(a, b), 0);
	write_text(c, "one");
	cr_assert_eq(stat(a, &sa), 0);
	usleep(20 * 1000);
	write_text(b, "two");
	cr_assert_eq(stat(b, &sb), 0);
	cr_assert_eq(stat(c, &sc), 0);
	cr_assert(file_stamp__same_file(&sa, &sb), "a link, rewritten: not the same file");
	cr_assert(!file_stamp__same_file(&sa, &sc), "a copy: the same file");
	free(a);
	free(b);
	free(c);
	rm_rf(tmp);
}

/* The line of /proc/self/maps that maps path, parsed into e. */
static void maps_line_of(const char *path, struct map_entry *e)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	cr_assert(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, path))
			found = !map_entry__parse(line, e);
	}
	fclose(f);
	cr_assert(found, "%s not in our maps", path);
}

Test(file_stamp, a_file_is_the_one_its_maps_line_names)
{
	char *tmp = make_tmpdir(), *path = path_in(tmp, "mapped");
	struct map_entry e;
	struct stat st, proc;
	void *p;
	int fd, pfd;

	write_text(path, "mapped");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(fstat(fd, &st), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert(p != MAP_FAILED);
	maps_line_of(path, &e);
	cr_assert(file_stamp__is_mapped(fd, &st, e.dev_major, e.dev_minor, e.inode));
	cr_assert(!file_stamp__is_mapped(fd, &st, e.dev_major, e.dev_minor, e.inode + 1),
		  "another inode: the file mapped");
	/* procfs is neither btrfs nor overlayfs: there the device decides too */
	pfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	cr_assert(pfd >= 0);
	cr_assert_eq(fstat(pfd, &proc), 0);
	cr_assert(file_stamp__is_mapped(pfd, &proc, major(proc.st_dev), minor(proc.st_dev),
					proc.st_ino));
	cr_assert(!file_stamp__is_mapped(pfd, &proc, major(proc.st_dev) + 1, minor(proc.st_dev),
					 proc.st_ino),
		  "the inode on another device: the file mapped");
	close(pfd);
	munmap(p, 4096);
	close(fd);
	map_entry__release(&e);
	free(path);
	rm_rf(tmp);
}
