// SPDX-License-Identifier: GPL-2.0
/*
 * libstatic.c - a shared library whose CPU goes to a static function:
 * .dynsym names only lib_static_entry, so once the library is stripped
 * only a debug file (symbols.sh fetches it from debuginfod) names
 * lib_static_hot.
 */
static __attribute__((noinline)) unsigned long lib_static_hot(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}

__attribute__((noinline)) unsigned long lib_static_entry(unsigned long n)
{
	return lib_static_hot(n) + 1;
}
