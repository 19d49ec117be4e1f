// SPDX-License-Identifier: GPL-2.0
/* gen_seen.c - the generations handed to the unwind worker, by pid (gen_seen.h). */
#include <search.h>
#include <stdlib.h>

#include "unwind/gen_seen.h"

struct pid_gen_seen {
	pid_t pid;
	uint32_t gen;		/* 0: forgotten, the next notice is news */
	uint64_t first_ns;	/* its first notice */
};

static int cmp_pid(const void *a, const void *b)
{
	const struct pid_gen_seen *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct pid_gen_seen *find(const struct gen_seen *s, pid_t pid)
{
	struct pid_gen_seen key = { .pid = pid }, **slot = tfind(&key, &s->tree, cmp_pid);

	return slot ? *slot : NULL;
}

bool gen_seen__news(struct gen_seen *s, pid_t pid, uint32_t gen, uint64_t now_ns)
{
	struct pid_gen_seen *e = find(s, pid);

	if (e) {
		if (e->gen == gen)
			return false;
		e->gen = gen;
		return true;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return true;
	*e = (struct pid_gen_seen){ .pid = pid, .gen = gen, .first_ns = now_ns };
	if (!tsearch(e, &s->tree, cmp_pid))
		free(e);
	else
		s->nr++;
	return true;
}

void gen_seen__forget(struct gen_seen *s, pid_t pid)
{
	struct pid_gen_seen *e = find(s, pid);

	if (e)
		e->gen = 0;
}

uint64_t gen_seen__first_ns(const struct gen_seen *s, pid_t pid)
{
	const struct pid_gen_seen *e = find(s, pid);

	return e ? e->first_ns : 0;
}

/* The entries to let go, gathered by twalk_r(). */
struct gone {
	uint32_t (*gen)(pid_t pid, void *ctx);
	void *ctx;
	struct pid_gen_seen **v;
	size_t nr;
};

static void note_gone(const void *node, VISIT which, void *ctx)
{
	struct pid_gen_seen *e = *(struct pid_gen_seen *const *)node;
	struct gone *g = ctx;
	uint32_t now;

	if (which != postorder && which != leaf)
		return;
	now = g->gen(e->pid, g->ctx);
	if (!now || (e->gen && now != e->gen))
		g->v[g->nr++] = e;
}

size_t gen_seen__prune(struct gen_seen *s, uint32_t (*gen)(pid_t pid, void *ctx), void *ctx)
{
	struct gone g = { .gen = gen, .ctx = ctx };

	if (!s->nr)
		return 0;
	g.v = malloc(s->nr * sizeof(*g.v));
	if (!g.v)
		return 0;	/* the next prune */
	twalk_r(s->tree, note_gone, &g);
	/* deleted after the walk: the tree is not changed under it */
	for (size_t i = 0; i < g.nr; i++) {
		tdelete(g.v[i], &s->tree, cmp_pid);
		free(g.v[i]);
	}
	s->nr -= g.nr;
	free(g.v);
	return g.nr;
}

void gen_seen__release(struct gen_seen *s)
{
	tdestroy(s->tree, free);
	s->tree = NULL;
	s->nr = 0;
}
