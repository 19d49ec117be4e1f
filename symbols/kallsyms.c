// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - the running kernel's symbol table, read on a thread.
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
	int err;		/* -errno of the first reading */
	bool waited;		/* the first reading is done */
	bool reading;		/* the thread runs the first reading */
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
		if (k->reading)
			pthread_join(k->thread, NULL);
		else
			read_first(k);
		k->reading = false;
		k->waited = true;
	}
	return k->err;
}

const struct ksym *kallsyms__find(struct kallsyms *k, unsigned long addr)
{
	return k->waited ? ksyms__find(k->ks, addr) : NULL;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	if (k->reading)
		pthread_join(k->thread, NULL);
	ksyms__free(k->ks);
	free(k->path);
	free(k);
}
