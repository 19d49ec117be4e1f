/*
 * bw_spawn - workload (c)'s launcher: starts every EXE given (repeat a path
 * to run it several times) with "SECONDS FD", collects each one's
 * {bursts, cpu_us} from a pipe when its window ends, prints the sums as
 *   iterations BURSTS cpu_us N procs P
 * and lingers with its children until SIGTERM, which it passes on.
 *   bw_spawn SECONDS EXE...
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include "bw_common.h"

#define MAX_PROCS 1024

static pid_t kids[MAX_PROCS];
static int nkids;

static void kill_kids(int sig)
{
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	if (sig)
		_exit(128 + sig);
}

int main(int argc, char **argv)
{
	long long sum_bursts = 0, sum_cpu = 0, msg[2];
	char fdarg[16];
	int p[2], got = 0;

	if (argc < 3 || argc - 2 > MAX_PROCS) {
		fprintf(stderr, "usage: bw_spawn SECONDS EXE...\n");
		return 2;
	}
	if (pipe(p))
		return 1;
	signal(SIGTERM, kill_kids);
	signal(SIGINT, kill_kids);
	snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
	for (int i = 2; i < argc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			kill_kids(0);
			return 1;
		}
		if (pid == 0) {
			close(p[0]);
			execl(argv[i], argv[i], argv[1], fdarg, (char *)NULL);
			fprintf(stderr, "bw_spawn: cannot run '%s': %s\n", argv[i], strerror(errno));
			_exit(127);
		}
		kids[nkids++] = pid;
	}
	close(p[1]);
	while (got < nkids) {
		ssize_t n = read(p[0], msg, sizeof(msg));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(msg))
			break;	/* a child died: report what came */
		sum_bursts += msg[0];
		sum_cpu += msg[1];
		got++;
	}
	printf("iterations %lld cpu_us %lld procs %d\n", sum_bursts, sum_cpu, got);
	fflush(stdout);
	alarm(BW_LINGER_MAX);
	signal(SIGALRM, kill_kids);
	for (;;)
		pause();
}
