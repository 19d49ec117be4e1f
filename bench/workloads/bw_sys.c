/*
 * bw_sys - workload (b): syscall-heavy, so most samples carry a kernel
 * stack: small reads of /dev/zero, writes to /dev/null, getppid() and
 * fstat() in a loop.
 *   bw_sys SECONDS    prints "iterations LOOPS cpu_us N procs 1"
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "bw_common.h"

__attribute__((noinline)) static void do_reads(int fd, char *buf)
{
	for (int i = 0; i < 8; i++)
		if (read(fd, buf, 4096) < 0)
			exit(1);
}

__attribute__((noinline)) static void do_writes(int fd, char *buf)
{
	for (int i = 0; i < 8; i++)
		if (write(fd, buf, 512) < 0)
			exit(1);
}

__attribute__((noinline)) static void do_misc(int fd)
{
	struct stat st;

	for (int i = 0; i < 4; i++) {
		bw_sink += getppid();
		if (fstat(fd, &st) == 0)
			bw_sink += st.st_size;
	}
}

int main(int argc, char **argv)
{
	static char buf[4096];
	unsigned long long loops = 0;
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);

	if (zero < 0 || null < 0)
		return 1;
	bw_start(bw_seconds(argc, argv));
	while (!bw_stop) {
		do_reads(zero, buf);
		do_writes(null, buf);
		do_misc(zero);
		loops++;
	}
	bw_finish(loops);
}
