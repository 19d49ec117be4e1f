// SPDX-License-Identifier: GPL-2.0
/*
 * pid_worker.c - one worker thread doing a job per queued pid (pid_worker.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
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
	pid_t queue[PID_WORKER_QUEUE_MAX];	/* a ring: len pids from head */
	size_t head, len;
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

static void *worker(void *arg)
{
	struct pid_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
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
		pid = w->queue[w->head];
		w->head = (w->head + 1) % PID_WORKER_QUEUE_MAX;
		w->len--;
		w->busy = true;
		/* the job reads files unlocked: queueing never waits for them */
		pthread_mutex_unlock(&w->lock);
		w->ops.job(w->ops.ctx, pid);
		pthread_mutex_lock(&w->lock);
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
		if (w->queue[(w->head + i) % PID_WORKER_QUEUE_MAX] == pid)
			return true;
	return false;
}

int pid_worker__queue(struct pid_worker *w, pid_t pid)
{
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (!waiting(w, pid)) {
		if (w->len < PID_WORKER_QUEUE_MAX) {
			w->queue[(w->head + w->len) % PID_WORKER_QUEUE_MAX] = pid;
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

bool pid_worker__wait_idle(struct pid_worker *w, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (!pid_worker__idle(w))
		if (poll(&pfd, 1, IDLE_POLL_MS) > 0)
			return false;
	return true;
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
