// SPDX-License-Identifier: GPL-2.0
/*
 * pid_worker.c - one worker thread doing a job per queued pid (pid_worker.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/pid_worker.h"

/* How often pid_worker__wait_idle() looks whether the worker is idle. */
#define IDLE_POLL_MS 10

struct pid_worker {
	struct pid_worker_ops ops;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* in the order queued (few wait at once: taking one from the middle is a memmove) */
	struct { pid_t pid; uint32_t lane; } queue[PID_WORKER_QUEUE_MAX];
	size_t len;
	/*
	 * The lanes with pids waiting or a job under way, and the worker's
	 * CPU each was given (from the clock when it came): the next job is
	 * the lane's that was given least.
	 */
	struct { uint32_t lane; uint64_t given_ns; } lanes[PID_WORKER_QUEUE_MAX + 1];
	size_t nr_lanes;
	uint64_t clock_ns;	/* what the lane served last had been given */
	bool stop, joined;
	bool busy;		/* a job is under way */
	uint64_t dropped;
	uint64_t next_sweep;	/* CLOCK_MONOTONIC ns */
};

/* Until there is work, or the next sweep is due. Under w->lock. */
static void wait_for_work(struct pid_worker *w)
{
	while (!w->len && !w->stop && monotonic_ns() < w->next_sweep) {
		struct timespec until = {
			.tv_sec = (time_t)(w->next_sweep / 1000000000ull),
			.tv_nsec = (long)(w->next_sweep % 1000000000ull),
		};

		pthread_cond_timedwait(&w->wake, &w->lock, &until);
	}
}

/* lane's slot in w->lanes; made (given the clock: no credit for its absence) when missing. */
static size_t lane_slot(struct pid_worker *w, uint32_t lane)
{
	for (size_t i = 0; i < w->nr_lanes; i++)
		if (w->lanes[i].lane == lane)
			return i;
	w->lanes[w->nr_lanes].lane = lane;
	w->lanes[w->nr_lanes].given_ns = w->clock_ns;
	return w->nr_lanes++;
}

static bool lane_waits(const struct pid_worker *w, uint32_t lane)
{
	for (size_t i = 0; i < w->len; i++)
		if (w->queue[i].lane == lane)
			return true;
	return false;
}

/*
 * The next pid: the oldest of the waiting lane given least of the
 * worker's CPU (the lowest lane of those given the same). Under w->lock,
 * len > 0; *lane its lane.
 */
static pid_t take_next(struct pid_worker *w, uint32_t *lane)
{
	size_t best = w->nr_lanes, next = 0;
	pid_t pid;

	for (size_t i = 0; i < w->nr_lanes; i++) {
		if (!lane_waits(w, w->lanes[i].lane))
			continue;
		if (best == w->nr_lanes || w->lanes[i].given_ns < w->lanes[best].given_ns ||
		    (w->lanes[i].given_ns == w->lanes[best].given_ns &&
		     w->lanes[i].lane < w->lanes[best].lane))
			best = i;
	}
	*lane = best < w->nr_lanes ? w->lanes[best].lane : w->queue[0].lane;
	if (best < w->nr_lanes && w->lanes[best].given_ns > w->clock_ns)
		w->clock_ns = w->lanes[best].given_ns;
	while (w->queue[next].lane != *lane)
		next++;
	pid = w->queue[next].pid;
	memmove(&w->queue[next], &w->queue[next + 1], (w->len - next - 1) * sizeof(w->queue[0]));
	w->len--;
	return pid;
}

/* lane's job took ns of the worker's CPU; a lane with nothing left waiting is forgotten. */
static void charge(struct pid_worker *w, uint32_t lane, uint64_t ns)
{
	size_t i = lane_slot(w, lane);

	/* a job of no measurable CPU still takes a turn */
	w->lanes[i].given_ns += ns + 1;
	if (!lane_waits(w, lane))
		w->lanes[i] = w->lanes[--w->nr_lanes];
}

static void *worker(void *arg)
{
	struct pid_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		uint32_t lane;
		uint64_t cpu;
		pid_t pid;

		wait_for_work(w);
		if (w->stop)
			break;
		if (monotonic_ns() >= w->next_sweep) {
			pthread_mutex_unlock(&w->lock);
			w->ops.sweep(w->ops.ctx);
			pthread_mutex_lock(&w->lock);
			w->next_sweep = monotonic_ns() + w->ops.sweep_ns;
			continue;
		}
		pid = take_next(w, &lane);
		w->busy = true;
		/* the job reads files unlocked: queueing never waits for them */
		pthread_mutex_unlock(&w->lock);
		cpu = thread_cpu_ns();
		w->ops.job(w->ops.ctx, pid);
		cpu = thread_cpu_ns() - cpu;
		pthread_mutex_lock(&w->lock);
		charge(w, lane, cpu);
		w->busy = false;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct pid_worker *pid_worker__start(const struct pid_worker_ops *ops)
{
	struct pid_worker *w = calloc(1, sizeof(*w));
	pthread_condattr_t attr;
	int err;

	if (!w)
		return NULL;
	w->ops = *ops;
	w->next_sweep = monotonic_ns() + ops->sweep_ns;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&w->thread, NULL, worker, w);
	if (err) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		errno = err;
		return NULL;
	}
	return w;
}

/* Under w->lock. */
static bool waiting(const struct pid_worker *w, pid_t pid)
{
	for (size_t i = 0; i < w->len; i++)
		if (w->queue[i].pid == pid)
			return true;
	return false;
}

int pid_worker__queue(struct pid_worker *w, pid_t pid)
{
	return pid_worker__queue_lane(w, pid, 0);
}

int pid_worker__queue_lane(struct pid_worker *w, pid_t pid, uint32_t lane)
{
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (!waiting(w, pid)) {
		if (w->len < PID_WORKER_QUEUE_MAX) {
			lane_slot(w, lane);
			w->queue[w->len].pid = pid;
			w->queue[w->len].lane = lane;
			w->len++;
			pthread_cond_signal(&w->wake);
		} else {
			w->dropped++;
			err = -ENOSPC;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

bool pid_worker__queued(struct pid_worker *w, pid_t pid)
{
	bool queued;

	pthread_mutex_lock(&w->lock);
	queued = waiting(w, pid);
	pthread_mutex_unlock(&w->lock);
	return queued;
}

bool pid_worker__idle(struct pid_worker *w)
{
	bool idle;

	pthread_mutex_lock(&w->lock);
	idle = !w->len && !w->busy;
	pthread_mutex_unlock(&w->lock);
	return idle;
}

int pid_worker__wait_idle_for(struct pid_worker *w, int fd, uint64_t max_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t until = monotonic_ns() + max_ns;

	while (!pid_worker__idle(w)) {
		if (monotonic_ns() >= until)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, IDLE_POLL_MS) > 0)
			return -EINTR;
	}
	return 0;
}

bool pid_worker__wait_idle(struct pid_worker *w, int fd)
{
	return !pid_worker__wait_idle_for(w, fd, UINT64_MAX / 2);
}

uint64_t pid_worker__dropped(struct pid_worker *w)
{
	uint64_t dropped;

	pthread_mutex_lock(&w->lock);
	dropped = w->dropped;
	pthread_mutex_unlock(&w->lock);
	return dropped;
}

void pid_worker__stop(struct pid_worker *w)
{
	if (w->joined)
		return;
	w->ops.cancel(w->ops.ctx);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->joined = true;
}

void pid_worker__free(struct pid_worker *w)
{
	if (!w)
		return;
	pid_worker__stop(w);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
