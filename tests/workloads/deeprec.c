/*
 * deeprec - recurses argv[1] calls deep, then burns in leaf(), again and
 * again for argv[2] seconds: a stack deeper than the walk may keep. Built
 * as Debian builds (gcc -O2, no frame pointers): walked by the tables.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(void)
{
	for (unsigned long i = 0; i < 20000000ul; i++)
		sink += i;
}

__attribute__((noinline)) void descend(int n)
{
	if (n > 0)
		descend(n - 1);
	else
		leaf();
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	time_t end;

	if (argc < 3)
		return 2;
	end = time(NULL) + atoi(argv[2]);
	while (time(NULL) < end)
		descend(atoi(argv[1]));
	return 0;
}
