// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_procs.c - unwind tables of sampled processes into the BPF maps
 * (unwind_procs.h): each process's executable mappings, from a reading of
 * /proc/PID/maps made by the caller, published as its entry (and big
 * entry) when they changed or a walk asked for a table; the entries of
 * processes gone are swept by unwind_sweep.c, the files' tables are
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
#include "unwind/proc_recs.h"
#include "unwind/table_cache.h"
#include "unwind/unwind_procs_internal.h"

#define UNWIND_MAX_EH_FRAME (64ull << 20)
/* A debug file found by .gnu_debuglink is checksummed whole: 256 MiB, ~0.1 s. */
#define UNWIND_MAX_DEBUGLINK_CRC (256ull << 20)

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

void unwind_procs__set_gen_fn(struct unwind_procs *u, unwind_gen_fn fn, void *ctx)
{
	u->gen_fn = fn;
	u->gen_ctx = ctx;
}

/*
 * Build the tables the walks asked for in pid's entry now (profile.h:
 * UNWIND_MAP_ASKED), of the files mapped where rec's reading has them.
 */
static void build_asked(struct unwind_procs *u, pid_t pid, struct proc_rec *rec,
			struct unwind_proc *small, struct unwind_proc_big *big)
{
	__u32 key = (__u32)pid;

