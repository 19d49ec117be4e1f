/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loader.h - background threads (one, or a pool) that run jobs in the
 * order given, so the expensive part of symbolization (parsing symbol
 * tables, searching and checksumming debug files, inflating sections,
 * reading perf maps, fetching debug files) never runs on the thread that
 * reads signals and drains the BPF maps.
 *
 *	l = loader__new(run, ctx);
 *	loader__submit(l, job);		   run(job, ctx) happens later, on the thread
 *	loader__wait(l, timeout_ms, sigfd); until every job has run, or sigfd is readable
 *	loader__cancel(l);		   queued jobs go to drop(job, ctx), not run
 *	loader__free(l, timeout_ms);
 */
#ifndef LOADER_H
#define LOADER_H

struct loader;

/* A job: the caller's struct, starting with this link. */
struct loader_job {
	struct loader_job *next;
};

typedef void (*loader_fn)(struct loader_job *job, void *ctx);

/*
 * Start the thread. run does the job and owns it afterwards; drop is
 * called instead for a job that is cancelled or left when the loader is
 * freed. Returns NULL with errno set.
 */
struct loader *loader__new(loader_fn run, loader_fn drop, void *ctx);
/*
 * The same with threads workers (0: one): jobs start in the order given,
 * up to threads at once. Fewer threads than asked for, when no more could
 * be made, still run every job.
 */
struct loader *loader__new_pool(loader_fn run, loader_fn drop, void *ctx, unsigned int threads);

/* Jobs queued or running. */
unsigned int loader__pending(struct loader *l);

/* Queue a job. -ECANCELED after loader__cancel(): the job stays the caller's. */
int loader__submit(struct loader *l, struct loader_job *job);

/*
 * Wait until no job is queued or running. Returns 0; -ETIMEDOUT after
 * timeout_ms (< 0: no limit); -EINTR as soon as watch_fd (>= 0) is
 * readable, such as a signalfd: a signal must not wait for a file.
 */
int loader__wait(struct loader *l, int timeout_ms, int watch_fd);

/*
 * Drop every queued job (drop runs on the caller's thread); the running
 * one finishes, or stops early if it watches a cancel flag of its own.
 */
void loader__cancel(struct loader *l);

/*
 * Cancel, stop and join the threads. A job still running after timeout_ms
 * (< 0: no limit) is left to run: the threads are detached, l is not freed
 * and -EBUSY returned, so what the job uses must stay too (the process is
 * about to exit). Accepts NULL.
 */
int loader__free(struct loader *l, int timeout_ms);

#endif /* LOADER_H */
