// SPDX-License-Identifier: GPL-2.0
/*
 * test_usyms.c - user symbolization: live fixture processes through the
 * real /proc (PIE load bias, a shared library), and a fake proc root whose
 * maps the test writes, for the cases a live process cannot show.
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "fake_proc.h"
#include "sym_fixtures.h"
#include "symbols/usyms.h"

/* The runtime addresses a fixture program prints (see fixture_prog.c). */
struct fixture_proc {
	pid_t pid;
	uint64_t prog_alpha, prog_beta, prog_cb, alpha_ret, lib_func, lib_ret;
};

static pid_t child = -1;

static void kill_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
}

static void spawn(const char *path, struct fixture_proc *p)
{
	struct { const char *name; uint64_t *addr; } fields[] = {
		{ "prog_alpha", &p->prog_alpha }, { "prog_beta", &p->prog_beta },
		{ "prog_cb", &p->prog_cb }, { "alpha_ret", &p->alpha_ret },
		{ "fixture_lib_func", &p->lib_func }, { "lib_ret", &p->lib_ret },
	};
	char line[256], name[64];
	unsigned long long v;
	bool ready = false;
	int fds[2], seen = 0;
	FILE *f;

	memset(p, 0, sizeof(*p));
	cr_assert_eq(pipe(fds), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		/* do not outlive the test if it dies */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, "wait", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	cr_assert_not_null(f);
	while (!ready && fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "ready\n"))
			ready = true;
		if (sscanf(line, "%63s %llx", name, &v) != 2)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
			if (!strcmp(name, fields[i].name)) {
				*fields[i].addr = v;
				seen++;
			}
		}
	}
	fclose(f);
	cr_assert(ready, "'%s' did not get ready", path);
	cr_assert_eq(seen, (int)ARRAY_SIZE(fields), "'%s' printed %d addresses", path, seen);
	p->pid = child;
}

static void assert_resolves(struct usyms *u, pid_t pid, uint64_t addr, const char *name,
			    uint64_t offset, const char *module_suffix)
{
	struct usym sym;
	int err = usyms__resolve(u, pid, addr, &sym);

	cr_assert_eq(err, 0, "%#" PRIx64 " (want %s): %d", addr, name, err);
	cr_assert_not_null(sym.name);
	cr_assert_str_eq(sym.name, name, "%#" PRIx64, addr);
	cr_assert_eq(sym.offset, offset, "%s+%#" PRIx64 ", want +%#" PRIx64, name, sym.offset, offset);
	cr_assert_not_null(sym.module);
	cr_assert(ends_with(sym.module, module_suffix), "module '%s', want '...%s'",
		  sym.module, module_suffix);
}

static void assert_live_process(const char *path, const char *exe_suffix)
{
	struct fixture_proc p;
	struct usyms *u;
	size_t nr_files;

	spawn(path, &p);
	cr_assert_gt(p.alpha_ret, p.prog_alpha, "a return address inside prog_alpha");
	cr_assert_gt(p.lib_ret, p.lib_func, "a return address inside fixture_lib_func");
	u = usyms__new("/proc");
	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, p.pid), 0);
	assert_resolves(u, p.pid, p.prog_alpha, "prog_alpha", 0, exe_suffix);
	assert_resolves(u, p.pid, p.prog_beta, "prog_beta", 0, exe_suffix);
	assert_resolves(u, p.pid, p.prog_cb, "prog_cb", 0, exe_suffix);
	assert_resolves(u, p.pid, p.alpha_ret, "prog_alpha", p.alpha_ret - p.prog_alpha, exe_suffix);
	assert_resolves(u, p.pid, p.lib_func, "fixture_lib_func", 0, "/libfixture.so");
	assert_resolves(u, p.pid, p.lib_ret, "fixture_lib_func", p.lib_ret - p.lib_func,
			"/libfixture.so");
	/* the executable and the library at least; asking again reads nothing new */
	nr_files = usyms__nr_files(u);
	cr_assert_geq(nr_files, 2);
	assert_resolves(u, p.pid, p.prog_cb + 1, "prog_cb", 1, exe_suffix);
	assert_resolves(u, p.pid, p.lib_func + 1, "fixture_lib_func", 1, "/libfixture.so");
	cr_assert_eq(usyms__nr_files(u), nr_files);
	usyms__free(u);
}

TestSuite(usyms_live, .fini = kill_child);

Test(usyms_live, pie_and_shared_library)
{
	assert_live_process(FIXTURE_PIE, "/fixture_pie");
}

