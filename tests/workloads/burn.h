/*
 * burn.h - what the short workloads share: BURN_FOR(seconds) spins in the
 * function that uses it, so that function is the leaf the tests expect.
 */
#ifndef BURN_H
#define BURN_H

#include <time.h>

static volatile unsigned long burn_sink;

static double burn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define BURN_FOR(seconds)                                                \
	do {                                                             \
		double burn_end_ = burn_now() + (seconds);               \
		while (burn_now() < burn_end_)                           \
			for (unsigned long i = 0; i < 100000; i++)       \
				burn_sink += i;                          \
	} while (0)

#endif /* BURN_H */
