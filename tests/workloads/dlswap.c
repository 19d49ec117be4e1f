/*
 * dlswap - dlopen()s argv[1] and burns in its swap_spin() for argv[3] ms,
 * dlclose()s it, then does the same with argv[2] for argv[4] ms: the
 * second library, of the same size, is mapped where the first was. Built
 * as Debian builds (gcc -O2, no frame pointers), with libswap_a.so (a
 * frameless loop) and libswap_b.so (a 64 KiB frame): B's stacks are whole
 * only if they are walked with B's rows, not A's.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void run_lib(void (*spin)(double), double seconds)
{
	spin(seconds);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

static int burn_in(const char *path, double seconds)
{
	void (*spin)(double);
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		return 1;
	}
	spin = (void (*)(double))dlsym(lib, "swap_spin");
	if (!spin)
		return 1;
	run_lib(spin, seconds);
	return dlclose(lib) != 0;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: dlswap LIB_A LIB_B A_MS B_MS\n");
		return 2;
	}
	if (burn_in(argv[1], atoi(argv[3]) / 1000.0))
		return 1;
	return burn_in(argv[2], atoi(argv[4]) / 1000.0);
}
