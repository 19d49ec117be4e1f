/*
 * forkexec - starts argv[1] children one after another; each execs
 * argv[2] with the rest of the arguments, as a shell or make does. Exits
 * when all are done. Its own name (comm) stays "forkexec" until a child
 * execs, so a profile tells the children's samples apart by their comm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;

	if (n <= 0) {
		fprintf(stderr, "usage: forkexec N PROG [ARG...]\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0)
			return 1;
		waitpid(pid, NULL, 0);
	}
	return 0;
}
