/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms_internal.h - what the usyms_*.c files share; not for users of
 * usyms.h.
 *
 * Three levels, so that thousands of short-lived processes cost little:
 *   symfile  one parsed symbol table; shared by files it would be read
 *            alike from (struct symfile_key)
 *   module   one mapped file (device, inode): its path, its label, its symfile
 *   proc     one generation of a process (profile.h: a pid between two
 *            execs): the history of its executable mappings, each
 *            pointing at a module (map_history.h), and its JIT perf map
 *
 * What a long run keeps is what its live processes map: usyms__prune()
 * frees the generations gone, then the modules no generation held points
 * at (usyms_sweep.c), and a symfile goes with the last module (or fetch)
 * that holds a reference to it. All of that after an interval is printed,
 * so a name printed never points into a table freed.
 *
 * The functions below are described where they are defined; the file
 * each comes from says which concern it belongs to.
 */
#ifndef USYMS_INTERNAL_H
#define USYMS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "common/file_stamp.h"
#include "symbols/budget.h"
#include "symbols/debuginfo.h"
#include "symbols/file_id.h"
#include "symbols/loader.h"
#include "symbols/map_history.h"
#include "symbols/usyms.h"

struct elf_sym;
struct map_entry;
struct proc_maps;

/*
 * What a symbol table was read from, all of it: two files share one only
 * when their keys are equal. Not a build-id, which anyone can give a file
 * of theirs (and root's files are not all root's choice: a container, a
 * FUSE or NFS mount). Made with memset first: compared with memcmp().
 */
struct symfile_key {
	uint8_t digest[SHA256_LEN];	/* file_id__symbols() of the file */
	uint32_t source;		/* enum debuginfo_source, as read */
	uint32_t pad;
	struct file_stamp debug;	/* the debug file read (build-id, debuglink), else zeros */
	/*
	 * --lines: the file itself (its DWARF, not in the digest, may be
	 * what its lines are read from), else zeros
	 */
	struct file_stamp lines;
};

