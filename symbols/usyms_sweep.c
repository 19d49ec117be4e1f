// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_sweep.c - what a long run lets go of once an interval is printed:
 * the modules no process generation still held maps (in any reading of
 * its history), with their references to symfiles, and the tables that
 * fetched debug files replaced. A mark and a sweep rather than counts:
 * map_history.c copies and merges mappings freely, and one pass over the
 * generations held costs less than the interval it follows.
 */
#include <search.h>
#include <stdlib.h>

#include "trace_helpers.h"
#include "symbols/usyms_internal.h"

static void mark_mappings(const struct umap *v, size_t n, uint64_t epoch)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].mod)
			v[i].mod->mapped_epoch = epoch;
}

static void mark_proc(const void *node, VISIT which, void *ctx)
{
	const struct proc *proc = *(const struct proc *const *)node;
	const uint64_t *epoch = ctx;

	if (which != postorder && which != leaf)
		return;
	mark_mappings(proc->maps.cur, proc->maps.nr_cur, *epoch);
	mark_mappings(proc->maps.gone, proc->maps.nr_gone, *epoch);
}

/* Still mapped by a generation held, or being read by the loader. */
static bool module__held(const struct module *m, uint64_t epoch)
{
	return m->mapped_epoch == epoch || m->state == MOD_PENDING;
}

/* One module (not the ones it replaced), and its reference to its table. */
static void module__drop(struct usyms *u, struct module *m)
{
	symfile__put(u, m->file);
	free(m->path);
	free(m->label);
	free(m);
	u->nr_modules--;
	u->modules_freed++;
}

struct sweep {
	struct usyms *u;
	uint64_t epoch;
	struct module **doomed;	/* heads of chains to take out of the tree */
	size_t nr, cap;
};

/*
 * A tree node: the newest module of a (dev, inode), and the ones it
 * replaced. Those no longer held are dropped from the chain now; the
 * newest goes with its node, once it is the last.
 */
static void sweep_node(const void *node, VISIT which, void *ctx)
{
	struct module *head = *(struct module *const *)node;
	struct sweep *s = ctx;
	struct module **pp = &head->replaced;

	if (which != postorder && which != leaf)
		return;
	while (*pp) {
		struct module *m = *pp;

		if (module__held(m, s->epoch)) {
			pp = &m->replaced;
			continue;
		}
		*pp = m->replaced;
		module__drop(s->u, m);
	}
	if (!head->replaced && !module__held(head, s->epoch) &&
	    !array_reserve((void **)&s->doomed, &s->cap, s->nr, sizeof(*s->doomed)))
		s->doomed[s->nr++] = head;
}

/*
 * Free the modules that no generation in u->procs maps, and the symfiles
 * only they used. Under u->lock, after the generations gone were freed
 * (usyms__prune()), so after the samples they named were printed.
 */
void usyms_sweep_modules(struct usyms *u)
{
	struct sweep s = { .u = u, .epoch = u->epoch };

	twalk_r(u->procs, mark_proc, &s.epoch);
	twalk_r(u->modules, sweep_node, &s);
	for (size_t i = 0; i < s.nr; i++) {
		tdelete(s.doomed[i], &u->modules, module__cmp);
		module__drop(u, s.doomed[i]);
	}
	free(s.doomed);
}

/* The tables fetched debug files replaced: names from them are printed by now. */
void usyms_free_retired_files(struct usyms *u)
{
	while (u->retired) {
		struct symfile *next = u->retired->next_retired;

		symfile__release(u->retired);
		free(u->retired);
		u->retired = next;
	}
}
