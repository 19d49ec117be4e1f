/*
 * bw_mp.c - one process of workload (c): bursts of work in its shared
 * libraries, each followed by a short sleep. Built into several binaries
 * (-DUSE_A, -DUSE_B, -DUSE_C pick the libraries it links), which the bench
 * copies under several names. Started by bw_spawn:
 *   bw_mp SECONDS REPORT_FD
 * At the end of the window it writes {bursts, cpu_us} to REPORT_FD (one
 * pipe write, atomic) and lingers.
 */
#include <time.h>
#include "bw_common.h"

void bwa_work(unsigned long n);
void bwb_work(unsigned long n);
void bwc_work(unsigned long n);

#define BURST 40000UL	/* about 0.1 ms per library call */

__attribute__((noinline)) static void burst(unsigned long round)
{
#ifdef USE_A
	bwa_work(BURST);
#endif
#ifdef USE_B
	if (round % 2 == 0)
		bwb_work(BURST);
#endif
#ifdef USE_C
	bwc_work(BURST / 2);
#endif
	(void)round;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 2 * 1000 * 1000 };	/* 2 ms */
	unsigned long long bursts = 0;
	long long msg[2];
	int fd;

	if (argc < 3)
		return 2;
	fd = atoi(argv[2]);
	bw_start(bw_seconds(argc, argv));
	while (!bw_stop) {
		burst(bursts);
		bursts++;
		nanosleep(&nap, NULL);
	}
	msg[0] = (long long)bursts;
	msg[1] = bw_cpu_us();
	if (write(fd, msg, sizeof(msg)) != sizeof(msg))
		return 1;
	close(fd);
	bw_linger();
}