Test(usyms_live, non_pie_executable)
{
	assert_live_process(FIXTURE_EXEC, "/fixture_exec");
}

Test(usyms_live, resolve_adds_the_pid_itself)
{
	struct fixture_proc p;
	struct usyms *u;

	spawn(FIXTURE_PIE, &p);
	u = usyms__new(NULL);
	cr_assert_not_null(u);
	assert_resolves(u, p.pid, p.prog_beta + 1, "prog_beta", 1, "/fixture_pie");
	cr_assert_eq(usyms__add_pid(u, p.pid), 0, "adding it again");
	usyms__free(u);
}

Test(usyms_live, address_in_no_mapping)
{
	struct fixture_proc p;
	struct usym sym;
	struct usyms *u;

	spawn(FIXTURE_PIE, &p);
	u = usyms__new("/proc");
	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, p.pid), 0);
	/* below mmap_min_addr: never mapped */
	cr_assert_eq(usyms__resolve(u, p.pid, 0x1000, &sym), -ENOENT);
	cr_assert_null(sym.name);
	cr_assert_null(sym.module);
	cr_assert_eq(usyms__resolve(u, p.pid, 0, &sym), -ENOENT);
	cr_assert_null(sym.name);
	usyms__free(u);
}

Test(usyms_live, frames_of_a_process_that_exited_stay_resolvable)
{
	struct fixture_proc p;
	struct usyms *u;

	spawn(FIXTURE_PIE, &p);
	u = usyms__new("/proc");
	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, p.pid), 0);
	/* resolve once so the files are read, then the process goes away */
	assert_resolves(u, p.pid, p.prog_alpha, "prog_alpha", 0, "/fixture_pie");
	assert_resolves(u, p.pid, p.lib_func, "fixture_lib_func", 0, "/libfixture.so");
	kill_child();
	/* adding it again once it is reaped keeps what was read */
	cr_assert_eq(usyms__add_pid(u, p.pid), 0);
	assert_resolves(u, p.pid, p.prog_cb, "prog_cb", 0, "/fixture_pie");
	assert_resolves(u, p.pid, p.lib_ret, "fixture_lib_func", p.lib_ret - p.lib_func,
			"/libfixture.so");
	usyms__free(u);
}

Test(usyms_live, pid_that_does_not_exist)
{
	struct usyms *u = usyms__new("/proc");
	struct usym sym;

	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, INT_MAX), -ESRCH);
	cr_assert_eq(usyms__add_pid(u, INT_MAX), -ESRCH, "the second time too");
	cr_assert_eq(usyms__resolve(u, INT_MAX, 0x401000, &sym), -ENOENT);
	cr_assert_null(sym.name);
	cr_assert_eq(usyms__nr_files(u), 0);
	usyms__free(u);
}

Test(usyms_live, this_process)
{
	struct usyms *u = usyms__new(NULL);

	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, getpid()), 0);
	assert_resolves(u, getpid(), (uint64_t)(uintptr_t)usyms__resolve, "usyms__resolve", 0,
			"/unit_tests");
	assert_resolves(u, getpid(), (uint64_t)(uintptr_t)usyms__new + 2, "usyms__new", 2,
			"/unit_tests");
	usyms__free(u);
}

Test(usyms_live, vdso)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	struct usyms *u;
	struct usym sym;
	void *fn;

	if (!h)
		skip_unless_ci("no vDSO handle: %s", dlerror());
	fn = dlsym(h, "__vdso_clock_gettime");
	if (!fn)
		skip_unless_ci("no __vdso_clock_gettime in the vDSO");
	u = usyms__new(NULL);
	cr_assert_not_null(u);
	cr_assert_eq(usyms__resolve(u, getpid(), (uint64_t)(uintptr_t)fn, &sym), 0);
	/* clock_gettime is a weak alias at the same address: the global wins */
	cr_assert_str_eq(sym.name, "__vdso_clock_gettime");
	cr_assert_eq(sym.offset, 0);
	cr_assert_str_eq(sym.module, "[vdso]");
	usyms__free(u);
	dlclose(h);
}

/* --- a fake proc root ----------------------------------------------------- */

#define BIAS_A 0x7f0000000000ULL
#define BIAS_B 0x7e0000000000ULL

