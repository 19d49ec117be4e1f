// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_modules.c - the files processes map, each once per run: a module
 * per (device, inode), opened through the process's own view of the file
 * system while it lives, and its symbol table, shared with the files it
 * would be read alike from (struct symfile_key), never by build-id.
 *
 * Mapped files are opened through the process's own view of the file
 * system, /proc/PID/root/<path>, so processes in other mount namespaces
 * resolve; when that path is gone or names another file (deleted or
 * replaced), through /proc/PID/map_files/<start>-<end>.
 */
#include <elf.h>
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_stamp.h"
#include "symbols/debuginfo.h"
#include "symbols/elf_read.h"
#include "symbols/elf_symtab.h"
#include "symbols/file_id.h"
#include "symbols/proc_maps.h"
#include "symbols/rootfs.h"
#include "symbols/usyms_internal.h"

/* By (device, inode): the key of u->modules. */
int module__cmp(const void *a, const void *b)
{
	const struct module *x = a, *y = b;

	if (x->dev_major != y->dev_major)
		return (x->dev_major > y->dev_major) - (x->dev_major < y->dev_major);
	if (x->dev_minor != y->dev_minor)
		return (x->dev_minor > y->dev_minor) - (x->dev_minor < y->dev_minor);
	return (x->inode > y->inode) - (x->inode < y->inode);
}

static int symfile_key_cmp(const void *a, const void *b)
{
	const struct symfile *x = a, *y = b;
	int c = memcmp(&x->key, &y->key, sizeof(x->key));

	return (c > 0) - (c < 0);
}

/* "[libc.so.6]" for "/usr/lib/x86_64-linux-gnu/libc.so.6". */
static char *make_label(const char *path)
{
	const char *base = strrchr(path, '/');
	char *label;

	base = base ? base + 1 : path;
	if (base[0] == '[')
		return strdup(base);	/* "[vdso]" is a label already */
	if (asprintf(&label, "[%s]", base) < 0)
		return NULL;
	return label;
}

/*
 * m and the modules it replaced, at the end of a run: their symfiles are
 * freed with u->files.
 */
void module__free(void *p)
{
	struct module *m = p;

	while (m) {
		struct module *replaced = m->replaced;

		free(m->path);
		free(m->label);
		free(m);
		m = replaced;
	}
}

void symfile__release(struct symfile *f)
{
	symfile__release_lines(f);
	symfile__release_names(f);
	elf_symtab__free(f->st);
}

/* Our own vDSO: the same image the kernel maps into every 64-bit process. */
void usyms_load_vdso(struct usyms *u)
{
	unsigned long base;
	struct proc_maps self;
	const struct map_entry *e;

	if (u->vdso_tried)
		return;
	u->vdso_tried = true;
	u->vdso.state = MOD_DONE;
	u->vdso.file = &u->vdso_file;
	base = getauxval(AT_SYSINFO_EHDR);
	if (!base || proc_maps__load_file("/proc/self/maps", &self))
		return;
	e = proc_maps__find(&self, base);
	if (e && !strcmp(e->path, "[vdso]"))
		u->vdso_file.st = elf_symtab__load_mem((const void *)base, e->end - base);
	proc_maps__release(&self);
}

/* e's path under root if it is still e's file: a descriptor, or -errno. */
static int open_if_same(const char *root, const struct map_entry *e)
{
	struct stat sb;
	int fd;

	fd = rootfs__open_regular(root, e->path, 0, &sb);
	if (fd < 0 || file_stamp__is_mapped(fd, &sb, e->dev_major, e->dev_minor, e->inode))
		return fd;
	close(fd);	/* another file is at that path now */
	return -ESTALE;
}

/*
 * Open the file behind a mapping as the process sees it: its root, then
 * map_files (deleted or replaced files), then, for a process that has
 * exited, the same path from here if it is still the same file.
 * Returns the descriptor or -errno (-ESTALE: another file is at the path).
 */
