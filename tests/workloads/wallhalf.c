/*
 * wallhalf - a thread that computes for 20 ms of wall-clock time, then
 * sleeps 20 ms, forever or for argv[1] seconds:
 *   main -> half_round -> half_compute (spins until 20 ms have passed)
 *                      -> half_sleep   (nanosleep, 20 ms)
 * Half of its time on the CPU (or waiting for it, on a busy machine),
 * half off it: --wall must say 50/50 (offcpu.sh).
 */
#include <stdlib.h>
#include <time.h>

#include "burn.h"

__attribute__((noinline)) void half_compute(void)
{
	BURN_FOR(0.020);
}

__attribute__((noinline)) void half_sleep(void)
{
	struct timespec ts = { 0, 20 * 1000000L };

	while (nanosleep(&ts, &ts))
		;
	burn_sink++;
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
