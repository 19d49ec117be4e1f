/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile.h - write an output file atomically: into a temporary file
 * beside it, then fsync and rename over the target. Readers see the old
 * file or the complete new one, never a truncated profile, and a failed
 * write (disk full, unwritable directory) leaves the old file as it was.
 *
 *	struct outfile *of;
 *	err = outfile__open("out.pb.gz", &of);
 *	... write to outfile__stream(of) ...
 *	err = err ? (outfile__abort(of), err) : outfile__commit(of);
 *
 * Commit and abort both free the outfile, whatever they return.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

struct outfile;

/*
 * Create the temporary file ".<name>.<pid>.tmp" (or, when that exists,
 * one with a random part) in the directory of path, with O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0644 less the umask: a symlink planted at the temporary
 * name makes the attempt fail rather than be followed. Returns 0 and
 * *out, or -errno (-ENOTDIR, -ENOENT, -EACCES... for the directory).
 */
int outfile__open(const char *path, struct outfile **out);

/* The stream to write the contents into; fully buffered. */
FILE *outfile__stream(struct outfile *of);

/* The temporary file's path, for messages and tests. */
const char *outfile__tmp_path(const struct outfile *of);

/*
 * Flush, fsync and close the temporary file, rename it over the target
 * (a symlink at the target is replaced, not followed) and fsync the
 * directory. On a failure up to the rename the temporary file is removed
 * and the target is untouched; -errno of the first failure is returned
 * (-ENOSPC, -EIO, -EFBIG...). A failure to fsync the directory after the
 * rename is returned too, though the new file is then in place.
 */
int outfile__commit(struct outfile *of);

/* Remove the temporary file and free of. Accepts NULL. */
void outfile__abort(struct outfile *of);

/*
 * Expand strftime(3) conversions in a path pattern ("profile-%F-%H%M%S.svg")
 * at time t in local time. A literal '%' is written "%%". Returns 0, or
 * -EINVAL for an empty pattern or an expansion that is empty, -ENAMETOOLONG
 * when the result does not fit in size bytes (NUL included).
 */
int outfile__expand_path(const char *pattern, time_t t, char *buf, size_t size);

#endif /* OUTFILE_H */
