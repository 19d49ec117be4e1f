// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_jobs.c - the one place that hands usyms' work to its loader
 * thread (loader.h) and dispatches it to the reader of its kind: the
 * symbols of a mapped file, or a perf map. Without a loader a job runs at
 * once, on the caller's thread; a job the loader will not run (the run is
 * ending) leaves its module or process marked as not loaded.
 *
 * The dependency runs one way: the readers know nothing of jobs; this
 * file opens what they need on the caller's thread and calls them.
 *
 *   usyms_procs.c --(a mapping, a perf map to read)--> usyms_jobs.c
 *   usyms_jobs.c  --module__for_mapping, module__read--> usyms_modules.c --> usyms_fetch.c
 *   usyms_jobs.c  --proc__open_perfmap, proc__read_perfmap--> usyms_perfmaps.c
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_stamp.h"
#include "symbols/proc_maps.h"
#include "symbols/usyms_internal.h"

/* Work for the loader thread: a mapped file's symbols, or a perf map. */
struct load_job {
	struct loader_job link;
	int fd;				/* the file, opened on the caller's thread */
	int root_fd;			/* the process's root (O_PATH), or -1: ours */
	char *path;			/* as the process sees it (a module's file) */
	struct module *mod;		/* a file's symbols for mod, or */
	struct proc *proc;		/* a perf map for proc */
	struct stat sb;			/* the perf map's */
};

/* A job for the file at fd (path NULL: no path), or NULL with fd closed. */
static struct load_job *load_job__new(int fd, const char *path)
{
	struct load_job *job = calloc(1, sizeof(*job));

	if (job && path)
		job->path = strdup(path);
	if (!job || (path && !job->path)) {
		free(job);
		close(fd);
		return NULL;
	}
	job->fd = fd;
	job->root_fd = -1;
	return job;
}

static void load_job__free(struct load_job *job)
{
	if (job->fd >= 0)
		close(job->fd);
	if (job->root_fd >= 0)
		close(job->root_fd);
	free(job->path);
	free(job);
}

static void load_job__run(struct loader_job *lj, void *ctx)
{
	struct load_job *job = (struct load_job *)lj;
	struct job_file jf = { .fd = job->fd, .root_fd = job->root_fd, .path = job->path };

	if (job->mod)
		module__read(ctx, job->mod, &jf);
	else
		proc__read_perfmap(ctx, job->proc, job->fd, &job->sb);
	load_job__free(job);
}

/* What a job not run leaves: its module not loaded, or its process's read not pending. */
static void load_job__not_run(struct load_job *job)
{
	if (job->mod)
		job->mod->state = MOD_NOT_LOADED;
	else
		job->proc->pending--;
	load_job__free(job);
}

/* A job the loader will not run: the run is ending. */
static void load_job__drop(struct loader_job *lj, void *ctx)
{
	struct usyms *u = ctx;

	usyms_lock(u);
	load_job__not_run((struct load_job *)lj);
	usyms_unlock(u);
}

struct loader *usyms_new_loader(struct usyms *u)
{
	return loader__new(load_job__run, load_job__drop, u);
}

/*
 * Hand a job to the loader, or run it here without one. Under u->lock
 * (the caller's): a job the loader refuses is dropped by us.
 */
static void load_job__submit(struct usyms *u, struct load_job *job)
{
	if (!u->loader) {
		load_job__run(&job->link, u);
		return;
	}
	if (loader__submit(u->loader, &job->link))
		load_job__not_run(job);
}

/*
 * The process's root when it is not ours (a container, a chroot), held
 * open: the loader reads it later, maybe after the process (and its pid)
 * is gone. -1 for our own root.
 */
static int open_root_fd(struct usyms *u, pid_t pid)
{
	struct stat theirs, ours;
	char buf[4096];
	int fd;

	snprintf(buf, sizeof(buf), "%s/%d/root", u->proc_root, (int)pid);
	fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &theirs) || stat("/", &ours) || file_stamp__same_file(&theirs, &ours)) {
		close(fd);	/* searching it would repeat our own search */
		return -1;
	}
	return fd;
}

struct module *usyms_queue_module(struct usyms *u, pid_t pid, const struct map_entry *e)
{
	struct load_job *job;
	int fd;
	struct module *m = module__for_mapping(u, pid, e, &fd);

	if (fd < 0)
		return m;
	job = load_job__new(fd, e->path);
	if (!job)
		return m;
	job->root_fd = open_root_fd(u, pid);
	job->mod = m;
	m->state = MOD_PENDING;
	load_job__submit(u, job);
	return m;
}

void usyms_queue_perfmap(struct usyms *u, struct proc *proc)
{
	struct load_job *job;
	struct stat sb;
	int fd = proc__open_perfmap(u, proc, &sb);

	if (fd < 0)
		return;
	job = load_job__new(fd, NULL);
	if (!job)
		return;
	job->sb = sb;
	job->proc = proc;
	proc->pending++;
	load_job__submit(u, job);
}
