// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_procs.c - unwind tables of sampled processes into the BPF maps
 * (unwind_procs.h): each process's executable mappings read from
 * /proc/PID/maps, published as its entry (and big entry) when they
 * changed, and the entries of processes gone swept; the files' tables are
 * unwind_files.c's.
 */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "common/fnv.h"
#include "symbols/proc_maps.h"
#include "common/proc_stat.h"
#include "unwind/table_cache.h"
#include "unwind/unwind_procs_internal.h"

#define UNWIND_MAX_EH_FRAME (64ull << 20)
/* A debug file found by .gnu_debuglink is checksummed whole: 256 MiB, ~0.1 s. */
#define UNWIND_MAX_DEBUGLINK_CRC (256ull << 20)

/*
 * What the worker knows of a pid it gave tables: which process it was
 * (its start time: a reused pid is another), what was published for it,
 * and how the last loading went.
 */
struct proc_rec {
	pid_t pid;
	uint64_t start_time;	/* /proc/PID/stat, clock ticks since boot */
	uint64_t fingerprint;	/* of the entry published; 0: none */
	int status;		/* the last unwind_procs__add_pid(): 0 or -errno */
	uint64_t published_ns;	/* CLOCK_MONOTONIC: first published, or 0 */
	struct unwind_held held;	/* the files its entry points at */
};

struct unwind_procs *unwind_procs__new(const struct unwind_map_fds *fds, const char *proc_root,
				       struct table_cache *cache)
{
	int rows_fd = fds->rows;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct unwind_procs *u;

	if (bpf_obj_get_info_by_fd(rows_fd, &info, &len))
		return NULL;
	if (info.value_size != sizeof(struct unwind_row) || !info.max_entries) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	/* a user may hold half the rows: one who fills them leaves the rest the others' */
	u->rows = row_store__new(rows_fd, info.map_flags & BPF_F_MMAPABLE, info.max_entries,
				 info.max_entries / 2, fds->rows_epoch);
	if (!u->rows) {
		free(u);
		return NULL;
	}
	u->procs_fd = fds->procs;
	u->big_fd = fds->big;
	u->max_rows = u->stats.max_rows = info.max_entries;
	u->proc_root = proc_root;
	u->cache = cache;
	u->b = *budget__default();
	/*
	 * Any user's .eh_frame is read (cfi_check.c bounds what libdw does
	 * with it, at ~0.3 s a MiB at worst): 64 MiB, five times libxul's.
	 */
	u->b.max_section_bytes = UNWIND_MAX_EH_FRAME;
	u->b.max_inflate_bytes = UNWIND_MAX_EH_FRAME;
	/*
	 * One worker loads every process's tables: a user's debuglink to a
	 * huge file next to their binary must not hold it up for seconds.
	 */
	u->b.max_crc_bytes = UNWIND_MAX_DEBUGLINK_CRC;
	u->b.cancel = &u->cancel;
	/* whatever passes every byte budget still stops here */
	u->cpu.cap_ns = UNWIND_FILE_CPU_NS;
	u->b.cpu = &u->cpu;
	/* none, or not one we can read: every [vdso] by frame pointers */
	u->vdso_file.status = vdso_image__self(&u->vdso);
	return u;
}

void unwind_procs__set_vdso(struct unwind_procs *u, const void *image, size_t size)
{
	u->vdso_file.status = vdso_image__of(&u->vdso, image, size);
	u->vdso_tried = false;
}

void unwind_procs__set_rows_window(struct unwind_procs *u, size_t bytes)
{
	row_store__set_window(u->rows, bytes);
}

void unwind_procs__set_row_quota(struct unwind_procs *u, uint32_t rows)
{
	row_store__set_quota(u->rows, rows);
}

/* Which file a kept mapping is of: its copies are counted. */
struct kept_file {
	uint64_t inode;
	unsigned int dev_major, dev_minor;
};

/*
 * Whether mapping e is of a file that already has UNWIND_MAPS_PER_FILE
 * of the nr mappings kept: a process that maps one file 60,000 times
 * must leave room for its libraries.
 */
static bool too_many_copies(const struct map_entry *e, const struct kept_file *kept, size_t nr)
{
	size_t n = 0;

	if (!e->inode)
		return false;
	for (size_t j = 0; j < nr; j++)
		n += kept[j].inode == e->inode && kept[j].dev_major == e->dev_major &&
		     kept[j].dev_minor == e->dev_minor;
	return n >= UNWIND_MAPS_PER_FILE;
}

