/* SPDX-License-Identifier: GPL-2.0 */
/* proc_maps.h - /proc/PID/maps parsing. */
#ifndef PROC_MAPS_H
#define PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	uint64_t inode;
	unsigned int dev_major, dev_minor;
	char perms[5];		/* "r-xp" */
	bool deleted;		/* the path ended in " (deleted)" */
	char *path;		/* "" for anonymous maps, "[vdso]", ...; " (deleted)" removed */
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
int proc_maps__load_file(const char *path, struct proc_maps *m);
int proc_maps__load_pid(pid_t pid, struct proc_maps *m);
const struct map_entry *proc_maps__find(const struct proc_maps *m, uint64_t addr);
void proc_maps__release(struct proc_maps *m);
/*
 * A copy of src in *dst, its own paths (a reading handed to two workers,
 * each releasing its own): 0, or -ENOMEM with *dst empty.
 */
int proc_maps__copy(struct proc_maps *dst, const struct proc_maps *src);

#endif /* PROC_MAPS_H */
