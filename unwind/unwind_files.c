// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_files.c - each executable file a sampled process maps, once a
 * run: met when a reading of the process's mappings is published, its
 * unwind table (from the cache, or built; a copy's rows shared by digest)
 * copied into the BPF rows array when a walk first asks for it, and
 * where each mapping of it finds those rows (unwind_procs_internal.h).
 *
 * Files are opened through /proc/PID/map_files/START-END: the very file
 * the process maps, whatever its mount namespace or a rename since, and
 * never a path the process could swap under us.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "unwind/cfi_code.h"
#include "unwind/cfi_table.h"
#include "symbols/debuginfo.h"
#include "symbols/elf_read.h"
#include "symbols/proc_maps.h"
#include "unwind/row_index.h"
#include "unwind/table_cache.h"
#include "unwind/unwind_procs_internal.h"

static int cmp_file(const void *a, const void *b)
{
	return file_stamp__cmp(&((const struct unwind_file *)a)->id,
			       &((const struct unwind_file *)b)->id);
}

/* The executable PT_LOAD segments of elf, to place mappings in the file. */
static void read_segments(Elf *elf, struct unwind_file *f)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && f->nr_segs < MAX_EXEC_SEGS; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		f->segs[f->nr_segs].off = ph.p_offset;
		f->segs[f->nr_segs].filesz = ph.p_filesz;
		f->segs[f->nr_segs].vaddr = ph.p_vaddr;
		f->nr_segs++;
	}
}

/*
 * The separate debug file of the file open at fd, path as process pid
 * maps it (for .gnu_debuglink), found as for its symbols: open, or -1.
 */
static int debug_file_of(struct unwind_procs *u, Elf *elf, int fd, pid_t pid, const char *path)
{
	char root[PATH_MAX];
	struct debuginfo_opts opts = {
		.root = root, .debug_dirs = u->debug_dirs, .nr_debug_dirs = u->nr_debug_dirs,
		.budget = &u->b,
	};
	struct debuginfo_info info;

	/* a file with a .debug_frame of its own needs no other */
	if (cfi_table__has_debug_frame(elf))
		return -1;
	snprintf(root, sizeof(root), "%s/%d/root", u->proc_root, (int)pid);
	if (debuginfo__find_debug_file(elf, fd, path, &opts, &info))
		return -1;
	return info.debug_fd;
}

/* Tell of a .debug_frame left out of path's table (its .eh_frame's rows kept). */
static void debug_frame_notice(struct unwind_procs *u, const char *path, int err)
{
	char why[256];

	if (!u->notice)
		return;
	snprintf(why, sizeof(why), "its .debug_frame left out, .eh_frame's rows kept: %s",
		 err == -EFBIG ? budget__why()
		 : err == -ENOEXEC ? "it cannot be read safely" : strerror(-err));
	u->notice(path, why, u->notice_ctx);
}

/*
 * The table of elf, with debug its separate debug file (NULL: none): from
 * the cache, else built (and stored). Only root's files' tables are
 * stored: they are the ones every run meets (libc, the interpreters), and
 * a user cannot fill root's disk with tables. key NULL: its digest could
 * not be made (nor can the table, then).
 */
static int table_of(struct unwind_procs *u, Elf *elf, Elf *debug, const struct stat *st,
		    const struct table_key *key, const char *path, struct cfi_table *t)
{
	bool cached = u->cache && key && st->st_uid == 0;
	uint64_t t0;
	int err;

	if (cached && !table_cache__load(u->cache, key, t)) {
		u->stats.from_cache++;
		return 0;
	}
	t0 = unwind__mono_ns();
	err = cfi_table__build_debug(elf, debug, &u->b, t);
	u->stats.build_ns += unwind__mono_ns() - t0;
	if (err)
		return err;
	u->stats.built++;
	if (t->from_debug_frame)
		u->stats.debug_frame++;
	if (t->debug_frame_err)
		debug_frame_notice(u, path, t->debug_frame_err);
	/* a .debug_frame left out (a budget, a run ending) is not what the key names */
	if (cached && !t->debug_frame_err && !table_cache__store(u->cache, key, t))
		u->stats.stored++;
	return 0;
}

/*
 * Rows already loaded for a table of the same digest (a copy of the
 * file), or NULL; a Go file's rows are also made from its function table
 * (go_runtime.h), so its copies must have the same one too.
 */
struct rows_by_key {
	struct table_key key;
	uint8_t go_digest[SHA256_LEN];	/* zeros: not a Go file */
	uint32_t first_row, nr_rows;
	bool go;
	struct go_range go_text;
};