	if (!rec->reading.nr || bpf_map_lookup_elem(u->procs_fd, &key, small))
		return;
	if (!small->big)
		unwind_reading__build_asked(u, pid, &rec->reading, small->maps, small->nr);
	else if (!bpf_map_lookup_elem(u->big_fd, &key, big))
		unwind_reading__build_asked(u, pid, &rec->reading, big->maps, big->nr);
	memset(small, 0, sizeof(*small));
	big->nr = 0;
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
 *
 * No entry inherits another's UNWIND_MAP_WANT or ASKED, though the
 * kernel reuses the memory of deleted elements (preallocated or not):
 * the BPF side never creates an entry (it looks up, sets ASKED and
 * reread_ns in place, deletes), and every update here, the placeholder's
 * included, hands the kernel a whole value made afresh (small zeroed,
 * each mapping of all zeroed by unwind_files__map(), ASKED only where
 * this pid's own entry asked: unwind_reading__fill()), which the kernel
 * copies whole into the element it links. What this does not rule out:
 * a walk on another CPU that looked an entry up before it was deleted
 * (its leader's exit, the sweep) or replaced (here) may set ASKED in
 * the element after the kernel gave it to another entry, within the few
 * microseconds of that walk; that mapping then goes unasked until the
 * entry is published again.
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
void unwind_procs__forget(struct unwind_procs *u, __u32 key, struct proc_rec *rec)
{
	bpf_map_delete_elem(u->procs_fd, &key);
	bpf_map_delete_elem(u->big_fd, &key);
	if (rec)
		unwind_files__release(u, &rec->held);
}

/* rec's process is gone: its entries deleted (if any is left), its record let go. */
void unwind_procs__let_go(struct unwind_procs *u, struct proc_rec *rec)
{
	unwind_procs__forget(u, (__u32)rec->pid, rec);
	proc_recs__let_go(&u->recs, rec);
}

/* Whether pid runs generation gen (0: not known, not checked). */
static bool gen_current(const struct unwind_procs *u, pid_t pid, uint32_t gen)
{
	return !gen || !u->gen_fn || u->gen_fn(pid, u->gen_ctx) == gen;
}

/*
 * Whether rec's process is told by the generation gen of its reading (and
 * of its entry, if published): exit deletes it before the zombie, exec and
 * a pid reused get another, never the same twice (python/py_procs.c): what
 * /proc/PID/stat's state and start time tell, without reading it.
 */
static bool by_gen(const struct unwind_procs *u, const struct proc_rec *rec, uint32_t gen)
{
	return gen && u->gen_fn && (!rec->fingerprint || rec->pub_gen);
}

/*
 * Whether pid still runs rec's reading's image, no zombie: 0, -ESRCH, or
 * -ESTALE (by_gen(): it exec'd, or the pid is another's); else its start
 * time in *start_time.
 */
static int still_running(const struct unwind_procs *u, pid_t pid, const struct proc_rec *rec,
			 uint32_t gen, uint64_t *start_time)
{
	struct proc_stat_info now;
	uint32_t g;
	int err;

	*start_time = 0;
	if (by_gen(u, rec, gen)) {
		g = u->gen_fn(pid, u->gen_ctx);
		return !g ? -ESRCH : g != gen ? -ESTALE : 0;
	}
	err = proc_stat__read(u->proc_root, pid, &now);
	if (err == -ENOENT || (!err && now.ended))
		return -ESRCH;
	if (err)
		return err;
	*start_time = now.start_time;
	return 0;
}

/*
 * Publish pid's entry from rec's reading (a new one when fresh: its files
 * are met now), unless it holds the same already. A fresh reading makes a
 * placeholder first where there is no entry; otherwise there must be one
 * (exec and exit delete it).
 */
static int publish_rec(struct unwind_procs *u, pid_t pid, struct proc_rec *rec, bool fresh,
		       struct unwind_proc *small, struct unwind_proc_big *all)
{
	uint32_t gen = rec->reading.gen;
	bool had, partial = false, gens = by_gen(u, rec, gen);
	uint64_t before, after;
	__u32 key = (__u32)pid;
	uint64_t fp;
	int err;

	/* a process gone, or a zombie (its maps read empty), gets no entry */
	err = still_running(u, pid, rec, gen, &before);
	if (err)
		return err;
	had = !bpf_map_lookup_elem(u->procs_fd, &key, small);
	if (had && rec->fingerprint && (gens ? rec->pub_gen != gen : rec->start_time != before)) {
		/* another process's entry, left by a race with its exit */
		unwind_procs__forget(u, key, rec);
		had = false;
	}
	if (!had && !fresh)
		return -ESTALE;
	/* a placeholder first (nr 0: frame pointers), for exec to delete */
	memset(small, 0, sizeof(*small));
	if (!had && bpf_map_update_elem(u->procs_fd, &key, small, BPF_NOEXIST) && errno != EEXIST) {
		err = -errno;
		if (err == -E2BIG)
			u->stats.procs_full++;
		return err;
	}
	/*
	 * The reading was made before the placeholder: an exec since makes a
	 * new generation, then deletes the entry (profile.bpf.c). Either this
	 * sees the new one, or the entry is gone and the update below fails.
	 */
	if (!gen_current(u, pid, rec->reading.gen)) {
		err = -ESTALE;
		goto out;
	}
	if (fresh)
		unwind_reading__meet_files(u, pid, &rec->reading);
	unwind_reading__fill(u, &rec->reading, all, &partial);
	/* no executable mapping: it exited before the reading (a zombie's maps are empty) */
	if (!all->nr) {
		err = -ESRCH;
		goto out;
	}
	fp = fingerprint_of(all, partial);
	if (had && rec->fingerprint == fp) {
		/* the same mappings as published: nothing to do */
		u->stats.unchanged += fresh;
		return 0;
	}
	err = publish(u, key, all, &partial, small);
	/*
	 * An exit between the first reading of its state and the placeholder
	 * found no entry to delete: this one would stay until the pid is
	 * reused. Look again, now that the entry is there.
	 */
	if (!err && (still_running(u, pid, rec, gen, &after) || after != before))
		err = -ESRCH;
	if (!err) {
		/* a reading's first publishing; again for the tables asked, not counted */
		if (fresh) {
			u->stats.procs++;
			u->stats.partial_procs += partial;
			u->stats.vdso += unwind_files__has_vdso(u, all);
		}
		rec->start_time = before;
		rec->pub_gen = gens ? gen : 0;
		rec->fingerprint = fp;
		return 0;
	}
out:
	if (!had || err == -ESRCH)
		unwind_procs__forget(u, key, rec);
	rec->fingerprint = 0;
	return err;
}

/*
 * pid's entry: the tables its walks asked for built (charged to its uid),
 * then published again from maps (a new reading, made in generation
 * gen), or from the last reading (maps NULL). The files the entry points
 * at are held while it is there.
 */
static int update(struct unwind_procs *u, pid_t pid, uint32_t gen, uint32_t uid,
		  const struct proc_maps *maps)
{
	struct unwind_proc_big *all = calloc(1, sizeof(*all));
	struct unwind_proc *small = calloc(1, sizeof(*small));
	struct proc_rec *rec = proc_recs__of(&u->recs, pid);
	int err = -ENOMEM;

	unwind_files__begin(u);
	if (!all || !small || !rec)
		goto out;
	/*
	 * whose: its new tables are charged to it; the sampled task's, or the
	 * one its last reading came with, else read
	 */
	if (uid == MAPS_UID_UNKNOWN && rec->uid_gen && rec->uid_gen == rec->reading.gen)
		uid = rec->uid;
	if (uid != MAPS_UID_UNKNOWN) {
		u->uid = uid;
		err = 0;
	} else {
		err = proc_stat__uid(u->proc_root, pid, &u->uid);
		if (err == -ENOENT)
			err = -ESRCH;
	}
	/* with the reading they were asked in: a new one may lack them */
	if (!err)
		build_asked(u, pid, rec, small, all);
	if (!err && maps)
		err = unwind_reading__take(&rec->reading, maps, gen);
	if (!err && maps && gen) {
		rec->uid = u->uid;
		rec->uid_gen = gen;
	}
	if (!err && !rec->reading.nr)
		err = maps ? -ESRCH : -ENOENT;
	/* no executable mapping: it exited before the reading (a zombie's maps are empty) */
	if (err == -ESRCH)
		unwind_procs__forget(u, (__u32)pid, rec);
	if (!err)
		err = publish_rec(u, pid, rec, maps != NULL, small, all);
	/* the rows its entry points at stay while it does */
	if (!err)
		unwind_files__keep(u, &rec->held);
	rec->status = err;
	if (!err && !rec->published_ns)
		rec->published_ns = monotonic_ns();
out:
	/* what was not kept: the reading's files unless published */
	unwind_files__drop(u);
	u->stats.put_off += u->more;
	/* gone, or a zombie: nothing more will be published for it */
	if (rec && err == -ESRCH)
		unwind_procs__let_go(u, rec);
	free(all);
	free(small);
	return err;
}

int unwind_procs__add_maps(struct unwind_procs *u, pid_t pid, uint32_t gen, uint32_t uid,
			   const struct proc_maps *maps)
{
	u->stats.readings++;
	return update(u, pid, gen, uid, maps);
}

int unwind_procs__add_pid(struct unwind_procs *u, pid_t pid)
{
	struct proc_maps maps;
	char path[64];
	int err;

	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)pid);
	err = proc_maps__load_file(path, &maps);
	if (err) {
		struct proc_rec *rec = proc_recs__of(&u->recs, pid);

		err = err == -ENOENT ? -ESRCH : err;
		if (rec)
			rec->status = err;
		if (rec && err == -ESRCH)
			unwind_procs__let_go(u, rec);
		return err;
	}
	err = unwind_procs__add_maps(u, pid, 0, MAPS_UID_UNKNOWN, &maps);
	proc_maps__release(&maps);
	return err;
}

int unwind_procs__load_asked(struct unwind_procs *u, pid_t pid)
{
	return update(u, pid, 0, MAPS_UID_UNKNOWN, NULL);
}

void unwind_procs__status(const struct unwind_procs *u, pid_t pid, struct unwind_pid_status *st)
{
	proc_recs__status(&u->recs, pid, st);
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
	st->records = u->recs.nr;
	st->records_gone = u->recs.nr_gone;
	if (u->cache)
		table_cache__stats(u->cache, &cs);
	st->evicted = cs.evicted;
	st->over_cap = cs.over_cap;
}

void unwind_procs__free(struct unwind_procs *u)
{
	if (!u)
		return;
	/* the blocks first: they point at files */
	row_store__free(u->rows);
	unwind_files__free(u);
	proc_recs__free(&u->recs);
	table_cache__free(u->cache);
	free(u);
}
