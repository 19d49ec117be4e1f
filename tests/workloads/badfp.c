/*
 * badfp - spins in bad_fp_spin() with its frame pointer aimed at a fake
 * chain of frames whose return addresses lie in no mapping, as code built
 * without frame pointers can leave it. A profiler walking frame pointers
 * reads that garbage; ours must end the stack at the first such address.
 * x86-64 only. Runs for argv[1] seconds (default 10).
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long fake[32];

__attribute__((noinline)) void bad_fp_spin(void)
{
	for (int i = 0; i < 15; i++) {
		fake[2 * i] = (unsigned long)&fake[2 * i + 2];
		fake[2 * i + 1] = 0xdead0000UL + i * 0x100;	/* mapped nowhere */
	}
	fake[30] = fake[31] = 0;
#ifdef __x86_64__
	/* never returns: rbp is not needed again */
	__asm__ volatile("mov %0, %%rbp\n1: jmp 1b" : : "r"(fake) : "memory");
#else
	for (;;)	/* other architectures: no fake chain, the test says so */
		;
#endif
}

int main(int argc, char **argv)
{
	alarm(argc > 1 ? atoi(argv[1]) : 10);	/* SIGALRM ends it */
	bad_fp_spin();
	return 0;
}
