// SPDX-License-Identifier: GPL-2.0
/*
 * row_store.c - tables' blocks of rows in the BPF rows array: written,
 * shared by digest, held, and reclaimed when idle (row_store.h).
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "unwind/row_alloc.h"
#include "unwind/row_index.h"
#include "unwind/row_store.h"
#include "unwind/unwind_procs_internal.h"

struct row_store {
	int rows_fd;
	bool mmap;			/* BPF_F_MMAPABLE: written through windows of it */
	size_t window;
	volatile uint64_t *epoch;	/* the BPF side's rows_epoch, or NULL */
	struct row_alloc *alloc;
	void *by_key;			/* tsearch tree of keyed blocks */
	struct row_block *idle_head, *idle_tail;	/* least recently idle first */
	struct row_block *all;
	uint64_t version;		/* row_store__version() */
	struct row_store_stats stats;
};

static int cmp_key(const void *a, const void *b)
{
	const struct row_key *x = &((const struct row_block *)a)->key;
	const struct row_key *y = &((const struct row_block *)b)->key;

	return memcmp(x, y, sizeof(*x));
}

struct row_store *row_store__new(int rows_fd, bool mmap, uint32_t max_rows, uint32_t quota,
				 volatile uint64_t *epoch)
{
	struct row_store *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->alloc = row_alloc__new(max_rows, quota);
	if (!s->alloc) {
		free(s);
		return NULL;
	}
	s->rows_fd = rows_fd;
	s->mmap = mmap;
	s->window = ROWS_WINDOW;
	s->epoch = epoch;
	return s;
}

void row_store__set_window(struct row_store *s, size_t bytes)
{
	s->window = bytes;
}

void row_store__set_quota(struct row_store *s, uint32_t quota)
{
	row_alloc__set_quota(s->alloc, quota);
}

uint32_t row_store__quota(const struct row_store *s)
{
	return row_alloc__quota(s->alloc);
}

uint32_t row_store__held(const struct row_store *s, uid_t uid)
{
	return row_alloc__held(s->alloc, uid);
}

struct row_block *row_store__find(struct row_store *s, const struct row_key *key)
{
	struct row_block probe = { .key = *key }, **slot = tfind(&probe, &s->by_key, cmp_key);

	return slot ? *slot : NULL;
}

static void idle_remove(struct row_store *s, struct row_block *b)
{
	if (!b->idle)
		return;
	if (b->idle_prev)
		b->idle_prev->idle_next = b->idle_next;
	else
		s->idle_head = b->idle_next;
	if (b->idle_next)
		b->idle_next->idle_prev = b->idle_prev;
	else
		s->idle_tail = b->idle_prev;
	b->idle_prev = b->idle_next = NULL;
	b->idle = false;
}

static void idle_append(struct row_store *s, struct row_block *b)
{
	b->idle_prev = s->idle_tail;
	b->idle_next = NULL;
	if (s->idle_tail)
		s->idle_tail->idle_next = b;
	else
		s->idle_head = b;
	s->idle_tail = b;
	b->idle = true;
}

/* b's rows given back, b forgotten; its files (if any) told to load again. */
static void block_free(struct row_store *s, struct row_block *b)
{
	for (struct unwind_file *f = b->files, *next; f; f = next) {
		next = f->next_of_block;
		f->block = NULL;
		f->next_of_block = NULL;
		f->first_row = f->nr_rows = 0;
		f->status = -ESTALE;
	}
	idle_remove(s, b);
	if (b->keyed)
		tdelete(b, &s->by_key, cmp_key);
	if (b->all_prev)
		b->all_prev->all_next = b->all_next;
	else
		s->all = b->all_next;
	if (b->all_next)
		b->all_next->all_prev = b->all_prev;
	row_alloc__give(s->alloc, b->first, b->size, b->uid);
	s->version++;
	s->stats.blocks--;
	s->stats.rows -= b->size;
	free(b);
}

/*
 * The least recently idle block (of uid, unless any), reclaimed: false
 * when there is none.
 */
static bool reclaim_one(struct row_store *s, bool any, uid_t uid)
{
	struct row_block *b = s->idle_head;

	while (b && !any && b->uid != uid)
		b = b->idle_next;
	if (!b)
		return false;
	s->stats.reclaimed++;
	s->stats.reclaimed_rows += b->size;
	block_free(s, b);
	return true;
}

int row_store__room_for(struct row_store *s, uid_t uid)
{
	uint32_t quota = row_alloc__quota(s->alloc);

	while (uid != 0 && quota && row_alloc__held(s->alloc, uid) >= quota)
		if (!reclaim_one(s, false, uid)) {
			s->stats.over_quota++;
			s->stats.over_quota_uid = uid;
			return -EDQUOT;
		}
	return 0;
}

/* n rows for uid, reclaiming idle blocks while they are what stands in the way. */
static int take(struct row_store *s, uint32_t n, uid_t uid, uint32_t *first, bool *reused)
{
	for (;;) {
		int err = row_alloc__take(s->alloc, n, uid, first, reused);

		if (err == -EDQUOT && reclaim_one(s, false, uid))
			continue;
		if (err == -ENOSPC && reclaim_one(s, true, 0))
			continue;
		if (err == -EDQUOT) {
			s->stats.over_quota++;
			s->stats.over_quota_uid = uid;
		}
		return err;
	}
}

