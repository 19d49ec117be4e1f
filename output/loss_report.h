/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loss_report.h - the lines on stderr at the end of a run that say what
 * the profile lacks: samples and stacks the BPF maps could not keep, and
 * frames left without symbols, debug files not fetched for a bound;
 * under -v, the run's statistics.
 */
#ifndef LOSS_REPORT_H
#define LOSS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "collect/offcpu_drain.h"
#include "symbols/debuginfod_fetch.h"
#include "profile.h"
#include "python/py_names.h"
#include "python/py_procs.h"
#include "unwind/unwind_procs.h"
#include "symbols/usyms.h"

/* The options the run went by, as the lines name them; profile.c fills it. */
struct loss_report_opts {
	bool verbose, quiet;		/* -v: the statistics too; -q: no line on fetches */
	/* the sizes given (the maps' as made are in run_totals) */
	long stack_storage_size, hash_storage_size, unwind_storage_size;
	long debuginfod_max_files, debuginfod_max_user_files;
	bool off_cpu;			/* --off-cpu: waits were counted, not samples */
};

/* What the run counted, beside the options it ran with. */
struct run_totals {
	uint64_t stats[STAT_MAX];	/* sampler__stats() */
	const char *event;		/* sampler__event() */
	uint64_t printed;		/* samples in the profiles printed */
	size_t nr_files;		/* usyms__nr_files() */
	struct usyms_held held;		/* usyms__held() */
	size_t nr_gens;			/* usyms__nr_gens() */
	uint64_t nr_readings;		/* usyms__nr_readings(): of /proc/PID/maps */
	uint64_t nr_same_readings;	/* of them, holding what the last one did */
	/* a set's stack map and count hash as made (map_config.h); 0: opts' sizes */
	uint32_t stack_entries, count_entries;
	/* unwind tables (--call-graph dwarf), when they were used */
	const struct unwind_procs_stats *unwind;
	uint64_t unwind_dropped;	/* processes not queued for tables: queue full */
	/* Python frames, when they were walked */
	const struct py_procs_stats *python;
	uint64_t python_dropped;	/* processes not queued to be looked at: queue full */
	const struct py_names_stats *py_names;
	/* --off-cpu, --wall: what the drains settled of the waits; NULL: neither */
	const struct offcpu_drain_stats *offcpu;
};

/* Losses, each with the option that avoids it; the statistics under -v. */
void loss_report__print(FILE *f, const struct loss_report_opts *o, const struct run_totals *t);
/*
 * Where frames stayed unresolved and why: a list when verbose, else one
 * line (in_us: they were counted in microseconds, not samples); then the stripped files without a debug file and what would name
 * their frames, with the -dbgsym packages of those dpkg's lists in
 * dpkg_info_dir (DPKG_INFO_DIR; NULL: none named) say installed them.
 */
void loss_report__unresolved(FILE *f, const struct usyms *u, bool verbose, bool in_us,
			     const char *dpkg_info_dir);
/*
 * Debug files not asked of debuginfod servers, for the bounds on what a
 * run and one user's files may make us fetch: one line each, unless -q.
 * Under -v first what debuginfod did.
 */
void loss_report__fetches(FILE *f, const struct loss_report_opts *o,
			  const struct debuginfod_fetch_stats *st);

#endif /* LOSS_REPORT_H */
