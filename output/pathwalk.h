/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pathwalk.h - resolve a path the way the kernel does, one component at a
 * time, but follow a symlink only when root or the user running profile
 * owns it. A root process that writes where other users can create links
 * would otherwise write wherever their links point. The result is an
 * O_PATH descriptor, so what was checked is what is then used, however the
 * names change meanwhile.
 */
#ifndef PATHWALK_H
#define PATHWALK_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* symlinks followed in one walk, as the kernel's MAXSYMLINKS */
#define PATHWALK_MAX_LINKS 40

/* How a walk went: where it stopped, for the caller's message. */
struct pathwalk {
	char where[PATH_MAX];	/* the path walked, up to the component at fault */
	int links;		/* symlinks followed */
	bool untrusted_link;	/* -EPERM for a symlink not followed ... */
	uid_t owner;		/* ... which this user owns */
	nlink_t nlink;		/* ... and which has this many names */
};

/*
 * Whose symlinks are followed: root's (/var/run -> /run, /dev/stdout) and
 * those of the effective user running profile.
 */
bool pathwalk__trusted_owner(uid_t uid);

/*
 * A symlink that may be followed: a trusted owner, and one name only. Where
 * fs.protected_hardlinks is 0, anyone can give a link of root's (say
 * /etc/alternatives/editor) a second name in a directory of their own.
 */
bool pathwalk__trusted_link(uid_t owner, nlink_t nlink);

/*
 * Resolve path from the directory at (AT_FDCWD or a descriptor, named
 * at_name in w->where: "" for the current directory), or from "/" when
 * path is absolute. Every component is opened with O_PATH|O_NOFOLLOW; a
 * symlink, the last component's too, is followed only when trusted_link(),
 * through readlinkat() and walking on, at most PATHWALK_MAX_LINKS times
 * (-ELOOP); w->links counts them. Links in /proc (/proc/self/fd/1) name objects, not paths:
 * those, once trusted, the kernel follows. Returns an O_PATH|O_CLOEXEC
 * descriptor of what path names, or -errno (-ENOENT, -ENOTDIR, -EACCES,
 * -ELOOP, -ENAMETOOLONG; -EPERM for a link not trusted, with
 * w->untrusted_link, w->owner and w->nlink set) with w->where naming the
 * component at fault.
 */
int pathwalk__open(int at, const char *at_name, const char *path, struct pathwalk *w);

#endif /* PATHWALK_H */
