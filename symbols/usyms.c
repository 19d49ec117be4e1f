// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - per-process user symbolization over a cache of ELF symbol
 * tables shared by all processes.
 *
 * Three levels, so that thousands of short-lived processes cost little:
 *   symfile  one parsed symbol table; shared by build-id
 *   module   one mapped file (device, inode): its path, its label, its symfile
 *   proc     one generation of a process (profile.h: a pid between two
 *            execs): the history of its executable mappings, each
 *            pointing at a module (map_history.h), and its JIT perf map
 *
 * Mapped files are opened through the process's own view of the file
 * system, /proc/PID/root/<path>, so processes in other mount namespaces
 * resolve; when that path is gone or names another file (deleted or
 * replaced), through /proc/PID/map_files/<start>-<end>.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo.h"
#include "demangle.h"
#include "elf_symtab.h"
#include "map_history.h"
#include "loader.h"
#include "perfmap.h"
#include "proc_maps.h"
#include "rootfs.h"
#include "srcline.h"
#include "trace_helpers.h"
#include "usyms.h"

/* How long usyms__free() waits for a loader job that ignores cancelling. */
#define LOADER_EXIT_MS 300

/* Inlining deeper than this is cut at the innermost frames kept. */
#define MAX_INLINE_DEPTH 16

struct symfile {
	struct elf_symtab *st;		/* NULL when the file could not be read */
	enum debuginfo_source source;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
	/*
	 * Who owns the file it was read from: shared by build-id only with
	 * files of the same owner, or from root's. Anyone can write a file
	 * with libc's build-id and names of their choosing.
	 */
	uid_t owner;
	const char **names;		/* demangled names by symbol index, filled on demand */
	struct srcline *sl;		/* DWARF for --lines, or NULL */
	void *lines;			/* tsearch tree of struct line_entry, by vaddr */
};

/* The --lines answer for one address of one file, computed once. */
struct line_entry {
	uint64_t vaddr;
	char *display;			/* "func (file.c:42) > inlined (file.h:3)" */
	struct usym_line *frames;	/* outermost first */
	size_t nr_frames;
	char **owned;			/* demangled names the frames point at */
	size_t nr_owned;
};

/* Marks a names[] slot that was looked at and is not mangled. */
static const char NOT_MANGLED[] = "";

enum module_state {
	MOD_NEW,			/* not opened yet (or it could not be: try again) */
	MOD_PENDING,			/* opened, its symbols being read by the loader */
	MOD_DONE,			/* read: file is its table, NULL when unreadable */
	MOD_OVER_BUDGET,		/* refused for a budget: why says which */
	MOD_NOT_LOADED,			/* the run ended before the loader got to it */
};

struct module {
	unsigned int dev_major, dev_minor;
	uint64_t inode;
	char *path;			/* as first seen in a maps file */
	char *label;			/* "[basename]" */
	/* written by the loader under u->lock, read under it */
	enum module_state state;
	struct symfile *file;
	bool not_elf;			/* opened fine, but not ELF (memfd JIT code?) */
};

/*
 * A perf map shared by the processes that name the same file (links), as
 * it was when read: a changed file is read again. One refused for its
 * budget is kept too, with pm NULL, so it is not read again.
 */
struct shared_perfmap {
	struct perfmap *pm;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	size_t refs;
	struct shared_perfmap *next;
};

static bool shared_perfmap__is(const struct shared_perfmap *sp, const struct stat *sb)
{
	return sp && sp->dev == sb->st_dev && sp->ino == sb->st_ino && sp->size == sb->st_size &&
	       sp->mtime.tv_sec == sb->st_mtim.tv_sec && sp->mtime.tv_nsec == sb->st_mtim.tv_nsec;
}

/* Work for the loader thread: a mapped file's symbols, or a perf map. */
struct load_job {
	struct loader_job link;
	int fd;				/* the file, opened on the caller's thread */
	int root_fd;			/* the process's root (O_PATH), or -1: ours */
	char *path;			/* as the process sees it */
	struct module *mod;		/* a file's symbols for mod, or */
	struct proc *proc;		/* a perf map for proc */
	struct stat sb;			/* the perf map's */
};

struct proc {
	pid_t pid;
	uint32_t gen;			/* 0: not checked against the sampler's generations */
	int err;			/* from reading its maps; its frames stay unresolved */
	struct map_history maps;
	bool has_anon;			/* anonymous executable memory: look for a perf map */
	bool retired;			/* no longer current at the last usyms__prune() */
	bool mappings_cut;		/* a reading had more mappings than the budget */
	unsigned int pending;		/* loader jobs that will write perfmap */
	struct shared_perfmap *perfmap;
	uint64_t read_ns, read_cost_ns;	/* when its maps were last read, and what it took */
	uint64_t perfmap_cost_ns;	/* what its perf map's last parse took the loader */
};

struct unresolved {
	const struct module *mod;	/* NULL: none; &u->anon: anonymous memory */
	enum usym_reason reason;
	uint64_t count;
};

