/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_entry.h - a Python process's entry (py_bpf.h) from a reading of its
 * executable mappings, for py_procs.c: which file it maps holds a CPython
 * interpreter (py_elf.h) of a version whose layout we know (py_layout.h),
 * and where it is mapped. The files are opened as the process maps them
 * (/proc/PID/map_files, else its root); one look opens at most
 * PY_FILES_PER_LOOK of them, those named like an interpreter first, and
 * what each held is kept within py_files.h's bounds, by its stamp.
 */
#ifndef PY_ENTRY_H
#define PY_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "python/py_bpf.h"
#include "python/py_files.h"
#include "python/py_procs.h"
#include "symbols/budget.h"
#include "symbols/proc_maps.h"

/* Versions told of, at most: one line each. */
#define PY_MAX_TOLD 32
#define PY_MAX_WATCHED 64	/* interpreter files whose frees of code objects are counted */

/* What looks share: set up and freed by py_procs.c. */
struct py_finder {
	const char *proc_root;
	struct py_files *files;		/* what the files looked at hold */
	struct budget b;		/* each file's reading (b.cancel: the run's end) */
	py_notice_fn notice;		/* NULL: none */
	void *notice_ctx;
	uint32_t told[PY_MAX_TOLD];	/* the versions told of */
	size_t nr_told;
	py_watch_fn watch;		/* NULL: none */
	void *watch_ctx;
	/* the interpreter files a probe was put on, or tried: not tried again */
	struct py_watched {
		struct file_stamp id;
		bool ok;
	} watched_files[PY_MAX_WATCHED];
	size_t nr_watched_files;
	bool watch_full;		/* a file was left out: PY_MAX_WATCHED tried */
	/* py_procs_stats' */
	uint64_t files_read, interpreters, cut, opened, watched, unwatched;
};

/*
 * The entry of pid from its mappings m into out: its interpreter, where
 * it is mapped (out->gen is the caller's). 0; -ENOENT: none, or the look
 * was cut at PY_FILES_PER_LOOK files (counted); -ENOTSUP: a version we do
 * not know (told once per version).
 */
int py_entry__find(struct py_finder *p, pid_t pid, const struct proc_maps *m, struct py_proc *out);

#endif /* PY_ENTRY_H */
