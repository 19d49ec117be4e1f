// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_jobs.c - the work usyms hands its loader thread (loader.h): the
 * symbols of a mapped file, or a perf map. Without a loader a job runs at
 * once, on the caller's thread; a job the loader will not run (the run is
 * ending) leaves its module or process marked as not loaded.
 */
#include <stdlib.h>
#include <unistd.h>

#include "symbols/usyms_internal.h"

static void load_job__free(struct load_job *job)
{
	if (job->fd >= 0)
		close(job->fd);
	if (job->root_fd >= 0)
		close(job->root_fd);
	free(job->path);
	free(job);
}

void load_job__run(struct loader_job *lj, void *ctx)
{
	struct load_job *job = (struct load_job *)lj;

	if (job->mod)
		load_job__read_module(ctx, job);
	else
		load_job__read_perfmap(ctx, job);
	load_job__free(job);
}

/* A job the loader will not run: the run is ending. */
void load_job__drop(struct loader_job *lj, void *ctx)
{
	struct load_job *job = (struct load_job *)lj;
	struct usyms *u = ctx;

	usyms_lock(u);
	if (job->mod)
		job->mod->state = MOD_NOT_LOADED;
	else
		job->proc->pending--;
	usyms_unlock(u);
	load_job__free(job);
}

/*
 * Hand a job to the loader, or run it here without one. Under u->lock
 * (the caller's): a job the loader refuses is dropped by us.
 */
void load_job__submit(struct usyms *u, struct load_job *job)
{
	if (!u->loader) {
		load_job__run(&job->link, u);
		return;
	}
	if (loader__submit(u->loader, &job->link)) {
		if (job->mod)
			job->mod->state = MOD_NOT_LOADED;
		else
			job->proc->pending--;
		load_job__free(job);
	}
}
