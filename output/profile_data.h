/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile_data.h - a resolved profile as the output writers see it
 * (pprof, SVG flame graph, speedscope JSON): counted stacks of named
 * frames, root first, plus what was sampled and when. Writers only read it;
 * what they all derive from it is here too: a frame's file, a sample's weight.
 */
#ifndef PROFILE_DATA_H
#define PROFILE_DATA_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* perf's name for the kernel image, as a file; pprof leaves "[...]" alone. */
#define PF_KERNEL_IMAGE "[kernel.kallsyms]"

struct pf_frame {
	const char *name;	/* symbol; "[unknown]", "[libfoo.so]", "[Missed User Stack]"... never NULL */
	const char *module;	/* mapped file path, or kernel module name; NULL when not known */
	const char *build_id;	/* lowercase hex GNU build-id of module, or NULL */
	uint64_t addr;		/* sampled address (0 for markers) */
	bool kernel;		/* a kernel frame */
	/*
	 * A frame of an interpreted language (Python): name is "func (file)",
	 * func the function alone, src_file its source file, start_line where
	 * the function starts and line the sampled one (--lines), 0: not
	 * known. NULL func: a native frame.
	 */
	const char *func;
	const char *src_file;
	int64_t start_line;
	int64_t line;
};

struct pf_sample {
	const char *comm;
	uint32_t pid;
	uint32_t tid;		/* 0 unless the profile is per thread */
	const struct pf_frame *frames;	/* root first: user root .. user leaf, kernel outer .. kernel leaf */
	size_t nr_frames;
	uint64_t count;		/* samples, or ns of the profile's measure */
	/* --by-container: the sample's container and cgroup (pprof labels); NULL: not asked for */
	const char *container_id;
	const char *cgroup;
};

struct pf_profile {
	uint64_t start_ns;	/* wall clock (CLOCK_REALTIME) at the start of sampling */
	uint64_t duration_ns;
	long frequency;		/* -F; 0 when sampling by event count */
	long period;		/* -c; 0 when sampling by frequency */
	const char *event;	/* "cpu-clock" or "cycles" */
	const char *title;	/* e.g. "profile -F 99 on host1 (all threads)" */
	/*
	 * NULL: counts are samples (at frequency or period). Else what the
	 * counts measure, in nanoseconds: "off_cpu" (--off-cpu), "wall" (--wall).
	 */
	const char *measure;
	bool per_thread;	/* tid is meaningful */
	bool of_targets;	/* of -p, -L or -- CMD's processes, not the whole system */
	const struct pf_sample *samples;
	size_t nr_samples;
};

/*
 * The file f's function is in: its module, its source file (Python), or
 * the kernel image; NULL when not known.
 */
static inline const char *pf_frame__file(const struct pf_frame *f)
{
	if (f->module)
		return f->module;
	if (f->src_file && *f->src_file)
		return f->src_file;
	return f->kernel ? PF_KERNEL_IMAGE : NULL;
}

/*
 * A profile that says neither frequency nor period (read from folded
 * stacks, or merged from inputs sampled at different rates) counts
 * samples and nothing else.
 */
static inline bool pf_profile__counts_only(const struct pf_profile *p)
{
	return !p->measure && p->frequency <= 0 && p->period <= 0;
}

/*
 * What one sample of p weighs: 1 nanosecond when p has a measure (its
 * counts are nanoseconds already), 1e9 / frequency nanoseconds (at least 1),
 * or the period, in nanoseconds for the cpu-clock event (it counts them)
 * and in events for any other (*in_ns false); 1, not in nanoseconds,
 * when p counts samples only.
 */
static inline int pf_profile__sample_weight(const struct pf_profile *p, uint64_t *weight,
					    bool *in_ns)
{
	if (p->measure) {
		*weight = 1;
		*in_ns = true;
	} else if (p->frequency > 0) {
		*weight = 1000000000ULL / (uint64_t)p->frequency;
		if (!*weight)
			*weight = 1;
		*in_ns = true;
	} else if (p->period > 0) {
		*weight = (uint64_t)p->period;
		*in_ns = p->event && !strcmp(p->event, "cpu-clock");
	} else {
		*weight = 1;
		*in_ns = false;
	}
	return 0;
}

/* count samples of weight each: saturated at UINT64_MAX, never wrapped. */
static inline uint64_t pf_weigh(uint64_t count, uint64_t weight)
{
	if (weight && count > UINT64_MAX / weight)
		return UINT64_MAX;
	return count * weight;
}

#endif /* PROFILE_DATA_H */