struct usyms {
	char *proc_root;
	char **debug_dirs;
	size_t nr_debug_dirs;
	bool demangle;
	bool lines;
	usyms_gen_fn gen_fn;		/* NULL: generations are not checked */
	void *gen_ctx;
	void *procs;			/* tsearch tree of struct proc, by (pid, gen) */
	size_t nr_procs;
	void *modules;			/* tsearch tree of struct module, by (dev, inode) */
	void *by_build_id;		/* tsearch tree of struct symfile */
	struct symfile **files;		/* every symfile, to free them */
	size_t nr_files, cap_files;
	void *unresolved;		/* tsearch tree of struct unresolved */
	struct module vdso, anon;	/* pseudo-modules */
	struct symfile vdso_file;
	bool vdso_tried;
	struct shared_perfmap *perfmaps, *retired_perfmaps;
	struct budget budget;
	int cancel;			/* budget.cancel points here */
	usyms_notice_fn notice;
	void *notice_ctx;
	/*
	 * With a loader, the loader thread writes modules' state and file,
	 * procs' perfmap, and the symfile lists, under lock; every public
	 * function holds it too. Without one everything runs on the caller's
	 * thread and the lock is not used.
	 */
	struct loader *loader;
	pthread_mutex_t lock;
};

static void load_job__run(struct loader_job *lj, void *ctx);
static void load_job__drop(struct loader_job *lj, void *ctx);
static void shared_perfmap__free_list(struct shared_perfmap *sp);

static void usyms_lock(struct usyms *u)
{
	if (u->loader)
		pthread_mutex_lock(&u->lock);
}

static void usyms_unlock(struct usyms *u)
{
	if (u->loader)
		pthread_mutex_unlock(&u->lock);
}

const char *usym_reason__str(enum usym_reason r)
{
	switch (r) {
	case USYM_RESOLVED: return "resolved";
	case USYM_PROCESS_GONE: return "process exited or exec'd before its mappings were read";
	case USYM_NO_MAPPING: return "address in no executable mapping";
	case USYM_UNREADABLE: return "file unreadable";
	case USYM_NO_DEBUGINFO: return "stripped, no debuginfo found";
	case USYM_NO_SYMBOL: return "no symbol covers the address";
	case USYM_NO_PERFMAP: return "JIT code without /tmp/perf-PID.map";
	case USYM_OVER_BUDGET: return "file over a budget (-v says which)";
	case USYM_NOT_LOADED: return "run ended before its symbols were read";
	}
	return "?";
}

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->gen > y->gen) - (x->gen < y->gen);
}

static int module_cmp(const void *a, const void *b)
{
	const struct module *x = a, *y = b;

	if (x->dev_major != y->dev_major)
		return (x->dev_major > y->dev_major) - (x->dev_major < y->dev_major);
	if (x->dev_minor != y->dev_minor)
		return (x->dev_minor > y->dev_minor) - (x->dev_minor < y->dev_minor);
	return (x->inode > y->inode) - (x->inode < y->inode);
}

static int build_id_cmp(const void *a, const void *b)
{
	const struct symfile *x = a, *y = b;
	size_t n = x->build_id_len < y->build_id_len ? x->build_id_len : y->build_id_len;
	int c = memcmp(x->build_id, y->build_id, n);

	if (c)
		return (c > 0) - (c < 0);
	if (x->build_id_len != y->build_id_len)
		return (x->build_id_len > y->build_id_len) - (x->build_id_len < y->build_id_len);
	return (x->owner > y->owner) - (x->owner < y->owner);
}

static int unresolved_cmp(const void *a, const void *b)
{
	const struct unresolved *x = a, *y = b;
	uintptr_t p = (uintptr_t)x->mod, q = (uintptr_t)y->mod;

	if (p != q)
		return (p > q) - (p < q);
	return (x->reason > y->reason) - (x->reason < y->reason);
}

/* "[libc.so.6]" for "/usr/lib/x86_64-linux-gnu/libc.so.6". */
static char *make_label(const char *path)
{
	const char *base = strrchr(path, '/');
	char *label;

	base = base ? base + 1 : path;
	if (base[0] == '[')
		return strdup(base);	/* "[vdso]" is a label already */
	if (asprintf(&label, "[%s]", base) < 0)
		return NULL;
	return label;
}

struct usyms *usyms__new_opts(const struct usyms_opts *opts)
{
	static const struct usyms_opts defaults = { .demangle = true };
	struct usyms *u;

	if (!opts)
		opts = &defaults;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->demangle = opts->demangle;
	u->lines = opts->lines;
	u->budget = *(opts->budget ? opts->budget : budget__default());
	u->budget.cancel = &u->cancel;
	u->notice = opts->notice;
	u->notice_ctx = opts->notice_ctx;
	u->proc_root = strdup(opts->proc_root ? opts->proc_root : "/proc");
	u->vdso.path = strdup("[vdso]");
	u->vdso.label = strdup("[vdso]");
	u->anon.path = strdup("[anon]");
	if (!u->proc_root || !u->vdso.path || !u->vdso.label || !u->anon.path)
		goto nomem;
	if (opts->nr_debug_dirs) {
		u->debug_dirs = calloc(opts->nr_debug_dirs, sizeof(*u->debug_dirs));
		if (!u->debug_dirs)
			goto nomem;
		for (size_t i = 0; i < opts->nr_debug_dirs; i++) {
			u->debug_dirs[i] = strdup(opts->debug_dirs[i]);
			if (!u->debug_dirs[i])
				goto nomem;
			u->nr_debug_dirs++;
		}
	}
	if (opts->async) {
		pthread_mutex_init(&u->lock, NULL);
		u->loader = loader__new(load_job__run, load_job__drop, u);
		if (!u->loader) {
			pthread_mutex_destroy(&u->lock);
			goto nomem;
		}
	}
	return u;
nomem:
	usyms__free(u);
	errno = ENOMEM;
	return NULL;
}

