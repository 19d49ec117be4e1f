// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_sweep.c - the entries of processes gone, swept from the BPF maps
 * (each interval): left by a race with their exit, nothing else would
 * delete them; and the records of the tables worker (proc_recs.h) of
 * processes gone, or without an entry.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <bpf/bpf.h>

#include "common/proc_stat.h"
#include "unwind/proc_recs.h"
#include "unwind/unwind_procs_internal.h"

static int cmp_key(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* Whether rec's process is gone: exited, a zombie, or its pid another's now. */
static bool rec_gone(const struct unwind_procs *u, const struct proc_rec *rec)
{
	struct proc_stat_info now;
	int err = proc_stat__read(u->proc_root, rec->pid, &now);

	if (err)
		return err == -ENOENT;
	/* an exec too, where known by the generation: its record goes, the new image gets one */
	if (rec->pub_gen && u->gen_fn(rec->pid, u->gen_ctx) != rec->pub_gen)
		return true;
	return now.ended || (rec->start_time && rec->start_time != now.start_time);
}

/*
 * The records of processes without an entry (keys, sorted, all of them
 * unless !all): one whose process is gone is let go, so that records do
 * not pile up with process churn; one of a live process (an exec
 * deleted its entry, or the map was full) lets go of the files it held,
 * their rows then reclaimable, and keeps no reading: a new one comes
 * with the next. Without all, an entry may have been missed: only the
 * records of processes gone are let go (their entries with them).
 */
static void sweep_recs(struct unwind_procs *u, const __u32 *keys, size_t nr, bool all)
{
	size_t nr_recs;
	struct proc_rec **recs = proc_recs__gather(&u->recs, &nr_recs);

	/* no memory: the next sweep */
	for (size_t i = 0; recs && i < nr_recs; i++) {
		struct proc_rec *r = recs[i];
		__u32 key = (__u32)r->pid;

		if (bsearch(&key, keys, nr, sizeof(key), cmp_key))
			continue;
		if (rec_gone(u, r)) {
			unwind_procs__let_go(u, r);
		} else if (all) {
			unwind_files__release(u, &r->held);
			unwind_reading__release(&r->reading);
		}
	}
	free(recs);
}

/*
 * Delete the entries of processes that are gone, or whose pid is another
 * process's now: left by a race with their exit, nothing else would. The
 * readings of processes without an entry (exec and exit delete it) go
 * too, and the records of processes gone.
 */
size_t unwind_procs__sweep(struct unwind_procs *u)
{
	__u32 *keys = malloc(UNWIND_MAX_PROCS * sizeof(*keys)), *prev = NULL;
	struct proc_stat_info now;
	size_t nr = 0, n = 0;
	bool all;

	if (!keys)
		return 0;
	/* the keys first: a key deleted mid-walk would start the walk again */
	while (nr < UNWIND_MAX_PROCS && !bpf_map_get_next_key(u->procs_fd, prev, &keys[nr])) {
		prev = &keys[nr];
		nr++;
	}
	all = nr < UNWIND_MAX_PROCS;
	for (size_t i = 0; i < nr; i++) {
		struct proc_rec *rec = proc_recs__find(&u->recs, (pid_t)keys[i]);
		int err = proc_stat__read(u->proc_root, (pid_t)keys[i], &now);
		/* only what is sure: a live process's entry deleted waits long for the next */
		bool stale = err == -ENOENT || (!err && now.ended);

		/* another process's or image's, by what its entry was published with */
		if (!err && !stale && rec && rec->fingerprint && rec->pub_gen)
			stale = u->gen_fn((pid_t)keys[i], u->gen_ctx) != rec->pub_gen;
		else if (!err && !stale && rec && rec->fingerprint)
			stale = rec->start_time != now.start_time;
		if (stale) {
			if (rec)
				unwind_procs__let_go(u, rec);
			else
				unwind_procs__forget(u, keys[i], NULL);
			keys[i] = 0;	/* no process has pid 0's entry */
			n++;
		}
	}
	qsort(keys, nr, sizeof(*keys), cmp_key);
	sweep_recs(u, keys, nr, all);
	free(keys);
	u->stats.swept += n;
	return n;
}