/*
 * Every executable mapping of pid into p (UNWIND_MAX_MAPS_BIG at most),
 * with its file's table where it has one (the vDSO's where it is the one
 * we have); JIT code and files without tables are walked by frame
 * pointers. *partial: some were left
 * out. Read line by line, keeping only what goes into p: a process with
 * 60,000 mappings costs no memory for them.
 */
static int fill_proc(struct unwind_procs *u, pid_t pid, struct unwind_proc_big *p, bool *partial)
{
	struct kept_file *kept = malloc(UNWIND_MAX_MAPS_BIG * sizeof(*kept));
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (!kept)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f) {
		free(kept);
		return errno == ENOENT ? -ESRCH : -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		struct map_entry e;

		if (map_entry__parse(line, &e))
			continue;
		/* past a full entry, or a file's cap: only that there was more */
		if (map_entry__is_exec(&e) &&
		    (p->nr == UNWIND_MAX_MAPS_BIG || too_many_copies(&e, kept, p->nr) ||
		     e.end - e.start > UINT32_MAX)) {
			*partial = true;
		} else if (map_entry__is_exec(&e)) {
			size_t n = unwind_files__add_mapping(u, pid, &e, &p->maps[p->nr], UNWIND_MAX_MAPS_BIG - p->nr);

			/* a Go file's parts are one mapping of it */
			for (size_t i = 0; i < n; i++)
				kept[p->nr + i] = i ? (struct kept_file){ 0 }
						    : (struct kept_file){ e.inode, e.dev_major, e.dev_minor };
			p->nr += (uint32_t)n;
		}
		map_entry__release(&e);
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	free(line);
	free(kept);
	return err;
}

/* What a published entry says, to tell whether the mappings changed since. */
static uint64_t fingerprint_of(const struct unwind_proc_big *p, bool partial)
{
	uint64_t h = fnv64_step(FNV64_OFFSET, ((uint64_t)p->nr << 1) | partial);

	for (uint32_t i = 0; i < p->nr; i++) {
		const struct unwind_map *m = &p->maps[i];

		h = fnv64_step(h, m->start);
		h = fnv64_step(h, m->bias);
		h = fnv64_step(h, ((uint64_t)m->len << 32) | m->first_row);
		h = fnv64_step(h, ((uint64_t)m->nr_rows << 32) | m->flags);
	}
	return h | 1;	/* never 0, "none" */
}

