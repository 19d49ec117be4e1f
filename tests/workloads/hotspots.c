/*
 * hotspots - burns CPU in three functions in a 5:3:2 ratio, forever or for
 * argv[1] seconds. The integration tests know its stacks exactly:
 * main -> run_round -> hot_a / hot_b / hot_c, the hot_X being the leaf
 * (a true leaf: it calls nothing, so gcc gives it no frame). Built with
 * clang and frame pointers in leaves too.
 *
 * run_round gives each function a time, not a count of iterations, and
 * a round lasts 50 ms:
 * - a round near the sample period (1 ms at -F 999) beats against it,
 *   and the shares sampled drift from 5:3:2 by ten points (seen with perf
 *   too, on a CPU where a round of a fixed 200,000 took 0.8 ms);
 * - the same loop in three functions need not run at the same speed (gcc
 *   -O2 gave 67:20:13 for 5:3:2 iterations on one CPU).
 * It reads the clock between calls of 100,000 iterations: one sample in a
 * few thousand is in run_round or the clock.
 */
#include <stdlib.h>
#include <time.h>

#include "burn.h"

static volatile unsigned long sink;

#define BURN(n)                                                          \
	do {                                                             \
		for (unsigned long i = 0; i < (n); i++)                  \
			sink += i;                                       \
	} while (0)

#define CHUNK 100000

__attribute__((noinline)) void hot_a(unsigned long n) { BURN(n); }
__attribute__((noinline)) void hot_b(unsigned long n) { BURN(n); }
__attribute__((noinline)) void hot_c(unsigned long n) { BURN(n); }

/* Call hot(CHUNK) until seconds have passed. */
#define SPEND(hot, seconds)                                              \
	do {                                                             \
		double end_ = burn_now() + (seconds);                    \
		do                                                       \
			hot(CHUNK);                                      \
		while (burn_now() < end_);                               \
	} while (0)

__attribute__((noinline)) void run_round(void)
{
	SPEND(hot_a, 0.025);
	SPEND(hot_b, 0.015);
	SPEND(hot_c, 0.010);
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;

	for (;;) {
		run_round();
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
