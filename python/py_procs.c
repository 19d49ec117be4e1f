// SPDX-License-Identifier: GPL-2.0
/*
 * py_procs.c - Python processes into the BPF side (py_procs.h): a look at
 * a process (what it maps: py_entry.c) published over a placeholder, the
 * records of what looks found (py_rec, in the kept and the quiet trees),
 * and the sweep that forgets them.
 */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "common/fnv.h"
#include "common/proc_stat.h"
#include "symbols/proc_maps.h"
#include "python/py_entry.h"
#include "python/py_files.h"
#include "python/py_procs.h"

/* Processes remembered as without an interpreter, at most */
#define MAX_QUIET 65536

/*
 * A process given an entry: which one (its generation, and its start
 * time where the look read it). Or, in the quiet tree, one looked at
 * without an interpreter found (err says why), with what its mappings
 * were then: looked at again only once it maps or unmaps something,
 * since every new stack of it is announced, and reading 60,000 mappings
 * each time costs 0.1 s of CPU. Freed by the sweep.
 */
struct py_rec {
	pid_t pid;
	uint32_t gen;		/* published, or looked at, for */
	uint64_t start_time;	/* 0: not read (a look at a reading handed over) */
	uint64_t vsize;		/* quiet: its address space's size then, where read */
	uint64_t digest;	/* quiet: of the mappings looked at (maps_digest()) */
	int err;		/* quiet: -ENOENT or -ENOTSUP */
};

struct py_procs {
	struct py_procs_opts o;
	int cancel;
	struct py_finder find;
	void *recs;		/* tsearch: struct py_rec, of the processes published */
	size_t nr_recs;
	void *quiet;		/* tsearch: struct py_rec, of those without an interpreter */
	size_t nr_quiet;
	struct py_procs_stats stats;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct py_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* An entry of the map changed: the BPF side's copies of entries are stale. */
static void entries_changed(struct py_procs *p)
{
	if (p->o.procs_epoch)
		__atomic_fetch_add(p->o.procs_epoch, 1, __ATOMIC_SEQ_CST);
}

struct py_procs *py_procs__new(const struct py_procs_opts *opts)
{
	struct py_procs *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->find.files = py_files__new(PY_FILES_MAX_INTERPS, PY_FILES_MAX_OTHERS);
	if (!p->find.files) {
		free(p);
		return NULL;
	}
	p->o = *opts;
	if (!p->o.proc_root)
		p->o.proc_root = "/proc";
	p->find.proc_root = p->o.proc_root;
	p->find.notice = p->o.notice;
	p->find.notice_ctx = p->o.notice_ctx;
	p->find.watch = p->o.watch;
	p->find.watch_ctx = p->o.watch_ctx;
	p->find.b = *budget__default();
	p->find.b.cancel = &p->cancel;
	return p;
}

static uint32_t current_gen(const struct py_procs *p, pid_t pid)
{
	return p->o.gen ? p->o.gen(pid, p->o.gen_ctx) : 1;
}

static struct py_rec *find_in(void **tree, pid_t pid)
{
	struct py_rec key = { .pid = pid }, **slot = tfind(&key, tree, cmp_rec);

