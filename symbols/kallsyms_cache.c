// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms_cache.c - the kernel image's symbols of this boot kept on disk
 * (kallsyms_cache.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/kallsyms_cache.h"

#define HEADER_FMT "# profile kallsyms 1 %s\n"

int kallsyms_cache__boot_id(const char *proc_root, char *id, size_t size)
{
	char path[PATH_MAX];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(id, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	len = strcspn(id, "\n");
	id[len] = '\0';
	/* a uuid: nothing that could end the header line early */
	if (!len || strspn(id, "0123456789abcdef-") != len)
		return -EINVAL;
	return 0;
}

/* The header's line for boot_id into buf; its length, or -ENAMETOOLONG. */
static int header(char *buf, size_t size, const char *boot_id)
{
	int n = snprintf(buf, size, HEADER_FMT, boot_id);

	return n > 0 && (size_t)n < size ? n : -ENAMETOOLONG;
}

/* Root's own file, which nobody else could have written: 0 or -EPERM. */
static int trusted(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

struct ksyms *kallsyms_cache__load(const char *dir, const char *boot_id)
{
	char path[PATH_MAX], want[KALLSYMS_BOOT_ID_LEN + 32], got[sizeof(want)];
	struct ksyms *ks = NULL;
	int fd, n, err;

	n = header(want, sizeof(want), boot_id);
	if (n < 0 || snprintf(path, sizeof(path), "%s/%s", dir, KALLSYMS_CACHE_NAME) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	err = trusted(fd);
	if (!err && (pread(fd, got, n, 0) != n || memcmp(got, want, n)))
		err = -ESTALE;
	/* the header is no symbol line: the parser skips it */
	if (!err) {
		ks = ksyms__load_fd(fd);
		err = ks ? 0 : -errno;
	}
	close(fd);
	errno = -err;
	return ks;
}

int kallsyms_cache__store(const char *dir, const char *boot_id, const struct ksyms *ks)
{
	char path[PATH_MAX], tmp[PATH_MAX], head[KALLSYMS_BOOT_ID_LEN + 32];
	int fd, err;
	FILE *f;

	if (header(head, sizeof(head), boot_id) < 0 ||
	    snprintf(path, sizeof(path), "%s/%s", dir, KALLSYMS_CACHE_NAME) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = fputs(head, f) < 0 ? -EIO : ksyms__write_image(ks, f);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
