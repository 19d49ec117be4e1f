/*
 * shortlived - starts argv[1] children one after another (default 20); each
 * burns CPU in short_burn() for argv[2] ms (default 100) and exits. Exits when all are done,
 * so a profile still running afterwards has only exited processes to name.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void short_burn(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		for (unsigned long i = 0; i < 100000; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	double burn = (argc > 2 ? atoi(argv[2]) : 100) / 1000.0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			short_burn(burn);
			_exit(0);
		}
		if (pid < 0)
			return 1;
		waitpid(pid, NULL, 0);
	}
	return 0;
}
