// SPDX-License-Identifier: GPL-2.0
/*
 * test_usyms_sources.c - where usyms finds a process's symbols, on a fake
 * /proc: a container's own files and debug files, deleted files through
 * map_files, separate debug files by --debug-dir, JIT perf maps for
 * anonymous memory, tables shared by build-id, debug files fetched from
 * debuginfod (a fake server); and the labels and counts
 * of what stays unresolved, with the reason.
 */
#include <fcntl.h>

#include "fake_proc.h"
#include "sym_fixtures.h"
#include "symbols/usyms.h"

#define BIAS 0x7f2000000000ULL
#define JIT_START 0x7f3000000000ULL

TestSuite(usyms_sources, .init = fake_proc_setup, .fini = fake_proc_teardown);

static const char *const no_dirs[] = { "/nonexistent/debug" };

static struct usyms *new_usyms(const char *const *dirs, size_t nr)
{
	struct usyms_opts opts = {
		.proc_root = proc_root,
		.debug_dirs = dirs,
		.nr_debug_dirs = nr,
		.demangle = true,
	};
	struct usyms *u = usyms__new_opts(&opts);

	cr_assert_not_null(u);
	return u;
}

static uint64_t addr_of(const char *oracle, const char *name)
{
	uint64_t addr, size;

	nm_symbol(oracle, name, &addr, &size);
	return addr;
}

static void assert_resolves(struct usyms *u, pid_t pid, uint64_t addr, const char *name)
{
	struct usym sym;
	int err = usyms__resolve(u, pid, addr, &sym);

	cr_assert_eq(err, 0, "%#" PRIx64 " (want %s): reason '%s'", addr, name,
		     usym_reason__str(sym.reason));
	cr_assert_str_eq(sym.name, name);
	cr_assert_eq(sym.reason, USYM_RESOLVED);
}

/* A fake process mapping path (as the process names it: shown) at BIAS. */
static void map_one(int pid, const char *path, const char *shown, const char *root)
{
	char *maps = exec_mapping_line(path, BIAS, shown);

	fake_process(proc_root, pid, maps, getuid(), pid, root);
	free(maps);
}

Test(usyms_sources, debug_dir_option_finds_the_build_id_debug_file)
{
	const char *dirs[] = { FIXTURE_DEBUGROOT };
	char *dbg = buildid_debug_file();
	struct usyms *u = new_usyms(dirs, 1);

	map_one(42, FIXTURE_BUILDID, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, BIAS + addr_of(dbg, "dbg_local") + 1, "dbg_local");
	assert_resolves(u, 42, BIAS + addr_of(dbg, "dbg_global"), "dbg_global");
	usyms__free(u);
	free(dbg);
}

struct seen {
	struct usyms_unresolved v[16];
	size_t nr;
};

static int collect(const struct usyms_unresolved *e, void *ctx)
{
	struct seen *s = ctx;

	cr_assert_lt(s->nr, ARRAY_SIZE(s->v));
	s->v[s->nr++] = *e;
	return 0;
}

Test(usyms_sources, stripped_without_debuginfo_is_labelled_and_counted)
{
	char *dbg = buildid_debug_file();
	struct usyms *u = new_usyms(no_dirs, 1);
	uint64_t local = BIAS + addr_of(dbg, "dbg_local");
	struct seen seen = {};
	struct usym sym;

	map_one(42, FIXTURE_BUILDID, NULL, NULL);
	cr_assert_eq(usyms__resolve_weighted(u, 42, local, 800, &sym), -ENOENT);
	cr_assert_null(sym.name);
	cr_assert_eq(sym.reason, USYM_NO_DEBUGINFO);
	cr_assert_str_eq(sym.module, FIXTURE_BUILDID);
	cr_assert_str_eq(sym.label, "[fixture_buildid]");
	cr_assert_eq(usyms__resolve_weighted(u, 42, local + 1, 12, &sym), -ENOENT);
	/* the exported function still resolves, and is not counted */
	cr_assert_eq(usyms__resolve_weighted(u, 42, BIAS + addr_of(dbg, "dbg_global"), 5, &sym), 0);
	cr_assert_str_eq(sym.label, "[fixture_buildid]");
	cr_assert_eq(usyms__for_each_unresolved(u, collect, &seen), 0);
	cr_assert_eq(seen.nr, 1);
	cr_assert_str_eq(seen.v[0].module, FIXTURE_BUILDID);
	cr_assert_eq(seen.v[0].reason, USYM_NO_DEBUGINFO);
	cr_assert_eq(seen.v[0].count, 812);
	cr_assert_str_eq(usym_reason__str(seen.v[0].reason), "stripped, no debuginfo found");
	usyms__free(u);
	free(dbg);
}

