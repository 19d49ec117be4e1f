/*
 * ownloop - burns CPU in its own code for argv[1] seconds (default 30):
 * main -> spin, built without frame pointers, in a process that maps
 * libraries its stacks never pass through (linked in, never called: libz,
 * liblzma, libstdc++, libm, libgcc_s). Its stacks pass through its own
 * file and libc's (__libc_start_call_main) alone: the tables a walk asks
 * for (tests/integration/unwind.sh).
 */
#include <stdlib.h>

#include "burn.h"

__attribute__((noinline)) static void spin(double seconds)
{
	BURN_FOR(seconds);
}

int main(int argc, char **argv)
{
	spin(argc > 1 ? atof(argv[1]) : 30);
	return 0;
}
