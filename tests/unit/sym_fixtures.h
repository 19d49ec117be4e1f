/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sym_fixtures.h - what the symbol-source tests share (test_debuginfo.c,
 * test_demangle.c, test_perfmap.c, test_srcline.c, test_usyms*.c): the
 * paths of the stripped, MiniDebugInfo and C++ fixtures, and a fake
 * process whose maps map a fixture at a chosen address (its /proc:
 * fake_proc.h).
 */
#ifndef SYM_FIXTURES_H
#define SYM_FIXTURES_H

#include <sys/sysmacros.h>

#include "test_util.h"

#define FIXTURE_DEBUGLINK FIXTURE_DIR "/fixture_debuglink"
#define FIXTURE_DEBUGLINK_DEBUG FIXTURE_DIR "/fixture_debuglink.debug"
#define FIXTURE_BUILDID FIXTURE_DIR "/fixture_buildid"
#define FIXTURE_DEBUGROOT FIXTURE_DIR "/debugroot"
#define FIXTURE_MINIDEBUGINFO FIXTURE_DIR "/fixture_minidebuginfo"
#define FIXTURE_ZSYMTAB FIXTURE_DIR "/fixture_zsymtab"
#define FIXTURE_CXX FIXTURE_DIR "/fixture_cxx"

/* Where the build-id fixture's debug file is (found, not assumed). */
static inline char *buildid_debug_file(void)
{
	char cmd[4200], id[256], *path;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID:/ { print $3 }'",
		 FIXTURE_BUILDID);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(id, sizeof(id), p), "no build-id in '%s'", FIXTURE_BUILDID);
	pclose(p);
	id[strcspn(id, "\n")] = '\0';
	cr_assert_gt(strlen(id), 2);
	cr_assert_neq(asprintf(&path, "%s/.build-id/%.2s/%s.debug", FIXTURE_DEBUGROOT, id, id + 2), -1);
	return path;
}

/* Address and size of a symbol in .dynsym, from nm -D. */
static inline void nm_dynamic_symbol(const char *path, const char *name, uint64_t *addr,
				     uint64_t *size)
{
	nm_lookup(path, "-D", name, addr, size);
}

static inline void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_whole(from, &len);

	write_bytes(to, data, len);
	free(data);
	cr_assert_eq(chmod(to, 0755), 0);
}

/* The executable PT_LOAD of path as a maps line at load bias `bias`. */
static inline char *exec_mapping_line(const char *path, uint64_t bias, const char *shown_path)
{
	struct load_seg segs[16];
	size_t nr = readelf_loads(path, segs, ARRAY_SIZE(segs));
	struct stat sb;
	char *line = NULL;

	cr_assert_eq(stat(path, &sb), 0);
	for (size_t i = 0; i < nr && !line; i++) {
		uint64_t vpage = segs[i].vaddr & ~0xfffULL, opage = segs[i].offset & ~0xfffULL;
		uint64_t len = (segs[i].vaddr - vpage + segs[i].filesz + 0xfff) & ~0xfffULL;

		if (!segs[i].exec)
			continue;
		cr_assert_neq(asprintf(&line, "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64
				       " %02x:%02x %" PRIu64 "    %s\n",
				       bias + vpage, bias + vpage + len, opage, major(sb.st_dev),
				       minor(sb.st_dev), (uint64_t)sb.st_ino,
				       shown_path ? shown_path : path), -1);
	}
	cr_assert_not_null(line, "no executable segment in '%s'", path);
	return line;
}

/*
 * proc_root/<pid>/ with these maps, a status naming uid and nspid, and a
 * root: a symlink to ours when root_dir is NULL, else that directory.
 */
/* pid's stat: its state letter, and its start time (ticks after boot) */
/* PROC_ROOT/PID/stat, of a process started at START whose address space is VSIZE bytes */
static inline void fake_stat_vsize(const char *proc_root, int pid, char state, unsigned long long start,
				   unsigned long long vsize)
{
	char rel[64], stat[256];

	snprintf(rel, sizeof(rel), "%d/stat", pid);
	snprintf(stat, sizeof(stat),
		 "%d (fake) %c 1 %d %d 0 -1 4194560 100 0 0 0 5 1 0 0 20 0 1 0 %llu %llu 100\n",
		 pid, state, pid, pid, start, vsize);
	free(write_in(proc_root, rel, stat));
}

static inline void fake_stat(const char *proc_root, int pid, char state, unsigned long long start)
{
	fake_stat_vsize(proc_root, pid, state, start, 1000000);
}

#define FAKE_START_TIME 4242ull

static inline void fake_process(const char *proc_root, int pid, const char *maps, unsigned int uid,
				int nspid, const char *root_dir)
{
	char rel[64], status[256], *link;

	fake_stat(proc_root, pid, 'S', FAKE_START_TIME);

	snprintf(rel, sizeof(rel), "%d/maps", pid);
	free(write_in(proc_root, rel, maps));
	snprintf(rel, sizeof(rel), "%d/status", pid);
	snprintf(status, sizeof(status), "Name:\tfake\nUid:\t%u\t%u\t%u\t%u\nNSpid:\t%d\t%d\n",
		 uid, uid, uid, uid, pid, nspid);
	free(write_in(proc_root, rel, status));
	snprintf(rel, sizeof(rel), "%d/root", pid);
	link = path_in(proc_root, rel);
	if (root_dir)
		cr_assert(symlink(root_dir, link) == 0 || errno == EEXIST);
	else
		cr_assert(symlink("/", link) == 0 || errno == EEXIST);
	free(link);
}

#endif /* SYM_FIXTURES_H */
