/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retention.h - --keep N: after each file -o writes from a strftime
 * pattern, remove all but the N newest files that the pattern could have
 * written in its directory. Nothing else is touched: a name must be the
 * pattern with each conversion replaced by digits of its width (%F by
 * DDDD-DD-DD, %T by DD:DD:DD, %s by 1-20 digits, %% by %), the entry a
 * regular file (not a symlink) owned by the user the tool runs as.
 * Newest is by modification time, then by name.
 */
#ifndef RETENTION_H
#define RETENTION_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Whether --keep can work with pattern (-o's argument): 0, or -EINVAL
 * with why (static text) in *why: no conversion in the file name, one in
 * the directory part, or one whose output is not digits of a fixed width.
 */
int retention__check(const char *pattern, const char **why);

/* Whether name could be the expansion of base (the pattern's file name). */
bool retention__matches(const char *base, const char *name);

/* Entries of one directory read at most (retention__apply_at()'s max_entries). */
#define RETENTION_MAX_ENTRIES (1 << 20)

/* The file name part of an -o pattern: what retention__apply_at() matches. */
const char *retention__base(const char *pattern);

/*
 * In the directory dirfd (any descriptor of it, O_PATH too: the one -o
 * reached and wrote the file in, never the path walked again, which a
 * user owning a component of it could have swapped for a symlink since),
 * keep the keep newest files whose names base (the pattern's file name)
 * could have written, and remove the others. A directory of more than
 * max_entries entries is left as it is (-E2BIG): removing the oldest of
 * part of a listing could remove files newer than some not seen. Returns
 * how many were removed, or -errno (the directory could not be read); a
 * file that cannot be removed is said on err.
 */
int retention__apply_at(int dirfd, const char *base, long keep, size_t max_entries, FILE *err);

#endif /* RETENTION_H */
