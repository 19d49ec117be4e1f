// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - the running kernel's symbol table over time: the first
 * reading on a thread, re-readings on a miss, and the table they replace
 * kept until its names are no longer in use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

#define PROC_KALLSYMS "/proc/kallsyms"

struct kallsyms {
	char *path;
	struct ksyms *ks;
	struct ksyms *retired;	/* replaced by a re-reading; its names may still be printed */
	int err;		/* -errno of the first reading */
	bool waited;		/* the first reading is done */
	bool reading;		/* the thread runs the first reading */
	bool may_reread;
	unsigned int nr_reads;
	pthread_t thread;
};

struct kallsyms *kallsyms__new(const char *path)
{
	struct kallsyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->path = strdup(path ? path : PROC_KALLSYMS);
	if (!k->path) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	return k;
}

static void read_first(struct kallsyms *k)
{
	k->ks = ksyms__load_file(k->path);
	k->err = k->ks ? 0 : -errno;
	k->nr_reads++;
}

static void *reader(void *arg)
{
	read_first(arg);
	return NULL;
}

/*
 * /proc/kallsyms takes the kernel ~50 ms to produce and us ~30 ms to parse:
 * read it while sampling runs, so that printing need not wait.
 */
void kallsyms__prefetch(struct kallsyms *k)
{
	if (k->waited || k->reading)
		return;
	k->reading = !pthread_create(&k->thread, NULL, reader, k);
}

int kallsyms__wait(struct kallsyms *k)
{
	if (!k->waited) {
		if (k->reading) {
			pthread_join(k->thread, NULL);
		} else {
			read_first(k);
			k->may_reread = false;	/* read just now: a miss is no news */
		}
		k->reading = false;
		k->waited = true;
	}
	return k->err;
}

void kallsyms__allow_reread(struct kallsyms *k)
{
	ksyms__free(k->retired);
	k->retired = NULL;
	k->may_reread = true;
}

/* A failed re-reading keeps the table there is. */
static void reread(struct kallsyms *k)
{
	struct ksyms *ks = ksyms__load_file(k->path);

	k->may_reread = false;
	k->nr_reads++;
	if (!ks)
		return;
	ksyms__free(k->retired);
	k->retired = k->ks;
	k->ks = ks;
}

const struct ksym *kallsyms__find(struct kallsyms *k, unsigned long addr)
{
	const struct ksym *s;

	if (!k->waited)
		return NULL;
	s = ksyms__find(k->ks, addr);
	if (!s && k->may_reread && k->ks) {
		reread(k);
		s = ksyms__find(k->ks, addr);
	}
	return s;
}

unsigned int kallsyms__nr_reads(const struct kallsyms *k)
{
	return k->nr_reads;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	if (k->reading)
		pthread_join(k->thread, NULL);
	ksyms__free(k->ks);
	ksyms__free(k->retired);
	free(k->path);
	free(k);
}
