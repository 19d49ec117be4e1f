/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile.h - write the output file of -o FILE. profile runs as root and
 * FILE may sit in a directory other users can write, so:
 *
 * - the directory is reached one component at a time from "/" (or "."),
 *   and a symlink on the way is followed only when it is owned by root or
 *   by the user running profile (geteuid()); a link someone else owns is
 *   an error naming the link and its owner. The directory found is kept
 *   open, and everything after happens relative to it: swapping a
 *   directory for a symlink after the check changes nothing.
 * - a regular file (or no file) at FILE is replaced atomically: written to
 *   a temporary file beside it, fsynced and renamed over it. Readers see
 *   the old file or the complete new one, and a failed write (disk full)
 *   leaves the old file as it was.
 * - a character device or a FIFO at FILE (/dev/null, a named pipe), or a
 *   symlink to one owned by root or the user (/dev/stdout ->
 *   /proc/self/fd/1), is written in place: the device node or the link
 *   stays what it was. A regular file behind such a symlink is truncated
 *   and written in place, not atomically. A FIFO found at FILE itself must
 *   be owned by root or the user: another user's FIFO in /tmp would read
 *   the profile. A block device, a socket or a directory is refused.
 * - a new file is created mode 0600 (less the umask): a profile names the
 *   processes and functions of every user. A file replaced that belongs
 *   to the user running profile keeps its permission bits.
 *
 *	struct outfile *of;
 *	err = outfile__open("out.pb.gz", &of, &diag);
 *	... write to outfile__stream(of) ...
 *	err = err ? (outfile__abort(of), err) : outfile__commit(of);
 *
 * Commit and abort both free the outfile, whatever they return.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

struct outfile;

/*
 * Why outfile__check() or outfile__open() failed, for the caller's one-line
 * message "cannot write '<path>': <msg>". msg names the object refused when
 * it is not the target itself: "'/srv/out' is a symlink owned by uid 1000,
 * not followed", "'/srv/missing': No such file or directory", "is a block
 * device".
 */
struct outfile_diag {
	char path[PATH_MAX];	/* the target, strftime patterns expanded */
	char msg[PATH_MAX + 128];
};

/*
 * Before sampling: expand pattern at now and do what outfile__open() would,
 * short of writing: the base name is a name (not empty, ".", ".." or longer
 * than NAME_MAX), the directory is reached as above, the target is of a
 * kind that can be written, and, for a target to be replaced, creating the
 * temporary file works: it is created and removed again, since access(2)
 * says yes to root on a directory where an immutable flag, an LSM or NFS
 * root squashing still say no. A FIFO is not opened (its reader may come
 * later). Patterns that expand differently later are checked again when
 * written. Returns 0, or -errno with diag filled in (diag may be NULL).
 */
int outfile__check(const char *pattern, time_t now, struct outfile_diag *diag);

/*
 * Open path for writing as described above. For a file to be replaced,
 * create the temporary file ".<name>.<pid>.tmp" (or, when that exists, one
 * with a random part) in its directory, with O_CREAT|O_EXCL|O_NOFOLLOW: a
 * symlink planted at the temporary name makes the attempt fail rather than
 * be followed. A target written in place is opened with O_NONBLOCK, so a
 * FIFO without a reader fails at once with -ENXIO instead of hanging;
 * writes then block as usual. Returns 0 and *out, or -errno (-ENOTDIR,
 * -ENOENT, -EACCES, -EPERM for another user's symlink...) with diag filled
 * in (diag may be NULL).
 */
int outfile__open(const char *path, struct outfile **out, struct outfile_diag *diag);

/* The stream to write the contents into; fully buffered. */
FILE *outfile__stream(struct outfile *of);

/*
 * A descriptor of the directory checked at open (O_PATH, close-on-exec),
 * the caller's to close, for work that must happen in that very directory
 * after commit (--keep), not at whatever its path names by then; -errno.
 */
int outfile__dup_dir(const struct outfile *of);

/* The temporary file's path, for messages and tests; NULL when in place. */
const char *outfile__tmp_path(const struct outfile *of);

/*
 * Flush, fsync and close the temporary file, rename it over the target
 * (in the directory checked at open) and fsync the directory. On a failure
 * up to the rename the temporary file is removed and the target is
 * untouched; -errno of the first failure is returned (-ENOSPC, -EIO,
 * -EFBIG...). A failure to fsync the directory after the rename is
 * returned too, though the new file is then in place. In place: flush
 * (fsync a regular file) and close; -EPIPE when a pipe's reader went away.
 */
int outfile__commit(struct outfile *of);

/*
 * Remove the temporary file and free of. Accepts NULL. What was already
 * written to a target written in place stays written.
 */
void outfile__abort(struct outfile *of);

/*
 * Expand strftime(3) conversions in a path pattern ("profile-%F-%H%M%S.svg")
 * at time t in local time. A literal '%' is written "%%". Returns 0, or
 * -EINVAL for an empty pattern or an expansion that is empty, -ENAMETOOLONG
 * when the result does not fit in size bytes (NUL included).
 */
int outfile__expand_path(const char *pattern, time_t t, char *buf, size_t size);

/*
 * Whether pattern gives two of the next intervals (of interval seconds,
 * from now) one name, so that a profile would replace the one before: no
 * strftime conversion in it that changes that often. Patterns that fail
 * to expand are outfile__check()'s to report: false.
 */
bool outfile__repeats(const char *pattern, long interval, time_t now);

#endif /* OUTFILE_H */
