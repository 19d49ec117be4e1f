// SPDX-License-Identifier: GPL-2.0
/*
 * libspin.c - the shared library of spin_lib: symbols.sh deletes the file
 * while the process runs, and its frames must still be named.
 */
__attribute__((noinline)) unsigned long lib_deleted_hot(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
