/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the two clocks, in nanoseconds. CLOCK_MONOTONIC for
 * everything measured or waited for (deadlines, drain windows, map
 * readings, how long a job took); CLOCK_REALTIME only for what a person
 * reads: when a profile starts and ends.
 */
#ifndef COMMON_CLOCK_H
#define COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif /* COMMON_CLOCK_H */