struct usyms *usyms__new(const char *proc_root)
{
	struct usyms_opts opts = { .proc_root = proc_root, .demangle = true };

	return usyms__new_opts(&opts);
}

/* Perf maps are freed with their list (shared_perfmap__put, usyms__free). */
static void proc__free(void *p)
{
	struct proc *proc = p;

	map_history__release(&proc->maps);
	free(proc);
}

static void module__free(void *p)
{
	struct module *m = p;

	free(m->path);
	free(m->label);
	free(m);
}

static void line_entry__free(void *p)
{
	struct line_entry *e = p;

	for (size_t i = 0; i < e->nr_owned; i++)
		free(e->owned[i]);
	free(e->owned);
	free(e->frames);
	free(e->display);
	free(e);
}

static int line_entry_cmp(const void *a, const void *b)
{
	const struct line_entry *x = a, *y = b;

	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

static void symfile__release_lines(struct symfile *f)
{
	tdestroy(f->lines, line_entry__free);
	srcline__free(f->sl);
}

static void symfile__release_names(struct symfile *f)
{
	if (!f->names)
		return;
	for (size_t i = 0; i < elf_symtab__count(f->st); i++)
		if (f->names[i] != NOT_MANGLED)
			free((char *)f->names[i]);
	free(f->names);
}

static void symfile__release(struct symfile *f)
{
	symfile__release_lines(f);
	symfile__release_names(f);
	elf_symtab__free(f->st);
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
		/*
		 * Its jobs are done or dropped, or one is stuck where it cannot
		 * see the cancel flag (a read from a hung file system): then
		 * everything stays for it, and the exit that follows ends it.
		 */
		if (loader__free(u->loader, LOADER_EXIT_MS))
			return;
		pthread_mutex_destroy(&u->lock);
	}
	shared_perfmap__free_list(u->perfmaps);
	shared_perfmap__free_list(u->retired_perfmaps);
	tdestroy(u->procs, proc__free);
	tdestroy(u->modules, module__free);
	tdestroy(u->by_build_id, noop_free);	/* owned by files[] */
	tdestroy(u->unresolved, free);
	for (size_t i = 0; i < u->nr_files; i++) {
		symfile__release(u->files[i]);
		free(u->files[i]);
	}
	free(u->files);
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
	n = u->nr_files;
	usyms_unlock((struct usyms *)u);
	return n;
}

static struct proc *usyms_find_proc(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct proc key = { .pid = pid, .gen = gen };
	void *node = tfind(&key, &u->procs, proc_cmp);

	return node ? *(struct proc **)node : NULL;
}

/* --- loading symbol tables -------------------------------------------- */

/* Our own vDSO: the same image the kernel maps into every 64-bit process. */
static void usyms_load_vdso(struct usyms *u)
{
	unsigned long base;
	struct proc_maps self;
	const struct map_entry *e;

	if (u->vdso_tried)
		return;
	u->vdso_tried = true;
	u->vdso.state = MOD_DONE;
	u->vdso.file = &u->vdso_file;
	base = getauxval(AT_SYSINFO_EHDR);
	if (!base || proc_maps__load_file("/proc/self/maps", &self))
		return;
	e = proc_maps__find(&self, base);
	if (e && !strcmp(e->path, "[vdso]"))
		u->vdso_file.st = elf_symtab__load_mem((const void *)base, e->end - base);
	proc_maps__release(&self);
}

static int open_if_inode(const char *root, const char *path, uint64_t inode)
{
	struct stat sb;
	int fd;

	fd = rootfs__open_regular(root, path, 0, &sb);
	if (fd < 0)
		return -1;
	if (sb.st_ino == inode)
		return fd;
	close(fd);	/* another file is at that path now */
	return -1;
}

/*
 * Open the file behind a mapping as the process sees it: its root, then
 * map_files (deleted or replaced files), then, for a process that has
 * exited, the same path from here if it is still the same file.
 * Returns -1 on failure.
 */
static int open_mapped_file(struct usyms *u, pid_t pid, const struct map_entry *e)
{
	char path[4096 + 64];
	struct stat sb;
	int fd;

	if (!e->deleted) {
		snprintf(path, sizeof(path), "%s/%d/root", u->proc_root, (int)pid);
		fd = open_if_inode(path, e->path, e->inode);
		if (fd >= 0)
			return fd;
	}
	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", u->proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	fd = rootfs__open_regular(NULL, path, 0, &sb);
	if (fd >= 0 || e->deleted)
		return fd < 0 ? -1 : fd;
	return open_if_inode(NULL, e->path, e->inode);
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
	if (fstat(fd, &theirs) || stat("/", &ours) ||
	    (theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino)) {
		close(fd);	/* searching it would repeat our own search */
		return -1;
	}
	return fd;
}

