// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_files.c - each executable file a sampled process maps: met when
 * a reading of the process's mappings is published, its unwind table
 * (from the cache, or built within a cap on the worker's CPU; a copy's
 * rows shared by digest) placed in the BPF rows array (row_store.h) when
 * a walk first asks for it, and where each mapping of it finds those rows
 * (unwind_procs_internal.h). Asked for again when met after its rows
 * were reclaimed or room was made since it found none.
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

int unwind_file__cmp(const void *a, const void *b)
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
	t0 = monotonic_ns();
	err = cfi_table__build_debug(elf, debug, &u->b, t);
	u->stats.build_ns += monotonic_ns() - t0;
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

/* f points at block b: its rows, and a Go file's flag and text as the block's. */
static void use_block(struct unwind_procs *u, struct unwind_file *f, struct row_block *b)
{
	row_store__link(u->rows, b, f);
	/* held already (it found no room before): its new block is in use */
	if (f->held)
		row_store__busy(u->rows, b);
	f->go = b->go;
	f->go_text = b->go_text;
}

/* t's rows into the array as f's, found by key (NULL: f's alone) for its copies. */
static int place_rows(struct unwind_procs *u, const struct row_key *key, const struct cfi_table *t,
		      struct unwind_file *f)
{
	struct row_block *b;
	int err = row_store__place(u->rows, key, t, u->uid, &b);

	if (err)
		return err;
	b->go = f->go;
	b->go_text = f->go_text;
	use_block(u, f, b);
	return 0;
}

