// SPDX-License-Identifier: GPL-2.0
/*
 * pymaps.c - a process with many executable mappings, none of them an
 * interpreter: `pymaps DIR N SECS` writes N small files in DIR, each a
 * copy of the same page (a file of its own: its own inode), maps each
 * PROT_READ|PROT_EXEC, then spins for SECS seconds. What a local user can
 * make for the profiler to look at (tests/integration/python_procs.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int map_copy(const char *dir, long i, const char *page, size_t size)
{
	char path[4096];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/f%ld", dir, i);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, page, size) != (ssize_t)size) {
		perror(path);
		return -1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char page[4096];
	volatile unsigned long spin = 0;
	time_t end;
	long n;

	if (argc != 4) {
		fprintf(stderr, "usage: pymaps DIR N SECS\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	memset(page, 0xc3, sizeof(page));	/* ret */
	for (long i = 0; i < n; i++)
		if (map_copy(argv[1], i, page, sizeof(page)))
			return 1;
	/* ready: the test waits for this line */
	printf("mapped %ld\n", n);
	fflush(stdout);
	end = time(NULL) + strtol(argv[3], NULL, 10);
	while (time(NULL) < end)
		for (int i = 0; i < 1000000; i++)
			spin += i;
	return 0;
}
