// SPDX-License-Identifier: GPL-2.0
/*
 * py_procs.c - Python processes into the BPF side (py_procs.h).
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

#include "file_id.h"
#include "proc_maps.h"
#include "proc_stat.h"
#include "python/py_elf.h"
#include "python/py_layout.h"
#include "python/py_procs.h"
#include "rootfs.h"

/* Versions told of, at most: one line each. */
#define MAX_TOLD 32

/* A file looked at, by its stamp: whether it holds an interpreter. */
struct py_file {
	struct file_stamp id;
	int status;		/* 0: an interpreter (pe), else -errno */
	struct py_elf pe;
};

/* A process given an entry: which one (its start time). */
struct py_rec {
	pid_t pid;
	uint64_t start_time;
	uint32_t gen;		/* published for */
};

struct py_procs {
	struct py_procs_opts o;
	struct budget b;
	int cancel;
	void *files;		/* tsearch: struct py_file */
	void *recs;		/* tsearch: struct py_rec */
	uint32_t told[MAX_TOLD];
	size_t nr_told;
	struct py_procs_stats stats;
};

static int cmp_file(const void *a, const void *b)
{
	return file_stamp__cmp(&((const struct py_file *)a)->id, &((const struct py_file *)b)->id);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct py_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct py_procs *py_procs__new(const struct py_procs_opts *opts)
{
	struct py_procs *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
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
	/* the inode alone: overlayfs and btrfs name another device in maps */
	if ((uint64_t)st->st_ino != e->inode) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* The file of e, looked at the first time it is met. NULL: unreadable. */
static const struct py_file *file_of(struct py_procs *p, pid_t pid, const struct map_entry *e)
{
	struct py_file key = { 0 }, *f, **slot;
	struct stat st;
	int fd = open_mapped(p, pid, e, &st);

	if (fd < 0)
		return NULL;
	file_stamp__init(&key.id, &st);
	slot = tfind(&key, &p->files, cmp_file);
	if (slot) {
		close(fd);
		return *slot;
	}
	f = malloc(sizeof(*f));
	if (!f) {
		close(fd);
		return NULL;
	}
	*f = key;
	f->status = py_elf__read_fd(fd, &p->b, &f->pe);
	close(fd);
	if (f->status == -ECANCELED || !tsearch(f, &p->files, cmp_file)) {
		free(f);
		return NULL;
	}
	p->stats.files++;
	p->stats.interpreters += !f->status;
	return f;
}

/*
 * The layout of f's interpreter: 3.13 on describe theirs in
 * _Py_DebugOffsets, the first bytes of _PyRuntime; before, ours.
 */
static int layout_of(const struct py_file *f, struct py_layout *l)
{
	if (f->pe.version >= PY_VERSION(3, 13))
		return py_layout__from_debug_offsets(f->pe.runtime_bytes, f->pe.nr_runtime_bytes,
						     f->pe.version, l);
	return py_layout__for_version(f->pe.version, l);
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

/*
 * The entry of pid from its mappings m: its interpreter, where it is
 * mapped. -ENOENT: none; -ENOTSUP: a version we do not know.
 */
static int entry_of(struct py_procs *p, pid_t pid, const struct proc_maps *m, struct py_proc *out)
{
	for (size_t i = 0; i < m->nr; i++) {
		const struct map_entry *e = &m->entries[i];
		const struct py_file *f;
		uint64_t bias;
		int err;

		if (e->path[0] != '/')
			continue;
		f = file_of(p, pid, e);
		if (!f || f->status || !py_elf__bias(&f->pe, e->start, e->offset, &bias))
			continue;
		err = layout_of(f, &out->l);
		if (err || !py_layout__valid(&out->l)) {
			tell_unknown(p, f->pe.version, e->path, err);
			return -ENOTSUP;
		}
		out->version = f->pe.version;
		out->runtime = f->pe.runtime + bias;
		if (f->pe.code_type)
			out->code_type = f->pe.code_type + bias;
		if (f->pe.eval_end) {
			out->eval_start = f->pe.eval_start + bias;
			out->eval_end = f->pe.eval_end + bias;
		}
		if (f->pe.cold_end) {
			out->cold_start = f->pe.cold_start + bias;
			out->cold_end = f->pe.cold_end + bias;
		}
		return 0;
	}
	return -ENOENT;
}

static uint32_t current_gen(const struct py_procs *p, pid_t pid)
{
	return p->o.gen ? p->o.gen(pid, p->o.gen_ctx) : 1;
}

static struct py_rec *rec_of(struct py_procs *p, pid_t pid)
{
	struct py_rec key = { .pid = pid }, *r, **slot = tfind(&key, &p->recs, cmp_rec);

	if (slot)
		return *slot;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pid = pid;
	if (!tsearch(r, &p->recs, cmp_rec)) {
		free(r);
		return NULL;
	}
	return r;
}

int py_procs__add_pid(struct py_procs *p, pid_t pid)
{
	struct py_proc entry = { 0 }, old;
	struct proc_stat_info before, after;
	struct proc_maps m = { 0 };
	struct py_rec *rec = rec_of(p, pid);
	__u32 key = (__u32)pid;
	char path[64];
	uint32_t gen;
	bool had;
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
	/* a placeholder first (gen 0: no Python frames), for exec and exit to delete */
	if (!had && bpf_map_update_elem(p->o.procs_fd, &key, &entry, BPF_NOEXIST) &&
	    errno != EEXIST) {
		if (errno == E2BIG)
			p->stats.full++;
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/%d/maps", p->o.proc_root, (int)pid);
	err = proc_maps__load_file(path, &m);
	if (!err)
		err = entry_of(p, pid, &m, &entry);
	proc_maps__release(&m);
	if (err == -ENOTSUP)
		p->stats.unknown++;
	entry.gen = gen;
	if (!err && bpf_map_update_elem(p->o.procs_fd, &key, &entry, BPF_EXIST))
		err = errno == ENOENT ? -ESTALE : -errno;
	/* an exit or exec between the first look and the placeholder found nothing to delete */
	if (!err && (proc_stat__read(p->o.proc_root, pid, &after) || after.ended ||
		     after.start_time != before.start_time || current_gen(p, pid) != gen))
		err = -ESRCH;
	if (err) {
		bpf_map_delete_elem(p->o.procs_fd, &key);
		return err;
	}
	p->stats.procs++;
	if (rec) {
		rec->start_time = before.start_time;
		rec->gen = gen;
	}
	return 0;
}

size_t py_procs__sweep(struct py_procs *p)
{
	__u32 *keys = malloc(PY_MAX_PROCS * sizeof(*keys)), *prev = NULL;
	struct proc_stat_info now;
	size_t nr = 0, n = 0;

	if (!keys)
		return 0;
	while (nr < PY_MAX_PROCS && !bpf_map_get_next_key(p->o.procs_fd, prev, &keys[nr])) {
		prev = &keys[nr];
		nr++;
	}
	for (size_t i = 0; i < nr; i++) {
		struct py_rec probe = { .pid = (pid_t)keys[i] }, **slot;
		int err = proc_stat__read(p->o.proc_root, probe.pid, &now);
		bool stale = err == -ENOENT || (!err && now.ended);

		if (!err && !stale) {
			slot = tfind(&probe, &p->recs, cmp_rec);
			stale = slot && (*slot)->gen && (*slot)->start_time != now.start_time;
		}
		if (stale) {
			bpf_map_delete_elem(p->o.procs_fd, &keys[i]);
			n++;
		}
	}
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
	*st = p->stats;
}

void py_procs__free(struct py_procs *p)
{
	if (!p)
		return;
	tdestroy(p->files, free);
	tdestroy(p->recs, free);
	free(p);
}
