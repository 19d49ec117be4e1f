/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_jobs.h - Python processes looked at off the main thread: the thread
 * that reads signals and drains the maps only queues a pid (never waits
 * on a file); one worker looks at it (py_procs.h) and, every 2 s, sweeps
 * the entries of processes gone.
 */
#ifndef PY_JOBS_H
#define PY_JOBS_H

#include <stdbool.h>
#include <sys/types.h>

#include "python/py_procs.h"

struct py_jobs;

/* Takes p (freed with the jobs). NULL with errno (p is then the caller's). */
struct py_jobs *py_jobs__start(struct py_procs *p);
/* Look at pid soon; a pid already waiting is queued once. From the main thread. */
void py_jobs__queue(struct py_jobs *j, pid_t pid);
/* Until nothing is queued or being looked at (true), or fd is readable (false). */
bool py_jobs__wait_idle(struct py_jobs *j, int fd);
/* Stop the worker, giving up the file it is reading. */
void py_jobs__stop(struct py_jobs *j);
/* After py_jobs__stop(): what was done, and pids dropped for a full queue. */
void py_jobs__stats(struct py_jobs *j, struct py_procs_stats *st, uint64_t *dropped);
void py_jobs__free(struct py_jobs *j);

#endif /* PY_JOBS_H */
