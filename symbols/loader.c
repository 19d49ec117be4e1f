// SPDX-License-Identifier: GPL-2.0
/*
 * loader.c - a job queue with one worker thread. Signals stay with the
 * main thread: the worker blocks them all.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "loader.h"

/* How often a wait looks at watch_fd and the clock. */
#define WAIT_SLICE_MS 20

struct loader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job was queued, or stop */
	pthread_cond_t idle;		/* a job finished */
	struct loader_job *head, *tail;
	unsigned int running;		/* 0 or 1 */
	bool cancelled, stop;
	loader_fn run, drop;
	void *ctx;
};

static void *worker(void *arg)
{
	struct loader *l = arg;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct loader_job *job;

		while (!l->head && !l->stop)
			pthread_cond_wait(&l->work, &l->lock);
		if (l->stop)
			break;
		job = l->head;
		l->head = job->next;
		if (!l->head)
			l->tail = NULL;
		l->running = 1;
		pthread_mutex_unlock(&l->lock);
		l->run(job, l->ctx);
		pthread_mutex_lock(&l->lock);
		l->running = 0;
		pthread_cond_broadcast(&l->idle);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct loader *loader__new(loader_fn run, loader_fn drop, void *ctx)
{
	sigset_t all, old;
	struct loader *l;
	int err;

	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->run = run;
	l->drop = drop;
	l->ctx = ctx;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->work, NULL);
	pthread_cond_init(&l->idle, NULL);
	/* the thread inherits our mask: block everything while it starts */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&l->thread, NULL, worker, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&l->idle);
		pthread_cond_destroy(&l->work);
		pthread_mutex_destroy(&l->lock);
		free(l);
		errno = err;
		return NULL;
	}
	return l;
}

int loader__submit(struct loader *l, struct loader_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&l->lock);
	if (l->cancelled || l->stop) {
		pthread_mutex_unlock(&l->lock);
		return -ECANCELED;
	}
	if (l->tail)
		l->tail->next = job;
	else
		l->head = job;
	l->tail = job;
	pthread_cond_signal(&l->work);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

int loader__wait(struct loader *l, int timeout_ms, int watch_fd)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;

	for (;;) {
		struct timespec until;
		bool busy;

		pthread_mutex_lock(&l->lock);
		busy = l->head || l->running;
		if (busy) {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += WAIT_SLICE_MS * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&l->idle, &l->lock, &until);
			busy = l->head || l->running;
		}
		pthread_mutex_unlock(&l->lock);
		if (!busy)
			return 0;
		if (readable(watch_fd))
			return -EINTR;
		if (deadline >= 0 && now_ms() >= deadline)
			return -ETIMEDOUT;
	}
}

void loader__cancel(struct loader *l)
{
	struct loader_job *job;

	pthread_mutex_lock(&l->lock);
	l->cancelled = true;
	job = l->head;
	l->head = l->tail = NULL;
	pthread_mutex_unlock(&l->lock);
	while (job) {
		struct loader_job *next = job->next;

		l->drop(job, l->ctx);
		job = next;
	}
}

int loader__free(struct loader *l, int timeout_ms)
{
	bool busy;

	if (!l)
		return 0;
	loader__cancel(l);
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_broadcast(&l->work);
	pthread_mutex_unlock(&l->lock);
	/* a job that does not watch its cancel flag may run on: do not wait for it */
	busy = loader__wait(l, timeout_ms, -1) == -ETIMEDOUT;
	if (busy) {
		pthread_detach(l->thread);
		return -EBUSY;
	}
	pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->idle);
	pthread_cond_destroy(&l->work);
	pthread_mutex_destroy(&l->lock);
	free(l);
	return 0;
}
