// SPDX-License-Identifier: GPL-2.0
/*
 * plt_spin.c - a workload for tests/integration/symbols.sh whose hot path
 * runs through a PLT stub: labs() from libc, called argv[1] seconds in a
 * loop (built with -fno-builtin, so that the call is not inlined). Every
 * function is global: with -rdynamic a stripped build still names them
 * all, and only an unnamed stub prints as the file.
 */
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) void plt_caller(void)
{
	for (long i = 0; i < 1000000; i++)
		sink += labs(i);
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		plt_caller();
	return 0;
}
