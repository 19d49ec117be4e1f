// SPDX-License-Identifier: GPL-2.0
/*
 * pylate - a C program that burns in C for a while, then dlopen()s
 * libpython and runs a script under it, as a plugin host does: a process
 * sampled, and looked at, before it had an interpreter. Built by
 * tests/integration/python.sh; no Python headers needed.
 *     pylate LIBPYTHON MS SCRIPT ARG...   (burns MS ms first)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn_c(double secs)
{
	double end = now() + secs;
	volatile unsigned long x = 0;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x += i;
}

/* Python code that runs SCRIPT as __main__ with sys.argv SCRIPT ARG... */
static char *run_code(int argc, char **argv)
{
	char *code;
	size_t len;
	FILE *f = open_memstream(&code, &len);

	if (!f)
		return NULL;
	fputs("import runpy, sys\nsys.argv = [", f);
	for (int i = 0; i < argc; i++)
		fprintf(f, "%s'%s'", i ? ", " : "", argv[i]);	/* the test's own paths */
	fprintf(f, "]\nrunpy.run_path('%s', run_name='__main__')\n", argv[0]);
	return fclose(f) ? NULL : code;
}

int main(int argc, char **argv)
{
	void (*initialize)(int);
	int (*run)(const char *, void *);
	char *code;
	void *lib;

	if (argc < 4) {
		fprintf(stderr, "usage: pylate LIBPYTHON MS SCRIPT ARG...\n");
		return 2;
	}
	burn_c(atoi(argv[2]) / 1000.0);
	lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "pylate: %s\n", dlerror());
		return 1;
	}
	initialize = (void (*)(int))dlsym(lib, "Py_InitializeEx");
	run = (int (*)(const char *, void *))dlsym(lib, "PyRun_SimpleStringFlags");
	code = run_code(argc - 3, argv + 3);
	if (!initialize || !run || !code) {
		fprintf(stderr, "pylate: no Py_InitializeEx or PyRun_SimpleStringFlags\n");
		return 1;
	}
	initialize(0);
	return run(code, NULL) ? 1 : 0;
}
