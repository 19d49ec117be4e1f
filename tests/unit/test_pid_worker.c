// SPDX-License-Identifier: GPL-2.0
/*
 * test_pid_worker.c - the worker that does a job per queued pid: a pid
 * waiting is queued once, a full queue drops and counts, waiting for idle
 * ends when the jobs are done or when a descriptor turns readable, the
 * sweep comes on time, and stop cancels the job under way and joins.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "common/pid_worker.h"
#include "test_util.h"

#define NO_SWEEP (3600ull * 1000000000ull)
/* What a job waits for its gate at most: far longer than any test's bound. */
#define JOB_WAIT_S 10

struct rec {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool gate;		/* jobs wait until it opens */
	bool cancelled;		/* ops.cancel was called */
	int gave_up;		/* jobs that returned for the cancel */
	pid_t ran[PID_WORKER_QUEUE_MAX + 8];
	size_t nr_ran;		/* jobs begun, in this order */
	size_t nr_done;		/* jobs returned */
	int sweeps;
	useconds_t job_us;	/* each job takes this long once through its gate */
	pid_t burn_below;	/* jobs of lower pids burn 100 ms of CPU through it */
};

static void rec_init(struct rec *r)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->changed, &attr);
	pthread_condattr_destroy(&attr);
}

static struct timespec in_s(int s)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += s;
	return ts;
}

static double since_s(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void job(void *ctx, pid_t pid)
{
	struct rec *r = ctx;
	struct timespec until = in_s(JOB_WAIT_S);

	pthread_mutex_lock(&r->lock);
	r->ran[r->nr_ran++] = pid;
	pthread_cond_broadcast(&r->changed);
	while (!r->gate && !r->cancelled)
		if (pthread_cond_timedwait(&r->changed, &r->lock, &until))
			break;
	if (r->cancelled)
		r->gave_up++;
	pthread_mutex_unlock(&r->lock);
	if (r->job_us)
		usleep(r->job_us);
	if (pid < r->burn_below) {
		struct timespec t0, t;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		do
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec) < 100000000ll);
	}
	pthread_mutex_lock(&r->lock);
	r->nr_done++;
	pthread_mutex_unlock(&r->lock);
}

