// SPDX-License-Identifier: GPL-2.0
/*
 * test_usyms_sweep.c - what usyms__prune() lets go of, on a fake /proc: a
 * file's module and symbol table once no generation held maps it, not
 * while one does; a table shared by two files until both are gone; a file
 * mapped again read again; the unresolved counts still name a file freed;
 * a table whose debug file is being fetched outlives its module until the
 * fetch is done.
 */
#include <fcntl.h>
#include <pthread.h>

#include "fake_proc.h"
#include "sym_fixtures.h"
#include "symbols/usyms.h"

#define BIAS 0x7f2000000000ULL

/* The generation each pid runs now (0: none, exited); pids 42 and 43. */
static uint32_t running[2];

static void setup(void)
{
	fake_proc_setup();
	memset(running, 0, sizeof(running));
}

TestSuite(usyms_sweep, .init = setup, .fini = fake_proc_teardown);

static uint32_t fake_gen(pid_t pid, void *ctx)
{
	(void)ctx;
	return pid == 42 || pid == 43 ? running[pid - 42] : 0;
}

static struct usyms *new_usyms(void)
{
	struct usyms_opts opts = { .proc_root = proc_root, .demangle = true };
	struct usyms *u = usyms__new_opts(&opts);

	cr_assert_not_null(u);
	usyms__set_gen_fn(u, fake_gen, NULL);
	return u;
}

/* pid runs generation 1, which maps path's text at BIAS; read now. */
static void run_mapping(struct usyms *u, pid_t pid, const char *path)
{
	char *line = exec_mapping_line(path, BIAS, NULL);

	fake_process(proc_root, pid, line, getuid(), pid, NULL);
	free(line);
	running[pid - 42] = 1;
	cr_assert_eq(usyms__add_gen(u, pid, 1), 0);
}

/* pid exits, and two intervals are printed: its generation is freed. */
static void exit_and_prune(struct usyms *u, pid_t pid)
{
	running[pid - 42] = 0;
	usyms__prune(u);
	usyms__prune(u);
}

static const char *name_in(struct usyms *u, pid_t pid, const char *path, const char *func,
			   struct usym *sym)
{
	struct usyms_where w = { .pid = pid, .gen = 1, .from_ns = 0, .to_ns = UINT64_MAX };
	uint64_t addr, size;

	nm_symbol(path, func, &addr, &size);
	return usyms__resolve_at(u, &w, BIAS + addr, 1, sym) ? NULL : sym->name;
}

static struct usyms_held held(struct usyms *u)
{
	struct usyms_held h;

	usyms__held(u, &h);
	return h;
}

Test(usyms_sweep, a_file_is_freed_once_no_generation_maps_it)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	run_mapping(u, 42, FIXTURE_PIE);
	run_mapping(u, 43, FIXTURE_PIE);
	cr_assert_eq(held(u).modules, 1, "one file, one module");
	cr_assert_eq(held(u).files, 1);

	exit_and_prune(u, 42);
	cr_assert_eq(held(u).gens, 1);
	cr_assert_eq(held(u).modules, 1, "pid 43 still maps it");
	cr_assert_eq(held(u).files, 1);
	cr_assert_str_eq(name_in(u, 43, FIXTURE_PIE, "prog_alpha", &sym), "prog_alpha");

	/* the first prune after the exit keeps it: samples may be on their way */
	running[1] = 0;
	usyms__prune(u);
	cr_assert_eq(held(u).modules, 1);
	cr_assert_str_eq(name_in(u, 43, FIXTURE_PIE, "prog_alpha", &sym), "prog_alpha");
	usyms__prune(u);
	cr_assert_eq(held(u).gens, 0);
	cr_assert_eq(held(u).modules, 0);
	cr_assert_eq(held(u).files, 0);
	cr_assert_eq(held(u).modules_freed, 1);
	cr_assert_eq(held(u).files_freed, 1);
	cr_assert_eq(usyms__nr_files(u), 1, "read once, freed or not");
	usyms__free(u);
}

Test(usyms_sweep, a_table_shared_by_two_files_is_kept_until_both_are_gone)
{
	char *a = path_in(tmp, "a"), *b = path_in(tmp, "b");
	struct usyms *u = new_usyms();
	struct usym sym;

	/* two inodes, read alike: two modules, one table */
	copy_file(FIXTURE_PIE, a);
	copy_file(FIXTURE_PIE, b);
	run_mapping(u, 42, a);
	run_mapping(u, 43, b);
	cr_assert_eq(held(u).modules, 2);
	cr_assert_eq(held(u).files, 1, "the copies share a table");

	exit_and_prune(u, 42);
	cr_assert_eq(held(u).modules, 1, "a's module is freed");
	cr_assert_eq(held(u).files, 1, "b's module still uses the table");
	cr_assert_eq(held(u).files_freed, 0);
	cr_assert_str_eq(name_in(u, 43, b, "prog_alpha", &sym), "prog_alpha");
	cr_assert(ends_with(sym.module, "/b"), "module '%s'", sym.module);

	exit_and_prune(u, 43);
	cr_assert_eq(held(u).modules, 0);
	cr_assert_eq(held(u).files, 0);
	cr_assert_eq(held(u).files_freed, 1);
	usyms__free(u);
	free(a);
	free(b);
}