/* /proc/PID/map_files/<start>-<end>: the file of e as pid maps it. */
static void map_files_path(const struct usyms *u, pid_t pid, const struct map_entry *e,
			   char *buf, size_t size)
{
	snprintf(buf, size, "%s/%d/map_files/%llx-%llx", u->proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
}

static int open_mapped_file(struct usyms *u, pid_t pid, const struct map_entry *e)
{
	char path[4096 + 64];
	struct stat sb;
	int fd;

	if (!e->deleted) {
		snprintf(path, sizeof(path), "%s/%d/root", u->proc_root, (int)pid);
		fd = open_if_same(path, e);
		if (fd >= 0)
			return fd;
	}
	map_files_path(u, pid, e, path, sizeof(path));
	fd = rootfs__open_regular(NULL, path, 0, &sb);
	if (fd >= 0 || e->deleted)
		return fd;
	return open_if_same(NULL, e);
}

_Static_assert(sizeof(struct symfile_key) == SHA256_LEN + 8 + 2 * sizeof(struct file_stamp),
	       "struct symfile_key has padding");

/* The table read from what key says, or NULL. Under u->lock. */
static struct symfile *find_by_key(struct usyms *u, const struct symfile_key *key)
{
	struct symfile probe = { .key = *key };
	void *node = tfind(&probe, &u->by_key, symfile_key_cmp);

	return node ? *(struct symfile **)node : NULL;
}

/*
 * Keep f, or the table already read from the same (f->key). Under
 * u->lock. Returns the table to use, with a reference for the caller.
 */
static struct symfile *symfile__publish(struct usyms *u, struct symfile *f)
{
	struct symfile *shared = f->keyed ? find_by_key(u, &f->key) : NULL;

	if (shared) {
		symfile__release(f);
		free(f);
		shared->refs++;
		return shared;
	}
	f->refs = 1;
	f->next = u->files;
	if (u->files)
		u->files->prev = f;
	u->files = f;
	u->nr_files++;
	u->nr_read++;
	if (f->keyed && !tsearch(f, &u->by_key, symfile_key_cmp))
		f->keyed = false;	/* ENOMEM: just not shared */
	return f;
}

/*
 * Drop a reference to f; the last one frees it, so only once no name
 * from it can still be printed: from usyms__prune(), or for a fetch that
 * outlived every module of f. Under u->lock.
 */
void symfile__put(struct usyms *u, struct symfile *f)
{
	if (!f || --f->refs)
		return;
	/* keyed: in the tree, the only table under its key */
	if (f->keyed)
		tdelete(f, &u->by_key, symfile_key_cmp);
	if (f->prev)
		f->prev->next = f->next;
	else
		u->files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	u->nr_files--;
	u->files_freed++;
	symfile__release(f);
	free(f);
}

/* What reading a module's file came to. */
struct read_outcome {
	enum module_state state;
	bool not_elf;
	char why[sizeof(((struct debuginfo_info *)0)->refused)];	/* a budget's refusal */
};

static void read_outcome__failed(struct read_outcome *o, int err)
{
	o->not_elf = err == ENOEXEC;
	if (err == EFBIG) {
		o->state = MOD_OVER_BUDGET;
		snprintf(o->why, sizeof(o->why), "%s", budget__why());
	} else if (err == ECANCELED) {
		o->state = MOD_NOT_LOADED;
	}
}

/*
 * The key of the file jf, open as elf, as if its own .symtab were
 * what it is read from (then nothing else is: debuginfo.c), so a table
 * under it may be used without reading. -errno when the digest cannot be
 * made (the reading will fail the same way).
 */
static int symfile_key__init(struct usyms *u, const struct job_file *jf, Elf *elf,
			     struct symfile_key *key)
{
	struct stat sb;
	int err;

	memset(key, 0, sizeof(*key));
	err = file_id__symbols(elf, &u->budget, key->digest);
	if (err)
		return err;
	key->source = DEBUGINFO_SYMTAB;
	if (u->lines) {
		if (fstat(jf->fd, &sb))
			return -errno;
		file_stamp__init(&key->lines, &sb);
	}
	return 0;
}

/*
 * The symbol table of the file jf, open as elf, read now, with its
 * DWARF for --lines; key (NULL: none) the file's, completed with where
 * its symbols came from. NULL when there is none, o saying why.
 */
static struct symfile *symfile__read(struct usyms *u, const struct job_file *jf, Elf *elf,
				     const struct symfile_key *key, struct read_outcome *o)
{
	char root[64];
	struct debuginfo_opts opts = {
		.debug_dirs = (const char *const *)u->debug_dirs,
		.nr_debug_dirs = u->nr_debug_dirs,
		.budget = &u->budget,
		.keep_debug_fd = u->lines,
	};
	struct debuginfo_info info;
	struct symfile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (jf->root_fd >= 0) {
		/* the root as it was when the process was seen, whatever its pid is now */
		snprintf(root, sizeof(root), "/proc/self/fd/%d", jf->root_fd);
		opts.root = root;
	}
	f->st = debuginfo__load_elf(elf, jf->fd, jf->path, &opts, &info);
	if (!f->st) {
		read_outcome__failed(o, errno);
		free(f);
		return NULL;
	}
	usyms_notice(u, jf->path, info.refused);
	if (u->lines)
		f->sl = symfile__open_lines(u, jf->fd, &info);
	if (info.debug_fd >= 0)
		close(info.debug_fd);
	f->source = info.source;
	memcpy(f->build_id, info.build_id, info.build_id_len);
	f->build_id_len = info.build_id_len;
	if (key) {
		f->key = *key;
		f->key.source = info.source;
		f->key.debug = info.debug_stamp;
		f->keyed = true;
	}
	return f;
}

/*
 * Read the symbols of the file jf for m, or share the table read from the
 * same (struct symfile_key): on the loader thread, or on the caller's
 * without one. Ends m's MOD_PENDING.
 */
void module__read(struct usyms *u, struct module *m, const struct job_file *jf)
{
	struct read_outcome o = { .state = MOD_DONE };
	struct symfile *shared = NULL, *f = NULL;
	struct symfile_key key;
	bool keyed;
	Elf *elf;

	budget__clear();
	elf = elf_read__begin(jf->fd, &u->budget);
	if (!elf) {
		read_outcome__failed(&o, errno);
	} else {
		keyed = !symfile_key__init(u, jf, elf, &key);
		if (keyed) {
			/* a reference for the module: a prune may drop the others meanwhile */
			usyms_lock(u);
			shared = find_by_key(u, &key);
			if (shared)
				shared->refs++;
			usyms_unlock(u);
		}
		if (!shared)
			f = symfile__read(u, jf, elf, keyed ? &key : NULL, &o);
		elf_end(elf);
	}
	usyms_lock(u);
	m->file = f ? symfile__publish(u, f) : shared;
	m->not_elf = o.not_elf;
	m->state = o.state;
	if (f && m->file == f)
		usyms_fetch_submit(u, f, jf);
	usyms_unlock(u);
	usyms_notice(u, jf->path, o.why);
}

static bool is_elf(int fd)
{
	char magic[SELFMAG];

	return pread(fd, magic, SELFMAG, 0) == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
}

/*
 * The file at fd, opened for m: whether its symbols are to be read (then
 * fd stays open for that), else it is closed. Its stamp is kept: if it
 * changes, the file is another now.
 */
static bool module__opened(struct module *m, int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) == 0)
		file_stamp__init(&m->stamp, &sb);
	if (is_elf(fd))
		return true;
	/* known now: whether its process needs a perf map depends on it */
	m->not_elf = true;
	m->state = MOD_DONE;
	close(fd);
	return false;
}

