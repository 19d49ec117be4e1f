/*
 * sigburn - spends part of its CPU in a signal handler: a SIGPROF timer
 * every 10 ms of CPU interrupts spin(), and on_prof() burns a fixed count
 * in in_handler(). Forever or for argv[1] seconds. The unwinder's
 * test knows the handler's whole stack:
 * _start ... main;spin;__restore_rt;on_prof;in_handler.
 * Built with gcc -O2 without frame pointers, as Debian builds.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;
static volatile sig_atomic_t ticks;

__attribute__((noinline)) void in_handler(void)
{
	for (unsigned long i = 0; i < 3000000; i++)
		sink += i;
}

__attribute__((noinline)) void on_prof(int sig)
{
	(void)sig;
	in_handler();
	ticks++;
}

/* A loop without calls: the signal interrupts it, never a callee. */
__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct sigaction sa = { .sa_handler = on_prof };

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	for (;;) {
		spin(10000000);
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