Test(usyms_sources, reasons_for_other_failures)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	char maps[512];
	struct seen seen = {};
	struct usym sym;

	/* a file that cannot be opened: not there, no map_files */
	snprintf(maps, sizeof(maps),
		 "%llx-%llx r-xp 00000000 08:01 99999999    /nonexistent/lib/libgone.so.1\n",
		 BIAS, BIAS + 0x10000);
	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	cr_assert_eq(usyms__resolve_weighted(u, 42, BIAS + 0x100, 3, &sym), -ENOENT);
	cr_assert_eq(sym.reason, USYM_UNREADABLE);
	cr_assert_str_eq(sym.label, "[libgone.so.1]");
	/* outside every mapping */
	cr_assert_eq(usyms__resolve_weighted(u, 42, 0x1000, 2, &sym), -ENOENT);
	cr_assert_eq(sym.reason, USYM_NO_MAPPING);
	cr_assert_null(sym.label);
	/* a process that was never there */
	cr_assert_eq(usyms__resolve_weighted(u, 4444, 0x1000, 7, &sym), -ENOENT);
	cr_assert_eq(sym.reason, USYM_PROCESS_GONE);
	cr_assert_null(sym.module);
	/* highest count first */
	cr_assert_eq(usyms__for_each_unresolved(u, collect, &seen), 0);
	cr_assert_eq(seen.nr, 3);
	cr_assert_eq(seen.v[0].reason, USYM_PROCESS_GONE);
	cr_assert_eq(seen.v[0].count, 7);
	cr_assert_null(seen.v[0].module);
	cr_assert_eq(seen.v[1].reason, USYM_UNREADABLE);
	cr_assert_str_eq(seen.v[1].module, "/nonexistent/lib/libgone.so.1");
	cr_assert_eq(seen.v[2].reason, USYM_NO_MAPPING);
	usyms__free(u);
}

static int stop_at_first(const struct usyms_unresolved *e, void *ctx)
{
	(void)e;
	++*(int *)ctx;
	return 42;
}

Test(usyms_sources, for_each_unresolved_stops_when_told)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	struct usym sym;
	int calls = 0;

	cr_assert_eq(usyms__for_each_unresolved(u, stop_at_first, &calls), 0);
	cr_assert_eq(calls, 0, "called with nothing unresolved");
	usyms__resolve(u, 4444, 0x1000, &sym);
	usyms__resolve(u, 4445, 0x1000, &sym);
	cr_assert_eq(usyms__for_each_unresolved(u, stop_at_first, &calls), 42);
	cr_assert_eq(calls, 1);
	usyms__free(u);
}

Test(usyms_sources, container_binary_at_a_path_we_do_not_have)
{
	char *root = path_in(tmp, "container/x"), *inside;
	uint64_t alpha = addr_of(FIXTURE_PIE, "prog_alpha");
	struct usyms *u = new_usyms(no_dirs, 1);
	struct usym sym;
	char *maps;

	root[strlen(root) - 2] = '\0';
	inside = path_in(root, "opt/app/only-in-container");
	copy_file(FIXTURE_PIE, inside);
	maps = exec_mapping_line(inside, BIAS, "/opt/app/only-in-container");
	fake_process(proc_root, 42, maps, getuid(), 1, root);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, BIAS + alpha, "prog_alpha");
	cr_assert_eq(usyms__resolve(u, 42, BIAS + alpha, &sym), 0);
	cr_assert_str_eq(sym.module, "/opt/app/only-in-container");
	cr_assert_str_eq(sym.label, "[only-in-container]");
	usyms__free(u);
	free(maps);
	free(inside);
	free(root);
}

