/*
 * syscalls - spends its time in the kernel: small reads of /dev/zero and
 * getppid() in a loop, forever or for argv[1] seconds.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void do_reads(int fd)
{
	char buf[4096];

	for (int i = 0; i < 1000; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			exit(1);
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 0;
	time_t end = time(NULL) + seconds;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	for (;;) {
		do_reads(fd);
		if (seconds && time(NULL) >= end)
			return 0;
	}
}
