/*
 * bw_pingpong - two threads pass a byte back and forth over two pipes for
 * argv[1] seconds, then print "round_trips N cpu_s S" (S: the CPU time of
 * both threads, user and system, the switches' included). Each waits in read() for
 * the other: pinned to one CPU (taskset), every round trip is two context
 * switches, and nothing else runs between them; the switch rate is as high
 * as the kernel allows. bench/offcpu.sh times what a tracer of
 * sched_switch adds to each.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static volatile int stop;

static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 1;
	unsigned long long n = 0;
	struct rusage ru;
	pthread_t t;
	char c = 'x';

	if (seconds < 1 || pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL))
		return 1;
	signal(SIGALRM, on_alarm);
	alarm(seconds);
	while (!stop) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		n++;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("round_trips %llu cpu_s %.6f\n", n,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}
