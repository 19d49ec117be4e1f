// SPDX-License-Identifier: GPL-2.0
/*
 * test_maps_handoff.c - readings of mappings handed from the main thread
 * to a worker (symbols/maps_handoff.c): one waits per pid, the newest;
 * taking it hands it over once; what is never taken is freed with the
 * store (ASan and LeakSanitizer check the memory).
 */
#include <pthread.h>

#include "symbols/maps_handoff.h"
#include "test_util.h"

/* A reading of one executable mapping of path at start. */
static struct proc_maps reading(uint64_t start, const char *path)
{
	char line[256];
	struct proc_maps m;

	snprintf(line, sizeof(line), "%" PRIx64 "-%" PRIx64 " r-xp 00000000 08:01 42 %s\n",
		 start, start + 0x1000, path);
	cr_assert_eq(proc_maps__load_buf(line, strlen(line), &m), 0);
	cr_assert_eq(m.nr, 1);
	return m;
}

Test(maps_handoff, put_then_take_hands_it_over_once)
{
	struct maps_handoff *h = maps_handoff__new();
	struct proc_maps m = reading(0x1000, "/usr/bin/a");
	struct maps_reading *r;

	cr_assert_not_null(h);
	cr_assert_null(maps_handoff__take(h, 7), "a reading nobody put");
	cr_assert_eq(maps_handoff__put(h, 7, 3, 1000, &m), 0);
	/* taken over: the caller's is empty */
	cr_expect_eq(m.nr, 0);
	cr_expect_null(m.entries);
	cr_expect_eq(maps_handoff__waiting(h), 1);
	cr_expect_null(maps_handoff__take(h, 8), "another pid's");
	r = maps_handoff__take(h, 7);
	cr_assert_not_null(r);
	cr_expect_eq(r->pid, 7);
	cr_expect_eq(r->gen, 3);
	cr_expect_eq(r->uid, 1000);
	cr_assert_eq(r->maps.nr, 1);
	cr_expect_str_eq(r->maps.entries[0].path, "/usr/bin/a");
	cr_expect_null(maps_handoff__take(h, 7), "taken twice");
	cr_expect_eq(maps_handoff__waiting(h), 0);
	maps_reading__free(r);
	maps_handoff__free(h);
}

/* A pid's job may come after several notices: it gets the newest reading, the others freed. */
Test(maps_handoff, a_newer_reading_replaces_the_one_waiting)
{
	struct maps_handoff *h = maps_handoff__new();
	struct proc_maps a = reading(0x1000, "/usr/bin/old"), b = reading(0x2000, "/usr/bin/new");
	struct proc_maps c = reading(0x3000, "/usr/bin/other");
	struct maps_reading *r;

	cr_assert_not_null(h);
	cr_assert_eq(maps_handoff__put(h, 7, 3, 1000, &a), 0);
	cr_assert_eq(maps_handoff__put(h, 9, 5, 1000, &c), 0);
	cr_assert_eq(maps_handoff__put(h, 7, 4, MAPS_UID_UNKNOWN, &b), 0);
	cr_expect_eq(maps_handoff__waiting(h), 2);
	r = maps_handoff__take(h, 7);
	cr_assert_not_null(r);
	cr_expect_eq(r->gen, 4);
	cr_expect_eq(r->uid, MAPS_UID_UNKNOWN);
	cr_assert_eq(r->maps.nr, 1);
	cr_expect_eq(r->maps.entries[0].start, 0x2000);
	cr_expect_str_eq(r->maps.entries[0].path, "/usr/bin/new");
	cr_expect_null(maps_handoff__take(h, 7));
	maps_reading__free(r);
	/* pid 9's is untouched, and freed with the store */
	cr_expect_eq(maps_handoff__waiting(h), 1);
	maps_handoff__free(h);
	maps_reading__free(NULL);
	maps_handoff__free(NULL);
}

/* The main thread puts while the worker takes: every reading is taken once or left waiting. */
struct racer {
	struct maps_handoff *h;
	int taken, wrong;	/* no assertions off the test's thread: counted */
};

#define RACE_PIDS 64
#define RACE_ROUNDS 200

static void *take_all(void *arg)
{
	struct racer *x = arg;

	for (int round = 0; round < RACE_ROUNDS; round++)
		for (pid_t pid = 1; pid <= RACE_PIDS; pid++) {
			struct maps_reading *r = maps_handoff__take(x->h, pid);

			if (r) {
				x->wrong += r->pid != pid || r->maps.nr != 1 ||
					    r->maps.entries[0].start != 0x1000 * (uint64_t)pid;
				x->taken++;
				maps_reading__free(r);
			}
		}
	return NULL;
}

Test(maps_handoff, put_and_take_from_two_threads)
{
	struct racer x = { .h = maps_handoff__new() };
	struct maps_reading *r;
	pthread_t t;
	int left = 0;

	cr_assert_not_null(x.h);
	cr_assert_eq(pthread_create(&t, NULL, take_all, &x), 0);
	for (int round = 0; round < RACE_ROUNDS; round++)
		for (pid_t pid = 1; pid <= RACE_PIDS; pid++) {
			struct proc_maps m = reading(0x1000 * (uint64_t)pid, "/usr/bin/x");

			cr_assert_eq(maps_handoff__put(x.h, pid, (uint32_t)round + 1, 0, &m), 0);
		}
	pthread_join(t, NULL);
	for (pid_t pid = 1; pid <= RACE_PIDS; pid++) {
		r = maps_handoff__take(x.h, pid);
		if (r) {
			/* what waits at the end is the last reading put */
			cr_expect_eq(r->gen, RACE_ROUNDS);
			left++;
			maps_reading__free(r);
		}
	}
	cr_expect_eq(x.wrong, 0);
	cr_expect_gt(x.taken + left, 0);
	cr_expect_leq(x.taken + left, RACE_PIDS * RACE_ROUNDS);
	cr_expect_eq(maps_handoff__waiting(x.h), 0);
	maps_handoff__free(x.h);
}
