/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pid_worker.h - one worker thread doing a job per process, off the
 * thread that reads signals and drains the maps: that thread only queues
 * a pid (never waits on a file); the worker takes the pids by lane (a
 * uid), next the lane that its jobs have taken least of the worker's CPU
 * since it has pids waiting, so that one user's hundred processes, or
 * files that each take a second, do not keep another's one process
 * waiting; within a lane in the order queued. Between two jobs it sweeps
 * (the entries of processes gone) when sweep_ns have passed since the
 * last sweep. What a job and a sweep do is the user's (unwind_jobs.h,
 * py_run.h).
 */
#ifndef PID_WORKER_H
#define PID_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Pids waiting; more at once are dropped (counted): they wait for their next notice. */
#define PID_WORKER_QUEUE_MAX 4096

struct pid_worker_ops {
	/* One pid, on the worker, unlocked: pid_worker__queue() never waits for it. */
	void (*job)(void *ctx, pid_t pid);
	/* On the worker, sweep_ns (CLOCK_MONOTONIC) after the start or the last sweep, unlocked. */
	void (*sweep)(void *ctx);
	/*
	 * From pid_worker__stop(), on the stopping thread: have the job under
	 * way give up soon, and any job after it at once (the next may begin
	 * before the worker is told to stop).
	 */
	void (*cancel)(void *ctx);
	void *ctx;
	uint64_t sweep_ns;
};

struct pid_worker;

/* Start the worker with a copy of ops. NULL with errno. */
struct pid_worker *pid_worker__start(const struct pid_worker_ops *ops);
/*
 * Do pid's job soon: 0 when queued, or when pid was already waiting (it
 * is queued once; a pid whose job is under way is queued again). -ENOSPC
 * when PID_WORKER_QUEUE_MAX pids wait: dropped, and counted.
 */
int pid_worker__queue(struct pid_worker *w, pid_t pid);
/*
 * The same in lane (pid_worker__queue()'s is lane 0): a lane that had no
 * pid waiting starts level with the lane served last. From the worker's
 * job too (a job that left work for the pid's next turn).
 */
int pid_worker__queue_lane(struct pid_worker *w, pid_t pid, uint32_t lane);
/* Whether pid waits for its job. */
bool pid_worker__queued(struct pid_worker *w, pid_t pid);
/* Nothing waiting, no job under way. */
bool pid_worker__idle(struct pid_worker *w);
/* Until idle (true), or until fd is readable (false: a signal came). */
bool pid_worker__wait_idle(struct pid_worker *w, int fd);
/*
 * The same for at most max_ns (CLOCK_MONOTONIC): 0 idle, -EINTR fd
 * readable, -ETIMEDOUT.
 */
int pid_worker__wait_idle_for(struct pid_worker *w, int fd, uint64_t max_ns);
/* Pids dropped for a full queue. */
uint64_t pid_worker__dropped(struct pid_worker *w);
/*
 * Cancel the job under way (ops->cancel), tell the worker to stop and
 * join it: the pids still waiting stay queued, not begun. Again: nothing.
 */
void pid_worker__stop(struct pid_worker *w);
/* Stops the worker first. NULL: nothing. */
void pid_worker__free(struct pid_worker *w);

#endif /* PID_WORKER_H */
