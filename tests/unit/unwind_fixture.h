/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_fixture.h - what test_unwind_procs.c and test_unwind_rows.c
 * share: the three unwind maps made here as profile.bpf.c has them (root,
 * CAP_BPF), unwind_procs over them and a fake /proc whose map_files are
 * symlinks to the fixtures, and the assertions on the entries and rows.
 */
#ifndef UNWIND_FIXTURE_H
#define UNWIND_FIXTURE_H

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "symbols/budget.h"
#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "fake_proc.h"
#include "unwind/go_runtime.h"
#include "symbols/proc_maps.h"
#include "profile.h"
#include "unwind/row_index.h"
#include "sym_fixtures.h"
#include "unwind/table_cache.h"
#include "unwind/unwind_procs.h"
#include "unwind/vdso_image.h"

#define FIXTURE_UNWIND FIXTURE_DIR "/fixture_unwind"
#define EXE_BIAS 0x555555550000ull
#define LIB_BIAS 0x7f0000000000ull
#define VDSO_LINE "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0    [vdso]\n"

static int rows_fd = -1, procs_fd = -1, big_fd = -1;
static struct unwind_procs *u;
/* the BPF side's rows_epoch, as unwind_procs moves it on */
static volatile uint64_t rows_epoch;

static inline void teardown(void)
{
	unwind_procs__free(u);
	u = NULL;
	if (rows_fd >= 0)
		close(rows_fd);
	if (procs_fd >= 0)
		close(procs_fd);
	if (big_fd >= 0)
		close(big_fd);
	rows_fd = procs_fd = big_fd = -1;
	fake_proc_teardown();
}

/*
 * The three maps as profile.bpf.c has them, rows of max_rows (map_flags:
 * the rows array's), bigs big entries; and u over them.
 */
static inline void start_flags(unsigned int max_rows, unsigned int bigs, __u32 map_flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = map_flags);
	struct unwind_map_fds fds;

	if (geteuid() != 0)
		skip_unless_ci("root: only root's files get tables");
	rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "test_rows", sizeof(__u32),
				 sizeof(struct unwind_row), max_rows, &opts);
	if (rows_fd < 0)
		skip_unless_ci("BPF maps (CAP_BPF): %s", strerror(errno));
	procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_procs", sizeof(__u32),
				  sizeof(struct unwind_proc), 16, NULL);
	cr_assert_geq(procs_fd, 0, "bpf_map_create: %s", strerror(errno));
	big_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_big", sizeof(__u32),
				sizeof(struct unwind_proc_big), bigs, NULL);
	cr_assert_geq(big_fd, 0, "bpf_map_create: %s", strerror(errno));
	rows_epoch = 0;
	fds = (struct unwind_map_fds){
		.rows = rows_fd, .procs = procs_fd, .big = big_fd, .rows_epoch = &rows_epoch,
	};
	u = unwind_procs__new(&fds, proc_root, NULL);
	cr_assert_not_null(u, "unwind_procs__new: %s", strerror(errno));
}

static inline void start_big(unsigned int max_rows, unsigned int bigs)
{
	start_flags(max_rows, bigs, 0);
}

static inline void start(unsigned int max_rows)
{
	start_big(max_rows, 4);
}

/* Append line, a mapping of path, to *maps, with its map_files link. */
static inline void append_mapping(char **maps, int pid, const char *path, const char *line)
{
	char *joined, rel[96], *link;
	uint64_t lo, hi;

	cr_assert_eq(sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi), 2);
	snprintf(rel, sizeof(rel), "%d/map_files/%" PRIx64 "-%" PRIx64, pid, lo, hi);
	link = path_in(proc_root, rel);
	cr_assert(symlink(path, link) == 0 || errno == EEXIST, "symlink: %s", strerror(errno));
	free(link);
	cr_assert_neq(asprintf(&joined, "%s%s", *maps ? *maps : "", line), -1);
	free(*maps);
	*maps = joined;
}

/* Append path's text mapping at bias to *maps. */
static inline void map_file(char **maps, int pid, const char *path, uint64_t bias)
{
	char *line = exec_mapping_line(path, bias, NULL);

	append_mapping(maps, pid, path, line);
	free(line);
}

/* Where map_file() maps path's text at bias. */
static inline uint64_t text_start(const char *path, uint64_t bias)
{
	char *line = exec_mapping_line(path, bias, NULL);
	uint64_t lo;

	cr_assert_eq(sscanf(line, "%" SCNx64, &lo), 1);
	free(line);
	return lo;
}

/*
 * What the walks do (user_stack.bpf.h): ask for the table of every
 * mapping of pid's entry that waits for one; then the worker builds them
 * (unwind_procs__load_asked). Returns how many were asked for.
 */