/* Copy rows[0, nr) into the rows array from row first, a batch update at a time. */
static int write_rows_batch(struct row_store *s, const struct unwind_row *rows, size_t nr,
			    uint64_t first)
{
	enum { BATCH = 4096 };
	__u32 keys[BATCH];

	for (size_t done = 0; done < nr;) {
		__u32 n = nr - done < BATCH ? (__u32)(nr - done) : BATCH;

		for (__u32 i = 0; i < n; i++)
			keys[i] = (__u32)(first + done + i);
		if (bpf_map_update_batch(s->rows_fd, keys, rows + done, &n, NULL))
			return -errno;
		done += n;
	}
	return 0;
}

/*
 * The same through a window of the array mapped here, then unmapped: a
 * memcpy instead of a copy and an update per row in the kernel (~30 ms of
 * a one-shot run went to its first process's 60k rows). A window at a
 * time: the tool's RSS never holds more of the array than one.
 */
static int write_rows_mapped(struct row_store *s, const struct unwind_row *rows, size_t nr,
			     uint64_t first)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t window = s->window >= page ? s->window & ~(page - 1) : page;
	uint64_t pos = first * sizeof(*rows), end = pos + nr * sizeof(*rows);
	const char *src = (const char *)rows;

	while (pos < end) {
		uint64_t off = pos & ~(page - 1);
		uint64_t len = end - off < window ? end - off : window;
		char *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->rows_fd, (off_t)off);

		if (w == MAP_FAILED)
			return -errno;
		memcpy(w + (pos - off), src, off + len - pos);
		munmap(w, len);
		src += off + len - pos;
		pos = off + len;
	}
	/* the rows before the entry that points at them (bpf(2) publishes it) */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 0;
}

static int write_rows(struct row_store *s, const struct unwind_row *rows, size_t nr,
		      uint64_t first)
{
	if (s->mmap)
		return write_rows_mapped(s, rows, nr, first);
	return write_rows_batch(s, rows, nr, first);
}

/* t and its page index (row_index.h) written from row first. */
static int write_table(struct row_store *s, const struct cfi_table *t, size_t nr_index,
		       uint32_t first)
{
	struct unwind_row *index = malloc(nr_index * sizeof(*index));
	int err;

	if (!index)
		return -ENOMEM;
	row_index__build(t->rows, t->nr, index);
	err = write_rows(s, t->rows, t->nr, first);
	if (!err)
		err = write_rows(s, index, nr_index, first + t->nr);
	free(index);
	return err;
}

int row_store__place(struct row_store *s, const struct row_key *key, const struct cfi_table *t,
		     uid_t uid, struct row_block **out)
{
	struct row_block *b;
	size_t nr_index;
	uint32_t first;
	bool reused;
	int err;

	if (!t->nr)
		return -ENOENT;
	nr_index = row_index__size(t->rows, t->nr);
	if (t->nr + nr_index > UINT32_MAX)
		return -ENOSPC;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	err = take(s, (uint32_t)(t->nr + nr_index), uid, &first, &reused);
	if (!err) {
		err = write_table(s, t, nr_index, first);
		if (err)
			row_alloc__give(s->alloc, first, (uint32_t)(t->nr + nr_index), uid);
	}
	if (err) {
		free(b);
		return err;
	}
	/*
	 * Rows that held another table: the BPF side's copies of its rows,
	 * tagged with that table's first row, go stale before an entry
	 * points here (the entry is published by bpf(2), after this).
	 */
	if (reused && s->epoch) {
		__atomic_fetch_add(s->epoch, 1, __ATOMIC_SEQ_CST);
		s->stats.epochs++;
	}
	b->first = first;
	b->nr_rows = (uint32_t)t->nr;
	b->size = (uint32_t)(t->nr + nr_index);
	b->uid = uid;
	if (key) {
		b->key = *key;
		b->keyed = tsearch(b, &s->by_key, cmp_key) != NULL;
	}
	b->all_next = s->all;
	if (s->all)
		s->all->all_prev = b;
	s->all = b;
	s->stats.blocks++;
	s->stats.rows += b->size;
	/* no file holds it yet: idle until one does */
	idle_append(s, b);
	*out = b;
	return 0;
}

void row_store__link(struct row_store *s, struct row_block *b, struct unwind_file *f)
{
	(void)s;
	f->block = b;
	f->next_of_block = b->files;
	b->files = f;
	f->first_row = b->first;
	f->nr_rows = b->nr_rows;
}

void row_store__unlink(struct row_store *s, struct unwind_file *f)
{
	struct row_block *b = f->block;
	struct unwind_file **p;

	if (!b)
		return;
	for (p = &b->files; *p && *p != f; p = &(*p)->next_of_block)
		;
	if (*p)
		*p = f->next_of_block;
	f->block = NULL;
	f->next_of_block = NULL;
	if (!b->files)
		block_free(s, b);
}

void row_store__busy(struct row_store *s, struct row_block *b)
{
	if (!b->busy++)
		idle_remove(s, b);
}

void row_store__unbusy(struct row_store *s, struct row_block *b)
{
	if (b->busy && !--b->busy) {
		idle_append(s, b);
		s->version++;
	}
}

uint64_t row_store__version(const struct row_store *s)
{
	return s->version;
}

void row_store__stats(const struct row_store *s, struct row_store_stats *st)
{
	*st = s->stats;
}

static void no_free(void *p)
{
	(void)p;
}

void row_store__free(struct row_store *s)
{
	struct row_block *b, *next;

	if (!s)
		return;
	/* the files are their owner's to free */
	tdestroy(s->by_key, no_free);
	for (b = s->all; b; b = next) {
		next = b->all_next;
		for (struct unwind_file *f = b->files; f; f = f->next_of_block)
			f->block = NULL;
		free(b);
	}
	row_alloc__free(s->alloc);
	free(s);
}
