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

#include "cfi_code.h"
#include "cfi_table.h"
#include "debuginfo.h"
#include "elf_read.h"
#include "file_id.h"
#include "fnv.h"
#include "go_runtime.h"
#include "proc_maps.h"
#include "proc_stat.h"
#include "profile.h"
#include "table_cache.h"
#include "unwind_procs.h"
#include "vdso_image.h"

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
	bool go;		/* a Go executable: its mappings are flagged (go_runtime.h) */
	struct go_range go_text;
};

/*
 * What the worker knows of a pid it gave tables: which process it was
 * (its start time: a reused pid is another), what was published for it,
 * and how the last loading went.
 */
struct proc_rec {
	pid_t pid;
	uint64_t start_time;	/* /proc/PID/stat, clock ticks since boot */
	uint64_t fingerprint;	/* of the entry published; 0: none */
	int status;		/* the last unwind_procs__add_pid(): 0 or -errno */
	uint64_t published_ns;	/* CLOCK_MONOTONIC: first published, or 0 */
};

struct unwind_procs {
	int rows_fd, procs_fd, big_fd;
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

struct unwind_procs *unwind_procs__new(const struct unwind_map_fds *fds, const char *proc_root,
				       struct table_cache *cache)
{
	int rows_fd = fds->rows;
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
	u->procs_fd = fds->procs;
	u->big_fd = fds->big;
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
	/* none, or not one we can read: every [vdso] by frame pointers */
	u->vdso_file.status = vdso_image__self(&u->vdso);
	return u;
}

void unwind_procs__set_vdso(struct unwind_procs *u, const void *image, size_t size)
{
	u->vdso_file.status = vdso_image__of(&u->vdso, image, size);
	u->vdso_tried = false;
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

/* Which file a kept mapping is of: its copies are counted. */
struct kept_file {
	uint64_t inode;
	unsigned int dev_major, dev_minor;
};

/*
 * Whether mapping e is of a file that already has UNWIND_MAPS_PER_FILE
 * of the nr mappings kept: a process that maps one file 60,000 times
 * must leave room for its libraries.
 */
static bool too_many_copies(const struct map_entry *e, const struct kept_file *kept, size_t nr)
{
	size_t n = 0;

	if (!e->inode)
		return false;
	for (size_t j = 0; j < nr; j++)
		n += kept[j].inode == e->inode && kept[j].dev_major == e->dev_major &&
		     kept[j].dev_minor == e->dev_minor;
	return n >= UNWIND_MAPS_PER_FILE;
}

/* The vDSO's table, built and loaded once a run. */
static const struct unwind_file *vdso_file(struct unwind_procs *u)
{
	struct unwind_file *f = &u->vdso_file;
	struct cfi_table t;
	uint64_t t0, vaddr;

	if (!u->vdso_tried && !f->status) {
		u->vdso_tried = true;
		t0 = mono_ns();
		f->status = vdso_image__table(&u->vdso, &u->b, &t, &vaddr);
		u->stats.build_ns += mono_ns() - t0;
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

/* pid's [vdso] e, when it is the vDSO whose table we have. */
static const struct unwind_file *vdso_of(struct unwind_procs *u, pid_t pid,
					 const struct map_entry *e)
{
	/* its bytes first: the table is built when a process maps the same */
	if (u->vdso_file.status ||
	    !vdso_image__mapped_at(&u->vdso, u->proc_root, pid, e->start, e->end - e->start))
		return NULL;
	return vdso_file(u);
}

/* Whether one of the mappings in p has the vDSO's table. */
static bool has_vdso(const struct unwind_procs *u, const struct unwind_proc_big *p)
{
	for (uint32_t i = 0; i < p->nr && !u->vdso_file.status && u->vdso_file.nr_rows; i++)
		if (p->maps[i].nr_rows && p->maps[i].first_row == u->vdso_file.first_row)
			return true;
	return false;
}

/*
 * Mapping e of pid into m, with its file's table where it has one; a Go
 * file's may take up to room entries (go_runtime__map). Returns how many.
 */
static size_t add_mapping(struct unwind_procs *u, pid_t pid, const struct map_entry *e,
			  struct unwind_map *m, size_t room)
{
	const struct unwind_file *f = e->path[0] == '/' ? file_of(u, pid, e) :
		!strcmp(e->path, "[vdso]") ? vdso_of(u, pid, e) : NULL;
	static const struct go_range all;
	bool placed;

	m->start = e->start;
	m->len = (__u32)(e->end - e->start);
	if (!f)
		return 1;
	placed = mapping_bias(f, e, &m->bias);
	if (!f->status && placed) {
		m->first_row = f->first_row;
		m->nr_rows = f->nr_rows;
	}
	/* without rows its frames go by frame pointers, and may switch stacks */
	return f->go ? go_runtime__map(placed ? &f->go_text : &all, m, room) : 1;
}

/*
 * Every executable mapping of pid into p (UNWIND_MAX_MAPS_BIG at most),
 * with its file's table where it has one (the vDSO's where it is the one
 * we have); JIT code and files without tables are walked by frame
 * pointers. *partial: some were left
 * out. Read line by line, keeping only what goes into p: a process with
 * 60,000 mappings costs no memory for them.
 */
static int fill_proc(struct unwind_procs *u, pid_t pid, struct unwind_proc_big *p, bool *partial)
{
	struct kept_file *kept = malloc(UNWIND_MAX_MAPS_BIG * sizeof(*kept));
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (!kept)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f) {
		free(kept);
		return errno == ENOENT ? -ESRCH : -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		struct map_entry e;

		if (map_entry__parse(line, &e))
			continue;
		/* past a full entry, or a file's cap: only that there was more */
		if (map_entry__is_exec(&e) &&
		    (p->nr == UNWIND_MAX_MAPS_BIG || too_many_copies(&e, kept, p->nr) ||
		     e.end - e.start > UINT32_MAX)) {
			*partial = true;
		} else if (map_entry__is_exec(&e)) {
			size_t n = add_mapping(u, pid, &e, &p->maps[p->nr], UNWIND_MAX_MAPS_BIG - p->nr);

			/* a Go file's parts are one mapping of it */
			for (size_t i = 0; i < n; i++)
				kept[p->nr + i] = i ? (struct kept_file){ 0 }
						    : (struct kept_file){ e.inode, e.dev_major, e.dev_minor };
			p->nr += (uint32_t)n;
		}
		map_entry__release(&e);
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	free(line);
	free(kept);
	return err;
}

/* What a published entry says, to tell whether the mappings changed since. */
static uint64_t fingerprint_of(const struct unwind_proc_big *p, bool partial)
{
	uint64_t h = fnv64_step(FNV64_OFFSET, ((uint64_t)p->nr << 1) | partial);

	for (uint32_t i = 0; i < p->nr; i++) {
		const struct unwind_map *m = &p->maps[i];

		h = fnv64_step(h, m->start);
		h = fnv64_step(h, m->bias);
		h = fnv64_step(h, ((uint64_t)m->len << 32) | m->first_row);
		h = fnv64_step(h, ((uint64_t)m->nr_rows << 32) | m->flags);
	}
	return h | 1;	/* never 0, "none" */
}

static int cmp_rec(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* pid's record, made when missing (NULL: no memory). */
static struct proc_rec *rec_of(struct unwind_procs *u, pid_t pid)
{
	struct proc_rec key = { .pid = pid }, *r, **slot = tfind(&key, &u->recs, cmp_rec);

	if (slot)
		return *slot;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pid = pid;
	if (!tsearch(r, &u->recs, cmp_rec)) {
		free(r);
		return NULL;
	}
	return r;
}

/* An update of the entry of pid that must find it still there (exec and exit delete it). */
static int update_existing(int fd, __u32 key, const void *value)
{
	if (!bpf_map_update_elem(fd, &key, value, BPF_EXIST))
		return 0;
	return errno == ENOENT ? -ESTALE : -errno;
}

/*
 * Publish the mappings in all for pid unless the process exec'd or
 * exited since the caller began: those delete the entry (profile.bpf.c),
 * and only an entry still there is replaced, so tables of an image gone
 * are never used. More than an entry holds go to the big entry first;
 * the small one then points there.
 */
static int publish(struct unwind_procs *u, __u32 key, const struct unwind_proc_big *all,
		   bool *partial, struct unwind_proc *small)
{
	int err;

	memset(small, 0, sizeof(*small));
	small->partial = *partial;
	if (all->nr <= UNWIND_MAX_MAPS) {
		small->nr = all->nr;
		memcpy(small->maps, all->maps, all->nr * sizeof(all->maps[0]));
		err = update_existing(u->procs_fd, key, small);
		/* a big entry of before is no use now */
		if (!err)
			bpf_map_delete_elem(u->big_fd, &key);
		return err;
	}
	if (bpf_map_update_elem(u->big_fd, &key, all, BPF_ANY)) {
		/* the big map full: what an entry holds, the rest left out */
		if (errno != E2BIG)
			return -errno;
		u->stats.big_full++;
		small->nr = UNWIND_MAX_MAPS;
		small->partial = *partial = true;
		memcpy(small->maps, all->maps, sizeof(small->maps));
		return update_existing(u->procs_fd, key, small);
	}
	small->big = 1;
	err = update_existing(u->procs_fd, key, small);
	/* exec or exit deleted the small entry: the big one is stale */
	if (err)
		bpf_map_delete_elem(u->big_fd, &key);
	return err;
}

/* Delete pid's entries (both), as exec and exit do. */
static void forget(struct unwind_procs *u, __u32 key)
{
	bpf_map_delete_elem(u->procs_fd, &key);
	bpf_map_delete_elem(u->big_fd, &key);
}

static int add_pid(struct unwind_procs *u, pid_t pid, struct proc_rec *rec)
{
	struct unwind_proc_big *all = calloc(1, sizeof(*all));
	struct unwind_proc *small = calloc(1, sizeof(*small));
	struct proc_stat_info before, after;
	__u32 key = (__u32)pid;
	bool had, partial = false;
	uint64_t fp;
	int err;

	if (!all || !small) {
		err = -ENOMEM;
		goto out;
	}
	/* a process gone, or a zombie (its maps read empty), gets no entry */
	err = proc_stat__read(u->proc_root, pid, &before);
	if (err == -ENOENT || (!err && before.ended))
		err = -ESRCH;
	if (err)
		goto out;
	/* a placeholder first (nr 0: frame pointers), for exec to delete */
	had = !bpf_map_lookup_elem(u->procs_fd, &key, small);
	if (had && rec && rec->fingerprint && rec->start_time != before.start_time) {
		/* another process's entry, left by a race with its exit */
		forget(u, key);
		had = false;
	}
	memset(small, 0, sizeof(*small));
	if (!had && bpf_map_update_elem(u->procs_fd, &key, small, BPF_NOEXIST) && errno != EEXIST) {
		err = -errno;
		if (err == -E2BIG)
			u->stats.procs_full++;
		goto out;
	}
	err = fill_proc(u, pid, all, &partial);
	/* no executable mapping: it exited while we read (a zombie's maps are empty) */
	if (!err && !all->nr)
		err = -ESRCH;
	fp = err ? 0 : fingerprint_of(all, partial);
	if (!err && had && rec && rec->fingerprint == fp) {
		/* the same mappings as published: nothing to do */
		u->stats.unchanged++;
		goto out;
	}
	if (!err)
		err = publish(u, key, all, &partial, small);
	/*
	 * An exit between the first reading of its state and the placeholder
	 * found no entry to delete: this one would stay until the pid is
	 * reused. Look again, now that the entry is there.
	 */
	if (!err && (proc_stat__read(u->proc_root, pid, &after) || after.ended ||
		     after.start_time != before.start_time))
		err = -ESRCH;
	if (err && (!had || err == -ESRCH))
		forget(u, key);
	if (!err) {
		u->stats.procs++;
		u->stats.partial_procs += partial;
		u->stats.vdso += has_vdso(u, all);
		if (rec) {
			rec->start_time = before.start_time;
			rec->fingerprint = fp;
		}
	} else if (rec) {
		rec->fingerprint = 0;
	}
out:
	free(all);
	free(small);
	return err;
}

int unwind_procs__add_pid(struct unwind_procs *u, pid_t pid)
{
	struct proc_rec *rec = rec_of(u, pid);
	int err = add_pid(u, pid, rec);

	if (rec) {
		rec->status = err;
		if (!err && !rec->published_ns)
			rec->published_ns = mono_ns();
	}
	return err;
}

void unwind_procs__status(const struct unwind_procs *u, pid_t pid, struct unwind_pid_status *st)
{
	struct proc_rec key = { .pid = pid }, **slot = tfind(&key, &u->recs, cmp_rec);

	*st = (struct unwind_pid_status){ .err = -ENOENT };
	if (!slot)
		return;
	st->err = (*slot)->status;
	st->published = (*slot)->published_ns != 0;
	st->published_ns = (*slot)->published_ns;
}

/*
 * Delete the entries of processes that are gone, or whose pid is another
 * process's now: left by a race with their exit, nothing else would.
 */
size_t unwind_procs__sweep(struct unwind_procs *u)
{
	__u32 *keys = malloc(UNWIND_MAX_PROCS * sizeof(*keys)), *prev = NULL;
	struct proc_stat_info now;
	size_t nr = 0, n = 0;

	if (!keys)
		return 0;
	/* the keys first: a key deleted mid-walk would start the walk again */
	while (nr < UNWIND_MAX_PROCS && !bpf_map_get_next_key(u->procs_fd, prev, &keys[nr])) {
		prev = &keys[nr];
		nr++;
	}
	for (size_t i = 0; i < nr; i++) {
		struct proc_rec probe = { .pid = (pid_t)keys[i] }, **slot;
		int err = proc_stat__read(u->proc_root, probe.pid, &now);
		/* only what is sure: a live process's entry deleted waits long for the next */
		bool stale = err == -ENOENT || (!err && now.ended);

		if (!err && !stale) {
			slot = tfind(&probe, &u->recs, cmp_rec);
			stale = slot && (*slot)->fingerprint && (*slot)->start_time != now.start_time;
		}
		if (stale) {
			forget(u, keys[i]);
			n++;
		}
	}
	free(keys);
	u->stats.swept += n;
	return n;
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

void unwind_procs__set_denied(struct unwind_procs *u, unwind_denied_fn fn, void *ctx)
{
	u->denied = fn;
	u->denied_ctx = ctx;
}

bool unwind_procs__published(const struct unwind_procs *u, pid_t pid)
{
	struct unwind_proc *p = malloc(sizeof(*p));
	__u32 key = (__u32)pid;
	bool found;

	if (!p)
		return false;
	found = !bpf_map_lookup_elem(u->procs_fd, &key, p) && (p->nr || p->big);
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
	tdestroy(u->recs, free);
	table_cache__free(u->cache);
	free(u);
}
