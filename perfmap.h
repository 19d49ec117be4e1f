/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmap.h - the symbols a JIT compiler writes for its generated code to
 * /tmp/perf-PID.map, one "START SIZE name" line per function (START and
 * SIZE in hex, with or without 0x), as perf(1) reads them.
 */
#ifndef PERFMAP_H
#define PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perfmap_sym {
	uint64_t start, size;	/* [start, start + size) */
	const char *name;
};

struct perfmap;

/*
 * Loaders return NULL with errno set. Malformed lines (and zero sizes) are
 * skipped; a file with no usable line loads with perfmap__count() == 0.
 * When entries overlap, the one written last wins: a JIT reuses the memory
 * of code it freed, and appends the new code's line.
 */
struct perfmap *perfmap__load_buf(const char *buf, size_t len);
/* Any file, opened with O_NOFOLLOW; no ownership check. */
struct perfmap *perfmap__load_file(const char *path);

/*
 * Load or refresh the map of a live process: <proc_root>/<pid>/root/tmp/
 * perf-<nspid>.map, where nspid is the pid inside the process's own pid
 * namespace (a JIT in a container names the file with that one). The file
 * is used only when it is a regular file owned by root or by one of the
 * process's uids, so another user cannot plant names for it; it is opened
 * with O_NOFOLLOW for the same reason.
 *
 * *pm is replaced only when the file changed since it was read (size,
 * mtime or inode): a JIT appends while it runs, and big maps are read
 * once. Returns 0 (also when unchanged), -ENOENT when there is no map,
 * -EPERM when its owner is wrong or it is not a regular file, -ESRCH
 * when the process is gone, -ENOMEM.
 */
int perfmap__refresh_pid(struct perfmap **pm, const char *proc_root, pid_t pid);

/* The entry covering addr, or NULL. */
const struct perfmap_sym *perfmap__find(const struct perfmap *pm, uint64_t addr);
size_t perfmap__count(const struct perfmap *pm);
void perfmap__free(struct perfmap *pm);

#endif /* PERFMAP_H */