static int add_symfile(struct usyms *u, struct symfile *f)
{
	if (u->nr_files == u->cap_files) {
		size_t cap = u->cap_files ? u->cap_files * 2 : 64;
		struct symfile **nf = realloc(u->files, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		u->files = nf;
		u->cap_files = cap;
	}
	u->files[u->nr_files++] = f;
	return 0;
}

/* A shared table with this build-id, or NULL. */
/* The table with this build-id read from a file of exactly this owner, or NULL. */
static struct symfile *find_exact(struct usyms *u, const uint8_t *id, size_t len, uid_t owner)
{
	struct symfile key = { .build_id_len = len, .owner = owner };
	void *node;

	memcpy(key.build_id, id, len);
	node = tfind(&key, &u->by_build_id, build_id_cmp);
	return node ? *(struct symfile **)node : NULL;
}

/* A table a file of owner may use: root's, else the owner's own. */
static struct symfile *find_by_build_id(struct usyms *u, const uint8_t *id, size_t len,
					uid_t owner)
{
	struct symfile *f = find_exact(u, id, len, 0);

	if (owner && (!f || elf_symtab__kind(f->st) != ELF_SYMTAB_FULL)) {
		struct symfile *own = find_exact(u, id, len, owner);

		if (own && (!f || elf_symtab__kind(own->st) > elf_symtab__kind(f->st)))
			f = own;
	}
	return f;
}

static void usyms_notice(struct usyms *u, const char *path, const char *why)
{
	if (u->notice && why && *why)
		u->notice(path, why, u->notice_ctx);
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

/*
 * Keep f, or the shared table with its build-id when that one is as good:
 * strip keeps the build-id, so a stripped copy may come first and a full
 * one later. Under u->lock. Returns the table to use.
 */
static struct symfile *symfile__publish(struct usyms *u, struct symfile *f)
{
	struct symfile *shared = f->build_id_len ? find_exact(u, f->build_id, f->build_id_len,
							      f->owner) : NULL;

	if ((shared && elf_symtab__kind(f->st) <= elf_symtab__kind(shared->st)) ||
	    add_symfile(u, f)) {
		symfile__release(f);
		free(f);
		return shared;
	}
	if (f->build_id_len) {
		if (shared)
			tdelete(shared, &u->by_build_id, build_id_cmp);	/* stays in files[] */
		tsearch(f, &u->by_build_id, build_id_cmp);	/* on ENOMEM: just not shared */
	}
	return f;
}

/*
 * DWARF for --lines: the debug file's if one was used (the descriptor that
 * was checked, never its path again), else the file's own.
 */
static struct srcline *symfile__open_lines(struct usyms *u, int fd, const struct debuginfo_info *info)
{
	struct srcline *sl = NULL;

	if (info->debug_fd >= 0)
		sl = srcline__open_fd(info->debug_fd, &u->budget);
	if (!sl)
		sl = srcline__open_fd(fd, &u->budget);
	if (!sl && errno == EFBIG)
		usyms_notice(u, info->debug_path[0] ? info->debug_path : "(DWARF)", budget__why());
	return sl;
}

/*
 * Read the symbols of the file in job for its module, or share the table
 * of a file with the same build-id: on the loader thread, or on the
 * caller's without one.
 */
static void load_job__read_module(struct usyms *u, struct load_job *job)
{
	char root[64];
	struct debuginfo_opts opts = {
		.root = NULL,
		.debug_dirs = (const char *const *)u->debug_dirs,
		.nr_debug_dirs = u->nr_debug_dirs,
		.budget = &u->budget,
		.keep_debug_fd = u->lines,
	};
	enum module_state state = MOD_DONE;
	struct symfile *shared = NULL, *f = NULL;
	struct debuginfo_info info;
	uint8_t id[BUILD_ID_MAX];
	char why[sizeof(info.refused)] = "";
	bool not_elf = false;
	struct stat sb;
	uid_t owner;
	int len;

	owner = fstat(job->fd, &sb) ? (uid_t)-1 : sb.st_uid;
	if (job->root_fd >= 0) {
		/* the root as it was when the process was seen, whatever its pid is now */
		snprintf(root, sizeof(root), "/proc/self/fd/%d", job->root_fd);
		opts.root = root;
	}
	budget__clear();
	len = debuginfo__build_id_fd(job->fd, id, sizeof(id));
	if (len == -ENOEXEC || len == -EFBIG) {
		not_elf = len == -ENOEXEC;
		state = len == -EFBIG ? MOD_OVER_BUDGET : MOD_DONE;
		snprintf(why, sizeof(why), "%s", budget__why());
		goto publish;
	}
	if (len > 0) {
		usyms_lock(u);
		shared = find_by_build_id(u, id, len, owner);
		usyms_unlock(u);
		if (shared && elf_symtab__kind(shared->st) == ELF_SYMTAB_FULL)
			goto publish;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		goto publish;
	f->st = debuginfo__load_fd(job->fd, job->path, &opts, &info);
	if (!f->st) {
		if (errno == EFBIG) {
			state = MOD_OVER_BUDGET;
			snprintf(why, sizeof(why), "%s", budget__why());
		} else if (errno == ECANCELED) {
			state = MOD_NOT_LOADED;
		}
		not_elf = errno == ENOEXEC;
		free(f);
		f = NULL;
		goto publish;
	}
	usyms_notice(u, job->path, info.refused);
	if (u->lines)
		f->sl = symfile__open_lines(u, job->fd, &info);
	if (info.debug_fd >= 0)
		close(info.debug_fd);
	f->source = info.source;
	f->owner = owner;
	memcpy(f->build_id, info.build_id, info.build_id_len);
	f->build_id_len = info.build_id_len;
publish:
	usyms_lock(u);
	job->mod->file = f ? symfile__publish(u, f) : shared;
	job->mod->not_elf = not_elf;
	job->mod->state = state;
	usyms_unlock(u);
	usyms_notice(u, job->path, why);
}

/*
 * Drop a process's reference. A map nobody uses moves to the retired
 * list, freed by shared_perfmap__free_retired(): names from it may be
 * in a profile being printed right now. Under u->lock.
 */
static void shared_perfmap__put(struct usyms *u, struct shared_perfmap *sp)
{
	struct shared_perfmap **pp;

	if (!sp || --sp->refs)
		return;
	for (pp = &u->perfmaps; *pp; pp = &(*pp)->next) {
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	}
	sp->next = u->retired_perfmaps;
	u->retired_perfmaps = sp;
}

static void shared_perfmap__free_list(struct shared_perfmap *sp)
{
	while (sp) {
		struct shared_perfmap *next = sp->next;

		perfmap__free(sp->pm);
		free(sp);
		sp = next;
	}
}

/*
 * Free the perf maps no process uses any more. Only from the public calls
 * made between profiles (adding or refreshing a process, pruning), never
 * while one is printed: its names may come from them.
 */
static void shared_perfmap__free_retired(struct usyms *u)
{
	shared_perfmap__free_list(u->retired_perfmaps);
	u->retired_perfmaps = NULL;
}

/*
 * Read a perf map for its process, or share the one already read from
 * the same file (processes can name one file, by links).
 */
static void load_job__read_perfmap(struct usyms *u, struct load_job *job)
{
	struct shared_perfmap *sp;
	struct perfmap *pm = NULL;
	uint64_t cost = 0;
	char name[128];
	bool fresh = false;

	usyms_lock(u);
	for (sp = u->perfmaps; sp && !shared_perfmap__is(sp, &job->sb); sp = sp->next)
		;
	if (sp)
		sp->refs++;
	usyms_unlock(u);
	if (!sp) {
		uint64_t start = monotonic_ns();
		int err;

		budget__clear();
		pm = perfmap__load_fd(job->fd, &job->sb, &u->budget);
		err = pm ? 0 : errno;
		cost = monotonic_ns() - start;
		if (err == EFBIG) {
			snprintf(name, sizeof(name), "/tmp/perf-%d.map", (int)job->proc->pid);
			usyms_notice(u, name, budget__why());
		}
		/* a refusal is kept as well: the same file is not read again */
		sp = pm || err == EFBIG ? calloc(1, sizeof(*sp)) : NULL;
		if (sp) {
			*sp = (struct shared_perfmap){
				.pm = pm, .refs = 1,
				.dev = job->sb.st_dev, .ino = job->sb.st_ino, .size = job->sb.st_size,
				.mtime = job->sb.st_mtim,
			};
			fresh = true;
		} else {
			perfmap__free(pm);
		}
	}
	usyms_lock(u);
	if (fresh) {
		sp->next = u->perfmaps;
		u->perfmaps = sp;
	}
	if (sp) {
		shared_perfmap__put(u, job->proc->perfmap);
		job->proc->perfmap = sp;
	}
	job->proc->perfmap_cost_ns = cost;
	job->proc->pending--;
	usyms_unlock(u);
}

static void load_job__run(struct loader_job *lj, void *ctx)
{
	struct load_job *job = (struct load_job *)lj;

	if (job->mod)
		load_job__read_module(ctx, job);
	else
		load_job__read_perfmap(ctx, job);
	load_job__free(job);
}

/* A job the loader will not run: the run is ending. */
static void load_job__drop(struct loader_job *lj, void *ctx)
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
static void load_job__submit(struct usyms *u, struct load_job *job)
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

static bool is_elf(int fd)
{
	char magic[SELFMAG];

	return pread(fd, magic, SELFMAG, 0) == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
}

/* Open the file behind a module now, while its process lives; read it later. */
static void module__load(struct usyms *u, struct module *m, pid_t pid, const struct map_entry *e)
{
	struct load_job *job;
	int fd;

	if (m->state != MOD_NEW)
		return;
	fd = open_mapped_file(u, pid, e);
	if (fd < 0)
		return;	/* try again through the next process that maps it */
	if (!is_elf(fd)) {
		/* known now: whether its process needs a perf map depends on it */
		m->not_elf = true;
		m->state = MOD_DONE;
		close(fd);
		return;
	}
	job = calloc(1, sizeof(*job));
	if (job)
		job->path = strdup(e->path);
	if (!job || !job->path) {
		free(job);
		close(fd);
		return;
	}
	job->fd = fd;
	job->root_fd = open_root_fd(u, pid);
	job->mod = m;
	m->state = MOD_PENDING;
	load_job__submit(u, job);
}

/* Queue a read of proc's perf map, unless it is the file already read or being read. */
static void proc__load_perfmap(struct usyms *u, struct proc *proc)
{
	struct load_job *job;
	struct stat sb;
	int fd;

	if (proc->pending)
		return;
	fd = perfmap__open_pid(u->proc_root, proc->pid, &sb);
	if (fd < 0)
		return;
	if (shared_perfmap__is(proc->perfmap, &sb)) {
		close(fd);
		return;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		close(fd);
		return;
	}
	job->fd = fd;
	job->root_fd = -1;
	job->sb = sb;
	job->proc = proc;
	proc->pending++;
	load_job__submit(u, job);
}

/* The module for a mapped file, created on first sight. NULL: ENOMEM. */
static struct module *module__get(struct usyms *u, const struct map_entry *e)
{
	struct module key = {
		.dev_major = e->dev_major, .dev_minor = e->dev_minor, .inode = e->inode,
	};
	struct module *m;
	void *node;

	node = tfind(&key, &u->modules, module_cmp);
	if (node)
		return *(struct module **)node;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	*m = key;
	m->path = strdup(e->path);
	m->label = m->path ? make_label(m->path) : NULL;
	if (!m->label || !tsearch(m, &u->modules, module_cmp)) {
		module__free(m);
		return NULL;
	}
	return m;
}

/* --- processes ---------------------------------------------------------- */

static bool map_entry__is_file(const struct map_entry *e)
{
	return e->inode && e->path[0] == '/';
}

/* Add a reading of pid's maps to proc's history, loading their files now. */
static int proc__fill(struct usyms *u, struct proc *proc, const struct proc_maps *maps)
{
	size_t nr = maps->nr;
	struct umap *um;
	bool has_anon = false;
	int err;

	if (nr > u->budget.max_mappings) {
		nr = u->budget.max_mappings;
		if (!proc->mappings_cut) {
			char name[64], why[160];

			proc->mappings_cut = true;
			snprintf(name, sizeof(name), "/proc/%d/maps", (int)proc->pid);
			snprintf(why, sizeof(why), "%zu executable mappings, over the budget of %llu: the first %zu kept",
				 maps->nr, (unsigned long long)u->budget.max_mappings, nr);
			usyms_notice(u, name, why);
		}
	}
	um = calloc(nr ? nr : 1, sizeof(*um));
	if (!um)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		const struct map_entry *e = &maps->entries[i];

		um[i].start = e->start;
		um[i].end = e->end;
		um[i].offset = e->offset;
		if (!strcmp(e->path, "[vdso]")) {
			um[i].kind = UMAP_VDSO;
			um[i].mod = &u->vdso;
			usyms_load_vdso(u);
		} else if (map_entry__is_file(e)) {
			um[i].kind = UMAP_FILE;
			um[i].mod = module__get(u, e);
			if (!um[i].mod) {
				free(um);
				return -ENOMEM;
			}
			module__load(u, um[i].mod, proc->pid, e);
			has_anon |= um[i].mod->not_elf;
		} else {
			um[i].kind = UMAP_ANON;
			has_anon = true;
		}
	}
	err = map_history__update(&proc->maps, um, nr, monotonic_ns());
	/* once JIT code, always: its perf map names samples of earlier readings */
	proc->has_anon |= has_anon;
	return err;
}

/* Is gen still what pid runs (always, when generations are not checked)? */
static bool gen_current(const struct usyms *u, pid_t pid, uint32_t gen)
{
	return !gen || !u->gen_fn || u->gen_fn(pid, u->gen_ctx) == gen;
}

/*
 * Read pid's maps, if they are gen's: the generation is checked before and
 * after, so a reading is never taken for another image (an exec, a reused
 * pid, in between). -ESRCH when the process is gone or no longer gen.
 */
static int read_gen_maps(struct usyms *u, pid_t pid, uint32_t gen, struct proc_maps *maps)
{
	char path[4096];
	int err;

	if (!gen_current(u, pid, gen))
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)pid);
	err = proc_maps__load_file(path, maps);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	/* a zombie's maps are empty: keep what was read while it ran */
	if (!maps->nr || !gen_current(u, pid, gen)) {
		proc_maps__release(maps);
		return -ESRCH;
	}
	return 0;
}

