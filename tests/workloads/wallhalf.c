/*
 * wallhalf - a thread that spends half of its wall-clock time computing
 * and half sleeping, in rounds of about 20 ms each, forever or for argv[1]
 * seconds:
 *   main -> half_round -> half_compute (spins)
 *                      -> half_sleep   (nanosleep, 20 ms)
 * On a busy machine a phase lasts longer than asked: a thread preempted as
 * its compute phase ends, or woken late from its sleep. So the compute
 * phase spins until the time computed so far (its waits for the CPU too)
 * is the time slept so far (the late wakeups too) plus 20 ms: over any
 * few rounds the two are equal. --wall must say 50/50 (offcpu.sh).
 */
#include <stdlib.h>
#include <time.h>

#include "burn.h"

#define PHASE 0.020

static double computed, slept;

__attribute__((noinline)) void half_compute(void)
{
	double t0 = burn_now();

	BURN_FOR(slept + PHASE - computed);
	computed += burn_now() - t0;
}

__attribute__((noinline)) void half_sleep(void)
{
	struct timespec ts = { 0, (long)(PHASE * 1e9) };
	double t0 = burn_now();

	while (nanosleep(&ts, &ts))
		;
	slept += burn_now() - t0;
}

__attribute__((noinline)) void half_round(void)
{
	half_compute();
	half_sleep();
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;

	for (;;) {
		half_round();
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
