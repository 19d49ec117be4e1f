/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_dir.h - directories root keeps what it read in, between runs (the
 * unwind table cache, debuginfod's cache): a file planted there would be
 * taken for what root put there, so the directory and every one above it
 * must be beyond other users' reach.
 */
#ifndef CACHE_DIR_H
#define CACHE_DIR_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Is dir safe as root's cache: an absolute path whose every existing
 * directory, from it up to /, is owned by root or uid and writable by
 * nobody else, except a sticky directory of root's (/tmp) holding an
 * existing one of ours. Nothing is followed (lstat). 0, or -EPERM with
 * why set ("'/var/x' can be written by other users: not a safe cache for
 * root").
 */
int cache_dir__check(const char *dir, uid_t uid, char *why, size_t size);

/*
 * Make dir, mode last, and the directories above it that are missing,
 * mode parents: after the check above, so only below directories nobody
 * else can write. 0 or -errno.
 */
int cache_dir__make(const char *dir, mode_t parents, mode_t last);

#endif /* CACHE_DIR_H */
