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
#include "output/output_format.h"
#include "symbols/usyms.h"

struct report;

/* How the report is written, and what was sampled; profile.c fills it from the command line. */
struct report_opts {
	enum output_format format;
	bool delimited, annotations;	/* text and folded: -d, -a */
	bool offsets;			/* unnamed frames with their address, each its own */
	bool by_container;		/* samples told apart by cgroup, shown by container */
	long max_stack_depth;		/* frames a stack may hold */
	bool quiet, to_file;		/* -q, -o FILE: no header line on stdout */
	/* what was sampled: the header line, the title, pprof's metadata */
	bool user_only, kernel_only;
	/* what was counted: samples, or ns waiting off the CPU (--off-cpu), or both (--wall) */
	bool off_cpu, wall;
	long frequency, period;		/* one of the two is 0 */
	long duration;			/* seconds; 0: until stopped */
	const char *pid_arg, *tid_arg;	/* -p, -L as given; NULL: none */
	size_t nr_pids, nr_tids;
	const char *command;		/* -- CMD's name; NULL: none */
	const char *const *cgroups;	/* --cgroup as given */
	size_t nr_cgroups;
};

/* What the profile covers, for headers and metadata. */
struct report_meta {
	uint64_t start_ns;	/* CLOCK_REALTIME at the start of sampling */
	uint64_t duration_ns;
	const char *event;	/* "cpu-clock" or "cycles" */
	const char *title;
	const char *time_root;	/* interval mode: root frame in folded output, e.g. "2026-11-22_15:46:33" */
};

/*
 * opts is copied (its strings stay the caller's), usyms stays the caller's;
 * kernel symbols are loaded on first use. NULL with errno set.
 */
struct report *report__new(const struct report_opts *opts, struct usyms *usyms);
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
void report__print_header(const struct report_opts *o, FILE *f);

/* "profile -F 99 of PID 185, user stacks on HOST": the title of SVG and pprof output. */
void report__title(const struct report_opts *o, char *buf, size_t size);

#endif /* REPORT_H */
