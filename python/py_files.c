// SPDX-License-Identifier: GPL-2.0
/*
 * py_files.c - files looked at for an interpreter, bounded (py_files.h):
 * one tree by stamp over both kinds, and per kind a list from the most
 * recently used to the least, whose tail goes when the kind is full.
 */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdlib.h>

#include "python/py_files.h"

struct kept {
	struct py_file f;		/* first: what the tree compares */
	struct kept *newer, *older;	/* its kind's list */
	struct py_elf pe[];		/* an interpreter's */
};

struct lru {
	struct kept *newest, *oldest;
	size_t nr, max;
};

struct py_files {
	void *tree;			/* tsearch: struct kept, by f.id */
	struct lru kinds[2];		/* [0]: interpreters, [1]: the others */
	uint64_t forgotten;
};

static int cmp_entry(const void *a, const void *b)
{
	return file_stamp__cmp(&((const struct kept *)a)->f.id, &((const struct kept *)b)->f.id);
}

static struct lru *kind_of(struct py_files *c, const struct kept *e)
{
	return &c->kinds[e->f.status != 0];
}

static void unlink_entry(struct lru *l, struct kept *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		l->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		l->oldest = e->newer;
	e->newer = e->older = NULL;
	l->nr--;
}

static void push_newest(struct lru *l, struct kept *e)
{
	e->newer = NULL;
	e->older = l->newest;
	if (l->newest)
		l->newest->newer = e;
	else
		l->oldest = e;
	l->newest = e;
	l->nr++;
}

struct py_files *py_files__new(size_t max_interps, size_t max_others)
{
	struct py_files *c;

	if (!max_interps || !max_others) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->kinds[0].max = max_interps;
	c->kinds[1].max = max_others;
	return c;
}

static void no_free(void *node)
{
	(void)node;
}

void py_files__free(struct py_files *c)
{
	if (!c)
		return;
	tdestroy(c->tree, no_free);
	for (int k = 0; k < 2; k++)
		for (struct kept *e = c->kinds[k].newest, *next; e; e = next) {
			next = e->older;
			free(e);
		}
	free(c);
}

const struct py_file *py_files__find(struct py_files *c, const struct file_stamp *id)
{
	struct kept key = { .f.id = *id }, **slot = tfind(&key, &c->tree, cmp_entry);
	struct lru *l;

	if (!slot)
		return NULL;
	l = kind_of(c, *slot);
	unlink_entry(l, *slot);
	push_newest(l, *slot);
	return &(*slot)->f;
}

/* Room for one more of kind l: its least recently used entry forgotten. */
static void make_room(struct py_files *c, struct lru *l)
{
	struct kept *e = l->oldest;

	if (l->nr < l->max || !e)
		return;
	tdelete(e, &c->tree, cmp_entry);
	unlink_entry(l, e);
	free(e);
	c->forgotten++;
}

const struct py_file *py_files__add(struct py_files *c, const struct file_stamp *id, int status,
				    const struct py_elf *pe)
{
	bool interp = status == 0;
	struct kept *e, **slot;
	const struct py_file *known = py_files__find(c, id);

	if (known)
		return known;
	make_room(c, &c->kinds[!interp]);
	e = calloc(1, sizeof(*e) + (interp ? sizeof(*pe) : 0));
	if (!e)
		return NULL;
	e->f.id = *id;
	e->f.status = status;
	if (interp) {
		e->pe[0] = *pe;
		e->f.pe = e->pe;
	}
	slot = tsearch(e, &c->tree, cmp_entry);
	if (!slot) {
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	push_newest(kind_of(c, e), e);
	return &e->f;
}

void py_files__stats(const struct py_files *c, struct py_files_stats *st)
{
	*st = (struct py_files_stats){
		.interps = c->kinds[0].nr,
		.others = c->kinds[1].nr,
		.forgotten = c->forgotten,
	};
}
