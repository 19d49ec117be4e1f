// SPDX-License-Identifier: GPL-2.0
/*
 * test_loader.c - the loader's threads (one, or a pool): jobs run in order
 * off the caller's thread, waits end on completion, on a readable
 * descriptor or at a timeout, and cancelled jobs are dropped, never run.
 */
#include <pthread.h>
#include <unistd.h>

#include "symbols/loader.h"
#include "test_util.h"

struct job {
	struct loader_job link;
	int id;
	int *gate;		/* the job spins until *gate is set */
};

struct log {
	pthread_mutex_t lock;
	int ran[8], nr_ran;
	int dropped[8], nr_dropped;
	pthread_t thread;
};

static void run(struct loader_job *lj, void *ctx)
{
	struct job *j = (struct job *)lj;
	struct log *l = ctx;

	while (j->gate && !__atomic_load_n(j->gate, __ATOMIC_RELAXED))
		usleep(1000);
	pthread_mutex_lock(&l->lock);
	l->ran[l->nr_ran++] = j->id;
	l->thread = pthread_self();
	pthread_mutex_unlock(&l->lock);
}

static void drop(struct loader_job *lj, void *ctx)
{
	struct job *j = (struct job *)lj;
	struct log *l = ctx;

	pthread_mutex_lock(&l->lock);
	l->dropped[l->nr_dropped++] = j->id;
	pthread_mutex_unlock(&l->lock);
}

Test(loader, jobs_run_in_order_on_another_thread)
{
	struct log l = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct job jobs[3] = { { .id = 1 }, { .id = 2 }, { .id = 3 } };
	struct loader *ld = loader__new(run, drop, &l);

	cr_assert_not_null(ld);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(loader__submit(ld, &jobs[i].link), 0);
	cr_assert_eq(loader__wait(ld, 5000, -1), 0);
	cr_assert_eq(l.nr_ran, 3);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(l.ran[i], i + 1);
	cr_assert(!pthread_equal(l.thread, pthread_self()));
	loader__free(ld, -1);
}

Test(loader, wait_ends_on_timeout_and_on_a_readable_fd)
{
	struct log l = { .lock = PTHREAD_MUTEX_INITIALIZER };
	int gate = 0, fds[2];
	struct job slow = { .id = 1, .gate = &gate }, queued = { .id = 2 };
	struct loader *ld = loader__new(run, drop, &l);

	cr_assert_not_null(ld);
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(loader__submit(ld, &slow.link), 0);
	cr_assert_eq(loader__submit(ld, &queued.link), 0);
	cr_assert_eq(loader__wait(ld, 50, -1), -ETIMEDOUT);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	cr_assert_eq(loader__wait(ld, -1, fds[0]), -EINTR);
	/* cancelled: the queued job is dropped, the running one finishes */
	loader__cancel(ld);
	cr_assert_eq(l.nr_dropped, 1);
	cr_assert_eq(l.dropped[0], 2);
	cr_assert_eq(loader__submit(ld, &queued.link), -ECANCELED);
	__atomic_store_n(&gate, 1, __ATOMIC_RELAXED);
	cr_assert_eq(loader__wait(ld, 5000, -1), 0);
	cr_assert_eq(l.nr_ran, 1);
	cr_assert_eq(l.ran[0], 1);
	loader__free(ld, -1);
	close(fds[0]);
	close(fds[1]);
}

/* A pool's jobs wait at the gate, counted as pending, then all run. */
Test(loader, a_pool_runs_its_threads_worth_at_once)
{
	struct log l = { .lock = PTHREAD_MUTEX_INITIALIZER };
	int gate = 0;
	struct job jobs[4] = { { .id = 1, .gate = &gate }, { .id = 2, .gate = &gate },
			       { .id = 3, .gate = &gate }, { .id = 4, .gate = &gate } };
	struct loader *ld = loader__new_pool(run, drop, &l, 3);

	cr_assert_not_null(ld);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(loader__submit(ld, &jobs[i].link), 0);
	cr_assert_eq(loader__pending(ld), 4);
	/* held at the gate: none has finished */
	cr_assert_eq(loader__wait(ld, 100, -1), -ETIMEDOUT);
	cr_assert_eq(l.nr_ran, 0);
	__atomic_store_n(&gate, 1, __ATOMIC_RELAXED);
	cr_assert_eq(loader__wait(ld, 5000, -1), 0);
	cr_assert_eq(l.nr_ran, 4);
	cr_assert_eq(loader__pending(ld), 0);
	cr_assert_eq(loader__free(ld, -1), 0);
}
