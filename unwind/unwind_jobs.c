// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_jobs.c - one worker thread loading unwind tables (unwind_jobs.h):
 * a reading handed over waits for its pid's job (symbols/maps_handoff.h);
 * a request for tables is only the pid queued, in its user's lane (the
 * entry itself says which mappings asked).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/pid_worker.h"
#include "common/escape.h"
#include "symbols/maps_handoff.h"
#include "symbols/proc_maps.h"
#include "unwind/gen_seen.h"
#include "unwind/table_cache.h"
#include "unwind/unwind_jobs.h"

/* Entries of processes gone are looked for this often (unwind_procs__sweep). */
#define SWEEP_NS 2000000000ull
/* Table requests the full queue dropped, queued again at the next sweep. */
#define RETRY_MAX 1024

struct unwind_jobs {
	struct unwind_procs *u;
	struct pid_worker *worker;	/* loads a pid's tables, sweeps */
	struct gen_seen gens;	/* the last generation queued, by pid; main thread only */
	unwind_gen_fn gen;	/* the generation a pid runs now (the prune of gens) */
	void *gen_ctx;
	struct maps_handoff *readings;	/* the reading waiting for its pid's job */
	pthread_mutex_t lock;	/* over retry */
	/*
	 * pids whose table request the full queue dropped: their entries keep
	 * the mappings marked asked, so no walk asks again
	 */
	pid_t retry[RETRY_MAX];
	size_t nr_retry;
};

/*
 * The lane of pid's jobs: its user's, so that users are served in turn;
 * the one the sampler saw, else read.
 */
static uint32_t lane_of(const struct unwind_procs *u, pid_t pid, uint32_t seen)
{
	uid_t uid;

	if (seen != MAPS_UID_UNKNOWN)
		return seen;
	/* gone already: its job finds that out at once, in any lane */
	return unwind_procs__uid(u, pid, &uid) ? 0 : (uint32_t)uid;
}

/*
 * The worker's job: pid's entry published from the reading handed over,
 * or again from its last one, once the tables its walks asked for are
 * built; what its turn left is queued behind the other users'.
 */
static void load_pid(void *ctx, pid_t pid)
{
	struct unwind_jobs *j = ctx;
	struct maps_reading *r = maps_handoff__take(j->readings, pid);
	uid_t uid;

	if (r) {
		unwind_procs__add_maps(j->u, pid, r->gen, r->uid, &r->maps);
		maps_reading__free(r);
	} else {
		unwind_procs__load_asked(j->u, pid);
	}
	if (unwind_procs__more(j->u, &uid))
		pid_worker__queue_lane(j->worker, pid, (uint32_t)uid);
}

static void sweep(void *ctx)
{
	struct unwind_jobs *j = ctx;
	pid_t retry[RETRY_MAX];
	size_t n;

	unwind_procs__sweep(j->u);
	pthread_mutex_lock(&j->lock);
	n = j->nr_retry;
	memcpy(retry, j->retry, n * sizeof(retry[0]));
	j->nr_retry = 0;
	pthread_mutex_unlock(&j->lock);
	for (size_t i = 0; i < n; i++)
		unwind_jobs__queue_asked(j, retry[i], MAPS_UID_UNKNOWN);
}

static void cancel(void *ctx)
{
	unwind_procs__cancel(((struct unwind_jobs *)ctx)->u);
}

struct unwind_jobs *unwind_jobs__start(struct unwind_procs *u)
{
	struct unwind_jobs *j = calloc(1, sizeof(*j));
	struct pid_worker_ops ops = {
		.job = load_pid, .sweep = sweep, .cancel = cancel, .ctx = j, .sweep_ns = SWEEP_NS,
	};

	if (!j)
		return NULL;
	j->u = u;
	pthread_mutex_init(&j->lock, NULL);
	j->readings = maps_handoff__new();
	if (j->readings)
		j->worker = pid_worker__start(&ops);
	if (!j->worker) {
		int err = errno;

		maps_handoff__free(j->readings);
		pthread_mutex_destroy(&j->lock);
		free(j);
		errno = err;
		return NULL;
	}
	return j;
}

/*
 * A generation's mappings are published once: its later notices are for
 * symbols. The unwinder asks by itself (NEW_PID_REREAD) when it meets code
 * in no mapping it knows, or when a walk is cut inside one (a file mapped
 * where another was).
 */
void unwind_jobs__queue_maps(struct unwind_jobs *j, pid_t pid, uint32_t gen, uint32_t uid,
			     bool reread, struct proc_maps *maps)
{
	/* no reading (the process gone, another generation): nothing to publish */
	if (!maps->nr || !gen || (!reread && !gen_seen__news(&j->gens, pid, gen, monotonic_ns()))) {
		proc_maps__release(maps);
		return;
	}
	if (maps_handoff__put(j->readings, pid, gen, uid, maps)) {
		gen_seen__forget(&j->gens, pid);
		return;
	}
	if (pid_worker__queue_lane(j->worker, pid, lane_of(j->u, pid, uid)) == -ENOSPC) {
		maps_reading__free(maps_handoff__take(j->readings, pid));
		gen_seen__forget(&j->gens, pid);
	}
}

