/*
 * muslstart - runs from musl's own _start (crt1.o, which has no FDE)
 * into a __libc_start_main of its own, built with CFI where Debian's
 * musl has none, so that a walk from work() can reach _start: there it
 * must end as at the thread's root, not as a walk cut short. main uses
 * nothing of libc (its __libc_start_main sets up no TLS nor stdio), and
 * leaves by the exit system call after about a minute of CPU, or when
 * killed. The unwinder's test knows the whole stack:
 * _start;__libc_start_main;main;work.
 * Built static with musl-gcc -O2, without frame pointers.
 */
static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	(void)argv;
	for (long n = 0; n < 60000 * (long)argc; n++)
		work();
	return 0;
}

/* musl's _start_c jumps here: _start's call is this function's caller */
__attribute__((noinline)) int __libc_start_main(int (*m)(int, char **, char **), int argc,
						char **argv)
{
	long rc = m(argc, argv, argv + argc + 1);

	__asm__ volatile("syscall" : : "a"(60L), "D"(rc) : "rcx", "r11", "memory");
	__builtin_unreachable();
}
