// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - per-process user symbolization over a cache of ELF symbol
 * tables shared by all processes.
 *
 * Mapped files are opened through the process's own view of the file
 * system, /proc/PID/root/<path>, so processes in other mount namespaces
 * resolve; when that path is gone or names another file (deleted or
 * replaced), through /proc/PID/map_files/<start>-<end>.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_symtab.h"
#include "proc_maps.h"
#include "usyms.h"

struct symfile {
	unsigned int dev_major, dev_minor;
	uint64_t inode;
	struct elf_symtab *st;	/* NULL when the file could not be read */
};

struct proc {
	pid_t pid;
	int err;		/* from reading its maps; its frames stay unresolved */
	struct proc_maps maps;
	struct symfile **files;	/* per maps entry, loaded on first use */
	bool *tried;
};

struct usyms {
	char *proc_root;
	void *procs;		/* tsearch tree of struct proc */
	void *files;		/* tsearch tree of struct symfile */
	size_t nr_files;
	struct symfile vdso;
	bool vdso_tried;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int symfile_cmp(const void *a, const void *b)
{
	const struct symfile *x = a, *y = b;

	if (x->dev_major != y->dev_major)
		return (x->dev_major > y->dev_major) - (x->dev_major < y->dev_major);
	if (x->dev_minor != y->dev_minor)
		return (x->dev_minor > y->dev_minor) - (x->dev_minor < y->dev_minor);
	return (x->inode > y->inode) - (x->inode < y->inode);
}

struct usyms *usyms__new(const char *proc_root)
{
	struct usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->proc_root = strdup(proc_root ? proc_root : "/proc");
	if (!u->proc_root) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

static void proc__free(void *p)
{
	struct proc *proc = p;

	proc_maps__release(&proc->maps);
	free(proc->files);
	free(proc->tried);
	free(proc);
}

static void symfile__free(void *p)
{
	struct symfile *f = p;

	elf_symtab__free(f->st);
	free(f);
}

void usyms__free(struct usyms *u)
{
	if (!u)
		return;
	tdestroy(u->procs, proc__free);
	tdestroy(u->files, symfile__free);
	elf_symtab__free(u->vdso.st);
	free(u->proc_root);
	free(u);
}

size_t usyms__nr_files(const struct usyms *u)
{
	return u->nr_files;
}

static struct proc *find_proc(struct usyms *u, pid_t pid)
{
	struct proc key = { .pid = pid };
	void *node = tfind(&key, &u->procs, proc_cmp);

	return node ? *(struct proc **)node : NULL;
}

/* Read pid's maps into proc; on failure proc keeps what it had. */
static int proc__read_maps(struct usyms *u, struct proc *proc)
{
	struct proc_maps maps;
	struct symfile **files = NULL;
	bool *tried = NULL;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)proc->pid);
	err = proc_maps__load_file(path, &maps);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	if (!maps.nr) {
		/* a zombie's maps are empty: keep what was read while it ran */
		proc_maps__release(&maps);
		return -ESRCH;
	}
	files = calloc(maps.nr, sizeof(*files));
	tried = calloc(maps.nr, sizeof(*tried));
	if (!files || !tried) {
		free(files);
		free(tried);
		proc_maps__release(&maps);
		return -ENOMEM;
	}
	proc_maps__release(&proc->maps);
	free(proc->files);
	free(proc->tried);
	proc->maps = maps;
	proc->files = files;
	proc->tried = tried;
	return 0;
}

int usyms__add_pid(struct usyms *u, pid_t pid)
{
	struct proc *proc;
	int err;

	proc = find_proc(u, pid);
	if (proc) {
		err = proc__read_maps(u, proc);
		if (!err)
			proc->err = 0;
		return proc->err;
	}
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return -ENOMEM;
	proc->pid = pid;
	proc->err = proc__read_maps(u, proc);
	if (proc->err == -ENOMEM || !tsearch(proc, &u->procs, proc_cmp)) {
		proc__free(proc);
		return -ENOMEM;
	}
	return proc->err;
}