static int cmp_rows_key(const void *a, const void *b)
{
	const struct rows_by_key *x = a, *y = b;
	int c = memcmp(&x->key, &y->key, sizeof(x->key));

	return c ? c : memcmp(x->go_digest, y->go_digest, sizeof(x->go_digest));
}

static void remember_rows(struct unwind_procs *u, const struct rows_by_key *probe,
			  const struct unwind_file *f)
{
	struct rows_by_key *r = malloc(sizeof(*r));

	if (!r)
		return;
	*r = *probe;
	r->first_row = f->first_row;
	r->nr_rows = f->nr_rows;
	r->go = f->go;
	r->go_text = f->go_text;
	if (!tsearch(r, &u->by_key, cmp_rows_key))
		free(r);
}

/* Copy rows[0, nr) into the rows array from row first, a batch update at a time. */
static int write_rows_batch(struct unwind_procs *u, const struct unwind_row *rows, size_t nr,
			    uint64_t first)
{
	enum { BATCH = 4096 };
	__u32 keys[BATCH];

	for (size_t done = 0; done < nr;) {
		__u32 n = nr - done < BATCH ? (__u32)(nr - done) : BATCH;

		for (__u32 i = 0; i < n; i++)
			keys[i] = (__u32)(first + done + i);
		if (bpf_map_update_batch(u->rows_fd, keys, rows + done, &n, NULL))
			return -errno;
		done += n;
	}
	return 0;
}

/*
 * The same through a window of the array mapped here, then unmapped: a
 * memcpy instead of a copy and an update per row in the kernel (~30 ms of
 * a one-shot run went to its first process's 60k rows). A window at a
 * time: the tool's RSS never holds more of the array than one.
 */
static int write_rows_mapped(struct unwind_procs *u, const struct unwind_row *rows, size_t nr,
			     uint64_t first)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t window = u->rows_window >= page ? u->rows_window & ~(page - 1) : page;
	uint64_t pos = first * sizeof(*rows), end = pos + nr * sizeof(*rows);
	const char *src = (const char *)rows;

	while (pos < end) {
		uint64_t off = pos & ~(page - 1);
		uint64_t len = end - off < window ? end - off : window;
		char *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, u->rows_fd, (off_t)off);

		if (w == MAP_FAILED)
			return -errno;
		memcpy(w + (pos - off), src, off + len - pos);
		munmap(w, len);
		src += off + len - pos;
		pos = off + len;
	}
	/* the rows before the entry that points at them (bpf(2) publishes it) */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 0;
}

static int write_rows(struct unwind_procs *u, const struct unwind_row *rows, size_t nr,
		      uint64_t first)
{
	if (u->rows_mmap)
		return write_rows_mapped(u, rows, nr, first);
	return write_rows_batch(u, rows, nr, first);
}

/* Copy t and its page index (row_index.h) into the rows array for f. */
static int place_rows(struct unwind_procs *u, const struct cfi_table *t, struct unwind_file *f)
{
	struct unwind_row *index;
	size_t nr_index;
	int err;

	if (!t->nr)
		return -ENOENT;
	nr_index = row_index__size(t->rows, t->nr);
	if (t->nr + nr_index > u->max_rows - u->next_row)
		return -ENOSPC;
	index = malloc(nr_index * sizeof(*index));
	if (!index)
		return -ENOMEM;
	row_index__build(t->rows, t->nr, index);
	err = write_rows(u, t->rows, t->nr, u->next_row);
	if (!err)
		err = write_rows(u, index, nr_index, u->next_row + t->nr);
	free(index);
	if (err)
		return err;
	f->first_row = (uint32_t)u->next_row;
	f->nr_rows = (uint32_t)t->nr;
	/*
	 * Rows are only ever appended: the BPF walk's per-CPU cache of rows
	 * (row_find.bpf.h) knows a table by its first row for the whole run.
	 * Rows reused for another file would need that cache emptied first.
	 */
	u->next_row += t->nr + nr_index;
	return 0;
}

/* Why f has no table, in words, for the notice. */
static const char *why_no_table(int status)
{
	switch (status) {
	case -ENOENT:
		return "no unwind table: no .eh_frame nor .debug_frame, or no FDE in them";
	case -ENODATA:
		return "no unwind table: no executable segment";
	case -ENOEXEC:
		return "no unwind table: .eh_frame, .debug_frame or the ELF file cannot be read safely";
	case -ENOTSUP:
		return "no unwind table: not an x86-64 ELF file";
	case -ENOSPC:
		return "no unwind table: no room left in --unwind-storage-size rows";
	case -EFBIG:
		return budget__why();
	default:
		return strerror(-status);
	}
}