static int cmp_rec(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* pid's record, made when missing (NULL: no memory). */
static struct proc_rec *rec_of(struct unwind_procs *u, pid_t pid)
{
	struct proc_rec key = { .pid = pid }, *r, **slot = tfind(&key, &u->recs, cmp_rec);

	if (slot)
		return *slot;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pid = pid;
	if (!tsearch(r, &u->recs, cmp_rec)) {
		free(r);
		return NULL;
	}
	return r;
}

/* An update of the entry of pid that must find it still there (exec and exit delete it). */
static int update_existing(int fd, __u32 key, const void *value)
{
	if (!bpf_map_update_elem(fd, &key, value, BPF_EXIST))
		return 0;
	return errno == ENOENT ? -ESTALE : -errno;
}

/*
 * Publish the mappings in all for pid unless the process exec'd or
 * exited since the caller began: those delete the entry (profile.bpf.c),
 * and only an entry still there is replaced, so tables of an image gone
 * are never used. More than an entry holds go to the big entry first;
 * the small one then points there.
 */
static int publish(struct unwind_procs *u, __u32 key, const struct unwind_proc_big *all,
		   bool *partial, struct unwind_proc *small)
{
	int err;

	memset(small, 0, sizeof(*small));
	small->partial = *partial;
	if (all->nr <= UNWIND_MAX_MAPS) {
		small->nr = all->nr;
		memcpy(small->maps, all->maps, all->nr * sizeof(all->maps[0]));
		err = update_existing(u->procs_fd, key, small);
		/* a big entry of before is no use now */
		if (!err)
			bpf_map_delete_elem(u->big_fd, &key);
		return err;
	}
	if (bpf_map_update_elem(u->big_fd, &key, all, BPF_ANY)) {
		/* the big map full: what an entry holds, the rest left out */
		if (errno != E2BIG)
			return -errno;
		u->stats.big_full++;
		small->nr = UNWIND_MAX_MAPS;
		small->partial = *partial = true;
		memcpy(small->maps, all->maps, sizeof(small->maps));
		return update_existing(u->procs_fd, key, small);
	}
	small->big = 1;
	err = update_existing(u->procs_fd, key, small);
	/* exec or exit deleted the small entry: the big one is stale */
	if (err)
		bpf_map_delete_elem(u->big_fd, &key);
	return err;
}

/* Delete pid's entries (both), as exec and exit do; rec's files are let go. */
static void forget(struct unwind_procs *u, __u32 key, struct proc_rec *rec)
{
	bpf_map_delete_elem(u->procs_fd, &key);
	bpf_map_delete_elem(u->big_fd, &key);
	if (rec)
		unwind_files__release(u, &rec->held);
}

static int add_pid(struct unwind_procs *u, pid_t pid, struct proc_rec *rec)
{
	struct unwind_proc_big *all = calloc(1, sizeof(*all));
	struct unwind_proc *small = calloc(1, sizeof(*small));
	struct proc_stat_info before, after;
	__u32 key = (__u32)pid;
	bool had, partial = false;
	uint64_t fp;
	int err;

	u->more = false;
	if (!all || !small) {
		err = -ENOMEM;
		goto out;
	}
	/* a process gone, or a zombie (its maps read empty), gets no entry */
	err = proc_stat__read(u->proc_root, pid, &before);
	if (err == -ENOENT || (!err && before.ended))
		err = -ESRCH;
	/* whose: its new tables are charged to it */
	if (!err)
		err = proc_stat__uid(u->proc_root, pid, &u->uid);
	if (err == -ENOENT)
		err = -ESRCH;
	if (err)
		goto out;
	/* a placeholder first (nr 0: frame pointers), for exec to delete */
	had = !bpf_map_lookup_elem(u->procs_fd, &key, small);
	if (had && rec && rec->fingerprint && rec->start_time != before.start_time) {
		/* another process's entry, left by a race with its exit */
		forget(u, key, rec);
		had = false;
	}
	memset(small, 0, sizeof(*small));
	if (!had && bpf_map_update_elem(u->procs_fd, &key, small, BPF_NOEXIST) && errno != EEXIST) {
		err = -errno;
		if (err == -E2BIG)
			u->stats.procs_full++;
		goto out;
	}
	unwind_files__begin(u);
	err = fill_proc(u, pid, all, &partial);
	/* no executable mapping: it exited while we read (a zombie's maps are empty) */
	if (!err && !all->nr)
		err = -ESRCH;
	fp = err ? 0 : fingerprint_of(all, partial);
	if (!err && had && rec && rec->fingerprint == fp) {
		/* the same mappings as published: nothing to do */
		u->stats.unchanged++;
		goto out;
	}
	if (!err)
		err = publish(u, key, all, &partial, small);
	/*
	 * An exit between the first reading of its state and the placeholder
	 * found no entry to delete: this one would stay until the pid is
	 * reused. Look again, now that the entry is there.
	 */
	if (!err && (proc_stat__read(u->proc_root, pid, &after) || after.ended ||
		     after.start_time != before.start_time))
		err = -ESRCH;
	if (err && (!had || err == -ESRCH))
		forget(u, key, rec);
	if (!err) {
		u->stats.procs++;
		u->stats.partial_procs += partial;
		u->stats.vdso += unwind_files__has_vdso(u, all);
		if (rec) {
			rec->start_time = before.start_time;
			rec->fingerprint = fp;
			/* the rows its entry points at stay while it does */
			unwind_files__keep(u, &rec->held);
		}
	} else if (rec) {
		rec->fingerprint = 0;
	}
out:
	/* what was not kept: the reading's files unless published */
	unwind_files__drop(u);
	free(all);
	free(small);
	return err;
}

int unwind_procs__add_pid(struct unwind_procs *u, pid_t pid)
{
	struct proc_rec *rec = rec_of(u, pid);
	int err = add_pid(u, pid, rec);

	u->stats.put_off += u->more;
	if (rec) {
		rec->status = err;
		if (!err && !rec->published_ns)
			rec->published_ns = monotonic_ns();
	}
	return err;
}

void unwind_procs__status(const struct unwind_procs *u, pid_t pid, struct unwind_pid_status *st)
{
	struct proc_rec key = { .pid = pid }, **slot = tfind(&key, &u->recs, cmp_rec);

	*st = (struct unwind_pid_status){ .err = -ENOENT };
	if (!slot)
		return;
	st->err = (*slot)->status;
	st->published = (*slot)->published_ns != 0;
	st->published_ns = (*slot)->published_ns;
}

static int cmp_key(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

struct gone_walk {
	struct unwind_procs *u;
	const __u32 *keys;	/* sorted */
	size_t nr;
};

static void release_if_gone(const void *node, VISIT which, void *ctx)
{
	struct proc_rec *r = *(struct proc_rec *const *)node;
	const struct gone_walk *w = ctx;
	__u32 key = (__u32)r->pid;

	if ((which == postorder || which == leaf) && r->held.nr &&
	    !bsearch(&key, w->keys, w->nr, sizeof(key), cmp_key))
		unwind_files__release(w->u, &r->held);
}

/*
 * The files held by entries that exit and exec deleted (keys: those still
 * in the map) let go: their rows may be reclaimed.
 */
static void release_gone(struct unwind_procs *u, __u32 *keys, size_t nr)
{
	struct gone_walk w = { .u = u, .keys = keys, .nr = nr };

	qsort(keys, nr, sizeof(*keys), cmp_key);
	twalk_r(u->recs, release_if_gone, &w);
}

/*
 * Delete the entries of processes that are gone, or whose pid is another
 * process's now: left by a race with their exit, nothing else would.
 */
size_t unwind_procs__sweep(struct unwind_procs *u)
{
	__u32 *keys = malloc(UNWIND_MAX_PROCS * sizeof(*keys)), *prev = NULL;
	struct proc_stat_info now;
	size_t nr = 0, n = 0;

	if (!keys)
		return 0;
	/* the keys first: a key deleted mid-walk would start the walk again */
	while (nr < UNWIND_MAX_PROCS && !bpf_map_get_next_key(u->procs_fd, prev, &keys[nr])) {
		prev = &keys[nr];
		nr++;
	}
	for (size_t i = 0; i < nr; i++) {
		struct proc_rec probe = { .pid = (pid_t)keys[i] }, **slot;
		int err = proc_stat__read(u->proc_root, probe.pid, &now);
		/* only what is sure: a live process's entry deleted waits long for the next */
		bool stale = err == -ENOENT || (!err && now.ended);

		if (!err && !stale) {
			slot = tfind(&probe, &u->recs, cmp_rec);
			stale = slot && (*slot)->fingerprint && (*slot)->start_time != now.start_time;
		}
		if (stale) {
			slot = tfind(&probe, &u->recs, cmp_rec);
			forget(u, keys[i], slot ? *slot : NULL);
			n++;
		}
	}
	release_gone(u, keys, nr);
	free(keys);
	u->stats.swept += n;
	return n;
}

void unwind_procs__set_debug_dirs(struct unwind_procs *u, const char *const *dirs, size_t nr)
{
	u->debug_dirs = dirs;
	u->nr_debug_dirs = nr;
}

void unwind_procs__set_notice(struct unwind_procs *u, unwind_notice_fn fn, void *ctx)
{
	u->notice = fn;
	u->notice_ctx = ctx;
}

void unwind_procs__set_denied(struct unwind_procs *u, unwind_denied_fn fn, void *ctx)
{
	u->denied = fn;
	u->denied_ctx = ctx;
}

bool unwind_procs__more(const struct unwind_procs *u, uid_t *uid)
{
	*uid = u->uid;
	return u->more;
}

int unwind_procs__uid(const struct unwind_procs *u, pid_t pid, uid_t *uid)
{
	return proc_stat__uid(u->proc_root, pid, uid);
}

bool unwind_procs__published(const struct unwind_procs *u, pid_t pid)
{
	struct unwind_proc *p = malloc(sizeof(*p));
	__u32 key = (__u32)pid;
	bool found;

	if (!p)
		return false;
	found = !bpf_map_lookup_elem(u->procs_fd, &key, p) && (p->nr || p->big);
	free(p);
	return found;
}

void unwind_procs__cancel(struct unwind_procs *u)
{
	__atomic_store_n(&u->cancel, 1, __ATOMIC_RELAXED);
}

void unwind_procs__stats(const struct unwind_procs *u, struct unwind_procs_stats *st)
{
	struct table_cache_stats cs = { 0 };
	struct row_store_stats rs;

	*st = u->stats;
	row_store__stats(u->rows, &rs);
	st->rows = rs.rows;
	st->reclaimed = rs.reclaimed;
	st->reclaimed_rows = rs.reclaimed_rows;
	st->row_quota = row_store__quota(u->rows);
	st->over_quota_uid = rs.over_quota_uid;
	if (u->cache)
		table_cache__stats(u->cache, &cs);
	st->evicted = cs.evicted;
	st->over_cap = cs.over_cap;
}

static void free_rec(void *p)
{
	struct proc_rec *r = p;

	free(r->held.files);
	free(r);
}

void unwind_procs__free(struct unwind_procs *u)
{
	if (!u)
		return;
	/* the blocks first: they point at files */
	row_store__free(u->rows);
	unwind_files__free(u);
	tdestroy(u->recs, free_rec);
	table_cache__free(u->cache);
	free(u);
}
