/*
 * zombies - for argv[1] seconds, starts argv[2] children at a time; each
 * burns 2 ms and exits, and stays a zombie for a second before it is
 * reaped. Their pids go to argv[3], one a line. A profiler that reads a
 * child's mappings after it exited must not keep an entry for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

__attribute__((noinline)) void child_burn(void)
{
	BURN_FOR(0.002);
}

int main(int argc, char **argv)
{
	time_t end;
	FILE *pids;
	int batch;

	if (argc < 4) {
		fprintf(stderr, "usage: zombies SECONDS BATCH PIDFILE\n");
		return 2;
	}
	end = time(NULL) + atoi(argv[1]);
	batch = atoi(argv[2]);
	pids = fopen(argv[3], "w");
	if (!pids)
		return 1;
	while (time(NULL) < end) {
		for (int i = 0; i < batch; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				child_burn();
				_exit(0);
			}
			if (pid < 0)
				return 1;
			fprintf(pids, "%d\n", (int)pid);
		}
		fflush(pids);
		sleep(1);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	return fclose(pids) != 0;
}
