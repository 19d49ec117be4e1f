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

#include "symbols/budget.h"
#include "symbols/file_id.h"
#include "symbols/proc_maps.h"
#include "unwind/go_runtime.h"
#include "profile.h"
#include "unwind/unwind_procs.h"
#include "unwind/vdso_image.h"

#define MAX_EXEC_SEGS 4
/* Of a BPF_F_MMAPABLE rows array, bytes mapped at once while rows are copied in */
#define ROWS_WINDOW (1 << 20)

/* unwind_file.status of a file met whose table no walk has asked for yet */
#define UNWIND_FILE_WAITING (-EINPROGRESS)

/* One file, by its stamp; its rows in the shared array once built. */
struct unwind_file {
	struct file_stamp id;
	int status;		/* 0: rows loaded; UNWIND_FILE_WAITING; else why not (-ENOENT, -ENOSPC...) */
	uint32_t first_row, nr_rows;
	/* executable PT_LOADs: an offset in [off, off + filesz) is at vaddr - off + it */
	struct { uint64_t off, filesz, vaddr; } segs[MAX_EXEC_SEGS];
	int nr_segs;
	bool go;		/* a Go executable: its mappings are flagged (go_runtime.h) */
	struct go_range go_text;
};

struct unwind_procs {
	int rows_fd, procs_fd, big_fd;
	bool rows_mmap;			/* the rows array is BPF_F_MMAPABLE: written through mmap */
	size_t rows_window;		/* bytes of it mapped at once (unwind_files.c) */
	void *recs;			/* tsearch tree of struct proc_rec */
	uint64_t max_rows, next_row;
	void *files;			/* tsearch tree of struct unwind_file */
	void *by_key;			/* tsearch tree of struct rows_by_key */
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

static inline uint64_t unwind__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The file of mapping e of pid (a path), opened through
 * /proc/PID/map_files: NULL when it cannot be, or is no regular file.
 * Met for the first time, it waits (UNWIND_FILE_WAITING) for a walk to
 * ask for its table; with build, a waiting file's table is built now.
 */
const struct unwind_file *unwind_files__of(struct unwind_procs *u, pid_t pid,
					   const struct map_entry *e, bool build);
/* A file met before, by its stamp, or NULL. */
const struct unwind_file *unwind_files__find(struct unwind_procs *u, const struct file_stamp *id);
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
 * files pid maps, once its placeholder entry is there). No table is
 * built: a file met for the first time waits for a walk to ask.
 */
void unwind_reading__meet_files(struct unwind_procs *u, pid_t pid, struct unwind_reading *r);
/*
 * r's mappings into p, with their files' tables where they have one, the
 * vDSO's where it is the one we have, UNWIND_MAP_WANT where a file's
 * waits; JIT code and files without tables are walked by frame pointers.
 * *partial: some were left out.
 */
void unwind_reading__fill(struct unwind_procs *u, const struct unwind_reading *r,
			  struct unwind_proc_big *p, bool *partial);
/*
 * Build the tables the walks asked for among maps, nr of pid's entry
 * (UNWIND_MAP_ASKED), of the files mapped where r has them. The entry is
 * then published again: built, they have rows; else none, and are asked
 * for no more.
 */
void unwind_reading__build_asked(struct unwind_procs *u, pid_t pid, struct unwind_reading *r,
				 const struct unwind_map *maps, uint32_t nr);

/* Whether one of the mappings in p has the vDSO's table. */
bool unwind_files__has_vdso(const struct unwind_procs *u, const struct unwind_proc_big *p);

#endif /* UNWIND_PROCS_INTERNAL_H */
