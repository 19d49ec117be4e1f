/*
 * stats_fd - keep the kernel's BPF run-time statistics on while it runs:
 * bpf(BPF_ENABLE_STATS) gives an fd, and the statistics stay on until it
 * is closed, whatever kernel.bpf_stats_enabled is set to meanwhile (the
 * machine is shared: another bench may set it back to 0 when it ends).
 * Prints "on" once they are, then waits to be killed.
 */
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (fd < 0) {
		perror("stats_fd: BPF_ENABLE_STATS");
		return 1;
	}
	printf("on\n");
	fflush(stdout);
	for (;;)
		pause();
}
