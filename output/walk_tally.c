// SPDX-License-Identifier: GPL-2.0
/*
 * walk_tally.c - how each process's user stacks were walked (walk_tally.h).
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "common/escape.h"
#include "profile.h"
#include "output/walk_tally.h"

struct proc_walks {
	pid_t pid;
	char comm[AGG_COMM_LEN];
	uint64_t stacks;	/* samples with a user stack */
	uint64_t no_tables;	/* ... walked by frame pointers for want of tables */
};

struct walk_tally {
	void *procs;		/* tsearch tree of struct proc_walks, by pid */
	size_t nr;
	bool distinct;		/* each stack once, not by its samples */
};

static int cmp_pid(const void *a, const void *b)
{
	const struct proc_walks *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct walk_tally *walk_tally__new(bool distinct)
{
	struct walk_tally *t = calloc(1, sizeof(*t));

	if (t)
		t->distinct = distinct;
	return t;
}

static int add_entry(const struct agg_entry *e, void *ctx)
{
	struct walk_tally *t = ctx;
	struct proc_walks key = { .pid = (pid_t)e->pid }, *p, **slot;

	if (e->uerr || !e->nr_uips)
		return 0;
	slot = tfind(&key, &t->procs, cmp_pid);
	if (!slot) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = key.pid;
		if (!tsearch(p, &t->procs, cmp_pid)) {
			free(p);
			return -ENOMEM;
		}
		t->nr++;
	} else {
		p = *slot;
	}
	/* the latest name: a process that exec'd is known by its new one */
	memcpy(p->comm, e->comm, sizeof(p->comm));
	p->stacks += t->distinct ? 1 : e->count;
	if (e->flags & KEY_USER_NO_TABLES)
		p->no_tables += t->distinct ? 1 : e->count;
	return 0;
}

int walk_tally__add(struct walk_tally *t, const struct agg *a)
{
	return agg__for_each(a, add_entry, t);
}

/* The processes over the bounds, gathered by twalk(). */
static struct {
	const struct proc_walks **v;
	size_t nr;
} over;

static void gather(const void *node, VISIT which, int depth)
{
	const struct proc_walks *p = *(const struct proc_walks *const *)node;

	(void)depth;
	if (which != postorder && which != leaf)
		return;
	if (p->no_tables >= WALK_TALLY_MIN_STACKS &&
	    p->no_tables * 100 >= p->stacks * WALK_TALLY_MIN_PCT)
		over.v[over.nr++] = p;
}

static int by_no_tables(const void *a, const void *b)
{
	const struct proc_walks *x = *(const struct proc_walks *const *)a;
	const struct proc_walks *y = *(const struct proc_walks *const *)b;

	return (x->no_tables < y->no_tables) - (x->no_tables > y->no_tables);
}

/* Why a process's stacks were walked without its tables, from the worker's word on it. */
static const char *why_no_tables(const struct unwind_pid_status *st, char *buf, size_t size)
{
	if (st->err == -EINPROGRESS)
		return "still waiting for the tables worker when the run ended";
	if (st->published && st->first_ns && st->published_ns >= st->first_ns) {
		snprintf(buf, size, "they were loaded %.2f s after its first notice (the tables worker was busy)",
			 (st->published_ns - st->first_ns) / 1e9);
		return buf;
	}
	if (st->published)
		return "they were loaded only after these stacks were taken";
	switch (st->err) {
	case -ENOENT:
		if (st->forgotten)
			return "no notice of the process reached the tables worker, or it was gone long before the end and what became of its tables is no longer kept";
		return "no notice of the process reached the tables worker";
	case -ESRCH:
		return "the process was gone, or a zombie, when its mappings were read";
	case -ESTALE:
		return "it exec'd or exited while its mappings were read";
	case -E2BIG:
		return "the map of processes with tables was full";
	default:
		return "its mappings could not be read";
	}
}

void walk_tally__report(const struct walk_tally *t, FILE *f, walk_status_fn status, void *ctx)
{
	if (!t || !t->nr)
		return;
	over.v = calloc(t->nr, sizeof(*over.v));
	over.nr = 0;
	if (!over.v)
		return;
	twalk(t->procs, gather);
	qsort(over.v, over.nr, sizeof(*over.v), by_no_tables);
	for (size_t i = 0; i < over.nr && i < WALK_TALLY_MAX_LINES; i++) {
		const struct proc_walks *p = over.v[i];
		struct unwind_pid_status st;
		char why[128];

		status(p->pid, &st, ctx);
		fprintf(f, "profile: pid %d (", (int)p->pid);
		/* a name the process chose: no escapes to the terminal */
		escape__text(f, p->comm);
		fprintf(f, "): %llu of %llu user stacks walked by frame pointers, without its unwind tables: %s\n",
			(unsigned long long)p->no_tables, (unsigned long long)p->stacks,
			why_no_tables(&st, why, sizeof(why)));
	}
	if (over.nr > WALK_TALLY_MAX_LINES)
		fprintf(f, "profile: and %zu more processes with most user stacks walked without their unwind tables\n",
			over.nr - WALK_TALLY_MAX_LINES);
	free(over.v);
	over.v = NULL;
}

void walk_tally__free(struct walk_tally *t)
{
	if (!t)
		return;
	tdestroy(t->procs, free);
	free(t);
}
