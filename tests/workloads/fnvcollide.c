/*
 * fnvcollide - N threads (argv[2], 2 to 6, default 3) spin in spin() with
 * their frame pointers aimed at fake chains of frames that make N
 * different user stacks with the same 64-bit FNV-1a hash over their words,
 * as any user can craft them:
 *
 *	thread a: spin_loop, root_a + 1, last_a
 *	thread b: spin_loop, root_b + 1, last_b
 *	...
 *
 * (the kernel walks a user stack as ip, then for each frame the return
 * address at [rbp + 8] and the next rbp at [rbp]). FNV-1a per word is
 * h = (h ^ w) * P, and P is odd, so the hashes are equal when
 * last_x = s_x ^ t for one t, s_x the hash over the first two words.
 * The last words are mapped nowhere, so a printed stack ends there:
 * "fnvcollide;[unknown];root_a;spin". With three stacks, two of them still
 * share the overflow hash of a profiler whose one-entry stack map took the
 * third. x86-64 only. Runs for argv[1] seconds (default 10).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

#define MAX_STACKS 6

/* two frames each: { next rbp, return address } */
static uint64_t chains[MAX_STACKS][4] __attribute__((aligned(16)));

extern const char spin_loop[];	/* the leaf ip: the spin loop's only instruction */

__attribute__((noinline)) void spin(uint64_t *chain)
{
#ifdef __x86_64__
	/* never returns: rbp is not needed again */
	__asm__ volatile("mov %0, %%rbp\n"
			 ".globl spin_loop\n"
			 "spin_loop: jmp spin_loop" : : "r"(chain) : "memory");
#endif
	for (;;)
		;
}

__attribute__((noinline)) void *root_a(void *chain) { spin(chain); return NULL; }
__attribute__((noinline)) void *root_b(void *chain) { spin(chain); return NULL; }
__attribute__((noinline)) void *root_c(void *chain) { spin(chain); return NULL; }
__attribute__((noinline)) void *root_d(void *chain) { spin(chain); return NULL; }
__attribute__((noinline)) void *root_e(void *chain) { spin(chain); return NULL; }
__attribute__((noinline)) void *root_f(void *chain) { spin(chain); return NULL; }

static uint64_t fnv1a(uint64_t h, uint64_t w)
{
	return (h ^ w) * FNV_PRIME;
}

int main(int argc, char **argv)
{
	void *(*roots[MAX_STACKS])(void *) = { root_a, root_b, root_c, root_d, root_e, root_f };
	int nr = argc > 2 ? atoi(argv[2]) : 3;
	uint64_t s, s0 = 0, hash = 0;
	pthread_t t;

#ifndef __x86_64__
	fprintf(stderr, "fnvcollide: x86-64 only\n");
	return 1;
#endif
	if (nr < 2 || nr > MAX_STACKS) {
		fprintf(stderr, "fnvcollide: 2 to %d stacks\n", MAX_STACKS);
		return 1;
	}
	alarm(argc > 1 ? atoi(argv[1]) : 10);	/* SIGALRM ends it */
	for (int i = 0; i < nr; i++) {
		s = fnv1a(fnv1a(FNV_OFFSET, (uintptr_t)spin_loop), (uintptr_t)roots[i] + 1);
		if (!i)
			s0 = s;
		chains[i][0] = (uintptr_t)&chains[i][2];
		chains[i][1] = (uintptr_t)roots[i] + 1;	/* a return address in root_x */
		chains[i][2] = 0;			/* the walk ends after this frame */
		chains[i][3] = s ^ s0 ^ 0xdead0000UL;	/* a: 0xdead0000, others random: unmapped */
		if (i && (fnv1a(s, chains[i][3]) != hash || !chains[i][3])) {
			fprintf(stderr, "fnvcollide: no collision\n");
			return 1;
		}
		hash = fnv1a(s, chains[i][3]);
	}
	printf("fnvcollide: %d stacks, FNV-1a %#llx\n", nr, (unsigned long long)hash);
	fflush(stdout);
	for (int i = 0; i < nr; i++) {
		if (pthread_create(&t, NULL, roots[i], chains[i])) {
			perror("fnvcollide: pthread_create");
			return 1;
		}
	}
	pause();
	return 0;
}
