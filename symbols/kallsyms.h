/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms.h - the running kernel's symbols for the report: /proc/kallsyms
 * (or a file in its format) read on a thread while sampling runs, and read
 * again when a lookup misses, as a BPF program or a module loaded since the
 * last reading does, at most once per kallsyms__allow_reread().
 *
 *	k = kallsyms__new(NULL);
 *	kallsyms__set_cache(k, dir, boot_id);	   optional
 *	kallsyms__prefetch(k);		   sampling starts
 *	err = kallsyms__wait(k);	   before the first report: 0 or why not
 *	kallsyms__allow_reread(k);	   at the start of each report
 *	s = kallsyms__find(k, addr);	   for every kernel frame
 *	kallsyms__free(k);
 */
#ifndef KALLSYMS_H
#define KALLSYMS_H

#include <stdbool.h>

#include "symbols/ksyms.h"

struct kallsyms;

/* path NULL: /proc/kallsyms. Returns NULL with errno set. */
struct kallsyms *kallsyms__new(const char *path);
void kallsyms__free(struct kallsyms *k);

/*
 * Before the first reading: take the kernel image's symbols from dir's
 * cache of this boot (kallsyms_cache.h) instead of reading the whole file,
 * and keep them there after a whole reading. A lookup the image cannot
 * answer then reads the whole file, once. 0 or -errno.
 */
int kallsyms__set_cache(struct kallsyms *k, const char *dir, const char *boot_id);

/* Start the first reading on a thread; without one it happens in kallsyms__wait(). */
void kallsyms__prefetch(struct kallsyms *k);

/*
 * The first reading done (waited for or read now). Returns 0, or the
 * -errno of a failed reading: lookups then find nothing.
 */
int kallsyms__wait(struct kallsyms *k);

/*
 * Let the next miss read the file again. What an earlier table's lookups
 * returned stays valid until the call after the re-read: call it where
 * the names found before are no longer used (a report's start).
 */
void kallsyms__allow_reread(struct kallsyms *k);

/* The symbol containing addr (ksyms__find), after kallsyms__wait(); NULL: none. */
const struct ksym *kallsyms__find(struct kallsyms *k, unsigned long addr);

/* How many times the file was read: the first reading and the re-reads. */
unsigned int kallsyms__nr_reads(const struct kallsyms *k);

/* Whether the image's symbols came from the cache. */
bool kallsyms__image_cached(const struct kallsyms *k);

#endif /* KALLSYMS_H */