static void sweep(void *ctx)
{
	struct rec *r = ctx;

	pthread_mutex_lock(&r->lock);
	r->sweeps++;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

static void cancel(void *ctx)
{
	struct rec *r = ctx;

	pthread_mutex_lock(&r->lock);
	r->cancelled = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

static void open_gate(struct rec *r)
{
	pthread_mutex_lock(&r->lock);
	r->gate = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

/* Until n jobs have begun (true), or 5 s. */
static bool wait_begun(struct rec *r, size_t n)
{
	struct timespec until = in_s(5);
	bool ok;

	pthread_mutex_lock(&r->lock);
	while (r->nr_ran < n)
		if (pthread_cond_timedwait(&r->changed, &r->lock, &until))
			break;
	ok = r->nr_ran >= n;
	pthread_mutex_unlock(&r->lock);
	return ok;
}

static struct pid_worker *start(struct rec *r, uint64_t sweep_ns)
{
	struct pid_worker_ops ops = {
		.job = job, .sweep = sweep, .cancel = cancel, .ctx = r, .sweep_ns = sweep_ns,
	};

	rec_init(r);
	return pid_worker__start(&ops);
}

Test(pid_worker, a_pid_waiting_is_queued_once, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);
	const pid_t want[] = { 1, 2, 3, 1 };

	cr_assert_not_null(w);
	cr_assert_eq(pid_worker__queue(w, 1), 0);
	cr_assert(wait_begun(&r, 1));
	cr_assert_not(pid_worker__queued(w, 1), "pid 1 is under way, not waiting");
	cr_assert_eq(pid_worker__queue(w, 2), 0);
	cr_assert_eq(pid_worker__queue(w, 3), 0);
	cr_assert_eq(pid_worker__queue(w, 2), 0);
	cr_assert(pid_worker__queued(w, 2));
	/* under way is not waiting: its mappings may have changed meanwhile */
	cr_assert_eq(pid_worker__queue(w, 1), 0);
	open_gate(&r);
	cr_assert(pid_worker__wait_idle(w, -1));
	cr_assert_eq(r.nr_ran, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		cr_assert_eq(r.ran[i], want[i], "job %zu: pid %d, not %d", i, r.ran[i], want[i]);
	cr_assert_eq(pid_worker__dropped(w), 0);
	cr_assert_eq(r.sweeps, 0);
	pid_worker__free(w);
}

/*
 * Lanes (users) are served by the worker's CPU their jobs took: lane 7's
 * jobs take 100 ms each, lane 9's none, so lane 9's three pids queued
 * behind lane 7's two go first; within a lane, the order queued.
 */
Test(pid_worker, lanes_are_served_by_the_cpu_they_took, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);
	const pid_t want[] = { 1, 4, 5, 6, 2, 3 };

	cr_assert_not_null(w);
	r.burn_below = 4;	/* pids 1-3 */
	cr_assert_eq(pid_worker__queue_lane(w, 1, 7), 0);
	cr_assert(wait_begun(&r, 1));
	cr_assert_eq(pid_worker__queue_lane(w, 2, 7), 0);
	cr_assert_eq(pid_worker__queue_lane(w, 3, 7), 0);
	cr_assert_eq(pid_worker__queue_lane(w, 4, 9), 0);
	cr_assert_eq(pid_worker__queue_lane(w, 5, 9), 0);
	cr_assert_eq(pid_worker__queue_lane(w, 6, 9), 0);
	open_gate(&r);
	cr_assert(pid_worker__wait_idle(w, -1));
	cr_assert_eq(r.nr_ran, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		cr_assert_eq(r.ran[i], want[i], "job %zu: pid %d, not %d", i, r.ran[i], want[i]);
	pid_worker__free(w);
}

/* A wait for idle that has a bound ends there, the job still under way. */
Test(pid_worker, wait_idle_for_ends_at_its_bound, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);
	struct timespec t0;

	cr_assert_not_null(w);
	cr_assert_eq(pid_worker__queue(w, 1), 0);
	cr_assert(wait_begun(&r, 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(pid_worker__wait_idle_for(w, -1, 200000000ull), -ETIMEDOUT);
	cr_assert_geq(since_s(&t0), 0.2);
	cr_assert_lt(since_s(&t0), JOB_WAIT_S / 2.0);
	cr_assert_not(pid_worker__idle(w));
	open_gate(&r);
	cr_assert_eq(pid_worker__wait_idle_for(w, -1, 5000000000ull), 0);
	pid_worker__free(w);
}

Test(pid_worker, a_full_queue_drops_and_counts, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);

	cr_assert_not_null(w);
	cr_assert_eq(pid_worker__queue(w, 1), 0);
	cr_assert(wait_begun(&r, 1));
	for (pid_t pid = 2; pid < 2 + PID_WORKER_QUEUE_MAX; pid++)
		cr_assert_eq(pid_worker__queue(w, pid), 0, "pid %d", pid);
	cr_assert_eq(pid_worker__queue(w, 100000), -ENOSPC);
	cr_assert_eq(pid_worker__dropped(w), 1);
	cr_assert_not(pid_worker__queued(w, 100000));
	/* one already waiting is not dropped: it needs no room */
	cr_assert_eq(pid_worker__queue(w, 2), 0);
	cr_assert_eq(pid_worker__dropped(w), 1);
	open_gate(&r);
	cr_assert(pid_worker__wait_idle(w, -1));
	cr_assert_eq(r.nr_ran, 1 + PID_WORKER_QUEUE_MAX);
	for (size_t i = 0; i < r.nr_ran; i++)
		cr_assert_eq(r.ran[i], (pid_t)i + 1);
	/* room again */
	cr_assert_eq(pid_worker__queue(w, 100000), 0);
	cr_assert(pid_worker__wait_idle(w, -1));
	cr_assert_eq(r.ran[r.nr_ran - 1], 100000);
	cr_assert_eq(pid_worker__dropped(w), 1);
	pid_worker__free(w);
}

Test(pid_worker, wait_idle_returns_when_the_jobs_are_done, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);
	int fds[2];

	cr_assert_not_null(w);
	cr_assert_eq(pipe(fds), 0);
	r.gate = true;
	r.job_us = 20000;
	for (pid_t pid = 1; pid <= 5; pid++)
		cr_assert_eq(pid_worker__queue(w, pid), 0);
	cr_assert(pid_worker__wait_idle(w, fds[0]));
	/* the last job too: taken off the queue is not done */
	pthread_mutex_lock(&r.lock);
	cr_assert_eq(r.nr_done, 5);
	pthread_mutex_unlock(&r.lock);
	cr_assert(pid_worker__idle(w));
	pid_worker__free(w);
	close(fds[0]);
	close(fds[1]);
}

static void *write_later(void *arg)
{
	int fd = *(int *)arg;

	usleep(100000);
	if (write(fd, "x", 1) != 1)
		return (void *)1;
	return NULL;
}

Test(pid_worker, wait_idle_returns_early_when_fd_turns_readable, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);
	struct timespec t0;
	pthread_t t;
	void *ret;
	int fds[2];
	char c;

	cr_assert_not_null(w);
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(pid_worker__queue(w, 1), 0);
	cr_assert(wait_begun(&r, 1));
	cr_assert_eq(pthread_create(&t, NULL, write_later, &fds[1]), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_not(pid_worker__wait_idle(w, fds[0]));
	/* the job holds for JOB_WAIT_S: the descriptor ended the wait */
	cr_assert_lt(since_s(&t0), JOB_WAIT_S / 2.0);
	cr_assert_not(pid_worker__idle(w));
	cr_assert_eq(pthread_join(t, &ret), 0);
	cr_assert_null(ret);
	cr_assert_eq(read(fds[0], &c, 1), 1);
	open_gate(&r);
	cr_assert(pid_worker__wait_idle(w, fds[0]));
	pid_worker__free(w);
	close(fds[0]);
	close(fds[1]);
}

Test(pid_worker, stop_cancels_the_job_under_way_and_joins, .timeout = 30)
{
	static struct rec r;
	struct pid_worker *w = start(&r, NO_SWEEP);
	struct timespec t0;

	cr_assert_not_null(w);
	cr_assert_eq(pid_worker__queue(w, 1), 0);
	cr_assert_eq(pid_worker__queue(w, 2), 0);
	cr_assert(wait_begun(&r, 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_worker__stop(w);
	/* the job holds for JOB_WAIT_S unless cancelled */
	cr_assert_lt(since_s(&t0), JOB_WAIT_S / 2.0);
	cr_assert(r.cancelled);
	cr_assert_eq(r.ran[0], 1);
	/*
	 * pid 2 may begin between the cancel and the stop (as it did when
	 * py_jobs.c and unwind_jobs.c had their own workers): it gives up too
	 */
	cr_assert_leq(r.nr_ran, 2);
	cr_assert_eq(r.gave_up, (int)r.nr_ran, "%d of %zu jobs gave up", r.gave_up, r.nr_ran);
	cr_assert_eq(r.nr_done, r.nr_ran, "stop returned before the job did");
	cr_assert_eq(pid_worker__queued(w, 2), r.nr_ran == 1);
	pid_worker__stop(w);
	usleep(50000);
	pid_worker__free(w);
	/* none after */
	cr_assert_eq(r.gave_up, (int)r.nr_ran);
}

Test(pid_worker, sweeps_every_sweep_ns, .timeout = 30)
{
	static struct rec r;
	struct timespec until = in_s(5), t0;
	struct pid_worker *w;
	double took;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	w = start(&r, 20 * 1000000ull);
	cr_assert_not_null(w);
	pthread_mutex_lock(&r.lock);
	while (r.sweeps < 3)
		if (pthread_cond_timedwait(&r.changed, &r.lock, &until))
			break;
	took = since_s(&t0);
	pthread_mutex_unlock(&r.lock);
	cr_assert_geq(r.sweeps, 3);
	/* not before their time: three take at least 60 ms */
	cr_assert_geq(took, 0.060, "%d sweeps in %.3f s", r.sweeps, took);
	pid_worker__free(w);
}
