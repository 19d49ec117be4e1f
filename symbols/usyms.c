// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - per-process user symbolization over a cache of ELF symbol
 * tables shared by all processes: creating and freeing it, and resolving
 * an address. The rest lives beside it, one concern a file:
 *   usyms_procs.c       process generations and the readings of their maps
 *   usyms_modules.c     mapped files and their symbol tables, shared by what they are read from
 *   usyms_sweep.c       freeing the files no process held maps any more
 *   usyms_jobs.c        the work handed to the loader thread, one dispatch point
 *   usyms_fetch.c       debug files fetched from debuginfod, swapped in
 *   usyms_perfmaps.c    JIT perf maps, shared by the processes naming one file
 *   usyms_names.c       demangled names, made once per symbol
 *   usyms_lines.c       --lines: source frames, made once per address
 *   usyms_unresolved.c  what could not be named, by module and reason
 *   usyms_internal.h    the structures they share
 */
#include <errno.h>
#include <pthread.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "symbols/elf_symtab.h"
#include "symbols/loader.h"
#include "symbols/perfmap.h"
#include "symbols/srcline.h"
#include "symbols/usyms_internal.h"

/* How long usyms__free() waits for a loader job that ignores cancelling. */
#define LOADER_EXIT_MS 300

/* u->debug_dirs: a copy of opts'. 0 or -ENOMEM (what was copied is u's). */
static int copy_debug_dirs(struct usyms *u, const struct usyms_opts *opts)
{
	if (!opts->nr_debug_dirs)
		return 0;
	u->debug_dirs = calloc(opts->nr_debug_dirs, sizeof(*u->debug_dirs));
	if (!u->debug_dirs)
		return -ENOMEM;
	for (size_t i = 0; i < opts->nr_debug_dirs; i++) {
		u->debug_dirs[i] = strdup(opts->debug_dirs[i]);
		if (!u->debug_dirs[i])
			return -ENOMEM;
		u->nr_debug_dirs++;
	}
	return 0;
}

struct usyms *usyms__new_opts(const struct usyms_opts *opts)
{
	static const struct usyms_opts defaults = { .demangle = true };
	struct usyms *u;
	int err = ENOMEM;

	if (!opts)
		opts = &defaults;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->demangle = opts->demangle;
	u->lines = opts->lines;
	u->budget = *(opts->budget ? opts->budget : budget__default());
	u->budget.cancel = &u->cancel;
	u->epoch = 1;
	u->start_ns = monotonic_ns();
	u->notice = opts->notice;
	u->notice_ctx = opts->notice_ctx;
	u->proc_root = strdup(opts->proc_root ? opts->proc_root : "/proc");
	u->vdso.path = strdup("[vdso]");
	u->vdso.label = strdup("[vdso]");
	u->anon.path = strdup("[anon]");
	if (!u->proc_root || !u->vdso.path || !u->vdso.label || !u->anon.path ||
	    copy_debug_dirs(u, opts))
		goto fail;
	if (opts->fetch && !opts->async) {
		err = EINVAL;	/* the fetch threads need the loader's lock */
		goto fail;
	}
	if (opts->async) {
		pthread_mutex_init(&u->lock, NULL);
		u->loader = usyms_new_loader(u);
		if (!u->loader) {
			err = errno;	/* the thread's: EAGAIN, ... */
			pthread_mutex_destroy(&u->lock);
			goto fail;
		}
	}
	if (opts->fetch) {
		int e = usyms_fetch_start(u, opts->fetch);

		if (e) {
			err = -e;
			goto fail;
		}
	}
	return u;
fail:
	usyms__free(u);
	errno = err;
	return NULL;
}

struct usyms *usyms__new(const char *proc_root)
{
	struct usyms_opts opts = { .proc_root = proc_root, .demangle = true };

	return usyms__new_opts(&opts);
}

static void noop_free(void *p)
{
	(void)p;
}

