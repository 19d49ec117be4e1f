/*
 * hostile - what a local user's process can make the profiler read:
 *
 *   hostile burn SECS        burn CPU in hostile_burn()
 *   hostile anon SECS        spin in anonymous executable memory (a
 *                            thread in "jmp ."), so its frames are named
 *                            by /tmp/perf-PID.map, if at all
 *   hostile maps N SECS      the same, with N more executable mappings of
 *                            its own file
 *   hostile mapfile PATH SECS  the same, with PATH mapped executable (a
 *                            crafted ELF file the profiler then reads)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "burn.h"

__attribute__((noinline)) void hostile_burn(double seconds)
{
	BURN_FOR(seconds);
}

static void *run_jit(void *code)
{
	((void (*)(void))code)();	/* never returns */
	return NULL;
}

/* JIT code of the simplest kind: "jmp ." spinning until the process exits. */
static int spin_in_anon(double seconds)
{
	static const unsigned char jmp_self[] = { 0xeb, 0xfe };
	pthread_t t;
	void *code;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, jmp_self, sizeof(jmp_self));
	if (pthread_create(&t, NULL, run_jit, code))
		return 1;
	usleep(seconds * 1e6);
	return 0;
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
		return spin_in_anon(atof(argv[2]));
	} else if (argc == 4 && !strcmp(argv[1], "maps")) {
		if (map_self(atol(argv[2])))
			return 1;
		hostile_burn(atof(argv[3]));
	} else if (argc == 4 && !strcmp(argv[1], "mapfile")) {
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		hostile_burn(atof(argv[3]));
	} else {
		fprintf(stderr, "usage: hostile burn|anon SECS | maps N SECS | mapfile PATH SECS\n");
		return 2;
	}
	return 0;
}
