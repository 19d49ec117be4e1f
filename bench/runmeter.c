/*
 * runmeter - run a command and say what it cost: wall time, the time from
 * the first SIGINT this wrapper received to the command's exit, CPU seconds
 * (user+sys, including the command's own waited-for children) and max RSS.
 *
 *   runmeter [-p PIDFILE] -o STATSFILE -- COMMAND [ARG...]
 *
 * SIGINT and SIGTERM are forwarded to the command, so a script can end a
 * profiler through this wrapper and get the end-of-run latency measured by
 * the same process that sees the exit. The stats file gets one line:
 *   rc=N wall=S int_to_exit=S cpu=S utime=S stime=S maxrss_kb=N
 * (int_to_exit=-1 when no SIGINT was received). Exit status is the
 * command's, or 128+signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_int;
static struct timespec int_at;

static double ts_sec(const struct timespec *t)
{
	return t->tv_sec + t->tv_nsec / 1e9;
}

static double tv_sec(const struct timeval *t)
{
	return t->tv_sec + t->tv_usec / 1e6;
}

static void forward(int sig)
{
	if (sig == SIGINT && !got_int) {
		clock_gettime(CLOCK_MONOTONIC, &int_at);	/* async-signal-safe */
		got_int = 1;
	}
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int usage(void)
{
	fprintf(stderr, "usage: runmeter [-p PIDFILE] -o STATSFILE -- COMMAND [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *stats_path = NULL, *pid_path = NULL;
	struct sigaction sa = { .sa_handler = forward };
	struct timespec start, end;
	struct rusage ru;
	int opt, status, rc;
	pid_t pid;
	FILE *f;

	while ((opt = getopt(argc, argv, "+o:p:")) != -1) {
		switch (opt) {
		case 'o': stats_path = optarg; break;
		case 'p': pid_path = optarg; break;
		default: return usage();
		}
	}
	if (!stats_path || optind >= argc)
		return usage();

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid < 0) {
		perror("runmeter: fork");
		return 1;
	}
	if (pid == 0) {
		/* A background job of a non-interactive shell starts with SIGINT
		 * ignored; the command must see it. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "runmeter: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	if (pid_path) {
		f = fopen(pid_path, "w");
		if (f) {
			fprintf(f, "%d\n", (int)pid);
			fclose(f);
		}
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("runmeter: wait4");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	f = fopen(stats_path, "w");
	if (!f) {
		perror("runmeter: stats file");
		return 1;
	}
	fprintf(f, "rc=%d wall=%.6f int_to_exit=%.6f cpu=%.6f utime=%.6f stime=%.6f maxrss_kb=%ld\n",
		rc, ts_sec(&end) - ts_sec(&start),
		got_int ? ts_sec(&end) - ts_sec(&int_at) : -1.0,
		tv_sec(&ru.ru_utime) + tv_sec(&ru.ru_stime),
		tv_sec(&ru.ru_utime), tv_sec(&ru.ru_stime), ru.ru_maxrss);
	fclose(f);
	return rc;
}