size_t unwind_jobs__prune(struct unwind_jobs *j)
{
	return j->gen ? gen_seen__prune(&j->gens, j->gen, j->gen_ctx) : 0;
}

void unwind_jobs__queue_asked(struct unwind_jobs *j, pid_t pid, uint32_t uid)
{
	if (pid_worker__queue_lane(j->worker, pid, lane_of(j->u, pid, uid)) != -ENOSPC)
		return;
	/* dropped (counted): asked again at the next sweep, unless as many wait already */
	pthread_mutex_lock(&j->lock);
	if (j->nr_retry < RETRY_MAX)
		j->retry[j->nr_retry++] = pid;
	pthread_mutex_unlock(&j->lock);
}

bool unwind_jobs__idle(struct unwind_jobs *j)
{
	return pid_worker__idle(j->worker);
}

int unwind_jobs__wait_idle(struct unwind_jobs *j, int fd, uint64_t max_ns)
{
	return pid_worker__wait_idle_for(j->worker, fd, max_ns);
}

/* The cache at dir, or NULL (none asked for, or unusable: said on err). */
static struct table_cache *open_cache(const char *dir, uint64_t max_bytes, FILE *err_out)
{
	struct table_cache *c = NULL;
	char why[PATH_MAX + 128];

	if (!dir)
		return NULL;
	if (table_cache__open(dir, max_bytes, &c, why, sizeof(why))) {
		/* a path from the command line: still no escapes to the terminal */
		fputs("profile: unwind cache '", err_out);
		escape__text(err_out, dir);
		fputs("' refused: ", err_out);
		escape__text(err_out, why);
		fputs("; tables are built afresh\n", err_out);
		return NULL;
	}
	return c;
}

/* From the worker, once: one line, not mixed with the main thread's. */
static void say_denied(void *ctx)
{
	FILE *f = ctx;

	flockfile(f);
	fprintf(f, "profile: unwind tables need CAP_CHECKPOINT_RESTORE (/proc/PID/map_files refuses to open files without it): user stacks are walked by frame pointers\n");
	funlockfile(f);
}

struct unwind_jobs *unwind_jobs__open(const struct unwind_map_fds *fds,
				      const struct unwind_jobs_opts *opts, FILE *err_out)
{
	struct table_cache *c = open_cache(opts->cache_dir, opts->cache_max_bytes, err_out);
	struct unwind_procs *u = unwind_procs__new(fds, "/proc", c);
	struct unwind_jobs *j;
	int err;

	if (u) {
		unwind_procs__set_notice(u, opts->notice, NULL);
		unwind_procs__set_denied(u, say_denied, err_out);
		unwind_procs__set_debug_dirs(u, opts->debug_dirs, opts->nr_debug_dirs);
		unwind_procs__set_gen_fn(u, opts->gen, opts->gen_ctx);
		if (opts->no_row_quota)
			unwind_procs__set_row_quota(u, 0);
	}
	j = u ? unwind_jobs__start(u) : NULL;
	err = errno;
	if (j) {
		j->gen = opts->gen;
		j->gen_ctx = opts->gen_ctx;
	}

	if (!j) {
		fprintf(err_out, "profile: cannot load unwind tables (%s): user stacks by frame pointers\n",
			strerror(err));
		if (u)
			unwind_procs__free(u);	/* and c with it */
		else
			table_cache__free(c);
		errno = err;
	}
	return j;
}

void unwind_jobs__stop(struct unwind_jobs *j)
{
	pid_worker__stop(j->worker);
}

void unwind_jobs__status(const struct unwind_jobs *j, pid_t pid, struct unwind_pid_status *st)
{
	uint64_t first_ns = gen_seen__first_ns(&j->gens, pid);

	unwind_procs__status(j->u, pid, st);
	if (first_ns)
		st->first_ns = first_ns;
	if (pid_worker__queued(j->worker, pid))
		st->err = -EINPROGRESS;
}

void unwind_jobs__stats(struct unwind_jobs *j, struct unwind_procs_stats *st, uint64_t *dropped)
{
	*dropped = pid_worker__dropped(j->worker);
	unwind_procs__stats(j->u, st);
}

void unwind_jobs__free(struct unwind_jobs *j)
{
	if (!j)
		return;
	pid_worker__free(j->worker);
	unwind_procs__free(j->u);
	gen_seen__release(&j->gens);
	maps_handoff__free(j->readings);
	pthread_mutex_destroy(&j->lock);
	free(j);
}
