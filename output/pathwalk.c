// SPDX-License-Identifier: GPL-2.0
/*
 * pathwalk.c - resolve a path following only symlinks that root or the
 * user running profile owns (see pathwalk.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "output/pathwalk.h"

bool pathwalk__trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

bool pathwalk__trusted_link(uid_t owner, nlink_t nlink)
{
	return pathwalk__trusted_owner(owner) && nlink == 1;
}

/*
 * Links in /proc (/proc/self/fd/1, /proc/PID/cwd) are magic: what
 * readlink(2) says of them is a description ("pipe:[123]"), not a path to
 * walk. The kernel follows them to the object itself.
 */
static bool on_procfs(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
}

static void where_append(struct pathwalk *e, const char *comp)
{
	size_t n = strlen(e->where);

	if (n && e->where[n - 1] != '/')
		snprintf(e->where + n, sizeof(e->where) - n, "/%s", comp);
	else
		snprintf(e->where + n, sizeof(e->where) - n, "%s", comp);
}

/* The next component of *p ("" at the end), "." skipped. */
static int next_component(const char **p, char comp[NAME_MAX + 1])
{
	size_t len;

	for (;;) {
		while (**p == '/')
			(*p)++;
		len = strcspn(*p, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, *p, len);
		comp[len] = '\0';
		*p += len;
		if (strcmp(comp, "."))
			return 0;
	}
}

/*
 * Open one component without following it: a directory with O_DIRECTORY
 * (which mounts an automount point, as a path walk would), anything else,
 * a symlink above all, as itself.
 */
static int open_component(int dirfd, const char *comp)
{
	int fd;

	fd = openat(dirfd, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOTDIR)
		fd = openat(dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* "/" as the start of the walk: a descriptor or -errno. */
static int open_root(struct pathwalk *e)
{
	int fd;

	snprintf(e->where, sizeof(e->where), "/");
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * The symlink lnk (an O_PATH|O_NOFOLLOW descriptor) in directory *fd: put
 * its target in front of the rest of the walk, *todo, and go back to "/"
 * for an absolute one. Returns 0 or -errno.
 */
static int splice_link(int lnk, int *fd, char **todo, const char **p, struct pathwalk *e)
{
	char target[PATH_MAX], *next;
	ssize_t n;

	/* the link just checked, not whatever has its name now */
	n = readlinkat(lnk, "", target, sizeof(target));
	if (n < 0)
		return -errno;
	if (n >= (ssize_t)sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	if (asprintf(&next, "%s%s%s", target, **p ? "/" : "", *p) < 0)
		return -ENOMEM;
	free(*todo);
	*todo = next;
	*p = next;
	if (strlen(next) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (*next == '/') {
		close(*fd);
		*fd = open_root(e);
		if (*fd < 0)
			return *fd;
	}
	return 0;
}

int pathwalk__open(int at, const char *at_name, const char *path, struct pathwalk *e)
{
	char comp[NAME_MAX + 1], *todo;
	int fd, nfd, err;
	const char *p;
	struct stat st;
	size_t dir_len;

	e->links = 0;
	e->untrusted_link = false;
	e->owner = 0;
	e->nlink = 0;
	todo = strdup(path);
	if (!todo)
		return -ENOMEM;
	if (*path == '/') {
		fd = open_root(e);
	} else {
		snprintf(e->where, sizeof(e->where), "%s", at_name);
		fd = openat(at, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0) {
		err = fd;
		goto out;
	}
	for (p = todo;;) {
		err = next_component(&p, comp);
		if (err)
			goto out;
		if (!*comp)
			break;
		if (fstat(fd, &st)) {
			err = -errno;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			goto out;
		}
		dir_len = strlen(e->where);
		where_append(e, comp);
		nfd = open_component(fd, comp);
		if (nfd < 0) {
			err = nfd;
			goto out;
		}
		if (fstat(nfd, &st)) {
			err = -errno;
			close(nfd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			err = !pathwalk__trusted_link(st.st_uid, st.st_nlink) ? -EPERM :
			      ++e->links > PATHWALK_MAX_LINKS ? -ELOOP : 0;
			if (err) {
				e->untrusted_link = err == -EPERM;
				e->owner = st.st_uid;
				e->nlink = st.st_nlink;
				close(nfd);
				goto out;
			}
			if (!on_procfs(fd)) {
				err = splice_link(nfd, &fd, &todo, &p, e);
				close(nfd);
				if (err)
					goto out;
				/* a relative target starts in the link's directory */
				if (*p != '/')
					e->where[dir_len] = '\0';
				continue;
			}
			close(nfd);
			nfd = openat(fd, comp, O_PATH | O_CLOEXEC);
			if (nfd < 0) {
				err = -errno;
				goto out;
			}
		}
		close(fd);
		fd = nfd;
	}
	free(todo);
	return fd;
out:
	if (fd >= 0)
		close(fd);
	free(todo);
	return err;
}
