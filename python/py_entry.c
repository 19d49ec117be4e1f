// SPDX-License-Identifier: GPL-2.0
/*
 * py_entry.c - a Python process's entry from a reading of its mappings
 * (py_entry.h): the files it maps looked at, within a cap, for an
 * interpreter whose layout we know.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_stamp.h"
#include "python/py_entry.h"
#include "python/py_layout.h"
#include "symbols/rootfs.h"

static void notice(struct py_finder *p, const char *what, const char *why)
{
	if (p->notice)
		p->notice(what, why, p->notice_ctx);
}

static void map_files_path(const struct py_finder *p, pid_t pid, const struct map_entry *e,
			   char *path, size_t size)
{
	snprintf(path, size, "%s/%d/map_files/%llx-%llx", p->proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
}

/*
 * The file of mapping e of pid, as the process maps it: its map_files
 * link (root, CAP_CHECKPOINT_RESTORE), else its path under the process's
 * root if that is still the inode mapped. -errno when neither.
 */
static int open_mapped(struct py_finder *p, pid_t pid, const struct map_entry *e, struct stat *st)
{
	char path[512];
	int fd;

	map_files_path(p, pid, e, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (!fstat(fd, st) && S_ISREG(st->st_mode))
			return fd;
		close(fd);
		return -EPERM;
	}
	snprintf(path, sizeof(path), "%s/%d/root", p->proc_root, (int)pid);
	fd = rootfs__open_regular(path, e->path, 0, st);
	if (fd < 0)
		return fd;
	if (!file_stamp__is_mapped(fd, st, e->dev_major, e->dev_minor, e->inode)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * What the file of e was found to hold, if this very version of it was
 * read before: stat(2) through its map_files link reaches the inode
 * mapped, as an open there would, and its stamp (size, mtime, ctime)
 * names the version, so a file rewritten since is not taken for what it
 * was. No open, no close: most files a process maps were met in another.
 * NULL: not known (or no map_files: then the file is opened).
 */
static const struct py_file *known_file(struct py_finder *p, pid_t pid, const struct map_entry *e)
{
	struct file_stamp id;
	char path[512];
	struct stat st;

	/* that stat made already, for the reading (proc_maps__stamp()) */
	if (e->stamped)
		return py_files__find(p->files, &e->stamp);
	map_files_path(p, pid, e, path, sizeof(path));
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	file_stamp__init(&id, &st);
	return py_files__find(p->files, &id);
}

/* The file of e, read the first time it is met. NULL: unreadable. */
static const struct py_file *file_of(struct py_finder *p, pid_t pid, const struct map_entry *e)
{
	const struct py_file *f = known_file(p, pid, e);
	struct file_stamp id;
	struct py_elf pe;
	struct stat st;
	int fd, status;

	if (f)
		return f;
	fd = open_mapped(p, pid, e, &st);
	if (fd < 0)
		return NULL;
	p->opened++;
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
	p->files_read++;
	p->interpreters += !status;
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
static const struct py_file *look_at(struct py_finder *p, pid_t pid, const struct map_entry *e,
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
static void tell_unknown(struct py_finder *p, uint32_t version, const char *path, int err)
{
	char what[600], ver[32];

	for (size_t i = 0; i < p->nr_told; i++)
		if (p->told[i] == version)
			return;
	if (p->nr_told < PY_MAX_TOLD)
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
 * Whether the frees of code objects by the processes that map f are
 * counted (py_codes.bpf.h): the probe put on its code_dealloc() the first
 * time it is found mapped, through the file as pid maps it (e), checked
 * to be the version read. A file tried is not tried again: a probe it
 * could not take, or one past PY_MAX_WATCHED, leaves its processes'
 * frames known by their reads. So does another version of a file
 * watched (rewritten in place): the probe stays on the inode, at the
 * offset of the version it was put for.
 */
static bool watched(struct py_finder *p, pid_t pid, const struct py_file *f,
		    const struct map_entry *e)
{
	char what[600], why[200];
	struct py_watched *w;
	struct stat st;
	int fd, err = -ENOENT;

	if (!p->watch)
		return false;
	for (size_t i = 0; i < p->nr_watched_files; i++) {
		const struct file_stamp *id = &p->watched_files[i].id;

		if (id->dev == f->id.dev && id->ino == f->id.ino)
			return !file_stamp__cmp(id, &f->id) && p->watched_files[i].ok;
	}
	if (p->nr_watched_files == PY_MAX_WATCHED) {
		/* counted once, the first file left out */
		p->unwatched += !p->watch_full;
		p->watch_full = true;
		return false;
	}
	if (f->pe->dealloc) {
		fd = open_mapped(p, pid, e, &st);
		if (fd < 0)
			return false;	/* tried again with the next process that maps it */
		/* a probe where another version of the file has other code could break its processes */
		err = file_stamp__is(&f->id, &st) ? p->watch(fd, f->pe->dealloc, p->watch_ctx) :
						     -ESTALE;
		close(fd);
		if (err == -ESTALE)
			return false;
	}
	w = &p->watched_files[p->nr_watched_files++];
	w->id = f->id;
	w->ok = !err;
	if (!err) {
		p->watched++;
		return true;
	}
	p->unwatched++;
	snprintf(what, sizeof(what), "the frees of code objects in %s", e->path);
	if (!f->pe->dealloc)
		snprintf(why, sizeof(why), "not counted, no code_dealloc() found (PyCode_Type's tp_dealloc at a function's start)");
	else
		snprintf(why, sizeof(why), "not counted, no uprobe on its code_dealloc() (%s)",
			 strerror(-err));
	notice(p, what, why);
	return false;
}

/* The entry of pid, from interpreter f mapped by e. -ENOTSUP: a version we do not know. */
static int entry_from(struct py_finder *p, pid_t pid, const struct py_file *f,
		      const struct map_entry *e, uint64_t bias, struct py_proc *out)
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
	out->watched = watched(p, pid, f, e);
	return 0;
}

/*
 * The entry of pid from its mappings m: its interpreter, where it is
 * mapped. Files named like one are looked at first, then the others (the
 * interpreter is found by its symbols, whatever its name), at most
 * PY_FILES_PER_LOOK of them. -ENOENT: none; -ENOTSUP: a version we do
 * not know.
 */
int py_entry__find(struct py_finder *p, pid_t pid, const struct proc_maps *m, struct py_proc *out)
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
				p->cut++;
				return -ENOENT;
			}
			if (f && py_elf__bias(f->pe, e->start, e->offset, &bias))
				return entry_from(p, pid, f, e, bias, out);
		}
	}
	return -ENOENT;
}
