/*
 * manylibs - dlopen()s the argv[2] copies argv[1]/lib0.so... of one
 * library, each its own executable mapping, then sorts for argv[3]
 * seconds: qsort() in libc, which top-down mmap put above the copies,
 * calling back cmp() here. Built as Debian builds (gcc -O2, no frame
 * pointers): the stacks are whole only if libc's mapping has its table.
 * With a fourth argument, "call", each round also calls each library's
 * crafted_fn(): samples land in every copy, so walks ask for every
 * table (they are built on demand).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 4096

static int values[N];
static volatile unsigned long sink;

__attribute__((noinline)) int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	for (int i = 0; i < 50; i++)
		sink += i;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_round(void)
{
	for (int i = 0; i < N; i++)
		values[i] = rand();
	qsort(values, N, sizeof(values[0]), cmp);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	int (*fns[256])(int);
	char path[4096];
	int n, nr_fns = 0;
	time_t end;
	void *h;

	if (argc < 4) {
		fprintf(stderr, "usage: manylibs DIR N SECONDS [call]\n");
		return 2;
	}
	n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "manylibs: %s\n", dlerror());
			return 1;
		}
		if (argc > 4 && nr_fns < 256 && (fns[nr_fns] = (int (*)(int))dlsym(h, "crafted_fn")))
			nr_fns++;
	}
	end = time(NULL) + atoi(argv[3]);
	while (time(NULL) < end) {
		sort_round();
		for (int i = 0; i < nr_fns; i++)
			sink += (unsigned long)fns[i]((int)sink);
	}
	return 0;
}
