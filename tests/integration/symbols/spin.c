// SPDX-License-Identifier: GPL-2.0
/*
 * spin.c - a workload for tests/integration/symbols.sh: burns CPU for
 * argv[1] seconds in a static function (so only full symbols name it,
 * never .dynsym) called from another static function. -DHOT=name and
 * -DCALLER=name give each build its own names to look for.
 */
#include <stdlib.h>
#include <time.h>

#ifndef HOT
#define HOT spin_hot
#endif
#ifndef CALLER
#define CALLER spin_caller
#endif

static __attribute__((noinline)) unsigned long HOT(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}

static __attribute__((noinline)) unsigned long CALLER(void)
{
	return HOT(1000000);
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		CALLER();
	return 0;
}
