// SPDX-License-Identifier: GPL-2.0
/*
 * sample_event.c - perf_event_open for sampling (sample_event.h).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample_event.h"

int sample_event__open(const struct profile_env *env, bool hardware, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hardware ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
	};
	int fd;

	if (env->period) {
		attr.sample_period = env->period;
	} else {
		attr.freq = 1;
		attr.sample_freq = env->frequency;
	}
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