void usyms__free(struct usyms *u)
{
	if (!u)
		return;
	if (u->loader) {
		__atomic_store_n(&u->cancel, 1, __ATOMIC_RELAXED);
		if (u->fetch)
			debuginfod_fetch__cancel(u->fetch);
		/*
		 * Its jobs are done or dropped, or one is stuck where it cannot
		 * see the cancel flag (a read from a hung file system): then
		 * everything stays for it, and the exit that follows ends it.
		 * The same for a fetch between two of its progress calls (the
		 * loader's jobs queue fetches, so it goes first).
		 */
		if (loader__free(u->loader, LOADER_EXIT_MS) ||
		    debuginfod_fetch__free(u->fetch, LOADER_EXIT_MS))
			return;
		pthread_mutex_destroy(&u->lock);
	}
	shared_perfmap__free_list(u->perfmaps);
	shared_perfmap__free_list(u->retired_perfmaps);
	tdestroy(u->procs, proc__free);
	tdestroy(u->modules, module__free);
	tdestroy(u->by_key, noop_free);	/* owned by files */
	tdestroy(u->unresolved, unresolved__free);
	while (u->files) {
		struct symfile *next = u->files->next;

		symfile__release(u->files);
		free(u->files);
		u->files = next;
	}
	usyms_free_retired_files(u);
	symfile__release(&u->vdso_file);
	free(u->vdso.path);
	free(u->vdso.label);
	free(u->anon.path);
	for (size_t i = 0; i < u->nr_debug_dirs; i++)
		free(u->debug_dirs[i]);
	free(u->debug_dirs);
	free(u->proc_root);
	free(u);
}

size_t usyms__nr_files(const struct usyms *u)
{
	size_t n;

	usyms_lock((struct usyms *)u);
	n = u->nr_read;
	usyms_unlock((struct usyms *)u);
	return n;
}

void usyms__held(const struct usyms *u, struct usyms_held *h)
{
	usyms_lock((struct usyms *)u);
	*h = (struct usyms_held){
		.gens = u->nr_procs,
		.modules = u->nr_modules,
		.files = u->nr_files,
		.modules_freed = u->modules_freed,
		.files_freed = u->files_freed,
	};
	usyms_unlock((struct usyms *)u);
}

void usyms_notice(struct usyms *u, const char *path, const char *why)
{
	if (u->notice && why && *why)
		u->notice(path, why, u->notice_ctx);
}

int usyms__wait(struct usyms *u, int timeout_ms, int watch_fd)
{
	return u->loader ? loader__wait(u->loader, timeout_ms, watch_fd) : 0;
}

void usyms__cancel(struct usyms *u)
{
	__atomic_store_n(&u->cancel, 1, __ATOMIC_RELAXED);
	if (u->fetch)
		debuginfod_fetch__cancel(u->fetch);
	if (u->loader)
		loader__cancel(u->loader);
}

void usyms__set_gen_fn(struct usyms *u, usyms_gen_fn fn, void *ctx)
{
	u->gen_fn = fn;
	u->gen_ctx = ctx;
}

/* A file-backed mapping: the ELF symbols of the file. */
static int resolve_file(struct usyms *u, const struct umap *m, uint64_t addr, struct usym *out)
{
	struct symfile *f = m->mod->file;
	const struct elf_sym *sym;
	uint64_t vaddr;
	bool in_segment;

	if (m->mod->state == MOD_OVER_BUDGET) {
		out->reason = USYM_OVER_BUDGET;
		return -ENOENT;
	}
	if (m->mod->state == MOD_PENDING || m->mod->state == MOD_NOT_LOADED) {
		out->reason = USYM_NOT_LOADED;
		return -ENOENT;
	}
	if (!f || !f->st) {
		out->reason = USYM_UNREADABLE;
		return -ENOENT;
	}
	in_segment = !elf_symtab__offset_to_vaddr(f->st, addr - m->start + m->offset, &vaddr);
	if (in_segment)
		out->file_addr = vaddr;
	if (!in_segment || !(sym = elf_symtab__find(f->st, vaddr))) {
		out->reason = elf_symtab__kind(f->st) == ELF_SYMTAB_FULL ? USYM_NO_SYMBOL
									: USYM_NO_DEBUGINFO;
		return -ENOENT;
	}
	out->name = symfile__name(u, f, sym);
	out->offset = vaddr - sym->addr;
	out->reason = USYM_RESOLVED;
	if (f->sl) {
		const struct line_entry *le = symfile__lines(u, f, vaddr, out->name);

		if (le) {
			out->name = le->display;
			out->lines = le->frames;
			out->nr_lines = le->nr_frames;
		}
	}
	return 0;
}

