/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_procs_fixture.h - what test_py_procs.c and test_py_procs_given.c
 * share: a real "py_procs" BPF map made here (root, CAP_BPF), py_procs
 * over it and a fake /proc whose map_files are symlinks to files made
 * here and to the stand-in libpython, and a generation function the
 * tests set.
 */
#ifndef PY_PROCS_FIXTURE_H
#define PY_PROCS_FIXTURE_H

#include <bpf/bpf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fake_proc.h"
#include "python/py_bpf.h"
#include "python/py_files.h"
#include "python/py_procs.h"
#include "symbols/proc_maps.h"
#include "sym_fixtures.h"

#define FIXTURE_PYTHON FIXTURE_DIR "/libfixture_python.so"
#define LIB_BIAS 0x7f0000000000ull
#define JUNK_START 0x10000000ull

static int procs_fd = -1;
static struct py_procs *p;

static inline void teardown(void)
{
	py_procs__free(p);
	p = NULL;
	if (procs_fd >= 0)
		close(procs_fd);
	procs_fd = -1;
	fake_proc_teardown();
}

/* The generation each pid runs (what sampler__pid_gen() would say), and how often it was asked. */
static uint32_t running[512];
static int gen_asked;
/* From this many questions on, pid exec_pid runs exec_gen (an exec in the middle of a look). */
static int exec_after = -1, exec_pid;
static uint32_t exec_gen;

static inline uint32_t gen_of(pid_t pid, void *ctx)
{
	(void)ctx;
	if (exec_after >= 0 && gen_asked++ >= exec_after && pid == exec_pid)
		running[pid] = exec_gen;
	return pid >= 0 && (size_t)pid < ARRAY_SIZE(running) ? running[pid] : 0;
}

static inline void start_with(py_gen_fn gen)
{
	struct py_procs_opts opts = { .gen = gen };

	if (geteuid() != 0)
		skip_unless_ci("root: map_files and BPF maps");
	procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_py_procs", sizeof(__u32),
				  sizeof(struct py_proc), 16, NULL);
	if (procs_fd < 0)
		skip_unless_ci("BPF maps (CAP_BPF): %s", strerror(errno));
	opts.proc_root = proc_root;
	opts.procs_fd = procs_fd;
	p = py_procs__new(&opts);
	cr_assert_not_null(p, "py_procs__new: %s", strerror(errno));
}

static inline void start(void)
{
	start_with(NULL);
}

/* A process's maps being written, with their map_files links. */
struct maps {
	int pid;
	char *text;
	size_t len;
	FILE *f;
};

static inline void maps_begin(struct maps *m, int pid)
{
	m->pid = pid;
	m->f = open_memstream(&m->text, &m->len);
	cr_assert_not_null(m->f);
}

/* line, a mapping of path (whatever the line names), with its map_files link. */
static inline void maps_add_line(struct maps *m, const char *path, const char *line)
{
	char rel[96], *link;
	uint64_t lo, hi;

	cr_assert_eq(sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi), 2);
	snprintf(rel, sizeof(rel), "%d/map_files/%" PRIx64 "-%" PRIx64, m->pid, lo, hi);
	link = path_in(proc_root, rel);
	cr_assert(symlink(path, link) == 0, "symlink: %s", strerror(errno));
	free(link);
	fputs(line, m->f);
}

/* path (a small file, no ELF) mapped executable at start */
static inline void maps_add_file(struct maps *m, const char *path, uint64_t start)
{
	struct stat sb;
	char line[512];

	cr_assert_eq(stat(path, &sb), 0);
	snprintf(line, sizeof(line), "%" PRIx64 "-%" PRIx64 " r-xp 00000000 %02x:%02x %" PRIu64 "    %s\n",
		 start, start + 0x1000, major(sb.st_dev), minor(sb.st_dev), (uint64_t)sb.st_ino, path);
	maps_add_line(m, path, line);
}

/* The stand-in libpython's text at LIB_BIAS, shown in the maps as shown. */
static inline void maps_add_python(struct maps *m, const char *shown)
{
	char *line = exec_mapping_line(FIXTURE_PYTHON, LIB_BIAS, shown);

	maps_add_line(m, FIXTURE_PYTHON, line);
	free(line);
}

static inline void maps_end(struct maps *m)
{
	cr_assert_eq(fclose(m->f), 0);
	fake_process(proc_root, m->pid, m->text, 0, m->pid, NULL);
	free(m->text);
}

/*
 * The maps as the main thread's reading of them, into out: the fake
 * process has its map_files links and root, but no maps or stat file, so
 * a look that reads either fails.
 */
static inline void maps_end_reading(struct maps *m, struct proc_maps *out)
{
	char rel[64], *path;

	cr_assert_eq(fclose(m->f), 0);
	fake_process(proc_root, m->pid, m->text, 0, m->pid, NULL);
	cr_assert_eq(proc_maps__load_buf(m->text, m->len, out), 0);
	free(m->text);
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "%d/%s", m->pid, i ? "stat" : "maps");
		path = path_in(proc_root, rel);
		cr_assert_eq(unlink(path), 0, "unlink '%s': %s", path, strerror(errno));
		free(path);
	}
}

/* n small files of their own (not ELF), tmp/<dir>/f<i>, mapped at JUNK_START on */
static inline void maps_add_junk(struct maps *m, const char *dir, int n)
{
	for (int i = 0; i < n; i++) {
		char rel[128], *path;

		snprintf(rel, sizeof(rel), "%s/f%d", dir, i);
		path = write_in(tmp, rel, "not ELF: junk\n");
		maps_add_file(m, path, JUNK_START + (uint64_t)i * 0x2000);
		free(path);
	}
}

static inline struct py_procs_stats stats(void)
{
	struct py_procs_stats st;

	py_procs__stats(p, &st);
	return st;
}

static inline bool has_entry(int pid, struct py_proc *out)
{
	__u32 key = pid;

	return !bpf_map_lookup_elem(procs_fd, &key, out);
}

static inline void reset_gens(void)
{
	memset(running, 0, sizeof(running));
	gen_asked = 0;
	exec_after = -1;
}

#endif /* PY_PROCS_FIXTURE_H */
