/*
 * bw_lib.c - the shared libraries of workload (c). Built three times with
 * -DPFX=bwa, bwb, bwc into libbwa.so, libbwb.so and libbwc.so, so each has
 * its own symbol names: PFX_work -> PFX_stage -> PFX_leaf, with a depth and
 * burn length that differ per library.
 */
#ifndef PFX
#error "build with -DPFX=name"
#endif
#ifndef DEPTH
#define DEPTH 3
#endif
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)

volatile unsigned long CAT(PFX, sink);

__attribute__((noinline)) void CAT(PFX, leaf)(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		CAT(PFX, sink) += i;
}

__attribute__((noinline)) void CAT(PFX, stage)(int depth, unsigned long n)
{
	if (depth > 0)
		CAT(PFX, stage)(depth - 1, n);
	else
		CAT(PFX, leaf)(n);
	CAT(PFX, sink) += depth;
}

void CAT(PFX, work)(unsigned long n)
{
	CAT(PFX, stage)(DEPTH, n);
	CAT(PFX, sink)++;
}