Test(usyms_sources, container_debug_file_is_found_in_its_root)
{
	char *real = buildid_debug_file(), *root = path_in(tmp, "container/x"), *bin, *dbg, *rel;
	const char *dirs[] = { "/usr/lib/debug" };
	struct usyms *u = new_usyms(dirs, 1);
	char *maps;

	root[strlen(root) - 2] = '\0';
	bin = path_in(root, "opt/app/bid");
	copy_file(FIXTURE_BUILDID, bin);
	cr_assert_neq(asprintf(&rel, "usr/lib/debug%s", real + strlen(FIXTURE_DEBUGROOT)), -1);
	dbg = path_in(root, rel);
	copy_file(real, dbg);
	maps = exec_mapping_line(bin, BIAS, "/opt/app/bid");
	fake_process(proc_root, 42, maps, getuid(), 1, root);
	assert_resolves(u, 42, BIAS + addr_of(real, "dbg_local"), "dbg_local");
	usyms__free(u);
	free(maps);
	free(real);
	free(root);
	free(bin);
	free(dbg);
	free(rel);
}

Test(usyms_sources, deleted_file_is_read_through_map_files)
{
	uint64_t beta = addr_of(FIXTURE_PIE, "prog_beta");
	struct usyms *u = new_usyms(no_dirs, 1);
	char *copy = path_in(tmp, "gone/prog"), *maps, *line_end, rel[128], *link;
	unsigned long long start, end;

	copy_file(FIXTURE_PIE, copy);
	maps = exec_mapping_line(copy, BIAS, "/nonexistent/prog (deleted)");
	cr_assert_eq(sscanf(maps, "%llx-%llx", &start, &end), 2);
	line_end = strchr(maps, '\n');
	cr_assert_not_null(line_end);
	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	/* the kernel keeps the deleted file reachable here */
	snprintf(rel, sizeof(rel), "42/map_files/%llx-%llx", start, end);
	link = path_in(proc_root, rel);
	cr_assert_eq(symlink(copy, link), 0);
	assert_resolves(u, 42, BIAS + beta + 3, "prog_beta");
	usyms__free(u);
	free(maps);
	free(copy);
	free(link);
}

Test(usyms_sources, jit_code_resolves_through_the_perf_map)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	char maps[256], *root = path_in(tmp, "jitroot/x"), *map;
	struct seen seen = {};
	struct usym sym;

	root[strlen(root) - 2] = '\0';
	snprintf(maps, sizeof(maps), "%llx-%llx r-xp 00000000 00:00 0 \n", JIT_START,
		 JIT_START + 0x10000);
	fake_process(proc_root, 42, maps, getuid(), 9, root);
	map = write_in(root, "tmp/perf-9.map",
		       "7f3000000100 80 jit_spin\n"
		       "0x7f3000200000 0x40 LazyCompile:*later main.js:3\n");
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, JIT_START + 0x140, "jit_spin");
	cr_assert_eq(usyms__resolve(u, 42, JIT_START + 0x140, &sym), 0);
	cr_assert_eq(sym.offset, 0x40);
	cr_assert_null(sym.module);
	/* code the JIT mapped after the maps were read */
	assert_resolves(u, 42, 0x7f3000200010, "LazyCompile:*later main.js:3");
	/* in the JIT region, but not in the map */
	cr_assert_eq(usyms__resolve_weighted(u, 42, JIT_START + 0x1000, 4, &sym), -ENOENT);
	cr_assert_eq(sym.reason, USYM_NO_SYMBOL);
	cr_assert_eq(usyms__for_each_unresolved(u, collect, &seen), 0);
	cr_assert_eq(seen.nr, 1);
	cr_assert_str_eq(seen.v[0].module, "[anon]");
	usyms__free(u);
	free(map);
	free(root);
}

Test(usyms_sources, jit_code_without_a_perf_map)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	char maps[256];
	struct usym sym;

	snprintf(maps, sizeof(maps), "%llx-%llx r-xp 00000000 00:00 0 \n", JIT_START,
		 JIT_START + 0x10000);
	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	cr_assert_eq(usyms__resolve(u, 42, JIT_START + 0x140, &sym), -ENOENT);
	cr_assert_eq(sym.reason, USYM_NO_PERFMAP);
	cr_assert_null(sym.label, "anonymous memory has no file to name");
	usyms__free(u);
}

