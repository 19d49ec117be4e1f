/*
 * qsortburn - sorts with libc's qsort, forever or for argv[1] seconds, its
 * comparison function hot: main -> sort_round -> qsort (libc: qsort_r,
 * msort_with_tmp...) -> cmp. Built without frame pointers, so only libc's
 * unwind table takes a stack from cmp back to main (hostile.sh: a forged
 * file with libc's build-id must not give libc its rows or names).
 */
#include <stdlib.h>
#include <time.h>

#define N 4096

static volatile unsigned long sink;

/* Hot: most of a round is spent here, under libc's frames. */
__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	for (int i = 0; i < 64; i++)
		sink += i;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_round(unsigned int *v, unsigned int seed)
{
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed >> 8;
	}
	qsort(v, N, sizeof(*v), cmp);
	sink += v[0];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = argc > 1 ? now() + atof(argv[1]) : 0;
	static unsigned int v[N];

	for (unsigned int r = 1; !end || now() < end; r++)
		sort_round(v, r);
	return 0;
}