/*
 * Is sb the file m was opened as? A write changes its mtime and ctime,
 * and nobody can set ctime back. A file merely touched counts as changed:
 * its new module shares the table of the old one when both read alike
 * (struct symfile_key: the same digest; under --lines, never: the stamp
 * changed). The version alone: (dev, ino) are the module's key, from the
 * maps, and a stat through map_files may give another device than the
 * path m was opened by (file_stamp__same_version()).
 */
static bool module__same_stat(const struct module *m, const struct stat *sb)
{
	return file_stamp__same_version(&m->stamp, sb);
}

/*
 * Is the file pid maps at e still the one m was opened as? The reading's
 * stamp, else one stat of its map_files link, no path walk: this runs for
 * every file mapping of every reading. Without map_files (not root, a process gone) the file is
 * opened as for reading; one that cannot be is taken as unchanged.
 */
static bool module__unchanged(struct usyms *u, const struct module *m, pid_t pid,
			      const struct map_entry *e)
{
	char path[4096 + 64];
	struct stat sb;
	bool same;
	int fd;

	if (e->stamped)
		return file_stamp__same_version_as(&m->stamp, &e->stamp);
	map_files_path(u, pid, e, path, sizeof(path));
	if (stat(path, &sb) == 0)
		return module__same_stat(m, &sb);
	fd = open_mapped_file(u, pid, e);
	if (fd < 0)
		return true;
	same = fstat(fd, &sb) == 0 && module__same_stat(m, &sb);
	close(fd);
	return same;
}

