/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_procs.h - unwind tables loaded into the BPF side for the
 * processes that are sampled: each process's executable mappings in
 * "unwind_procs" (profile.h), from a reading of its /proc/PID/maps made
 * by the caller (the symbols' reading: one for both), pointing at the
 * rows of their files' tables (cfi_table.h), each copied once into the
 * shared "unwind_rows" array (through mmap where the array is
 * BPF_F_MMAPABLE). A table is built only when a walk meets its file and
 * asks for it (UNWIND_MAP_WANT): a process gets the tables of the files
 * its stacks pass through, not of every file it maps.
 *
 * A Go executable's table has its stack roots as END rows, and rows from
 * .gopclntab where it has no .debug_frame; its mappings are flagged
 * UNWIND_MAP_GO (go_runtime.h).
 *
 * A file is shared by every process that maps it (same device, inode,
 * size, mtime and ctime: common/file_stamp.h), and its rows by every file whose
 * table has the same digest (cfi_table__digest()). A table's rows are
 * charged to the uid of the process they were loaded for, and a uid but
 * root holds at most a quota of rows (half the array by default); rows
 * no published entry points at any more are reclaimed when another table
 * needs them (row_store.h). A file whose table does not fit is walked by
 * frame pointers, counted and told why (the rows full, or its uid's quota).
 */
#ifndef UNWIND_PROCS_H
#define UNWIND_PROCS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/maps_handoff.h"

struct proc_maps;
struct table_cache;
struct unwind_procs;

/*
 * The CPU one file's table may take (libLLVM's 980,000 rows take 65 ms
 * here), and one reading of a process in new tables before the files
 * asked for left are put off to its next turn (unwind_procs__more()).
 */
#define UNWIND_FILE_CPU_NS 250000000ull
#define UNWIND_READING_CPU_NS 250000000ull

struct unwind_procs_stats {
	uint64_t procs;		/* entries published */
	uint64_t readings;	/* readings of processes' mappings given (unwind_procs__add_maps) */
	uint64_t met;		/* files met in those mappings */
	uint64_t waiting;	/* ... of them with no table asked for (none built) */
	uint64_t asked;		/* mappings whose table a walk asked for */
	uint64_t files;		/* files with a table loaded */
	uint64_t rows;		/* rows loaded now, of max_rows */
	uint64_t max_rows;
	uint64_t row_quota;	/* rows a uid but root may hold; 0: no quota */
	uint64_t reclaimed;	/* tables whose rows were taken back for others */
	uint64_t reclaimed_rows;
	uint64_t no_table;	/* files without a usable .eh_frame */
	uint64_t no_room;	/* files whose table did not fit: every row in use */
	uint64_t over_quota;	/* files refused for their uid's quota of rows */
	uid_t over_quota_uid;	/* the last uid refused so */
	uint64_t built;		/* tables built from .eh_frame */
	uint64_t from_cache;	/* tables read from the cache instead */
	uint64_t shared;	/* files that are copies of one loaded: its rows */
	uint64_t stored;	/* tables written to the cache */
	uint64_t evicted;	/* cache entries removed for its cap */
	uint64_t over_cap;	/* tables not stored: larger than the cache's cap */
	uint64_t build_ns;	/* time spent building tables */
	uint64_t debug_frame;	/* tables built with rows of a .debug_frame */
	uint64_t unchanged;	/* readings that found the mappings as published */
	uint64_t partial_procs;	/* processes published with mappings left out */
	uint64_t big_full;	/* ... because the map of big entries was full */
	uint64_t procs_full;	/* processes given no entry: the map was full */
	uint64_t swept;		/* entries of processes gone, deleted by the sweep */
	uint64_t records;	/* processes the worker keeps a record of now */
	uint64_t records_gone;	/* records let go as their processes went */
	uint64_t denied;	/* mappings whose file /proc/PID/map_files refused (EPERM) */
	uint64_t vdso;		/* processes published with the vDSO's table for their [vdso] */
	uint64_t over_cpu;	/* files given up at UNWIND_FILE_CPU_NS of CPU */
	uint64_t file_cpu_ns;	/* CPU time loading files took, all together */
	uint64_t file_cpu_max_ns;	/* ... the most one file took */
	uint64_t put_off;	/* jobs that left tables asked for to the process's next turn */
};

/* The BPF maps tables go to (sampler__unwind_maps). */
struct unwind_map_fds {
	int rows;		/* "unwind_rows" */
	int procs;		/* "unwind_procs" */
	int big;		/* "unwind_procs_big" */
	volatile uint64_t *rows_epoch;	/* the BPF side's "rows_epoch" (NULL: none) */
};

/*
 * Over the two maps of sampler__unwind_maps(); proc_root is "/proc" but
 * in tests; cache (NULL: none) keeps root's files' tables between runs,
 * and is freed with u. Files are read under the default budget
 * (budget.h). NULL with errno on failure.
 */
struct unwind_procs *unwind_procs__new(const struct unwind_map_fds *fds, const char *proc_root,
				       struct table_cache *cache);

/*
 * The generation pid runs now (sampler__pid_gen), 0 when none: a reading
 * made in generation gen is published only while pid runs gen.
 */
typedef uint32_t (*unwind_gen_fn)(pid_t pid, void *ctx);
void unwind_procs__set_gen_fn(struct unwind_procs *u, unwind_gen_fn fn, void *ctx);

/*
 * Publish pid's entry from maps, a reading of its /proc/PID/maps made in
 * generation gen (0: not checked) by a task of uid (its new tables are
 * charged to it; MAPS_UID_UNKNOWN: pid's read), unless it holds these very mappings
 * already: the rows of the files whose tables are loaded, and
 * UNWIND_MAP_WANT on the others (no table is built here). The tables the
 * walks asked for in its entry of before are built first. Returns 0, or
 * -errno (-ESRCH: the process is gone or a zombie; -ESTALE: it exec'd or
 * exited meanwhile; -E2BIG: the map of processes is full).
 */
int unwind_procs__add_maps(struct unwind_procs *u, pid_t pid, uint32_t gen, uint32_t uid,
			   const struct proc_maps *maps);
/* The same, from proc_root/PID/maps read now, in no generation checked (tests). */
int unwind_procs__add_pid(struct unwind_procs *u, pid_t pid);
/*
 * Build the tables the walks asked for in pid's entry (UNWIND_MAP_ASKED)
 * and publish it again from its last reading: where a table could not
 * be had, no rows and no more asking. 0, or -errno (-ESTALE: no entry,
 * exec or exit deleted it; -ENOENT: no reading kept).
 */
int unwind_procs__load_asked(struct unwind_procs *u, pid_t pid);
/* How loading pid's tables went. */
struct unwind_pid_status {
	int err;		/* the last reading: 0, -errno; -ENOENT: none; -EINPROGRESS: queued */
	bool published;		/* some reading published its entry */
	uint64_t first_ns;	/* CLOCK_MONOTONIC: its first notice (unwind_jobs), or 0 */
	uint64_t published_ns;	/* ... its entry first published, or 0 */
	/*
	 * err -ENOENT: more processes went than their outcomes are kept
	 * for, and this pid's may have been one
	 */
	bool forgotten;
};
void unwind_procs__status(const struct unwind_procs *u, pid_t pid, struct unwind_pid_status *st);
/*
 * Delete the entries of processes that are gone, or whose pid another
 * process has now: a race with their exit can leave one, and nothing
 * else would delete it. Returns how many. The readings kept for
 * processes without an entry are freed, and the records of processes
 * gone let go (how their tables went is kept for the last few thousand:
 * unwind_procs__status()).
 */
size_t unwind_procs__sweep(struct unwind_procs *u);

/*
 * Told, from the thread that reads it, of each file whose table could not
 * be had: its path as the process maps it, and why (no .eh_frame, over a
 * budget, no room left in the rows). Once per file.
 */
typedef void (*unwind_notice_fn)(const char *path, const char *why, void *ctx);
void unwind_procs__set_notice(struct unwind_procs *u, unwind_notice_fn fn, void *ctx);

/*
 * Told once, from the thread that reads it, the first time
 * /proc/PID/map_files refuses to open a file (EPERM): it needs
 * CAP_CHECKPOINT_RESTORE (or CAP_SYS_ADMIN), and without it no file gets a
 * table, so every stack is walked by frame pointers. Each refusal is
 * counted (stats.denied).
 */
typedef void (*unwind_denied_fn)(void *ctx);
void unwind_procs__set_denied(struct unwind_procs *u, unwind_denied_fn fn, void *ctx);

/*
 * Where separate debug files are looked for (--debug-dir, debuginfo.h;
 * none: its default), for the .debug_frame of files whose .eh_frame
 * leaves code out. dirs must outlive u.
 */
void unwind_procs__set_debug_dirs(struct unwind_procs *u, const char *const *dirs, size_t nr);

/*
 * The vDSO image whose table [vdso] mappings get when they hold it (tests;
 * by default this process's own, getauxval(AT_SYSINFO_EHDR)). The image
 * must outlive u.
 */
void unwind_procs__set_vdso(struct unwind_procs *u, const void *image, size_t size);

/*
 * The most of a BPF_F_MMAPABLE rows array mapped here at once while rows
 * are copied in, bytes, a multiple of the page size (tests cross windows
 * with small tables; by default 1 MiB). Other arrays take batch updates.
 */
void unwind_procs__set_rows_window(struct unwind_procs *u, size_t bytes);
/*
 * The rows a uid but root may hold (0: no quota; by default half the
 * array): a run that samples only processes it was given (-p, a command)
 * has none.
 */
void unwind_procs__set_row_quota(struct unwind_procs *u, uint32_t rows);

/*
 * After unwind_procs__add_maps(), __add_pid() or __load_asked(): whether
 * it left tables asked for to the process's next turn (one update builds
 * at most UNWIND_READING_CPU_NS of new tables, so that other users'
 * processes are not kept waiting), and whose process it is.
 */
bool unwind_procs__more(const struct unwind_procs *u, uid_t *uid);
/* The real uid of process pid: 0 or -errno (-ENOENT: gone). */
int unwind_procs__uid(const struct unwind_procs *u, pid_t pid, uid_t *uid);

/* Whether pid has a published entry (exec and exit delete it). */
bool unwind_procs__published(const struct unwind_procs *u, pid_t pid);

/* From any thread: a table being built is given up (-ECANCELED). */
void unwind_procs__cancel(struct unwind_procs *u);

void unwind_procs__stats(const struct unwind_procs *u, struct unwind_procs_stats *st);

void unwind_procs__free(struct unwind_procs *u);

#endif /* UNWIND_PROCS_H */
