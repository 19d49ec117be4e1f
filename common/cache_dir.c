// SPDX-License-Identifier: GPL-2.0
/*
 * cache_dir.c - root's cache directories checked from the top down and
 * made (cache_dir.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cache_dir.h"

int cache_dir__check(const char *dir, uid_t uid, char *why, size_t size)
{
	char path[PATH_MAX];
	bool child_exists = false;
	struct stat sb;
	char *slash;

	if (dir[0] != '/') {
		snprintf(why, size, "cache '%s' is not an absolute path", dir);
		return -EPERM;
	}
	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
		snprintf(why, size, "cache path too long");
		return -EPERM;
	}
	for (;;) {
		/* "/a/b/" and "/a//b" name "/a/b": a trailing slash would follow a symlink */
		for (size_t len = strlen(path); len > 1 && path[len - 1] == '/'; len--)
			path[len - 1] = '\0';
		if (lstat(path, &sb) == 0) {
			bool ours = sb.st_uid == 0 || sb.st_uid == uid;
			bool sticky_root = sb.st_uid == 0 && (sb.st_mode & S_ISVTX);

			if (!S_ISDIR(sb.st_mode) || !ours ||
			    ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_root && child_exists))) {
				snprintf(why, size, "'%s' %s: not a safe cache for root", path,
					 !S_ISDIR(sb.st_mode) ? "is not a directory" :
					 !ours ? "belongs to another user" :
						 "can be written by other users");
				return -EPERM;
			}
			child_exists = true;
		} else if (errno != ENOENT || child_exists) {
			snprintf(why, size, "cannot check '%s': %s", path, strerror(errno));
			return -EPERM;
		}
		if (!strcmp(path, "/"))
			return 0;
		slash = strrchr(path, '/');
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int cache_dir__make(const char *dir, mode_t parents, mode_t last)
{
	char path[PATH_MAX];
	size_t len;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* "a/b/" is "a/b": the last name is the one made with mode last */
	for (len = strlen(path); len > 1 && path[len - 1] == '/'; len--)
		path[len - 1] = '\0';
	for (char *p = path + 1; (p = strchr(p, '/')); p++) {
		if (p[-1] == '/')
			continue;
		*p = '\0';
		if (mkdir(path, parents) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, last) && errno != EEXIST)
		return -errno;
	return 0;
}
