/*
 * dlcycle - dlopen()s argv[1], burns argv[2] ms in its dl_burn(),
 * dlclose()s it (the library is unmapped), then burns argv[3] ms in its
 * own main_burn(). A profile of the whole run has to name dl_burn from a
 * mapping that is gone by the time it ends.
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
		fprintf(stderr, "usage: dlcycle LIB LIB_MS MAIN_MS\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlcycle: %s\n", dlerror());
		return 1;
	}
	dl_burn = (void (*)(double))dlsym(lib, "dl_burn");
	if (!dl_burn)
		return 1;
	dl_burn(atoi(argv[2]) / 1000.0);
	if (dlclose(lib))
		return 1;
	main_burn(atoi(argv[3]) / 1000.0);
	return 0;
}
