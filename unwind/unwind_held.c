// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_held.c - which files the published process entries point at:
 * each held once by every entry (and by the reading under way), and those
 * held by none kept, least recently idle first to go, up to
 * UNWIND_IDLE_FILES; a file's block of rows (row_store.h) is idle while
 * none of its files is held.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>

#include "unwind/unwind_procs_internal.h"

static void idle_del(struct unwind_procs *u, struct unwind_file *f)
{
	if (!f->idle)
		return;
	if (f->idle_prev)
		f->idle_prev->idle_next = f->idle_next;
	else
		u->idle_head = f->idle_next;
	if (f->idle_next)
		f->idle_next->idle_prev = f->idle_prev;
	else
		u->idle_tail = f->idle_prev;
	f->idle_prev = f->idle_next = NULL;
	f->idle = false;
	u->nr_idle--;
}

/* f, idle, forgotten: its rows given back unless a copy's file still points at them. */
static void forget_file(struct unwind_procs *u, struct unwind_file *f)
{
	idle_del(u, f);
	tdelete(f, &u->files, unwind_file__cmp);
	row_store__unlink(u->rows, f);
	free(f);
}

static void idle_add(struct unwind_procs *u, struct unwind_file *f)
{
	f->idle_prev = u->idle_tail;
	f->idle_next = NULL;
	if (u->idle_tail)
		u->idle_tail->idle_next = f;
	else
		u->idle_head = f;
	u->idle_tail = f;
	f->idle = true;
	/* a churn of fresh files leaves a record each: the oldest go */
	if (++u->nr_idle > UNWIND_IDLE_FILES)
		forget_file(u, u->idle_head);
}

static void hold(struct unwind_procs *u, struct unwind_file *f)
{
	if (f->held++)
		return;
	idle_del(u, f);
	if (f->block)
		row_store__busy(u->rows, f->block);
}

static void let_go(struct unwind_procs *u, struct unwind_file *f)
{
	if (!f->held || --f->held)
		return;
	if (f->block)
		row_store__unbusy(u->rows, f->block);
	idle_add(u, f);
}

static int held_add(struct unwind_held *h, struct unwind_file *f)
{
	if (h->nr == h->cap) {
		uint32_t cap = h->cap ? 2 * h->cap : 16;
		struct unwind_file **v = reallocarray(h->files, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->files = v;
		h->cap = cap;
	}
	h->files[h->nr++] = f;
	return 0;
}

void unwind_files__pend(struct unwind_procs *u, struct unwind_file *f)
{
	if (f->pended == u->reading)
		return;
	/* without memory to note it, f stays unheld: its rows may be reclaimed under it */
	if (held_add(&u->pending, f))
		return;
	f->pended = u->reading;
	hold(u, f);
}

void unwind_files__begin(struct unwind_procs *u)
{
	unwind_files__drop(u);
	u->reading++;
	u->reading_cpu_ns = 0;
	u->more = false;
}

void unwind_files__keep(struct unwind_procs *u, struct unwind_held *held)
{
	struct unwind_held old = *held;

	*held = u->pending;
	u->pending = old;
	unwind_files__drop(u);
}

void unwind_files__drop(struct unwind_procs *u)
{
	unwind_files__release(u, &u->pending);
}

void unwind_files__release(struct unwind_procs *u, struct unwind_held *held)
{
	for (uint32_t i = 0; i < held->nr; i++)
		let_go(u, held->files[i]);
	held->nr = 0;
}

void unwind_files__free(struct unwind_procs *u)
{
	free(u->pending.files);
	u->pending = (struct unwind_held){ 0 };
	tdestroy(u->files, free);
	u->files = NULL;
}
