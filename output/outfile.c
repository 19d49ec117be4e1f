// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c - the output file of -o: its directory reached without other
 * users' symlinks, a regular file replaced atomically (temporary file,
 * fsync, rename, fsync of the directory), a device or FIFO written in
 * place; and strftime expansion of output paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/outfile.h"
#include "output/pathwalk.h"

/*
 * Keep the temporary name within NAME_MAX (255) even for a long target
 * name: the target's name is cut to this many bytes in it.
 */
#define TMP_BASE_MAX 200
#define TMP_ATTEMPTS 100
#define NEW_FILE_MODE 0600

enum target_kind {
	TARGET_NEW,		/* nothing there: created */
	TARGET_REPLACE,		/* a regular file: replaced by a rename */
	TARGET_IN_PLACE,	/* a device, a FIFO, what a symlink names */
};

/* What a path names: its directory, held open, and what is in it. */
struct target {
	char *dir;		/* the directory as given ("." when none) */
	char *shown;		/* the same as a prefix of path ("" when none) */
	const char *name;	/* the base name, inside the path */
	int dirfd;		/* O_PATH: the directory, as checked */
	enum target_kind kind;
	int objfd;		/* O_PATH: the target written in place, else -1 */
	bool regular;		/* in place: a regular file (truncate, fsync) */
	mode_t mode;		/* TARGET_REPLACE: the permission bits to keep */
};

struct outfile {
	char *tmp;		/* the temporary file's path; NULL in place */
	const char *tmp_name;	/* its name in dirfd, inside tmp */
	char *name;		/* the target's name in dirfd */
	FILE *f;		/* writes to fd through outfile_write() */
	int dirfd;		/* O_PATH: the target's directory, as checked */
	int fd;			/* the temporary file, or the target in place */
	int write_err;		/* -errno of the first failed write(2) */
	bool in_place;
	bool sync;		/* fsync fd at commit (not a device or FIFO) */
};

static int fail_errno(struct outfile_diag *d, const char *obj, int err)
{
	if (!obj || !strcmp(obj, d->path))
		snprintf(d->msg, sizeof(d->msg), "%s", strerror(-err));
	else
		snprintf(d->msg, sizeof(d->msg), "'%s': %s", *obj ? obj : ".", strerror(-err));
	return err;
}

/* d->msg: "'obj' <why>", or just "<why>" when obj is the target itself. */
__attribute__((format(printf, 4, 5)))
static int fail_why(struct outfile_diag *d, const char *obj, int err, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (obj && strcmp(obj, d->path))
		n = snprintf(d->msg, sizeof(d->msg), "'%s' ", *obj ? obj : ".");
	if (n >= sizeof(d->msg))
		return err;
	va_start(ap, fmt);
	vsnprintf(d->msg + n, sizeof(d->msg) - n, fmt, ap);
	va_end(ap);
	return err;
}

/* What pathwalk__open() found wrong, as a message. */
static int fail_walk(struct outfile_diag *d, int err, const struct pathwalk *e)
{
	if (e->untrusted_link && e->nlink > 1)
		return fail_why(d, e->where, err, "is a symlink with %lu names (hard links), not followed",
				(unsigned long)e->nlink);
	if (e->untrusted_link)
		return fail_why(d, e->where, err, "is a symlink owned by uid %u, not followed",
				(unsigned int)e->owner);
	return fail_errno(d, e->where, err);
}

static void target__release(struct target *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	if (t->objfd >= 0)
		close(t->objfd);
	free(t->dir);
	free(t->shown);
	t->dir = t->shown = NULL;
	t->dirfd = t->objfd = -1;
}

/*
 * Split path into its directory ("." when none; shown as "" so that
 * shown/name is path again) and a base name that names a file.
 */
