// SPDX-License-Identifier: GPL-2.0
/*
 * test_gen_seen.c - the generations handed to the unwind worker, by pid
 * (unwind/gen_seen.c): each is news once, and what is kept follows the
 * live processes, over a generation function the test sets.
 */
#include "unwind/gen_seen.h"
#include "test_util.h"

/* The generation each pid runs now (0: none): what sampler__pid_gen() would say. */
static uint32_t running[4096];

static uint32_t gen_of(pid_t pid, void *ctx)
{
	(void)ctx;
	return pid >= 0 && (size_t)pid < ARRAY_SIZE(running) ? running[pid] : 0;
}

Test(gen_seen, each_generation_is_news_once)
{
	struct gen_seen s = { 0 };

	cr_expect(gen_seen__news(&s, 5, 11, 100));
	cr_expect_not(gen_seen__news(&s, 5, 11, 200));
	/* exec: another generation, the first notice of the pid kept */
	cr_expect(gen_seen__news(&s, 5, 12, 300));
	cr_expect_eq(gen_seen__first_ns(&s, 5), 100);
	cr_expect_eq(gen_seen__first_ns(&s, 6), 0);
	/* not queued: its next notice is news again */
	gen_seen__forget(&s, 5);
	cr_expect(gen_seen__news(&s, 5, 12, 400));
	cr_expect_eq(gen_seen__first_ns(&s, 5), 100);
	gen_seen__release(&s);
}

/*
 * A host that starts processes all the time: what is noted stays within
 * the processes alive, however many the run saw.
 */
Test(gen_seen, pruned_to_the_live_processes)
{
	struct gen_seen s = { 0 };
	size_t gone = 0;

	memset(running, 0, sizeof(running));
	for (pid_t pid = 1; pid < 4000; pid++) {
		running[pid] = (uint32_t)pid * 10;
		cr_assert(gen_seen__news(&s, pid, running[pid], pid));
		/* each lives for 100 pids' time */
		if (pid > 100)
			running[pid - 100] = 0;
		if (pid % 500 == 0)
			gone += gen_seen__prune(&s, gen_of, NULL);
	}
	gone += gen_seen__prune(&s, gen_of, NULL);
	cr_expect_eq(s.nr, 100, "%zu pids kept", s.nr);
	cr_expect_eq(gone, 3999 - 100);
	/* the live are still known: not news */
	for (pid_t pid = 3900; pid < 4000; pid++)
		cr_expect_not(gen_seen__news(&s, pid, running[pid], 0), "pid %d", pid);
	cr_expect_eq(gen_seen__first_ns(&s, 3950), 3950);
	gen_seen__release(&s);
	cr_expect_eq(s.nr, 0);
}

/* exec: the generation noted is not the one running; a pid forgotten is kept while it runs. */
Test(gen_seen, another_generation_goes_a_forgotten_one_stays)
{
	struct gen_seen s = { 0 };

	memset(running, 0, sizeof(running));
	running[1] = 7;
	running[2] = 8;
	running[3] = 9;
	gen_seen__news(&s, 1, 7, 10);
	gen_seen__news(&s, 2, 8, 20);
	gen_seen__news(&s, 3, 9, 30);
	gen_seen__forget(&s, 2);
	running[3] = 10;	/* 3 exec'd */
	cr_expect_eq(gen_seen__prune(&s, gen_of, NULL), 1);
	cr_expect_eq(s.nr, 2);
	cr_expect_eq(gen_seen__first_ns(&s, 2), 20);
	cr_expect_eq(gen_seen__first_ns(&s, 3), 0);
	/* its new generation is news, its first notice that of the new image */
	cr_expect(gen_seen__news(&s, 3, 10, 40));
	cr_expect_eq(gen_seen__first_ns(&s, 3), 40);
	/* 2 exits */
	running[2] = 0;
	cr_expect_eq(gen_seen__prune(&s, gen_of, NULL), 1);
	cr_expect_eq(gen_seen__first_ns(&s, 2), 0);
	gen_seen__release(&s);
}
