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
#include <stdbool.h>
#include <sys/types.h>

#include "symbols/budget.h"

struct stat;

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
/* Any regular file, not through a symlink; no ownership check. */
struct perfmap *perfmap__load_file(const char *path);

/*
 * Parse an open perf map, reading it in pieces: at most
 * b->max_perfmap_bytes and b->max_perfmap_entries (NULL: the default
 * budget), else NULL with EFBIG (budget__why() says which); ECANCELED when
 * the budget's cancel flag rises. sb is the file's fstat, remembered for
 * perfmap__same_file().
 */
struct perfmap *perfmap__load_fd(int fd, const struct stat *sb, const struct budget *b);

/*
 * Open the map of a live process: <proc_root>/<pid>/root/tmp/
 * perf-<nspid>.map, where nspid is the pid inside the process's own pid
 * namespace (a JIT in a container names the file with that one), resolved
 * in the process's mount namespace (its root). The file is used only when
 * it is a regular file (checked before it is opened), not a symlink, and
 * owned by one of the process's uids: root-owned only for a process with
 * uid 0 or in our own user namespace (where it cannot mount over the
 * map), and with one name (not a hard link to a root file), so another
 * user cannot plant names for it or show a root file through it. Returns a descriptor and *sb, or -ENOENT when there is no
 * map, -EPERM when its owner is wrong or it is not a regular file, -ESRCH
 * when the process is gone.
 */
int perfmap__open_pid(const char *proc_root, pid_t pid, struct stat *sb);
/* Was pm read from this file, unchanged since (its stamp: common/file_stamp.h)? */
bool perfmap__same_file(const struct perfmap *pm, const struct stat *sb);

/*
 * Open and load the map of a live process into *pm, with the default
 * budget. *pm is replaced only when the file changed since it was read: a
 * JIT appends while it runs, and big maps are read once. Returns 0 (also
 * when unchanged) or the errors of the two calls above, -EFBIG, -ENOMEM.
 */
int perfmap__refresh_pid(struct perfmap **pm, const char *proc_root, pid_t pid);

/* The entry covering addr, or NULL. */
const struct perfmap_sym *perfmap__find(const struct perfmap *pm, uint64_t addr);
size_t perfmap__count(const struct perfmap *pm);
void perfmap__free(struct perfmap *pm);

#endif /* PERFMAP_H */
