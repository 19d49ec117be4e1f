// SPDX-License-Identifier: GPL-2.0
/*
 * loader.c - a job queue with its worker threads. Signals stay with the
 * main thread: the workers block them all.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "common/clock.h"
#include "symbols/loader.h"

/* How often a wait looks at watch_fd and the clock. */
#define WAIT_SLICE_MS 20

struct loader {
	pthread_t *threads;
	unsigned int nr_threads;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job was queued, or stop */
	pthread_cond_t idle;		/* a job finished */
	struct loader_job *head, *tail;
	unsigned int queued, running;
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
		l->queued--;
		l->running++;
		pthread_mutex_unlock(&l->lock);
		l->run(job, l->ctx);
		pthread_mutex_lock(&l->lock);
		l->running--;
		pthread_cond_broadcast(&l->idle);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static void destroy(struct loader *l)
{
	pthread_cond_destroy(&l->idle);
	pthread_cond_destroy(&l->work);
	pthread_mutex_destroy(&l->lock);
	free(l->threads);
	free(l);
}

struct loader *loader__new_pool(loader_fn run, loader_fn drop, void *ctx, unsigned int threads)
{
	sigset_t all, old;
	struct loader *l;
	int err = 0;

	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->threads = calloc(threads ? threads : 1, sizeof(*l->threads));
	if (!l->threads) {
		free(l);
		return NULL;
	}
	l->run = run;
	l->drop = drop;
	l->ctx = ctx;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->work, NULL);
	pthread_cond_init(&l->idle, NULL);
	/* the threads inherit our mask: block everything while they start */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned int i = 0; i < (threads ? threads : 1); i++) {
		err = pthread_create(&l->threads[i], NULL, worker, l);
		if (err)
			break;
		l->nr_threads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!l->nr_threads) {
		destroy(l);
		errno = err;
		return NULL;
	}
	return l;	/* fewer threads than asked for still run every job */
}

struct loader *loader__new(loader_fn run, loader_fn drop, void *ctx)
{
	return loader__new_pool(run, drop, ctx, 1);
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
	l->queued++;
	pthread_cond_signal(&l->work);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

int loader__wait(struct loader *l, int timeout_ms, int watch_fd)
{
	int64_t deadline = timeout_ms < 0 ? -1 : (int64_t)(monotonic_ns() / 1000000) + timeout_ms;

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
		if (deadline >= 0 && (int64_t)(monotonic_ns() / 1000000) >= deadline)
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
	l->queued = 0;
	pthread_cond_broadcast(&l->idle);
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
		for (unsigned int i = 0; i < l->nr_threads; i++)
			pthread_detach(l->threads[i]);
		return -EBUSY;
	}
	for (unsigned int i = 0; i < l->nr_threads; i++)
		pthread_join(l->threads[i], NULL);
	destroy(l);
	return 0;
}

unsigned int loader__pending(struct loader *l)
{
	unsigned int n;

	pthread_mutex_lock(&l->lock);
	n = l->queued + l->running;
	pthread_mutex_unlock(&l->lock);
	return n;
}