struct symfile {
	struct elf_symtab *st;		/* NULL when the file could not be read */
	enum debuginfo_source source;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
	struct symfile_key key;		/* in usyms.by_key when keyed */
	bool keyed;
	/*
	 * The modules whose file it is, and a debuginfod fetch in flight for
	 * it: freed at the last symfile__put()
	 */
	size_t refs;
	struct symfile *prev, *next;	/* in usyms.files */
	const char **names;		/* demangled names by symbol index, filled on demand */
	struct srcline *sl;		/* DWARF for --lines, or NULL */
	void *lines;			/* tsearch tree of struct line_entry, by vaddr */
	bool fetch_queued;		/* its debug file asked of debuginfod */
	struct symfile *next_retired;	/* in usyms.retired (only st, names, sl, lines set) */
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

enum module_state {
	MOD_NEW,			/* not opened yet (or it could not be: try again) */
	MOD_PENDING,			/* opened, its symbols being read by the loader */
	MOD_DONE,			/* read: file is its table, NULL when unreadable */
	MOD_OVER_BUDGET,		/* refused for a budget: why says which */
	MOD_NOT_LOADED,			/* the run ended before the loader got to it */
};

/*
 * A file by (device, inode) as it was when opened: a file rewritten in
 * place, or another at a reused inode, gets a module of its own, which
 * takes the old one's place in u->modules; the old one stays for the
 * mappings that point at it.
 */
struct module {
	unsigned int dev_major, dev_minor;
	uint64_t inode;
	char *path;			/* as first seen in a maps file */
	char *label;			/* "[basename]" */
	struct file_stamp stamp;	/* the file's when opened, to tell it changed */
	struct module *replaced;	/* the module this one took the place of, or NULL */
	unsigned int nr_replaced;	/* length of that chain: at most MODULE_MAX_REPLACED */
	uint64_t checked_reading;	/* the last maps reading (usyms.readings) that found it unchanged */
	uint64_t mapped_epoch;		/* the last usyms__prune() (usyms.epoch) it was mapped at */
	/* written by the loader under u->lock, read under it */
	enum module_state state;	/* MOD_PENDING: a loader job holds it, it is not freed */
	struct symfile *file;		/* a reference (symfile.refs) */
	bool not_elf;			/* opened fine, but not ELF (memfd JIT code?) */
};

/*
 * A perf map shared by the processes that name the same file (links), as
 * it was when read: a changed file is read again. One refused for its
 * budget is kept too, with pm NULL, so it is not read again.
 */
struct shared_perfmap {
	struct perfmap *pm;
	struct file_stamp id;		/* the file read */
	size_t refs;
	struct shared_perfmap *next;
};

/* A mapped file as a load job hands it to its reader (usyms_jobs.c). */
struct job_file {
	int fd;				/* the file, opened on the caller's thread */
	int root_fd;			/* the process's root (O_PATH), or -1: ours */
	const char *path;		/* as the process sees it */
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
	uint64_t reread_epoch;		/* u->epoch of its last re-read on a miss, 0: none */
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
	uint64_t readings;		/* maps readings so far: a module is checked once in each */
	uint64_t same_readings;		/* maps read that held just what the last reading did */
	size_t nr_modules;		/* in the tree, with the ones they replaced */
	void *by_key;			/* tsearch tree of struct symfile, by key */
	struct symfile *files;		/* every symfile held (not vdso_file) */
	size_t nr_files;		/* held */
	uint64_t nr_read;		/* symfiles read so far, freed or not */
	uint64_t modules_freed, files_freed;
	void *unresolved;		/* tsearch tree of struct unresolved */
	size_t nr_unresolved;
	struct module vdso, anon;	/* pseudo-modules */
	struct symfile vdso_file;
	bool vdso_tried;
	struct shared_perfmap *perfmaps, *retired_perfmaps;
	struct budget budget;
	int cancel;			/* budget.cancel points here */
	uint64_t epoch;			/* from 1, up by one at each usyms__prune() */
	uint64_t start_ns;		/* when u was made (CLOCK_MONOTONIC) */
	uint64_t reread_ns;		/* what re-reads on a miss took, all processes */
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
	/*
	 * With opts->fetch (and a loader): the fetch threads, which swap a
	 * symfile's table for the fuller one under lock. The table replaced
	 * goes to retired until the next usyms__prune(): names resolved from
	 * it may still be printed.
	 */
	struct debuginfod_fetch *fetch;
	struct symfile *retired;	/* tables replaced by fetched ones */
};

static inline void usyms_lock(struct usyms *u)
{
	if (u->loader)
		pthread_mutex_lock(&u->lock);
}

static inline void usyms_unlock(struct usyms *u)
{
	if (u->loader)
		pthread_mutex_unlock(&u->lock);
}

/* usyms.c */
void usyms_notice(struct usyms *u, const char *path, const char *why);

/* usyms_procs.c */
void proc__free(void *p);
struct proc *usyms_proc_of(struct usyms *u, pid_t pid, uint32_t gen);
/* 0: a reading added; USYMS_SAME_READING: nothing new; -EAGAIN: none due; -errno */
int proc__reread_on_miss(struct usyms *u, struct proc *proc, uint64_t sampled_ns);

/* usyms_modules.c */
int module__cmp(const void *a, const void *b);
void module__free(void *p);
void symfile__release(struct symfile *f);
void symfile__put(struct usyms *u, struct symfile *f);
void usyms_load_vdso(struct usyms *u);
struct module *module__for_mapping(struct usyms *u, pid_t pid, const struct map_entry *e,
				   int *fd);
void module__read(struct usyms *u, struct module *m, const struct job_file *jf);

/* usyms_jobs.c: the loader's one dispatch point (the readers do not call it) */
struct loader *usyms_new_loader(struct usyms *u);
struct module *usyms_queue_module(struct usyms *u, pid_t pid, const struct map_entry *e);
void usyms_queue_perfmap(struct usyms *u, struct proc *proc);

/* usyms_fetch.c */
int usyms_fetch_start(struct usyms *u, const struct debuginfod_fetch_opts *opts);
void usyms_fetch_submit(struct usyms *u, struct symfile *f, const struct job_file *jf);

/* usyms_perfmaps.c */
void shared_perfmap__put(struct usyms *u, struct shared_perfmap *sp);
void shared_perfmap__free_list(struct shared_perfmap *sp);
void shared_perfmap__free_retired(struct usyms *u);
int proc__open_perfmap(struct usyms *u, const struct proc *proc, struct stat *sb);
void proc__read_perfmap(struct usyms *u, struct proc *proc, int fd, const struct stat *sb);
int proc__resolve_perfmap(struct proc *proc, uint64_t addr, struct usym *out);

/* usyms_lines.c */
void symfile__release_lines(struct symfile *f);
struct srcline *symfile__open_lines(struct usyms *u, int fd, const struct debuginfo_info *info);
const struct line_entry *symfile__lines(struct usyms *u, struct symfile *f, uint64_t vaddr,
					const char *func);

/* usyms_names.c */
void symfile__release_names(struct symfile *f);
const char *symfile__name(struct usyms *u, struct symfile *f, const struct elf_sym *sym);

/* usyms_sweep.c */
void usyms_sweep_modules(struct usyms *u);
void usyms_free_retired_files(struct usyms *u);

/* usyms_unresolved.c */
int usyms_count_unresolved(struct usyms *u, const struct module *mod, enum usym_reason reason,
			   uint64_t weight);
void unresolved__free(void *p);

#endif /* USYMS_INTERNAL_H */
