/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - resolve an aggregate of raw stacks to symbols and write it in
 * the chosen format (text, folded, pprof, svg, json).
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include "collect/aggregate.h"
#include "cli.h"
#include "symbols/usyms.h"

struct report;

/* What the profile covers, for headers and metadata. */
struct report_meta {
	uint64_t start_ns;	/* CLOCK_REALTIME at the start of sampling */
	uint64_t duration_ns;
	const char *event;	/* "cpu-clock" or "cycles" */
	const char *title;
	const char *time_root;	/* interval mode: root frame in folded output, e.g. "2026-11-22_15:46:33" */
};

/* usyms stays the caller's; kernel symbols are loaded on first use. NULL with errno set. */
struct report *report__new(const struct profile_env *env, struct usyms *usyms);
void report__free(struct report *r);

struct py_names;
/* Name Python frames from py (python/py_names.h), which stays the caller's. */
void report__set_python(struct report *r, const struct py_names *py);

/*
 * --by-container: name the cgroups of agg's samples now, while they are
 * there to be found (a container may be gone when the profile is
 * printed). Returns 0 or -ENOMEM.
 */
int report__note_cgroups(struct report *r, const struct agg *agg);

/* Kernel symbols from a file in the format of /proc/kallsyms (tests). Returns 0 or -ENOMEM. */
int report__use_kallsyms(struct report *r, const char *path);

/*
 * The kernel image's symbols kept in dir for the rest of the boot
 * (kallsyms_cache.h), before the prefetch: a snapshot from cron then names
 * kernel frames without /proc/kallsyms. dir must be safe as root's cache
 * (cache_dir.h) and is made as the table cache makes it. 0 or -errno.
 */
int report__cache_kallsyms(struct report *r, const char *dir);

/* -v: whether the image's symbols came from the cache, and how often the file was read. */
void report__kallsyms_stats(const struct report *r, bool *cached, unsigned int *reads);

/*
 * Start reading kernel symbols in the background (when kernel stacks are
 * sampled). Each report__write() may read them again once, on a kernel
 * address they do not name (a BPF program or module loaded since).
 */
void report__prefetch_kernel_symbols(struct report *r);

/*
 * Resolve and write. *printed gets the number of samples written.
 * Returns 0 or -errno; -EPIPE when the reader went away.
 */
int report__write(struct report *r, const struct agg *agg, const struct report_meta *meta,
		  FILE *out, uint64_t *printed);

/*
 * profile(8)'s line before a text profile on stdout ("Sampling at 99 Hertz
 * of all threads by user + kernel stack... Hit Ctrl-C to end."); nothing
 * for other formats, -q or -o.
 */
void report__print_header(const struct profile_env *env, FILE *f);

/* "profile -F 99 of PID 185, user stacks on HOST": the title of SVG and pprof output. */
void report__title(const struct profile_env *env, char *buf, size_t size);

#endif /* REPORT_H */
