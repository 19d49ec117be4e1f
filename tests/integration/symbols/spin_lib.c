// SPDX-License-Identifier: GPL-2.0
/*
 * spin_lib.c - burns CPU in libspin.so's lib_deleted_hot for argv[1]
 * seconds; -DLIB_ENTRY=name calls another library's function instead.
 */
#include <stdlib.h>
#include <time.h>

#ifndef LIB_ENTRY
#define LIB_ENTRY lib_deleted_hot
#endif

unsigned long LIB_ENTRY(unsigned long n);

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		LIB_ENTRY(1000000);
	return 0;
}
