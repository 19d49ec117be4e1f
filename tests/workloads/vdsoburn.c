/*
 * vdsoburn - calls into the vDSO in a loop: clock_gettime() (its code
 * keeps a frame pointer but for a few instructions), time() and getcpu()
 * (frameless leaves: a frame-pointer walk goes wrong from there). A third
 * of its rounds each. Forever or for argv[1] seconds. The unwinder's test
 * knows the whole stacks: _start ... main;in_clock;...;__vdso_clock_gettime,
 * main;in_time;__vdso_time, main;in_getcpu;...;__vdso_getcpu.
 * Built with clang -O2 without frame pointers.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void in_clock(void)
{
	struct timespec ts;

	for (int i = 0; i < 20000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
}

__attribute__((noinline)) void in_time(void)
{
	for (int i = 0; i < 200000; i++)
		sink += (unsigned long)time(NULL);
}

__attribute__((noinline)) void in_getcpu(void)
{
	unsigned int cpu, node;

	for (int i = 0; i < 300000; i++) {
		getcpu(&cpu, &node);
		sink += cpu;
	}
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;

	for (;;) {
		in_clock();
		in_time();
		in_getcpu();
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