/*
 * The table of a Go file (go_runtime.h), open as elf: its rows from
 * .debug_frame, else, when it has none (-w) or it could not be read
 * (err), from .gopclntab's pc-to-sp tables; and its roots as END rows.
 * Returns 0 or -errno.
 */
static int go_table(struct unwind_procs *u, Elf *elf, const struct go_info *go, const char *path,
		    int err, struct cfi_table *t)
{
	char why[320];

	if (err == -ECANCELED || err == -ENOMEM)
		return err;
	if (err) {
		if (err != -ENOENT && u->notice) {
			snprintf(why, sizeof(why), "%s; a Go file: .gopclntab's tables instead",
				 why_no_table(err));
			u->notice(path, why, u->notice_ctx);
		}
		memset(t, 0, sizeof(*t));
	}
	/* without them the leaf goes by its frame pointer */
	err = go_runtime__add_sp_rows(elf, &u->b, go, t);
	if (err == -ECANCELED || err == -ENOMEM) {
		cfi_table__release(t);
		return err;
	}
	err = go_runtime__add_roots(go, t);
	if (err)
		cfi_table__release(t);
	return err;
}

/*
 * f's table, of the file open at fd (path as pid maps it), in the rows
 * array: the rows of a table of the same digest already loaded (each
 * process of a container or a build tree may run its own copy of a file,
 * and only a copy has the same sections), else its own.
 */
static int load_file(struct unwind_procs *u, int fd, const struct stat *st, pid_t pid,
		     const char *path, struct unwind_file *f)
{
	struct rows_by_key probe = { 0 }, **same = NULL;
	Elf *elf, *debug = NULL;
	struct cfi_table t;
	struct go_info go;
	int err, debug_fd;
	bool keyed;

	elf = elf_read__begin(fd, &u->b);
	if (!elf)
		return -errno;
	read_segments(elf, f);
	if (!f->nr_segs) {
		elf_end(elf);
		return -ENODATA;
	}
	debug_fd = debug_file_of(u, elf, fd, pid, path);
	/* a debug file that is not ELF is no reason to go without .eh_frame */
	if (debug_fd >= 0)
		debug = elf_read__begin(debug_fd, &u->b);
	keyed = !cfi_table__digest(elf, debug, &u->b, probe.key.digest);
	err = go_runtime__read(elf, &u->b, &go);
	f->go = !err;
	/* 0, 0: all its mappings are Go's */
	f->go_text = go.only_go ? (struct go_range){ 0, 0 } : go.text;
	if (keyed && f->go)
		keyed = !go_runtime__digest(elf, &u->b, &go, probe.go_digest);
	if (keyed && err != -ECANCELED)
		same = tfind(&probe, &u->by_key, cmp_rows_key);
	if (err == -ECANCELED) {
		/* the run is ending */
	} else if (same) {
		f->first_row = (*same)->first_row;
		f->nr_rows = (*same)->nr_rows;
		f->go = (*same)->go;
		f->go_text = (*same)->go_text;
		u->stats.shared++;
		err = 0;
	} else {
		err = table_of(u, elf, debug, st, keyed ? &probe.key : NULL, path, &t);
		if (f->go)
			err = go_table(u, elf, &go, path, err, &t);
		/*
		 * What its code says where its CFI says nothing (the cache's
		 * table is the CFI's); what cannot be found leaves those rows.
		 */
		else if (!err)
			(void)cfi_code__apply(elf, &u->b, &t);
		if (!err) {
			err = place_rows(u, &t, f);
			cfi_table__release(&t);
		}
		if (!err && keyed)
			remember_rows(u, &probe, f);
	}
	elf_end(debug);
	if (debug_fd >= 0)
		close(debug_fd);
	elf_end(elf);
	return err;
}

/*
 * map_files opens nothing without CAP_CHECKPOINT_RESTORE (or
 * CAP_SYS_ADMIN): EPERM for every file of every process, and a run that
 * builds no table at all must say why, once.
 */
static void map_files_denied(struct unwind_procs *u)
{
	if (!u->stats.denied++ && u->denied)
		u->denied(u->denied_ctx);
}

/* f's table, of the file open at fd (path as pid maps it), built or loaded now. */
static void build_file(struct unwind_procs *u, int fd, const struct stat *st, pid_t pid,
		       const char *path, struct unwind_file *f)
{
	u->stats.waiting--;
	f->status = load_file(u, fd, st, pid, path, f);
	/* built once: a file never waits again, or walks would ask for it forever */
	if (f->status == UNWIND_FILE_WAITING)
		f->status = -EIO;
	if (!f->status)
		u->stats.files++;
	else if (f->status == -ENOSPC)
		u->stats.no_room++;
	else
		u->stats.no_table++;
	/* a build cut short as the run ends is no news */
	if (f->status && f->status != -ECANCELED && u->notice)
		u->notice(path, why_no_table(f->status), u->notice_ctx);
}

