/*
 * drapburn - spends its CPU under a function that realigns its stack:
 * realigned() has a 64-byte aligned local and a variable-length array,
 * so gcc -O2 keeps its CFA in a DRAP register (r10) and then in its
 * frame (*(rbp - 16)), and saves rbp where rbp points. Its callee
 * burn() and its own loop take the samples. Forever or for argv[1]
 * seconds. The unwinder's test knows the whole stack:
 * _start ... main;run;realigned;burn.
 * Built with gcc -O2 without frame pointers, as Debian builds.
 */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void burn(const char *a, const char *v, int n)
{
	for (unsigned long i = 0; i < 2000000; i++)
		sink += (unsigned long)a[i & 63] + (unsigned long)v[i % (unsigned)n];
}

__attribute__((noinline)) int realigned(int n)
{
	alignas(64) char big[128];
	char vla[n];

	memset(big, n, sizeof(big));
	memset(vla, n, (size_t)n);
	burn(big, vla, n);
	return big[n & 127] + vla[n - 1];
}

__attribute__((noinline)) void run(int n)
{
	for (int i = 0; i < 50; i++)
		sink += (unsigned long)realigned(n + (i & 7));
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;

	for (;;) {
		run(argc + 40);
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
