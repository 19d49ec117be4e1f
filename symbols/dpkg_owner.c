// SPDX-License-Identifier: GPL-2.0
/*
 * dpkg_owner.c - which package's list of files names a path (dpkg_owner.h).
 * The lists are root's, written by dpkg; the paths looked for are any
 * user's, and only compared.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/dpkg_owner.h"

/* The top directories the /usr merge made symlinks into /usr. */
static const char *const merged[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/" };

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* path on the other side of the /usr merge ("/lib/x" for "/usr/lib/x"), or NULL. */
static const char *merged_alias(const char *path, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		if (starts_with(path, "/usr") && starts_with(path + 4, merged[i]))
			return path + 4;
		if (starts_with(path, merged[i])) {
			if ((size_t)snprintf(buf, size, "/usr%s", path) >= size)
				return NULL;
			return buf;
		}
	}
	return NULL;
}

static bool is_list(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".list");
}

/* "liblzma5:amd64.list" -> "liblzma5", of a name is_list(); NULL on ENOMEM. */
static char *package_of(const char *name)
{
	size_t len = strlen(name) - 5;

	return strndup(name, strcspn(name, ":") < len ? strcspn(name, ":") : len);
}

struct query {
	const char *const *paths;
	const char **aliases;
	size_t n, left;		/* paths without an owner yet */
	char **owners;
};

/* Each line of one list against the paths still without an owner. */
static int scan_list(struct query *q, FILE *f, const char *name, size_t *budget)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while (q->left && *budget && (len = getline(&line, &cap, f)) > 0) {
		*budget = (size_t)len < *budget ? *budget - len : 0;
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		for (size_t i = 0; i < q->n && !err; i++) {
			if (q->owners[i] || (strcmp(line, q->paths[i]) &&
					     (!q->aliases[i] || strcmp(line, q->aliases[i]))))
				continue;
			q->owners[i] = package_of(name);
			if (!q->owners[i])
				err = -ENOMEM;
			else
				q->left--;
		}
		if (err)
			break;
	}
	free(line);
	return err;
}

static void release_owners(char **owners, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(owners[i]);
		owners[i] = NULL;
	}
}

int dpkg_owner__find(const char *info_dir, const char *const *paths, size_t n, char **owners)
{
	struct query q = { .paths = paths, .n = n, .left = n, .owners = owners };
	size_t budget = DPKG_MAX_LIST_BYTES;
	char (*bufs)[4096] = calloc(n ? n : 1, sizeof(*bufs));
	struct dirent *de;
	DIR *dir;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		owners[i] = NULL;
	q.aliases = calloc(n ? n : 1, sizeof(*q.aliases));
	if (!bufs || !q.aliases) {
		free(bufs);
		free(q.aliases);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		q.aliases[i] = merged_alias(paths[i], bufs[i], sizeof(bufs[i]));
	dir = opendir(info_dir);
	if (!dir)
		err = -errno;
	while (dir && !err && q.left && budget && (de = readdir(dir))) {
		int fd;
		FILE *f;

		if (!is_list(de->d_name))
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		f = fd >= 0 ? fdopen(fd, "r") : NULL;
		if (!f) {
			if (fd >= 0)
				close(fd);
			continue;	/* a list gone or unreadable: the others still count */
		}
		err = scan_list(&q, f, de->d_name, &budget);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	if (err)
		release_owners(owners, n);
	free(bufs);
	free(q.aliases);
	return err;
}
