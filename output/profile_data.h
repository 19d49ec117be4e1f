/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile_data.h - a resolved profile as the output writers see it
 * (pprof, SVG flame graph, speedscope JSON): counted stacks of named
 * frames, root first, plus what was sampled and when. Writers only read it.
 */
#ifndef PROFILE_DATA_H
#define PROFILE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pf_frame {
	const char *name;	/* symbol; "[unknown]", "[libfoo.so]", "[Missed User Stack]"... never NULL */
	const char *module;	/* mapped file path, or kernel module name; NULL when not known */
	const char *build_id;	/* lowercase hex GNU build-id of module, or NULL */
	uint64_t addr;		/* sampled address (0 for markers) */
	bool kernel;		/* a kernel frame */
};

struct pf_sample {
	const char *comm;
	uint32_t pid;
	uint32_t tid;		/* 0 unless the profile is per thread */
	const struct pf_frame *frames;	/* root first: user root .. user leaf, kernel outer .. kernel leaf */
	size_t nr_frames;
	uint64_t count;		/* samples */
};

struct pf_profile {
	uint64_t start_ns;	/* wall clock (CLOCK_REALTIME) at the start of sampling */
	uint64_t duration_ns;
	long frequency;		/* -F; 0 when sampling by event count */
	long period;		/* -c; 0 when sampling by frequency */
	const char *event;	/* "cpu-clock" or "cycles" */
	const char *title;	/* e.g. "profile -F 99 on host1 (all threads)" */
	bool per_thread;	/* tid is meaningful */
	const struct pf_sample *samples;
	size_t nr_samples;
};

#endif /* PROFILE_DATA_H */
