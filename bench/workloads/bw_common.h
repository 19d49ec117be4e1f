/*
 * bw_common.h - what every bench workload shares: a measurement window of a
 * fixed length ended by a timer (no clock read in the hot loop), a report of
 * the iterations done and the CPU time used in it, then a linger: the
 * process stays alive, asleep, until killed, so that profilers resolve its
 * symbols from a live process as in real use. A safety alarm ends it if the
 * bench script dies.
 */
#ifndef BW_COMMON_H
#define BW_COMMON_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#define BW_LINGER_MAX 600	/* seconds a finished workload waits to be killed */

static volatile sig_atomic_t bw_stop;
static volatile unsigned long bw_sink;

static void bw_on_alarm(int sig)
{
	(void)sig;
	bw_stop = 1;
}

/* Start the window: bw_stop becomes 1 after `seconds`. */
static inline void bw_start(double seconds)
{
	struct sigaction sa = { .sa_handler = bw_on_alarm };
	struct itimerval it = { 0 };

	if (seconds <= 0) {
		fprintf(stderr, "workload: duration must be > 0\n");
		exit(2);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - (time_t)seconds) * 1e6);
	setitimer(ITIMER_REAL, &it, NULL);
}

static inline long long bw_cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Sleep until killed; SIGALRM (default action) ends a forgotten process. */
static inline void bw_linger(void)
{
	signal(SIGALRM, SIG_DFL);
	alarm(BW_LINGER_MAX);
	for (;;)
		pause();
}

/* Report the window's result on stdout, then linger. */
static inline void bw_finish(unsigned long long iterations)
{
	printf("iterations %llu cpu_us %lld procs 1\n", iterations, bw_cpu_us());
	fflush(stdout);
	bw_linger();
}

static inline double bw_seconds(int argc, char **argv)
{
	return argc > 1 ? atof(argv[1]) : 5.0;
}

#endif