/* The maps line that maps the executable segment of path at bias. */
/* The maps line of path's text at bias, as the kernel prints it for the file (dev, inode). */
static char *text_mapping_as(const char *path, uint64_t bias, dev_t dev, uint64_t inode,
			     const char *suffix)
{
	struct load_seg segs[16];
	size_t nr = readelf_loads(path, segs, ARRAY_SIZE(segs));
	char *line = NULL;

	for (size_t i = 0; i < nr; i++) {
		uint64_t vpage = segs[i].vaddr & ~0xfffULL, opage = segs[i].offset & ~0xfffULL;
		uint64_t len = (segs[i].vaddr - vpage + segs[i].filesz + 0xfff) & ~0xfffULL;

		if (!segs[i].exec)
			continue;
		cr_assert_null(line, "two executable segments in '%s'", path);
		cr_assert_neq(asprintf(&line, "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64
				       " %02x:%02x %" PRIu64 "    %s%s\n",
				       bias + vpage, bias + vpage + len, opage, major(dev), minor(dev),
				       inode, path, suffix), -1);
	}
	cr_assert_not_null(line, "no executable segment in '%s'", path);
	return line;
}

/* The same on path's own device. */
static char *text_mapping(const char *path, uint64_t bias, uint64_t inode, const char *suffix)
{
	struct stat sb;

	cr_assert_eq(stat(path, &sb), 0);
	return text_mapping_as(path, bias, sb.st_dev, inode, suffix);
}

static uint64_t inode_of(const char *path)
{
	struct stat sb;

	cr_assert_eq(stat(path, &sb), 0);
	return sb.st_ino;
}

/* proc_root/<pid>/maps with these lines, and a root that is ours. */
static void fake_pid(int pid, const char *maps)
{
	fake_process(proc_root, pid, maps, getuid(), pid, NULL);
}

TestSuite(usyms_fake, .init = fake_proc_setup, .fini = fake_proc_teardown);

Test(usyms_fake, load_bias_is_undone)
{
	char *maps = text_mapping(FIXTURE_PIE, BIAS_A, inode_of(FIXTURE_PIE), "");
	struct usyms *u = usyms__new(proc_root);
	uint64_t addr, size;

	fake_pid(42, maps);
	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	nm_symbol(FIXTURE_PIE, "prog_alpha", &addr, &size);
	assert_resolves(u, 42, BIAS_A + addr, "prog_alpha", 0, "/fixture_pie");
	assert_resolves(u, 42, BIAS_A + addr + size - 1, "prog_alpha", size - 1, "/fixture_pie");
	nm_symbol(FIXTURE_PIE, "main", &addr, &size);
	assert_resolves(u, 42, BIAS_A + addr + 4, "main", 4, "/fixture_pie");
	usyms__free(u);
	free(maps);
}

Test(usyms_fake, one_file_shared_by_processes)
{
	uint64_t ino = inode_of(FIXTURE_PIE), addr, size;
	char *a = text_mapping(FIXTURE_PIE, BIAS_A, ino, "");
	char *b = text_mapping(FIXTURE_PIE, BIAS_B, ino, "");
	struct usyms *u = usyms__new(proc_root);

	fake_pid(42, a);
	fake_pid(43, b);
	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "prog_beta", &addr, &size);
	assert_resolves(u, 42, BIAS_A + addr, "prog_beta", 0, "/fixture_pie");
	assert_resolves(u, 43, BIAS_B + addr + 1, "prog_beta", 1, "/fixture_pie");
	cr_assert_eq(usyms__nr_files(u), 1);
	usyms__free(u);
	free(a);
	free(b);
}

Test(usyms_fake, adding_a_pid_again_adds_a_reading)
{
	uint64_t ino = inode_of(FIXTURE_PIE), addr, size;
	char *a = text_mapping(FIXTURE_PIE, BIAS_A, ino, "");
	char *b = text_mapping(FIXTURE_PIE, BIAS_B, ino, "");
	struct usyms *u = usyms__new(proc_root);
	struct usym sym;

	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "prog_alpha", &addr, &size);
	fake_pid(42, a);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, BIAS_A + addr, "prog_alpha", 0, "/fixture_pie");
	/* unmapped and mapped elsewhere: both places name their samples */
	fake_pid(42, b);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, BIAS_B + addr, "prog_alpha", 0, "/fixture_pie");
	assert_resolves(u, 42, BIAS_A + addr, "prog_alpha", 0, "/fixture_pie");
	cr_assert_eq(usyms__resolve(u, 42, 0x1000, &sym), -ENOENT);
	cr_assert_eq(usyms__nr_files(u), 1, "the file is still read once");
	usyms__free(u);
	free(a);
	free(b);
}

