/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_procs.h - Python processes into the BPF side's "py_procs" map
 * (py_bpf.h): a process whose executable mappings include a CPython
 * interpreter (py_elf.h) of a version whose layout we know (py_layout.h)
 * gets an entry with its _PyRuntime's address, its eval loop's, and that
 * layout; from then on its samples carry its Python frames. The files
 * are opened as the process maps them (/proc/PID/map_files, else its
 * root), so a python in a container is read from the container's binary.
 *
 * Any local user can map files without end: a look at a process opens
 * (or, met before, stats) at most PY_FILES_PER_LOOK of its files (those
 * named like an interpreter first), what was found in them is kept within
 * py_files.h's bounds, and only a process published gets a record,
 * forgotten when its entry is gone.
 */
#ifndef PY_PROCS_H
#define PY_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Files looked at in one look at a process, at most: the rest are not (counted). */
#define PY_FILES_PER_LOOK 256

struct py_procs;
struct proc_maps;

/* Told once per kind of thing skipped: what (a file, a version) and why. */
typedef void (*py_notice_fn)(const char *what, const char *why, void *ctx);
/* The generation pid runs now (profile.h), 0 when none. */
typedef uint32_t (*py_gen_fn)(pid_t pid, void *ctx);
/*
 * Put the probe that counts a process's frees of code objects
 * (py_codes.bpf.h) on the function at offset in the file open at fd,
 * for every process that maps it. 0 or -errno.
 */
typedef int (*py_watch_fn)(int fd, uint64_t offset, void *ctx);

struct py_procs_opts {
	const char *proc_root;	/* where /proc is (tests); NULL: "/proc" */
	int procs_fd;		/* the "py_procs" map */
	/*
	 * Moved on after each change to an entry (the BPF side's copies of
	 * entries are good while it has not moved); NULL: nobody copies.
	 */
	volatile uint64_t *procs_epoch;
	py_gen_fn gen;
	void *gen_ctx;
	py_notice_fn notice;	/* NULL: none */
	void *notice_ctx;
	py_watch_fn watch;	/* NULL: frames are known by their reads alone */
	void *watch_ctx;
};

struct py_procs_stats {
	uint64_t procs;		/* processes given an entry */
	uint64_t files;		/* files read (looked at the first time, or again once forgotten) */
	uint64_t interpreters;	/* ... of them with an interpreter */
	uint64_t forgotten;	/* files' results forgotten for room (py_files.h) */
	uint64_t cut;		/* looks at a process stopped at PY_FILES_PER_LOOK files */
	uint64_t unknown;	/* processes left without: a version we do not know */
	uint64_t full;		/* ... the map of processes was full */
	uint64_t swept;		/* entries of processes gone, deleted by the sweep */
	uint64_t kept_files;	/* files whose result is kept now */
	uint64_t kept_procs;	/* processes whose record is kept now: those published */
	uint64_t kept_quiet;	/* ... and those without an interpreter */
	uint64_t unchanged;	/* looks at those skipped: nothing mapped or unmapped since */
	uint64_t given;		/* looks at a reading handed over (py_procs__add_pid_maps) */
	uint64_t read_self;	/* looks that read /proc/PID/maps (py_procs__add_pid) */
	uint64_t opened;	/* files opened (the others known by their map_files stamp) */
	uint64_t watched;	/* interpreter files whose frees of code objects are counted */
	uint64_t unwatched;	/* ... that could not be (no code_dealloc found, or no probe) */
};

/* NULL with errno. */
struct py_procs *py_procs__new(const struct py_procs_opts *opts);

/*
 * Look at pid now, and publish its entry if it runs Python (unless it
 * has this very one already). 0 when published or unchanged; -ENOENT: no
 * interpreter; -ENOTSUP: a version we do not know; -ESRCH: gone;
 * -ESTALE: it exec'd or exited meanwhile; -E2BIG: the map is full.
 */
int py_procs__add_pid(struct py_procs *p, pid_t pid);
/*
 * The same from maps, a reading of pid's mappings made while it ran
 * generation gen (the symbols', handed over): nothing read from /proc
 * but the files mapped. -ESRCH also when pid runs another generation now.
 */
int py_procs__add_pid_maps(struct py_procs *p, pid_t pid, uint32_t gen,
			   const struct proc_maps *maps);
/*
 * Delete the entries of processes gone, or whose pid is another's now,
 * and the records of processes without an entry. Returns how many entries.
 */
size_t py_procs__sweep(struct py_procs *p);
/* From any thread: a file being read is given up. */
void py_procs__cancel(struct py_procs *p);
void py_procs__stats(const struct py_procs *p, struct py_procs_stats *st);
void py_procs__free(struct py_procs *p);

#endif /* PY_PROCS_H */
