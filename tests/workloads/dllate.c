/*
 * dllate - burns argv[2] ms in its own main_burn(), long enough for a
 * profiler to have read its mappings, then dlopen()s argv[1] and burns
 * argv[3] ms in its dl_burn(): code in a mapping that no reading made
 * before the dlopen() has seen.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

__attribute__((noinline)) void main_burn(double seconds)
{
	BURN_FOR(seconds);
}

int main(int argc, char **argv)
{
	void (*dl_burn)(double);
	void *lib;

	if (argc < 4) {
		fprintf(stderr, "usage: dllate LIB MAIN_MS LIB_MS\n");
		return 2;
	}
	main_burn(atoi(argv[2]) / 1000.0);
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dllate: %s\n", dlerror());
		return 1;
	}
	dl_burn = (void (*)(double))dlsym(lib, "dl_burn");
	if (!dl_burn)
		return 1;
	dl_burn(atoi(argv[3]) / 1000.0);
	return 0;
}
