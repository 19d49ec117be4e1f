/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_files.h - what looking at files for a CPython interpreter found
 * (py_procs.h), by file stamp (common/file_stamp.h), so that a file many processes
 * map is read once: the interpreters (their py_elf, ~1.4 KiB each) and,
 * apart and small, the files without one. Any local user can map files
 * without end, and touch them for new stamps: each kind is bounded, and
 * when it is full its least recently used entry is forgotten (counted),
 * to be read again if it is met again.
 */
#ifndef PY_FILES_H
#define PY_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "common/file_stamp.h"
#include "python/py_elf.h"

/* Kept at once, at most: files with an interpreter, and files without. */
#define PY_FILES_MAX_INTERPS 64
#define PY_FILES_MAX_OTHERS 4096

struct py_file {
	struct file_stamp id;
	int status;			/* 0: an interpreter, *pe; else -errno (-ENOENT: none) */
	const struct py_elf *pe;	/* NULL unless status is 0 */
};

struct py_files_stats {
	uint64_t interps, others;	/* kept now */
	uint64_t forgotten;		/* entries forgotten for room */
};

struct py_files;

/* At most max_interps and max_others (each at least 1) kept. NULL with errno. */
struct py_files *py_files__new(size_t max_interps, size_t max_others);
void py_files__free(struct py_files *c);

/* What file id was found to hold, now the most recently used; NULL: not known. */
const struct py_file *py_files__find(struct py_files *c, const struct file_stamp *id);
/*
 * Keep what file id holds (status 0 and pe, copied; else -errno, pe
 * unused), forgetting its kind's least recently used entry when full.
 * The entry, valid until the next py_files__add(); NULL with errno.
 */
const struct py_file *py_files__add(struct py_files *c, const struct file_stamp *id, int status,
				    const struct py_elf *pe);

void py_files__stats(const struct py_files *c, struct py_files_stats *st);

#endif /* PY_FILES_H */
