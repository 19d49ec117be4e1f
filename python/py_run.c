// SPDX-License-Identifier: GPL-2.0
/*
 * py_run.c - Python frames in a run of profile (py_run.h): the worker
 * that looks at processes, and the names their frames' records bring.
 */
#include <errno.h>
#include <stdlib.h>

#include "python/py_jobs.h"
#include "python/py_run.h"
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

struct py_run {
	struct py_names *names;
	struct py_jobs *jobs;
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

struct py_run *py_run__start(const struct py_run_opts *opts)
{
	struct py_procs_opts popts = {
		.procs_fd = opts->procs_fd,
		.gen = opts->gen,
		.gen_ctx = opts->gen_ctx,
		.notice = opts->notice,
		.notice_ctx = opts->notice_ctx,
	};
	struct py_run *r = calloc(1, sizeof(*r));
	struct py_procs *p = NULL;
	int err;

	if (!r)
		return NULL;
	r->gen = opts->gen;
	r->gen_ctx = opts->gen_ctx;
	r->names = py_names__new(PY_NAMES_MAX, PY_NAMES_MAX_PER_PID);
	if (r->names)
		p = py_procs__new(&popts);
	if (p)
		r->jobs = py_jobs__start(p);
	if (!r->jobs) {
		err = errno;
		py_procs__free(p);
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
		py_jobs__queue(r->jobs, pids[i]);
	py_jobs__wait_idle(r->jobs, fd);
}

void py_run__queue(struct py_run *r, pid_t pid)
{
	py_jobs__queue(r->jobs, pid);
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
	py_jobs__stop(r->jobs);
}

void py_run__stats(struct py_run *r, struct py_procs_stats *procs, uint64_t *dropped,
		   struct py_names_stats *names)
{
	py_jobs__stats(r->jobs, procs, dropped);
	py_names__stats(r->names, names);
}

void py_run__free(struct py_run *r)
{
	if (!r)
		return;
	py_jobs__free(r->jobs);
	py_names__free(r->names);
	free(r->gone.v);
	free(r->now.v);
	free(r);
}