Test(usyms_fake, adding_a_pid_that_is_gone_keeps_the_earlier_reading)
{
	char *maps = text_mapping(FIXTURE_PIE, BIAS_A, inode_of(FIXTURE_PIE), "");
	struct usyms *u = usyms__new(proc_root);
	uint64_t addr, size;
	char *path;

	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "prog_beta", &addr, &size);
	fake_pid(42, maps);
	fake_pid(43, maps);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	cr_assert_eq(usyms__add_pid(u, 43), 0);
	/* 42 exited and was reaped: no maps at all */
	path = path_in(proc_root, "42/maps");
	cr_assert_eq(unlink(path), 0);
	free(path);
	cr_assert_eq(usyms__add_pid(u, 42), 0);
	assert_resolves(u, 42, BIAS_A + addr, "prog_beta", 0, "/fixture_pie");
	/* 43 is a zombie: its maps are empty */
	free(write_in(proc_root, "43/maps", ""));
	cr_assert_eq(usyms__add_pid(u, 43), 0);
	assert_resolves(u, 43, BIAS_A + addr + 2, "prog_beta", 2, "/fixture_pie");
	usyms__free(u);
	free(maps);
}

Test(usyms_fake, pid_first_seen_as_a_zombie)
{
	struct usyms *u = usyms__new(proc_root);
	struct usym sym;

	cr_assert_not_null(u);
	fake_pid(42, "");
	cr_assert_eq(usyms__add_pid(u, 42), -ESRCH);
	cr_assert_eq(usyms__resolve(u, 42, BIAS_A + 0x1000, &sym), -ENOENT);
	usyms__free(u);
}

Test(usyms_fake, file_of_an_exited_process_is_found_by_its_path)
{
	char *maps = text_mapping(FIXTURE_PIE, BIAS_A, inode_of(FIXTURE_PIE), "");
	struct usyms *u = usyms__new(proc_root);
	uint64_t addr, size;

	/* no root and no map_files: only maps, as read while it ran */
	free(write_in(proc_root, "42/maps", maps));
	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "main", &addr, &size);
	assert_resolves(u, 42, BIAS_A + addr, "main", 0, "/fixture_pie");
	usyms__free(u);
	free(maps);
}

Test(usyms_fake, replaced_file_is_not_read)
{
	/* the inode in maps is not the file's any more (at its path in the
	 * process's root nor here), and there is no map_files */
	char *maps = text_mapping(FIXTURE_PIE, BIAS_A, inode_of(FIXTURE_PIE) + 1, "");
	struct usyms *u = usyms__new(proc_root);
	uint64_t addr, size;
	struct usym sym;

	fake_pid(42, maps);
	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "prog_alpha", &addr, &size);
	cr_assert_eq(usyms__resolve(u, 42, BIAS_A + addr, &sym), -ENOENT);
	cr_assert_null(sym.name);
	cr_assert_str_eq(sym.module, FIXTURE_PIE, "the mapping is still known");
	usyms__free(u);
	free(maps);
}

/*
 * Another file system can hold a file with the inode number of the one
 * mapped (a tmpfs counts them from 1): the device must match as well.
 */
Test(usyms_fake, file_with_the_inode_on_another_device_is_not_read)
{
	struct stat sb;
	char *maps;
	struct usyms *u = usyms__new(proc_root);
	uint64_t addr, size;
	struct usym sym;

	cr_assert_eq(stat(FIXTURE_PIE, &sb), 0);
	maps = text_mapping_as(FIXTURE_PIE, BIAS_A, makedev(major(sb.st_dev) + 1, minor(sb.st_dev)),
			       sb.st_ino, "");
	fake_pid(42, maps);
	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "prog_alpha", &addr, &size);
	cr_assert_eq(usyms__resolve(u, 42, BIAS_A + addr, &sym), -ENOENT);
	cr_assert_null(sym.name, "read '%s' from another device's file", sym.name);
	cr_assert_str_eq(sym.module, FIXTURE_PIE, "the mapping is still known");
	usyms__free(u);
	free(maps);
}