	return slot ? *slot : NULL;
}

static struct py_rec *find_rec(struct py_procs *p, pid_t pid)
{
	return find_in(&p->recs, pid);
}

/*
 * What a look at mappings m depends on: each executable mapping's place,
 * file and name (py_entry.c looks at nothing else). FNV-1a: a process can
 * make its mappings collide with what they were, and so go without its
 * own Python frames; nobody else's.
 */
static uint64_t maps_digest(const struct proc_maps *m)
{
	__u64 h = fnv64_step(FNV64_OFFSET, m->nr);

	for (size_t i = 0; i < m->nr; i++) {
		const struct map_entry *e = &m->entries[i];

		h = fnv64_step(h, e->start);
		h = fnv64_step(h, e->end);
		h = fnv64_step(h, e->offset);
		h = fnv64_step(h, e->inode);
		h = fnv64_step(h, (__u64)e->dev_major << 32 | e->dev_minor);
		for (const char *c = e->path; *c; c++)
			h = fnv64_step(h, (unsigned char)*c);
		h = fnv64_step(h, 0x100);	/* no byte: where the path ends */
	}
	return h;
}

/* Remember that now's process had no interpreter we can read (err) in the mappings it had. */
static void keep_quiet(struct py_procs *p, const struct py_rec *now, int err)
{
	struct py_rec *r = find_in(&p->quiet, now->pid);

	if (!r) {
		if (p->nr_quiet == MAX_QUIET)
			return;	/* looked at again, each time it is announced */
		r = malloc(sizeof(*r));
		if (!r)
			return;
		r->pid = now->pid;
		if (!tsearch(r, &p->quiet, cmp_rec)) {
			free(r);
			return;
		}
		p->nr_quiet++;
	}
	*r = *now;
	r->err = err;
}

static void forget_quiet(struct py_procs *p, struct py_rec *r)
{
	tdelete(r, &p->quiet, cmp_rec);
	free(r);
	p->nr_quiet--;
}

/* Remember which process now's entry was published for: only Python's get one. */
static void keep_rec(struct py_procs *p, const struct py_rec *now)
{
	struct py_rec *r = find_rec(p, now->pid);

	if (!r) {
		r = malloc(sizeof(*r));
		if (!r)
			return;	/* its next look publishes it again */
		r->pid = now->pid;
		if (!tsearch(r, &p->recs, cmp_rec)) {
			free(r);
			return;
		}
		p->nr_recs++;
	}
	*r = (struct py_rec){ .pid = now->pid, .gen = now->gen, .start_time = now->start_time };
}

static void forget_rec(struct py_procs *p, struct py_rec *r)
{
	tdelete(r, &p->recs, cmp_rec);
	free(r);
	p->nr_recs--;
}

/* A placeholder entry first (gen 0: no Python frames), for exec and exit to delete. */
static int put_placeholder(struct py_procs *p, pid_t pid)
{
	struct py_proc entry = { 0 };
	__u32 key = (__u32)pid;

	if (!bpf_map_update_elem(p->o.procs_fd, &key, &entry, BPF_NOEXIST) || errno == EEXIST)
		return 0;
	if (errno == E2BIG)
		p->stats.full++;
	return -errno;
}

/*
 * pid's entry from its mappings m, of generation gen, over its
 * placeholder, put first where *placed is false (and then set): 0 when
 * published, else why not (-ESTALE: exec or exit deleted the
 * placeholder). A process without an interpreter (most) gets no
 * placeholder: there is nothing to publish over it.
 */
static int publish(struct py_procs *p, pid_t pid, uint32_t gen, const struct proc_maps *m,
		   bool *placed)
{
	struct py_proc entry = { 0 };
	__u32 key = (__u32)pid;
	int err = py_entry__find(&p->find, pid, m, &entry);

	if (err == -ENOTSUP)
		p->stats.unknown++;
	if (err)
		return err;
	if (!*placed && (err = put_placeholder(p, pid)))
		return err;
	*placed = true;
	entry.gen = gen;
	if (bpf_map_update_elem(p->o.procs_fd, &key, &entry, BPF_EXIST))
		err = errno == ENOENT ? -ESTALE : -errno;
	entries_changed(p);
	return err;
}

/*
 * After a look whose result is err: on failure its entry goes (the
 * placeholder, or one of another process: where placed says there may
 * be one) and, when it found no interpreter, what the process was is
 * noted quiet; on success it is recorded.
 */
static int settle(struct py_procs *p, const struct py_rec *now, int err, bool placed)
{
	struct py_rec *quiet = find_in(&p->quiet, now->pid);
	__u32 key = (__u32)now->pid;

	if (err && placed) {
		bpf_map_delete_elem(p->o.procs_fd, &key);
		entries_changed(p);
	}
	if (err) {
		if (err == -ENOENT || err == -ENOTSUP)
			keep_quiet(p, now, err);
		return err;
	}
	if (quiet)
		forget_quiet(p, quiet);
	p->stats.procs++;
	keep_rec(p, now);
	return 0;
}

int py_procs__add_pid(struct py_procs *p, pid_t pid)
{
	struct py_rec *rec = find_rec(p, pid), *quiet = find_in(&p->quiet, pid), now;
	struct proc_stat_info before, after;
	struct proc_maps m = { 0 };
	struct py_proc old;
	__u32 key = (__u32)pid;
	char path[64];
	bool had, placed;
	int err;

	err = proc_stat__read(p->o.proc_root, pid, &before);
	if (err == -ENOENT || (!err && before.ended))
		return -ESRCH;
	if (err)
		return err;
	had = !bpf_map_lookup_elem(p->o.procs_fd, &key, &old);
	now = (struct py_rec){ .pid = pid, .gen = current_gen(p, pid),
			       .start_time = before.start_time, .vsize = before.vsize };
	if (!now.gen)
		return -ESRCH;
	/* this very process, published in this generation: nothing new */
	if (had && old.gen && rec && rec->start_time == now.start_time && rec->gen == now.gen)
		return 0;
	/* ... or looked at in it, without an interpreter, and nothing mapped since */
	if (quiet && quiet->start_time == now.start_time && quiet->gen == now.gen &&
	    quiet->vsize == now.vsize) {
		p->stats.unchanged++;
		return quiet->err;
	}
	if (!had && (err = put_placeholder(p, pid)))
		return err;
	snprintf(path, sizeof(path), "%s/%d/maps", p->o.proc_root, (int)pid);
	err = proc_maps__load_file(path, &m);
	if (err)	/* not looked at: nothing noted */
		return settle(p, &now, err == -ENOENT ? -ESRCH : err, true);
	p->stats.read_self++;
	now.digest = maps_digest(&m);
	placed = true;
	err = publish(p, pid, now.gen, &m, &placed);
	proc_maps__release(&m);
	/* an exit or exec between the first look and the placeholder found nothing to delete */
	if (!err && (proc_stat__read(p->o.proc_root, pid, &after) || after.ended ||
		     after.start_time != before.start_time || current_gen(p, pid) != now.gen))
		err = -ESRCH;
	return settle(p, &now, err, true);
}

/*
 * The same from maps, a reading of pid's mappings made while it ran
 * generation gen (usyms__add_gen_shared checks the generation before and
 * after it reads), with no read of /proc here, not even of
 * /proc/PID/stat, which py_procs__add_pid() reads before and after to
 * tell that pid is still the process it looked at. Here the generation
 * tells it, from the BPF side's pid_gen map: generation numbers are never
 * handed out twice (per CPU sequences, seq * nr_cpus + cpu); the group
 * leader's exit deletes the pid's before it is a zombie (on_exit), so a
 * zombie, an exited process and a pid reused (only once reaped, after
 * that exit) all run another generation or none; exec gives a new one
 * (on_exec). So "pid runs gen" before the placeholder and after the
 * publish says what the start time and the zombie state said, and more
 * (exec, which keeps the start time). The race with exec is closed by the
 * order on_exec keeps: the new generation first, then the deletion of
 * the entry, so either the check after the publish sees the new
 * generation, or the deletion comes after the publish. The records need
 * no start time: (pid, gen) names one process image. What the stat read
 * gave the quiet check (the size of the address space) a digest of the
 * reading gives, exactly for what a look depends on.
 */
int py_procs__add_pid_maps(struct py_procs *p, pid_t pid, uint32_t gen, const struct proc_maps *m)
{
	struct py_rec *rec = find_rec(p, pid), *quiet = find_in(&p->quiet, pid);
	struct py_rec now = { .pid = pid, .gen = gen };
	struct py_proc old;
	__u32 key = (__u32)pid;
	bool had, placed;
	int err;

	if (!gen || current_gen(p, pid) != gen)
		return -ESRCH;
	had = !bpf_map_lookup_elem(p->o.procs_fd, &key, &old);
	if (had && old.gen && rec && rec->gen == gen)
		return 0;
	now.digest = maps_digest(m);
	if (quiet && quiet->gen == gen && quiet->digest == now.digest) {
		p->stats.unchanged++;
		return quiet->err;
	}
	placed = had;
	p->stats.given++;
	err = publish(p, pid, gen, m, &placed);
	if (!err && current_gen(p, pid) != gen)
		err = -ESRCH;
	return settle(p, &now, err, placed);
}

static int cmp_key(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* The records of the processes without an entry now, gathered by twalk_r(). */
struct unkept {
	const __u32 *keys;	/* the entries left, sorted */
	size_t nr_keys;
	struct py_rec **recs;
	size_t nr;
};

static void note_unkept(const void *node, VISIT which, void *ctx)
{
	struct py_rec *r = *(struct py_rec *const *)node;
	struct unkept *u = ctx;
	__u32 key = (__u32)r->pid;

	if (which != postorder && which != leaf)
		return;
	if (!bsearch(&key, u->keys, u->nr_keys, sizeof(key), cmp_key))
		u->recs[u->nr++] = r;
}

/* The quiet records of generations gone (exit, exec), gathered by twalk_r(). */
struct gone {
	struct py_procs *p;
	struct py_rec **recs;
	size_t nr;
};

static void note_gone(const void *node, VISIT which, void *ctx)
{
	struct py_rec *r = *(struct py_rec *const *)node;
	struct gone *g = ctx;

	if (which != postorder && which != leaf)
		return;
	if (current_gen(g->p, r->pid) != r->gen)
		g->recs[g->nr++] = r;
}

static void forget_gone(struct py_procs *p)
{
	struct gone g = { .p = p };

	if (!p->nr_quiet)
		return;
	g.recs = malloc(p->nr_quiet * sizeof(*g.recs));
	if (!g.recs)
		return;
	twalk_r(p->quiet, note_gone, &g);
	for (size_t i = 0; i < g.nr; i++)
		forget_quiet(p, g.recs[i]);
	free(g.recs);
}

/* Forget the records of processes whose entry is gone (exit, exec, the sweep). */
static void forget_unkept(struct py_procs *p, __u32 *keys, size_t nr_keys)
{
	struct unkept u = { .keys = keys, .nr_keys = nr_keys };

	if (!p->nr_recs)
		return;
	u.recs = malloc(p->nr_recs * sizeof(*u.recs));
	if (!u.recs)
		return;
	qsort(keys, nr_keys, sizeof(*keys), cmp_key);
	twalk_r(p->recs, note_unkept, &u);
	for (size_t i = 0; i < u.nr; i++)
		forget_rec(p, u.recs[i]);
	free(u.recs);
}

size_t py_procs__sweep(struct py_procs *p)
{
	__u32 *keys = malloc(PY_MAX_PROCS * sizeof(*keys)), *prev = NULL;
	struct proc_stat_info now;
	size_t nr = 0, kept = 0, n = 0;

	if (!keys)
		return 0;
	while (nr < PY_MAX_PROCS && !bpf_map_get_next_key(p->o.procs_fd, prev, &keys[nr])) {
		prev = &keys[nr];
		nr++;
	}
	for (size_t i = 0; i < nr; i++) {
		pid_t pid = (pid_t)keys[i];
		struct py_rec *r = find_rec(p, pid);
		int err = proc_stat__read(p->o.proc_root, pid, &now);
		bool stale = err == -ENOENT || (!err && now.ended);

		/* its pid another process's (start time), or its generation gone (exit, exec) */
		if (!err && !stale && r && r->gen)
			stale = (r->start_time && r->start_time != now.start_time) ||
				current_gen(p, pid) != r->gen;
		if (stale) {
			bpf_map_delete_elem(p->o.procs_fd, &keys[i]);
			entries_changed(p);
			n++;
		} else {
			keys[kept++] = keys[i];
		}
	}
	forget_unkept(p, keys, kept);
	forget_gone(p);
	free(keys);
	p->stats.swept += n;
	return n;
}

void py_procs__cancel(struct py_procs *p)
{
	__atomic_store_n(&p->cancel, 1, __ATOMIC_RELAXED);
}

void py_procs__stats(const struct py_procs *p, struct py_procs_stats *st)
{
	struct py_files_stats f;

	py_files__stats(p->find.files, &f);
	*st = p->stats;
	st->files = p->find.files_read;
	st->interpreters = p->find.interpreters;
	st->cut = p->find.cut;
	st->opened = p->find.opened;
	st->watched = p->find.watched;
	st->unwatched = p->find.unwatched;
	st->forgotten = f.forgotten;
	st->kept_files = f.interps + f.others;
	st->kept_procs = p->nr_recs;
	st->kept_quiet = p->nr_quiet;
}

void py_procs__free(struct py_procs *p)
{
	if (!p)
		return;
	py_files__free(p->find.files);
	tdestroy(p->recs, free);
	tdestroy(p->quiet, free);
	free(p);
}
