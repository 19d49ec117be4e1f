// SPDX-License-Identifier: GPL-2.0
/*
 * sample_event.c - the sampling perf event on every CPU (sample_event.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect/sample_event.h"
#include "collect/sampler_opts.h"

int sample_event__parse(const char *name)
{
	if (!strcmp(name, "cpu-clock"))
		return SAMPLE_EVENT_CPU_CLOCK;
	if (!strcmp(name, "cycles") || !strcmp(name, "cpu-cycles"))
		return SAMPLE_EVENT_CYCLES;
	return -EINVAL;
}

const char *sample_event__name(enum sample_event ev)
{
	return ev == SAMPLE_EVENT_CYCLES ? "cycles" : "cpu-clock";
}

void sample_event__attr(enum sample_event ev, const struct sampler_opts *o,
			struct perf_event_attr *attr)
{
	bool hardware = ev == SAMPLE_EVENT_CYCLES;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	attr->config = hardware ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK;
	if (o->period) {
		attr->sample_period = o->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->frequency;
	}
}

int sample_event__open_cpu(const struct perf_event_attr *attr, int cpu, void *ctx)
{
	int fd;

	(void)ctx;
	fd = syscall(__NR_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int cpu_events__open(struct cpu_events *ce, const struct sampler_opts *o, const bool *online,
		     int nr_cpus, sample_event_open_fn open_fn, void *ctx)
{
	struct perf_event_attr attr;
	int err = 0;

	*ce = (struct cpu_events){ .event = o->event, .failed_cpu = -1 };
	sample_event__attr(ce->event, o, &attr);
	ce->fds = calloc(nr_cpus, sizeof(*ce->fds));
	ce->cpus = calloc(nr_cpus, sizeof(*ce->cpus));
	if (!ce->fds || !ce->cpus) {
		cpu_events__close(ce);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd;

		if (!online[cpu] || (o->cpu >= 0 && cpu != o->cpu))
			continue;
		fd = open_fn(&attr, cpu, ctx);
		if (fd == -ENODEV)
			continue;	/* went offline meanwhile */
		if (fd < 0) {
			err = fd;
			ce->failed_cpu = cpu;
			break;
		}
		ce->fds[ce->nr] = fd;
		ce->cpus[ce->nr++] = cpu;
	}
	if (!err && !ce->nr)
		err = -ENODEV;
	if (err) {
		int failed = ce->failed_cpu;

		cpu_events__close(ce);
		ce->failed_cpu = failed;
	}
	return err;
}

void cpu_events__close(struct cpu_events *ce)
{
	for (int i = 0; i < ce->nr; i++)
		if (ce->fds[i] >= 0)
			close(ce->fds[i]);
	free(ce->fds);
	free(ce->cpus);
	ce->fds = ce->cpus = NULL;
	ce->nr = 0;
}