/* Add a reading to proc; on failure proc keeps what it had. */
static int proc__read_maps(struct usyms *u, struct proc *proc)
{
	uint64_t start = monotonic_ns();
	struct proc_maps maps;
	int err;

	err = read_gen_maps(u, proc->pid, proc->gen, &maps);
	if (err)
		return err;
	err = proc__fill(u, proc, &maps);
	proc_maps__release(&maps);
	if (!err && proc->has_anon)
		proc__load_perfmap(u, proc);
	proc->read_ns = monotonic_ns();
	proc->read_cost_ns = proc->read_ns - start;
	return err;
}

static int usyms_add_gen(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct proc *proc;
	int err;

	proc = usyms_find_proc(u, pid, gen);
	if (proc) {
		err = proc__read_maps(u, proc);
		if (!err)
			proc->err = 0;
		return proc->err;
	}
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return -ENOMEM;
	proc->pid = pid;
	proc->gen = gen;
	/* in the tree first: a queued perf map read points at it */
	if (!tsearch(proc, &u->procs, proc_cmp)) {
		proc__free(proc);
		return -ENOMEM;
	}
	u->nr_procs++;
	proc->err = proc__read_maps(u, proc);
	return proc->err;
}

int usyms__add_gen(struct usyms *u, pid_t pid, uint32_t gen)
{
	int err;

	usyms_lock(u);
	shared_perfmap__free_retired(u);
	err = usyms_add_gen(u, pid, gen);
	usyms_unlock(u);
	return err;
}

