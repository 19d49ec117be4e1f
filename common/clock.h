/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the clocks, in nanoseconds. CLOCK_MONOTONIC for everything
 * measured or waited for (deadlines, drain windows, map readings, how
 * long a job took); CLOCK_REALTIME only for what a person reads: when a
 * profile starts and ends; the thread's CPU clock for what work costs.
 */
#ifndef COMMON_CLOCK_H
#define COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/* The CPU the calling thread has used. */
static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

#endif /* COMMON_CLOCK_H */