Test(usyms_sources, copies_with_one_build_id_are_read_once)
{
	const char *dirs[] = { FIXTURE_DEBUGROOT };
	char *dbg = buildid_debug_file();
	struct usyms *u = new_usyms(dirs, 1);
	char *a = path_in(tmp, "a/bid"), *b = path_in(tmp, "b/bid");

	/* two files, two inodes, one build-id: a container's copy of a library */
	copy_file(FIXTURE_BUILDID, a);
	copy_file(FIXTURE_BUILDID, b);
	map_one(42, a, NULL, NULL);
	map_one(43, b, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	cr_assert_eq(usyms__add_pid(u, 43), 0);
	cr_assert_eq(usyms__nr_files(u), 1);
	assert_resolves(u, 43, BIAS + addr_of(dbg, "dbg_local"), "dbg_local");
	usyms__free(u);
	free(dbg);
	free(a);
	free(b);
}

Test(usyms_sources, files_are_read_when_the_pid_is_added)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	uint64_t alpha = addr_of(FIXTURE_PIE, "prog_alpha");
	char *copy = path_in(tmp, "short/prog"), *pid_dir;

	copy_file(FIXTURE_PIE, copy);
	map_one(42, copy, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	cr_assert_eq(usyms__nr_files(u), 1, "not read at usyms__add_pid");
	/* the process exits and its file goes away: what was read stays */
	cr_assert_eq(unlink(copy), 0);
	cr_assert_neq(asprintf(&pid_dir, "%s/42/root", proc_root), -1);
	cr_assert_eq(unlink(pid_dir), 0);
	assert_resolves(u, 42, BIAS + alpha, "prog_alpha");
	usyms__free(u);
	free(copy);
	free(pid_dir);
}

Test(usyms_sources, many_processes_share_one_table)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	uint64_t alpha = addr_of(FIXTURE_PIE, "prog_alpha");

	for (int pid = 100; pid < 200; pid++)
		map_one(pid, FIXTURE_PIE, NULL, NULL);
	for (int pid = 100; pid < 200; pid++)
		cr_assert_eq(usyms__add_pid(u, pid), 0);
	cr_assert_eq(usyms__nr_files(u), 1);
	assert_resolves(u, 100, BIAS + alpha, "prog_alpha");
	assert_resolves(u, 199, BIAS + alpha, "prog_alpha");
	usyms__free(u);
}

/*
 * Anyone can write a file with the build-id of root's binary and names of
 * their choosing, and a file owned by root is not always root's choice (a
 * container's root, a FUSE mount): a table is shared only between files
 * it would be read alike from, never by build-id. The twin, a user's or
 * root's, has its own names; the stripped binary and a copy of it do not
 * take them.
 */
static void assert_twin_shares_nothing(uid_t owner)
{
	char *dbg = buildid_debug_file(), *planted = path_in(tmp, "planted"),
	     *own = path_in(tmp, "own-stripped");
	struct usyms *u = new_usyms(no_dirs, 1);
	uint64_t local = BIAS + addr_of(dbg, "dbg_local");
	struct usym sym;
	char cmd[8400];
	char *maps;

	/* the stripped binary and its debug file made one again: full symbols, same build-id */
	snprintf(cmd, sizeof(cmd), "eu-unstrip -o '%s' '%s' '%s'", planted, FIXTURE_BUILDID, dbg);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	copy_file(FIXTURE_BUILDID, own);
	cr_assert_eq(chown(planted, owner, owner), 0);
	cr_assert_eq(chown(own, owner, owner), 0);
	map_one(41, planted, NULL, NULL);
	map_one(42, FIXTURE_BUILDID, NULL, NULL);
	maps = exec_mapping_line(own, BIAS, NULL);
	fake_process(proc_root, 43, maps, owner, 43, NULL);
	free(maps);
	cr_assert_eq(usyms__add_pid(u, 41), 0);
	assert_resolves(u, 41, local, "dbg_local");
	/* root's stripped binary does not take the twin's names */
	cr_assert_eq(usyms__resolve(u, 42, local, &sym), -ENOENT, "uid %u's twin named root's file",
		     (unsigned)owner);
	cr_assert_eq(sym.reason, USYM_NO_DEBUGINFO, "reason '%s'", usym_reason__str(sym.reason));
	/* nor the owner's own stripped copy */
	cr_assert_eq(usyms__resolve(u, 43, local, &sym), -ENOENT, "uid %u's twin named its copy",
		     (unsigned)owner);
	usyms__free(u);
	free(dbg);
	free(planted);
	free(own);
}

