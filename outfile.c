// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c - atomic replacement of an output file (temporary file, fsync,
 * rename, fsync of the directory) and strftime expansion of output paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "outfile.h"

/*
 * Keep the temporary name within NAME_MAX (255) even for a long target
 * name: the target's name is cut to this many bytes in it.
 */
#define TMP_BASE_MAX 200
#define TMP_ATTEMPTS 100

struct outfile {
	char *path;	/* the target */
	char *dir;	/* its directory, to fsync after the rename */
	char *tmp;	/* the temporary file beside it */
	FILE *f;	/* writes to fd through outfile_write() */
	int fd;
	int write_err;	/* -errno of the first failed write(2) */
};

static void outfile__free(struct outfile *of)
{
	if (!of)
		return;
	if (of->f)
		fclose(of->f);
	if (of->fd >= 0)
		close(of->fd);
	free(of->path);
	free(of->dir);
	free(of->tmp);
	free(of);
}

/* Split path into its directory ("." when none) and a non-empty base name. */
static int split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!*path)
		return -ENOENT;
	if (!slash) {
		*dir = strdup(".");
		*base = path;
	} else {
		/* "/x" lives in "/", not in "" */
		*dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
		*base = slash + 1;
	}
	if (!*dir)
		return -ENOMEM;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		free(*dir);
		*dir = NULL;
		return -EISDIR;
	}
	return 0;
}

/* Create the temporary file; try a random name when the plain one exists. */
static int create_tmp(struct outfile *of, const char *base)
{
	int base_len = (int)strnlen(base, TMP_BASE_MAX);
	uint32_t rnd;
	int fd;

	for (int i = 0; i < TMP_ATTEMPTS; i++) {
		free(of->tmp);
		of->tmp = NULL;
		if (i == 0) {
			if (asprintf(&of->tmp, "%s/.%.*s.%d.tmp", of->dir, base_len, base,
				     (int)getpid()) < 0)
				return -ENOMEM;
		} else {
			if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
				rnd = (uint32_t)random() ^ (uint32_t)i;
			if (asprintf(&of->tmp, "%s/.%.*s.%d.%08x.tmp", of->dir, base_len, base,
				     (int)getpid(), rnd) < 0)
				return -ENOMEM;
		}
		/*
		 * O_EXCL already refuses an existing symlink; O_NOFOLLOW says so
		 * explicitly, should anyone drop O_EXCL.
		 */
		fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * The stream's write function. A stdio stream forgets why a write failed
 * (ferror() is all that is left by the time of fflush()); keeping the
 * first errno lets commit report "No space left on device" rather than
 * a generic I/O error.
 */
static ssize_t outfile_write(void *cookie, const char *buf, size_t size)
{
	struct outfile *of = cookie;
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = write(of->fd, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			if (!of->write_err)
				of->write_err = -errno;
			break;
		}
		done += n;
	}
	/* short of size, stdio marks the stream in error */
	return done;
}

/* The descriptor is closed by commit or abort, after fsync. */
static int outfile_close(void *cookie)
{
	(void)cookie;
	return 0;
}

int outfile__open(const char *path, struct outfile **out)
{
	static const cookie_io_functions_t io = {
		.write = outfile_write,
		.close = outfile_close,
	};
	struct outfile *of;
	const char *base;
	int fd, err;

	*out = NULL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	of->fd = -1;
	of->path = strdup(path);
	if (!of->path) {
		err = -ENOMEM;
		goto err_out;
	}
	err = split_path(path, &of->dir, &base);
	if (err)
		goto err_out;
	fd = create_tmp(of, base);
	if (fd < 0) {
		err = fd;
		goto err_out;
	}
	of->fd = fd;
	of->f = fopencookie(of, "w", io);
	if (!of->f) {
		err = -ENOMEM;
		unlink(of->tmp);
		goto err_out;
	}
	*out = of;
	return 0;

err_out:
	outfile__free(of);
	return err;
}

FILE *outfile__stream(struct outfile *of)
{
	return of->f;
}

const char *outfile__tmp_path(const struct outfile *of)
{
	return of->tmp;
}

static int fsync_dir(const char *dir)
{
	int fd, err = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* some file systems cannot sync a directory: nothing more to do there */
	if (fsync(fd) && errno != EINVAL)
		err = -errno;
	close(fd);
	return err;
}

int outfile__commit(struct outfile *of)
{
	int err;

	fflush(of->f);
	err = of->write_err ? of->write_err : ferror(of->f) ? -EIO : 0;
	fclose(of->f);
	of->f = NULL;
	if (!err && fsync(of->fd))
		err = -errno;
	/* close() can report a write error too (NFS) */
	if (close(of->fd) && !err)
		err = -errno;
	of->fd = -1;
	if (!err && rename(of->tmp, of->path))
		err = -errno;
	if (err) {
		unlink(of->tmp);
		outfile__free(of);
		return err;
	}
	err = fsync_dir(of->dir);
	outfile__free(of);
	return err;
}

void outfile__abort(struct outfile *of)
{
	if (!of)
		return;
	unlink(of->tmp);
	outfile__free(of);
}

int outfile__expand_path(const char *pattern, time_t t, char *buf, size_t size)
{
	size_t room, n;
	struct tm tm;
	char *big;

	if (!*pattern || !size)
		return -EINVAL;
	if (!localtime_r(&t, &tm))
		return -EOVERFLOW;
	if (strftime(buf, size, pattern, &tm))
		return 0;
	/*
	 * 0 means either "did not fit" or "expanded to nothing": try again
	 * with more room than any expansion of this pattern can take.
	 */
	room = 16 * (strlen(pattern) + 64);
	if (room <= size)
		return -EINVAL;
	big = malloc(room);
	if (!big)
		return -ENOMEM;
	n = strftime(big, room, pattern, &tm);
	free(big);
	buf[0] = '\0';
	return n ? -ENAMETOOLONG : -EINVAL;
}
