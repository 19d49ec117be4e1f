/*
 * bw_cpu - workload (a): CPU-bound, known hot functions. Each round burns
 * in hot_a, hot_b and hot_c in a 5:3:2 ratio under main -> run_round.
 *   bw_cpu SECONDS    prints "iterations ROUNDS cpu_us N procs 1"
 */
#include "bw_common.h"

#define BURN(n)                                                  \
	do {                                                     \
		for (unsigned long i = 0; i < (n); i++)          \
			bw_sink += i;                            \
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

int main(int argc, char **argv)
{
	unsigned long long rounds = 0;

	bw_start(bw_seconds(argc, argv));
	while (!bw_stop) {
		run_round(2000);
		rounds++;
	}
	bw_finish(rounds);
}