int usyms__add_gen_once(struct usyms *u, pid_t pid, uint32_t gen)
{
	int err = 0;

	usyms_lock(u);
	if (!usyms_find_proc(u, pid, gen)) {
		shared_perfmap__free_retired(u);
		err = usyms_add_gen(u, pid, gen);
	}
	usyms_unlock(u);
	return err;
}

int usyms__add_pid(struct usyms *u, pid_t pid)
{
	return usyms__add_gen(u, pid, 0);
}

/*
 * How much of one CPU re-reading a target's maps may take: a process with
 * tens of thousands of mappings is re-read less often.
 */
#define REFRESH_COST_SHARE 20

int usyms__refresh_pid(struct usyms *u, pid_t pid)
{
	uint32_t gen = u->gen_fn ? u->gen_fn(pid, u->gen_ctx) : 0;
	struct proc *proc;
	int err;

	if (u->gen_fn && !gen)
		return -ESRCH;	/* not sampled yet, or exited */
	usyms_lock(u);
	proc = usyms_find_proc(u, pid, gen);
	shared_perfmap__free_retired(u);
	if (proc && !proc->err &&
	    monotonic_ns() < proc->read_ns +
			     REFRESH_COST_SHARE * (proc->read_cost_ns + proc->perfmap_cost_ns))
		err = 0;
	else
		err = usyms_add_gen(u, pid, gen);
	usyms_unlock(u);
	return err;
}