Test(usyms_sources, a_build_id_twin_shares_no_names)
{
	if (geteuid() != 0)
		cr_assert_fail("needs root, to give files another owner");
	assert_twin_shares_nothing(4242);
	assert_twin_shares_nothing(0);
}

/* The same names the other way: the full binary read first names no stripped twin. */
Test(usyms_sources, a_full_binary_names_no_stripped_twin)
{
	char *dbg = buildid_debug_file(), *full = path_in(tmp, "full");
	struct usyms *u = new_usyms(no_dirs, 1);
	uint64_t local = BIAS + addr_of(dbg, "dbg_local");
	struct usym sym;
	char cmd[8400];

	snprintf(cmd, sizeof(cmd), "eu-unstrip -o '%s' '%s' '%s'", full, FIXTURE_BUILDID, dbg);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	map_one(41, full, NULL, NULL);
	map_one(42, FIXTURE_BUILDID, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 41), 0);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 41, local, "dbg_local");
	cr_assert_eq(usyms__resolve(u, 42, local, &sym), -ENOENT);
	cr_assert_eq(usyms__nr_files(u), 2);
	usyms__free(u);
	free(dbg);
	free(full);
}

/* dst: src without its build-id note, the way a build without --build-id makes it. */
static void copy_without_build_id(const char *src, const char *dst)
{
	char cmd[8400];

	snprintf(cmd, sizeof(cmd), "objcopy --remove-section=.note.gnu.build-id '%s' '%s'", src, dst);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/*
 * A program is rebuilt into the file it had (O_TRUNC: same inode, other
 * code) and run again: the new process is named from the new file, the
 * old one still from what was read for it.
 */
static void assert_rewrite_is_read_again(const char *first, const char *second)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	uint64_t alpha = addr_of(first, "prog_alpha"), plain = addr_of(second, "plain_c_function");
	char *prog = path_in(tmp, "bin/prog");
	size_t len;
	char *data = read_whole(second, &len);
	struct stat before, after;

	copy_file(first, prog);
	map_one(42, prog, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, BIAS + alpha, "prog_alpha");
	cr_assert_eq(stat(prog, &before), 0);
	write_bytes(prog, data, len);
	cr_assert_eq(stat(prog, &after), 0);
	cr_assert_eq(before.st_ino, after.st_ino, "not rewritten in place");
	map_one(43, prog, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 43), 0);
	assert_resolves(u, 43, BIAS + plain, "plain_c_function");
	assert_resolves(u, 42, BIAS + alpha, "prog_alpha");
	usyms__free(u);
	free(data);
	free(prog);
}

Test(usyms_sources, a_file_rewritten_in_place_is_read_again)
{
	assert_rewrite_is_read_again(FIXTURE_PIE, FIXTURE_CXX);
}

Test(usyms_sources, a_file_without_build_id_rewritten_in_place_is_read_again)
{
	char *first = path_in(tmp, "nobid/first"), *second = path_in(tmp, "nobid/second");

	copy_without_build_id(FIXTURE_PIE, first);
	copy_without_build_id(FIXTURE_CXX, second);
	assert_rewrite_is_read_again(first, second);
	free(first);
	free(second);
}

/*
 * A file its owner rewrites in a loop is read again a few times, then no
 * more this run (one notice says so): the old names stay rather than our
 * memory and the loader's work growing with every rewrite.
 */
struct rewrite_notices {
	int n, at;		/* how many, and at which rewrite the first came */
	int k;			/* the rewrite being read */
};

static void count_rewrite_notice(const char *path, const char *why, void *ctx)
{
	struct rewrite_notices *rn = ctx;

	(void)path;
	if (strstr(why, "rewritten too often") && !rn->n++)
		rn->at = rn->k;
}

