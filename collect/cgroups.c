// SPDX-License-Identifier: GPL-2.0
/*
 * cgroups.c - the cgroup v2 mount, --cgroup paths and cgroup ids (cgroups.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "collect/cgroups.h"

/*
 * mountinfo escapes space, tab, newline and backslash in paths as \ooo:
 * undo it in place.
 */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/*
 * The mount point of a mountinfo line if its file system is cgroup2:
 * "36 25 0:31 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw".
 * The optional fields end at " - ", then comes the type.
 */
static char *cgroup2_mount_point(char *line)
{
	char *sep = strstr(line, " - "), *point, *end;

	if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
		return NULL;
	/* fields 1-4: id, parent, major:minor, root; the fifth is the point */
	point = line;
	for (int i = 0; i < 4; i++) {
		point = strchr(point, ' ');
		if (!point || point > sep)
			return NULL;
		point++;
	}
	end = strchr(point, ' ');
	if (!end || end > sep)
		return NULL;
	*end = '\0';
	unescape_octal(point);
	return point;
}

int cgroup2__mount(const char *mountinfo, char *buf, size_t size)
{
	FILE *f = fopen(mountinfo, "re");
	char *line = NULL, *point;
	size_t cap = 0;
	int err = -ENODEV;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		point = cgroup2_mount_point(line);
		if (!point)
			continue;
		if (strlen(point) >= size) {
			err = -ENAMETOOLONG;
			continue;
		}
		strcpy(buf, point);
		err = 0;
		break;
	}
	free(line);
	fclose(f);
	return err;
}

/* 0 when path is a directory of cgroup v2, else -errno as cgroup2__resolve() says. */
static int check_dir(const char *path)
{
	struct statfs fs;
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statfs(path, &fs))
		return -errno;
	return fs.f_type == CGROUP2_SUPER_MAGIC ? 0 : -EMEDIUMTYPE;
}

static int copy_path(char *buf, size_t size, const char *a, const char *b)
{
	int n;

	if (!strcmp(b, "/"))
		b = "";		/* the root cgroup: the mount itself */
	n = snprintf(buf, size, "%s%s%s", a, *b == '/' || !*b ? "" : "/", b);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int cgroup2__resolve(const char *mount, const char *arg, char *buf, size_t size)
{
	int err = -ENOENT, under;

	if (!*arg)
		return -ENOENT;
	/* a cgroup path first: /system.slice is no directory of / */
	if (mount) {
		under = copy_path(buf, size, mount, arg);
		if (under)
			return under;
		under = check_dir(buf);
		if (!under)
			return 0;
	}
	if (*arg == '/') {
		err = check_dir(arg);
		if (!err || err == -EMEDIUMTYPE || err == -ENOTDIR) {
			if (strlen(arg) >= size)
				return -ENAMETOOLONG;
			strcpy(buf, arg);
		}
	}
	return err;
}

int cgroup2__id_at(int dirfd, const char *name, uint64_t *id)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + 64];
	} h = {};
	int mount_id;

	h.fh.handle_bytes = sizeof(h.bytes) - sizeof(struct file_handle);
	if (name_to_handle_at(dirfd, name, &h.fh, &mount_id, 0))
		return -errno;
	/* kernfs: the node's 64-bit id, the cgroup's id */
	if (h.fh.handle_bytes < sizeof(*id))
		return -EPROTO;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}
