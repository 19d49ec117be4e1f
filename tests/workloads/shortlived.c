/*
 * shortlived - starts argv[1] children one after another (default 20); each
 * burns CPU in short_burn() for argv[2] ms (default 100) and exits. Exits when all are done,
 * so a profile still running afterwards has only exited processes to name.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "burn.h"

__attribute__((noinline)) void short_burn(double seconds)
{
	BURN_FOR(seconds);
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