/* Our own vDSO: the same image the kernel maps into every 64-bit process. */
static struct symfile *load_vdso(struct usyms *u)
{
	unsigned long base;
	struct proc_maps self;
	const struct map_entry *e;

	if (u->vdso_tried)
		return &u->vdso;
	u->vdso_tried = true;
	base = getauxval(AT_SYSINFO_EHDR);
	if (!base || proc_maps__load_file("/proc/self/maps", &self))
		return &u->vdso;
	e = proc_maps__find(&self, base);
	if (e && !strcmp(e->path, "[vdso]"))
		u->vdso.st = elf_symtab__load_mem((const void *)base, e->end - base);
	proc_maps__release(&self);
	return &u->vdso;
}

static int open_if_inode(const char *path, uint64_t inode)
{
	struct stat sb;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &sb) && sb.st_ino == inode)
		return fd;
	close(fd);	/* another file is at that path now */
	return -1;
}

/*
 * Open the file behind a mapping as the process sees it: its root, then
 * map_files (deleted or replaced files), then, for a process that has
 * exited, the same path from here if it is still the same file.
 * Returns -1 on failure.
 */
static int open_mapped_file(struct usyms *u, pid_t pid, const struct map_entry *e)
{
	char path[4096 + 64];
	int fd;

	if (!e->deleted) {
		snprintf(path, sizeof(path), "%s/%d/root%s", u->proc_root, (int)pid, e->path);
		fd = open_if_inode(path, e->inode);
		if (fd >= 0)
			return fd;
	}
	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", u->proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || e->deleted)
		return fd;
	return open_if_inode(e->path, e->inode);
}

static struct symfile *load_file(struct usyms *u, pid_t pid, const struct map_entry *e)
{
	struct symfile key = {
		.dev_major = e->dev_major, .dev_minor = e->dev_minor, .inode = e->inode,
	};
	struct symfile *f;
	void *node;
	int fd;

	if (!strcmp(e->path, "[vdso]"))
		return load_vdso(u);
	if (!e->inode || e->path[0] != '/')
		return NULL;	/* anonymous or special: nothing to read */
	node = tfind(&key, &u->files, symfile_cmp);
	if (node)
		return *(struct symfile **)node;

	f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	*f = key;
	fd = open_mapped_file(u, pid, e);
	if (fd >= 0) {
		f->st = elf_symtab__load_fd(fd);
		close(fd);
	}
	if (!tsearch(f, &u->files, symfile_cmp)) {
		symfile__free(f);
		return NULL;
	}
	u->nr_files++;
	return f;
}

int usyms__resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out)
{
	const struct map_entry *e;
	const struct elf_sym *sym;
	struct symfile *f;
	struct proc *proc;
	uint64_t vaddr;
	size_t idx;

	memset(out, 0, sizeof(*out));
	proc = find_proc(u, pid);
	if (!proc) {
		usyms__add_pid(u, pid);
		proc = find_proc(u, pid);
	}
	if (!proc || proc->err)
		return -ENOENT;
	e = proc_maps__find(&proc->maps, addr);
	if (!e)
		return -ENOENT;
	out->module = e->path[0] ? e->path : NULL;
	idx = e - proc->maps.entries;
	if (!proc->tried[idx]) {
		proc->tried[idx] = true;
		proc->files[idx] = load_file(u, pid, e);
	}
	f = proc->files[idx];
	if (!f || !f->st)
		return -ENOENT;
	if (elf_symtab__offset_to_vaddr(f->st, addr - e->start + e->offset, &vaddr))
		return -ENOENT;
	sym = elf_symtab__find(f->st, vaddr);
	if (!sym)
		return -ENOENT;
	out->name = sym->name;
	out->offset = vaddr - sym->addr;
	return 0;
}
