/* SPDX-License-Identifier: GPL-2.0 */
/*
 * row_store.h - the tables' rows in the BPF "unwind_rows" array: each
 * table a block of rows (its rows, then its page index: row_index.h),
 * shared by every file whose table has the same digest (a copy of the
 * file), charged to the uid whose process first needed it.
 *
 * A block is busy while a file pointing at it is held by a published
 * process entry (unwind_procs_internal.h). One that is not stays loaded,
 * in case a process maps the file again, until its rows are needed: for
 * another table when no free range holds it, or for its own uid's next
 * table when the uid's quota is reached (row_alloc.h); then the least
 * recently idle blocks go first, and the files that pointed at them are
 * marked to be loaded again when they are met. A busy block is never
 * reclaimed.
 *
 * The BPF side keeps per-CPU copies of rows by a table's first row
 * (row_find.bpf.h): before rows that held another table are published
 * again, the "rows_epoch" it checks them against is moved on, so that no
 * copy of the old table's rows is taken for the new one's.
 */
#ifndef ROW_STORE_H
#define ROW_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind/cfi_table.h"
#include "unwind/go_runtime.h"
#include "unwind/table_cache.h"

struct unwind_file;

/* What a block's rows are made from: the table's digest, and a Go file's function table's. */
struct row_key {
	struct table_key key;
	uint8_t go_digest[SHA256_LEN];	/* zeros: not a Go file */
};

struct row_block {
	struct row_key key;
	bool keyed;			/* found by key (a copy's rows); else one file's */
	uint32_t first, nr_rows;	/* the table's rows */
	uint32_t size;			/* and its index's: the rows taken */
	uid_t uid;			/* charged to */
	bool go;			/* a Go file's (go_runtime.h) */
	struct go_range go_text;
	struct unwind_file *files;	/* pointing at it, by next_of_block */
	uint32_t busy;			/* of them, held by an entry */
	struct row_block *idle_prev, *idle_next;	/* busy 0: least recently idle first */
	bool idle;
	struct row_block *all_prev, *all_next;	/* every block */
};

struct row_store_stats {
	uint64_t blocks;		/* blocks loaded now */
	uint64_t rows;			/* rows they take */
	uint64_t reclaimed;		/* blocks whose rows were taken back */
	uint64_t reclaimed_rows;
	uint64_t over_quota;		/* tables refused for their uid's quota */
	uid_t over_quota_uid;		/* the last uid refused so */
	uint64_t epochs;		/* rows_epoch moved on: rows written again */
};

struct row_store;

/*
 * Over the rows array rows_fd of max_rows rows (mmap: BPF_F_MMAPABLE,
 * written through windows of it); quota: rows a uid but root may hold (0:
 * none); epoch: the BPF side's rows_epoch (NULL: none, tests). NULL with errno.
 */
struct row_store *row_store__new(int rows_fd, bool mmap, uint32_t max_rows, uint32_t quota,
				 volatile uint64_t *epoch);
/* The most of the array mapped at once while rows are copied in, bytes. */
void row_store__set_window(struct row_store *s, size_t bytes);
/* Rows a uid but root may hold from now on (0: none). */
void row_store__set_quota(struct row_store *s, uint32_t quota);
uint32_t row_store__quota(const struct row_store *s);
uint32_t row_store__held(const struct row_store *s, uid_t uid);

/* The block made from key, or NULL. */
struct row_block *row_store__find(struct row_store *s, const struct row_key *key);
/*
 * Whether uid may take rows at all: -EDQUOT when it holds its quota
 * already with nothing of its own to reclaim (before a table is built
 * for nothing), else 0.
 */
int row_store__room_for(struct row_store *s, uid_t uid);
/*
 * t's rows and page index into the array for uid, as a new block (found
 * by key later; NULL: one file's), reclaiming idle blocks as said above.
 * Returns 0; -EDQUOT, uid's quota reached with its own blocks all busy;
 * -ENOSPC, no room though every idle block was reclaimed; -ENOENT (no
 * row); -ENOMEM; -errno from writing.
 */
int row_store__place(struct row_store *s, const struct row_key *key, const struct cfi_table *t,
		     uid_t uid, struct row_block **out);
/* f points at b now (f->block); at none again (its block freed when no file is left). */
void row_store__link(struct row_store *s, struct row_block *b, struct unwind_file *f);
void row_store__unlink(struct row_store *s, struct unwind_file *f);
/* One file of b held more, one less: a block no held file points at is idle. */
void row_store__busy(struct row_store *s, struct row_block *b);
void row_store__unbusy(struct row_store *s, struct row_block *b);
/* Moves on when a block goes idle or is freed: a table refused for room may fit now. */
uint64_t row_store__version(const struct row_store *s);

void row_store__stats(const struct row_store *s, struct row_store_stats *st);
void row_store__free(struct row_store *s);

#endif /* ROW_STORE_H */