static inline int ask_all(int pid)
{
	struct unwind_proc *p = calloc(1, sizeof(*p));
	struct unwind_proc_big *b = calloc(1, sizeof(*b));
	struct unwind_map *maps;
	__u32 key = pid, nr;
	int asked = 0;

	cr_assert(p && b);
	cr_assert_eq(bpf_map_lookup_elem(procs_fd, &key, p), 0, "no entry for pid %d", pid);
	maps = p->maps;
	nr = p->nr;
	if (p->big) {
		cr_assert_eq(bpf_map_lookup_elem(big_fd, &key, b), 0);
		maps = b->maps;
		nr = b->nr;
	}
	for (__u32 i = 0; i < nr; i++) {
		if (maps[i].flags & UNWIND_MAP_WANT) {
			cr_assert_eq(maps[i].nr_rows, 0);
			maps[i].flags |= UNWIND_MAP_ASKED;
			asked++;
		}
	}
	if (asked)
		cr_assert_eq(bpf_map_update_elem(p->big ? big_fd : procs_fd, &key,
						 p->big ? (void *)b : (void *)p, BPF_EXIST), 0);
	free(p);
	free(b);
	if (asked)
		cr_assert_eq(unwind_procs__load_asked(u, pid), 0);
	return asked;
}

/*
 * A process of uid's with these maps, read and published, with every
 * table its files have, as walks that met them all.
 */
static inline void add_process_as(int pid, const char *maps, unsigned int uid)
{
	fake_process(proc_root, pid, maps, uid, pid, NULL);
	cr_assert_eq(unwind_procs__add_pid(u, pid), 0);
	ask_all(pid);
}

static inline void add_process(int pid, const char *maps)
{
	add_process_as(pid, maps, 0);
}

/* pid exits: the BPF side deletes its entries (on_exit), /proc forgets it. */
static inline void process_gone(int pid)
{
	char rel[64], *path;
	__u32 key = pid;

	bpf_map_delete_elem(procs_fd, &key);
	bpf_map_delete_elem(big_fd, &key);
	snprintf(rel, sizeof(rel), "%d/stat", pid);
	path = path_in(proc_root, rel);
	cr_assert_eq(unlink(path), 0);
	free(path);
}

/* pid's entry (allocated: 4 KiB), or NULL when there is none. */
static inline struct unwind_proc *entry(int pid)
{
	struct unwind_proc *p = calloc(1, sizeof(*p));
	__u32 key = pid;

	cr_assert_not_null(p);
	if (!bpf_map_lookup_elem(procs_fd, &key, p))
		return p;
	cr_assert_eq(errno, ENOENT, "lookup %d: %s", pid, strerror(errno));
	free(p);
	return NULL;
}

static inline bool has_entry(int pid)
{
	struct unwind_proc *p = entry(pid);

	free(p);
	return p != NULL;
}

static inline struct unwind_proc *must_entry(int pid)
{
	struct unwind_proc *p = entry(pid);

	cr_assert_not_null(p, "no entry for pid %d", pid);
	return p;
}

static inline void table_of(const char *path, struct cfi_table *t)
{
	cr_assert_eq(cfi_table__build_file(path, budget__default(), t), 0, "table of '%s'", path);
	cr_assert_gt(t->nr, 0);
}

/* The rows path's table takes in the array: its own and its page index's. */
static inline size_t rows_taken(const char *path)
{
	struct cfi_table t;
	size_t n;

	table_of(path, &t);
	n = t.nr + row_index__size(t.rows, t.nr);
	cfi_table__release(&t);
	return n;
}

/* m's rows, read through the array map, are path's table, and its page index follows them. */
static inline void assert_rows_are(const struct unwind_map *m, const char *path)
{
	struct unwind_row *index;
	struct cfi_table t;
	size_t nr_index;

	table_of(path, &t);
	cr_assert_eq(m->nr_rows, t.nr, "'%s': %u rows, its table %zu", path, m->nr_rows, t.nr);
	for (__u32 i = 0; i < m->nr_rows; i++) {
		__u32 idx = m->first_row + i;
		struct unwind_row row;

		cr_assert_eq(bpf_map_lookup_elem(rows_fd, &idx, &row), 0);
		cr_assert_eq(memcmp(&row, &t.rows[i], sizeof(row)), 0, "'%s' row %u differs", path, i);
	}
	nr_index = row_index__size(t.rows, t.nr);
	index = malloc(nr_index * sizeof(*index));
	cr_assert_not_null(index);
	row_index__build(t.rows, t.nr, index);
	for (__u32 i = 0; i < nr_index; i++) {
		__u32 idx = m->first_row + m->nr_rows + i;
		struct unwind_row row;

		cr_assert_eq(bpf_map_lookup_elem(rows_fd, &idx, &row), 0);
		cr_assert_eq(memcmp(&row, &index[i], sizeof(row)), 0, "'%s' index row %u differs", path, i);
	}
	free(index);
	cfi_table__release(&t);
}

/* pc of symbol name at bias is in m, and pc - m->bias is its ELF address. */
static inline void assert_bias(const struct unwind_map *m, const char *path, bool dynamic,
			const char *name, uint64_t bias)
{
	uint64_t addr, size;

	nm_lookup(path, dynamic ? "-D" : "", name, &addr, &size);
	cr_assert(bias + addr - m->start < m->len, "%s not in its mapping", name);
	cr_assert_eq(bias + addr - m->bias, addr, "%s: bias %#llx", name, (unsigned long long)m->bias);
}

struct notices {
	int n;
	char path[256], why[256];
};

static inline void on_notice(const char *path, const char *why, void *ctx)
{
	struct notices *seen = ctx;

	seen->n++;
	snprintf(seen->path, sizeof(seen->path), "%s", path);
	snprintf(seen->why, sizeof(seen->why), "%s", why);
}

#endif /* UNWIND_FIXTURE_H */
