/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_procs_internal.h - what unwind_procs.c (processes, their entries
 * in the BPF maps) and unwind_files.c (files, their tables in the rows
 * array) share; not for users of unwind_procs.h.
 */
#ifndef UNWIND_PROCS_INTERNAL_H
#define UNWIND_PROCS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/types.h>

#include "common/clock.h"
#include "symbols/budget.h"
#include "symbols/file_id.h"
#include "unwind/go_runtime.h"
#include "profile.h"
#include "unwind/unwind_procs.h"
#include "unwind/vdso_image.h"

#define MAX_EXEC_SEGS 4
/* Of a BPF_F_MMAPABLE rows array, bytes mapped at once while rows are copied in */
#define ROWS_WINDOW (1 << 20)

struct map_entry;

/* One file, by its stamp; its rows in the shared array once built. */
struct unwind_file {
	struct file_stamp id;
	int status;		/* 0: rows loaded; else why not (-ENOENT, -ENOSPC...) */
	uint32_t first_row, nr_rows;
	/* executable PT_LOADs: an offset in [off, off + filesz) is at vaddr - off + it */
	struct { uint64_t off, filesz, vaddr; } segs[MAX_EXEC_SEGS];
	int nr_segs;
	bool go;		/* a Go executable: its mappings are flagged (go_runtime.h) */
	struct go_range go_text;
};

struct unwind_procs {
	int rows_fd, procs_fd, big_fd;
	bool rows_mmap;			/* the rows array is BPF_F_MMAPABLE: written through mmap */
	size_t rows_window;		/* bytes of it mapped at once (unwind_files.c) */
	void *recs;			/* tsearch tree of struct proc_rec */
	uint64_t max_rows, next_row;
	void *files;			/* tsearch tree of struct unwind_file */
	void *by_key;			/* tsearch tree of struct rows_by_key */
	const char *proc_root;
	/* where separate debug files are looked for (debuginfo.h) */
	const char *const *debug_dirs;
	size_t nr_debug_dirs;
	struct table_cache *cache;	/* NULL: none */
	struct budget b;		/* b.cancel: &cancel */
	int cancel;
	struct unwind_procs_stats stats;
	unwind_notice_fn notice;	/* NULL: none */
	void *notice_ctx;
	unwind_denied_fn denied;	/* NULL: none */
	void *denied_ctx;
	/* the vDSO every process maps, its table built at the first [vdso] met */
	struct vdso_image vdso;
	struct unwind_file vdso_file;
	bool vdso_tried;
};

/*
 * Mapping e of pid into m, with its file's table where it has one (the
 * vDSO's where it is the one we have), the file's table built the first
 * time it is met; a Go file's may take up to room entries
 * (go_runtime__map). Returns how many.
 */
size_t unwind_files__add_mapping(struct unwind_procs *u, pid_t pid, const struct map_entry *e,
				 struct unwind_map *m, size_t room);
/* Whether one of the mappings in p has the vDSO's table. */
bool unwind_files__has_vdso(const struct unwind_procs *u, const struct unwind_proc_big *p);

#endif /* UNWIND_PROCS_INTERNAL_H */
