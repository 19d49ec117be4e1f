/*
 * libswap - the two libraries dlswap loads in turn at one address, each
 * with a swap_spin(seconds) that burns:
 * - A (default): one long frameless leaf, 16 KiB of it, so that its rows
 *   say "the return address is at the stack pointer" wherever B's code
 *   falls;
 * - B (SWAP_BIG_FRAME): a 64 KiB frame of zeros under the stack pointer.
 * B's stacks walked with A's rows read a return address of 0 and end
 * early, as if at the root.
 */
#include <string.h>

#include "burn.h"

#ifdef SWAP_BIG_FRAME
__attribute__((noinline)) void swap_spin_b(double seconds)
{
	char frame[64 << 10];

	memset(frame, 0, sizeof(frame));
	__asm__ volatile("" : : "r"(frame) : "memory");
	BURN_FOR(seconds);
	__asm__ volatile("" : : "r"(frame) : "memory");
}

void swap_spin(double seconds)
{
	swap_spin_b(seconds);
	__asm__ volatile("" ::: "memory");
}
#else
static volatile unsigned long spin_sink;

/* No call, no push: its one row holds from its first byte to its last. */
void swap_spin(double seconds)
{
	unsigned long n = (unsigned long)(seconds * 1.2e9);

	__asm__ volatile(".rept 16384\n\tnop\n\t.endr");
	for (unsigned long i = 0; i < n; i++)
		spin_sink += i;
}
#endif
