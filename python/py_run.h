/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_run.h - Python frames in a run of profile, where the sampler walks
 * them: processes are looked at on a worker thread (common/pid_worker.h,
 * py_procs.h; their files are the users'), the targets of -p before
 * sampling starts (each read by the look), every other process when it
 * is first sampled (from the reading of its mappings the symbols made),
 * and every 2 s the entries of processes gone are swept; the names of their
 * frames come through the sampler's ring buffer, read by the main thread,
 * and are kept per process generation (py_names.h) for the report.
 */
#ifndef PY_RUN_H
#define PY_RUN_H

#include <stdint.h>
#include <sys/types.h>

#include "python/py_names.h"
#include "python/py_procs.h"
#include "symbols/proc_maps.h"

struct py_run;

struct py_run_opts {
	int procs_fd;		/* the sampler's "py_procs" map (sampler__python_maps()) */
	volatile uint64_t *procs_epoch;	/* moved on after each change to it; NULL: none */
	py_gen_fn gen;		/* the generation a pid runs now (sampler__pid_gen()) */
	void *gen_ctx;
	py_notice_fn notice;	/* told of the files and versions skipped; NULL: none */
	void *notice_ctx;
	py_watch_fn watch;	/* counts frees of code objects (py_procs.h); NULL: none */
	void *watch_ctx;
};

/* Start looking for Python processes. NULL with errno. */
struct py_run *py_run__start(const struct py_run_opts *opts);
/*
 * Take a record of the sampler's "py_names" ring buffer
 * (sampler__on_py_names(), ctx the run): py_names__add()'s result.
 */
int py_run__take_names(const void *data, size_t size, void *ctx);
/*
 * The targets of -p, looked at before sampling starts: until they are,
 * or fd is readable (a signal: the run loop reads it).
 */
void py_run__preload(struct py_run *r, const pid_t *pids, size_t nr_pids, int fd);
/* A process first sampled (or sampled again after a while): whether it runs Python. */
void py_run__queue(struct py_run *r, pid_t pid);
/*
 * The same, from maps, a reading of pid's mappings made in generation gen
 * (usyms__add_gen_shared), taken over: the look reads none of its own. A
 * newer reading replaces one still waiting. From the main thread.
 */
void py_run__queue_maps(struct py_run *r, pid_t pid, uint32_t gen, struct proc_maps *maps);
/* The names of the frames, for the report; the run's. */
const struct py_names *py_run__names(const struct py_run *r);
/*
 * After a profile is printed: the names of generations no longer running
 * go, those found gone already at the previous prune (one gone since may
 * have samples in the map set the next profile prints).
 */
void py_run__prune(struct py_run *r);
/* Sampling has stopped: stop looking, giving up a file being read. */
void py_run__stop(struct py_run *r);
/* After py_run__stop(): what was done, pids not queued (queue full), the names'. */
void py_run__stats(struct py_run *r, struct py_procs_stats *procs, uint64_t *dropped,
		   struct py_names_stats *names);
void py_run__free(struct py_run *r);

#endif /* PY_RUN_H */
