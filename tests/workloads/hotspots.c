/*
 * hotspots - burns CPU in three functions in a 5:3:2 ratio, forever or for
 * argv[1] seconds. The integration tests know its stacks exactly:
 * main -> run_round -> hot_a / hot_b / hot_c, the hot_X being the leaf.
 * Built with clang and frame pointers in leaves too.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define BURN(n)                                                          \
	do {                                                             \
		for (unsigned long i = 0; i < (n); i++)                  \
			sink += i;                                       \
	} while (0)

__attribute__((noinline)) void hot_a(unsigned long n) { BURN(5 * n); }
__attribute__((noinline)) void hot_b(unsigned long n) { BURN(3 * n); }
__attribute__((noinline)) void hot_c(unsigned long n) { BURN(2 * n); }

__attribute__((noinline)) void run_round(unsigned long n)
{
	hot_a(n);
	hot_b(n);
	hot_c(n);
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;

	for (;;) {
		run_round(200000);
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