Test(usyms_sources, a_file_rewritten_in_a_loop_is_read_again_a_few_times_only)
{
	struct rewrite_notices rn = { 0 };
	struct usyms_opts opts = {
		.proc_root = proc_root, .notice = count_rewrite_notice, .notice_ctx = &rn,
	};
	struct usyms *u = usyms__new_opts(&opts);
	char *prog = path_in(tmp, "bin/prog");
	size_t len[2];
	char *data[2] = { read_whole(FIXTURE_PIE, &len[0]), read_whole(FIXTURE_CXX, &len[1]) };

	cr_assert_not_null(u);
	copy_file(FIXTURE_PIE, prog);
	for (rn.k = 0; rn.k <= 40; rn.k++) {
		write_bytes(prog, data[rn.k % 2], len[rn.k % 2]);
		map_one(100 + rn.k, prog, NULL, NULL);
		cr_assert_eq(usyms__add_pid(u, 100 + rn.k), 0);
	}
	cr_assert_eq(rn.n, 1, "%d notices", rn.n);
	cr_assert_leq(rn.at, 10, "read again up to rewrite %d", rn.at);
	usyms__free(u);
	free(data[0]);
	free(data[1]);
	free(prog);
}

/*
 * debuginfod (usyms_fetch.c), with a fake server that hands back a file:
 * the stripped fixture is named by .dynsym until it lands, then by it; a
 * file of another build-id changes nothing.
 */
static const char *served;	/* what the fake server answers with */

static int served_find(void *ctx, const uint8_t *id, size_t len, uint64_t max_bytes,
		       bool (*stop)(void *), void *stop_ctx, bool *cached)
{
	(void)ctx;
	(void)id;
	(void)len;
	(void)max_bytes;
	(void)stop;
	(void)stop_ctx;
	*cached = false;
	return open(served, O_RDONLY | O_CLOEXEC);
}

static const struct debuginfod_backend served_backend = { .find = served_find };

static struct usyms *new_fetching_usyms(void)
{
	struct debuginfod_fetch_opts fetch = { .threads = 2, .backend = &served_backend };
	struct usyms_opts opts = {
		.proc_root = proc_root,
		.debug_dirs = no_dirs,
		.nr_debug_dirs = 1,
		.demangle = true,
		.async = true,
		.fetch = &fetch,
	};
	struct usyms *u = usyms__new_opts(&opts);

	cr_assert_not_null(u);
	return u;
}

Test(usyms_sources, fetched_debug_file_names_a_stripped_file)
{
	char *dbg = buildid_debug_file();
	struct usyms *u;
	struct debuginfod_fetch_stats st;
	uint64_t local = BIAS + addr_of(dbg, "dbg_local");

	served = dbg;
	u = new_fetching_usyms();
	map_one(42, FIXTURE_BUILDID, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	cr_assert_eq(usyms__wait(u, 5000, -1), 0);
	cr_assert_eq(usyms__wait_fetches(u, 0, -1), 0);
	assert_resolves(u, 42, local, "dbg_local");
	cr_assert_eq(usyms__fetch_stats(u, &st), 0);
	cr_assert_eq(st.fetched, 1);
	cr_assert_eq(st.failed + st.timed_out + st.cached, 0);
	usyms__free(u);
	free(dbg);
}

Test(usyms_sources, fetched_debug_file_of_another_build_id_names_nothing)
{
	char *dbg = buildid_debug_file();
	struct usyms *u;
	struct debuginfod_fetch_stats st;
	struct usym sym;

	served = FIXTURE_DEBUGLINK_DEBUG;	/* the same program, another build-id */
	u = new_fetching_usyms();
	map_one(42, FIXTURE_BUILDID, NULL, NULL);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	cr_assert_eq(usyms__wait(u, 5000, -1), 0);
	cr_assert_eq(usyms__wait_fetches(u, 0, -1), 0);
	cr_assert_eq(usyms__resolve(u, 42, BIAS + addr_of(dbg, "dbg_local"), &sym), -ENOENT);
	cr_assert_eq(sym.reason, USYM_NO_DEBUGINFO);
	cr_assert_eq(usyms__fetch_stats(u, &st), 0);
	cr_assert_eq(st.failed, 1);
	cr_assert_eq(st.fetched, 0);
	usyms__free(u);
	free(dbg);
}

Test(usyms_sources, no_fetching_without_the_option)
{
	struct usyms *u = new_usyms(no_dirs, 1);
	struct debuginfod_fetch_stats st;

	cr_assert_eq(usyms__fetch_stats(u, &st), -ENOENT);
	cr_assert_eq(usyms__wait_fetches(u, 1, -1), 0);
	usyms__free(u);
}
