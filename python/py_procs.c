// SPDX-License-Identifier: GPL-2.0
/*
 * py_procs.c - Python processes into the BPF side (py_procs.h).
 *
 * Past 600 lines on purpose (by a few): the look at a process, the records
 * of what it found (py_rec, in the kept and the quiet trees) and the sweep
 * that forgets them share those trees; reading the files and the
 * interpreters' layouts are already in py_files.c, py_elf.c, py_layout.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "common/file_stamp.h"
#include "common/proc_stat.h"
#include "symbols/proc_maps.h"
#include "python/py_elf.h"
#include "python/py_files.h"
#include "python/py_layout.h"
#include "python/py_procs.h"
#include "symbols/rootfs.h"

/* Versions told of, at most: one line each. */
#define MAX_TOLD 32
/* Processes remembered as without an interpreter, at most */
#define MAX_QUIET 65536

/*
 * A process given an entry: which one (its start time). Or, in the quiet
 * tree, one looked at without an interpreter found (err says why), with
 * its size then: looked at again only once it maps or unmaps something,
 * since every new stack of it is announced, and reading 60,000 mappings
 * each time costs 0.1 s of CPU. Freed by the sweep.
 */
struct py_rec {
	pid_t pid;
	uint64_t start_time;
	uint32_t gen;		/* published, or looked at, for */
	uint64_t vsize;		/* quiet: its address space's size then */
	int err;		/* quiet: -ENOENT or -ENOTSUP */
};

struct py_procs {
	struct py_procs_opts o;
	struct budget b;
	int cancel;
	struct py_files *files;
	void *recs;		/* tsearch: struct py_rec, of the processes published */
	size_t nr_recs;
	void *quiet;		/* tsearch: struct py_rec, of those without an interpreter */
	size_t nr_quiet;
	uint32_t told[MAX_TOLD];
	size_t nr_told;
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
	p->files = py_files__new(PY_FILES_MAX_INTERPS, PY_FILES_MAX_OTHERS);
	if (!p->files) {
		free(p);
		return NULL;
	}
	p->o = *opts;
	if (!p->o.proc_root)
		p->o.proc_root = "/proc";
	p->b = *budget__default();
	p->b.cancel = &p->cancel;
	return p;
}

static void notice(struct py_procs *p, const char *what, const char *why)
{
	if (p->o.notice)
		p->o.notice(what, why, p->o.notice_ctx);
}

/*
 * The file of mapping e of pid, as the process maps it: its map_files
 * link (root, CAP_CHECKPOINT_RESTORE), else its path under the process's
 * root if that is still the inode mapped. -errno when neither.
 */
