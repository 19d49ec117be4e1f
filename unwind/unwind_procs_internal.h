/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_procs_internal.h - what unwind_procs.c (processes, their entries
 * in the BPF maps) and unwind_files.c (files, their tables in the rows
 * array) share; not for users of unwind_procs.h.
 */
#ifndef UNWIND_PROCS_INTERNAL_H
#define UNWIND_PROCS_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/types.h>

#include "common/clock.h"
#include "common/file_stamp.h"
#include "symbols/budget.h"
#include "symbols/proc_maps.h"
#include "unwind/go_runtime.h"
#include "unwind/row_store.h"
#include "profile.h"
#include "unwind/unwind_procs.h"
#include "unwind/vdso_image.h"

#define MAX_EXEC_SEGS 4
/* Of a BPF_F_MMAPABLE rows array, bytes mapped at once while rows are copied in */
#define ROWS_WINDOW (1 << 20)

/* unwind_file.status of a file met whose table no walk has asked for yet */
#define UNWIND_FILE_WAITING (-EINPROGRESS)

/*
 * One file, by its stamp; its rows in the shared array once built (a
 * block of row_store.h). Held by each published process entry that points
 * at it, and by the entry being made: a file held by none is idle, kept
 * (the least recently idle first to go) up to UNWIND_IDLE_FILES.
 */
struct unwind_file {
	struct file_stamp id;
	/*
	 * 0: rows loaded; UNWIND_FILE_WAITING; else why not (-ENOENT,
	 * -ENOSPC, -EDQUOT...); -ESTALE: its rows were reclaimed, waiting
	 * again when met
	 */
	int status;
	/* -ENOSPC, -EDQUOT: row_store__version() then, and whose quota */
	uint64_t room_version;
	uid_t uid;
	uint64_t pended;	/* the last reading that held it (unwind_procs.reading) */
	uint32_t first_row, nr_rows;
	/* executable PT_LOADs: an offset in [off, off + filesz) is at vaddr - off + it */
	struct { uint64_t off, filesz, vaddr; } segs[MAX_EXEC_SEGS];
	int nr_segs;
	bool go;		/* a Go executable: its mappings are flagged (go_runtime.h) */
	struct go_range go_text;
	struct row_block *block;		/* its rows; NULL: none */
	struct unwind_file *next_of_block;	/* the block's next file */
	uint32_t held;
	struct unwind_file *idle_prev, *idle_next;
	bool idle, in_tree;
};

/* Files held by no entry kept at most: each is a few hundred bytes, its rows a block. */
#define UNWIND_IDLE_FILES 1024

/* The files one reading of a process points at, each held once. */
struct unwind_held {
	struct unwind_file **files;
	uint32_t nr, cap;
};

/* How the tables of a process gone went, kept after its record (~16 bytes each). */
#define PROC_RECS_GONE_KEPT 4096

struct proc_outcome {
	pid_t pid;
	int status;
	uint64_t published_ns;
};

/* The worker's records of processes (proc_recs.h). */
struct proc_recs {
	void *tree;			/* tsearch tree of struct proc_rec, by pid */
	size_t nr;
	struct proc_outcome *gone;	/* a ring of PROC_RECS_GONE_KEPT; NULL: none yet */
	uint64_t nr_gone;		/* records let go, all together */
};

struct unwind_procs {
	int procs_fd, big_fd;
	struct row_store *rows;		/* the rows array's blocks */
	struct proc_recs recs;
	uint64_t max_rows;
	void *files;			/* tsearch tree of struct unwind_file */
	/* files held by no entry, least recently idle first */
	struct unwind_file *idle_head, *idle_tail;
	size_t nr_idle;
	struct unwind_held pending;	/* what the reading under way points at */
	uint64_t reading;		/* readings begun */
	uid_t uid;			/* whose process that is: its tables are charged to it */
	struct budget_cpu cpu;		/* b.cpu: the file under way's */
	uint64_t reading_cpu_ns;	/* what the reading under way took in tables */
	bool more;			/* ... and files it put off */
	const char *proc_root;
	/* where separate debug files are looked for (debuginfo.h) */
	const char *const *debug_dirs;
	size_t nr_debug_dirs;
	struct table_cache *cache;	/* NULL: none */
	struct budget b;		/* b.cancel: &cancel */
	int cancel;
	struct unwind_procs_stats stats;
	unwind_notice_fn notice;	/* NULL: none */
	void *notice_ctx;
	unwind_denied_fn denied;	/* NULL: none */
	void *denied_ctx;
	unwind_gen_fn gen_fn;		/* NULL: generations not checked */
	void *gen_ctx;
	/* the vDSO every process maps, its table built at the first [vdso] met */
	struct vdso_image vdso;
	struct unwind_file vdso_file;
	bool vdso_tried;
};