const struct unwind_file *unwind_files__find(struct unwind_procs *u, const struct file_stamp *id)
{
	struct unwind_file key = { .id = *id }, **slot = tfind(&key, &u->files, cmp_file);

	return slot ? *slot : NULL;
}

const struct unwind_file *unwind_files__of(struct unwind_procs *u, pid_t pid,
					   const struct map_entry *e, bool build)
{
	struct unwind_file key = { 0 }, *f, **slot;
	char path[256];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", u->proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EPERM)
			map_files_denied(u);
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	file_stamp__init(&key.id, &st);
	slot = tfind(&key, &u->files, cmp_file);
	if (slot) {
		f = *slot;
	} else {
		/* whole before tsearch(): it places f by comparing it */
		f = malloc(sizeof(*f));
		if (f)
			*f = key;
		if (!f || !tsearch(f, &u->files, cmp_file)) {
			free(f);
			close(fd);
			return NULL;
		}
		f->status = UNWIND_FILE_WAITING;
		u->stats.met++;
		u->stats.waiting++;
	}
	if (f->status == UNWIND_FILE_WAITING && build)
		build_file(u, fd, &st, pid, e->path, f);
	close(fd);
	return f;
}

/* The bias of mapping e of file f: pc - bias is the file's address. */
static bool mapping_bias(const struct unwind_file *f, const struct map_entry *e, __u64 *bias)
{
	for (int i = 0; i < f->nr_segs; i++) {
		uint64_t page_off = f->segs[i].off & ~4095ull;

		if (e->offset < page_off || e->offset >= f->segs[i].off + f->segs[i].filesz)
			continue;
		*bias = e->start - (f->segs[i].vaddr - f->segs[i].off + e->offset);
		return true;
	}
	return false;
}

/* The vDSO's table, built and loaded once a run. */
static const struct unwind_file *vdso_file(struct unwind_procs *u)
{
	struct unwind_file *f = &u->vdso_file;
	struct cfi_table t;
	uint64_t t0, vaddr;

	if (!u->vdso_tried && !f->status) {
		u->vdso_tried = true;
		t0 = unwind__mono_ns();
		f->status = vdso_image__table(&u->vdso, &u->b, &t, &vaddr);
		u->stats.build_ns += unwind__mono_ns() - t0;
		if (!f->status) {
			f->segs[0].vaddr = vaddr;
			f->segs[0].filesz = u->vdso.size;
			f->nr_segs = 1;
			f->status = place_rows(u, &t, f);
			cfi_table__release(&t);
		}
		/* counted apart (stats.vdso): not a file, and built every run */
		if (f->status == -ENOSPC)
			u->stats.no_room++;
		if (f->status && f->status != -ECANCELED && u->notice)
			u->notice("[vdso]", why_no_table(f->status), u->notice_ctx);
	}
	return f->status ? NULL : f;
}

const struct unwind_file *unwind_files__vdso(struct unwind_procs *u, pid_t pid,
					     const struct map_entry *e)
{
	/* its bytes first: the table is built when a process maps the same */
	if (u->vdso_file.status ||
	    !vdso_image__mapped_at(&u->vdso, u->proc_root, pid, e->start, e->end - e->start))
		return NULL;
	return vdso_file(u);
}

bool unwind_files__has_vdso(const struct unwind_procs *u, const struct unwind_proc_big *p)
{
	for (uint32_t i = 0; i < p->nr && !u->vdso_file.status && u->vdso_file.nr_rows; i++)
		if (p->maps[i].nr_rows && p->maps[i].first_row == u->vdso_file.first_row)
			return true;
	return false;
}

size_t unwind_files__map(const struct unwind_file *f, const struct map_entry *e,
			 struct unwind_map *m, size_t room)
{
	static const struct go_range all;
	bool placed;

	memset(m, 0, sizeof(*m));
	m->start = e->start;
	m->len = (__u32)(e->end - e->start);
	if (!f)
		return 1;
	/* its frames by frame pointers until a walk asks for the table */
	if (f->status == UNWIND_FILE_WAITING) {
		m->flags = UNWIND_MAP_WANT;
		return 1;
	}
	placed = mapping_bias(f, e, &m->bias);
	if (!f->status && placed) {
		m->first_row = f->first_row;
		m->nr_rows = f->nr_rows;
	}
	/* without rows its frames go by frame pointers, and may switch stacks */
	return f->go ? go_runtime__map(placed ? &f->go_text : &all, m, room) : 1;
}