Test(usyms_fake, deleted_file_is_read_through_map_files)
{
	uint64_t ino = inode_of(FIXTURE_PIE), addr, size;
	char *maps = text_mapping(FIXTURE_PIE, BIAS_A, ino, " (deleted)");
	struct usyms *u = usyms__new(proc_root);
	unsigned long long start, end;
	char rel[128], *link;
	struct usym sym;

	fake_pid(42, maps);
	cr_assert_not_null(u);
	nm_symbol(FIXTURE_PIE, "prog_cb", &addr, &size);
	/* no map_files entry yet: the path is not trusted, nothing resolves */
	cr_assert_eq(usyms__resolve(u, 42, BIAS_A + addr, &sym), -ENOENT);
	cr_assert_str_eq(sym.module, FIXTURE_PIE);
	usyms__free(u);

	cr_assert_eq(sscanf(maps, "%llx-%llx", &start, &end), 2);
	snprintf(rel, sizeof(rel), "42/map_files/%llx-%llx", start, end);
	link = path_in(proc_root, rel);
	cr_assert_eq(symlink(FIXTURE_PIE, link), 0);
	u = usyms__new(proc_root);
	cr_assert_not_null(u);
	assert_resolves(u, 42, BIAS_A + addr, "prog_cb", 0, "/fixture_pie");
	usyms__free(u);
	free(link);
	free(maps);
}

Test(usyms_fake, anonymous_and_special_mappings)
{
	static const char maps[] =
		"7f1000000000-7f1000001000 r-xp 00000000 00:00 0 \n"
		"7f2000000000-7f2000001000 r-xp 00000000 00:05 77   /memfd:jit (deleted)\n";
	struct usyms *u = usyms__new(proc_root);
	struct usym sym;

	fake_pid(42, maps);
	cr_assert_not_null(u);
	cr_assert_eq(usyms__resolve(u, 42, 0x7f1000000010, &sym), -ENOENT);
	cr_assert_null(sym.name);
	cr_assert_null(sym.module, "an anonymous mapping has no module");
	cr_assert_eq(usyms__resolve(u, 42, 0x7f2000000010, &sym), -ENOENT);
	cr_assert_str_eq(sym.module, "/memfd:jit");
	usyms__free(u);
}

Test(usyms_fake, pid_without_maps)
{
	struct usyms *u = usyms__new(proc_root);

	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, 7), -ESRCH);
	usyms__free(u);
}

/* With a loader thread: the process's files are read off this thread; after a wait they resolve. */
Test(usyms_live, async_loads_resolve_after_wait)
{
	struct usyms_opts opts = { .demangle = true, .async = true };
	struct fixture_proc p;
	struct usyms *u;

	spawn(FIXTURE_PIE, &p);
	u = usyms__new_opts(&opts);
	cr_assert_not_null(u);
	cr_assert_eq(usyms__add_pid(u, p.pid), 0);
	cr_assert_eq(usyms__wait(u, 10000, -1), 0);
	assert_resolves(u, p.pid, p.prog_alpha, "prog_alpha", 0, "/fixture_pie");
	assert_resolves(u, p.pid, p.lib_func, "fixture_lib_func", 0, "/libfixture.so");
	cr_assert_geq(usyms__nr_files(u), 2);
	usyms__free(u);
}

/* Cancelled before anything is read: frames say why they have no name, nothing hangs. */
Test(usyms_live, async_cancelled_loads_say_not_loaded)
{
	struct usyms_opts opts = { .demangle = true, .async = true };
	struct fixture_proc p;
	struct usym sym;
	struct usyms *u;
	int err;

	spawn(FIXTURE_PIE, &p);
	u = usyms__new_opts(&opts);
	cr_assert_not_null(u);
	usyms__cancel(u);
	cr_assert_eq(usyms__add_pid(u, p.pid), 0);
	cr_assert_eq(usyms__wait(u, 10000, -1), 0);
	err = usyms__resolve(u, p.pid, p.prog_alpha, &sym);
	cr_assert_eq(err, -ENOENT);
	cr_assert_eq(sym.reason, USYM_NOT_LOADED, "reason %d", sym.reason);
	cr_assert_not_null(sym.label);
	usyms__free(u);
}

/* A wait gives up when the watched descriptor is readable (a signal came). */
Test(usyms_live, async_wait_ends_on_watched_fd)
{
	struct usyms_opts opts = { .demangle = true, .async = true };
	struct usyms *u;
	int fds[2];

	u = usyms__new_opts(&opts);
	cr_assert_not_null(u);
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	/* nothing queued: done at once, whatever the fd says */
	cr_assert_eq(usyms__wait(u, 1000, fds[0]), 0);
	close(fds[0]);
	close(fds[1]);
	usyms__free(u);
}
