// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_reading.c - the reading of a process's mappings its entry is
 * made from (unwind_procs_internal.h): what of a reading of
 * /proc/PID/maps goes into the entry, the files its mappings map (met,
 * not built), the entry filled from it, and the tables its walks asked
 * for built from it. Kept while the entry is there, so that a walk's
 * request needs no other reading.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/proc_maps.h"
#include "unwind/unwind_procs_internal.h"

void unwind_reading__release(struct unwind_reading *r)
{
	for (uint32_t i = 0; i < r->nr; i++)
		map_entry__release(&r->maps[i].e);
	free(r->maps);
	r->maps = NULL;
	r->nr = 0;
}

/*
 * Whether mapping e is of a file that already has UNWIND_MAPS_PER_FILE
 * of the nr mappings kept: a process that maps one file 60,000 times
 * must leave room for its libraries.
 */
static bool too_many_copies(const struct map_entry *e, const struct unwind_kept *kept, size_t nr)
{
	size_t n = 0;

	if (!e->inode)
		return false;
	for (size_t j = 0; j < nr; j++)
		n += kept[j].e.inode == e->inode && kept[j].e.dev_major == e->dev_major &&
		     kept[j].e.dev_minor == e->dev_minor;
	return n >= UNWIND_MAPS_PER_FILE;
}

int unwind_reading__take(struct unwind_reading *r, const struct proc_maps *maps, uint32_t gen)
{
	size_t cap = maps->nr < UNWIND_MAX_MAPS_BIG ? maps->nr : UNWIND_MAX_MAPS_BIG;
	struct unwind_reading next = { .gen = gen };

	next.maps = calloc(cap ? cap : 1, sizeof(*next.maps));
	if (!next.maps)
		return -ENOMEM;
	for (size_t i = 0; i < maps->nr; i++) {
		const struct map_entry *e = &maps->entries[i];
		struct unwind_kept *k = &next.maps[next.nr];

		if (!map_entry__is_exec(e))
			continue;
		/* past a full entry, or a file's cap: only that there was more */
		if (next.nr == cap || too_many_copies(e, next.maps, next.nr) ||
		    e->end - e->start > UINT32_MAX) {
			next.partial = true;
			continue;
		}
		k->e = *e;
		k->e.path = strdup(e->path);
		if (!k->e.path) {
			unwind_reading__release(&next);
			return -ENOMEM;
		}
		next.nr++;
	}
	unwind_reading__release(r);
	*r = next;
	return 0;
}

void unwind_reading__meet_files(struct unwind_procs *u, pid_t pid, struct unwind_reading *r)
{
	for (uint32_t i = 0; i < r->nr; i++) {
		struct unwind_kept *k = &r->maps[i];
		struct unwind_file *f = NULL;

		k->kind = UNWIND_KEPT_NONE;
		k->asked = false;
		if (k->e.path[0] == '/')
			f = unwind_files__of(u, pid, &k->e, false);
		else if (!strcmp(k->e.path, "[vdso]") && unwind_files__vdso(u, pid, &k->e))
			k->kind = UNWIND_KEPT_VDSO;
		if (f) {
			k->kind = UNWIND_KEPT_FILE;
			k->id = f->id;
			unwind_files__pend(u, f);
		}
	}
}

void unwind_reading__fill(struct unwind_procs *u, const struct unwind_reading *r,
			  struct unwind_proc_big *p, bool *partial)
{
	*partial = r->partial;
	for (uint32_t i = 0; i < r->nr; i++) {
		const struct unwind_kept *k = &r->maps[i];
		struct unwind_file *f = k->kind == UNWIND_KEPT_FILE ? unwind_files__find(u, &k->id) : NULL;
		struct unwind_map *m = &p->maps[p->nr];

		/* a Go file's parts are one mapping of it, and may not all fit */
		if (p->nr == UNWIND_MAX_MAPS_BIG) {
			*partial = true;
			break;
		}
		/* the rows its entry points at stay while it does */
		if (f)
			unwind_files__pend(u, f);
		else if (k->kind == UNWIND_KEPT_VDSO && !u->vdso_file.status)
			f = &u->vdso_file;
		p->nr += (uint32_t)unwind_files__map(f, &k->e, m, UNWIND_MAX_MAPS_BIG - p->nr);
		/* asked for, its build put off to the next turn: not asked again */
		if (k->asked && (m->flags & UNWIND_MAP_WANT))
			m->flags |= UNWIND_MAP_ASKED;
	}
}

/* The mapping kept that holds addr, or NULL. */
static struct unwind_kept *kept_at(struct unwind_reading *r, uint64_t addr)
{
	uint32_t lo = 0, hi = r->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (addr < r->maps[mid].e.start)
			hi = mid;
		else if (addr >= r->maps[mid].e.end)
			lo = mid + 1;
		else
			return &r->maps[mid];
	}
	return NULL;
}

void unwind_reading__build_asked(struct unwind_procs *u, pid_t pid, struct unwind_reading *r,
				 const struct unwind_map *maps, uint32_t nr)
{
	for (uint32_t i = 0; i < nr && i < UNWIND_MAX_MAPS_BIG; i++) {
		struct unwind_file *f;
		struct unwind_kept *k;

		if ((maps[i].flags & (UNWIND_MAP_WANT | UNWIND_MAP_ASKED)) !=
		    (UNWIND_MAP_WANT | UNWIND_MAP_ASKED))
			continue;
		k = kept_at(r, maps[i].start);
		if (!k || k->kind != UNWIND_KEPT_FILE)
			continue;
		/* a request put off is counted once */
		u->stats.asked += !k->asked;
		/* the file mapped there now: another since the reading is built instead */
		f = unwind_files__of(u, pid, &k->e, true);
		k->asked = f && f->status == UNWIND_FILE_WAITING;
		if (f) {
			k->id = f->id;
			unwind_files__pend(u, f);
		} else {
			k->kind = UNWIND_KEPT_NONE;
		}
	}
}