static int open_mapped(struct py_procs *p, pid_t pid, const struct map_entry *e, struct stat *st)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", p->o.proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (!fstat(fd, st) && S_ISREG(st->st_mode))
			return fd;
		close(fd);
		return -EPERM;
	}
	snprintf(path, sizeof(path), "%s/%d/root", p->o.proc_root, (int)pid);
	fd = rootfs__open_regular(path, e->path, 0, st);
	if (fd < 0)
		return fd;
	if (!file_stamp__is_mapped(fd, st, e->dev_major, e->dev_minor, e->inode)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* The file of e, read the first time it is met. NULL: unreadable. */
static const struct py_file *file_of(struct py_procs *p, pid_t pid, const struct map_entry *e)
{
	const struct py_file *f;
	struct file_stamp id;
	struct py_elf pe;
	struct stat st;
	int fd, status;

	/* known by the reading's stamp: not opened again */
	if (e->stamped) {
		f = py_files__find(p->files, &e->stamp);
		if (f)
			return f;
	}
	fd = open_mapped(p, pid, e, &st);
	if (fd < 0)
		return NULL;
	file_stamp__init(&id, &st);
	f = py_files__find(p->files, &id);
	if (f) {
		close(fd);
		return f;
	}
	status = py_elf__read_fd(fd, &p->b, &pe);
	close(fd);
	if (status == -ECANCELED)
		return NULL;
	p->stats.files++;
	p->stats.interpreters += !status;
	return py_files__add(p->files, &id, status, &pe);
}

/*
 * One look at a process's mappings: the files it opened, at most
 * PY_FILES_PER_LOOK, by the device and inode the maps name; those found
 * without an interpreter are not opened again for another mapping.
 */
struct look {
	struct look_file {
		uint64_t ino;
		unsigned int major, minor;
	} seen[PY_FILES_PER_LOOK];	/* sorted */
	size_t nr, opened;
};

static int cmp_look_file(const struct look_file *a, const struct look_file *b)
{
	if (a->ino != b->ino)
		return (a->ino > b->ino) - (a->ino < b->ino);
	if (a->major != b->major)
		return (a->major > b->major) - (a->major < b->major);
	return (a->minor > b->minor) - (a->minor < b->minor);
}

/* Where e's file is in l->seen, or would go; *found whether it is there. */
static size_t look_find(const struct look *l, const struct look_file *k, bool *found)
{
	size_t lo = 0, hi = l->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_look_file(k, &l->seen[mid]);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

/*
 * The file of mapping e if it holds an interpreter, else NULL; -E2BIG in
 * *err when the look has opened PY_FILES_PER_LOOK files already.
 */
static const struct py_file *look_at(struct py_procs *p, pid_t pid, const struct map_entry *e,
				     struct look *l, int *err)
{
	struct look_file k = { .ino = e->inode, .major = e->dev_major, .minor = e->dev_minor };
	const struct py_file *f;
	bool found;
	size_t at = look_find(l, &k, &found);

	*err = 0;
	if (found)
		return NULL;
	if (l->opened == PY_FILES_PER_LOOK) {
		*err = -E2BIG;
		return NULL;
	}
	l->opened++;
	f = file_of(p, pid, e);
	if (f && !f->status)
		return f;	/* another mapping of it may be at another bias: not skipped */
	memmove(&l->seen[at + 1], &l->seen[at], (l->nr - at) * sizeof(l->seen[0]));
	l->seen[at] = k;
	l->nr++;
	return NULL;
}

/* A file whose name says it is likely the interpreter: python3.X, libpython3.X.so. */
static bool named_python(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "python", 6) || !strncmp(base, "libpython", 9);
}

/*
 * The layout of f's interpreter: 3.13 on describe theirs in
 * _Py_DebugOffsets, the first bytes of _PyRuntime; before, ours.
 */
static int layout_of(const struct py_file *f, struct py_layout *l)
{
	const struct py_elf *pe = f->pe;

	if (pe->version >= PY_VERSION(3, 13))
		return py_layout__from_debug_offsets(pe->runtime_bytes, pe->nr_runtime_bytes,
						     pe->version, l);
	return py_layout__for_version(pe->version, l);
}

/* Say once per version that it has no layout here, and why. */
static void tell_unknown(struct py_procs *p, uint32_t version, const char *path, int err)
{
	char what[600], ver[32];

	for (size_t i = 0; i < p->nr_told; i++)
		if (p->told[i] == version)
			return;
	if (p->nr_told < MAX_TOLD)
		p->told[p->nr_told++] = version;
	if (version)
		snprintf(what, sizeof(what), "Python %s (%s)",
			 py_layout__version_str(version, ver, sizeof(ver)), path);
	else
		snprintf(what, sizeof(what), "Python before 3.11 (%s, no Py_Version)", path);
	notice(p, what, err == -EINVAL ?
	       "its _Py_DebugOffsets are missing or not its version's: native frames only" :
	       "a version whose frames profile cannot read: native frames only");
}

/* The entry of pid, from interpreter f mapped by e. -ENOTSUP: a version we do not know. */
static int entry_from(struct py_procs *p, const struct py_file *f, const struct map_entry *e,
		      uint64_t bias, struct py_proc *out)
{
	const struct py_elf *pe = f->pe;
	int err = layout_of(f, &out->l);

	if (err || !py_layout__valid(&out->l)) {
		tell_unknown(p, pe->version, e->path, err);
		return -ENOTSUP;
	}
	out->version = pe->version;
	out->runtime = pe->runtime + bias;
	if (pe->code_type)
		out->code_type = pe->code_type + bias;
	if (pe->eval_end) {
		out->eval_start = pe->eval_start + bias;
		out->eval_end = pe->eval_end + bias;
	}
	if (pe->cold_end) {
		out->cold_start = pe->cold_start + bias;
		out->cold_end = pe->cold_end + bias;
	}
	return 0;
}

/*
 * The entry of pid from its mappings m: its interpreter, where it is
 * mapped. Files named like one are looked at first, then the others (the
 * interpreter is found by its symbols, whatever its name), at most
 * PY_FILES_PER_LOOK of them. -ENOENT: none; -ENOTSUP: a version we do
 * not know.
 */
static int entry_of(struct py_procs *p, pid_t pid, const struct proc_maps *m, struct py_proc *out)
{
	struct look l = { 0 };

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < m->nr; i++) {
			const struct map_entry *e = &m->entries[i];
			const struct py_file *f;
			uint64_t bias;
			int cut;

			if (e->path[0] != '/' || named_python(e->path) != !pass)
				continue;
			f = look_at(p, pid, e, &l, &cut);
			if (cut) {
				p->stats.cut++;
				return -ENOENT;
			}
			if (f && py_elf__bias(f->pe, e->start, e->offset, &bias))
				return entry_from(p, f, e, bias, out);
		}
	}
	return -ENOENT;
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

