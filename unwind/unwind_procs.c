// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_procs.c - unwind tables of sampled processes into the BPF maps
 * (unwind_procs.h).
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cfi_table.h"
#include "debuginfo.h"
#include "elf_read.h"
#include "file_id.h"
#include "proc_maps.h"
#include "profile.h"
#include "table_cache.h"
#include "unwind_procs.h"

#define MAX_EXEC_SEGS 4
#define UNWIND_MAX_EH_FRAME (64ull << 20)
/* A debug file found by .gnu_debuglink is checksummed whole: 256 MiB, ~0.1 s. */
#define UNWIND_MAX_DEBUGLINK_CRC (256ull << 20)

/* One file, by its stamp; its rows in the shared array once built. */
struct unwind_file {
	struct file_stamp id;
	int status;		/* 0: rows loaded; else why not (-ENOENT, -ENOSPC...) */
	uint32_t first_row, nr_rows;
	/* executable PT_LOADs: an offset in [off, off + filesz) is at vaddr - off + it */
	struct { uint64_t off, filesz, vaddr; } segs[MAX_EXEC_SEGS];
	int nr_segs;
};

struct unwind_procs {
	int rows_fd, procs_fd;
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
};

static int cmp_file(const void *a, const void *b)
{
	return file_stamp__cmp(&((const struct unwind_file *)a)->id,
			       &((const struct unwind_file *)b)->id);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct unwind_procs *unwind_procs__new(int rows_fd, int procs_fd, const char *proc_root,
				       struct table_cache *cache)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct unwind_procs *u;

	if (bpf_obj_get_info_by_fd(rows_fd, &info, &len))
		return NULL;
	if (info.value_size != sizeof(struct unwind_row) || !info.max_entries) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->rows_fd = rows_fd;
	u->procs_fd = procs_fd;
	u->max_rows = u->stats.max_rows = info.max_entries;
	u->proc_root = proc_root;
	u->cache = cache;
	u->b = *budget__default();
	/*
	 * Any user's .eh_frame is read (cfi_check.c bounds what libdw does
	 * with it, at ~0.3 s a MiB at worst): 64 MiB, five times libxul's.
	 */
	u->b.max_section_bytes = UNWIND_MAX_EH_FRAME;
	u->b.max_inflate_bytes = UNWIND_MAX_EH_FRAME;
	/*
	 * One worker loads every process's tables: a user's debuglink to a
	 * huge file next to their binary must not hold it up for seconds.
	 */
	u->b.max_crc_bytes = UNWIND_MAX_DEBUGLINK_CRC;
	u->b.cancel = &u->cancel;
	return u;
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
	t0 = mono_ns();
	err = cfi_table__build_debug(elf, debug, &u->b, t);
	u->stats.build_ns += mono_ns() - t0;
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

/* Rows already loaded for a table of the same digest (a copy of the file), or NULL. */
struct rows_by_key {
	struct table_key key;
	uint32_t first_row, nr_rows;
};

static int cmp_rows_key(const void *a, const void *b)
{
	return memcmp(&((const struct rows_by_key *)a)->key, &((const struct rows_by_key *)b)->key,
		      sizeof(struct table_key));
}

static void remember_rows(struct unwind_procs *u, const struct table_key *key,
			  const struct unwind_file *f)
{
	struct rows_by_key *r = malloc(sizeof(*r));

	if (!r)
		return;
	r->key = *key;
	r->first_row = f->first_row;
	r->nr_rows = f->nr_rows;
	if (!tsearch(r, &u->by_key, cmp_rows_key))
		free(r);
}

/*
 * Copy t into the rows array for f, a batch update at a time. (Not through
 * mmap: mapping the array makes all of it resident in the tool, 64 MiB.)
 */
static int place_rows(struct unwind_procs *u, const struct cfi_table *t, struct unwind_file *f)
{
	enum { BATCH = 4096 };
	__u32 keys[BATCH];

	if (!t->nr)
		return -ENOENT;
	if (t->nr > u->max_rows - u->next_row)
		return -ENOSPC;
	for (size_t done = 0; done < t->nr;) {
		__u32 n = t->nr - done < BATCH ? (__u32)(t->nr - done) : BATCH;

		for (__u32 i = 0; i < n; i++)
			keys[i] = (__u32)(u->next_row + done + i);
		if (bpf_map_update_batch(u->rows_fd, keys, t->rows + done, &n, NULL))
			return -errno;
		done += n;
	}
	f->first_row = (uint32_t)u->next_row;
	f->nr_rows = (uint32_t)t->nr;
	u->next_row += t->nr;
	return 0;
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
	struct rows_by_key probe, **same = NULL;
	Elf *elf, *debug = NULL;
	struct cfi_table t;
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
	if (keyed)
		same = tfind(&probe, &u->by_key, cmp_rows_key);
	if (same) {
		f->first_row = (*same)->first_row;
		f->nr_rows = (*same)->nr_rows;
		u->stats.shared++;
		err = 0;
	} else {
		err = table_of(u, elf, debug, st, keyed ? &probe.key : NULL, path, &t);
		if (!err) {
			err = place_rows(u, &t, f);
			cfi_table__release(&t);
		}
		if (!err && keyed)
			remember_rows(u, &probe.key, f);
	}
	elf_end(debug);
	if (debug_fd >= 0)
		close(debug_fd);
	elf_end(elf);
	return err;
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

/* The file of mapping e of pid, its table built the first time it is met. */
static const struct unwind_file *file_of(struct unwind_procs *u, pid_t pid,
					 const struct map_entry *e)
{
	struct unwind_file key = { 0 }, *f, **slot;
	char path[256];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", u->proc_root, (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	file_stamp__init(&key.id, &st);
	slot = tfind(&key, &u->files, cmp_file);
	if (slot) {
		close(fd);
		return *slot;
	}
	/* whole before tsearch(): it places f by comparing it */
	f = malloc(sizeof(*f));
	if (f)
		*f = key;	/* before tsearch compares it */
	if (!f || !tsearch(f, &u->files, cmp_file)) {
		free(f);
		close(fd);
		return NULL;
	}
	f->status = load_file(u, fd, &st, pid, e->path, f);
	close(fd);
	if (!f->status)
		u->stats.files++;
	else if (f->status == -ENOSPC)
		u->stats.no_room++;
	else
		u->stats.no_table++;
	/* a build cut short as the run ends is no news */
	if (f->status && f->status != -ECANCELED && u->notice)
		u->notice(e->path, why_no_table(f->status), u->notice_ctx);
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

/*
 * Whether mapping e is of a file that already has UNWIND_MAPS_PER_FILE
 * of the nr mappings kept: a process that maps one file 60,000 times
 * must leave room for its libraries.
 */
static bool too_many_copies(const struct map_entry *e, const struct map_entry *kept, size_t nr)
{
	size_t n = 0;

	if (!e->inode)
		return false;
	for (size_t j = 0; j < nr; j++)
		n += kept[j].inode == e->inode && kept[j].dev_major == e->dev_major &&
		     kept[j].dev_minor == e->dev_minor;
	return n >= UNWIND_MAPS_PER_FILE;
}

/* Mapping e of pid into m, with its file's table where it has one. */
static void add_mapping(struct unwind_procs *u, pid_t pid, const struct map_entry *e,
			struct unwind_map *m)
{
	const struct unwind_file *f = e->path[0] == '/' ? file_of(u, pid, e) : NULL;

	m->start = e->start;
	m->end = e->end;
	if (!f || f->status || !mapping_bias(f, e, &m->bias))
		return;
	m->first_row = f->first_row;
	m->nr_rows = f->nr_rows;
}

/*
 * Every executable mapping of pid into p, with its file's table where it
 * has one; [vdso], JIT code and files without tables are walked by frame
 * pointers. Read line by line, keeping only what goes into p: a process
 * with 60,000 mappings costs no memory for them.
 */
static int fill_proc(struct unwind_procs *u, pid_t pid, struct unwind_proc *p)
{
	struct map_entry kept[UNWIND_MAX_MAPS];
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &cap, f) > 0) {
		struct map_entry e;

		if (map_entry__parse(line, &e))
			continue;
		if (!map_entry__is_exec(&e)) {
			map_entry__release(&e);
			continue;
		}
		/* past a full entry, or a file's cap: only that there was more */
		if (p->nr == UNWIND_MAX_MAPS || too_many_copies(&e, kept, p->nr)) {
			p->partial = 1;
			map_entry__release(&e);
			continue;
		}
		kept[p->nr] = e;
		add_mapping(u, pid, &e, &p->maps[p->nr]);
		p->nr++;
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	free(line);
	for (size_t i = 0; i < p->nr; i++)
		map_entry__release(&kept[i]);
	return err;
}

/*
 * Publish p for pid unless the process exec'd or exited since the caller
 * began: those delete the entry (profile.bpf.c), and only an entry still
 * there is replaced, so tables of an image gone are never used.
 */
static int publish(struct unwind_procs *u, __u32 key, const struct unwind_proc *p)
{
	if (!bpf_map_update_elem(u->procs_fd, &key, p, BPF_EXIST))
		return 0;
	return errno == ENOENT ? -ESTALE : -errno;
}

int unwind_procs__add_pid(struct unwind_procs *u, pid_t pid)
{
	struct unwind_proc *p = calloc(1, sizeof(*p));
	__u32 key = (__u32)pid;
	bool had;
	int err;

	if (!p)
		return -ENOMEM;
	/* a placeholder first (nr 0: frame pointers), for exec to delete */
	had = !bpf_map_lookup_elem(u->procs_fd, &key, p);
	memset(p, 0, sizeof(*p));
	if (!had && bpf_map_update_elem(u->procs_fd, &key, p, BPF_NOEXIST) && errno != EEXIST) {
		err = -errno;
		free(p);
		return err;
	}
	err = fill_proc(u, pid, p);
	if (!err)
		err = publish(u, key, p);
	if (err && !had)
		bpf_map_delete_elem(u->procs_fd, &key);
	if (!err)
		u->stats.procs++;
	free(p);
	return err;
}

void unwind_procs__set_debug_dirs(struct unwind_procs *u, const char *const *dirs, size_t nr)
{
	u->debug_dirs = dirs;
	u->nr_debug_dirs = nr;
}

void unwind_procs__set_notice(struct unwind_procs *u, unwind_notice_fn fn, void *ctx)
{
	u->notice = fn;
	u->notice_ctx = ctx;
}

bool unwind_procs__published(const struct unwind_procs *u, pid_t pid)
{
	struct unwind_proc *p = malloc(sizeof(*p));
	__u32 key = (__u32)pid;
	bool found;

	if (!p)
		return false;
	found = !bpf_map_lookup_elem(u->procs_fd, &key, p) && p->nr;
	free(p);
	return found;
}

void unwind_procs__cancel(struct unwind_procs *u)
{
	__atomic_store_n(&u->cancel, 1, __ATOMIC_RELAXED);
}

void unwind_procs__stats(const struct unwind_procs *u, struct unwind_procs_stats *st)
{
	struct table_cache_stats cs = { 0 };

	*st = u->stats;
	st->rows = u->next_row;
	if (u->cache)
		table_cache__stats(u->cache, &cs);
	st->evicted = cs.evicted;
	st->over_cap = cs.over_cap;
}

void unwind_procs__free(struct unwind_procs *u)
{
	if (!u)
		return;
	tdestroy(u->files, free);
	tdestroy(u->by_key, free);
	table_cache__free(u->cache);
	free(u);
}
