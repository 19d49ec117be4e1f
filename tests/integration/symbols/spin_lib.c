// SPDX-License-Identifier: GPL-2.0
/* spin_lib.c - burns CPU in libspin.so's lib_deleted_hot for argv[1] seconds. */
#include <stdlib.h>
#include <time.h>

unsigned long lib_deleted_hot(unsigned long n);

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		lib_deleted_hot(1000000);
	return 0;
}
