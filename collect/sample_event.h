/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample_event.h - the perf event that drives sampling, opened once per
 * CPU. The opening goes through a function the caller passes, so that
 * tests can play a machine with or without a PMU.
 */
#ifndef SAMPLE_EVENT_H
#define SAMPLE_EVENT_H

#include <stdbool.h>

#include <linux/perf_event.h>

struct sampler_opts;

/*
 * -e: the default is BCC profile's cpu-clock, so that -F and -c count time
 * on every machine; cycles only when asked for, and then on every CPU or
 * not at all: one run never mixes events.
 */
enum sample_event {
	SAMPLE_EVENT_CPU_CLOCK,	/* the software timer */
	SAMPLE_EVENT_CYCLES,	/* hardware CPU cycles: needs a PMU */
};

/* perf's names: "cpu-clock", "cycles" (or "cpu-cycles"); -EINVAL for others. */
int sample_event__parse(const char *name);
/* "cpu-clock" or "cycles". */
const char *sample_event__name(enum sample_event ev);

/* The attributes of ev, sampling at o's frequency or period. */
void sample_event__attr(enum sample_event ev, const struct sampler_opts *o,
			struct perf_event_attr *attr);

/*
 * Opens a system-wide event of attr on cpu: an fd or -errno.
 * sample_event__open_cpu is perf_event_open(2), ctx unused.
 */
typedef int (*sample_event_open_fn)(const struct perf_event_attr *attr, int cpu, void *ctx);
int sample_event__open_cpu(const struct perf_event_attr *attr, int cpu, void *ctx);

/* The events of one run, one per sampled CPU. */
struct cpu_events {
	enum sample_event event;	/* what every fd counts */
	int *fds;		/* -1 once handed over (to a BPF link) */
	int *cpus;
	int nr;
	int failed_cpu;		/* after a failure: the CPU it was on, -1 if none */
};

/*
 * Open o->event on every CPU online[] (nr_cpus of them) says is online,
 * on o->cpu alone with -C. A CPU that goes offline meanwhile is
 * skipped. 0; or -errno with failed_cpu set and nothing left open
 * (-ENODEV and failed_cpu -1: no CPU to sample). No fallback to another
 * event: cycles where a CPU has no PMU for them is an error.
 */
int cpu_events__open(struct cpu_events *ce, const struct sampler_opts *o, const bool *online,
		     int nr_cpus, sample_event_open_fn open_fn, void *ctx);
/* Close the fds not handed over, free the arrays. */
void cpu_events__close(struct cpu_events *ce);

#endif /* SAMPLE_EVENT_H */