int usyms__wait(struct usyms *u, int timeout_ms, int watch_fd)
{
	return u->loader ? loader__wait(u->loader, timeout_ms, watch_fd) : 0;
}

void usyms__cancel(struct usyms *u)
{
	__atomic_store_n(&u->cancel, 1, __ATOMIC_RELAXED);
	if (u->loader)
		loader__cancel(u->loader);
}

void usyms__set_gen_fn(struct usyms *u, usyms_gen_fn fn, void *ctx)
{
	u->gen_fn = fn;
	u->gen_ctx = ctx;
}

size_t usyms__nr_gens(const struct usyms *u)
{
	size_t n;

	usyms_lock((struct usyms *)u);
	n = u->nr_procs;
	usyms_unlock((struct usyms *)u);
	return n;
}

struct prune {
	struct usyms *u;
	struct proc **doomed;
	size_t nr, cap;
};

static void prune_one(const void *node, VISIT which, void *ctx)
{
	struct proc *proc = *(struct proc *const *)node;
	struct prune *p = ctx;

	/* generation 0 is never checked: re-read on demand once freed */
	if ((which != postorder && which != leaf) || proc->pending ||
	    (proc->gen && gen_current(p->u, proc->pid, proc->gen)))
		return;
	if (!proc->retired) {
		proc->retired = true;	/* samples of it may still be on their way */
		return;
	}
	if (!array_reserve((void **)&p->doomed, &p->cap, p->nr, sizeof(*p->doomed)))
		p->doomed[p->nr++] = proc;
}

void usyms__prune(struct usyms *u)
{
	struct prune p = { .u = u };

	if (!u->gen_fn)
		return;
	usyms_lock(u);
	twalk_r(u->procs, prune_one, &p);
	for (size_t i = 0; i < p.nr; i++) {
		tdelete(p.doomed[i], &u->procs, proc_cmp);
		shared_perfmap__put(u, p.doomed[i]->perfmap);
		proc__free(p.doomed[i]);
		u->nr_procs--;
	}
	shared_perfmap__free_retired(u);
	usyms_unlock(u);
	free(p.doomed);
}

/* --- lookups ------------------------------------------------------------ */

/* The name to show for a symbol: demangled once, then from the cache. */
static const char *symfile__name(struct usyms *u, struct symfile *f, const struct elf_sym *sym)
{
	size_t i;
	char *d;

	if (!u->demangle || !demangle__maybe_mangled(sym->name))
		return sym->name;
	if (!f->names) {
		f->names = calloc(elf_symtab__count(f->st), sizeof(*f->names));
		if (!f->names)
			return sym->name;
	}
	i = elf_symtab__index(f->st, sym);
	if (!f->names[i]) {
		d = demangle__name(sym->name);
		f->names[i] = d ? d : NOT_MANGLED;
	}
	return f->names[i] == NOT_MANGLED ? sym->name : f->names[i];
}

static void usyms_count_unresolved(struct usyms *u, const struct module *mod, enum usym_reason reason,
			     uint64_t weight)
{
	struct unresolved key = { .mod = mod, .reason = reason }, *e;
	void *node;

	if (!weight)
		return;
	node = tfind(&key, &u->unresolved, unresolved_cmp);
	if (!node) {
		e = malloc(sizeof(*e));
		if (!e)
			return;
		*e = key;
		e->count = 0;
		node = tsearch(e, &u->unresolved, unresolved_cmp);
		if (!node) {
			free(e);
			return;
		}
	}
	(*(struct unresolved **)node)->count += weight;
}

