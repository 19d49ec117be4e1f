/*
 * vforkburn - vfork()s children that exit at once, in a loop: the parent
 * spends its CPU in the vfork system call, whose user registers are in
 * glibc's __vfork with the return address popped into rdi (its CFI:
 * DW_CFA_register rip in rdi). Forever or for argv[1] seconds. The
 * unwinder's test knows the whole stack: _start ... main;spawn;__vfork.
 * Built with gcc -O2 without frame pointers, as Debian builds.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void spawn(void)
{
	pid_t pid = vfork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;

	for (;;) {
		for (int i = 0; i < 100; i++)
			spawn();
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