/*
 * A file rewritten in place is read again, a few times while processes
 * map it: whoever touches a file of theirs in a loop must not grow our
 * memory and the loader's work without end. Past that, the last module
 * read stays, until no process held maps any of them (usyms_sweep.c).
 */
#define MODULE_MAX_REPLACED 8

/* A module for the file of e, not yet opened. NULL with errno ENOMEM. */
static struct module *module__new(const struct map_entry *e)
{
	struct module *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->dev_major = e->dev_major;
	m->dev_minor = e->dev_minor;
	m->inode = e->inode;
	m->path = strdup(e->path);
	m->label = m->path ? make_label(m->path) : NULL;
	if (!m->label) {
		module__free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

/* A new module for the file of e, in the tree, or NULL with errno ENOMEM. */
static struct module *module__add(struct usyms *u, const struct map_entry *e)
{
	struct module *m = module__new(e);

	if (m && !tsearch(m, &u->modules, module__cmp)) {
		module__free(m);
		errno = ENOMEM;
		return NULL;
	}
	if (m)
		u->nr_modules++;
	return m;
}

/*
 * The module of a file mapping of pid, created on first sight, or in
 * place of one whose file changed since it was opened. *fd: its file,
 * opened now while pid lives, when its symbols are to be read (by
 * module__read(), on the loader thread: usyms_jobs.c), else -1. A file
 * that cannot be opened is tried again through the next mapping of it.
 * NULL with errno ENOMEM.
 */
struct module *module__for_mapping(struct usyms *u, pid_t pid, const struct map_entry *e,
				   int *fd)
{
	struct module key = {
		.dev_major = e->dev_major, .dev_minor = e->dev_minor, .inode = e->inode,
	};
	struct module **node = tfind(&key, &u->modules, module__cmp);
	struct module *m = node ? *node : module__add(u, e);
	int opened;

	*fd = -1;
	if (!m || m->checked_reading == u->readings)
		return m;
	/* once a reading: a process may map one file 60,000 times */
	if (m->state != MOD_NEW &&
	    (m->nr_replaced >= MODULE_MAX_REPLACED || module__unchanged(u, m, pid, e))) {
		m->checked_reading = u->readings;
		return m;
	}
	opened = open_mapped_file(u, pid, e);
	if (opened < 0)
		return m;
	if (m->state != MOD_NEW) {
		m = module__new(e);
		if (!m) {
			close(opened);
			return NULL;
		}
		/* the same key: the tree stays in order */
		m->replaced = *node;
		m->nr_replaced = m->replaced->nr_replaced + 1;
		if (m->nr_replaced == MODULE_MAX_REPLACED)
			usyms_notice(u, m->path,
				     "rewritten too often: read no more while it is mapped");
		*node = m;
		u->nr_modules++;
	}
	if (module__opened(m, opened))
		*fd = opened;
	m->checked_reading = u->readings;
	return m;
}