/*
 * The mapping of proc that held addr when w was sampled, or NULL. An
 * address in none of those read may be in a library loaded since: then,
 * unless the JIT's perf map names it, the maps are read again (when
 * proc__reread_on_miss() finds it due) and looked in once more.
 */
static const struct umap *find_mapping(struct usyms *u, struct proc *proc,
				       const struct usyms_where *w, uint64_t addr)
{
	const struct umap *m = map_history__find(&proc->maps, addr, w->from_ns, w->to_ns);

	if (m || (proc->perfmap && proc->perfmap->pm && perfmap__find(proc->perfmap->pm, addr)) ||
	    proc__reread_on_miss(u, proc, w->to_ns))
		return m;
	return map_history__find(&proc->maps, addr, w->from_ns, w->to_ns);
}

static int resolve_at(struct usyms *u, const struct usyms_where *w, uint64_t addr,
		      uint64_t weight, struct usym *out)
{
	const struct module *counted = NULL;
	const struct umap *m;
	struct proc *proc;
	int err;

	memset(out, 0, sizeof(*out));
	proc = usyms_proc_of(u, w->pid, w->gen);
	if (!proc || proc->err) {
		out->reason = USYM_PROCESS_GONE;
		err = -ENOENT;
		goto out;
	}
	m = find_mapping(u, proc, w, addr);
	if (!m) {
		/* JIT code mapped after the maps were read */
		err = proc__resolve_perfmap(proc, addr, out);
		if (err)
			out->reason = USYM_NO_MAPPING;
		goto out;
	}
	if (m->kind == UMAP_ANON) {
		counted = &u->anon;
		err = proc__resolve_perfmap(proc, addr, out);
		if (err)
			out->reason = !proc->perfmap ? USYM_NO_PERFMAP :
				      !proc->perfmap->pm ? USYM_OVER_BUDGET : USYM_NO_SYMBOL;
		goto out;
	}
	counted = m->mod;
	out->module = m->mod->path;
	out->label = m->mod->label;
	out->file_addr = addr - m->start + m->offset;	/* resolve_file() makes it the ELF address */
	err = resolve_file(u, m, addr, out);
	if (err && m->mod->not_elf && !proc__resolve_perfmap(proc, addr, out))
		err = 0;	/* code in a memfd or other non-ELF file, named by the JIT */
out:
	/* on ENOMEM the -v list of unresolved frames is short by these */
	if (err)
		(void)usyms_count_unresolved(u, counted, out->reason, weight);
	return err;
}

/*
 * What out points at stays valid until usyms__prune() or usyms__free():
 * the modules and symbol tables of files no process maps any more, the
 * tables replaced by fetched ones, and a perf map replaced by the loader
 * are freed only at a prune.
 */
int usyms__resolve_at(struct usyms *u, const struct usyms_where *w, uint64_t addr,
		      uint64_t weight, struct usym *out)
{
	int err;

	usyms_lock(u);
	err = resolve_at(u, w, addr, weight, out);
	usyms_unlock(u);
	return err;
}

int usyms__resolve_weighted(struct usyms *u, pid_t pid, uint64_t addr, uint64_t weight,
			    struct usym *out)
{
	struct usyms_where w = { .pid = pid, .from_ns = UINT64_MAX, .to_ns = UINT64_MAX };

	return usyms__resolve_at(u, &w, addr, weight, out);
}

int usyms__resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out)
{
	return usyms__resolve_weighted(u, pid, addr, 1, out);
}