/* Why f has no table, in words, for the notice (in buf, or static). */
static const char *why_no_table(const struct unwind_procs *u, int status, char *buf, size_t size)
{
	switch (status) {
	case -EDQUOT:
		snprintf(buf, size, "no unwind table: over uid %u's quota of rows (%u, half the %llu of --unwind-storage-size; it holds %u in tables in use)",
			 (unsigned int)u->uid, row_store__quota(u->rows),
			 (unsigned long long)u->max_rows, row_store__held(u->rows, u->uid));
		return buf;
	case -ENOENT:
		return "no unwind table: no .eh_frame nor .debug_frame, or no FDE in them";
	case -ENODATA:
		return "no unwind table: no executable segment";
	case -ENOEXEC:
		return "no unwind table: .eh_frame, .debug_frame or the ELF file cannot be read safely";
	case -ENOTSUP:
		return "no unwind table: not an x86-64 ELF file";
	case -ENOSPC:
		return "no unwind table: no free range of --unwind-storage-size rows holds it, the rest held by live processes' tables";
	case -ETIME:
		snprintf(buf, size, "no unwind table: given up after %.2f s of CPU, the most one file may take",
			 UNWIND_FILE_CPU_NS / 1e9);
		return buf;
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
	char why[320], buf[256];

	if (err == -ECANCELED || err == -ENOMEM)
		return err;
	if (err) {
		if (err != -ENOENT && u->notice) {
			snprintf(why, sizeof(why), "%s; a Go file: .gopclntab's tables instead",
				 why_no_table(u, err, buf, sizeof(buf)));
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
	struct row_key probe = { 0 };
	struct row_block *same = NULL;
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
		same = row_store__find(u->rows, &probe);
	if (err == -ECANCELED) {
		/* the run is ending */
	} else if (same) {
		use_block(u, f, same);
		u->stats.shared++;
		err = 0;
	} else if (!(err = row_store__room_for(u->rows, u->uid))) {
		/* (a uid at its quota, all its tables in use, gets none built for nothing) */
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
			err = place_rows(u, keyed ? &probe : NULL, &t, f);
			cfi_table__release(&t);
		}
	}
	elf_end(debug);
	if (debug_fd >= 0)
		close(debug_fd);
	elf_end(elf);
	return err;
}

/* load_file() within UNWIND_FILE_CPU_NS of this thread's CPU: -ETIME past it. */
static int load_cpu_capped(struct unwind_procs *u, int fd, const struct stat *st, pid_t pid,
			   const char *path, struct unwind_file *f)
{
	uint64_t ns;
	int err;

	budget_cpu__start(&u->cpu);
	err = load_file(u, fd, st, pid, path, f);
	ns = budget_cpu__stop(&u->cpu);
	u->reading_cpu_ns += ns;
	u->stats.file_cpu_ns += ns;
	if (ns > u->stats.file_cpu_max_ns)
		u->stats.file_cpu_max_ns = ns;
	/* stopped as the run ending would have: the cap stopped it */
	if (err && u->cpu.over && !__atomic_load_n(&u->cancel, __ATOMIC_RELAXED))
		err = -ETIME;
	return err;
}

/* f loaded, or why not: counted, and told. */
static void count_file(struct unwind_procs *u, struct unwind_file *f, const char *path)
{
	char why[256];

	if (!f->status)
		u->stats.files++;
	else if (f->status == -ENOSPC)
		u->stats.no_room++;
	else if (f->status == -EDQUOT)
		u->stats.over_quota++;
	else if (f->status == -ETIME)
		u->stats.over_cpu++;
	else
		u->stats.no_table++;
	if (f->status == -ENOSPC || f->status == -EDQUOT) {
		f->room_version = row_store__version(u->rows);
		f->uid = u->uid;
	}
	/* a build cut short as the run ends is no news */
	if (f->status && f->status != -ECANCELED && u->notice)
		u->notice(path, why_no_table(u, f->status, why, sizeof(why)), u->notice_ctx);
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

/*
 * Whether f, met again, waits for a walk to ask again: its rows were
 * reclaimed, or it found no room and room may have been made since (a
 * block gone idle or reclaimed), or not for this uid (another's quota).
 */
static bool load_again(const struct unwind_procs *u, const struct unwind_file *f)
{
	if (f->status == -ESTALE)
		return true;
	if (f->status != -ENOSPC && f->status != -EDQUOT)
		return false;
	return f->room_version != row_store__version(u->rows) ||
	       (f->status == -EDQUOT && f->uid != u->uid);
}

/*
 * f's table, of the file open at fd (path as pid maps it), built or
 * loaded now, charged to u->uid (the process that asked).
 */
static void build_file(struct unwind_procs *u, int fd, const struct stat *st, pid_t pid,
		       const char *path, struct unwind_file *f)
{
	u->stats.waiting--;
	/* what it was built from is read again */
	f->nr_segs = 0;
	f->go = false;
	f->status = load_cpu_capped(u, fd, st, pid, path, f);
	/* built once: a file never waits again, or walks would ask for it forever */
	if (f->status == UNWIND_FILE_WAITING)
		f->status = -EIO;
	count_file(u, f, path);
}

struct unwind_file *unwind_files__find(struct unwind_procs *u, const struct file_stamp *id)
{
	struct unwind_file key = { .id = *id }, **slot = tfind(&key, &u->files, unwind_file__cmp);

	return slot ? *slot : NULL;
}

struct unwind_file *unwind_files__of(struct unwind_procs *u, pid_t pid,
				     const struct map_entry *e, bool build)
{
	struct unwind_file key = { 0 }, *f, **slot;
	char path[256];
	struct stat st;
	int fd = -1;

	/* only a build needs the file open: to meet it, the reading's stamp does */
	if (!build && e->stamped) {
		key.id = e->stamp;
	} else {
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
	}
	slot = tfind(&key, &u->files, unwind_file__cmp);
	if (slot) {
		f = *slot;
		/* its rows taken back, or room made: a walk asks again */
		if (!build && load_again(u, f)) {
			f->status = UNWIND_FILE_WAITING;
			u->stats.waiting++;
		}
	} else {
		/* whole before tsearch(): it places f by comparing it */
		f = malloc(sizeof(*f));
		if (f)
			*f = key;	/* before tsearch compares it */
		if (!f || !tsearch(f, &u->files, unwind_file__cmp)) {
			free(f);
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		f->in_tree = true;
		f->status = UNWIND_FILE_WAITING;
		u->stats.met++;
		u->stats.waiting++;
	}
	/* this reading's turn is over: built in the process's next */
	if (f->status == UNWIND_FILE_WAITING && build && u->reading_cpu_ns >= UNWIND_READING_CPU_NS)
		u->more = true;
	else if (f->status == UNWIND_FILE_WAITING && build)
		build_file(u, fd, &st, pid, e->path, f);
	if (fd >= 0)
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
	uid_t uid = u->uid;
	char why[256];

	if (!u->vdso_tried && !f->status) {
		u->vdso_tried = true;
		t0 = monotonic_ns();
		f->status = vdso_image__table(&u->vdso, &u->b, &t, &vaddr);
		u->stats.build_ns += monotonic_ns() - t0;
		if (!f->status) {
			f->segs[0].vaddr = vaddr;
			f->segs[0].filesz = u->vdso.size;
			f->nr_segs = 1;
			/* every process's: root's, and never given back */
			u->uid = 0;
			f->status = place_rows(u, NULL, &t, f);
			u->uid = uid;
			if (!f->status)
				row_store__busy(u->rows, f->block);
			cfi_table__release(&t);
		}
		/* counted apart (stats.vdso): not a file, and built every run */
		if (f->status == -ENOSPC)
			u->stats.no_room++;
		if (f->status && f->status != -ECANCELED && u->notice)
			u->notice("[vdso]", why_no_table(u, f->status, why, sizeof(why)), u->notice_ctx);
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
