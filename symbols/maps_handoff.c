// SPDX-License-Identifier: GPL-2.0
/*
 * maps_handoff.c - readings of mappings waiting for their pid's job
 * (maps_handoff.h): a tree by pid under a mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <search.h>
#include <stdlib.h>

#include "symbols/maps_handoff.h"

struct maps_handoff {
	pthread_mutex_t lock;
	void *readings;		/* tsearch: struct maps_reading, by pid */
	size_t nr;
};

static int cmp_reading(const void *a, const void *b)
{
	const struct maps_reading *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct maps_handoff *maps_handoff__new(void)
{
	struct maps_handoff *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	return h;
}

void maps_reading__free(struct maps_reading *r)
{
	if (!r)
		return;
	proc_maps__release(&r->maps);
	free(r);
}

int maps_handoff__put(struct maps_handoff *h, pid_t pid, uint32_t gen, uint32_t uid,
		      struct proc_maps *maps)
{
	struct maps_reading *r = malloc(sizeof(*r)), **slot;

	if (!r) {
		proc_maps__release(maps);
		return -ENOMEM;
	}
	*r = (struct maps_reading){ .pid = pid, .gen = gen, .uid = uid, .maps = *maps };
	*maps = (struct proc_maps){ 0 };
	pthread_mutex_lock(&h->lock);
	slot = tsearch(r, &h->readings, cmp_reading);
	if (slot && *slot != r) {
		/* the newer replaces the one waiting */
		struct maps_reading *old = *slot;

		proc_maps__release(&old->maps);
		*old = *r;
		free(r);
	} else if (slot) {
		h->nr++;
	}
	pthread_mutex_unlock(&h->lock);
	if (!slot) {
		maps_reading__free(r);
		return -ENOMEM;
	}
	return 0;
}

struct maps_reading *maps_handoff__take(struct maps_handoff *h, pid_t pid)
{
	struct maps_reading key = { .pid = pid }, *r = NULL, **slot;

	pthread_mutex_lock(&h->lock);
	slot = tfind(&key, &h->readings, cmp_reading);
	if (slot) {
		r = *slot;
		tdelete(r, &h->readings, cmp_reading);
		h->nr--;
	}
	pthread_mutex_unlock(&h->lock);
	return r;
}

size_t maps_handoff__waiting(struct maps_handoff *h)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->nr;
	pthread_mutex_unlock(&h->lock);
	return n;
}

static void free_node(void *p)
{
	maps_reading__free(p);
}

void maps_handoff__free(struct maps_handoff *h)
{
	if (!h)
		return;
	tdestroy(h->readings, free_node);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