static int target__split(struct target *t, const char *path, struct outfile_diag *d)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len;

	if (!*path)
		return fail_errno(d, NULL, -ENOENT);
	if (!slash) {
		t->dir = strdup(".");
		t->shown = strdup("");
		t->name = path;
	} else {
		/* "/x" lives in "/", not in "" */
		dir_len = slash == path ? 1 : (size_t)(slash - path);
		t->dir = strndup(path, dir_len);
		t->shown = strndup(path, dir_len);
		t->name = slash + 1;
	}
	if (!t->dir || !t->shown)
		return fail_errno(d, NULL, -ENOMEM);
	if (!*t->name)
		return fail_why(d, NULL, -EISDIR, "no file name after the last '/'");
	if (!strcmp(t->name, ".") || !strcmp(t->name, ".."))
		return fail_why(d, NULL, -EISDIR, "'%s' is no file name", t->name);
	if (strlen(t->name) > NAME_MAX)
		return fail_why(d, NULL, -ENAMETOOLONG, "file name longer than %d bytes", NAME_MAX);
	return 0;
}

static int refuse_kind(struct outfile_diag *d, mode_t mode)
{
	if (S_ISDIR(mode))
		return fail_why(d, NULL, -EISDIR, "is a directory");
	if (S_ISBLK(mode))
		return fail_why(d, NULL, -EINVAL, "is a block device");
	if (S_ISSOCK(mode))
		return fail_why(d, NULL, -EINVAL, "is a socket");
	return fail_why(d, NULL, -EINVAL, "is not a file, a character device or a FIFO");
}

/* The bits a replaced file keeps: its own if it is ours, else private ones. */
static mode_t replace_mode(const struct stat *st)
{
	return st->st_uid == geteuid() ? st->st_mode & 0777 : NEW_FILE_MODE;
}

/*
 * Open the directory of path as checked, and decide what writing path
 * means: create, replace, or write in place (what to, held in t->objfd).
 */
