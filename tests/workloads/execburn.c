/*
 * execburn - burns CPU in exec_burn() for argv[1] ms (default 100) and
 * exits: the child that forkexec execs.
 */
#include <stdlib.h>

#include "burn.h"

__attribute__((noinline)) void exec_burn(double seconds)
{
	BURN_FOR(seconds);
}

int main(int argc, char **argv)
{
	exec_burn((argc > 1 ? atoi(argv[1]) : 100) / 1000.0);
	return 0;
}
