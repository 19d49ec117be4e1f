/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms.h - user-space symbolization for many processes. Each process's
 * executable mappings are read from /proc/PID/maps when it is added; the
 * ELF symbol tables they map are loaded on first use and shared between
 * processes, keyed by the mapped file's device and inode (libc is read once).
 */
#ifndef USYMS_H
#define USYMS_H

#include <stdint.h>
#include <sys/types.h>

struct usyms;

struct usym {
	const char *name;	/* NULL when unresolved */
	const char *module;	/* path of the mapped file, "[vdso]", or NULL */
	uint64_t offset;	/* addr - symbol start */
};

/*
 * proc_root: where /proc is (tests may point it elsewhere); NULL for "/proc".
 * Returns NULL with errno set.
 */
struct usyms *usyms__new(const char *proc_root);

/*
 * Read the mappings of pid now, while it is alive. Returns 0, or -ESRCH
 * when the process is gone and was never read (its frames then resolve to
 * nothing). Adding a pid again re-reads it; if it is gone by then, the
 * earlier reading stays and 0 is returned.
 */
int usyms__add_pid(struct usyms *u, pid_t pid);

/* Resolve addr in pid. Returns 0 when out->name is set, else -ENOENT. */
int usyms__resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out);

/* Distinct ELF files loaded so far (for -v). */
size_t usyms__nr_files(const struct usyms *u);
void usyms__free(struct usyms *u);

#endif /* USYMS_H */