/*
 * The file of mapping e of pid (a path), opened through
 * /proc/PID/map_files: NULL when it cannot be, or is no regular file.
 * Met for the first time, it waits (UNWIND_FILE_WAITING) for a walk to
 * ask for its table, and so does one met again whose rows were reclaimed
 * or that found no room when room may have been made since; with build,
 * a waiting file's table is built now (charged to u->uid), unless the
 * reading's turn is over (u->more: it waits for the process's next).
 */
struct unwind_file *unwind_files__of(struct unwind_procs *u, pid_t pid,
				     const struct map_entry *e, bool build);
/* A file met before, by its stamp, or NULL. */
struct unwind_file *unwind_files__find(struct unwind_procs *u, const struct file_stamp *id);
/* pid's [vdso] e, when it is the vDSO whose table we have (built at the first). */
const struct unwind_file *unwind_files__vdso(struct unwind_procs *u, pid_t pid,
					     const struct map_entry *e);
/*
 * Mapping e of file f (NULL: none, JIT code) into m: f's rows where it
 * has a table, UNWIND_MAP_WANT while it waits for one; a Go file's may
 * take up to room entries (go_runtime__map). Returns how many.
 */
size_t unwind_files__map(const struct unwind_file *f, const struct map_entry *e,
			 struct unwind_map *m, size_t room);
/*
 * The reading of a process's mappings its entry is made from
 * (unwind_reading.c): its executable mappings that go in the entry, each
 * with the file it maps, by stamp (found again without opening it).
 */
struct unwind_kept {
	struct map_entry e;	/* its path owned */
	struct file_stamp id;	/* UNWIND_KEPT_FILE: its file's */
	enum { UNWIND_KEPT_NONE, UNWIND_KEPT_FILE, UNWIND_KEPT_VDSO } kind;
	bool asked;		/* asked for by a walk, put off to the next turn: ASKED still */
};

struct unwind_reading {
	struct unwind_kept *maps;	/* sorted by start */
	uint32_t nr;
	uint32_t gen;		/* the generation it was read in; 0: not known */
	bool partial;		/* executable mappings were left out */
};

/*
 * maps's executable mappings (UNWIND_MAX_MAPS_BIG at most, of 4 GiB at
 * most each, UNWIND_MAPS_PER_FILE of one file) into r, in place of what
 * it held; their files not met yet. 0 or -ENOMEM (r unchanged).
 */
int unwind_reading__take(struct unwind_reading *r, const struct proc_maps *maps, uint32_t gen);
void unwind_reading__release(struct unwind_reading *r);
/*
 * The files of r's mappings, met now (opened through map_files: the very
 * files pid maps, once its placeholder entry is there), each held by the
 * reading under way. No table is built: a file met for the first time
 * waits for a walk to ask.
 */
void unwind_reading__meet_files(struct unwind_procs *u, pid_t pid, struct unwind_reading *r);
/*
 * r's mappings into p, with their files' tables where they have one, the
 * vDSO's where it is the one we have, UNWIND_MAP_WANT where a file's
 * waits (and UNWIND_MAP_ASKED where a walk asked and its build was put
 * off); JIT code and files without tables are walked by frame pointers.
 * *partial: some were left out.
 */
void unwind_reading__fill(struct unwind_procs *u, const struct unwind_reading *r,
			  struct unwind_proc_big *p, bool *partial);
/*
 * Build the tables the walks asked for among maps, nr of pid's entry
 * (UNWIND_MAP_ASKED), of the files mapped where r has them, within the
 * reading's turn (the rest put off: u->more). The entry is then
 * published again: built, they have rows; else none, and are asked for
 * no more.
 */
void unwind_reading__build_asked(struct unwind_procs *u, pid_t pid, struct unwind_reading *r,
				 const struct unwind_map *maps, uint32_t nr);

/* Whether one of the mappings in p has the vDSO's table. */
bool unwind_files__has_vdso(const struct unwind_procs *u, const struct unwind_proc_big *p);
/* The order of files by their stamps (common/file_stamp.h), of u->files. */
int unwind_file__cmp(const void *a, const void *b);
/* f, a mapping of the reading under way: held once by it (unwind_held.c). */
void unwind_files__pend(struct unwind_procs *u, struct unwind_file *f);
/* A reading of a process begins: nothing pending. */
void unwind_files__begin(struct unwind_procs *u);
/*
 * The files a reading points at (unwind_reading__meet_files() and
 * unwind_reading__fill() hold them in u->pending): kept by its entry once published, into *held (the files
 * the entry held before let go), or let go when it is not.
 */
void unwind_files__keep(struct unwind_procs *u, struct unwind_held *held);
void unwind_files__drop(struct unwind_procs *u);
/* Let go of what held holds (its process's entry is gone). */
void unwind_files__release(struct unwind_procs *u, struct unwind_held *held);
/* Free every file (the end of u). */
void unwind_files__free(struct unwind_procs *u);

#endif /* UNWIND_PROCS_INTERNAL_H */
