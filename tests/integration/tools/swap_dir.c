// SPDX-License-Identifier: GPL-2.0
/*
 * swap_dir.c - an LD_PRELOAD shim that plays a user who owns a component
 * of -o's path and swaps it between two of profile's steps: the first
 * time a directory is fsync()ed (the last step of writing the profile,
 * outfile__commit()), $SWAP_DIR is renamed to $SWAP_DIR.moved and a
 * symlink to $SWAP_TO, owned by uid 65534, put in its place. What runs
 * after (--keep) sees the swap; every call goes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int fsync(int fd)
{
	static int (*real)(int);
	static int swapped;
	const char *dir = getenv("SWAP_DIR"), *to = getenv("SWAP_TO");
	char moved[4096];
	struct stat st;
	int ret;

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	ret = real(fd);
	if (dir && to && !swapped && !fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		swapped = 1;
		snprintf(moved, sizeof(moved), "%s.moved", dir);
		if (rename(dir, moved) || symlink(to, dir) || lchown(dir, 65534, 65534))
			perror("swap_dir");
	}
	return ret;
}