/* JIT code: the process's perf map, if it names addr. */
static int proc__resolve_perfmap(struct proc *proc, uint64_t addr, struct usym *out)
{
	const struct perfmap_sym *ps = proc->perfmap && proc->perfmap->pm ?
				       perfmap__find(proc->perfmap->pm, addr) : NULL;

	if (!ps)
		return -ENOENT;
	out->name = ps->name;
	out->offset = addr - ps->start;
	out->reason = USYM_RESOLVED;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A DWARF name made readable; the copy, when one was made, goes to e->owned. */
static const char *line_name(struct usyms *u, struct line_entry *e, const char *name)
{
	char *d;

	if (!name || !u->demangle || !demangle__maybe_mangled(name))
		return name;
	d = demangle__name(name);
	if (!d)
		return name;
	e->owned[e->nr_owned++] = d;
	return d;
}

/* "func (file.c:42) > inlined (file.h:3)", outermost first. */
static char *format_lines(const struct usym_line *frames, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%s", i ? " > " : "", frames[i].name ? frames[i].name : "??");
		if (frames[i].file && frames[i].line)
			fprintf(f, " (%s:%u)", base_name(frames[i].file), frames[i].line);
		else if (frames[i].file)
			fprintf(f, " (%s)", base_name(frames[i].file));
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct line_entry *line_entry__new(struct usyms *u, struct symfile *f, uint64_t vaddr,
					  const char *func)
{
	struct srcline_frame sf[MAX_INLINE_DEPTH];
	struct line_entry *e;
	int n;

	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->vaddr = vaddr;
	n = srcline__lookup(f->sl, vaddr, sf, MAX_INLINE_DEPTH);
	if (n <= 0)
		return e;	/* no line: remembered as such */
	e->frames = calloc(n, sizeof(*e->frames));
	e->owned = calloc(n, sizeof(*e->owned));
	if (!e->frames || !e->owned) {
		line_entry__free(e);
		return NULL;
	}
	/* srcline gives innermost first; show the real function first */
	for (int i = 0; i < n; i++) {
		struct usym_line *l = &e->frames[n - 1 - i];

		l->name = line_name(u, e, sf[i].name);
		l->file = sf[i].file;
		l->line = sf[i].line > 0 ? sf[i].line : 0;
	}
	/* the out-of-line function is named as the ELF symbol names it */
	e->frames[0].name = func;
	e->nr_frames = n;
	e->display = format_lines(e->frames, n);
	if (!e->display) {
		line_entry__free(e);
		return NULL;
	}
	return e;
}

/* The --lines answer for vaddr, computed on first use; NULL when there is none. */
static const struct line_entry *symfile__lines(struct usyms *u, struct symfile *f,
					       uint64_t vaddr, const char *func)
{
	struct line_entry key = { .vaddr = vaddr }, *e;
	void *node;

	node = tfind(&key, &f->lines, line_entry_cmp);
	if (!node) {
		e = line_entry__new(u, f, vaddr, func);
		if (!e)
			return NULL;
		node = tsearch(e, &f->lines, line_entry_cmp);
		if (!node) {
			line_entry__free(e);
			return NULL;
		}
	}
	e = *(struct line_entry **)node;
	return e->display ? e : NULL;
}

/* A file-backed mapping: the ELF symbols of the file. */
static int resolve_file(struct usyms *u, const struct umap *m, uint64_t addr, struct usym *out)
{
	struct symfile *f = m->mod->file;
	const struct elf_sym *sym;
	uint64_t vaddr;

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
	if (elf_symtab__offset_to_vaddr(f->st, addr - m->start + m->offset, &vaddr) ||
	    !(sym = elf_symtab__find(f->st, vaddr))) {
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

static int resolve_at(struct usyms *u, const struct usyms_where *w, uint64_t addr,
		      uint64_t weight, struct usym *out)
{
	const struct module *counted = NULL;
	const struct umap *m;
	struct proc *proc;
	int err;

	memset(out, 0, sizeof(*out));
	proc = usyms_find_proc(u, w->pid, w->gen);
	if (!proc) {
		/* never announced: read now, if it is still the same image */
		usyms_add_gen(u, w->pid, w->gen);
		proc = usyms_find_proc(u, w->pid, w->gen);
	}
	if (!proc || proc->err) {
		out->reason = USYM_PROCESS_GONE;
		err = -ENOENT;
		goto out;
	}
	m = map_history__find(&proc->maps, addr, w->from_ns, w->to_ns);
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
	err = resolve_file(u, m, addr, out);
	if (err && m->mod->not_elf && !proc__resolve_perfmap(proc, addr, out))
		err = 0;	/* code in a memfd or other non-ELF file, named by the JIT */
out:
	if (err)
		usyms_count_unresolved(u, counted, out->reason, weight);
	return err;
}

/*
 * What out points at stays valid until usyms__prune() or usyms__free():
 * symbol tables live as long as u, and a perf map replaced by the loader
 * is freed only at the next prune.
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

/* --- unresolved report ------------------------------------------------ */

struct collect {
	struct usyms_unresolved *v;
	size_t nr, cap;
	bool nomem;
};

static void collect_one(const void *node, VISIT which, void *ctx)
{
	const struct unresolved *e = *(const struct unresolved *const *)node;
	struct collect *c = ctx;

	if ((which != postorder && which != leaf) || c->nomem)
		return;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct usyms_unresolved *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv) {
			c->nomem = true;
			return;
		}
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->nr++] = (struct usyms_unresolved){
		.module = e->mod ? e->mod->path : NULL,
		.reason = e->reason,
		.count = e->count,
	};
}

static int by_count_desc(const void *a, const void *b)
{
	const struct usyms_unresolved *x = a, *y = b;

	if (x->count != y->count)
		return (x->count < y->count) - (x->count > y->count);
	return (x->reason > y->reason) - (x->reason < y->reason);
}

int usyms__for_each_unresolved(const struct usyms *u, usyms_unresolved_fn cb, void *ctx)
{
	struct collect c = {};
	int err = 0;

	usyms_lock((struct usyms *)u);
	twalk_r(u->unresolved, collect_one, &c);
	usyms_unlock((struct usyms *)u);
	if (c.nomem) {
		free(c.v);
		return -ENOMEM;
	}
	if (c.nr)
		qsort(c.v, c.nr, sizeof(*c.v), by_count_desc);
	for (size_t i = 0; i < c.nr && !err; i++)
		err = cb(&c.v[i], ctx);
	free(c.v);
	return err;
}
