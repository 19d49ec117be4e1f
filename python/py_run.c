// SPDX-License-Identifier: GPL-2.0
/*
 * py_run.c - Python frames in a run of profile (py_run.h): the worker
 * that looks at processes, and the names their frames' records bring.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/pid_worker.h"
#include "python/py_run.h"
#include "symbols/maps_handoff.h"
#include "trace_helpers.h"

/* A process generation. */
struct gen_ref {
	uint32_t pid, gen;
};

/* Generations found gone at a prune, sorted. */
struct gen_set {
	struct gen_ref *v;
	size_t nr, cap;
};

/* Entries of processes gone are looked for this often (py_procs__sweep). */
#define SWEEP_NS 2000000000ull

struct py_run {
	struct py_names *names;
	struct py_procs *procs;
	struct pid_worker *worker;	/* looks at a pid (py_procs__add_pid_maps, _add_pid), sweeps */
	struct maps_handoff *readings;	/* the main thread's, waiting for their pid's look */
	py_gen_fn gen;
	void *gen_ctx;
	struct gen_set gone;	/* at the last prune: their names go at the next */
	struct gen_set now;	/* found gone by the prune under way */
};

int py_run__take_names(const void *data, size_t size, void *ctx)
{
	struct py_run *r = ctx;

	return py_names__add(r->names, data, size);
}

static int cmp_gen_ref(const void *a, const void *b)
{
	const struct gen_ref *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->gen > y->gen) - (x->gen < y->gen);
}

/*
 * Whether the names of generation gen of pid are still needed: while it
 * runs, and after it was first found gone, until the next prune. Its
 * samples taken after the drain of the profile just printed (it died
 * since) are in the map set the next profile prints.
 */
static bool names_needed(pid_t pid, uint32_t gen, void *ctx)
{
	struct py_run *r = ctx;
	struct gen_ref g = { .pid = (uint32_t)pid, .gen = gen };
	struct gen_set *now = &r->now;

	if (r->gen(pid, r->gen_ctx) == gen)
		return true;
	if (r->gone.nr && bsearch(&g, r->gone.v, r->gone.nr, sizeof(g), cmp_gen_ref))
		return false;
	/* one that cannot be noted is kept: asked again at the next prune */
	if (!array_reserve((void **)&now->v, &now->cap, now->nr, sizeof(*now->v)))
		now->v[now->nr++] = g;
	return true;
}

/* The worker's job: a look at pid, at the reading handed over if there is one. */
static void look_at_pid(void *ctx, pid_t pid)
{
	struct py_run *r = ctx;
	struct maps_reading *m = maps_handoff__take(r->readings, pid);

	if (m)
		py_procs__add_pid_maps(r->procs, pid, m->gen, &m->maps);
	else
		py_procs__add_pid(r->procs, pid);
	maps_reading__free(m);
}

static void sweep(void *ctx)
{
	py_procs__sweep(((struct py_run *)ctx)->procs);
}

static void cancel(void *ctx)
{
	py_procs__cancel(((struct py_run *)ctx)->procs);
}

struct py_run *py_run__start(const struct py_run_opts *opts)
{
	struct py_procs_opts popts = {
		.procs_fd = opts->procs_fd,
		.procs_epoch = opts->procs_epoch,
		.gen = opts->gen,
		.gen_ctx = opts->gen_ctx,
		.notice = opts->notice,
		.notice_ctx = opts->notice_ctx,
		.watch = opts->watch,
		.watch_ctx = opts->watch_ctx,
	};
	struct pid_worker_ops wops = {
		.job = look_at_pid, .sweep = sweep, .cancel = cancel, .sweep_ns = SWEEP_NS,
	};
	struct py_run *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return NULL;
	r->gen = opts->gen;
	r->gen_ctx = opts->gen_ctx;
	r->names = py_names__new(PY_NAMES_MAX, PY_NAMES_MAX_PER_PID);
	if (r->names)
		r->procs = py_procs__new(&popts);
	if (r->procs)
		r->readings = maps_handoff__new();
	wops.ctx = r;
	if (r->readings)
		r->worker = pid_worker__start(&wops);
	if (!r->worker) {
		err = errno;
		maps_handoff__free(r->readings);
		py_procs__free(r->procs);
		py_names__free(r->names);
		free(r);
		errno = err;
		return NULL;
	}
	return r;
}

void py_run__preload(struct py_run *r, const pid_t *pids, size_t nr_pids, int fd)
{
	for (size_t i = 0; i < nr_pids; i++)
		pid_worker__queue(r->worker, pids[i]);
	pid_worker__wait_idle(r->worker, fd);
}

void py_run__queue(struct py_run *r, pid_t pid)
{
	pid_worker__queue(r->worker, pid);
}

void py_run__queue_maps(struct py_run *r, pid_t pid, uint32_t gen, struct proc_maps *maps)
{
	/* without room for it, the look reads the mappings itself */
	maps_handoff__put(r->readings, pid, gen, MAPS_UID_UNKNOWN, maps);
	if (pid_worker__queue(r->worker, pid) == -ENOSPC)
		maps_reading__free(maps_handoff__take(r->readings, pid));
}

const struct py_names *py_run__names(const struct py_run *r)
{
	return r->names;
}

void py_run__prune(struct py_run *r)
{
	struct gen_set done = r->gone;

	r->now.nr = 0;
	py_names__prune(r->names, names_needed, r);
	if (r->now.nr)
		qsort(r->now.v, r->now.nr, sizeof(*r->now.v), cmp_gen_ref);
	r->gone = r->now;
	r->now = done;	/* its room, for the next prune */
}

void py_run__stop(struct py_run *r)
{
	pid_worker__stop(r->worker);
}

void py_run__stats(struct py_run *r, struct py_procs_stats *procs, uint64_t *dropped,
		   struct py_names_stats *names)
{
	*dropped = pid_worker__dropped(r->worker);
	py_procs__stats(r->procs, procs);
	py_names__stats(r->names, names);
}

void py_run__free(struct py_run *r)
{
	if (!r)
		return;
	pid_worker__free(r->worker);
	maps_handoff__free(r->readings);
	py_procs__free(r->procs);
	py_names__free(r->names);
	free(r->gone.v);
	free(r->now.v);
	free(r);
}
