/*
 * hostile - what a local user's process can make the profiler read:
 *
 *   hostile burn SECS        burn CPU in hostile_burn()
 *   hostile anon SECS        the same, with anonymous executable memory
 *                            mapped (so its /tmp/perf-PID.map is read)
 *   hostile maps N SECS      the same, with N more executable mappings of
 *                            its own file
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "burn.h"

__attribute__((noinline)) void hostile_burn(double seconds)
{
	BURN_FOR(seconds);
}

static int map_self(long n)
{
	FILE *f = fopen("/proc/self/exe", "r");

	if (!f)
		return -1;
	for (long i = 0; i < n; i++) {
		/* separate mappings: the kernel does not merge file maps of one offset */
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0) == MAP_FAILED) {
			perror("mmap");
			return -1;
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "burn")) {
		hostile_burn(atof(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "anon")) {
		if (mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return 1;
		hostile_burn(atof(argv[2]));
	} else if (argc == 4 && !strcmp(argv[1], "maps")) {
		if (map_self(atol(argv[2])))
			return 1;
		hostile_burn(atof(argv[3]));
	} else {
		fprintf(stderr, "usage: hostile burn|anon SECS | maps N SECS\n");
		return 2;
	}
	return 0;
}