static int target__prepare(struct target *t, const char *path, struct outfile_diag *d)
{
	struct pathwalk walk;
	struct stat st;
	int fd, err;

	memset(t, 0, sizeof(*t));
	t->dirfd = t->objfd = -1;
	err = target__split(t, path, d);
	if (err)
		return err;
	fd = pathwalk__open(AT_FDCWD, "", t->dir, &walk);
	if (fd < 0)
		return fail_walk(d, fd, &walk);
	t->dirfd = fd;
	if (fstat(fd, &st))
		return fail_errno(d, t->dir, -errno);
	if (!S_ISDIR(st.st_mode))
		return fail_errno(d, t->dir, -ENOTDIR);

	if (fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return fail_errno(d, NULL, -errno);
		t->kind = TARGET_NEW;
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		t->kind = TARGET_REPLACE;
		t->mode = replace_mode(&st);
		return 0;
	}
	if (!S_ISLNK(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		return refuse_kind(d, st.st_mode);
	/*
	 * Open what is there now, a symlink followed if trusted, and that of
	 * every link after it; walk.links tells whether it was one.
	 */
	fd = pathwalk__open(t->dirfd, t->shown, t->name, &walk);
	if (fd < 0)
		return fail_walk(d, fd, &walk);
	t->objfd = fd;
	if (fstat(fd, &st))
		return fail_errno(d, NULL, -errno);
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		if (!walk.links) {
			/* was a FIFO or device a moment ago: replace what is there now */
			close(t->objfd);
			t->objfd = -1;
			t->kind = TARGET_REPLACE;
			t->mode = replace_mode(&st);
			return 0;
		}
		t->regular = true;
		break;
	case S_IFIFO:
		/*
		 * Someone else's FIFO where the profile is to go would hand
		 * it to them; behind a trusted link (/dev/stdout to a pipe
		 * the invoking shell made), it is where the output belongs.
		 */
		if (!walk.links && !pathwalk__trusted_owner(st.st_uid))
			return fail_why(d, NULL, -EPERM, "is a FIFO owned by uid %u",
					(unsigned int)st.st_uid);
		break;
	case S_IFCHR:
		break;
	default:
		return refuse_kind(d, st.st_mode);
	}
	t->kind = TARGET_IN_PLACE;
	return 0;
}

/*
 * The temporary file in dirfd; a random name when the plain one exists.
 * Sets of->tmp and of->tmp_name; returns the descriptor or -errno.
 */
static int create_tmp(struct outfile *of, const struct target *t)
{
	int base_len = (int)strnlen(t->name, TMP_BASE_MAX);
	uint32_t rnd;
	int fd = -1;

	for (int i = 0; i < TMP_ATTEMPTS; i++) {
		free(of->tmp);
		of->tmp = NULL;
		if (i == 0) {
			if (asprintf(&of->tmp, "%s/.%.*s.%d.tmp", t->dir, base_len, t->name,
				     (int)getpid()) < 0)
				return -ENOMEM;
		} else {
			if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
				rnd = (uint32_t)random() ^ (uint32_t)i;
			if (asprintf(&of->tmp, "%s/.%.*s.%d.%08x.tmp", t->dir, base_len, t->name,
				     (int)getpid(), rnd) < 0)
				return -ENOMEM;
		}
		of->tmp_name = strrchr(of->tmp, '/') + 1;
		/*
		 * O_EXCL already refuses an existing symlink; O_NOFOLLOW says so
		 * explicitly, should anyone drop O_EXCL.
		 */
		fd = openat(t->dirfd, of->tmp_name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, NEW_FILE_MODE);
		if (fd >= 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	/* the old file's bits exactly, past the umask: the owner chose them */
	if (t->kind == TARGET_REPLACE && t->mode != NEW_FILE_MODE && fchmod(fd, t->mode)) {
		int err = -errno;

		close(fd);
		unlinkat(t->dirfd, of->tmp_name, 0);
		return err;
	}
	return fd;
}

/*
 * Open what objfd holds for writing, through /proc/self/fd: the very
 * object checked, whatever its name means by now. O_NONBLOCK makes a FIFO
 * without a reader fail with ENXIO rather than wait; writes block again.
 */
static int open_in_place(const struct target *t)
{
	char proc[64];
	int fd, fl;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", t->objfd);
	fd = open(proc, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (t->regular ? O_TRUNC : 0));
	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		fl = -errno;
		close(fd);
		return fl;
	}
	return fd;
}

static void outfile__free(struct outfile *of)
{
	if (!of)
		return;
	if (of->f)
		fclose(of->f);
	if (of->fd >= 0)
		close(of->fd);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->name);
	free(of->tmp);
	free(of);
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

static void diag_init(struct outfile_diag *d, const char *path)
{
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->msg[0] = '\0';
}

int outfile__open(const char *path, struct outfile **out, struct outfile_diag *diag)
{
	static const cookie_io_functions_t io = {
		.write = outfile_write,
		.close = outfile_close,
	};
	struct outfile_diag spare;
	struct outfile *of;
	struct target t;
	int fd, err;

	*out = NULL;
	if (!diag)
		diag = &spare;
	diag_init(diag, path);
	err = target__prepare(&t, path, diag);
	if (err)
		goto err_target;
	of = calloc(1, sizeof(*of));
	if (!of) {
		err = fail_errno(diag, NULL, -ENOMEM);
		goto err_target;
	}
	of->fd = -1;
	of->dirfd = -1;
	of->name = strdup(t.name);
	if (!of->name) {
		err = fail_errno(diag, NULL, -ENOMEM);
		goto err_out;
	}
	if (t.kind == TARGET_IN_PLACE) {
		fd = open_in_place(&t);
		if (fd == -ENXIO && !t.regular)
			fail_why(diag, NULL, fd, "is a FIFO without a reader");
		else if (fd < 0)
			fail_errno(diag, NULL, fd);
		of->in_place = true;
		of->sync = t.regular;
	} else {
		fd = create_tmp(of, &t);
		if (fd < 0)
			fail_errno(diag, t.dir, fd);
		of->sync = true;
	}
	if (fd < 0) {
		err = fd;
		goto err_out;
	}
	of->fd = fd;
	of->dirfd = t.dirfd;
	t.dirfd = -1;
	of->f = fopencookie(of, "w", io);
	if (!of->f) {
		err = fail_errno(diag, NULL, -ENOMEM);
		if (!of->in_place)
			unlinkat(of->dirfd, of->tmp_name, 0);
		goto err_out;
	}
	target__release(&t);
	*out = of;
	return 0;

err_out:
	outfile__free(of);
err_target:
	target__release(&t);
	return err;
}

int outfile__check(const char *pattern, time_t now, struct outfile_diag *diag)
{
	struct outfile_diag spare;
	struct outfile probe = { .fd = -1, .dirfd = -1 };
	struct target t;
	int fd, err;

	if (!diag)
		diag = &spare;
	diag_init(diag, pattern);
	err = outfile__expand_path(pattern, now, diag->path, sizeof(diag->path));
	if (err) {
		diag_init(diag, pattern);
		return fail_errno(diag, NULL, err);
	}
	err = target__prepare(&t, diag->path, diag);
	if (!err && t.kind != TARGET_IN_PLACE) {
		/* what commit will need: a file created in that directory */
		fd = create_tmp(&probe, &t);
		if (fd < 0) {
			err = fail_errno(diag, t.dir, fd);
		} else {
			close(fd);
			unlinkat(t.dirfd, probe.tmp_name, 0);
		}
		free(probe.tmp);
	}
	target__release(&t);
	return err;
}

FILE *outfile__stream(struct outfile *of)
{
	return of->f;
}

int outfile__dup_dir(const struct outfile *of)
{
	int fd = fcntl(of->dirfd, F_DUPFD_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

const char *outfile__tmp_path(const struct outfile *of)
{
	return of->tmp;
}

/* fsync of the directory itself: an O_PATH descriptor cannot be synced */
static int fsync_dir(int dirfd)
{
	int fd, err = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
	if (!err && of->sync && fsync(of->fd))
		err = -errno;
	/* close() can report a write error too (NFS) */
	if (close(of->fd) && !err)
		err = -errno;
	of->fd = -1;
	if (of->in_place) {
		outfile__free(of);
		return err;
	}
	if (!err && renameat(of->dirfd, of->tmp_name, of->dirfd, of->name))
		err = -errno;
	if (err) {
		unlinkat(of->dirfd, of->tmp_name, 0);
		outfile__free(of);
		return err;
	}
	err = fsync_dir(of->dirfd);
	outfile__free(of);
	return err;
}

void outfile__abort(struct outfile *of)
{
	if (!of)
		return;
	if (!of->in_place)
		unlinkat(of->dirfd, of->tmp_name, 0);
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

/*
 * 64 pairs of intervals spread over a day: a conversion finer than the
 * interval changes between any two, and where the finest is coarser (the
 * hour with -i 60, the date with -i 3600), most pairs share a name.
 */
#define REPEAT_PROBES 64

bool outfile__repeats(const char *pattern, long interval, time_t now)
{
	char a[PATH_MAX], b[PATH_MAX];
	long step = interval > 0 ? interval : 1;
	/* the probes span a day at least, each pair one interval apart */
	long span = 86400 / step + 1 > REPEAT_PROBES ? REPEAT_PROBES : 86400 / step + 1;
	long stride = (86400 / step + 1) / span;

	for (long k = 0; k < span; k++) {
		time_t t = now + (time_t)(k * (stride ? stride : 1)) * step;

		if (outfile__expand_path(pattern, t, a, sizeof(a)) ||
		    outfile__expand_path(pattern, t + step, b, sizeof(b)))
			return false;
		if (!strcmp(a, b))
			return true;
	}
	return false;
}
