// SPDX-License-Identifier: GPL-2.0
/*
 * retention.c - remove the oldest files an -o pattern wrote (retention.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/escape.h"
#include "output/retention.h"

/*
 * What conversion c expands to: a digit run of width w, or a fixed shape
 * ('D' a digit, anything else itself); NULL and w 0 for none we match.
 */
static const char *shape_of(char c, int *w)
{
	*w = 0;
	switch (c) {
	case 'Y': case 'G':
		*w = 4;
		return NULL;
	case 'm': case 'd': case 'H': case 'M': case 'S': case 'y': case 'C': case 'g':
	case 'V': case 'U': case 'W': case 'I':
		*w = 2;
		return NULL;
	case 'j':
		*w = 3;
		return NULL;
	case 'u': case 'w':
		*w = 1;
		return NULL;
	case 'F':
		return "DDDD-DD-DD";
	case 'T':
		return "DD:DD:DD";
	case 'R':
		return "DD:DD";
	default:
		return NULL;
	}
}

/* Whether %c is one we match: fixed digits, a shape, %s, or %%. */
static bool known(char c)
{
	int w;

	return shape_of(c, &w) || w || c == 's' || c == '%';
}

int retention__check(const char *pattern, const char **why)
{
	const char *slash = strrchr(pattern, '/'), *base = slash ? slash + 1 : pattern;
	bool any = false;

	if (slash && memchr(pattern, '%', (size_t)(slash - pattern))) {
		*why = "--keep needs the strftime patterns of -o in the file name, not the directory";
		return -EINVAL;
	}
	for (const char *p = base; *p; p++) {
		if (*p != '%')
			continue;
		if (!known(p[1])) {
			*why = "--keep matches only -o conversions that print digits "
			       "(%Y %m %d %H %M %S %F %T %R %s %j %y %u %w %G %g %V %U %W %C %I) or %%";
			return -EINVAL;
		}
		any |= p[1] != '%';
		p++;
	}
	if (!any) {
		*why = "--keep needs -o FILE with strftime patterns (one file per interval or run)";
		return -EINVAL;
	}
	return 0;
}

static bool digits(const char **n, int w)
{
	for (int i = 0; i < w; i++, (*n)++)
		if (!isdigit((unsigned char)**n))
			return false;
	return true;
}

bool retention__matches(const char *base, const char *name)
{
	const char *p = base, *n = name;

	while (*p) {
		const char *shape;
		int w;

		if (*p != '%') {
			if (*n++ != *p++)
				return false;
			continue;
		}
		shape = shape_of(p[1], &w);
		if (p[1] == '%') {
			if (*n++ != '%')
				return false;
		} else if (p[1] == 's') {
			/* 1 to 20 digits, each length tried: what follows decides */
			for (int len = 1; len <= 20 && isdigit((unsigned char)n[len - 1]); len++)
				if (retention__matches(p + 2, n + len))
					return true;
			return false;
		} else if (shape) {
			for (; *shape; shape++, n++)
				if (*shape == 'D' ? !isdigit((unsigned char)*n) : *n != *shape)
					return false;
		} else if (!w || !digits(&n, w)) {
			return false;
		}
		p += 2;
	}
	return !*n;
}

struct kept {
	char *name;
	struct timespec mtime;
};

/* Newest first: mtime, then name, both descending. */
static int cmp_newest(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return -strcmp(x->name, y->name);
}

const char *retention__base(const char *pattern)
{
	const char *slash = strrchr(pattern, '/');

	return slash ? slash + 1 : pattern;
}

/*
 * The names in dir that base could have written, of regular files of
 * ours, into *v. -E2BIG after max_entries entries: the listing is cut
 * short, and what it holds is not to act on.
 */
static int list_matching(DIR *dp, const char *base, size_t max_entries, struct kept **v,
			 size_t *nr)
{
	size_t cap = 0, seen = 0;
	struct dirent *d;
	int dfd = dirfd(dp);

	while ((d = readdir(dp))) {
		struct stat st;

		if (++seen > max_entries)
			return -E2BIG;
		if (!retention__matches(base, d->d_name))
			continue;
		/* the entry itself, never what a symlink names; ours alone */
		if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (*nr == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct kept *nv = reallocarray(*v, ncap, sizeof(**v));

			if (!nv)
				return -ENOMEM;
			*v = nv;
			cap = ncap;
		}
		(*v)[*nr].name = strdup(d->d_name);
		if (!(*v)[*nr].name)
			return -ENOMEM;
		(*v)[(*nr)++].mtime = st.st_mtim;
	}
	return 0;
}

int retention__apply_at(int dirfd, const char *base, long keep, size_t max_entries, FILE *err)
{
	struct kept *v = NULL;
	size_t nr = 0;
	int dfd, removed = 0, e;
	DIR *dp;

	/* a directory stream of its own: dirfd may be O_PATH, and stays the caller's */
	dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	dp = fdopendir(dfd);
	if (!dp) {
		e = -errno;
		close(dfd);
		return e;
	}
	e = list_matching(dp, base, max_entries, &v, &nr);
	if (!e && nr)
		qsort(v, nr, sizeof(*v), cmp_newest);
	for (size_t i = 0; i < nr; i++) {
		if (!e && i >= (size_t)keep) {
			if (!unlinkat(dfd, v[i].name, 0)) {
				removed++;
			} else if (errno != ENOENT) {
				fputs("profile: --keep: cannot remove '", err);
				escape__text(err, v[i].name);
				fprintf(err, "': %s\n", strerror(errno));
			}
		}
		free(v[i].name);
	}
	free(v);
	closedir(dp);
	return e ? e : removed;
}
