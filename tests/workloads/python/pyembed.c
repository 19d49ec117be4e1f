// SPDX-License-Identifier: GPL-2.0
/*
 * pyembed - a C program that embeds libpython (dynamically linked, as
 * python3-config --embed gives it) and runs a script under a C function
 * of its own, embed_run: the script's Python frames belong under
 * main;embed_run. Built by tests/integration/python.sh.
 *     pyembed SCRIPT ARG...    (sys.argv is SCRIPT ARG...)
 */
#include <Python.h>
#include <stdio.h>

__attribute__((noinline)) static int embed_run(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 1;
	}
	/* closes f */
	return PyRun_SimpleFileExFlags(f, path, 1, NULL);
}

int main(int argc, char **argv)
{
	PyConfig config;
	PyStatus st;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: pyembed SCRIPT ARG...\n");
		return 2;
	}
	PyConfig_InitPythonConfig(&config);
	/* sys.argv as given, not parsed as python's own command line */
	config.parse_argv = 0;
	st = PyConfig_SetBytesArgv(&config, argc - 1, argv + 1);
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st)) {
		fprintf(stderr, "pyembed: cannot start Python\n");
		return 1;
	}
	rc = embed_run(argv[1]);
	Py_Finalize();
	return rc ? 1 : 0;
}
