// SPDX-License-Identifier: GPL-2.0
/*
 * jit.c - a fake JIT: copies a self-contained spin loop into anonymous
 * executable memory, names it in /tmp/perf-PID.map as a JIT would, and
 * runs it for argv[1] seconds. The loop calls nothing and reads no global,
 * so its bytes run anywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CODE_SIZE 4096

__attribute__((noinline)) static unsigned long template_spin(unsigned long n)
{
	unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

/* marks the end of template_spin in the text, to size the copy */
__attribute__((noinline)) static void template_end(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
	size_t len = (char *)template_end - (char *)template_spin;
	unsigned long (*fn)(unsigned long);
	char path[64];
	void *code;
	FILE *f;

	if ((char *)template_end <= (char *)template_spin || len > CODE_SIZE)
		len = 256;	/* the compiler ordered them otherwise: copy enough */
	code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, (void *)template_spin, len);
	if (mprotect(code, CODE_SIZE, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_compiled_spin\n", (unsigned long)code, len);
	fclose(f);
	fn = (unsigned long (*)(unsigned long))code;
	printf("ready\n");
	fflush(stdout);
	while (time(NULL) < end)
		fn(1000000);
	unlink(path);
	template_end();
	return 0;
}
