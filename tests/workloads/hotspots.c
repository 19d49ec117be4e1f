/*
 * hotspots - burns CPU in three functions in a 5:3:2 ratio, forever or for
 * argv[1] seconds. The integration tests know its stacks exactly:
 * main -> run_round -> hot_a / hot_b / hot_c, the hot_X being the leaf.
 * Built with clang and frame pointers in leaves too.
 *
 * A round lasts about ROUND_MS whatever the CPU: a round near the sample
 * period (1 ms at -F 999) beats against it, and the shares sampled drift
 * from 5:3:2 by ten points (seen with perf too, on a CPU where a round of
 * a fixed 200,000 took 0.8 ms).
 */
#include <stdlib.h>
#include <time.h>

#define ROUND_MS 50

static volatile unsigned long sink;

#define BURN(n)                                                          \
	do {                                                             \
		for (unsigned long i = 0; i < (n); i++)                  \
			sink += i;                                       \
	} while (0)

__attribute__((noinline)) void hot_a(unsigned long n) { BURN(5 * n); }
__attribute__((noinline)) void hot_b(unsigned long n) { BURN(3 * n); }
__attribute__((noinline)) void hot_c(unsigned long n) { BURN(2 * n); }

__attribute__((noinline)) void run_round(unsigned long n)
{
	hot_a(n);
	hot_b(n);
	hot_c(n);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The n that makes a round last about ROUND_MS: the fastest of a few tries. */
static unsigned long round_size(void)
{
	const unsigned long probe = 100000;
	double best = 0;

	for (int i = 0; i < 5; i++) {
		double t0 = now_ms(), dt;

		run_round(probe);
		dt = now_ms() - t0;
		if (!i || dt < best)
			best = dt;
	}
	if (best <= 0)
		return probe;
	return (unsigned long)(probe * (ROUND_MS / best)) + 1;
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;
	unsigned long n = round_size();

	for (;;) {
		run_round(n);
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
