// SPDX-License-Identifier: GPL-2.0
/*
 * proc_recs.c - the worker's records of processes, and the outcomes of
 * those gone (proc_recs.h).
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>

#include "unwind/proc_recs.h"

static int cmp_rec(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct proc_rec *proc_recs__find(const struct proc_recs *r, pid_t pid)
{
	struct proc_rec key = { .pid = pid }, **slot = tfind(&key, &r->tree, cmp_rec);

	return slot ? *slot : NULL;
}

struct proc_rec *proc_recs__of(struct proc_recs *r, pid_t pid)
{
	struct proc_rec *rec = proc_recs__find(r, pid);

	if (rec)
		return rec;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return NULL;
	rec->pid = pid;
	if (!tsearch(rec, &r->tree, cmp_rec)) {
		free(rec);
		return NULL;
	}
	r->nr++;
	return rec;
}

/* The records gathered by twalk_r(). */
struct gathered {
	struct proc_rec **v;
	size_t nr;
};

static void gather_one(const void *node, VISIT which, void *ctx)
{
	struct gathered *g = ctx;

	if (which == postorder || which == leaf)
		g->v[g->nr++] = *(struct proc_rec *const *)node;
}

struct proc_rec **proc_recs__gather(const struct proc_recs *r, size_t *nr)
{
	struct gathered g = { .v = r->nr ? calloc(r->nr, sizeof(*g.v)) : NULL };

	*nr = 0;
	if (!g.v)
		return NULL;
	twalk_r(r->tree, gather_one, &g);
	*nr = g.nr;
	return g.v;
}

static void rec_free(void *p)
{
	struct proc_rec *rec = p;

	unwind_reading__release(&rec->reading);
	free(rec->held.files);
	free(rec);
}

void proc_recs__let_go(struct proc_recs *r, struct proc_rec *rec)
{
	if (!r->gone)
		r->gone = calloc(PROC_RECS_GONE_KEPT, sizeof(*r->gone));
	/* no memory for the ring: a report names it as not kept (proc_recs__status) */
	if (r->gone)
		r->gone[r->nr_gone % PROC_RECS_GONE_KEPT] = (struct proc_outcome){
			.pid = rec->pid, .status = rec->status, .published_ns = rec->published_ns,
		};
	r->nr_gone++;
	tdelete(rec, &r->tree, cmp_rec);
	r->nr--;
	rec_free(rec);
}

void proc_recs__status(const struct proc_recs *r, pid_t pid, struct unwind_pid_status *st)
{
	const struct proc_rec *rec = proc_recs__find(r, pid);
	uint64_t kept = r->nr_gone < PROC_RECS_GONE_KEPT ? r->nr_gone : PROC_RECS_GONE_KEPT;

	*st = (struct unwind_pid_status){ .err = -ENOENT };
	if (rec) {
		st->err = rec->status;
		st->published = rec->published_ns != 0;
		st->published_ns = rec->published_ns;
		return;
	}
	/* the newest first: a pid reused, then gone again */
	for (uint64_t i = 0; r->gone && i < kept; i++) {
		const struct proc_outcome *o = &r->gone[(r->nr_gone - 1 - i) % PROC_RECS_GONE_KEPT];

		if (o->pid == pid) {
			st->err = o->status;
			st->published = o->published_ns != 0;
			st->published_ns = o->published_ns;
			return;
		}
	}
	st->forgotten = r->nr_gone > kept || (r->nr_gone && !r->gone);
}

void proc_recs__free(struct proc_recs *r)
{
	tdestroy(r->tree, rec_free);
	free(r->gone);
	*r = (struct proc_recs){ 0 };
}
