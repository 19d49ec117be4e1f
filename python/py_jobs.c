// SPDX-License-Identifier: GPL-2.0
/*
 * py_jobs.c - one worker thread looking at Python processes (py_jobs.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "python/py_jobs.h"

#define QUEUE_MAX 4096
#define SWEEP_NS 2000000000ull

struct py_jobs {
	struct py_procs *p;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pid_t queue[QUEUE_MAX];
	size_t head, len;
	bool stop, joined, busy;
	uint64_t dropped;
	uint64_t next_sweep;	/* CLOCK_MONOTONIC ns */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Until there is work, or the next sweep is due. Under j->lock. */
static void wait_for_work(struct py_jobs *j)
{
	while (!j->len && !j->stop && now_ns() < j->next_sweep) {
		struct timespec until = {
			.tv_sec = (time_t)(j->next_sweep / 1000000000ull),
			.tv_nsec = (long)(j->next_sweep % 1000000000ull),
		};

		pthread_cond_timedwait(&j->wake, &j->lock, &until);
	}
}

static void *worker(void *arg)
{
	struct py_jobs *j = arg;

	pthread_mutex_lock(&j->lock);
	for (;;) {
		pid_t pid;

		wait_for_work(j);
		if (j->stop)
			break;
		if (now_ns() >= j->next_sweep) {
			pthread_mutex_unlock(&j->lock);
			py_procs__sweep(j->p);
			pthread_mutex_lock(&j->lock);
			j->next_sweep = now_ns() + SWEEP_NS;
			continue;
		}
		pid = j->queue[j->head];
		j->head = (j->head + 1) % QUEUE_MAX;
		j->len--;
		j->busy = true;
		pthread_mutex_unlock(&j->lock);
		py_procs__add_pid(j->p, pid);
		pthread_mutex_lock(&j->lock);
		j->busy = false;
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

struct py_jobs *py_jobs__start(struct py_procs *p)
{
	struct py_jobs *j = calloc(1, sizeof(*j));
	pthread_condattr_t attr;
	int err;

	if (!j)
		return NULL;
	j->p = p;
	j->next_sweep = now_ns() + SWEEP_NS;
	pthread_mutex_init(&j->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&j->wake, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&j->thread, NULL, worker, j);
	if (err) {
		pthread_cond_destroy(&j->wake);
		pthread_mutex_destroy(&j->lock);
		free(j);
		errno = err;
		return NULL;
	}
	return j;
}

void py_jobs__queue(struct py_jobs *j, pid_t pid)
{
	bool queued = false;

	pthread_mutex_lock(&j->lock);
	for (size_t i = 0; i < j->len && !queued; i++)
		queued = j->queue[(j->head + i) % QUEUE_MAX] == pid;
	if (!queued && j->len < QUEUE_MAX) {
		j->queue[(j->head + j->len) % QUEUE_MAX] = pid;
		j->len++;
		pthread_cond_signal(&j->wake);
	} else if (!queued) {
		j->dropped++;
	}
	pthread_mutex_unlock(&j->lock);
}

static bool idle(struct py_jobs *j)
{
	bool idle;

	pthread_mutex_lock(&j->lock);
	idle = !j->len && !j->busy;
	pthread_mutex_unlock(&j->lock);
	return idle;
}

bool py_jobs__wait_idle(struct py_jobs *j, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (!idle(j))
		if (poll(&pfd, 1, 10) > 0)
			return false;
	return true;
}

void py_jobs__stop(struct py_jobs *j)
{
	if (j->joined)
		return;
	py_procs__cancel(j->p);
	pthread_mutex_lock(&j->lock);
	j->stop = true;
	pthread_cond_signal(&j->wake);
	pthread_mutex_unlock(&j->lock);
	pthread_join(j->thread, NULL);
	j->joined = true;
}

void py_jobs__stats(struct py_jobs *j, struct py_procs_stats *st, uint64_t *dropped)
{
	*dropped = j->dropped;
	py_procs__stats(j->p, st);
}

void py_jobs__free(struct py_jobs *j)
{
	if (!j)
		return;
	py_jobs__stop(j);
	pthread_cond_destroy(&j->wake);
	pthread_mutex_destroy(&j->lock);
	py_procs__free(j->p);
	free(j);
}
