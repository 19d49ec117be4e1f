/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_jobs.h - unwind tables loaded off the main thread: the thread
 * that reads signals and drains the maps only hands over a reading of a
 * process's mappings (the one it made for symbols) or a request of the
 * walks, and never blocks on a file; one worker thread
 * (common/pid_worker.h) publishes the process's entry and builds the
 * tables its walks ask for (unwind_procs.h), serving the processes of
 * each user (uid) in turn, a turn taking at most UNWIND_READING_CPU_NS of
 * new tables (the files left wait for the process's next turn). Until
 * then, the process's stacks, or the frames of a file without its table
 * yet, are walked by frame pointers (counted by the BPF side).
 */
#ifndef UNWIND_JOBS_H
#define UNWIND_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "unwind/unwind_procs.h"

struct unwind_jobs;

struct proc_maps;

/* Takes u (freed with the jobs). NULL with errno. */
struct unwind_jobs *unwind_jobs__start(struct unwind_procs *u);
struct unwind_jobs_opts {
	const char *cache_dir;		/* the table cache; NULL: none */
	uint64_t cache_max_bytes;	/* its entries' bytes at most (--unwind-cache-size) */
	const char *const *debug_dirs;	/* --debug-dir (unwind_procs__set_debug_dirs) */
	size_t nr_debug_dirs;
	unwind_notice_fn notice;	/* told of the files left without a table; NULL: none */
	/* the run samples only processes it was given (-p, a command): no uid's quota of rows */
	bool no_row_quota;
	unwind_gen_fn gen;		/* the generation a pid runs (unwind_procs__set_gen_fn) */
	void *gen_ctx;
};

/*
 * The worker over the unwind maps (sampler__unwind_maps()), as opts say.
 * A cache it cannot use, files /proc/PID/map_files refuses to open (once:
 * unwind_procs__set_denied), or a failure, is said in one line on err_out;
 * the failure returns NULL with errno, and user stacks are then walked by
 * frame pointers.
 */
struct unwind_jobs *unwind_jobs__open(const struct unwind_map_fds *fds,
				      const struct unwind_jobs_opts *opts, FILE *err_out);
/* Nothing queued, nothing being loaded. */
bool unwind_jobs__idle(struct unwind_jobs *j);
/*
 * Until idle (0), until fd is readable (-EINTR: a signal came), or for
 * max_ns at most (-ETIMEDOUT): tables still loading then are used as they
 * arrive.
 */
int unwind_jobs__wait_idle(struct unwind_jobs *j, int fd, uint64_t max_ns);
/*
 * maps, a reading of pid's mappings made in generation gen (the
 * symbols', usyms__add_gen_shared), taken over: published soon when it
 * is the first of gen, or when the unwinder asked for it (reread: it met
 * code in no mapping it knows); else released. A pid already waiting is
 * queued once, with the newest reading, in uid's lane (the sampled
 * task's: MAPS_UID_UNKNOWN, pid's read from /proc). From the main thread.
 */
void unwind_jobs__queue_maps(struct unwind_jobs *j, pid_t pid, uint32_t gen, uint32_t uid,
			     bool reread, struct proc_maps *maps);
/*
 * Let go of what is noted of pids that no longer run the generation last
 * queued (exited, or exec'd: opts->gen says), so that it follows the live
 * processes; returns how many. From the main thread, now and then.
 */
size_t unwind_jobs__prune(struct unwind_jobs *j);
/*
 * A walk of pid asked for tables (NEW_PID_TABLES): build those its entry
 * marks, soon. From the main thread.
 */
void unwind_jobs__queue_asked(struct unwind_jobs *j, pid_t pid, uint32_t uid);
/* Stop the worker, giving up the table it is building. */
void unwind_jobs__stop(struct unwind_jobs *j);
/*
 * After unwind_jobs__stop(): how loading pid's tables went
 * (unwind_procs__status), err -EINPROGRESS when it was still waiting.
 */
void unwind_jobs__status(const struct unwind_jobs *j, pid_t pid, struct unwind_pid_status *st);
/* After unwind_jobs__stop(): what was loaded, and pids dropped for a full queue. */
void unwind_jobs__stats(struct unwind_jobs *j, struct unwind_procs_stats *st, uint64_t *dropped);
void unwind_jobs__free(struct unwind_jobs *j);

#endif /* UNWIND_JOBS_H */
