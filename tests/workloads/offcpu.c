/*
 * offcpu - a thread that waits off the CPU in three functions, 50, 30 and
 * 20 ms each in turn, in three ways, forever or for argv[1] seconds:
 *   main -> wait_round -> wait_sleep  (nanosleep, 50 ms)
 *                      -> wait_pipe   (read of a pipe a helper thread
 *                                      writes 30 ms after it is asked)
 *                      -> wait_futex  (FUTEX_WAIT with a 20 ms timeout)
 * With argv[2] "long", main -> wait_long instead: a nanosleep of 1.5 s,
 * across the drains of a profile with -i 1.
 * The integration tests (offcpu.sh) know these stacks and shares. Each
 * wait_X does something after its call, so no tail call drops its frame.
 * The helper thread waits in helper_* functions: not the main thread's.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int ask[2], answer[2];
static volatile unsigned long done;
static int futex_word;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void helper_wait(char *c)
{
	if (read(ask[0], c, 1) != 1)
		exit(1);
	done++;
}

__attribute__((noinline)) void helper_sleep(void)
{
	sleep_ms(30);
	done++;
}

static void *helper(void *arg)
{
	char c;

	(void)arg;
	for (;;) {
		helper_wait(&c);
		helper_sleep();
		if (write(answer[1], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

__attribute__((noinline)) void wait_sleep(void)
{
	sleep_ms(50);
	done++;
}

__attribute__((noinline)) void wait_pipe(void)
{
	char c = 'x';

	if (write(ask[1], &c, 1) != 1 || read(answer[0], &c, 1) != 1)
		exit(1);
	done++;
}

__attribute__((noinline)) void wait_futex(void)
{
	struct timespec ts = { 0, 20 * 1000000L };

	/* nobody wakes it: it times out (or returns early on a signal) */
	syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	done++;
}

__attribute__((noinline)) void wait_long(void)
{
	sleep_ms(1500);
	done++;
}

__attribute__((noinline)) void wait_round(void)
{
	wait_sleep();
	wait_pipe();
	wait_futex();
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	int long_waits = argc > 2 && !strcmp(argv[2], "long");
	time_t end = time(NULL) + seconds;
	pthread_t t;

	if (pipe(ask) || pipe(answer) || pthread_create(&t, NULL, helper, NULL))
		return 1;
	for (;;) {
		if (long_waits)
			wait_long();
		else
			wait_round();
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
