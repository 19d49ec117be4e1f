/*
 * bw_deep - workload (d): many distinct deep stacks. Each call walks one of
 * PATHS call paths (default 10,000): a recursive prefix of 4..27 frames
 * (depth varies with the path), then one of ten functions per level for
 * log10(PATHS) levels, chosen by the path's decimal digits, then a short
 * burn in the leaf. Paths are visited in a scattered order, so every path
 * is sampled about equally often.
 *   bw_deep SECONDS [PATHS]    prints "iterations CALLS cpu_us N procs 1"
 */
#include "bw_common.h"

typedef void (*step_fn)(unsigned path, int level);
static step_fn steps[10];

#define LEAF_WORK 400

static void leaf(void)
{
	for (unsigned i = 0; i < LEAF_WORK; i++)
		bw_sink += i;
}

/* The statement after the call keeps it from becoming a tail call, so each
 * level leaves its own return address on the stack. */
#define STEP(k)                                                          \
	__attribute__((noinline)) void step##k(unsigned path, int level) \
	{                                                                \
		if (level == 0)                                          \
			leaf();                                          \
		else                                                     \
			steps[path % 10](path / 10, level - 1);          \
		bw_sink += k;                                            \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9)

__attribute__((noinline)) void descend(unsigned depth, unsigned path, int levels)
{
	if (depth)
		descend(depth - 1, path, levels);
	else
		steps[path % 10](path / 10, levels - 1);
	bw_sink += depth;
}

int main(int argc, char **argv)
{
	unsigned long long calls = 0;
	unsigned long paths = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	int levels = 0;
	unsigned long i = 0;

	if (paths < 10 || paths > 100000000)
		return 2;
	for (unsigned long p = 1; p < paths; p *= 10)
		levels++;
	steps[0] = step0; steps[1] = step1; steps[2] = step2; steps[3] = step3;
	steps[4] = step4; steps[5] = step5; steps[6] = step6; steps[7] = step7;
	steps[8] = step8; steps[9] = step9;

	bw_start(bw_seconds(argc, argv));
	while (!bw_stop) {
		/* 7919 is prime and coprime to any power of ten: a permutation */
		unsigned path = (unsigned)((i++ * 7919UL) % paths);

		descend(4 + (path * 31 + path / 7) % 24, path, levels);
		calls++;
	}
	bw_finish(calls);
}
