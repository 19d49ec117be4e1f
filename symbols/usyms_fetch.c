// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_fetch.c - debug files from debuginfod for the files that have
 * none on disk: asked for by build-id when the loader finds such a file,
 * fetched on the fetch threads (debuginfod_fetch.h), checked and read
 * there like a build-id hit under --debug-dir, then swapped in for the
 * .dynsym table the file was named by until then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf_symtab.h"
#include "symbols/srcline.h"
#include "symbols/usyms_internal.h"

/*
 * A request in flight: the binary, held open until its debug file lands,
 * and a reference to its table (the modules of the file may all be freed
 * before that).
 */
struct fetch_item {
	struct symfile *file;
	int fd;
	char *path;		/* as the process sees it, for -v */
};

static void fetch_item__free(struct fetch_item *it)
{
	if (it->fd >= 0)
		close(it->fd);
	free(it->path);
	free(it);
}

/* A request done with: its reference dropped, on a fetch thread. */
static void fetch_item__done(struct usyms *u, struct fetch_item *it)
{
	usyms_lock(u);
	symfile__put(u, it->file);
	usyms_unlock(u);
	fetch_item__free(it);
}

/*
 * Put the fuller table in f's place, under u->lock. What f had goes to
 * u->retired until the next usyms__prune(): a name resolved from it may
 * not be printed yet.
 */
static int symfile__upgrade(struct usyms *u, struct symfile *f, struct elf_symtab *st,
			    struct srcline *sl)
{
	struct symfile *old = calloc(1, sizeof(*old));

	if (!old)
		return -ENOMEM;
	old->st = f->st;
	old->names = f->names;
	old->sl = f->sl;
	old->lines = f->lines;
	old->next_retired = u->retired;
	u->retired = old;
	f->st = st;
	f->source = DEBUGINFO_DEBUGINFOD;
	f->names = NULL;
	f->sl = sl;
	f->lines = NULL;
	return 0;
}

/* debuginfod_landed_fn: on a fetch thread. */
static int fetch_landed(int fd, void *item, void *ctx)
{
	struct debuginfo_opts opts = { .keep_debug_fd = false };
	struct fetch_item *it = item;
	struct usyms *u = ctx;
	struct debuginfo_info info;
	struct srcline *sl = NULL;
	struct elf_symtab *st;
	int err = 0;

	if (fd < 0) {
		fetch_item__done(u, it);
		return fd;
	}
	opts.budget = &u->budget;
	opts.keep_debug_fd = u->lines;
	budget__clear();
	st = debuginfo__load_with_debug_fd(it->fd, fd, &opts, &info);
	close(fd);
	if (!st) {
		err = -errno;
		usyms_notice(u, it->path, err == -EFBIG ? budget__why() : info.refused);
		fetch_item__done(u, it);
		return err;
	}
	if (u->lines && info.debug_fd >= 0)
		sl = symfile__open_lines(u, it->fd, &info);
	if (info.debug_fd >= 0)
		close(info.debug_fd);
	usyms_lock(u);
	err = symfile__upgrade(u, it->file, st, sl);
	symfile__put(u, it->file);
	usyms_unlock(u);
	if (err) {
		elf_symtab__free(st);
		srcline__free(sl);
	}
	fetch_item__free(it);
	return err;
}

int usyms_fetch_start(struct usyms *u, const struct debuginfod_fetch_opts *opts)
{
	struct debuginfod_fetch_opts o = *opts;

	o.landed = fetch_landed;
	o.ctx = u;
	u->fetch = debuginfod_fetch__new(&o);
	return u->fetch ? 0 : -errno;
}

/*
 * Ask for f's debug file if it needs one: read from jf, it has a build-id
 * and nothing but .dynsym. Under u->lock (the loader's).
 */
void usyms_fetch_submit(struct usyms *u, struct symfile *f, const struct job_file *jf)
{
	struct fetch_item *it;
	struct stat sb;

	if (!u->fetch || f->fetch_queued || !f->st || f->source != DEBUGINFO_NONE ||
	    !f->build_id_len || elf_symtab__kind(f->st) == ELF_SYMTAB_FULL)
		return;
	f->fetch_queued = true;
	it = calloc(1, sizeof(*it));
	if (!it)
		return;
	it->file = f;
	it->fd = fcntl(jf->fd, F_DUPFD_CLOEXEC, 0);
	it->path = strdup(jf->path);
	f->refs++;
	/*
	 * Its owner chose its build-id: over the bounds on what one user's
	 * files make us ask for, it is not asked for (counted there). Then
	 * the module's reference remains: this one is never the last.
	 */
	if (it->fd < 0 || !it->path || fstat(it->fd, &sb) ||
	    debuginfod_fetch__submit(u->fetch, f->build_id, f->build_id_len, sb.st_uid, it)) {
		f->refs--;
		fetch_item__free(it);
	}
}

int usyms__wait_fetches(struct usyms *u, uint64_t until_ns, int watch_fd)
{
	if (!u->fetch)
		return 0;
	debuginfod_fetch__set_deadline(u->fetch, until_ns);
	return debuginfod_fetch__wait(u->fetch, until_ns, watch_fd);
}

int usyms__fetch_stats(struct usyms *u, struct debuginfod_fetch_stats *st)
{
	if (!u->fetch)
		return -ENOENT;
	debuginfod_fetch__stats(u->fetch, st);
	return 0;
}
