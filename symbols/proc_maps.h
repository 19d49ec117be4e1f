/* SPDX-License-Identifier: GPL-2.0 */
/* proc_maps.h - /proc/PID/maps parsing. */
#ifndef PROC_MAPS_H
#define PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/file_stamp.h"

struct map_entry {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	uint64_t inode;
	unsigned int dev_major, dev_minor;
	char perms[5];		/* "r-xp" */
	bool deleted;		/* the path ended in " (deleted)" */
	char *path;		/* "" for anonymous maps, "[vdso]", ...; " (deleted)" removed */
	/*
	 * With stamped, the file mapped as a stat(2) of its map_files link
	 * gave it at the reading (proc_maps__stamp()): symbols, unwind
	 * tables and Python find what they know of it without a look of
	 * their own. Without, each opens it as before.
	 */
	bool stamped;
	struct file_stamp stamp;
};

struct proc_maps {
	struct map_entry *entries;	/* sorted by start, as the kernel prints them */
	size_t nr;
};

/*
 * Parse one line (without or with its trailing newline) into e; e->path is
 * allocated. Returns 0, -EINVAL for a malformed line, -ENOMEM.
 */
int map_entry__parse(const char *line, struct map_entry *e);
void map_entry__release(struct map_entry *e);
static inline bool map_entry__is_exec(const struct map_entry *e)
{
	return e->perms[2] == 'x';
}

/* Executable mappings only: the only ones a sampled IP can be in. */
int proc_maps__load_buf(const char *buf, size_t len, struct proc_maps *m);
/*
 * The file at path: a /proc/PID/maps asked by PROCMAP_QUERY where the
 * kernel has it, else (and for any other file) its text parsed.
 */
int proc_maps__load_file(const char *path, struct proc_maps *m);
/* The kernel's way alone, on an open /proc/PID/maps: -ENOTTY before 6.11. */
int proc_maps__query_fd(int fd, struct proc_maps *m);
int proc_maps__load_pid(pid_t pid, struct proc_maps *m);
/*
 * Stamp each file mapping of m, pid's (proc_root: "/proc" or a test's):
 * one stat(2) of its map_files link per file, however many times it is
 * mapped. A link that cannot be (not root, the process gone, not a
 * regular file) leaves the mapping unstamped.
 */
void proc_maps__stamp(struct proc_maps *m, const char *proc_root, pid_t pid);
const struct map_entry *proc_maps__find(const struct proc_maps *m, uint64_t addr);
void proc_maps__release(struct proc_maps *m);
/*
 * A copy of src in *dst, its own paths (a reading handed to two workers,
 * each releasing its own): 0, or -ENOMEM with *dst empty.
 */
int proc_maps__copy(struct proc_maps *dst, const struct proc_maps *src);

#endif /* PROC_MAPS_H */