Test(usyms_sweep, a_file_mapped_again_after_it_was_freed_is_read_again)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	run_mapping(u, 42, FIXTURE_PIE);
	exit_and_prune(u, 42);
	cr_assert_eq(held(u).files, 0);
	run_mapping(u, 43, FIXTURE_PIE);
	cr_assert_eq(held(u).modules, 1);
	cr_assert_eq(held(u).files, 1);
	cr_assert_eq(usyms__nr_files(u), 2, "read a second time");
	cr_assert_str_eq(name_in(u, 43, FIXTURE_PIE, "prog_alpha", &sym), "prog_alpha");
	usyms__free(u);
}

Test(usyms_sweep, a_generation_still_running_keeps_its_files_across_prunes)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	run_mapping(u, 42, FIXTURE_PIE);
	for (int i = 0; i < 4; i++)
		usyms__prune(u);
	cr_assert_eq(held(u).modules, 1);
	cr_assert_eq(held(u).files, 1);
	cr_assert_eq(held(u).modules_freed, 0);
	cr_assert_str_eq(name_in(u, 42, FIXTURE_PIE, "prog_alpha", &sym), "prog_alpha");
	usyms__free(u);
}

static int note_module(const struct usyms_unresolved *e, void *ctx)
{
	const char **module = ctx;

	if (e->module && ends_with(e->module, "/stripped"))
		*module = e->module;
	return 0;
}

/* The -v list comes at the end of the run: it names files freed long before. */
Test(usyms_sweep, frames_of_a_freed_file_stay_counted_under_its_path)
{
	char *stripped = path_in(tmp, "stripped"), cmd[4200];
	const char *module = NULL;
	uint64_t addr, size;
	struct usyms *u = new_usyms();
	struct usyms_where w = { .pid = 42, .gen = 1, .from_ns = 0, .to_ns = UINT64_MAX };
	struct usym sym;

	copy_file(FIXTURE_PIE, stripped);
	snprintf(cmd, sizeof(cmd), "strip --strip-all '%s'", stripped);
	cr_assert_eq(system(cmd), 0);
	nm_symbol(FIXTURE_PIE, "prog_alpha", &addr, &size);
	run_mapping(u, 42, stripped);
	cr_assert_neq(usyms__resolve_at(u, &w, BIAS + addr, 3, &sym), 0);
	exit_and_prune(u, 42);
	cr_assert_eq(held(u).modules, 0);
	cr_assert_eq(usyms__for_each_unresolved(u, note_module, &module), 0);
	cr_assert_not_null(module, "the stripped file is not in the unresolved list");
	usyms__free(u);
	free(stripped);
}

/*
 * A debuginfod server that answers with the build-id fixture's debug
 * file once the test lets it: until then the fetch is in flight.
 */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static char *served;

static int gated_find(void *ctx, const uint8_t *id, size_t len, uint64_t max_bytes,
		      bool (*stop)(void *), void *stop_ctx, bool *cached)
{
	(void)ctx;
	(void)id;
	(void)len;
	(void)max_bytes;
	(void)stop;
	(void)stop_ctx;
	*cached = false;
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	return open(served, O_RDONLY | O_CLOEXEC);
}

static const struct debuginfod_backend gated_backend = { .find = gated_find };

Test(usyms_sweep, a_table_being_fetched_is_freed_when_the_fetch_is_done)
{
	static const char *const no_dirs[] = { "/nonexistent/debug" };
	struct debuginfod_fetch_opts fetch = { .threads = 1, .backend = &gated_backend };
	struct usyms_opts opts = {
		.proc_root = proc_root,
		.debug_dirs = no_dirs,
		.nr_debug_dirs = 1,
		.async = true,
		.fetch = &fetch,
	};
	struct debuginfod_fetch_stats st;
	struct usyms *u;

	served = buildid_debug_file();
	gate_open = false;
	u = usyms__new_opts(&opts);
	cr_assert_not_null(u);
	usyms__set_gen_fn(u, fake_gen, NULL);
	run_mapping(u, 42, FIXTURE_BUILDID);
	cr_assert_eq(usyms__wait(u, 5000, -1), 0);
	cr_assert_eq(held(u).files, 1);

	exit_and_prune(u, 42);
	cr_assert_eq(held(u).modules, 0);
	cr_assert_eq(held(u).files, 1, "the fetch in flight holds the table");

	pthread_mutex_lock(&gate_lock);
	gate_open = true;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	cr_assert_eq(usyms__wait_fetches(u, 0, -1), 0);
	cr_assert_eq(usyms__fetch_stats(u, &st), 0);
	cr_assert_eq(st.fetched, 1, "the debug file landed in the table");
	cr_assert_eq(held(u).files, 0, "freed with the fetch");
	cr_assert_eq(held(u).files_freed, 1);
	usyms__prune(u);	/* the table the fetched one replaced */
	usyms__free(u);
	free(served);
}