/* Remember that pid, as before says, had no interpreter we can read in generation gen. */
static void keep_quiet(struct py_procs *p, pid_t pid, const struct proc_stat_info *before,
		       uint32_t gen, int err)
{
	struct py_rec *r = find_in(&p->quiet, pid);

	if (!r) {
		if (p->nr_quiet == MAX_QUIET)
			return;	/* looked at again, each time it is announced */
		r = calloc(1, sizeof(*r));
		if (!r)
			return;
		r->pid = pid;
		if (!tsearch(r, &p->quiet, cmp_rec)) {
			free(r);
			return;
		}
		p->nr_quiet++;
	}
	r->start_time = before->start_time;
	r->vsize = before->vsize;
	r->gen = gen;
	r->err = err;
}

static void forget_quiet(struct py_procs *p, struct py_rec *r)
{
	tdelete(r, &p->quiet, cmp_rec);
	free(r);
	p->nr_quiet--;
}

/* Remember which process pid's entry was published for: only Python's get one. */
static void keep_rec(struct py_procs *p, pid_t pid, uint64_t start_time, uint32_t gen)
{
	struct py_rec *r = find_rec(p, pid);

	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return;	/* its next look publishes it again */
		r->pid = pid;
		if (!tsearch(r, &p->recs, cmp_rec)) {
			free(r);
			return;
		}
		p->nr_recs++;
	}
	r->start_time = start_time;
	r->gen = gen;
}

static void forget_rec(struct py_procs *p, struct py_rec *r)
{
	tdelete(r, &p->recs, cmp_rec);
	free(r);
	p->nr_recs--;
}

int py_procs__add_pid(struct py_procs *p, pid_t pid)
{
	struct py_proc entry = { 0 }, old;
	struct proc_stat_info before, after;
	struct proc_maps m = { 0 };
	struct py_rec *rec = find_rec(p, pid), *quiet = find_in(&p->quiet, pid);
	__u32 key = (__u32)pid;
	bool had, looked = false;
	char path[64];
	uint32_t gen;
	int err;

	err = proc_stat__read(p->o.proc_root, pid, &before);
	if (err == -ENOENT || (!err && before.ended))
		return -ESRCH;
	if (err)
		return err;
	had = !bpf_map_lookup_elem(p->o.procs_fd, &key, &old);
	gen = current_gen(p, pid);
	if (!gen)
		return -ESRCH;
	/* this very process, published in this generation: nothing new */
	if (had && old.gen && rec && rec->start_time == before.start_time && rec->gen == gen)
		return 0;
	/* ... or looked at in it, without an interpreter, and nothing mapped since */
	if (quiet && quiet->start_time == before.start_time && quiet->gen == gen &&
	    quiet->vsize == before.vsize) {
		p->stats.unchanged++;
		return quiet->err;
	}
	/* a placeholder first (gen 0: no Python frames), for exec and exit to delete */
	if (!had && bpf_map_update_elem(p->o.procs_fd, &key, &entry, BPF_NOEXIST) &&
	    errno != EEXIST) {
		if (errno == E2BIG)
			p->stats.full++;
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/%d/maps", p->o.proc_root, (int)pid);
	err = proc_maps__load_file(path, &m);
	if (!err) {
		err = entry_of(p, pid, &m, &entry);
		looked = true;
	}
	proc_maps__release(&m);
	if (err == -ENOTSUP)
		p->stats.unknown++;
	entry.gen = gen;
	if (!err && bpf_map_update_elem(p->o.procs_fd, &key, &entry, BPF_EXIST))
		err = errno == ENOENT ? -ESTALE : -errno;
	entries_changed(p);
	/* an exit or exec between the first look and the placeholder found nothing to delete */
	if (!err && (proc_stat__read(p->o.proc_root, pid, &after) || after.ended ||
		     after.start_time != before.start_time || current_gen(p, pid) != gen))
		err = -ESRCH;
	if (err) {
		bpf_map_delete_elem(p->o.procs_fd, &key);
		entries_changed(p);
		if (looked && (err == -ENOENT || err == -ENOTSUP))
			keep_quiet(p, pid, &before, gen, err);
		return err;
	}
	if (quiet)
		forget_quiet(p, quiet);
	p->stats.procs++;
	keep_rec(p, pid, before.start_time, gen);
	return 0;
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

		if (!err && !stale)
			stale = r && r->gen && r->start_time != now.start_time;
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

	py_files__stats(p->files, &f);
	*st = p->stats;
	st->forgotten = f.forgotten;
	st->kept_files = f.interps + f.others;
	st->kept_procs = p->nr_recs;
	st->kept_quiet = p->nr_quiet;
}

void py_procs__free(struct py_procs *p)
{
	if (!p)
		return;
	py_files__free(p->files);
	tdestroy(p->recs, free);
	tdestroy(p->quiet, free);
	free(p);
}
